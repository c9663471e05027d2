/* device(cuda) where joulecc cannot make a CUDA task: task statements and
 * taskloops, ndrange with the wrong number of values or without
 * device(cuda), regions not reached through a pointer parameter. */
int g[4];

#pragma oss task device(cuda) ndrange(1, n, 128, 1) inout([n]v)
void too_many(int n, double *v);

#pragma oss task device(cuda) ndrange(4, n, 1) inout([n]v)
void four_dims(int n, double *v);

#pragma oss task ndrange(1, n, 128) inout([n]v)
void no_device(int n, double *v);

#pragma oss task device(cuda) in(n) inout([n]v)
void scalar_dep(int n, double *v);

#pragma oss task device(cuda) inout(g) copy_in(v[0;n])
void global_dep(int n, double *v);

#pragma oss task device(smp, cuda) inout([n]v)
void mixed(int n, double *v);

void statement(double *v, long n) {
#pragma oss task device(cuda) inout(v[0;n])
  v[0] = 1;
#pragma oss taskloop device(cuda)
  for (long i = 0; i < n; i++) v[i] = 2;
}
// expect: 6:39: error: 'ndrange(1, ...)' takes 3 values (1, then the global sizes, then the block sizes), not 4
// expect: 9:39: error: the first value of 'ndrange' is the number of dimensions: 1, 2 or 3 (an integer literal), not '4'
// expect: 12:18: error: 'ndrange' needs 'device(cuda)' (the task function is a CUDA kernel)
// expect: 15:34: error: device(cuda) task function 'scalar_dep': 'n' in 'in' is not a pointer; a CUDA task's regions are what its pointer parameters point at (the GPU gets a copy of each and the kernel the copy's address)
// expect: 18:37: error: device(cuda) task function 'global_dep': 'g' in 'inout' is not a parameter; a CUDA task's regions are what its pointer parameters point at (the GPU gets a copy of each and the kernel the copy's address)
// expect: 21:25: error: device(cuda) cannot be combined with other devices
// expect: 25:18: error: device(cuda) applies to task functions only: joulecc cannot run a task statement on a GPU; put the body in a function declared with '#pragma oss task device(cuda) ...' and call it
// expect: 27:22: error: device(cuda) applies to task functions only: joulecc cannot run a task statement on a GPU; put the body in a function declared with '#pragma oss task device(cuda) ...' and call it
