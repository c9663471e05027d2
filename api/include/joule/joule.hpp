// joule C++ API. Templates here only adapt callables and forward to the
// exported non-template functions in joule::detail (implemented in libjoule).
#pragma once

#include <joule/joule.h>
#include <joule/reduction.hpp>
#include <joule/types.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace joule {

namespace detail {

JOULE_EXPORT task* task_create(task_fn fn, std::size_t args_size, std::size_t args_align,
                               const task_options& opts, void** args);
// Throws on a bad dependency; the task is then neither submitted nor
// discarded: the caller destroys its arguments and calls task_discard.
JOULE_EXPORT void task_add_deps(task* t, const dep* deps, std::size_t n);
JOULE_EXPORT void task_submit(task* t);
JOULE_EXPORT void task_discard(task* t) noexcept;
JOULE_EXPORT void taskwait();
JOULE_EXPORT void taskwait_on(const dep* deps, std::size_t n);
JOULE_EXPORT void taskloop(loop_fn fn, void* ctx, std::int64_t begin, std::int64_t end,
                           std::int64_t grainsize, const task_options& opts);
JOULE_EXPORT void runtime_start(const std::pair<std::string, std::string>* settings, std::size_t n);
JOULE_EXPORT void runtime_stop();
JOULE_EXPORT std::size_t checked_bytes(std::size_t count, std::size_t elem_size);

template <class F>
void run_and_destroy(void* p) {
  F* f = static_cast<F*>(p);
  struct destroy_on_exit {
    F* f;
    ~destroy_on_exit() { f->~F(); }
  } guard{f};
  (*f)();
}

template <class F>
constexpr bool is_nullable_v =
    std::is_pointer_v<F> || std::is_member_pointer_v<F> || std::is_same_v<F, std::function<void()>>;

// Through a parameter of the decayed type: a function passed by name
// becomes a pointer here, and g++ does not warn that its address is never
// null (-Waddress) as it does on `!body` in the caller.
template <class B>
bool is_null(const B& b) noexcept {
  return !b;
}

template <class F>
void submit_callable(std::span<const dep> deps, F&& body, const task_options& opts) {
  using Body = std::decay_t<F>;
  if constexpr (is_nullable_v<Body>) {
    if (is_null<Body>(body)) throw error(JOULE_ERR_INVALID, "joule::spawn: the task body is null");
  }
  void* args = nullptr;
  task* t = task_create(&run_and_destroy<Body>, sizeof(Body), alignof(Body), opts, &args);
  try {
    ::new (args) Body(std::forward<F>(body));
  } catch (...) {
    task_discard(t);
    throw;
  }
  // A task without dependencies has nothing to register: no call.
  if (!deps.empty()) {
    try {
      task_add_deps(t, deps.data(), deps.size());
    } catch (...) {
      static_cast<Body*>(args)->~Body();  // never runs, but must not leak
      task_discard(t);
      throw;
    }
  }
  task_submit(t);
}
}  // namespace detail

// ---- dependencies --------------------------------------------------------
// in(x): the bytes of x.  in(p, n): n elements starting at p.
#define JOULE_DEFINE_DEP_KIND(name)                                  \
  template <class T>                                                 \
  dep name(const T& x) noexcept {                                    \
    return {dep_kind::name, std::addressof(x), sizeof(T)};           \
  }                                                                  \
  template <class T>                                                 \
  dep name(const T* p, std::size_t n) {                              \
    return {dep_kind::name, p, detail::checked_bytes(n, sizeof(T))}; \
  }
JOULE_DEFINE_DEP_KIND(in)
JOULE_DEFINE_DEP_KIND(out)
JOULE_DEFINE_DEP_KIND(inout)
JOULE_DEFINE_DEP_KIND(commutative)
JOULE_DEFINE_DEP_KIND(concurrent)
// Without an operator: updated in place, one task at a time (commutative).
// With one (reduction.hpp): reduction(x, red::sum), reduction(p, n, op).
JOULE_DEFINE_DEP_KIND(reduction)
#undef JOULE_DEFINE_DEP_KIND

