// GOMP_task and the task waits. Dependencies follow the OpenMP model
// joule shares: among the children of one task, by address.
#include "task.hpp"

#include <cstring>

#include "team.hpp"

namespace joule::omp {
namespace {

constexpr unsigned kFinal = 1u << 1;
constexpr unsigned kDepend = 1u << 3;
constexpr unsigned kPriority = 1u << 4;
constexpr unsigned kDetach = 1u << 13;

struct Header {
  void (*fn)(void*);
  Team* team;
  int creator_id;
  std::uint32_t data_offset;
};

// Runs with the creator's team as the binding team; a member of that team
// keeps its own thread number.
void task_body(void* args) {
  auto* h = static_cast<Header*>(args);
  ThreadState& s = self();
  const ThreadState saved = s;
  const int id = saved.team == h->team ? saved.id : h->creator_id;
  s = ThreadState{};
  s.team = h->team;
  s.id = id;
  s.in_task = true;
  h->fn(static_cast<char*>(args) + h->data_offset);
  s = saved;
}

int dep_kind(std::uintptr_t gomp_kind) {
  switch (gomp_kind) {
    case 1:
      return JOULE_DEP_IN;
    case 4:
      return JOULE_DEP_COMMUTATIVE;  // mutexinoutset
    case 5:
      return JOULE_DEP_CONCURRENT;  // inoutset
    default:
      return JOULE_DEP_INOUT;  // out, inout
  }
}

}  // namespace

joule_task_t* create_task(const GompTask& g, const joule_task_options_t& opts,
                          const std::uint64_t* bounds) {
  const std::size_t align = g.arg_align > 16 ? std::size_t(g.arg_align) : 16;
  const std::size_t offset = (sizeof(Header) + align - 1) & ~(align - 1);
  const std::size_t extra = align > 16 ? align : 0;  // joule aligns the block to 16
  joule_task_t* t = nullptr;
  void* args = nullptr;
  if (joule_task_create(task_body, offset + extra + std::size_t(g.arg_size), &opts, &t, &args) !=
      JOULE_OK)
    unsupported("GOMP_task (joule_task_create failed)");
  auto base = reinterpret_cast<std::uintptr_t>(args);
  const std::uintptr_t data = (base + sizeof(Header) + align - 1) & ~std::uintptr_t(align - 1);
  auto* h = static_cast<Header*>(args);
  h->fn = g.fn;
  h->team = current_team();
  h->creator_id = self().id;
  h->data_offset = std::uint32_t(data - base);
  if (g.cpyfn)
    g.cpyfn(reinterpret_cast<void*>(data), g.data);
  else if (g.arg_size)
    std::memcpy(reinterpret_cast<void*>(data), g.data, std::size_t(g.arg_size));
  if (bounds) std::memcpy(reinterpret_cast<void*>(data), bounds, 2 * sizeof(std::uint64_t));
  return t;
}

int depend_count(void** depend) {
  const auto first = reinterpret_cast<std::uintptr_t>(depend[0]);
  return int(first ? first : reinterpret_cast<std::uintptr_t>(depend[1]));
}

void depend_to_joule(void** depend, joule_dep_t* out) {
  auto word = [&](int i) { return reinterpret_cast<std::uintptr_t>(depend[i]); };
  const int n = depend_count(depend);
  const bool old = word(0) != 0;
  const std::uintptr_t n_out = old ? word(1) : word(2);
  const std::uintptr_t n_mutex = old ? 0 : word(3);
  const std::uintptr_t n_in = old ? std::uintptr_t(n) - n_out : word(4);
  const int first = old ? 2 : 5;
  for (int i = 0; i < n; ++i) {
    void* addr = depend[first + i];
    int kind = JOULE_DEP_INOUT;
    if (std::uintptr_t(i) >= n_out + n_mutex + n_in) {
      // A depend object (or inoutset): {address, kind}.
      auto* obj = static_cast<void**>(addr);
      addr = obj[0];
      kind = dep_kind(reinterpret_cast<std::uintptr_t>(obj[1]));
    } else if (std::uintptr_t(i) >= n_out + n_mutex) {
      kind = JOULE_DEP_IN;
    } else if (std::uintptr_t(i) >= n_out) {
      kind = JOULE_DEP_COMMUTATIVE;
    }
    out[i] = joule_dep_t{kind, addr, 1};
  }
}

void add_depend(joule_task_t* t, void** depend) {
  const int n = depend_count(depend);
  joule_dep_t small[16];
  joule_dep_t* deps = n <= 16 ? small : new joule_dep_t[std::size_t(n)];
  depend_to_joule(depend, deps);
  joule_task_add_deps(t, deps, std::size_t(n));
  if (deps != small) delete[] deps;
}

}  // namespace joule::omp

using namespace joule::omp;

extern "C" {

JOULE_EXPORT void GOMP_task(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*),
                            long arg_size, long arg_align, bool if_clause, unsigned flags,
                            void** depend, int priority, void* /*detach*/) {
  if (flags & kDetach) unsupported("GOMP_task with detach");
  joule_task_options_t opts = JOULE_TASK_OPTIONS_INIT;
  opts.if_ = if_clause ? 1 : 0;
  opts.final_ = (flags & kFinal) ? 1 : 0;
  opts.priority = (flags & kPriority) ? priority : 0;
  joule_task_t* t = create_task(GompTask{fn, data, cpyfn, arg_size, arg_align}, opts, nullptr);
  if ((flags & kDepend) && depend) add_depend(t, depend);
  joule_task_submit(t);
}

JOULE_EXPORT void GOMP_taskwait(void) { joule_taskwait(); }

JOULE_EXPORT void GOMP_taskwait_depend(void** depend) {
  const int n = depend_count(depend);
  joule_dep_t small[16];
  joule_dep_t* deps = n <= 16 ? small : new joule_dep_t[std::size_t(n)];
  depend_to_joule(depend, deps);
  joule_taskwait_on(deps, std::size_t(n));
  if (deps != small) delete[] deps;
}

// Untied tasks are tied here, so there is nothing to switch to.
JOULE_EXPORT void GOMP_taskyield(void) {}

// A taskgroup ends when every child of the current task has finished
// (joule completes a task only after its descendants): it may wait for
// children created before the group too, which is never wrong, only later.
JOULE_EXPORT void GOMP_taskgroup_start(void) {}
JOULE_EXPORT void GOMP_taskgroup_end(void) { joule_taskwait(); }

}  // extern "C"
