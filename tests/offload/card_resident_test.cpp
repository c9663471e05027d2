// Data kept on the card between card tasks (docs/offload.md): a card task whose
// input is current on the card copies nothing in, outputs stay on the card
// until a host task, taskwait_on, taskwait or the runtime's stop needs them,
// host writes make the card's copy stale, and card regions that overlap
// without being identical are rejected. Transfers are asserted in bytes.
#include <gtest/gtest.h>
#include <joule/joule.h>
#include <joule/offload.hpp>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

joule::runtime card_runtime() {
  return joule::runtime{{"JOULE_CARD", "emulated"},
                        {"JOULE_CARD_TOPOLOGY", "package:1 core:4 pu:2"},
                        {"JOULE_WORKERS", "2"}};
}

// Transfers since construction.
struct Traffic {
  joule::card_energy base = joule::card_status();
  std::uint64_t in() const { return joule::card_status().bytes_to_card - base.bytes_to_card; }
  std::uint64_t out() const { return joule::card_status().bytes_to_host - base.bytes_to_host; }
  std::uint64_t hits() const { return joule::card_status().resident_hits - base.resident_hits; }
};

constexpr std::int64_t kN = 1000;
constexpr std::uint64_t kBytes = kN * sizeof(double);

void card_add(double* p, double x) {
  joule::spawn(
      {joule::inout(p, kN)},
      [=](joule::card_context& c) {
        double* q = c.map(p);
        c.parallel_for(0, kN, [=](std::int64_t i) { q[i] += x; });
      },
      joule::device_options{});
}

void card_fill(double* p, double x) {
  joule::spawn(
      {joule::out(p, kN)},
      [=](joule::card_context& c) {
        double* q = c.map(p);
        c.parallel_for(0, kN, [=](std::int64_t i) { q[i] = x + double(i); });
      },
      joule::device_options{});
}

TEST(CardResident, ChainTransfersInOnceAndOutOnce) {
  auto rt = card_runtime();
  std::vector<double> v(kN, 1.0);
  double* p = v.data();
  Traffic t;
  for (int k = 0; k < 20; ++k) card_add(p, 1.0);
  joule::taskwait();
  for (double x : v) ASSERT_EQ(x, 21.0);
  EXPECT_EQ(t.in(), kBytes);
  EXPECT_EQ(t.out(), kBytes);
  EXPECT_EQ(t.hits(), 19u);
}

TEST(CardResident, HostReaderCopiesBackOnceAndCardCopyStaysValid) {
  auto rt = card_runtime();
  std::vector<double> v(kN, 0.0);
  double* p = v.data();
  double seen = -1;
  Traffic t;
  card_fill(p, 5.0);                                              // out: nothing in
  joule::spawn({joule::in(p, kN)}, [p, &seen] { seen = p[3]; });  // copies back
  card_add(p, 1.0);  // the card's copy is still current: nothing in
  joule::taskwait();
  EXPECT_EQ(seen, 8.0);
  for (std::int64_t i = 0; i < kN; ++i) ASSERT_EQ(v[std::size_t(i)], 6.0 + double(i));
  EXPECT_EQ(t.in(), 0u);
  EXPECT_EQ(t.out(), 2 * kBytes);  // for the host reader and for taskwait
}

TEST(CardResident, HostWriterMakesTheCardCopyStale) {
  auto rt = card_runtime();
  std::vector<double> v(kN, 1.0);
  double* p = v.data();
  Traffic t;
  card_add(p, 1.0);                          // in
  joule::spawn({joule::inout(p, kN)}, [p] {  // back, then the host holds the newest
    for (std::int64_t i = 0; i < kN; ++i) p[i] *= 10;
  });
  card_add(p, 1.0);   // in again
  joule::taskwait();  // back again
  for (double x : v) ASSERT_EQ(x, 21.0);
  EXPECT_EQ(t.in(), 2 * kBytes);
  EXPECT_EQ(t.out(), 2 * kBytes);
}

