/* A header the compiler treats as a system header (task_calls_sys.c):
   joulecc does not rewrite system headers. */
#pragma GCC system_header

static inline void bump_twice(int *x) {
  inc(x);
  inc(x);
}
