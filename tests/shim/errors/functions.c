/* Task pragmas on declarations that cannot be task functions. */
#pragma oss task in(x)
int returns_int(int x);
#pragma oss task firstprivate(x)
void with_sharing(int x);
#pragma oss task in(q)
void unknown_name(int x);
#pragma oss task
int global_variable;
void target_alone(int *p) {
#pragma omp target device(mic) copy_deps
  p[0] = 1;
}
// expect: 3:5: error: a task function must return void
// expect: 4:18: error: clause 'firstprivate' is not allowed on a task function
// expect: 6:21: error: use of undeclared identifier 'q'
// expect: 8:13: error: '#pragma oss task' must be followed by a statement or a function declaration
// expect: 11:13: error: '#pragma omp target' must be followed by a '#pragma omp task'
