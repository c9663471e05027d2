// EmulatedCard's traffic: submitting launches (validation, staging, the
// host-side queue), the pump thread that feeds the shared ring and hands
// results back, and failing everything when the card process is gone.
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "emulated_card.hpp"
#include "joule/types.hpp"

namespace joule::offload {
namespace {

[[noreturn]] void invalid(const std::string& msg) { throw joule::error(JOULE_ERR_INVALID, msg); }

std::size_t round_up(std::size_t n) { return (n + 63) & ~std::size_t(63); }

void check(const Launch& l, std::size_t staging_bytes, std::size_t& staged) {
  if (l.regions.size() > std::size_t(kMaxRegions))
    invalid("joule card: a card task names " + std::to_string(l.regions.size()) +
            " copy regions; at most " + std::to_string(kMaxRegions));
  if (l.args_size > kMaxArgs || l.args_align > 16)
    invalid("joule card: task arguments of " + std::to_string(l.args_size) + " bytes (alignment " +
            std::to_string(l.args_align) + ") do not fit a command (at most " +
            std::to_string(kMaxArgs) + " bytes, alignment 16)");
  staged = 0;
  for (const Region& r : l.regions) {
    const auto a = reinterpret_cast<std::uintptr_t>(r.host);
    if (!r.host || r.bytes == 0) invalid("joule card: a copy region is empty or null");
    if (r.bytes > std::numeric_limits<std::uintptr_t>::max() - a)
      invalid("joule card: copy region at " + std::to_string(a) + " of " + std::to_string(r.bytes) +
              " bytes overflows the address space");
    if (!r.to_card && !r.to_host) continue;
    // Compared before rounding up: a size near SIZE_MAX would wrap to 0.
    if (r.bytes > staging_bytes - std::min(staged, staging_bytes))
      invalid("joule card: the task's copies (" + std::to_string(r.bytes) +
              " bytes in one region) overflow the card's staging area of " +
              std::to_string(staging_bytes) + " bytes (JOULE_CARD_STAGING_MB)");
    staged += round_up(r.bytes);
  }
  if (staged > staging_bytes)
    invalid("joule card: the task's copies (" + std::to_string(staged) +
            " bytes) overflow the card's staging area of " + std::to_string(staging_bytes) +
            " bytes (JOULE_CARD_STAGING_MB)");
}

}  // namespace

std::size_t EmulatedCard::stage_alloc(std::size_t bytes) {
  std::unique_lock lk(stage_mutex_);
  for (;;) {
    if (dead_.load()) throw joule::error(JOULE_ERR_STATE, death_);
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->second < bytes) continue;
      const std::size_t off = it->first, left = it->second - bytes;
      free_.erase(it);
      if (left) free_[off + bytes] = left;
      return off;
    }
    stage_cv_.wait_for(lk, std::chrono::milliseconds(10));  // freed as results come back
  }
}

void EmulatedCard::stage_free(std::size_t off, std::size_t bytes) {
  std::lock_guard lk(stage_mutex_);
  auto it = free_.emplace(off, bytes).first;
  if (auto next = std::next(it); next != free_.end() && off + it->second == next->first) {
    it->second += next->second;
    free_.erase(next);
  }
  if (it != free_.begin())
    if (auto prev = std::prev(it); prev->first + prev->second == off) {
      prev->second += it->second;
      free_.erase(it);
    }
  stage_cv_.notify_all();
}

Command* EmulatedCard::build(const Launch& l, std::uint64_t id, Pending& p) {
  auto* c = new Command();
  c->id = id;
  c->op = l.release ? Op::release : Op::run;
  c->fn = l.fn;
  c->args_size = l.args_size;
  if (l.args_size) std::memcpy(c->args, l.args, l.args_size);
  c->regions = std::uint32_t(l.regions.size());
  std::size_t off = p.stage_off;
  for (std::size_t i = 0; i < l.regions.size(); ++i) {
    const Region& r = l.regions[i];
    WireRegion& w = c->region[i];
    w = {reinterpret_cast<std::uint64_t>(r.host), r.bytes, off, r.access, r.to_card, r.to_host};
    if (!r.to_card && !r.to_host) continue;
    if (r.to_card) {  // the emulated PCIe transfer, host side
      std::memcpy(area_->staging() + off, r.host, r.bytes);
      bytes_to_card_.fetch_add(r.bytes, std::memory_order_relaxed);
    }
    if (r.to_host) p.back.emplace_back(r, off);
    off += round_up(r.bytes);
  }
  return c;
}

