// The trace subsystem as a runtime Observer: task, idle and iteration hooks
// go to the running thread's buffer; the files and the statistics are made
// when the runtime stops. Also the back end of trace_api.hpp.
#include <atomic>
#include <cstdio>
#include <cstring>
#include <ostream>

#include "config.hpp"
#include "observer.hpp"
#include "runtime.hpp"
#include "task.hpp"
#include "trace_api.hpp"
#include "trace_session.hpp"

namespace joule::rt {
namespace {

using namespace trace_format;

// The session the API emits into; null when tracing is off.
std::atomic<TraceSession*> g_session{nullptr};

class TraceObserver final : public Observer {
 public:
  TraceObserver(TraceSession::Options opt, bool report)
      : session_(std::move(opt)), report_(report) {}
  const char* name() const override { return "trace"; }

  void on_runtime_start(const Runtime& rt) override {
    std::vector<int> cpus;
    for (int w = 0; w < rt.num_workers(); ++w) cpus.push_back(rt.worker_cpu(w));
    session_.start(cpus, now_ns());
    alone_ = rt.observers().size() == 1;
    g_session.store(&session_, std::memory_order_release);
    trace::detail::g_on.store(true, std::memory_order_release);
  }
  void on_runtime_stop(const Runtime&) override {
    trace::detail::g_on.store(false, std::memory_order_release);
    g_session.store(nullptr, std::memory_order_release);
    session_.stop(now_ns());
    if (!session_.write_error().empty())
      std::fprintf(stderr, "joule: warning: trace not written: %s\n", session_.write_error().c_str());
  }
  void on_worker_start(int worker, int cpu) override { session_.bind_worker(worker, cpu, now_ns()); }
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
    buffer(worker).push(
        Record{now, parked ? kRecStateBegin : kRecStateEnd, kNoCpu, kLent, 0});
  }
  void on_iteration_boundary(std::uint64_t n, std::uint64_t now) override {
    session_.this_thread().push(Record{now, kRecIteration, kNoCpu, 0, n});
  }
  void report(std::ostream& os) const override;

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

Lending lending_of(Event e) {
  switch (e) {
    case kEvCpuLend: return kLend;
    case kEvCpuBorrow: return kBorrow;
    case kEvCpuReclaim: return kReclaim;
    default: return kReturn;
  }
}

}  // namespace

std::unique_ptr<Observer> make_trace_observer(const Config& cfg) {
  TraceSession::Options opt;
  const std::string& f = cfg.trace.format;
  opt.format = f == "paraver" ? TraceSession::Format::paraver
               : f == "chrome" ? TraceSession::Format::chrome
                               : TraceSession::Format::none;
  if (opt.format == TraceSession::Format::none && !cfg.report) return nullptr;
  opt.dir = cfg.trace.dir;
  opt.buffer_bytes = std::size_t(cfg.trace.buffer_kb) * 1024;
  opt.rank = cfg.trace.rank >= 0 ? cfg.trace.rank : Config::Trace::launcher_rank();
  return std::make_unique<TraceObserver>(std::move(opt), cfg.report);
}

namespace trace {

void set_rank(int rank) noexcept {
  if (TraceSession* s = g_session.load(std::memory_order_acquire)) s->set_rank(rank);
}

namespace detail {

void emit_event(Event e, std::uint64_t value) noexcept {
  TraceSession* s = g_session.load(std::memory_order_acquire);
  if (!s) return;
  ThreadBuffer& b = s->this_thread();
  if (e >= kEvCpuLend && e <= kEvCpuReturn) b.stats().lending(lending_of(e));
  b.push(Record{now_ns(), kRecEvent, kNoCpu, e, value});
}

void emit_named(Event e, const char* name) noexcept {
  TraceSession* s = g_session.load(std::memory_order_acquire);
  if (!s) return;
  ThreadBuffer& b = s->this_thread();
  b.push(Record{now_ns(), kRecEventNamed, kNoCpu, e, b.name_id(name)});
}

void emit_counter(const char* name, double value, int cpu) noexcept {
  TraceSession* s = g_session.load(std::memory_order_acquire);
  if (!s) return;
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const std::uint16_t c = cpu >= 0 && cpu < kNoCpu ? std::uint16_t(cpu) : kNoCpu;
  ThreadBuffer& b = s->this_thread();
  b.push(Record{now_ns(), kRecCounter, c, b.counter_id(name, c == kNoCpu ? -1 : cpu), bits});
}

void begin_state(State st) noexcept {
  if (TraceSession* s = g_session.load(std::memory_order_acquire))
    s->this_thread().push(Record{now_ns(), kRecStateBegin, kNoCpu, st, 0});
}

void end_state(State st) noexcept {
  if (TraceSession* s = g_session.load(std::memory_order_acquire))
    s->this_thread().push(Record{now_ns(), kRecStateEnd, kNoCpu, st, 0});
}

}  // namespace detail
}  // namespace trace
}  // namespace joule::rt
