/* What outlined C tasks cannot capture. (A local typedef, variably
   modified or not, is declared again in the outlined code.) */
void local_types(int n) {
  struct local { int v; } s = {1};
  typedef int myint;
  myint m = 2;
#pragma oss task inout(s)
  s.v += m;
}
// expect: 8:3: error: the task uses 's' whose type 'local' is declared inside the function

/* Variably modified types joulecc does not rebuild: an array of pointers
   to variable-length rows, a pointer to a function returning one. */
void vm_types(int n) {
  double (*rows[4])[n] = {0};
  double (*(*pick)(int))[n] = 0;
#pragma oss task
  rows[0] = rows[1];
#pragma oss task
  rows[2] = pick(2);
}
// expect: 18:3: error: the variably modified type of 'rows' is not supported by joulecc
// expect: 20:13: error: the variably modified type of 'pick' is not supported by joulecc (a function type in it)
