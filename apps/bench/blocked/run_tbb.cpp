// oneTBB: no data-driven dependencies, so the driver derives the graph
// (build_dag, inside the timed region) and runs it with explicit dependency
// counting: a finished task decrements its successors' counters and hands
// those that reach zero to the task_group. Runs in a task_arena of --workers
// threads, the creating thread included.
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <atomic>
#include <memory>

#include "driver.hpp"
#include "task_dag.hpp"

namespace {

using blocked::TaskDesc;

// One execution of the graph: counters, the group, and the task body.
class DagRun {
 public:
  DagRun(blocked::TiledMatrix& m, const std::vector<TaskDesc>& tasks)
      : m_(m),
        tasks_(tasks),
        dag_(blocked::build_dag(tasks, m.blocks())),
        pending_(new std::atomic<std::uint32_t>[tasks.size()]) {
    for (std::size_t t = 0; t < tasks.size(); ++t) pending_[t].store(dag_.preds[t]);
  }
  void run_all() {
    for (std::size_t t = 0; t < tasks_.size(); ++t) {
      if (dag_.preds[t] == 0) group_.run([this, t] { execute(static_cast<std::uint32_t>(t)); });
    }
    group_.wait();
  }

 private:
  void execute(std::uint32_t id) {
    const TaskDesc& t = tasks_[id];
    blocked::run_task(t, blocked::operands_of(m_, t), m_.block_size());
    for (std::uint32_t e = dag_.first[id]; e < dag_.first[id + 1]; ++e) {
      const std::uint32_t s = dag_.succ[e];
      if (pending_[s].fetch_sub(1, std::memory_order_acq_rel) == 1) {
        group_.run([this, s] { execute(s); });
      }
    }
  }
  blocked::TiledMatrix& m_;
  const std::vector<TaskDesc>& tasks_;
  blocked::TaskDag dag_;
  std::unique_ptr<std::atomic<std::uint32_t>[]> pending_;
  tbb::task_group group_;
};

int tbb_worker() { return tbb::this_task_arena::current_thread_index(); }

class TbbDriver final : public blocked::Driver {
 public:
  const char* runtime() const override { return "tbb"; }
  void start(int workers) override { arena_ = std::make_unique<tbb::task_arena>(workers); }
  void run(blocked::TiledMatrix& m, const std::vector<TaskDesc>& tasks) override {
    arena_->execute([&] { DagRun(m, tasks).run_all(); });
  }
  void stop() override { arena_.reset(); }
  blocked::BodyLedger::WorkerIdFn worker_id() const override { return &tbb_worker; }

 private:
  std::unique_ptr<tbb::task_arena> arena_;
};

}  // namespace

int main(int argc, char** argv) {
  TbbDriver driver;
  return blocked::driver_main(argc, argv, driver);
}
