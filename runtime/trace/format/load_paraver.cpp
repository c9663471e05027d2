// Paraver .prv (+ .pcf, .row, .info) -> TraceModel. Tasks are rebuilt from
// the task label / id events: a start pushes, and an event naming the task
// below the top (or value 0) ends the top one.
#include <fstream>
#include <map>
#include <stdexcept>

#include "paraver_files.hpp"
#include "trace_events.hpp"
#include "trace_model.hpp"

namespace joule::trace_format {
namespace {

struct Open {
  std::uint32_t label;
  std::int64_t id;
  std::uint64_t t;
};

struct Loader {
  TraceModel m;
  PcfNames pcf;
  std::map<std::pair<int, int>, int> row_of;  // (task, thread) -> row
  std::vector<std::vector<Open>> stacks;
  std::map<std::int64_t, int> counter_of;  // Paraver type -> counter (per process below)

  int row(int task, int thread) {
    auto it = row_of.find({task, thread});
    if (it != row_of.end()) return it->second;
    Row r;
    r.process = task - 1;
    r.name = "task " + std::to_string(task) + " thread " + std::to_string(thread);
    m.rows.push_back(r);
    stacks.emplace_back();
    return row_of[{task, thread}] = int(m.rows.size()) - 1;
  }

  void task_event(int ri, std::uint64_t t, std::uint32_t label, std::int64_t id) {
    auto& st = stacks[std::size_t(ri)];
    const bool ends = label == 0 || (st.size() >= 2 && st[st.size() - 2].id == id && id != 0);
    if (ends) {
      if (st.empty()) return;
      m.rows[std::size_t(ri)].tasks.push_back(
          {st.back().t, t, st.back().label, std::uint32_t(st.size() - 1)});
      st.pop_back();
    } else {
      st.push_back({label, id, t});
    }
  }

  void counter(int ri, std::uint64_t t, std::int64_t type, std::int64_t value) {
    const int process = m.rows[std::size_t(ri)].process;
    const std::int64_t key = type * 4096 + process;
    auto it = counter_of.find(key);
    if (it == counter_of.end()) {
      std::string name =
          pcf.types.count(type) ? pcf.types[type] : "counter " + std::to_string(type);
      if (name.size() > 8 && name.substr(name.size() - 8) == " (x1000)")
        name.resize(name.size() - 8);
      auto [base, cpu] = split_cpu_suffix(name);
      m.counters.push_back(Counter{base, process, cpu, {}});
      it = counter_of.emplace(key, int(m.counters.size()) - 1).first;
    }
    m.counters[std::size_t(it->second)].samples.emplace_back(t, double(value) / kCounterScale);
  }

  void event(const PrvRecord& r, int ri) {
    const std::uint64_t t = std::uint64_t(r.num(5));
    std::int64_t label = -1, id = 0;
    for (std::size_t i = 6; i + 1 < r.f.size(); i += 2) {
      const std::int64_t type = r.num(i), value = r.num(i + 1);
      if (type == kTypeTaskLabel)
        label = value;
      else if (type == kTypeTaskId)
        id = value;
      else if (type == kTypeIteration)
        m.iterations.push_back({t, std::uint64_t(value), m.rows[std::size_t(ri)].process});
      else if (type >= kTypeCounterBase)
        counter(ri, t, type, value);
      else if (type >= kTypeEventBase + kEvCpuLend && type <= kTypeEventBase + kEvCpuReturn)
        m.lending.push_back({t, m.rows[std::size_t(ri)].process, int(value) - 1,
                             std::uint32_t(type - kTypeEventBase)});
    }
    if (label >= 0) task_event(ri, t, std::uint32_t(label), id);
  }
};

}  // namespace

TraceModel load_paraver(const std::string& prv_path) {
  std::ifstream in(prv_path);
  if (!in) throw std::runtime_error("cannot open " + prv_path);
  Loader L;
  L.pcf = read_pcf(sibling(prv_path, ".pcf"));
  const auto& label_values = L.pcf.values[kTypeTaskLabel];
  L.m.labels = {"End", "unlabelled"};
  for (const auto& [v, name] : label_values) {
    if (v < 0 || v > 1000000) continue;
    if (L.m.labels.size() <= std::size_t(v)) L.m.labels.resize(std::size_t(v) + 1);
    L.m.labels[std::size_t(v)] = name;
  }
  for (std::size_t i = 0; i < L.m.labels.size(); ++i)
    if (L.m.labels[i].empty()) L.m.labels[i] = "label " + std::to_string(i);

  std::string line;
  if (!std::getline(in, line)) throw std::runtime_error(prv_path + ": empty file");
  const PrvHeader h = parse_prv_header(line, prv_path);
  const InfoFile info = read_info(sibling(prv_path, ".info"));
  for (std::size_t t = 0; t < h.task_threads.size(); ++t) {
    Process p;
    p.t1 = h.ftime_ns;
    if (t < info.procs.size()) {
      const auto& ip = info.procs[t];
      p.rank = ip.rank, p.pid = ip.pid, p.host = ip.host;
      p.t0 = ip.offset_ns;
      p.t1 = ip.offset_ns + (ip.stop_ns - ip.start_ns);
    }
    L.m.processes.push_back(p);
    for (int th = 1; th <= h.task_threads[t]; ++th) L.row(int(t) + 1, th);
  }
  for (const auto& it : info.threads) {
    Row& r = L.m.rows[std::size_t(L.row(it.task, it.thread))];
    r.worker = it.worker, r.cpu = it.cpu, r.guest = it.guest;
    r.name = it.worker >= 0
                 ? "worker " + std::to_string(it.worker) + " (cpu " + std::to_string(it.cpu) + ")"
                 : "thread " + std::to_string(it.thread);
  }
  PrvRecord r;
  for (long n = 2; std::getline(in, line); ++n) {
    try {
      if (!split_prv(line, r) || (r.type != 1 && r.type != 2)) continue;
      const int ri = L.row(int(r.num(3)), int(r.num(4)));
      if (r.type == 1) {
        const auto st = std::uint32_t(r.num(7));
        if (st != kIdle && st != kRunning)
          L.m.rows[std::size_t(ri)].states.push_back(
              {std::uint64_t(r.num(5)), std::uint64_t(r.num(6)), st, 0});
      } else {
        L.event(r, ri);
      }
    } catch (const std::exception& e) {
      throw std::runtime_error(prv_path + ":" + std::to_string(n) + ": " + e.what());
    }
  }
  L.m.t0 = 0;
  L.m.t1 = h.ftime_ns;
  L.m.finish();
  return L.m;
}

}  // namespace joule::trace_format
