// Task reductions in the LLVM runtime ABI (task_reduction, in_reduction,
// reduction(task, ...), taskloop reduction): the runtime owns the private
// copies and folds them. Each thread that asks for a copy of a reduction
// (__kmpc_task_reduction_get_th_data) gets one block of copies of its own,
// made and initialised at its first request and linked into the
// reduction; the taskgroup's end folds every block into the shared
// variables. Tasks never move between threads, and a thread runs one task
// at a time, so no two tasks update one copy at once. No thread numbers
// are involved: tasks may run on any worker (with the GOMP ABI the
// compiled code indexes copies by thread number instead: reduction.hpp).
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "kmpc.hpp"
#include "kmpc_taskred.hpp"
#include "task.hpp"

namespace joule::omp::kmp {
namespace {

struct Copies {
  Copies* next;
  // the items' copies follow
};

struct TaskRed {
  TaskRed* parent = nullptr;  // the enclosing taskgroup's, for in_reduction lookups
  std::uint64_t gen = 0;
  std::vector<TaskRedInput> items;
  std::vector<std::size_t> offset;  // of each item's copy in a block
  std::size_t block = 0;
  std::atomic<Copies*> copies{nullptr};
  int owner = 0;  // reduction(task, ...): the member whose variables receive the result
  // reduction(task, ...) on parallel: each member's own variables (its
  // privates), item by item per member, which its tasks name.
  // Written by each member as it starts, read by any task: atomic.
  std::unique_ptr<std::atomic<const char*>[]> members;
  std::size_t member_slots = 0;
};

// The copy for p in r's item k, if p is in the variable (or a member's).
const char* match(const TaskRed* r, std::size_t k, const char* p) {
  const TaskRedInput& i = r->items[k];
  if (p == i.orig) return static_cast<const char*>(i.shar);
  const auto* shar = static_cast<const char*>(i.shar);
  if (p >= shar && p < shar + i.size) return shar;
  for (std::size_t m = k; m < r->member_slots; m += r->items.size()) {
    const char* own = r->members[m].load(std::memory_order_relaxed);
    if (own && p >= own && p < own + i.size) return own;
  }
  return nullptr;
}

std::atomic<std::uint64_t> g_gen{1};
thread_local std::vector<TaskRed*> t_groups;  // per taskgroup of this thread: its reduction or null

struct CacheEntry {
  const TaskRed* red;
  std::uint64_t gen;
  char* copies;
};
thread_local CacheEntry t_recent[8];
thread_local unsigned t_next_slot;

TaskRed* make(std::int32_t n, const TaskRedInput* in) {
  auto* r = new TaskRed;
  r->gen = g_gen.fetch_add(1, std::memory_order_relaxed);
  r->items.assign(in, in + n);
  std::size_t at = sizeof(Copies);
  for (const TaskRedInput& i : r->items) {
    at = (at + 63) & ~std::size_t(63);
    r->offset.push_back(at);
    at += i.size;
  }
  r->block = at;
  for (auto it = t_groups.rbegin(); it != t_groups.rend(); ++it)
    if (*it) {
      r->parent = *it;
      break;
    }
  return r;
}

char* new_copies(TaskRed* r) {
  auto* c = static_cast<Copies*>(std::aligned_alloc(64, (r->block + 63) & ~std::size_t(63)));
  if (!c) unsupported("__kmpc_task_reduction_get_th_data (out of memory)");
  char* base = reinterpret_cast<char*>(c);
  for (std::size_t k = 0; k < r->items.size(); ++k) {
    const TaskRedInput& i = r->items[k];
    void* priv = base + r->offset[k];
    if (i.init)
      reinterpret_cast<void (*)(void*, void*)>(i.init)(priv, i.orig ? i.orig : i.shar);
    else
      std::memset(priv, 0, i.size);
  }
  c->next = r->copies.load(std::memory_order_relaxed);
  while (!r->copies.compare_exchange_weak(c->next, c, std::memory_order_release)) {
  }
  return base;
}

// The calling thread's block of r (a miss in the small cache makes another
// block: never wrong, every block is folded).
char* thread_copies(TaskRed* r) {
  for (CacheEntry& e : t_recent)
    if (e.red == r && e.gen == r->gen) return e.copies;
  char* c = new_copies(r);
  t_recent[t_next_slot++ % 8] = CacheEntry{r, r->gen, c};
  return c;
}

void finish(TaskRed* r) {
  Copies* c = r->copies.load(std::memory_order_acquire);
  while (c) {
    Copies* next = c->next;
    char* base = reinterpret_cast<char*>(c);
    for (std::size_t k = 0; k < r->items.size(); ++k) {
      const TaskRedInput& i = r->items[k];
      reinterpret_cast<void (*)(void*, void*)>(i.comb)(i.shar, base + r->offset[k]);
      if (i.fini) reinterpret_cast<void (*)(void*)>(i.fini)(base + r->offset[k]);
    }
    std::free(c);
    c = next;
  }
  delete r;
}

}  // namespace

void taskgroup_begin() { t_groups.push_back(nullptr); }

void taskgroup_end() {
  if (t_groups.empty()) return;
  TaskRed* r = t_groups.back();
  t_groups.pop_back();
  if (r) finish(r);
}

}  // namespace joule::omp::kmp

