// Chrome trace-event JSON (Perfetto, chrome://tracing): tasks, sleeps and
// states as complete ("X") slices per thread, MPI calls as B/E slices,
// iterations and other events as instants, counters as "C" tracks.
// Timestamps are CLOCK_MONOTONIC microseconds, so the traces of processes
// on one node line up when joule-trace merge concatenates them.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "text.hpp"
#include "trace_session.hpp"

namespace joule::trace {

using namespace joule::core;
namespace {

using namespace trace_format;

class ChromeOut {
 public:
  ChromeOut(std::FILE* f, const TraceSession& s) : f_(f), s_(s), pid_(::getpid()) {}

  void begin_event(const char* ph, const std::string& name, const char* cat, int tid,
                   std::uint64_t t) {
    begin_quoted(ph, json_quote(name), cat, tid, t);
  }
  // `quoted`: the name already as a JSON string (cached for labels).
  void begin_quoted(const char* ph, const std::string& quoted, const char* cat, int tid,
                    std::uint64_t t) {
    std::fprintf(f_, "%s\n{\"ph\":\"%s\",\"name\":%s,\"cat\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":",
                 first_ ? "" : ",", ph, quoted.c_str(), cat, pid_, tid);
    first_ = false;
    ts(t);
  }
  void ts(std::uint64_t t) {
    std::fprintf(f_, "%llu.%03llu", static_cast<unsigned long long>(t / 1000),
                 static_cast<unsigned long long>(t % 1000));
  }
  void dur(std::uint64_t t0, std::uint64_t t1) {
    std::fputs(",\"dur\":", f_);
    ts(t1 > t0 ? t1 - t0 : 0);
  }
  void end(const std::string& args = "") {
    if (!args.empty()) std::fprintf(f_, ",\"args\":{%s}", args.c_str());
    std::fputc('}', f_);
  }
  void thread(const ThreadBuffer& b, int tid);
  // A subsystem event as an instant; args.event is its core::trace::Event number
  // (readers match on it, not on the name), a dependency edge also names
  // both tasks.
  void point_event(const Record& r, int tid, std::uint64_t pred) {
    begin_event("i", event_name(r.a), "event", tid, r.t);
    std::fputs(",\"s\":\"t\"", f_);
    std::string args = "\"event\":" + std::to_string(r.a) + ",\"value\":" + std::to_string(r.b);
    if (r.a == kEvDependency)
      args += ",\"pred\":" + std::to_string(pred) + ",\"succ\":" + std::to_string(r.b);
    end(args);
  }
  void metadata(const std::vector<const ThreadBuffer*>& threads);

