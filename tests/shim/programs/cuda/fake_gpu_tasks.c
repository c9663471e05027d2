/* device(cuda) task functions without ndrange, run over the fake CUDA
 * driver (tests/offload/cuda/fake_driver, loaded through JOULE_CUDA_DRIVER):
 * its device memory is host memory and cuLaunchHostFunc runs a host
 * function in stream order, so these task functions "compute on the GPU"
 * by enqueueing one on the task's stream. Checks that each pointer argument
 * is the GPU's copy (not the host's address), that data stays coherent
 * across a chain of GPU tasks, a host task and a taskwait, and copy clauses
 * without copy_deps. Prints OK when every value is right. Built as C and as
 * C++ (a copy named .cpp): joulecc writes each its own way. */
#include <dlfcn.h>
#include <joule/cuda.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1000
#define ROUNDS 10

/* cuLaunchHostFunc (CUDA driver API, "Execution Control"): the fake's. */
typedef int (*launch_host_t)(struct CUstream_st *, void (*)(void *), void *);
static launch_host_t launch_host;
static double *host_y, *host_a, *host_b;
static int not_mapped, no_stream;

struct Add {
  int n;
  double *y, x;
};
static void add_fn(void *p) {
  struct Add *a = (struct Add *)p;
  for (int i = 0; i < a->n; i++) a->y[i] += a->x;
  free(a);
}

#pragma oss task device(cuda) inout([n]y)
void add_on_gpu(int n, double *y, double x) {
  struct CUstream_st *s = joule_cuda_current_stream();
  struct Add *a = (struct Add *)malloc(sizeof *a);
  a->n = n;
  a->y = y;
  a->x = x;
  if (y == host_y || joule_cuda_current_map(host_y) != y) __atomic_add_fetch(&not_mapped, 1, 0);
  if (!s) __atomic_add_fetch(&no_stream, 1, 0);
  launch_host(s, add_fn, a);
}

struct Twice {
  int n;
  const double *a;
  double *b;
};
static void twice_fn(void *p) {
  struct Twice *t = (struct Twice *)p;
  for (int i = 0; i < t->n; i++) t->b[i] = 2.0 * t->a[i];
  free(t);
}

#pragma oss task device(cuda) in(a[0;n]) out(b[0;n]) copy_in(a[0;n]) copy_out(b[0;n])
void twice_on_gpu(int n, const double *a, double *b) {
  struct Twice *t = (struct Twice *)malloc(sizeof *t);
  t->n = n;
  t->a = a;
  t->b = b;
  if (a == host_a || b == host_b) __atomic_add_fetch(&not_mapped, 1, 0);
  launch_host(joule_cuda_current_stream(), twice_fn, t);
}

int main(void) {
  void *driver = dlopen(getenv("JOULE_CUDA_DRIVER"), RTLD_NOW);
  launch_host = driver ? (launch_host_t)dlsym(driver, "cuLaunchHostFunc") : 0;
  if (!launch_host) {
    printf("JOULE_CUDA_DRIVER must name the fake CUDA driver\n");
    return 1;
  }
  host_y = (double *)calloc(N, sizeof(double));
  host_a = (double *)malloc(N * sizeof(double));
  host_b = (double *)calloc(N, sizeof(double));
  double *y = host_y, seen = -1;
  for (int i = 0; i < N; i++) host_a[i] = i;
  for (int k = 0; k < ROUNDS; k++) add_on_gpu(N, y, 1.0);
#pragma oss task in(y[0;N]) out(seen)
  seen = y[N - 1];
  add_on_gpu(N, y, 0.5);
  twice_on_gpu(N, host_a, host_b);
#pragma oss taskwait
  int bad = seen != ROUNDS;
  for (int i = 0; i < N; i++) bad += y[i] != ROUNDS + 0.5 || host_b[i] != 2.0 * i;
  printf("gpus %d seen %.1f y[0] %.1f b[N-1] %.1f wrong %d not mapped %d no stream %d\n",
         joule_cuda_device_count(), seen, y[0], host_b[N - 1], bad, not_mapped, no_stream);
  free(host_y);
  free(host_a);
  free(host_b);
  if (bad || not_mapped || no_stream) return 2;
  printf("OK\n");
  return 0;
}
