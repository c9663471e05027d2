// OpenMP tasks with depend(in/inout) on whole blocks (a block is named by its
// first element, as the OpenMP list items must be), created by one thread of
// a parallel region of --workers threads. Built by g++ (libgomp, and libomp
// through its GOMP_* ABI) and by clang++ (libomp); no OMP_* variable is set,
// each library keeps its defaults.
#include <omp.h>

#include "driver.hpp"

namespace {

using blocked::TaskDesc;

class OmpDriver final : public blocked::Driver {
 public:
#if defined(BLOCKED_OMP_RUNTIME)  // g++ code linked against libomp
  const char* runtime() const override { return BLOCKED_OMP_RUNTIME; }
#elif defined(__clang__)
  const char* runtime() const override { return "libomp"; }
#else
  const char* runtime() const override { return "libgomp"; }
#endif
  void start(int workers) override { workers_ = workers; }
  void run(blocked::TiledMatrix& m, const std::vector<TaskDesc>& tasks) override {
#pragma omp parallel num_threads(workers_)
#pragma omp single
    {
      for (const TaskDesc& t : tasks) spawn(m, t);
#pragma omp taskwait
    }
  }
  blocked::BodyLedger::WorkerIdFn worker_id() const override { return &omp_get_thread_num; }

 private:
  static void spawn(blocked::TiledMatrix& m, const TaskDesc& task) {
    const TaskDesc t = task;
    const blocked::Operands ops = blocked::operands_of(m, t);
    const std::size_t bs = m.block_size();
    double& c = *ops.inout;
    // Unused inputs name c, so that no null pointer is dereferenced (g++
    // does not count a use in a depend clause, hence maybe_unused).
    [[maybe_unused]] const double& a = ops.in0 ? *ops.in0 : c;
    [[maybe_unused]] const double& b = ops.in1 ? *ops.in1 : c;
    switch (blocked::access_of(t).n_in) {
      case 0:
#pragma omp task firstprivate(t, ops, bs) depend(inout : c)
        blocked::run_task(t, ops, bs);
        break;
      case 1:
#pragma omp task firstprivate(t, ops, bs) depend(in : a) depend(inout : c)
        blocked::run_task(t, ops, bs);
        break;
      default:
#pragma omp task firstprivate(t, ops, bs) depend(in : a, b) depend(inout : c)
        blocked::run_task(t, ops, bs);
        break;
    }
  }
  int workers_ = 2;
};

}  // namespace

int main(int argc, char** argv) {
  OmpDriver driver;
  return blocked::driver_main(argc, argv, driver);
}
