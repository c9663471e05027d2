#include <array>
// The device interface (allocate, copy in / out, launch, wait, energy) on
// the emulated card, without the task runtime: data stays on the card
// between launches, launches in flight are ordered by the regions they name
// on the card, and the thread placement is the one joule::placement gives.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "config.hpp"
#include "device.hpp"
#include "kernel_context.hpp"

namespace {

using namespace joule::offload;

struct AddArgs {
  std::int64_t* data;
  std::int64_t n;
  std::int64_t add;
};

// data[i] = data[i] * 2 + add, on the card's copy.
void scale_add(void* a, void* ctx) {
  auto& args = *static_cast<AddArgs*>(a);
  auto& k = *static_cast<KernelContext*>(ctx);
  auto* d = static_cast<std::int64_t*>(k.map(args.data));
  const std::int64_t add = args.add;
  k.parallel_for(
      [](void* p, std::int64_t lo, std::int64_t hi) {
        auto* d2 = static_cast<std::int64_t**>(p)[0];
        const std::int64_t add2 = reinterpret_cast<std::int64_t>(static_cast<void**>(p)[1]);
        for (std::int64_t i = lo; i < hi; ++i) d2[i] = d2[i] * 2 + add2;
      },
      std::array<void*, 2>{d, reinterpret_cast<void*>(add)}.data(), 0, args.n);
}

// Where each card thread's chunk ran: the card thread count.
void threads_of(void* a, void* ctx) {
  auto& k = *static_cast<KernelContext*>(ctx);
  *static_cast<int*>(k.map(*static_cast<int**>(a))) = k.threads();
}

std::unique_ptr<Device> make_card(const char* affinity) {
  joule::offload::CardSettings c;
  c.mode = joule::offload::CardMode::emulated;
  c.topology = "package:1 core:4 pu:2";
  c.threads = 6;
  c.affinity = affinity;
  return start_emulated_card(c);
}

TEST(CardDevice, DataStaysOnTheCardBetweenLaunches) {
  auto card = make_card("compact");
  std::vector<std::int64_t> v(1000);
  std::iota(v.begin(), v.end(), 0);
  card->copy_in(v.data(), v.size() * 8);
  std::vector<Ticket> t;
  for (int k = 0; k < 10; ++k) {  // all in flight at once: the card orders them
    AddArgs args{v.data(), 1000, k};
    Launch l{&scale_add, &args, sizeof args, alignof(AddArgs), {}, false};
    l.regions.push_back({v.data(), v.size() * 8, kInout, false, false});
    t.push_back(card->launch(l));
  }
  for (Ticket& x : t) Device::wait(x);
  EXPECT_EQ(v[5], 5);  // nothing came back yet
  card->copy_out(v.data(), v.size() * 8);
  for (std::int64_t i = 0; i < 1000; ++i) {
    std::int64_t e = i;
    for (int k = 0; k < 10; ++k) e = e * 2 + k;
    ASSERT_EQ(v[std::size_t(i)], e) << i;
  }
  const DeviceEnergy e = card->energy();
  EXPECT_EQ(e.bytes_to_card, 8000u);
  EXPECT_EQ(e.bytes_to_host, 8000u);
  EXPECT_NEAR(e.transfer_s, 16000 / 6e9, 1e-12);
  EXPECT_EQ(e.launches, 12u);
  EXPECT_GT(e.busy_thread_s, 0.0);
  EXPECT_GT(e.joules, 90.0 * e.seconds * 0.99);
}

TEST(CardDevice, AllocateReleaseAndThreads) {
  auto card = make_card("scatter");
  int out = 0;
  int* pout = &out;
  card->allocate(&out, sizeof out);
  Launch l{&threads_of, &pout, sizeof pout, alignof(int*), {}, false};
  l.regions.push_back({&out, sizeof out, kOut, false, true});
  Device::wait(card->launch(l));
  EXPECT_EQ(out, 6);
  card->release(&out, sizeof out);
  EXPECT_NE(card->describe().find("6 threads scatter"), std::string::npos) << card->describe();
  EXPECT_NE(card->pid(), getpid());
}

}  // namespace
