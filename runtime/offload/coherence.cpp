#include "coherence.hpp"

#include <algorithm>
#include <cstdio>

#include "joule/types.hpp"
#include "trace_api.hpp"

namespace joule::offload {

std::string region_text(std::uintptr_t start, std::size_t bytes) {
  char buf[80];
  std::snprintf(buf, sizeof buf, "[%#llx, +%zu bytes)", static_cast<unsigned long long>(start),
                bytes);
  return buf;
}

Coherence::Entry* Coherence::find_exact(std::uintptr_t start) {
  auto it = map_.find(start);
  return it == map_.end() ? nullptr : it->second.get();
}

std::vector<std::shared_ptr<Coherence::Entry>> Coherence::overlapping(std::uintptr_t lo,
                                                                      std::uintptr_t hi) const {
  std::vector<std::shared_ptr<Entry>> out;
  auto it = map_.upper_bound(lo);
  if (it != map_.begin()) {  // entries are disjoint: only the one before lo can reach into it
    auto prev = std::prev(it);
    if (prev->first + prev->second->bytes > lo) out.push_back(prev->second);
  }
  for (; it != map_.end() && it->first < hi; ++it) out.push_back(it->second);
  return out;
}

// A new card region may not overlap a live one unless the live one holds
// nothing only the card has and no card task uses it: then it is dropped.
void Coherence::check_free(std::uintptr_t lo, std::size_t bytes) const {
  for (const auto& e : overlapping(lo, lo + bytes))
    if (e->users > 0 || e->host != e->latest)
      throw joule::error(JOULE_ERR_INVALID,
                         "joule card: copy region " + region_text(lo, bytes) + " overlaps " +
                             region_text(e->start, e->bytes) +
                             ", which card tasks still use; regions on the card must be "
                             "disjoint or identical (same start and size) until a taskwait");
}

namespace {
// One use per start address (the card keys copies by it); overlaps with
// different starts inside one task are an error.
std::vector<Use> merge_uses(const std::vector<Use>& uses) {
  std::vector<Use> merged;
  for (const Use& u : uses) {
    auto same =
        std::find_if(merged.begin(), merged.end(), [&](const Use& m) { return m.addr == u.addr; });
    if (same == merged.end()) {
      merged.push_back(u);
      continue;
    }
    same->bytes = std::max(same->bytes, u.bytes);
    same->reads |= u.reads;
    same->writes |= u.writes;
  }
  for (std::size_t i = 0; i < merged.size(); ++i)
    for (std::size_t j = i + 1; j < merged.size(); ++j) {
      const auto a = reinterpret_cast<std::uintptr_t>(merged[i].addr);
      const auto b = reinterpret_cast<std::uintptr_t>(merged[j].addr);
      if (a < b + merged[j].bytes && b < a + merged[i].bytes)
        throw joule::error(JOULE_ERR_INVALID,
                           "joule card: copy regions " + region_text(a, merged[i].bytes) + " and " +
                               region_text(b, merged[j].bytes) +
                               " of one card task overlap with different starts; name the "
                               "enclosing region once");
    }
  return merged;
}
}  // namespace

std::vector<Use> Coherence::enter(const std::vector<Use>& uses) {
  std::vector<Use> merged = merge_uses(uses);
  std::lock_guard lk(m_);
  for (const Use& u : merged) {  // all checked before any is entered
    const auto start = reinterpret_cast<std::uintptr_t>(u.addr);
    Entry* e = find_exact(start);
    if (!e || e->bytes != u.bytes) check_free(start, u.bytes);
  }
  for (const Use& u : merged) {
    const auto start = reinterpret_cast<std::uintptr_t>(u.addr);
    Entry* e = find_exact(start);
    if (!e || e->bytes != u.bytes) {
      for (const auto& old : overlapping(start, start + u.bytes)) map_.erase(old->start);
      auto fresh = std::make_shared<Entry>();
      fresh->start = start;
      fresh->bytes = u.bytes;
      fresh->latest = fresh->host = ++clock_;  // host memory holds it; the card nothing
      e = map_.emplace(start, std::move(fresh)).first->second.get();
    }
    ++e->users;
  }
  sync_live();
  return merged;
}

void Coherence::leave(const std::vector<Use>& uses) {
  std::lock_guard lk(m_);
  for (const Use& u : uses)
    if (Entry* e = find_exact(reinterpret_cast<std::uintptr_t>(u.addr)); e && e->users > 0)
      --e->users;
}

void Coherence::submit_card_task(Device& dev, Launch& l, Device::Completion done) {
  begin_card_task(l.regions);
  try {
    dev.submit(l, std::move(done));
  } catch (...) {
    submitted(l.regions);
    throw;
  }
  submitted(l.regions);
}

// Waits until the earlier card tasks on these regions were submitted, so
// that the card sees the launches in the order of these decisions.
void Coherence::begin_card_task(std::vector<Region>& regions) {
  std::unique_lock lk(m_);
  cv_.wait(lk, [&] { return !any_submitting(regions); });
  std::uint64_t copied = 0;  // traced: the launch's copies in (0 again when it completes)
  for (Region& r : regions) {
    const auto start = reinterpret_cast<std::uintptr_t>(r.host);
    Entry* e = find_exact(start);
    if (!e || e->bytes != r.bytes) {  // not tracked (cleared meanwhile): copy both ways
      r.to_card = (r.access & kIn) != 0;
      r.to_host = (r.access & kOut) != 0;
      continue;
    }
    r.to_host = false;  // results stay on the card until the host needs them
    ++e->submitting;
    const bool reads = (r.access & kIn) != 0, writes = (r.access & kOut) != 0;
    r.to_card = reads && e->card != e->latest;
    if (r.to_card) {
      e->card = e->latest;
      ++stats_.copies_in;
      copied += r.bytes;
    } else if (reads) {
      ++stats_.resident_hits;
    }
    if (writes) {
      e->latest = e->card = ++clock_;
      ++e->writers;
    }
  }
  if (copied) core::trace::emit_event(core::trace::Event::kEvOffloadCopyIn, copied);
}

void Coherence::submitted(const std::vector<Region>& regions) {
  std::lock_guard lk(m_);
  for (const Region& r : regions)
    if (Entry* e = find_exact(reinterpret_cast<std::uintptr_t>(r.host));
        e && e->bytes == r.bytes && e->submitting > 0)
      --e->submitting;
  cv_.notify_all();
}

bool Coherence::any_submitting(const std::vector<Region>& regions) {
  for (const Region& r : regions)
    if (Entry* e = find_exact(reinterpret_cast<std::uintptr_t>(r.host)); e && e->submitting > 0)
      return true;
  return false;
}

void Coherence::end_card_task(const std::vector<Region>& regions, bool failed) {
  std::lock_guard lk(m_);
  for (const Region& r : regions) {
    Entry* e = find_exact(reinterpret_cast<std::uintptr_t>(r.host));
    if (!e || e->bytes != r.bytes) continue;
    if (e->users > 0) --e->users;
    if (!(r.access & kOut)) continue;
    if (e->writers > 0) --e->writers;
    if (failed) {  // nothing comes back: host memory keeps what it had
      e->host = e->latest;
      e->card = 0;
    }
  }
  cv_.notify_all();
}

// Called with lk held; returns with it held. One copy-back per entry at a
// time: concurrent readers wait for the first instead of copying again.
void Coherence::copy_back(std::unique_lock<std::mutex>& lk, Device& dev, Entry& e) {
  while (e.host != e.latest) {
    if (e.copying) {
      cv_.wait(lk);
      continue;
    }
    e.copying = true;
    const std::uint64_t v = e.latest;  // the card holds it (or a newer one)
    lk.unlock();
    std::exception_ptr err;
    core::trace::emit_event(core::trace::Event::kEvOffloadCopyOut, e.bytes);
    core::trace::begin_state(core::trace::State::kOffload);  // this thread waits for it
    try {
      dev.copy_out(reinterpret_cast<void*>(e.start), e.bytes);
    } catch (...) {
      err = std::current_exception();
    }
    core::trace::end_state(core::trace::State::kOffload);
    core::trace::emit_event(core::trace::Event::kEvOffloadCopyOut, 0);
    lk.lock();
    e.copying = false;
    cv_.notify_all();
    if (err) std::rethrow_exception(err);
    e.host = std::max(e.host, v);
    ++stats_.copies_back;
  }
}

void Coherence::host_access(Device& dev, const std::vector<Use>& uses) {
  std::unique_lock lk(m_);
  for (const Use& u : uses) {
    const auto lo = reinterpret_cast<std::uintptr_t>(u.addr);
    for (const auto& e : overlapping(lo, lo + u.bytes)) {
      // A write to part of a region keeps the rest: that rest must be current.
      const bool covers = lo <= e->start && lo + u.bytes >= e->start + e->bytes;
      if (u.reads || (u.writes && !covers)) copy_back(lk, dev, *e);
      if (u.writes) e->latest = e->host = ++clock_;
    }
  }
}

bool Coherence::tracks(const void* addr, std::size_t bytes) const {
  if (!active()) return false;
  const auto lo = reinterpret_cast<std::uintptr_t>(addr);
  std::lock_guard lk(m_);
  return !overlapping(lo, lo + bytes).empty();
}

void Coherence::flush(Device* dev) {
  std::unique_lock lk(m_);
  std::exception_ptr first;
  std::vector<std::shared_ptr<Entry>> all;
  for (const auto& [start, e] : map_) all.push_back(e);
  for (const auto& e : all) {
    if (e->writers > 0) continue;  // a card task still writes it: not this taskwait's data
    try {
      if (dev) copy_back(lk, *dev, *e);
    } catch (...) {
      if (!first) first = std::current_exception();
    }
    e->host = e->latest;  // copied, or lost with the card (the error says so)
    e->card = 0;
    if (e->users > 0) continue;
    if (auto it = map_.find(e->start); it != map_.end() && it->second == e) map_.erase(it);
    if (dev && dev->alive()) {
      Launch drop;  // free the card's copy; ordered after its users on the card
      drop.regions.push_back({reinterpret_cast<void*>(e->start), e->bytes, kOut, false, false});
      drop.release = true;
      try {
        dev->submit(drop, [](std::exception_ptr) {});
      } catch (...) {
      }
    }
  }
  sync_live();
  if (first) std::rethrow_exception(first);
}

void Coherence::clear() {
  std::lock_guard lk(m_);
  map_.clear();
  sync_live();
}

CoherenceStats Coherence::stats() const {
  std::lock_guard lk(m_);
  CoherenceStats s = stats_;
  s.live = map_.size();
  return s;
}

void Coherence::sync_live() {
  const std::size_t was = live_.exchange(map_.size(), std::memory_order_acq_rel);
  all_live_.fetch_add(map_.size() - was, std::memory_order_relaxed);  // modular: may shrink
}

}  // namespace joule::offload
