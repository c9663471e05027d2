// A host program for card_daemon_test: attaches to the joule-card daemon
// named by argv[1] and runs card tasks on it.
//   card_attach_prog NAME ok        10 card tasks on one array, a host task reads it: "OK"
//   card_attach_prog NAME slow      prints "started", then a card task that runs 60 s
//   card_attach_prog NAME crash     a card task kills the card; the error at taskwait: "OK"
// Exit status 3 with the message on stderr when the runtime cannot start.
#include <signal.h>
#include <unistd.h>
#include <joule/offload.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace {

int run_ok() {
  const std::int64_t n = 1000;
  std::vector<double> x(n);
  for (std::int64_t i = 0; i < n; ++i) x[std::size_t(i)] = double(i);
  double* px = x.data();
  for (int k = 0; k < 10; ++k)
    joule::spawn(
        {joule::inout(px, n)},
        [=](joule::card_context& c) {
          double* cx = c.map(px);
          c.parallel_for(0, n, [=](std::int64_t i) { cx[i] += 1.0; });
        },
        joule::device_options{});
  bool right = false;
  joule::spawn({joule::in(px, n)}, [&] {
    right = true;
    for (std::int64_t i = 0; i < n; ++i) right = right && px[i] == double(i + 10);
  });
  joule::taskwait();
  const joule::card_energy e = joule::card_status();
  std::printf("card pid %ld host pid %d alive %d launches %llu freq %g\n", e.pid, int(getpid()),
              int(e.alive), static_cast<unsigned long long>(e.launches), e.freq_ghz);
  std::printf(right && e.pid > 0 && e.pid != getpid() ? "OK\n" : "WRONG\n");
  return right ? 0 : 1;
}

int run_slow() {
  int v = 0;
  int* pv = &v;
  joule::spawn(
      {joule::inout(pv, 1)},
      [=](joule::card_context& c) {
        int* cv = c.map(pv);
        const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (std::chrono::steady_clock::now() < end) ++*cv;
      },
      joule::device_options{});
  std::printf("started\n");
  std::fflush(stdout);
  joule::taskwait();
  return 0;
}

int run_crash() {
  int v = 0;
  joule::spawn(
      {joule::inout(&v, 1)}, [](joule::card_context&) { raise(SIGKILL); }, joule::device_options{});
  try {
    joule::taskwait();
  } catch (const joule::error& e) {
    std::printf("%s\n%s\n", e.what(),
                std::string(e.what()).find("died") != std::string::npos ? "OK" : "WRONG");
    return 0;
  }
  std::printf("no error\n");
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const std::string mode = argv[2];
  try {
    joule::runtime rt{{"JOULE_CARD", "attach"}, {"JOULE_CARD_DAEMON", argv[1]}};
    if (mode == "slow") return run_slow();
    if (mode == "crash") return run_crash();
    return run_ok();
  } catch (const joule::error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 3;
  }
}
