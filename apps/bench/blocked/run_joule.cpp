// joule: joule::spawn with in / inout on whole blocks, then taskwait. The
// runtime reads its configuration (JOULE_QUEUES, ...) from the
// environment like any joule program; only the worker count comes from
// --workers, as JOULE_WORKERS.
#include <joule/joule.hpp>

#include <memory>
#include <string>

#include "driver.hpp"

namespace {

using blocked::TaskDesc;

// Labels name the task types in JOULE_REPORT and traces; static strings.
const joule::task_options kOptions[] = {{.label = "lu0"},  {.label = "fwd"},   {.label = "bdiv"},
                                        {.label = "bmod"}, {.label = "potrf"}, {.label = "trsm"},
                                        {.label = "syrk"}, {.label = "gemm"}};

int joule_worker() { return joule::worker_id(); }

class JouleDriver final : public blocked::Driver {
 public:
  const char* runtime() const override { return "joule"; }
  void start(int workers) override {
    rt_ =
        std::make_unique<joule::runtime>(std::initializer_list<std::pair<std::string, std::string>>{
            {"JOULE_WORKERS", std::to_string(workers)}});
  }
  void run(blocked::TiledMatrix& m, const std::vector<TaskDesc>& tasks) override {
    for (const TaskDesc& t : tasks) spawn(m, t);
    joule::taskwait();
  }
  void stop() override { rt_.reset(); }
  blocked::BodyLedger::WorkerIdFn worker_id() const override { return &joule_worker; }

 private:
  static void spawn(blocked::TiledMatrix& m, const TaskDesc& t) {
    const blocked::Operands ops = blocked::operands_of(m, t);
    const std::size_t bs = m.block_size();
    const std::size_t elems = m.block_elems();
    const joule::task_options& opts = kOptions[static_cast<int>(t.kernel)];
    auto body = [t, ops, bs] { blocked::run_task(t, ops, bs); };
    switch (blocked::access_of(t).n_in) {
      case 0:
        return joule::spawn({joule::inout(ops.inout, elems)}, body, opts);
      case 1:
        return joule::spawn({joule::in(ops.in0, elems), joule::inout(ops.inout, elems)}, body,
                            opts);
      default:
        return joule::spawn(
            {joule::in(ops.in0, elems), joule::in(ops.in1, elems), joule::inout(ops.inout, elems)},
            body, opts);
    }
  }
  std::unique_ptr<joule::runtime> rt_;
};

}  // namespace

int main(int argc, char** argv) {
  JouleDriver driver;
  return blocked::driver_main(argc, argv, driver);
}
