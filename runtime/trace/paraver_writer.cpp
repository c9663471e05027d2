// Paraver output: <base>.prv (header + time-sorted records), .pcf (names of
// states, event types and values), .row (object names) and .info (what
// joule-trace merge needs: pid, rank, host, the monotonic start time).
//
// Each thread's records are already in time order; a state record must come
// before the events inside it, so a thread's events wait until the state
// around them closes. A k-way merge over the threads then sorts the file.
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <deque>
#include <fstream>
#include <queue>
#include <stdexcept>
#include <string_view>
#include <tuple>

#include "trace_session.hpp"

namespace joule::trace {
namespace {

using namespace trace_format;

// One output line, formatted in place: no allocation per record.
struct Line {
  std::uint64_t key;
  int prio;  // 0: state record (first on ties), 1: event
  std::uint16_t len = 0;
  char text[118];

  Line(std::uint64_t k, int p) : key(k), prio(p) {}
  Line& num(std::int64_t v) {
    len = std::uint16_t(std::to_chars(text + len, text + sizeof text, v).ptr - text);
    return *this;
  }
  Line& str(std::string_view v) {
    const std::size_t n = std::min(v.size(), sizeof text - len);
    std::memcpy(text + len, v.data(), n);
    len = std::uint16_t(len + n);
    return *this;
  }
  Line& sep() { return str(":"); }
  Line& pair(std::int64_t type, std::int64_t value) { return sep().num(type).sep().num(value); }
};

// Turns one thread's records into Paraver lines in time order.
class ThreadStream {
 public:
  ThreadStream(const ThreadBuffer& b, std::string ids, std::uint64_t t0, std::uint64_t t1,
               const std::vector<std::string>& cpu_thread_ids)
      : reader_(b), ids_(std::move(ids)), t0_(t0), t1_(t1), cpu_ids_(cpu_thread_ids) {}

  // The next line, or nullptr at the end.
  const Line* front() {
    while (ready_.empty() && !done_) step();
    return ready_.empty() ? nullptr : &ready_.front();
  }
  void pop() { ready_.pop_front(); }

 private:
  static constexpr std::size_t kMaxHeld = 4096;

  std::uint64_t rel(std::uint64_t t) const { return t <= t0_ ? 0 : std::min(t, t1_) - t0_; }
  std::uint32_t shown() const { return states_.empty() ? std::uint32_t(kIdle) : states_.back(); }

  void transition(std::uint64_t t, std::uint32_t state, bool enter) {
    const std::uint32_t before = shown();
    if (enter) {
      states_.push_back(state);
    } else {
      for (auto it = states_.rbegin(); it != states_.rend(); ++it)
        if (*it == state) {
          states_.erase(std::next(it).base());
          break;
        }
    }
    if (shown() != before) close_with(t, before);
  }
  void close_with(std::uint64_t t, std::uint32_t state) {
    if (t > since_) {
      Line& l = ready_.emplace_back(since_, 0);
      l.str("1:")
          .str(ids_)
          .sep()
          .num(std::int64_t(since_))
          .sep()
          .num(std::int64_t(t))
          .sep()
          .num(state);
    }
    since_ = std::max(since_, t);
    for (auto& l : held_) ready_.push_back(l);
    held_.clear();
  }
  // Starts an event line at t on the row `ids`; the caller appends pairs.
  Line& event(std::uint64_t t, const std::string& ids) {
    if (held_.size() >= kMaxHeld) close_with(t, shown());
    Line& l = held_.emplace_back(t, 1);
    l.str("2:").str(ids).sep().num(std::int64_t(t));
    return l;
  }

  void step() {
    Record r;
    if (!reader_.next(r)) {
      close_with(t1_ - t0_, shown());
      done_ = true;
      return;
    }
    const std::uint64_t t = rel(r.t);
    const auto b = std::int64_t(r.b);
    switch (r.kind) {
      case kRecTaskStart:
        tasks_.push_back({r.a, r.b});
        transition(t, kRunning, true);
        event(t, ids_).pair(kTypeTaskLabel, r.a).pair(kTypeTaskId, b);
        break;
      case kRecTaskEnd: {
        if (!tasks_.empty()) tasks_.pop_back();
        const auto outer =
            tasks_.empty() ? std::pair<std::uint32_t, std::uint64_t>{0, 0} : tasks_.back();
        transition(t, kRunning, false);
        event(t, ids_)
            .pair(kTypeTaskLabel, outer.first)
            .pair(kTypeTaskId, std::int64_t(outer.second));
        break;
      }
      case kRecTaskCreate:
        event(t, ids_).pair(kTypeTaskCreate, r.a).pair(kTypeTaskCreateId, b);
        break;
      case kRecSleepBegin:
        transition(t, kSleeping, true);
        break;
      case kRecSleepEnd:
        transition(t, kSleeping, false);
        break;
      case kRecStateBegin:
        transition(t, r.a, true);
        break;
      case kRecStateEnd:
        transition(t, r.a, false);
        break;
      case kRecIteration:
        event(t, ids_).pair(kTypeIteration, b);
        break;
      case kRecEvent:
      case kRecEventNamed:
        event(t, ids_).pair(kTypeEventBase + r.a, b);
        break;
      case kRecCounter: {
        double v;
        std::memcpy(&v, &r.b, sizeof v);
        // A per-CPU counter goes on the row of the worker on that CPU.
        const std::string& where =
            r.cpu < cpu_ids_.size() && !cpu_ids_[r.cpu].empty() ? cpu_ids_[r.cpu] : ids_;
        event(t, where).pair(kTypeCounterBase + r.a, std::llround(v * kCounterScale));
        break;
      }
      default:
        break;
    }
  }