// ---- tasks ---------------------------------------------------------------
template <class F>
requires std::is_invocable_v < std::decay_t<F>
& > void spawn(std::initializer_list<dep> deps, F&& body, const task_options& opts = {}) {
  detail::submit_callable(std::span<const dep>(deps.begin(), deps.size()), std::forward<F>(body),
                          opts);
}

template <class F>
requires std::is_invocable_v < std::decay_t<F>
& > void spawn(std::span<const dep> deps, F&& body, const task_options& opts = {}) {
  detail::submit_callable(deps, std::forward<F>(body), opts);
}

template <class F>
requires std::is_invocable_v < std::decay_t<F>
& > void spawn(F&& body, const task_options& opts = {}) {
  detail::submit_callable({}, std::forward<F>(body), opts);
}

// Waits for the children of the current task; rethrows the first exception
// one of them (or their descendants) threw.
inline void taskwait() { detail::taskwait(); }
inline void taskwait_on(std::initializer_list<dep> deps) {
  detail::taskwait_on(deps.begin(), deps.size());
}
inline void taskwait_on(std::span<const dep> deps) {
  detail::taskwait_on(deps.data(), deps.size());
}

// taskloop(begin, end, grainsize, body): body(i) for each i, or body(lo, hi)
// for each chunk, run as tasks of about grainsize iterations (0: automatic).
// Returns when every chunk is done (an implicit taskgroup).
template <class I, class F>
requires std::is_integral_v<I>
void taskloop(I begin, I end, I grainsize, F&& body, const task_options& opts = {}) {
  using Body = std::remove_reference_t<F>;
  auto chunk = [](void* ctx, std::int64_t lo, std::int64_t hi) {
    Body& f = *static_cast<Body*>(ctx);
    if constexpr (std::is_invocable_v<Body&, I, I>) {
      f(static_cast<I>(lo), static_cast<I>(hi));
    } else {
      for (std::int64_t i = lo; i < hi; ++i) f(static_cast<I>(i));
    }
  };
  detail::taskloop(chunk, const_cast<void*>(static_cast<const void*>(std::addressof(body))),
                   static_cast<std::int64_t>(begin), static_cast<std::int64_t>(end),
                   static_cast<std::int64_t>(grainsize), opts);
}

// parallel_for(begin, end, body): taskloop with an automatic grain size.
template <class I, class F>
requires std::is_integral_v<I>
void parallel_for(I begin, I end, F&& body, const task_options& opts = {}) {
  taskloop(begin, end, I{0}, std::forward<F>(body), opts);
}

inline int num_workers() { return joule_num_workers(); }
inline int worker_id() { return joule_worker_id(); }
inline void iteration_boundary() { joule_iteration_boundary(); }
inline bool in_final() { return joule_in_final() != 0; }
inline const char* version() { return joule_version(); }

// Explicit lifetime: starts the runtime with settings that override the
// environment (keys as in docs/configuration.md, e.g. {"JOULE_WORKERS", "2"})
// and on destruction waits for every task and stops the workers. Destroyed
// inside a task it cannot wait (for that task): it prints an error and the
// runtime keeps running until joule_finalize() outside every task or exit.
// Without a joule::runtime the first spawn / taskwait / taskloop starts the
// runtime; a bad setting then prints the message and exits with status 1.
class runtime {
 public:
  runtime() { detail::runtime_start(nullptr, 0); }
  explicit runtime(std::initializer_list<std::pair<std::string, std::string>> settings) {
    detail::runtime_start(settings.begin(), settings.size());
  }
  ~runtime() { detail::runtime_stop(); }
  runtime(const runtime&) = delete;
  runtime& operator=(const runtime&) = delete;
};

}  // namespace joule
