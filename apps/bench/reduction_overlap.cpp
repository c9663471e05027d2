// 16 reducing tasks of 100 us each, with an operator (private copies, the
// bodies overlap) and without one (commutative: one at a time), the two
// interleaved round by round so that the host's slow phases hit both alike.
// Prints the median time of a round of each and their ratio; see
// docs/performance.md. Usage: JOULE_WORKERS=2 reduction_overlap [rounds]
#include <joule/joule.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

void busy_us(int us) {
  const auto until = clock_type::now() + std::chrono::microseconds(us);
  while (clock_type::now() < until) {
  }
}

double round_us(bool with_operator, int tasks, int body_us) {
  double x = 0;
  const auto start = clock_type::now();
  for (int i = 0; i < tasks; ++i) {
    const joule::dep d =
        with_operator ? joule::reduction(x, joule::red::sum{}) : joule::reduction(x);
    joule::spawn({d}, [&x, body_us, with_operator] {
      busy_us(body_us);
      (with_operator ? joule::reduction_private(x) : x) += 1;
    });
  }
  joule::taskwait();
  const double us = std::chrono::duration<double, std::micro>(clock_type::now() - start).count();
  if (x != tasks) {
    std::fprintf(stderr, "wrong result %g\n", x);
    std::exit(1);
  }
  return us;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 50;
  constexpr int kTasks = 16, kBodyUs = 100;
  joule::runtime rt;
  std::vector<double> with, without;
  round_us(true, kTasks, kBodyUs);  // warm-up: workers started, pools filled
  round_us(false, kTasks, kBodyUs);
  for (int r = 0; r < rounds; ++r) {
    with.push_back(round_us(true, kTasks, kBodyUs));
    without.push_back(round_us(false, kTasks, kBodyUs));
  }
  const double a = median(with), b = median(without);
  std::printf(
      "workers %d, %d tasks of %d us, %d rounds: with operator %.0f us, "
      "commutative %.0f us, ratio %.2f\n",
      joule::num_workers(), kTasks, kBodyUs, rounds, a, b, b / a);
  return 0;
}
