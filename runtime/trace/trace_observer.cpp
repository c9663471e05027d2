// The trace subsystem as a runtime Observer: task, idle and iteration hooks
// go to the running thread's buffer; the files and the statistics are made
// when the runtime stops. Also the back end (Sink) of trace_api.hpp.
#include <atomic>
#include <cstdio>
#include <cstring>
#include <ostream>

#include "config.hpp"
#include "log.hpp"
#include "observer.hpp"
#include "task.hpp"
#include "trace_api.hpp"
#include "trace_observer.hpp"
#include "trace_session.hpp"

namespace joule::trace {

using namespace joule::core;
namespace {

using namespace trace_format;

Lending lending_of(Event e) {
  switch (e) {
    case kEvCpuLend:
      return kLend;
    case kEvCpuBorrow:
      return kBorrow;
    case kEvCpuReclaim:
      return kReclaim;
    default:
      return kReturn;
  }
}

class TraceObserver final : public Observer, public core::trace::Sink {
 public:
  TraceObserver(TraceSession::Options opt, bool report)
      : session_(std::move(opt)), report_(report) {}
  const char* name() const override { return "trace"; }

  void on_runtime_start(const RunInfo& run) override {
    session_.start(run.worker_cpus, now_ns());
    alone_ = run.observers == 1;
    core::trace::install(this);
  }
  void on_runtime_stop(const RunInfo&) override {
    core::trace::install(nullptr);
    session_.stop(now_ns());
    if (!session_.write_error().empty())
      core::log_warn("trace not written: " + session_.write_error());
  }
  void on_worker_start(int worker, int cpu) override {
    session_.bind_worker(worker, cpu, now_ns());
  }
  void on_worker_stop(int) override {
    ThreadBuffer& b = session_.this_thread();
    if (b.guest()) b.push(Record{now_ns(), kRecStateEnd, kNoCpu, kBorrowed, 0});
  }

  void on_task_submit(const Task& t, int worker) override {
    buffer(worker).task_create(t.label, t.id, now_ns());
  }
  void on_task_start(const Task& t, int worker, std::uint64_t now) override {
    buffer(worker).task_start(t.label, t.id, now);
  }
  // With other observers, the end is read here: one before this one (the
  // DVFS emulation) may have kept the worker busy since the body ended.
  void on_task_end(const Task&, int worker, std::uint64_t, std::uint64_t end) override {
    buffer(worker).task_end(alone_ ? end : now_ns());
  }
  void on_idle(int worker, bool sleeping, std::uint64_t now) override {
    buffer(worker).sleep(sleeping, now);
  }
  // A parked worker's CPU runs another process (or nothing): the Lent state.
  void on_parked(int worker, bool parked, std::uint64_t now) override {
    buffer(worker).push(Record{now, parked ? kRecStateBegin : kRecStateEnd, kNoCpu, kLent, 0});
  }
  void on_iteration_boundary(std::uint64_t n, std::uint64_t now) override {
    session_.this_thread().push(Record{now, kRecIteration, kNoCpu, 0, n});
  }
  void report(std::ostream& os) const override;

  // ---- core::trace::Sink: events of the other subsystems ----
  void event(Event e, std::uint64_t value) noexcept override {
    ThreadBuffer& b = session_.this_thread();
    if (e >= kEvCpuLend && e <= kEvCpuReturn) b.stats().lending(lending_of(e));
    b.push(Record{now_ns(), kRecEvent, kNoCpu, e, value});
  }
  void named(Event e, const char* name) noexcept override {
    ThreadBuffer& b = session_.this_thread();
    b.push(Record{now_ns(), kRecEventNamed, kNoCpu, e, b.name_id(name)});
  }
  void counter(const char* name, double value, int cpu) noexcept override;
  void state(State st, bool begin) noexcept override {
    session_.this_thread().push(
        Record{now_ns(), begin ? kRecStateBegin : kRecStateEnd, kNoCpu, st, 0});
  }
  void set_rank(int rank) noexcept override { session_.set_rank(rank); }

 private:
  ThreadBuffer& buffer(int worker) { return session_.buffer(worker); }

  TraceSession session_;
  bool report_;
  bool alone_ = true;  // no other observer: the runtime's end time is ours
};

void TraceObserver::report(std::ostream& os) const {
  if (report_) session_.stats().print(os);
  if (session_.files().empty()) return;
  os << "-- trace --\n  written:";
  for (const auto& f : session_.files()) os << " " << f;
  os << "\n";
  if (session_.truncated()) os << "  (truncated: a buffer flush failed)\n";
}

void TraceObserver::counter(const char* name, double value, int cpu) noexcept {
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const std::uint16_t c = cpu >= 0 && cpu < kNoCpu ? std::uint16_t(cpu) : kNoCpu;
  ThreadBuffer& b = session_.this_thread();
  b.push(Record{now_ns(), kRecCounter, c, b.counter_id(name, c == kNoCpu ? -1 : cpu), bits});
}

}  // namespace

std::unique_ptr<Observer> make_trace_observer(const Config& cfg) {
  const TraceSettings& ts = cfg.get<TraceSettings>();
  TraceSession::Options opt;
  opt.format = ts.format;
  if (opt.format == TraceSession::Format::none && !cfg.report) return nullptr;
  opt.dir = ts.dir;
  opt.buffer_bytes = std::size_t(ts.buffer_kb) * 1024;
  opt.rank = ts.rank >= 0 ? ts.rank : Config::launcher_rank();
  return std::make_unique<TraceObserver>(std::move(opt), cfg.report);
}

}  // namespace joule::trace
