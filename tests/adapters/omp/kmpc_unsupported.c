/* An LLVM runtime entry point libjoule-omp does not implement
 * (__kmpc_threadprivate_register, what Intel's compilers may call), or with
 * the argument "kmp" a kmp_* routine it cannot honour (serial library
 * mode), called as compiled code calls them: with libjoule-omp preloaded
 * over libomp the program must stop naming it (kmpc_unsupported_loud,
 * kmp_unsupported_loud), not run it on libomp's runtime. */
#include <stdio.h>
#include <string.h>

void __kmpc_threadprivate_register(void* loc, void* data, void* ctor, void* cctor, void* dtor);
void kmp_set_library_serial(void);

static int value = 7;

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "kmp") == 0)
    kmp_set_library_serial();
  else
    __kmpc_threadprivate_register(NULL, &value, NULL, NULL, NULL);
  printf("ran: %d\n", value);
  return 0;
}