TEST(CardResident, HostOverwriteNeedsNoCopyBackButAPartialOneDoes) {
  auto rt = card_runtime();
  std::vector<double> v(kN, 0.0);
  double* p = v.data();
  Traffic whole;
  card_fill(p, 1.0);
  joule::spawn({joule::out(p, kN)}, [p] {  // overwrites all of it: the card's values are dead
    for (std::int64_t i = 0; i < kN; ++i) p[i] = -1;
  });
  joule::taskwait();
  for (double x : v) ASSERT_EQ(x, -1.0);
  EXPECT_EQ(whole.out(), 0u);

  Traffic part;
  card_fill(p, 1.0);
  joule::spawn({joule::out(p + 10, 5)}, [p] {  // the other 995 come from the card
    for (int i = 10; i < 15; ++i) p[i] = -1;
  });
  joule::taskwait();
  EXPECT_EQ(part.out(), kBytes);
  for (std::int64_t i = 0; i < kN; ++i)
    ASSERT_EQ(v[std::size_t(i)], i >= 10 && i < 15 ? -1.0 : 1.0 + double(i)) << i;
}

TEST(CardResident, TaskwaitLeavesHostCurrentAndDropsCardCopies) {
  auto rt = card_runtime();
  std::vector<double> v(kN, 0.0);
  double* p = v.data();
  card_add(p, 1.0);
  joule::taskwait();
  EXPECT_EQ(v[0], 1.0);
  v[0] = 100.0;  // outside any task: the next card task must see it
  Traffic t;
  card_add(p, 1.0);
  joule::taskwait();
  EXPECT_EQ(v[0], 101.0);
  EXPECT_EQ(v[1], 2.0);
  EXPECT_EQ(t.in(), kBytes);
}

TEST(CardResident, TaskwaitOnCopiesBackWhatItNames) {
  auto rt = card_runtime();
  std::vector<double> a(kN, 0.0), b(kN, 0.0);
  double *pa = a.data(), *pb = b.data();
  card_add(pa, 1.0);
  card_add(pb, 2.0);
  Traffic t;
  joule::taskwait_on({joule::in(pa, kN)});
  EXPECT_EQ(a[7], 1.0);
  EXPECT_EQ(t.out(), kBytes);  // b stays on the card
  joule::taskwait();
  EXPECT_EQ(b[7], 2.0);
}

TEST(CardResident, RuntimeStopCopiesResultsBack) {
  std::vector<double> v(kN, 0.0);
  double* p = v.data();
  {
    auto rt = card_runtime();
    card_fill(p, 3.0);
  }  // no taskwait: the stop brings the results home
  for (std::int64_t i = 0; i < kN; ++i) ASSERT_EQ(v[std::size_t(i)], 3.0 + double(i));
}

TEST(CardResident, OverlappingRegionsWithDifferentStartsAreRejected) {
  auto rt = card_runtime();
  std::vector<double> v(kN, 0.0);
  double* p = v.data();
  card_add(p, 1.0);
  std::string what;
  try {
    joule::spawn(
        {joule::in(p + 4, 8)}, [=](joule::card_context&) {}, joule::device_options{});
  } catch (const joule::error& e) {
    EXPECT_EQ(e.code(), JOULE_ERR_INVALID);
    what = e.what();
  }
  EXPECT_NE(what.find("overlaps"), std::string::npos) << what;
  EXPECT_NE(what.find("+64 bytes"), std::string::npos) << what;    // the new region
  EXPECT_NE(what.find("+8000 bytes"), std::string::npos) << what;  // the live one
  joule::taskwait();
  EXPECT_EQ(v[0], 1.0);
  // After taskwait the card holds nothing: any region may be named.
  joule::spawn(
      {joule::inout(p + 4, 8)}, [=](joule::card_context& c) { c.map(p + 4)[0] = 42; },
      joule::device_options{});
  joule::taskwait();
  EXPECT_EQ(v[4], 42.0);
}

TEST(CardResident, OverlapInsideOneTaskIsRejected) {
  auto rt = card_runtime();
  std::vector<double> v(kN, 0.0);
  double* p = v.data();
  std::string what;
  try {
    joule::spawn(
        {joule::in(p, 10), joule::out(p + 5, 10)}, [=](joule::card_context&) {},
        joule::device_options{});
  } catch (const joule::error& e) {
    what = e.what();
  }
  EXPECT_NE(what.find("of one card task overlap"), std::string::npos) << what;
}

