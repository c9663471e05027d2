// oneTBB: a parallel_for over the blocks per iteration (one block per
// chunk, simple_partitioner), in a task_arena of --workers threads. The
// iteration's end is the loop's end, as for the task versions' taskwait.
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>
#include <oneapi/tbb/task_arena.h>

#include <memory>

#include "app.hpp"

namespace {

using jacobi::Grid;
using jacobi::Problem;

class TbbRunner final : public jacobi::Runner {
 public:
  const char* runtime() const override { return "tbb"; }
  void start(int workers) override {
    workers_ = workers > 0 ? workers : tbb::info::default_concurrency();
    arena_ = std::make_unique<tbb::task_arena>(workers_);
  }
  int workers() const override { return workers_; }
  void iterate(Grid& g, const Problem& p, int src) override {
    const std::size_t nb = p.blocks_per_side();
    arena_->execute([&] {
      tbb::parallel_for(
          tbb::blocked_range<std::size_t>(0, p.blocks(), 1),
          [&](const tbb::blocked_range<std::size_t>& r) {
            for (std::size_t b = r.begin(); b != r.end(); ++b)
              jacobi::sweep_block(g.buffer(src), g.buffer(1 - src), g.ld(), b / nb, b % nb, p.bs,
                                  p.sweeps_of(b));
          },
          tbb::simple_partitioner());
    });
  }
  void stop() override { arena_.reset(); }

 private:
  int workers_ = 1;
  std::unique_ptr<tbb::task_arena> arena_;
};

}  // namespace

int main(int argc, char** argv) {
  TbbRunner runner;
  return jacobi::app_main(argc, argv, runner);
}
