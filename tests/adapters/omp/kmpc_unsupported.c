/* An LLVM runtime entry point libjoule-omp does not implement
 * (__kmpc_threadprivate_register, what Intel's compilers may call),
 * called as compiled code calls it: with libjoule-omp preloaded over libomp
 * the program must stop naming it (kmpc_unsupported_loud), not run it on
 * libomp's runtime. */
#include <stdio.h>

void __kmpc_threadprivate_register(void* loc, void* data, void* ctor, void* cctor, void* dtor);

static int value = 7;

int main(void) {
  __kmpc_threadprivate_register(NULL, &value, NULL, NULL, NULL);
  printf("ran: %d\n", value);
  return 0;
}
