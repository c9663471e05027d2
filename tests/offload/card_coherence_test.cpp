// offload::Coherence, the host's record of which copy of a card region is
// current, against a fake device that counts what it is asked to copy: copy
// in only what is stale on the card, copy back only what is stale on the
// host, one copy-back for concurrent readers, partial host writes, taskwait's
// flush, failed card tasks, and overlapping regions rejected.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "coherence.hpp"
#include "joule/types.hpp"

namespace {

using namespace joule::offload;

// Counts copy-backs (Device::copy_out submits one transfer with to_host).
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
    done(nullptr);
  }
  DeviceEnergy energy() const override { return {}; }
  std::atomic<int> copies_back{0}, releases{0};
  int delay_ms = 0;
};

double buf[100];
constexpr std::size_t kAll = sizeof buf;

Use use(const void* p, std::size_t bytes, bool r, bool w) { return {p, bytes, r, w}; }
Region region(const void* p, std::size_t bytes, Access a) { return {p, bytes, a, false, false}; }

// One card task through the record: enter, begin, end. Returns whether it copied in.
bool card_task(Coherence& c, Access a, bool failed = false) {
  c.enter({use(buf, kAll, a & kIn, a & kOut)});
  std::vector<Region> r = {region(buf, kAll, a)};
  c.begin_card_task(r);
  c.end_card_task(r, failed);
  EXPECT_FALSE(r[0].to_host);  // outputs stay on the card
  return r[0].to_card;
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
  c.enter({use(buf, kAll, true, true)});
  std::vector<Region> r = {region(buf, kAll, kInout)};
  c.begin_card_task(r);
  c.flush(&dev);  // a nested taskwait while it runs: not its data
  EXPECT_EQ(dev.copies_back, 0);
  c.end_card_task(r, false);
  c.flush(&dev);
  EXPECT_EQ(dev.copies_back, 1);
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
