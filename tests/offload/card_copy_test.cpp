// Card tasks on the emulated card: copies follow the dependencies (and the
// explicit copy clauses), results are visible to host tasks after them, host
// writes are visible to card tasks after them, and card tasks that depend on
// each other run in order on the card (docs/offload.md).
#include <gtest/gtest.h>
#include <unistd.h>
#include <joule/offload.hpp>

#include <cstdint>
#include <numeric>
#include <vector>

namespace {

joule::runtime card_runtime(const char* affinity = "balanced") {
  return joule::runtime{{"JOULE_CARD", "emulated"},
                        {"JOULE_CARD_TOPOLOGY", "package:1 core:4 pu:2"},
                        {"JOULE_CARD_AFFINITY", affinity},
                        {"JOULE_WORKERS", "2"}};
}

TEST(CardCopy, CopyDepsInAndOut) {
  auto rt = card_runtime();
  std::vector<double> a(1000), b(1000, -1.0);
  std::iota(a.begin(), a.end(), 0.0);
  const double* pa = a.data();
  double* pb = b.data();
  const std::int64_t n = 1000;
  joule::spawn(
      {joule::in(pa, n), joule::out(pb, n)},
      [=](joule::card_context& c) {
        const double* ca = c.map(pa);
        double* cb = c.map(pb);
        c.parallel_for(0, n, [=](std::int64_t i) { cb[i] = 2 * ca[i] + getpid(); });
      },
      joule::device_options{});
  joule::taskwait();
  // The card is its own process: the pid written there is not ours.
  EXPECT_NE(b[10] - 20.0, double(getpid()));
  const double card_pid = double(joule::card_status().pid);
  for (int i = 0; i < n; ++i) ASSERT_EQ(b[std::size_t(i)], 2.0 * i + card_pid) << i;
}

TEST(CardCopy, HostAndCardTasksSeeEachOthersWrites) {
  auto rt = card_runtime();
  std::vector<int> v(256, 0);
  int* p = v.data();
  const std::int64_t n = 256;
  for (int round = 0; round < 5; ++round) {
    joule::spawn({joule::inout(p, n)}, [=] {
      for (int i = 0; i < n; ++i) p[i] += 1;  // host
    });
    joule::spawn(
        {joule::inout(p, n)},
        [=](joule::card_context& c) {
          int* q = c.map(p);
          c.parallel_for(0, n, [=](std::int64_t i) { q[i] *= 2; });
        },
        joule::device_options{});
  }
  int seen = -1;
  joule::spawn({joule::in(p, n)}, [&seen, p] { seen = p[7]; });
  joule::taskwait();
  int expect = 0;
  for (int round = 0; round < 5; ++round) expect = (expect + 1) * 2;
  EXPECT_EQ(seen, expect);
  for (int x : v) ASSERT_EQ(x, expect);
}

TEST(CardCopy, ChainOfCardTasksRunsInOrder) {
  auto rt = card_runtime("scatter");
  long x = 0;
  long* px = &x;
  for (int i = 1; i <= 50; ++i)
    joule::spawn(
        {joule::inout(*px)},
        [=](joule::card_context& c) { *c.map(px) = *c.map(px) * 3 % 1000003 + i; },
        joule::device_options{});
  joule::taskwait();
  long expect = 0;
  for (int i = 1; i <= 50; ++i) expect = expect * 3 % 1000003 + i;
  EXPECT_EQ(x, expect);
}

TEST(CardCopy, ExplicitCopiesWithoutCopyDeps) {
  auto rt = card_runtime("compact");
  std::vector<float> in(64, 1.5f), out(64, 0.0f);
  const float* pi = in.data();
  float* po = out.data();
  joule::spawn(
      {joule::out(po, 64)},
      [=](joule::card_context& c) {
        for (int i = 0; i < 64; ++i) c.map(po)[i] = c.map(pi)[i] + 1.0f;
      },
      joule::device_options{.copy_deps = false,
                            .copies = {joule::copy_in(pi, 64), joule::copy_out(po, 64)}});
  joule::taskwait();
  for (float f : out) ASSERT_EQ(f, 2.5f);
}

TEST(CardCopy, IndependentCardTasksAllComplete) {
  auto rt = card_runtime();
  std::vector<std::int64_t> sums(32, 0);
  std::vector<std::int64_t> data(32 * 100);
  std::iota(data.begin(), data.end(), 0);
  for (int k = 0; k < 32; ++k) {
    const std::int64_t* d = data.data() + k * 100;
    std::int64_t* s = &sums[std::size_t(k)];
    joule::spawn(
        {joule::in(d, 100), joule::out(*s)},
        [=](joule::card_context& c) {
          const std::int64_t* cd = c.map(d);
          std::int64_t acc = 0;
          for (int i = 0; i < 100; ++i) acc += cd[i];
          *c.map(s) = acc;
        },
        joule::device_options{});
  }
  joule::taskwait();
  for (int k = 0; k < 32; ++k) ASSERT_EQ(sums[std::size_t(k)], 100 * (k * 100) + 4950) << k;
  const joule::card_energy e = joule::card_status();
  EXPECT_TRUE(e.alive);
  EXPECT_GT(e.joules, 0.0);
  EXPECT_GE(e.bytes_to_card, 32u * 800u);
  EXPECT_GT(e.transfer_s, 0.0);
}

TEST(CardCopy, DependenciesAsASpan) {
  auto rt = card_runtime();
  std::vector<short> v(10, 3);
  short* p = v.data();
  const std::vector<joule::dep> deps = {joule::inout(p, 10)};
  joule::spawn(
      std::span<const joule::dep>(deps),
      [=](joule::card_context& c) {
        for (int i = 0; i < 10; ++i) c.map(p)[i] *= 5;
      },
      joule::device_options{});
  joule::taskwait();
  for (short x : v) ASSERT_EQ(x, 15);
}

TEST(CardCopy, HostDeviceRunsTheBodyHere) {
  auto rt = joule::runtime{{"JOULE_WORKERS", "2"}};
  int v = 1;
  int* p = &v;
  joule::spawn(
      {joule::inout(*p)}, [=](joule::card_context& c) { *c.map(p) += 41; },
      joule::device_options{.device = joule::device::host});
  joule::taskwait();
  EXPECT_EQ(v, 42);
}

}  // namespace
