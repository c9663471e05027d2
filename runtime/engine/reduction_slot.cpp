#include "reduction_slot.hpp"

#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>

#include "joule/types.hpp"
#include "thread_context.hpp"
#include "worker.hpp"

namespace joule::engine {

using namespace joule::core;
namespace {

int direct_index(const ThreadContext& ctx) noexcept {
  return ctx.worker ? ctx.worker->index() : -1;
}

bool runs_inline(const Task* t) noexcept {
  return t->parent && t->parent->has(task_flag::final | task_flag::serial);
}

}  // namespace

ReductionSlot::ReductionSlot(std::uintptr_t start, std::uintptr_t end,
                             const joule_reduction_op_t* op, ReductionSlot* into,
                             std::size_t into_offset) noexcept
    : start_(start), bytes_(end - start), op_(op), into_(into), into_offset_(into_offset) {}

ReductionSlot::~ReductionSlot() {
  // Folded copies are freed by fold(); anything left was never folded
  // (a domain torn down on an error path): just free it.
  for (auto& d : direct_) std::free(d.load(std::memory_order_relaxed));
  for (Copy* c = others_.load(std::memory_order_relaxed); c;) {
    Copy* next = c->next;
    std::free(c);
    c = next;
  }
}

bool ReductionSlot::joinable(std::uintptr_t start, std::uintptr_t end,
                             const joule_reduction_op_t* op) const noexcept {
  if (closed_ || start != start_ || end - start != bytes_) return false;
  return op == op_ || (op->init == op_->init && op->combine == op_->combine);
}

void ReductionSlot::close() noexcept {
  if (closed_) return;
  closed_ = true;
  leave();
}

void ReductionSlot::leave() noexcept {
  // acq_rel: the last one sees every member's writes to its copy.
  if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) fold();
}

ReductionSlot::Copy* ReductionSlot::find_mine() const noexcept {
  const ThreadContext& ctx = thread_context();
  const int i = direct_index(ctx);
  if (i >= 0 && i < kDirect) return direct_[i].load(std::memory_order_acquire);
  for (Copy* c = others_.load(std::memory_order_acquire); c; c = c->next)
    if (c->owner == &ctx) return c;
  return nullptr;
}

ReductionSlot::Copy* ReductionSlot::make_copy(const void* owner) {
  const std::size_t size = kHeader + ((bytes_ + 63) & ~std::size_t(63));
  auto* c = static_cast<Copy*>(std::aligned_alloc(64, size));
  if (!c) throw std::bad_alloc();
  c->next = nullptr;
  c->owner = owner;
  op_->init(data_of(c), reinterpret_cast<const void*>(start_), bytes_);
  return c;
}

void* ReductionSlot::private_copy() {
  if (Copy* c = find_mine()) return data_of(c);
  const ThreadContext& ctx = thread_context();
  const int i = direct_index(ctx);
  Copy* c = make_copy(&ctx);
  // Only this thread adds its own entry: a plain publish will do.
  if (i >= 0 && i < kDirect) {
    direct_[i].store(c, std::memory_order_release);
  } else {
    Copy* head = others_.load(std::memory_order_relaxed);
    do {
      c->next = head;
    } while (!others_.compare_exchange_weak(head, c, std::memory_order_release,
                                            std::memory_order_relaxed));
  }
  return data_of(c);
}

std::ptrdiff_t ReductionSlot::offset_of(std::uintptr_t addr, std::size_t bytes) const noexcept {
  if (addr >= start_ && bytes <= bytes_ && addr - start_ <= bytes_ - bytes)
    return std::ptrdiff_t(addr - start_);
  Copy* c = find_mine();
  if (!c) return -1;
  const auto mine = reinterpret_cast<std::uintptr_t>(data_of(c));
  if (addr >= mine && bytes <= bytes_ && addr - mine <= bytes_ - bytes)
    return std::ptrdiff_t(addr - mine);
  return -1;
}

// Every member has completed and the group is closed: nobody else touches
// the copies. Runs on the thread that brought pending_ to zero.
void ReductionSlot::fold() noexcept {
  void* target = reinterpret_cast<void*>(start_);
  if (into_) {
    try {
      target = static_cast<char*>(into_->private_copy()) + into_offset_;
    } catch (...) {
      std::fputs("joule: out of memory folding a nested task reduction\n", stderr);
      std::abort();
    }
  }
  auto fold_one = [&](Copy* c) {
    op_->combine(target, data_of(c), bytes_);
    std::free(c);
  };
  for (auto& d : direct_)
    if (Copy* c = d.exchange(nullptr, std::memory_order_relaxed)) fold_one(c);
  for (Copy* c = others_.exchange(nullptr, std::memory_order_relaxed); c;) {
    Copy* next = c->next;
    fold_one(c);
    c = next;
  }
}

void* reduction_private(Task* t, const void* addr) {
  const auto a = reinterpret_cast<std::uintptr_t>(addr);
  // A task run inline updates the copy of the task it runs inside, on this thread.
  for (Task* owner = t; owner && owner->parent; owner = owner->parent) {
    for (ReductionMember* m = owner->reductions; m; m = m->next) {
      ReductionSlot* s = m->slot;
      const std::ptrdiff_t off = s->offset_of(a, 1);
      if (off >= 0) return static_cast<char*>(s->private_copy()) + off;
    }
    if (!runs_inline(owner)) break;
  }
  if (t->parent && (runs_inline(t) || !t->tokens.empty())) return const_cast<void*>(addr);
  char where[32];
  std::snprintf(where, sizeof where, "%p", addr);
  throw joule::error(JOULE_ERR_INVALID, std::string("joule: reduction_private(") + where +
                                            "): the running task holds no reduction on "
                                            "that address (declare it in the task's "
                                            "reduction dependency)");
}

}  // namespace joule::engine
