/* device(mic) where joulecc cannot offload: task statements and taskloops
 * (their bodies reach data through the creator's variables). */
void statement(double *v, long n) {
#pragma oss task device(mic) inout(v[0;n])
  v[0] = 1;
#pragma oss taskloop device(smp, mic)
  for (long i = 0; i < n; i++) v[i] = 2;
#pragma omp target device(mic) copy_deps
#pragma omp task inout(v[0;n])
  v[1] = 1;
}
// expect: 4:18: error: device(mic) applies to task functions only: joulecc cannot run a task statement on the card; put the body in a function declared with '#pragma oss task device(mic) ...' and call it
// expect: 6:22: error: device(mic) applies to task functions only: joulecc cannot run a task statement on the card; put the body in a function declared with '#pragma oss task device(mic) ...' and call it
// expect: 8:20: error: device(mic) applies to task functions only: joulecc cannot run a task statement on the card; put the body in a function declared with '#pragma oss task device(mic) ...' and call it
