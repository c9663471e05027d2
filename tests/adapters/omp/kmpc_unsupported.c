/* An LLVM runtime entry point libjoule-omp does not implement
 * (__kmpc_dist_for_static_init_4, what a distribute parallel for may call),
 * called as compiled code calls it: with libjoule-omp preloaded over libomp
 * the program must stop naming it (kmpc_unsupported_loud), not run it on
 * libomp's runtime. */
#include <stdio.h>

void __kmpc_dist_for_static_init_4(void* loc, int gtid, int sched, int* last, int* lower,
                                   int* upper, int* upper_dist, int* stride, int incr, int chunk);

int main(void) {
  int last = 0, lower = 0, upper = 63, upper_dist = 63, stride = 1;
  __kmpc_dist_for_static_init_4(NULL, 0, 34, &last, &lower, &upper, &upper_dist, &stride, 1, 0);
  printf("ran: %d..%d\n", lower, upper);
  return 0;
}
