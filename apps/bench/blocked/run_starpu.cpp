// StarPU 1.3: one vector handle per block (registered before each rep,
// outside the timed region, as the data of a StarPU program would be), one
// codelet per number of buffers (RW; R RW; R R RW), tasks inserted in
// creation order under sequential consistency, starpu_task_wait_for_all.
// StarPU runs --workers CPU worker threads of its own; the main thread only
// submits. STARPU_* variables (STARPU_SCHED, ...) apply as usual, except the
// CPU count.
#include <starpu.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "driver.hpp"
#include "starpu_start.hpp"

namespace {

using blocked::TaskDesc;

std::size_t g_bs = 0;  // the block size of the current run (codelets are global)

// Buffers: the inputs in order, then the block updated; cl_arg: the TaskDesc.
void block_task(void* buffers[], void* cl_arg) {
  const auto& t = *static_cast<const TaskDesc*>(cl_arg);
  const std::uint32_t n_in = blocked::access_of(t).n_in;
  blocked::Operands ops;
  if (n_in > 0) ops.in0 = reinterpret_cast<const double*>(STARPU_VECTOR_GET_PTR(buffers[0]));
  if (n_in > 1) ops.in1 = reinterpret_cast<const double*>(STARPU_VECTOR_GET_PTR(buffers[1]));
  ops.inout = reinterpret_cast<double*>(STARPU_VECTOR_GET_PTR(buffers[n_in]));
  blocked::run_task(t, ops, g_bs);
}

starpu_codelet make_codelet(int n_in) {
  starpu_codelet cl;
  starpu_codelet_init(&cl);
  cl.name = "block_task";
  cl.where = STARPU_CPU;
  cl.cpu_funcs[0] = block_task;
  cl.nbuffers = n_in + 1;
  for (int i = 0; i < n_in; ++i) cl.modes[i] = STARPU_R;
  cl.modes[n_in] = STARPU_RW;
  return cl;
}

starpu_codelet g_codelets[3] = {make_codelet(0), make_codelet(1), make_codelet(2)};

int starpu_worker() { return starpu_worker_get_id(); }

class StarpuDriver final : public blocked::Driver {
 public:
  const char* runtime() const override { return "starpu"; }
  void start(int workers) override;
  void prepare(blocked::TiledMatrix& m) override;
  void run(blocked::TiledMatrix& m, const std::vector<TaskDesc>& tasks) override;
  void finish(blocked::TiledMatrix& m) override;
  void stop() override;
  blocked::BodyLedger::WorkerIdFn worker_id() const override { return &starpu_worker; }

 private:
  void insert(const blocked::TiledMatrix& m, const TaskDesc& t);
  std::vector<starpu_data_handle_t> handles_;
  std::string home_;  // a temporary STARPU_HOME, removed at stop()
  bool running_ = false;
};

void StarpuDriver::start(int workers) {
  home_ = blocked::starpu_start(workers);
  running_ = true;
}

void StarpuDriver::prepare(blocked::TiledMatrix& m) {
  g_bs = m.block_size();
  handles_.assign(m.blocks() * m.blocks(), nullptr);
  for (std::size_t r = 0; r < m.blocks(); ++r) {
    for (std::size_t c = 0; c < m.blocks(); ++c) {
      starpu_vector_data_register(&handles_[r * m.blocks() + c], STARPU_MAIN_RAM,
                                  reinterpret_cast<std::uintptr_t>(m.block(r, c)),
                                  static_cast<std::uint32_t>(m.block_elems()), sizeof(double));
    }
  }
}

void StarpuDriver::insert(const blocked::TiledMatrix& m, const TaskDesc& t) {
  const blocked::Access a = blocked::access_of(t);
  auto handle = [&](blocked::BlockRef b) { return handles_[b.row * m.blocks() + b.col]; };
  starpu_task* task = starpu_task_create();
  task->cl = &g_codelets[a.n_in];
  for (std::uint32_t i = 0; i < a.n_in; ++i) task->handles[i] = handle(a.in[i]);
  task->handles[a.n_in] = handle(a.inout);
  task->cl_arg = const_cast<TaskDesc*>(&t);  // lives in the task list for the whole run
  task->cl_arg_size = sizeof(TaskDesc);
  const int rc = starpu_task_submit(task);
  if (rc != 0) {
    std::fprintf(stderr, "blocked_starpu: starpu_task_submit failed: %d\n", rc);
    std::abort();
  }
}

void StarpuDriver::run(blocked::TiledMatrix& m, const std::vector<TaskDesc>& tasks) {
  for (const TaskDesc& t : tasks) insert(m, t);
  starpu_task_wait_for_all();
}

void StarpuDriver::finish(blocked::TiledMatrix& /*m*/) {
  for (starpu_data_handle_t h : handles_) starpu_data_unregister(h);
  handles_.clear();
}

void StarpuDriver::stop() {
  if (running_) starpu_shutdown();
  running_ = false;
  blocked::starpu_remove_home(home_);
}

}  // namespace

int main(int argc, char** argv) {
  StarpuDriver driver;
  return blocked::driver_main(argc, argv, driver);
}
