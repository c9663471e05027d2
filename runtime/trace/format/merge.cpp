#include "merge.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <queue>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "json.hpp"
#include "paraver_files.hpp"
#include "pcf_text.hpp"
#include "trace_events.hpp"

namespace joule::trace_format {
namespace {

// Names -> merged ids; the first `fixed` names keep their ids everywhere.
struct Union {
  std::vector<std::string> names;
  std::map<std::string, std::int64_t> ids;
  std::int64_t add(const std::string& n) {
    auto it = ids.find(n);
    if (it != ids.end()) return it->second;
    names.push_back(n);
    return ids[n] = std::int64_t(names.size()) - 1;
  }
};

struct Input {
  std::string path;
  PrvHeader h;
  InfoFile::Proc proc;
  std::vector<InfoFile::Thread> threads;
  std::ifstream in;
  std::string line;
  PrvRecord rec;
  std::uint64_t key = 0;
  int prio = 0;
  std::uint64_t offset = 0;
  int task = 0, node = 0, cpu_offset = 0;
  std::map<std::int64_t, std::int64_t> labels, mpi, counter_types;

  bool advance() {
    while (std::getline(in, line)) {
      if (!split_prv(line, rec) || (rec.type != 1 && rec.type != 2)) continue;
      key = std::uint64_t(rec.num(5)) + offset;
      prio = rec.type == 1 ? 0 : 1;
      return true;
    }
    return false;
  }

