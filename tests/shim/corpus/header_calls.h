/* Task functions declared in a header and called from the header's own
   static inline functions, from a macro body and through a macro argument
   (header_calls.c). Each caller's order matters: a call left as a plain
   call would run before the task it follows, and the result would change
   with the number of workers. */
#ifndef HEADER_CALLS_H
#define HEADER_CALLS_H
#include <unistd.h>

#pragma oss task inout(*x)
static inline void inc(int *x) { (*x)++; }

#pragma oss task inout(*x)
static inline void twice(int *x) {
  usleep(20000);
  *x *= 2;
}

/* A task statement, then a call, in one inline function. */
static inline void run(int *x) {
#pragma oss task inout(*x)
  {
    usleep(40000);
    *x *= 2;
  }
  inc(x);
}

#define BUMP(p) inc(p)
#define APPLY(f, p) f(p)

static inline void via_macros(int *x) {
  twice(x);
  BUMP(x);
  APPLY(twice, x);
  inc(x);
}

/* Built as C++ (shim_corpus_gxx): a task function in a namespace, calls
   in a template (resolved only in its instantiation), a lambda and a
   member function; built as C, the same calls in plain functions. */
#ifdef __cplusplus
namespace kern {
#define KERN(f) kern::f
#else
#define KERN(f) f
#endif
#pragma oss task inout(*x)
static inline void add5(int *x) {
  usleep(10000);
  *x += 5;
}
#ifdef __cplusplus
}  // namespace kern
template <typename T>
static inline void generic(T *x) {
#else
static inline void generic(int *x) {
#endif
  twice(x);
  KERN(add5)(x);
  inc(x);
}

static inline void with_lambda(int *x) {
  twice(x);
#ifdef __cplusplus
  auto f = [x]() {
    KERN(add5)(x);
    inc(x);
  };
  f();
#else
  KERN(add5)(x);
  inc(x);
#endif
}

#ifdef __cplusplus
struct Acc {
  int *p;
  void go() {
    twice(p);
    inc(p);
  }
};
#define ACC_GO(x) (Acc{x}.go())
#else
static inline void acc_go(int *p) {
  twice(p);
  inc(p);
}
#define ACC_GO(x) acc_go(x)
#endif
#endif