using namespace joule::omp;
using namespace joule::omp::kmp;

extern "C" {

JOULE_EXPORT void* __kmpc_taskred_init(std::int32_t, std::int32_t n, TaskRedInput* data) {
  if (t_groups.empty() || t_groups.back())
    unsupported("__kmpc_taskred_init outside a taskgroup of its own");
  TaskRed* r = make(n, data);
  t_groups.back() = r;
  return r;
}

JOULE_EXPORT void* __kmpc_task_reduction_get_th_data(std::int32_t, void* tg, void* data) {
  auto* r = static_cast<TaskRed*>(tg);
  if (!r)
    for (auto it = t_groups.rbegin(); it != t_groups.rend() && !r; ++it) r = *it;
  const auto* p = static_cast<const char*>(data);
  for (; r; r = r->parent)
    for (std::size_t k = 0; k < r->items.size(); ++k)
      if (const char* base = match(r, k, p))
        return thread_copies(r) + r->offset[k] + (p == r->items[k].orig ? 0 : p - base);
  unsupported("__kmpc_task_reduction_get_th_data for a variable no enclosing reduction names");
}

// reduction(task, ...) on parallel or a worksharing construct: every member
// gets the reduction the first one made (the team's next construct carries
// it); its task copies fold into that member's private variables, which the
// construct's own reduction then combines.
JOULE_EXPORT void* __kmpc_taskred_modifier_init(Ident*, std::int32_t, std::int32_t, std::int32_t n,
                                                TaskRedInput* data) {
  const int members = current_team()->n;
  WorkShare* w = ws_enter([&](WorkShare& slot) {
    TaskRed* r = make(n, data);
    r->owner = self().id;
    r->member_slots = std::size_t(members) * std::size_t(n);
    r->members = std::make_unique<std::atomic<const char*>[]>(r->member_slots);
    slot.copy.store(r, std::memory_order_relaxed);
  });
  auto* r = static_cast<TaskRed*>(w->copy.load(std::memory_order_relaxed));
  const auto id = std::size_t(self().id);
  for (std::int32_t k = 0; k < n && id < std::size_t(members); ++k)
    r->members[id * std::size_t(n) + std::size_t(k)].store(static_cast<const char*>(data[k].shar),
                                                           std::memory_order_relaxed);
  ws_leave();
  t_groups.push_back(r);
  return r;
}

// Every member's tasks end, then the owner folds the copies into its variables.
JOULE_EXPORT void __kmpc_task_reduction_modifier_fini(Ident*, std::int32_t, std::int32_t) {
  TaskRed* r = t_groups.empty() ? nullptr : t_groups.back();
  if (!r) unsupported("__kmpc_task_reduction_modifier_fini without its _init");
  t_groups.pop_back();
  wait_descendants();
  barrier();
  if (self().id == r->owner) finish(r);
}

}  // extern "C"
