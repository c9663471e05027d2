// offload::Coherence, the host's record of which copy of a card region is
// current, against a fake device that counts what it is asked to copy: copy
// in only what is stale on the card, copy back only what is stale on the
// host, one copy-back for concurrent readers, partial host writes, taskwait's
// flush, failed card tasks, and overlapping regions rejected.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "coherence.hpp"
#include "joule/types.hpp"

namespace {

using namespace joule::offload;

// Counts copy-backs (Device::copy_out submits one transfer with to_host)
// and records the order card launches reach it: 'C' copies in, 'R' reads
// what the card holds. A launch that copies in may be held back for up to
// hold_ms, until another launch arrives.
class FakeDevice final : public Device {
 public:
  std::string describe() const override { return "fake"; }
  void submit(const Launch& l, Completion done) override {
    for (const Region& r : l.regions)
      if (r.to_host) {
        std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
        ++copies_back;
      }
    if (l.release) ++releases;
    if (l.fn) arrive(l.regions[0].to_card ? 'C' : 'R');
    done(nullptr);
  }
  DeviceEnergy energy() const override { return {}; }
  std::atomic<int> copies_back{0}, releases{0};
  int delay_ms = 0, hold_ms = 0;
  std::string order;

 private:
  void arrive(char what) {
    std::unique_lock lk(m_);
    if (what == 'C')
      cv_.wait_for(lk, std::chrono::milliseconds(hold_ms), [&] { return !order.empty(); });
    order += what;
    cv_.notify_all();
  }
  std::mutex m_;
  std::condition_variable cv_;
};

void card_fn(void*, void*) {}

double buf[100];
constexpr std::size_t kAll = sizeof buf;

Use use(const void* p, std::size_t bytes, bool r, bool w) { return {p, bytes, r, w}; }
Region region(const void* p, std::size_t bytes, Access a) { return {p, bytes, a, false, false}; }

// A card task on all of buf, entered and submitted to dev (its completion
// is left to the caller, through end_card_task).
Launch submit_task(Coherence& c, Device& dev, Access a) {
  c.enter({use(buf, kAll, a & kIn, a & kOut)});
  Launch l;
  l.fn = &card_fn;
  l.regions = {region(buf, kAll, a)};
  c.submit_card_task(dev, l, [](std::exception_ptr) {});
  return l;
}

// One card task through the record: enter, submit, end. Returns whether it copied in.
bool card_task(Coherence& c, Access a, bool failed = false) {
  FakeDevice dev;
  Launch l = submit_task(c, dev, a);
  c.end_card_task(l.regions, failed);
  EXPECT_FALSE(l.regions[0].to_host);  // outputs stay on the card
  return l.regions[0].to_card;
}

TEST(CardCoherence, ChainCopiesInOnceAndBackOnlyAtFlush) {
  Coherence c;
  FakeDevice dev;
  EXPECT_TRUE(card_task(c, kInout));
  for (int i = 0; i < 9; ++i) EXPECT_FALSE(card_task(c, kInout));
  EXPECT_EQ(dev.copies_back, 0);
  c.flush(&dev);
  EXPECT_EQ(dev.copies_back, 1);
  EXPECT_EQ(dev.releases, 1);  // nothing uses it any more: the card's copy goes
  EXPECT_FALSE(c.active());
  const CoherenceStats s = c.stats();
  EXPECT_EQ(s.copies_in, 1u);
  EXPECT_EQ(s.resident_hits, 9u);
}

TEST(CardCoherence, HostReadKeepsTheCardCopyAHostWriteDropsIt) {
  Coherence c;
  FakeDevice dev;
  EXPECT_FALSE(card_task(c, kOut));  // out only: nothing to copy in
  c.host_access(dev, {use(buf, kAll, true, false)});
  EXPECT_EQ(dev.copies_back, 1);
  EXPECT_FALSE(card_task(c, kIn));                      // still current on the card
  c.host_access(dev, {use(buf + 10, 8, false, true)});  // partial write: the rest must be current
  EXPECT_EQ(dev.copies_back, 1);                        // ...and it already is
  EXPECT_TRUE(card_task(c, kIn));                       // the host wrote: copy in again
}

TEST(CardCoherence, PartialHostWriteCopiesBackFirstWholeOverwriteDoesNot) {
  Coherence c;
  FakeDevice dev;
  card_task(c, kOut);
  c.host_access(dev, {use(buf, kAll, false, true)});
  EXPECT_EQ(dev.copies_back, 0);
  card_task(c, kOut);
  c.host_access(dev, {use(buf + 1, 8, false, true)});
  EXPECT_EQ(dev.copies_back, 1);
  c.flush(&dev);
  EXPECT_EQ(dev.copies_back, 1);  // the host holds the newest already
}

TEST(CardCoherence, ConcurrentReadersCopyBackOnce) {
  Coherence c;
  FakeDevice dev;
  dev.delay_ms = 20;
  card_task(c, kOut);
  std::vector<std::thread> readers;
  for (int i = 0; i < 4; ++i)
    readers.emplace_back([&, i] { c.host_access(dev, {use(buf + i, 8, true, false)}); });
  for (auto& t : readers) t.join();
  EXPECT_EQ(dev.copies_back, 1);
}

TEST(CardCoherence, FlushSkipsRegionsACardTaskIsWriting) {
  Coherence c;
  FakeDevice dev;
  Launch l = submit_task(c, dev, kInout);
  c.flush(&dev);  // a nested taskwait while it runs: not its data
  EXPECT_EQ(dev.copies_back, 0);
  c.end_card_task(l.regions, false);
  c.flush(&dev);
  EXPECT_EQ(dev.copies_back, 1);
}

// Two card tasks read buf at once: the first decides to copy it in, the
// second finds it current on the card. The card orders launches by when
// they reach it, so the second may reach it only after the first, even when
// the first is slow to get there (the fake holds it until another launch
// arrives, or 300 ms).
TEST(CardCoherence, ConcurrentReadersReachTheCardInTheOrderTheyDecided) {
  Coherence c;
  FakeDevice dev;
  dev.hold_ms = 300;
  std::thread first([&] { c.end_card_task(submit_task(c, dev, kIn).regions, false); });
  while (c.stats().copies_in == 0) std::this_thread::yield();  // it decided to copy in
  Launch second = submit_task(c, dev, kIn);
  c.end_card_task(second.regions, false);
  first.join();
  EXPECT_FALSE(second.regions[0].to_card);  // a resident hit...
  EXPECT_EQ(dev.order, "CR");               // ...that reached the card after the copy in
}

TEST(CardCoherence, FailedCardTaskLeavesHostMemoryCurrent) {
  Coherence c;
  FakeDevice dev;
  card_task(c, kInout, true);
  c.host_access(dev, {use(buf, kAll, true, false)});
  c.flush(&dev);
  EXPECT_EQ(dev.copies_back, 0);
}

TEST(CardCoherence, OverlappingRegionsNameBoth) {
  Coherence c;
  c.enter({use(buf, 80, true, true)});  // live: its task has not ended
  try {
    c.enter({use(buf + 5, 80, true, false)});
    FAIL() << "overlap accepted";
  } catch (const joule::error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(region_text(reinterpret_cast<std::uintptr_t>(buf + 5), 80)), std::string::npos)
        << m;
    EXPECT_NE(m.find(region_text(reinterpret_cast<std::uintptr_t>(buf), 80)), std::string::npos)
        << m;
  }
  EXPECT_NO_THROW(c.enter({use(buf, 80, true, false)}));       // identical: shared
  EXPECT_NO_THROW(c.enter({use(buf + 10, 80, true, false)}));  // disjoint
}

TEST(CardCoherence, IdleRegionMayBeReplacedByAnOverlappingOne) {
  Coherence c;
  FakeDevice dev;
  card_task(c, kIn);  // ended, host current: nothing only the card has
  EXPECT_NO_THROW(c.enter({use(buf + 1, 16, true, false)}));
  EXPECT_EQ(c.stats().live, 1u);
}

}  // namespace
