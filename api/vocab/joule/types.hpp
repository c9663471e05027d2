// joule's C++ vocabulary types: the error type, dependencies and task
// options. Shared by the C++ API (joule.hpp) and the runtime's own layers,
// which may include this header and joule/types.h but no other public header
// (docs/internals.md).
#pragma once

#include <joule/types.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace joule {

// Thrown on misuse (null body, overflowing region, bad configuration, wrong state).
class JOULE_EXPORT error : public std::runtime_error {
 public:
  error(joule_status_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  joule_status_t code() const noexcept { return code_; }

 private:
  joule_status_t code_;
};

enum class dep_kind : int {
  in = JOULE_DEP_IN,
  out = JOULE_DEP_OUT,
  inout = JOULE_DEP_INOUT,
  commutative = JOULE_DEP_COMMUTATIVE,
  concurrent = JOULE_DEP_CONCURRENT,
  reduction = JOULE_DEP_REDUCTION,
};

// A dependency on the bytes [addr, addr + bytes); `reduction`: the operator
// of a reduction dependency (see joule_dep_t).
struct dep {
  dep_kind kind;
  const void* addr;
  std::size_t bytes;
  const joule_reduction_op_t* reduction = nullptr;
};

inline constexpr std::uint64_t no_affinity = JOULE_NO_AFFINITY;

struct task_options {
  const char* label = nullptr;           // static string naming the task type
  int priority = 0;                      // used by the `priority` scheduler
  bool final = false;                    // this task and its descendants run inline
  bool if_ = true;                       // false: undeferred, run by the creator once ready
  double cost = 0.0;                     // relative cost hint (0: unknown)
  std::uint64_t affinity = no_affinity;  // tasks with equal keys prefer one worker
};

struct task;  // opaque, owned by the runtime

namespace detail {
using task_fn = void (*)(void*);
using loop_fn = void (*)(void*, std::int64_t, std::int64_t);

// The C ABI's options as C++ options (null: the defaults).
inline task_options to_options(const joule_task_options_t* o) noexcept {
  task_options out;
  if (!o) return out;
  out.label = o->label;
  out.priority = o->priority;
  out.final = o->final_ != 0;
  out.if_ = o->if_ != 0;
  out.cost = o->cost;
  out.affinity = o->affinity;
  return out;
}
}  // namespace detail

}  // namespace joule
