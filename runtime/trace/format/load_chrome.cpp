// Chrome trace-event JSON -> TraceModel, one event object at a time.
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "json.hpp"
#include "trace_events.hpp"
#include "trace_model.hpp"

namespace joule::trace_format {
namespace {

struct Loader {
  TraceModel m;
  std::map<long, int> process_of;               // pid -> process
  std::map<std::pair<long, long>, int> row_of;  // (pid, tid) -> row
  std::map<std::pair<int, std::string>, int> counter_of;
  std::vector<std::vector<std::uint64_t>> mpi_open;              // per row: B timestamps
  std::map<long, std::pair<std::uint64_t, std::uint64_t>> span;  // pid -> seen range

  int process(long pid) {
    auto it = process_of.find(pid);
    if (it != process_of.end()) return it->second;
    Process p;
    p.pid = pid;
    m.processes.push_back(p);
    return process_of[pid] = int(m.processes.size()) - 1;
  }
  int row(long pid, long tid) {
    auto it = row_of.find({pid, tid});
    if (it != row_of.end()) return it->second;
    Row r;
    r.process = process(pid);
    r.name = "thread " + std::to_string(tid);
    m.rows.push_back(r);
    mpi_open.emplace_back();
    return row_of[{pid, tid}] = int(m.rows.size()) - 1;
  }
  static std::uint64_t ns(double us) { return us <= 0 ? 0 : std::uint64_t(us * 1000.0 + 0.5); }

  void other_data(const JsonValue& o) {
    auto add = [&](const JsonValue& d) {
      const int p = process(long(d.number_or("pid", 0)));
      Process& pr = m.processes[std::size_t(p)];
      pr.rank = int(d.number_or("rank", -1));
      pr.host = d.string_or("host", "localhost");
      pr.t0 = std::uint64_t(d.number_or("start_ns", 0));
      pr.t1 = std::uint64_t(d.number_or("stop_ns", 0));
    };
    if (const JsonValue* merged = o.find("merged"); merged && merged->type == JsonValue::array)
      for (const auto& d : merged->items) add(d);
    else if (o.find("pid"))
      add(o);
  }

  void event(const JsonValue& e);
  // A lend / borrow / reclaim / return instant (args.event, args.value = cpu + 1).
  void lending_event(const JsonValue& args, std::uint64_t t, int p) {
    const auto e = std::uint32_t(args.number_or("event", 0));
    if (e >= kEvCpuLend && e <= kEvCpuReturn)
      m.lending.push_back({t, p, int(args.number_or("value", 0)) - 1, e});
  }
};

State state_of(const std::string& name) {
  if (name == "sleep") return kSleeping;
  for (std::uint32_t s = 0; s < kNumStates; ++s)
    if (name == state_name(s)) return State(s);
  return kIdle;
}

void Loader::event(const JsonValue& e) {
  const std::string ph = e.string_or("ph", "");
  const long pid = long(e.number_or("pid", 0)), tid = long(e.number_or("tid", 0));
  const std::string name = e.string_or("name", "");
  const std::string cat = e.string_or("cat", "");
  const JsonValue* args = e.find("args");
  const std::uint64_t t = ns(e.number_or("ts", 0));
  if (ph == "M") {
    if (name != "thread_name" || !args) return;
    Row& r = m.rows[std::size_t(row(pid, tid))];
    r.name = args->string_or("name", r.name);
    r.worker = int(args->number_or("worker", -1));
    r.cpu = int(args->number_or("cpu", -1));
    if (const JsonValue* g = args->find("borrowed"))
      r.guest = g->type == JsonValue::boolean && g->b;
    return;
  }
  if (ph != "C") {
    auto& s = span[pid];
    if (s.first == 0 || t < s.first) s.first = t;
    s.second = std::max(s.second, t + ns(e.number_or("dur", 0)));
  }
  if (ph == "X") {
    const std::uint64_t t1 = t + ns(e.number_or("dur", 0));
    Row& r = m.rows[std::size_t(row(pid, tid))];
    if (cat == "task")
      r.tasks.push_back({t, t1, m.label_index(name), 0});
    else if (const State st = state_of(name); st != kIdle)
      r.states.push_back({t, t1, st, 0});
  } else if (ph == "B" || ph == "E") {
    const int ri = row(pid, tid);
    auto& open = mpi_open[std::size_t(ri)];
    if (ph == "B")
      open.push_back(t);
    else if (!open.empty()) {
      m.rows[std::size_t(ri)].states.push_back({open.back(), t, kMpi, 0});
      open.pop_back();
    }
  } else if (ph == "C") {
    const int p = process(pid);
    auto [base, cpu] = split_cpu_suffix(name);
    auto key = std::make_pair(p, name);
    auto it = counter_of.find(key);
    if (it == counter_of.end()) {
      m.counters.push_back(Counter{base, p, cpu, {}});
      it = counter_of.emplace(key, int(m.counters.size()) - 1).first;
    }
    double v = 0;
    if (args)
      for (const auto& a : args->items)
        if (a.type == JsonValue::number) {
          v = a.num;
          break;
        }
    m.counters[std::size_t(it->second)].samples.emplace_back(t, v);
  } else if (ph == "i" || ph == "I") {
    if (cat == "iteration" && args)
      m.iterations.push_back({t, std::uint64_t(args->number_or("iteration", 0)), process(pid)});
    if (cat == "event" && args) lending_event(*args, t, process(pid));
  }
}

}  // namespace

TraceModel load_chrome(const std::string& json_path) {
  std::ifstream in(json_path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + json_path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  Loader L;
  L.m.labels = {"End", "unlabelled"};
  try {
    JsonParser p(text);
    std::string key;
    if (!text.empty() && text.find_first_not_of(" \t\r\n") != std::string::npos &&
        text[text.find_first_not_of(" \t\r\n")] == '[') {
      p.begin_array();  // the bare-array form of the format
      while (p.next_item()) L.event(p.parse_value());
    } else {
      p.begin_object();
      while (p.next_key(key)) {
        if (key == "traceEvents") {
          p.begin_array();
          while (p.next_item()) L.event(p.parse_value());
        } else if (key == "otherData") {
          L.other_data(p.parse_value());
        } else {
          p.skip_value();
        }
      }
    }
    p.expect_end();
  } catch (const JsonError& e) {
    throw std::runtime_error(json_path + ": " + e.what());
  }
  for (auto& [pid, s] : L.span) {
    Process& pr = L.m.processes[std::size_t(L.process(pid))];
    if (pr.t1 == 0) pr.t0 = s.first, pr.t1 = s.second;
  }
  L.m.finish();
  return L.m;
}

TraceModel load_trace(const std::string& path) {
  const auto dot = path.rfind('.');
  const std::string ext = dot == std::string::npos ? "" : path.substr(dot);
  if (ext == ".prv") return load_paraver(path);
  if (ext == ".json") return load_chrome(path);
  std::ifstream in(path);
  std::string first;
  std::getline(in, first);
  if (first.rfind("#Paraver", 0) == 0) return load_paraver(path);
  return load_chrome(path);
}

}  // namespace joule::trace_format