TEST(CardResident, HostTasksOnOtherDataAreUntouched) {
  auto rt = card_runtime();
  std::vector<double> a(kN, 0.0);
  double* pa = a.data();
  long x = 0;
  long* px = &x;
  card_add(pa, 1.0);
  for (int i = 0; i < 100; ++i) joule::spawn({joule::inout(*px)}, [px] { ++*px; });
  Traffic t;
  joule::taskwait();
  EXPECT_EQ(x, 100);
  EXPECT_EQ(a[0], 1.0);
  EXPECT_EQ(t.out(), kBytes);
}

// A program's first card task may be what starts the runtime (and so the
// card). It is recorded like the rest: the card keeps its output, and the
// next card task finds it there.
TEST(CardResident, FirstCardTaskMayStartTheRuntime) {
  for (const auto& [key, value] : {std::pair{"JOULE_CARD", "emulated"},
                                   {"JOULE_CARD_TOPOLOGY", "package:1 core:4 pu:2"},
                                   {"JOULE_WORKERS", "2"}})
    setenv(key, value, 1);
  std::vector<double> v(kN, 1.0);
  double* p = v.data();
  Traffic t;
  card_add(p, 1.0);  // no runtime yet: this starts it
  joule::taskwait_on({joule::in(p, kN)});
  card_add(p, 1.0);
  joule::taskwait();
  const std::uint64_t in = t.in(), out = t.out();
  joule_finalize();
  for (const char* key : {"JOULE_CARD", "JOULE_CARD_TOPOLOGY", "JOULE_WORKERS"}) unsetenv(key);
  for (double x : v) ASSERT_EQ(x, 3.0);
  EXPECT_EQ(in, kBytes);       // once, for the first task
  EXPECT_EQ(out, 2 * kBytes);  // for taskwait_on and for taskwait
}

// Card tasks that only read a region run at once: the first to start
// copies it in, the others find it current on the card. The card orders
// launches on a region by when they reach it, so none of the others may
// reach it before that copy: with a large region the copy-in is staged
// slowly on the host, and without the ordering the others read an empty
// (or last round's) card copy.
TEST(CardResident, ConcurrentReadersWaitForTheCopyIn) {
  auto rt = card_runtime();
  constexpr std::int64_t kBig = std::int64_t(1) << 21;  // 16 MiB: copying it takes milliseconds
  constexpr int kReaders = 4;
  std::vector<std::int64_t> v(std::size_t(kBig), 0);
  std::int64_t* p = v.data();
  for (std::int64_t round = 1; round <= 4; ++round) {
    std::array<std::int64_t, kReaders> sums{};
    joule::spawn({joule::out(p, kBig)}, [p, round] {  // the card's copy is stale now
      for (std::int64_t i = 0; i < kBig; ++i) p[i] = round;
    });
    for (int k = 0; k < kReaders; ++k) {
      std::int64_t* sum = &sums[std::size_t(k)];
      joule::spawn(
          {joule::in(p, kBig), joule::out(*sum)},
          [p, sum](joule::card_context& c) {
            const std::int64_t* q = c.map(p);
            std::int64_t acc = 0;
            for (std::int64_t i = 0; i < kBig; ++i) acc += q[i];
            *c.map(sum) = acc;
          },
          joule::device_options{});
    }
    joule::taskwait();
    for (int k = 0; k < kReaders; ++k)
      ASSERT_EQ(sums[std::size_t(k)], round * kBig) << "round " << round << " reader " << k;
  }
}

// A random mix of card and host tasks (whole regions on the card, any part
// on the host, reads recorded as checksums, taskwaits and writes outside any
// task between them) against the same program run in order on the host.
struct Mix {
  static constexpr int kRegions = 3, kLen = 64, kTasks = 240;
  std::array<std::vector<std::int64_t>, kRegions> data;
  std::vector<std::int64_t> sums = std::vector<std::int64_t>(kTasks, 0);
  Mix() {
    for (int r = 0; r < kRegions; ++r) data[std::size_t(r)].assign(kLen, r);
  }
};

std::int64_t step(std::int64_t v, std::int64_t i, int tag) { return (v * 3 + i + tag) % 1000003; }

