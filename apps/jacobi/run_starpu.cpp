// StarPU 1.3: the blocks' data live in one grid in main memory, so every
// block of each buffer is registered as a "void" handle (StarPU orders the
// tasks by it, no data is moved): per iteration one task per block, R on the
// source block and its neighbours, W on the destination block, then
// starpu_task_wait_for_all. StarPU runs --workers CPU workers of its own;
// STARPU_* variables apply as usual, except the CPU count.
#include <starpu.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "app.hpp"
#include "starpu_start.hpp"  // apps/bench/blocked

namespace {

using jacobi::Grid;
using jacobi::Problem;

// What one block's task needs; one per block, alive for the whole run.
struct BlockArgs {
  double* buffers[2];
  std::size_t ld, bi, bj, bs;
  int sweeps;
  int src;  // set before each submission (the task reads it when it runs)
};

void sweep_task(void* /*buffers*/[], void* cl_arg) {
  const auto& a = *static_cast<const BlockArgs*>(cl_arg);
  jacobi::sweep_block(a.buffers[a.src], a.buffers[1 - a.src], a.ld, a.bi, a.bj, a.bs, a.sweeps);
}

starpu_codelet make_codelet() {
  starpu_codelet cl;
  starpu_codelet_init(&cl);
  cl.name = "sweep";
  cl.where = STARPU_CPU;
  cl.cpu_funcs[0] = sweep_task;
  cl.nbuffers = STARPU_VARIABLE_NBUFFERS;
  return cl;
}

starpu_codelet g_codelet = make_codelet();

class StarpuRunner final : public jacobi::Runner {
 public:
  const char* runtime() const override { return "starpu"; }
  void start(int workers) override;
  int workers() const override { return int(starpu_cpu_worker_get_count()); }
  void prepare(Grid& g, const Problem& p) override;
  void iterate(Grid& g, const Problem& p, int src) override;
  void stop() override;

 private:
  starpu_data_handle_t handle(int buffer, std::size_t bi, std::size_t bj) const {
    return handles_[std::size_t(buffer) * nb_ * nb_ + bi * nb_ + bj];
  }
  void submit(std::size_t bi, std::size_t bj, int src);
  std::size_t nb_ = 0;
  std::vector<starpu_data_handle_t> handles_;
  std::vector<BlockArgs> args_;
  std::string home_;  // a temporary STARPU_HOME, removed at stop()
  bool running_ = false;
};

void StarpuRunner::start(int workers) {
  home_ = blocked::starpu_start(workers);
  running_ = true;
}

void StarpuRunner::prepare(Grid& g, const Problem& p) {
  nb_ = p.blocks_per_side();
  handles_.assign(2 * nb_ * nb_, nullptr);
  for (starpu_data_handle_t& h : handles_) starpu_void_data_register(&h);
  args_.clear();
  for (std::size_t b = 0; b < nb_ * nb_; ++b)
    args_.push_back(
        {{g.buffer(0), g.buffer(1)}, g.ld(), b / nb_, b % nb_, p.bs, p.sweeps_of(b), 0});
}

void StarpuRunner::submit(std::size_t bi, std::size_t bj, int src) {
  starpu_task* task = starpu_task_create();
  task->cl = &g_codelet;
  int n = 0;
  auto add = [&](starpu_data_handle_t h, starpu_data_access_mode mode) {
    task->handles[n] = h;
    task->modes[n++] = mode;
  };
  add(handle(src, bi, bj), STARPU_R);
  if (bi > 0) add(handle(src, bi - 1, bj), STARPU_R);
  if (bi + 1 < nb_) add(handle(src, bi + 1, bj), STARPU_R);
  if (bj > 0) add(handle(src, bi, bj - 1), STARPU_R);
  if (bj + 1 < nb_) add(handle(src, bi, bj + 1), STARPU_R);
  add(handle(1 - src, bi, bj), STARPU_W);
  task->nbuffers = n;
  BlockArgs& a = args_[bi * nb_ + bj];
  a.src = src;
  task->cl_arg = &a;
  task->cl_arg_size = sizeof a;
  const int rc = starpu_task_submit(task);
  if (rc != 0) {
    std::fprintf(stderr, "jacobi_starpu: starpu_task_submit failed: %d\n", rc);
    std::abort();
  }
}

void StarpuRunner::iterate(Grid& /*g*/, const Problem& /*p*/, int src) {
  for (std::size_t bi = 0; bi < nb_; ++bi)
    for (std::size_t bj = 0; bj < nb_; ++bj) submit(bi, bj, src);
  starpu_task_wait_for_all();
}

void StarpuRunner::stop() {
  for (starpu_data_handle_t h : handles_) starpu_data_unregister(h);
  handles_.clear();
  if (running_) starpu_shutdown();
  running_ = false;
  blocked::starpu_remove_home(home_);
}

}  // namespace

int main(int argc, char** argv) {
  StarpuRunner runner;
  return jacobi::app_main(argc, argv, runner);
}
