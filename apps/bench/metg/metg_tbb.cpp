// METG stencil (metg.hpp) on oneTBB: a task_group with a counter per point
// (its inputs not yet written); the first row is run from the start, and a
// point that writes its cell runs each successor whose counter it brings to
// zero. An arena of `workers` threads, the thread limit raised to match.
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <vector>

#include "metg.hpp"

namespace {

class Runner {
 public:
  Runner(metg::Grid& g, long iters)
      : g_(g), iters_(iters), pending_(new std::atomic<int>[static_cast<std::size_t>(g.tasks())]) {
    metg::for_each_point(g, [&](int gi, int t, int x, int lo, int hi) {
      pending_[index(gi, t, x)].store(t == 0 ? 0 : hi - lo + 1, std::memory_order_relaxed);
    });
  }

  void run() {
    for (int gi = 0; gi < g_.graphs(); ++gi)
      for (int x = 0; x < g_.width(); ++x) tg_.run([this, gi, x] { point(gi, 0, x); });
    tg_.wait();
  }

 private:
  std::size_t index(int gi, int t, int x) const {
    return (static_cast<std::size_t>(gi) * g_.steps() + t) * g_.width() + x;
  }

  void point(int gi, int t, int x) {
    g_.compute(gi, t, x, iters_);
    if (t + 1 == g_.steps()) return;
    const int lo = x > 0 ? x - 1 : 0, hi = x + 1 < g_.width() ? x + 1 : x;
    for (int s = lo; s <= hi; ++s) {
      if (pending_[index(gi, t + 1, s)].fetch_sub(1, std::memory_order_acq_rel) == 1)
        tg_.run([this, gi, t, s] { point(gi, t + 1, s); });
    }
  }

  metg::Grid& g_;
  long iters_;
  std::unique_ptr<std::atomic<int>[]> pending_;
  tbb::task_group tg_;
};

tbb::task_arena* arena = nullptr;

void run(metg::Grid& grid, long iters, int) {
  arena->execute([&] { Runner(grid, iters).run(); });
}

}  // namespace

int main(int argc, char** argv) {
  const metg::Options o = metg::parse(argc, argv);
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                            static_cast<std::size_t>(o.workers));
  tbb::task_arena a(o.workers);
  arena = &a;
  return metg::sweep("tbb", o, run);
}