struct Op {
  int kind;  // 0 card in, 1 card out, 2 card inout, 3 host in, 4 host out, 5 host inout, 6 taskwait
  int region, lo, len, tag;
};

void apply(Mix& m, const Op& op, int k) {
  std::int64_t* p = m.data[std::size_t(op.region)].data() + op.lo;
  if (op.kind == 6) {
    m.data[std::size_t(op.region)][0] += 7;  // a write outside any task
    return;
  }
  const int mode = op.kind % 3;  // 0 in, 1 out, 2 inout
  std::int64_t sum = 0;
  for (int i = 0; i < op.len; ++i) {
    if (mode == 0) sum += p[i];
    if (mode == 1) p[i] = step(0, i, op.tag);
    if (mode == 2) p[i] = step(p[i], i, op.tag);
  }
  if (mode == 0) m.sums[std::size_t(k)] = sum;
}

void spawn_op(Mix& m, const Op& op, int k) {
  std::int64_t* p = m.data[std::size_t(op.region)].data() + op.lo;
  std::int64_t* sum = &m.sums[std::size_t(k)];
  const int len = op.len, tag = op.tag, mode = op.kind % 3;
  const joule::dep_kind kinds[] = {joule::dep_kind::in, joule::dep_kind::out,
                                   joule::dep_kind::inout};
  std::vector<joule::dep> deps = {{kinds[mode], p, len * sizeof(std::int64_t)}};
  if (mode == 0) deps.push_back(joule::out(*sum));
  if (op.kind >= 3) {
    joule::spawn(std::span<const joule::dep>(deps), [=] {
      std::int64_t acc = 0;  // the arithmetic of apply(), on host memory
      for (int i = 0; i < len; ++i) {
        if (mode == 0) acc += p[i];
        if (mode == 1) p[i] = step(0, i, tag);
        if (mode == 2) p[i] = step(p[i], i, tag);
      }
      if (mode == 0) *sum = acc;
    });
    return;
  }
  joule::spawn(
      std::span<const joule::dep>(deps),
      [=](joule::card_context& c) {
        std::int64_t* q = c.map(p);
        std::int64_t acc = 0;
        for (int i = 0; i < len; ++i) {
          if (mode == 0) acc += q[i];
          if (mode == 1) q[i] = step(0, i, tag);
          if (mode == 2) q[i] = step(q[i], i, tag);
        }
        if (mode == 0) *c.map(sum) = acc;
      },
      joule::device_options{});
}

std::vector<Op> random_ops(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Op> ops;
  for (int k = 0; k < Mix::kTasks; ++k) {
    Op op{int(rng() % 20), int(rng() % Mix::kRegions), 0, Mix::kLen, k};
    op.kind = op.kind < 9 ? op.kind % 3 : op.kind < 18 ? 3 + op.kind % 3 : 6;
    if (op.kind >= 3 && op.kind < 6 && rng() % 2) {  // host tasks may name a part
      op.lo = int(rng() % Mix::kLen);
      op.len = 1 + int(rng() % std::uint64_t(Mix::kLen - op.lo));
    }
    ops.push_back(op);
  }
  return ops;
}

TEST(CardResident, RandomMixMatchesSequentialOrder) {
  auto rt = card_runtime();
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const std::vector<Op> ops = random_ops(seed);
    Mix expect, got;
    for (int k = 0; k < Mix::kTasks; ++k) apply(expect, ops[std::size_t(k)], k);
    for (int k = 0; k < Mix::kTasks; ++k) {
      if (ops[std::size_t(k)].kind == 6) {
        joule::taskwait();
        apply(got, ops[std::size_t(k)], k);
      } else {
        spawn_op(got, ops[std::size_t(k)], k);
      }
    }
    joule::taskwait();
    for (int r = 0; r < Mix::kRegions; ++r)
      ASSERT_EQ(got.data[std::size_t(r)], expect.data[std::size_t(r)])
          << "seed " << seed << " region " << r;
    ASSERT_EQ(got.sums, expect.sums) << "seed " << seed;
  }
  EXPECT_GT(joule::card_status().resident_hits, 0u);
}

}  // namespace
