// Helpers behind <joule/ompss.h>: dependency lists, task creation and
// waiting for translated code. Only the public joule API is used.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <vector>

#include "joule/joule.hpp"
#include "joule/ompss.h"

namespace {

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "joule: %s failed: %s\n", what, joule_last_error());
  std::abort();
}

// The first task or taskwait starts the runtime; a bad setting is the
// user's to fix, not a crash: the message (naming the key and its allowed
// values) and status 1, as libjoule-omp does, never abort and a core dump.
[[noreturn]] void exit_on_start_error() {
  std::fprintf(stderr, "%s\njoule: the runtime could not start; exiting\n", joule_last_error());
  std::exit(1);
}

void check(int rc, const char* what) {
  if (rc == JOULE_ERR_CONFIG) exit_on_start_error();
  if (rc != JOULE_OK) die(what);
}

void push(joule_oss_deps_t* d, int kind, const void* addr, size_t bytes) {
  if (bytes == 0) return;
  if (d->n > 0) {  // merge with the previous run of the same kind when they touch
    joule_dep_t& p = d->deps[d->n - 1];
    // Never reductions: a region's runs are joined by joule_oss_dep_reduction,
    // and a run must not slip into the previous region's dependency.
    if (p.kind == kind && kind != JOULE_DEP_REDUCTION &&
        static_cast<const char*>(p.addr) + p.bytes == addr) {
      p.bytes += bytes;
      return;
    }
  }
  if (d->n == d->cap) {
    size_t cap = d->cap * 2;
    auto* grown = static_cast<joule_dep_t*>(std::malloc(cap * sizeof(joule_dep_t)));
    if (!grown) {
      std::fprintf(stderr, "joule: out of memory building a dependency list\n");
      std::abort();
    }
    std::memcpy(grown, d->deps, d->n * sizeof(joule_dep_t));
    if (d->deps != d->local) std::free(d->deps);
    d->deps = grown;
    d->cap = cap;
  }
  d->deps[d->n++] = joule_dep_t{kind, addr, bytes, nullptr};
}

}  // namespace