 private:
  std::FILE* f_;
  const TraceSession& s_;
  int pid_;
  bool first_ = true;
};

void ChromeOut::thread(const ThreadBuffer& b, int tid) {
  struct Open {
    std::uint32_t what;  // label id, or state
    std::uint64_t id, t;
  };
  std::vector<Open> tasks, states;
  const auto& labels = s_.label_names();
  auto label = [&](std::uint32_t l) {
    return l < labels.size() ? labels[l] : "label " + std::to_string(l);
  };
  std::vector<std::string> quoted, created;  // JSON names per label id, made once
  for (const auto& l : labels) {
    quoted.push_back(json_quote(l));
    created.push_back(json_quote("create " + l));
  }
  auto q = [&](std::vector<std::string>& v, std::uint32_t l, const char* prefix) {
    return l < v.size() ? v[l] : json_quote(prefix + label(l));
  };
  auto close_state = [&](std::uint32_t st, std::uint64_t t) {
    for (auto it = states.rbegin(); it != states.rend(); ++it) {
      if (it->what != st) continue;
      begin_event("X", st == kSleeping ? "sleep" : state_name(st), "state", tid, it->t);
      dur(it->t, t);
      end();
      states.erase(std::next(it).base());
      return;
    }
  };
  ThreadBuffer::Reader reader(b);
  Record r;
  std::uint64_t pred = 0;  // the predecessor of the next dependency edge
  while (reader.next(r)) {
    switch (r.kind) {
      case kRecTaskStart:
        tasks.push_back({r.a, r.b, r.t});
        break;
      case kRecTaskEnd:
        if (tasks.empty()) break;
        begin_quoted("X", q(quoted, tasks.back().what, ""), "task", tid, tasks.back().t);
        dur(tasks.back().t, r.t);
        std::fprintf(f_, ",\"args\":{\"id\":%llu}}",
                     static_cast<unsigned long long>(tasks.back().id));
        tasks.pop_back();
        break;
      case kRecTaskCreate:
        begin_quoted("i", q(created, r.a, "create "), "create", tid, r.t);
        std::fputs(",\"s\":\"t\"", f_);
        std::fprintf(f_, ",\"args\":{\"id\":%llu}}", static_cast<unsigned long long>(r.b));
        break;
      case kRecSleepBegin:
        states.push_back({kSleeping, 0, r.t});
        break;
      case kRecSleepEnd:
        close_state(kSleeping, r.t);
        break;
      case kRecStateBegin:
        states.push_back({r.a, 0, r.t});
        break;
      case kRecStateEnd:
        close_state(r.a, r.t);
        break;
      case kRecIteration:
        begin_event("i", "iteration " + std::to_string(r.b), "iteration", tid, r.t);
        std::fputs(",\"s\":\"p\"", f_);
        end("\"iteration\":" + std::to_string(r.b));
        break;
      case kRecEvent:
        if (r.a == kEvDependencyFrom) {
          pred = r.b;  // its edge event follows at once: one instant for both
          break;
        }
        point_event(r, tid, pred);
        pred = 0;
        break;
      case kRecEventNamed: {
        const bool enter = r.b != 0 && r.b < s_.names().size();
        const std::string name = enter ? s_.names()[r.b] : std::string(event_name(r.a));
        begin_event(r.a == kEvMpiCall ? (enter ? "B" : "E") : "i", name,
                    r.a == kEvMpiCall ? "mpi" : "event", tid, r.t);
        if (r.a != kEvMpiCall) std::fputs(",\"s\":\"t\"", f_);
        end();
        break;
      }
      case kRecCounter: {
        double v;
        std::memcpy(&v, &r.b, sizeof v);
        const auto& cn = s_.counter_names();
        const std::string name = r.a < cn.size() ? cn[r.a] : "counter";
        begin_event("C", name, "counter", tid, r.t);
        char val[64];
        std::snprintf(val, sizeof val, "\"value\":%.9g", v);
        end(val);
        break;
      }
      default:
        break;
    }
  }
  // Still open at the end (e.g. a worker that never woke): close at stop.
  while (!states.empty()) close_state(states.back().what, s_.stop_ns());
}

void ChromeOut::metadata(const std::vector<const ThreadBuffer*>& threads) {
  const std::string pname =
      "joule pid " + std::to_string(pid_) +
      (s_.options().rank >= 0 ? " rank " + std::to_string(s_.options().rank) : "");
  std::fprintf(f_, "%s\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":%s}}",
               first_ ? "" : ",", pid_, json_quote(pname).c_str());
  first_ = false;
  for (std::size_t i = 0; i < threads.size(); ++i) {
    const ThreadBuffer& b = *threads[i];
    const std::string name = b.worker() >= 0
                                 ? "worker " + std::to_string(b.worker()) + " (cpu " +
                                       std::to_string(b.cpu()) + (b.guest() ? ", borrowed)" : ")")
                                 : "thread " + std::to_string(i + 1);
    std::fprintf(f_,
                 ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%zu,"
                 "\"args\":{\"name\":%s,\"worker\":%d,\"cpu\":%d,\"borrowed\":%s}}",
                 pid_, i + 1, json_quote(name).c_str(), b.worker(), b.cpu(),
                 b.guest() ? "true" : "false");
    std::fprintf(f_,
                 ",\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%zu,"
                 "\"args\":{\"sort_index\":%zu}}",
                 pid_, i + 1, i + 1);
  }
}

}  // namespace

std::vector<std::string> write_chrome(const TraceSession& s, const std::string& base) {
  const std::string path = base + ".json";
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error("cannot write " + path);
  std::setvbuf(f, nullptr, _IOFBF, 1 << 20);
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "localhost");
  std::fprintf(f,
               "{\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"joule_format\":1,\"pid\":%d,"
               "\"rank\":%d,\"host\":%s,\"start_ns\":%llu,\"stop_ns\":%llu},\n\"traceEvents\":[",
               int(::getpid()), s.options().rank, json_quote(host).c_str(),
               static_cast<unsigned long long>(s.start_ns()),
               static_cast<unsigned long long>(s.stop_ns()));
  ChromeOut out(f, s);
  const auto threads = s.threads();
  out.metadata(threads);
  for (std::size_t i = 0; i < threads.size(); ++i) out.thread(*threads[i], int(i + 1));
  std::fputs("\n]}\n", f);
  if (std::fclose(f) != 0) throw std::runtime_error("cannot write " + path);
  return {path};
}

}  // namespace joule::trace