  std::string rewrite() const {
    const std::int64_t cpu = rec.num(1);
    std::string out = std::to_string(rec.type) + ":" + std::to_string(cpu ? cpu + cpu_offset : 0) +
                      ":1:" + std::to_string(task) + ":" + std::string(rec.f[4]) + ":";
    if (rec.type == 1)
      return out + std::to_string(rec.num(5) + std::int64_t(offset)) + ":" +
             std::to_string(rec.num(6) + std::int64_t(offset)) + ":" + std::string(rec.f[7]);
    out += std::to_string(rec.num(5) + std::int64_t(offset));
    for (std::size_t i = 6; i + 1 < rec.f.size(); i += 2) {
      std::int64_t type = rec.num(i), value = rec.num(i + 1);
      auto map = [](const std::map<std::int64_t, std::int64_t>& m, std::int64_t v) {
        auto it = m.find(v);
        return it == m.end() ? v : it->second;
      };
      if (type == kTypeTaskLabel || type == kTypeTaskCreate)
        value = map(labels, value);
      else if (type == kTypeEventBase + kEvMpiCall)
        value = map(mpi, value);
      else if (type >= kTypeCounterBase)
        type = map(counter_types, type);
      out.append(":").append(std::to_string(type)).append(":").append(std::to_string(value));
    }
    return out;
  }
};

void open_input(Input& in, Union& labels, Union& mpi, Union& counters) {
  in.in.open(in.path);
  if (!in.in) throw std::runtime_error("cannot open " + in.path);
  std::string header;
  std::getline(in.in, header);
  in.h = parse_prv_header(header, in.path);
  if (in.h.task_threads.size() != 1)
    throw std::runtime_error(in.path + ": already merged (" +
                             std::to_string(in.h.task_threads.size()) + " processes)");
  InfoFile info = read_info(sibling(in.path, ".info"));
  if (!info.procs.empty()) in.proc = info.procs[0];
  in.threads = info.threads;
  PcfNames pcf = read_pcf(sibling(in.path, ".pcf"));
  for (const auto& [v, name] : pcf.values[kTypeTaskLabel]) in.labels[v] = labels.add(name);
  for (const auto& [v, name] : pcf.values[kTypeEventBase + kEvMpiCall]) in.mpi[v] = mpi.add(name);
  for (const auto& [t, name] : pcf.types) {
    if (t < kTypeCounterBase) continue;
    std::string n = name;
    if (n.size() > 8 && n.substr(n.size() - 8) == " (x1000)") n.resize(n.size() - 8);
    in.counter_types[t] = kTypeCounterBase + counters.add(n);
  }
}

}  // namespace

std::vector<std::string> merge_paraver(const std::vector<std::string>& paths,
                                       const std::string& out_base) {
  if (paths.empty()) throw std::runtime_error("merge: no input traces");
  Union labels, mpi, counters;
  labels.add("End"), labels.add("unlabelled"), mpi.add("End");
  std::vector<std::unique_ptr<Input>> ins;
  for (const auto& p : paths) {
    ins.push_back(std::make_unique<Input>());
    ins.back()->path = p;
    open_input(*ins.back(), labels, mpi, counters);
  }
  std::stable_sort(ins.begin(), ins.end(), [](const auto& a, const auto& b) {
    return std::make_tuple(a->proc.rank < 0, a->proc.rank, a->proc.pid) <
           std::make_tuple(b->proc.rank < 0, b->proc.rank, b->proc.pid);
  });
  std::uint64_t first = UINT64_MAX;
  for (const auto& in : ins) first = std::min(first, in->proc.start_ns);
  PrvHeader h;
  h.date = ins[0]->h.date;
  std::vector<std::string> hosts;
  InfoFile info;
  for (std::size_t i = 0; i < ins.size(); ++i) {
    Input& in = *ins[i];
    in.task = int(i) + 1;
    in.offset = in.proc.start_ns - first;
    auto host = std::find(hosts.begin(), hosts.end(), in.proc.host);
    in.node = int(host - hosts.begin());
    if (host == hosts.end()) hosts.push_back(in.proc.host), h.node_cpus.push_back(0);
    const int cpus = in.h.node_cpus.empty() ? 1 : in.h.node_cpus[0];
    h.node_cpus[std::size_t(in.node)] = std::max(h.node_cpus[std::size_t(in.node)], cpus);
    h.task_threads.push_back(in.h.task_threads[0]);
    h.task_node.push_back(in.node + 1);
    h.ftime_ns = std::max(h.ftime_ns, in.offset + in.h.ftime_ns);
    InfoFile::Proc p = in.proc;
    p.task = in.task;
    p.offset_ns = in.offset;
    if (p.stop_ns <= p.start_ns) p.stop_ns = p.start_ns + in.h.ftime_ns;
    info.procs.push_back(p);
    for (auto t : in.threads) {
      t.task = in.task;
      info.threads.push_back(t);
    }
  }
  for (auto& in : ins) {
    int off = 0;
    for (int n = 0; n < in->node; ++n) off += h.node_cpus[std::size_t(n)];
    in->cpu_offset = off;
  }

  std::ofstream out(out_base + ".prv");
  out << format_prv_header(h) << "\n";
  using Head = std::tuple<std::uint64_t, int, std::size_t>;
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heap;
  for (std::size_t i = 0; i < ins.size(); ++i)
    if (ins[i]->advance()) heap.emplace(ins[i]->key, ins[i]->prio, i);
  while (!heap.empty()) {
    const std::size_t i = std::get<2>(heap.top());
    heap.pop();
    out << ins[i]->rewrite() << "\n";
    if (ins[i]->advance()) heap.emplace(ins[i]->key, ins[i]->prio, i);
  }
  if (!out.flush()) throw std::runtime_error("cannot write " + out_base + ".prv");

  std::ofstream(out_base + ".pcf") << pcf_text(labels.names, mpi.names, counters.names);
  std::ofstream row(out_base + ".row");
  int total = 0;
  for (int c : h.node_cpus) total += c;
  row << "LEVEL CPU SIZE " << total << "\n";
  for (std::size_t n = 0; n < hosts.size(); ++n)
    for (int c = 0; c < h.node_cpus[n]; ++c) row << hosts[n] << " cpu " << c << "\n";
  row << "\nLEVEL NODE SIZE " << hosts.size() << "\n";
  for (const auto& host : hosts) row << host << "\n";
  row << "\nLEVEL THREAD SIZE " << info.threads.size() << "\n";
  for (const auto& t : info.threads) {
    const auto& p = info.procs[std::size_t(t.task - 1)];
    row << (p.rank >= 0 ? "rank " + std::to_string(p.rank) : "pid " + std::to_string(p.pid))
        << (t.worker >= 0 ? " worker " + std::to_string(t.worker) + " (cpu " +
                                std::to_string(t.cpu) + (t.guest ? ", borrowed)" : ")")
                          : " thread " + std::to_string(t.thread))
        << "\n";
  }
  write_info(info, out_base + ".info");
  return {out_base + ".prv", out_base + ".pcf", out_base + ".row", out_base + ".info"};
}

namespace {

// Two traces from one process (two runtime runs): give the second a new pid
// so the viewers keep them apart. Rare, so re-serialising is fine.
void renumber(std::string& events, JsonValue& other, long pid) {
  const std::string text = "[" + events + "]";
  JsonParser p(text);
  std::string out;
  p.begin_array();
  while (p.next_item()) {
    JsonValue ev = p.parse_value();
    for (std::size_t i = 0; i < ev.keys.size(); ++i)
      if (ev.keys[i] == "pid") ev.items[i].num = double(pid);
    out += (out.empty() ? "\n" : ",\n") + to_json(ev);
  }
  events = out;
  for (std::size_t i = 0; i < other.keys.size(); ++i)
    if (other.keys[i] == "pid") other.items[i].num = double(pid);
}

}  // namespace

void merge_chrome(const std::vector<std::string>& paths, const std::string& out_path) {
  struct Part {
    int rank = -1;
    long pid = 0;
    std::string events;  // the inside of traceEvents
    JsonValue other;
  };
  std::vector<Part> parts;
  for (const auto& path : paths) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    Part part;
    try {
      JsonParser p(text);
      p.begin_object();
      std::string key;
      while (p.next_key(key)) {
        const std::size_t from = p.offset();
        if (key == "otherData")
          part.other = p.parse_value();
        else
          p.skip_value();
        if (key != "traceEvents") continue;
        std::string_view body(text.data() + from, p.offset() - from);
        body.remove_prefix(std::min(body.size(), body.find('[') + 1));
        body.remove_suffix(body.size() - body.rfind(']'));
        part.events = std::string(body);
      }
      p.expect_end();
    } catch (const JsonError& e) {
      throw std::runtime_error(path + ": " + e.what());
    }
    part.rank = int(part.other.number_or("rank", -1));
    part.pid = long(part.other.number_or("pid", 0));
    parts.push_back(std::move(part));
  }
  std::stable_sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) {
    return std::make_tuple(a.rank < 0, a.rank, a.pid) < std::make_tuple(b.rank < 0, b.rank, b.pid);
  });
  std::set<long> pids;
  long next_pid = 0;
  for (const Part& p : parts) next_pid = std::max(next_pid, p.pid + 1);
  for (Part& p : parts)
    if (!pids.insert(p.pid).second) renumber(p.events, p.other, p.pid = next_pid++);
  std::ofstream out(out_path);
  out << "{\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"joule_format\":1,\"merged\":[";
  for (std::size_t i = 0; i < parts.size(); ++i) out << (i ? "," : "") << to_json(parts[i].other);
  out << "]},\n\"traceEvents\":[";
  bool first = true;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    out << (first ? "\n" : ",\n")
        << "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" << parts[i].pid
        << ",\"args\":{\"sort_index\":" << i << "}}";
    first = false;
    if (parts[i].events.find_first_not_of(" \t\r\n") != std::string::npos)
      out << "," << parts[i].events;
  }
  out << "\n]}\n";
  if (!out.flush()) throw std::runtime_error("cannot write " + out_path);
}

}  // namespace joule::trace_format
