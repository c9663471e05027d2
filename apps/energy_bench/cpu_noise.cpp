// cpu_noise: another process on the machine, as a node's daemons or a
// neighbour's job are: one thread that burns a share of one CPU in short
// bursts at random times, unpinned (the kernel places it). The energy
// benchmarks and the time guard's tests start it beside the program they
// measure (docs/energy.md, "The time guard").
//
//   cpu_noise [--share F] [--burst-us N] [--seconds S] [--seed N]
//
// --share: the CPU share burnt on average (default 0.2); --burst-us: one
// burst's length (default 2000); gaps between bursts are exponential with
// the mean that gives the share; --seconds: stop after S (default: run
// until SIGTERM or SIGINT). On exit it prints the share it really burnt
// ("cpu_noise: burnt 0.201 of one CPU over 12.3 s") on stderr.
#include <signal.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

namespace {

volatile sig_atomic_t g_stop = 0;

void on_signal(int) { g_stop = 1; }

struct Args {
  double share = 0.2;
  long burst_us = 2000;
  double seconds = 0;  // 0: until a signal
  unsigned seed = 1;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "cpu_noise: %s\nusage: cpu_noise [--share F (0 < F < 1)] [--burst-us N (1..1000000)]"
               " [--seconds S (> 0)] [--seed N]\n",
               why);
  std::exit(2);
}

double number(const char* flag, const char* text, double lo, double hi) {
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(v > lo && v <= hi))
    usage((std::string(flag) + ": '" + text + "' is not in the allowed range").c_str());
  return v;
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) usage((flag + " needs a value, or is unknown").c_str());
    const char* v = argv[++i];
    if (flag == "--share")
      a.share = number("--share", v, 0, 0.999);
    else if (flag == "--burst-us")
      a.burst_us = long(number("--burst-us", v, 0, 1e6));
    else if (flag == "--seconds")
      a.seconds = number("--seconds", v, 0, 1e6);
    else if (flag == "--seed")
      a.seed = unsigned(number("--seed", v, -1, 4e9));
    else
      usage(("unknown option '" + flag + "'").c_str());
  }
  return a;
}

using Clock = std::chrono::steady_clock;

void sleep_for(double s) {
  timespec t{};
  t.tv_sec = time_t(s);
  t.tv_nsec = long((s - double(t.tv_sec)) * 1e9);
  nanosleep(&t, nullptr);  // a signal ends it early: the loop checks g_stop
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  std::mt19937 rng(a.seed);
  const double burst = double(a.burst_us) * 1e-6;
  std::exponential_distribution<double> gap(a.share / (burst * (1 - a.share)));
  const auto start = Clock::now();
  double burnt = 0;
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  while (!g_stop && (a.seconds <= 0 || elapsed() < a.seconds)) {
    sleep_for(gap(rng));
    const auto b0 = Clock::now(), until = b0 + std::chrono::microseconds(a.burst_us);
    while (!g_stop && Clock::now() < until) {
    }
    burnt += std::chrono::duration<double>(Clock::now() - b0).count();
  }
  const double total = elapsed();
  std::fprintf(stderr, "cpu_noise: burnt %.3f of one CPU over %.1f s\n",
               total > 0 ? burnt / total : 0.0, total);
  return 0;
}