  ThreadBuffer::Reader reader_;
  std::string ids_;  // "cpu:appl:task:thread"
  std::uint64_t t0_, t1_;
  const std::vector<std::string>& cpu_ids_;
  std::vector<std::uint32_t> states_;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> tasks_;
  std::uint64_t since_ = 0;
  std::deque<Line> ready_, held_;
  bool done_ = false;
};

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

int node_cpus(const TraceSession& s) {
  int n = 1;
  for (const ThreadBuffer* b : s.threads()) n = std::max(n, b->cpu() + 1);
  return n;
}

std::string thread_name(const ThreadBuffer& b, std::size_t i) {
  if (b.worker() >= 0)
    return "worker " + std::to_string(b.worker()) + " (cpu " + std::to_string(b.cpu()) +
           (b.guest() ? ", borrowed)" : ")");
  return "thread " + std::to_string(i + 1) + " (not a worker)";
}

void write_prv(const TraceSession& s, const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error("cannot write " + path);
  std::setvbuf(f, nullptr, _IOFBF, 1 << 20);
  const auto threads = s.threads();
  const int cpus = node_cpus(s);
  std::vector<std::string> ids(threads.size());
  std::vector<std::string> cpu_ids(static_cast<std::size_t>(cpus));
  for (std::size_t i = 0; i < threads.size(); ++i) {
    const int cpu_field = threads[i]->cpu() >= 0 ? threads[i]->cpu() + 1 : 0;
    ids[i] = std::to_string(cpu_field) + ":1:1:" + std::to_string(i + 1);
    if (threads[i]->cpu() >= 0 && cpu_ids[std::size_t(threads[i]->cpu())].empty())
      cpu_ids[std::size_t(threads[i]->cpu())] = ids[i];
  }
  const std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%d/%m/%Y at %H:%M", std::localtime(&now));
  std::fprintf(f, "#Paraver (%s):%llu_ns:1(%d):1:1(%zu:1)\n", date,
               static_cast<unsigned long long>(s.stop_ns() - s.start_ns()), cpus, threads.size());

  std::vector<std::unique_ptr<ThreadStream>> streams;
  for (std::size_t i = 0; i < threads.size(); ++i)
    streams.push_back(
        std::make_unique<ThreadStream>(*threads[i], ids[i], s.start_ns(), s.stop_ns(), cpu_ids));
  using Head = std::tuple<std::uint64_t, int, std::size_t>;
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heap;
  auto push = [&](std::size_t i) {
    if (const Line* l = streams[i]->front()) heap.emplace(l->key, l->prio, i);
  };
  for (std::size_t i = 0; i < streams.size(); ++i) push(i);
  while (!heap.empty()) {
    const std::size_t i = std::get<2>(heap.top());
    heap.pop();
    const Line* l = streams[i]->front();
    std::fwrite(l->text, 1, l->len, f);
    std::fputc('\n', f);
    streams[i]->pop();
    push(i);
  }
  if (std::fclose(f) != 0) throw std::runtime_error("cannot write " + path);
}

}  // namespace

void write_pcf(const TraceSession& s, const std::string& path);
void write_row_and_info(const TraceSession& s, const std::string& base, int cpus,
                        const std::string& host, const std::vector<std::string>& names);

std::vector<std::string> write_paraver(const TraceSession& s, const std::string& base) {
  write_prv(s, base + ".prv");
  write_pcf(s, base + ".pcf");
  std::vector<std::string> names;
  const auto threads = s.threads();
  for (std::size_t i = 0; i < threads.size(); ++i) names.push_back(thread_name(*threads[i], i));
  write_row_and_info(s, base, node_cpus(s), host_name(), names);
  return {base + ".prv", base + ".pcf", base + ".row", base + ".info"};
}

}  // namespace joule::trace