extern "C" {

void joule_oss_dep(joule_oss_deps_t* d, int kind, const void* addr, size_t bytes) {
  push(d, kind, addr, bytes);
}

// The region's runs (a strided section has several) become one reduction
// over their hull, starting at the base: the body reaches the private copy
// through the base pointer, so the copy must be one block that starts there.
// Bytes of the hull outside the section keep their value: a copy starts at
// the identity, which the fold leaves them unchanged by.
void joule_oss_dep_reduction(joule_oss_deps_t* d, size_t first, const void* base, int red_kind,
                             int red_type) {
  if (first >= d->n) return;  // an empty region: nothing to reduce
  const joule_reduction_op_t* op = joule_reduction_op(red_kind, red_type);
  if (!op) {
    std::fprintf(stderr, "joule: no built-in reduction operator %d for element type %d\n", red_kind,
                 red_type);
    std::abort();
  }
  auto lo = reinterpret_cast<std::uintptr_t>(base);
  std::uintptr_t hi = lo;
  for (size_t i = first; i < d->n; ++i) {
    const auto a = reinterpret_cast<std::uintptr_t>(d->deps[i].addr);
    lo = std::min(lo, a);
    hi = std::max(hi, a + d->deps[i].bytes);
  }
  d->n = first + 1;
  d->deps[first] = joule_dep_t{JOULE_DEP_REDUCTION, reinterpret_cast<const void*>(lo), hi - lo, op};
}

void* joule_oss_reduction_private(const void* p) {
  void* mine = joule_reduction_private(p);
  return mine ? mine : const_cast<void*>(p);
}

size_t joule_oss_section_length(long long n, const char* file, int line, const char* what) {
  if (n >= 0) return size_t(n);
  // Cast to size_t a negative length would name most of the address space.
  std::fprintf(stderr, "%s:%d: error: the section of '%s' has a negative length (%lld)\n",
               file ? file : "?", line, what ? what : "?", n);
  std::exit(1);
}

void joule_oss_dep_strided(joule_oss_deps_t* d, int kind, const void* start, int ndims,
                           const size_t* strides, const size_t* lens) {
  if (ndims <= 0) return;
  for (int i = 0; i < ndims; ++i)
    if (lens[i] == 0) return;
  // Innermost dimensions that cover whole rows of the next one form one run.
  int j = ndims - 1;
  size_t run = lens[j] * strides[j];
  while (j > 0 && run == strides[j - 1]) {
    --j;
    run = lens[j] * strides[j];
  }
  if (j == 0) {
    push(d, kind, start, run);
    return;
  }
  size_t idx[16] = {0};
  if (j > 16) {
    std::fprintf(stderr, "joule: a section with more than 16 dimensions\n");
    std::abort();
  }
  for (;;) {
    const char* p = static_cast<const char*>(start);
    for (int i = 0; i < j; ++i) p += idx[i] * strides[i];
    push(d, kind, p, run);
    int k = j - 1;
    while (k >= 0 && ++idx[k] == lens[k]) idx[k--] = 0;
    if (k < 0) break;
  }
}

void joule_oss_dep_shaped(joule_oss_deps_t* d, int kind, const void* base, size_t elem_size,
                          int ndims, const size_t* extents, const ptrdiff_t* lo,
                          const size_t* len) {
  if (ndims <= 0 || ndims > 16) return;
  size_t strides[16], lens[16];
  strides[ndims - 1] = elem_size;
  for (int i = ndims - 1; i > 0; --i) strides[i - 1] = strides[i] * extents[i];
  const char* p = static_cast<const char*>(base);
  for (int i = 0; i < ndims; ++i) {
    if (lo) p += lo[i] * static_cast<ptrdiff_t>(strides[i]);
    lens[i] = len ? len[i] : extents[i];
  }
  joule_oss_dep_strided(d, kind, p, ndims, strides, lens);
}

void joule_oss_deps_free(joule_oss_deps_t* d) {
  if (d->deps != d->local) std::free(d->deps);
  d->deps = d->local;
  d->n = 0;
  d->cap = 8;
}

void* joule_oss_task_create(joule_task_fn_t fn, size_t args_size, const joule_task_options_t* opts,
                            joule_task_t** task) {
  void* args = nullptr;
  check(joule_task_create(fn, args_size ? args_size : 1, opts, task, &args), "creating a task");
  return args;
}

void joule_oss_task_submit(joule_task_t* task, joule_oss_deps_t* d) {
  if (d->n) check(joule_task_add_deps(task, d->deps, d->n), "adding the task's dependencies");
  joule_oss_deps_free(d);
  check(joule_task_submit(task), "submitting a task");
}

void joule_oss_taskwait(void) { check(joule_taskwait(), "taskwait"); }

void joule_oss_taskwait_on(joule_oss_deps_t* d) {
  int rc = joule_taskwait_on(d->deps, d->n);
  joule_oss_deps_free(d);
  check(rc, "taskwait on");
}

void joule_oss_release(joule_oss_deps_t* d) { joule_oss_deps_free(d); }

void joule_oss_taskloop(joule_loop_fn_t fn, void* args, int64_t n, int64_t grainsize,
                        const joule_task_options_t* opts) {
  if (n <= 0) return;
  check(joule_taskloop(fn, args, 0, n, grainsize, opts), "taskloop");
}

int64_t joule_oss_grain_for_tasks(int64_t n, int64_t num_tasks) {
  if (num_tasks <= 0 || n <= 0) return 0;
  return (n + num_tasks - 1) / num_tasks;
}

int64_t joule_oss_trip_count(int64_t lo, int64_t hi, int64_t step, int op) {
  if (step == 0) {
    std::fprintf(stderr, "joule: taskloop with a zero step\n");
    std::abort();
  }
  if (op == 4) op = step > 0 ? 0 : 2;
  __int128 l = lo, h = hi, s = step, n = 0;
  switch (op) {
    case 0:
      n = h > l ? (h - l + s - 1) / s : 0;
      break;
    case 1:
      n = h >= l ? (h - l) / s + 1 : 0;
      break;
    case 2:
      n = l > h ? (l - h - s - 1) / -s : 0;
      break;
    case 3:
      n = l >= h ? (l - h) / -s + 1 : 0;
      break;
    default:
      break;
  }
  if (n < 0) n = 0;  // the step goes the wrong way
  if (n > std::numeric_limits<int64_t>::max()) n = std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(n);
}

}  // extern "C"

namespace joule_oss {

void taskwait() { joule::taskwait(); }

void taskwait_on(joule_oss_deps_t* d) {
  struct Free {
    joule_oss_deps_t* d;
    ~Free() { joule_oss_deps_free(d); }
  } guard{d};
  std::vector<joule::dep> deps;
  deps.reserve(d->n);
  for (size_t i = 0; i < d->n; ++i)
    deps.push_back(
        {static_cast<joule::dep_kind>(d->deps[i].kind), d->deps[i].addr, d->deps[i].bytes});
  joule::detail::taskwait_on(deps.data(), deps.size());
}

void taskloop_run(joule_loop_fn_t fn, void* ctx, int64_t n, int64_t grainsize,
                  const joule_task_options_t* opts) {
  if (n <= 0) return;
  joule::detail::taskloop(fn, ctx, 0, n, grainsize, joule::detail::to_options(opts));
}

}  // namespace joule_oss