void EmulatedCard::submit(const Launch& l, Completion done) {
  std::size_t staged = 0;
  check(l, staging_bytes_, staged);
  if (dead_.load()) throw joule::error(JOULE_ERR_STATE, death_);
  Pending p;
  p.done = std::move(done);
  p.stage_bytes = staged;
  if (staged) p.stage_off = stage_alloc(staged);
  const std::uint64_t id = next_id_.fetch_add(1);
  Command* c = build(l, id, p);
  {
    std::lock_guard lk(pending_mutex_);
    pending_.emplace(id, std::move(p));
  }
  launches_.fetch_add(1, std::memory_order_relaxed);
  queue_.push(c);
  area_->results.ring();  // wakes the pump
}

void EmulatedCard::finish(Pending& p, std::exception_ptr error) {
  if (p.stage_bytes) stage_free(p.stage_off, p.stage_bytes);
  if (p.done) p.done(std::move(error));
}

void EmulatedCard::fail(std::uint64_t id, const std::string& why) {
  Pending p;
  {
    std::lock_guard lk(pending_mutex_);
    auto it = pending_.find(id);
    if (it == pending_.end()) return;
    p = std::move(it->second);
    pending_.erase(it);
  }
  finish(p, std::make_exception_ptr(joule::error(JOULE_ERR_TASK_EXCEPTION, why)));
}

void EmulatedCard::drain_results() {
  while (Result* r = area_->results.front()) {
    const Result res = *r;
    area_->results.pop();
    Pending p;
    {
      std::lock_guard lk(pending_mutex_);
      auto it = pending_.find(res.id);
      if (it == pending_.end()) continue;
      p = std::move(it->second);
      pending_.erase(it);
    }
    if (!res.ok) {
      finish(p, std::make_exception_ptr(joule::error(JOULE_ERR_TASK_EXCEPTION, res.error)));
      continue;
    }
    for (const auto& [region, off] : p.back) {
      std::memcpy(const_cast<void*>(region.host), area_->staging() + off, region.bytes);
      bytes_to_host_.fetch_add(region.bytes, std::memory_order_relaxed);
    }
    finish(p, nullptr);
  }
}

void EmulatedCard::pump() {
  Command* carry = nullptr;
  for (;;) {
    if (!dead_.load()) {
      drain_results();
      if (card_exited()) {
        std::vector<std::uint64_t> ids;
        {
          std::lock_guard lk(pending_mutex_);
          for (const auto& [id, p] : pending_) ids.push_back(id);
        }
        for (std::uint64_t id : ids) fail(id, death_);
      }
    }
    if (!carry) queue_.try_pop(carry);
    while (carry) {
      Command* slot = dead_.load() ? nullptr : area_->commands.slot();
      if (dead_.load()) {
        fail(carry->id, death_);
      } else if (!slot) {
        break;  // ring full: drain results first
      } else {
        *slot = *carry;
        area_->commands.publish();
      }
      delete carry;
      carry = nullptr;
      queue_.try_pop(carry);
    }
    if (stopping_.load() && !carry && queue_.empty()) {
      std::lock_guard lk(pending_mutex_);
      if (pending_.empty()) break;
    }
    area_->results.wait(2'000'000);
  }
  if (dead_.load()) return;
  Command* slot;
  while (!(slot = area_->commands.slot()) && !card_exited()) usleep(100);
  if (slot && !dead_.load()) {
    slot->op = Op::stop;
    area_->commands.publish();
  }
}

}  // namespace joule::offload
