#include "event_test_util.hpp"

#include <algorithm>
#include <sstream>

#include "json.hpp"
#include "trace_events.hpp"

namespace trace_test {
namespace {

namespace tf = joule::trace_format;

struct Pcf {
  std::map<long long, std::string> types;
  std::map<long long, std::map<long long, std::string>> values;
};

// EVENT_TYPE blocks: "0 <type> <name>", then optionally VALUES "<v> <name>".
Pcf read_pcf(const std::string& path) {
  Pcf out;
  std::istringstream in(read_file(path));
  std::string line;
  long long type = -1;
  bool values = false;
  while (std::getline(in, line)) {
    if (line == "EVENT_TYPE") {
      values = false;
      continue;
    }
    if (line == "VALUES") {
      values = true;
      continue;
    }
    std::istringstream ls(line);
    long long a = 0, b = 0;
    std::string rest;
    if (!values && ls >> a >> b && a == 0) {
      std::getline(ls, rest);
      type = b;
      out.types[type] = rest.substr(rest.find_first_not_of(' '));
    } else if (values && std::istringstream(line) >> a) {
      std::istringstream vs(line);
      vs >> a;
      std::getline(vs, rest);
      out.values[type][a] = rest.empty() ? "" : rest.substr(rest.find_first_not_of(' '));
    } else if (line.empty()) {
      values = false;
    }
  }
  return out;
}

std::string counter_track(std::string name) {
  const std::string suffix = " (x1000)";
  if (name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix)
    name.resize(name.size() - suffix.size());
  return name;
}

}  // namespace

Events load_prv_events(const std::string& prv, const std::string& pcf_path) {
  Events ev;
  const Pcf pcf = read_pcf(pcf_path);
  const PrvFile f = read_prv(prv);
  std::map<std::pair<long long, long long>, std::uint64_t> pred;  // per thread
  for (const PrvLine& l : f.lines) {
    if (l.type == 1) {
      ev.mpi_states += l.f[7] == tf::kMpi;
      continue;
    }
    const auto thread = std::make_pair(l.f[3], l.f[4]);
    for (std::size_t i = 6; i + 1 < l.f.size(); i += 2) {
      const long long type = l.f[i], value = l.f[i + 1];
      if (type == tf::kTypeIteration) ++ev.iterations;
      if (type == tf::kTypeTaskCreateId) ev.created[std::uint64_t(value)] = double(l.f[5]);
      if (type >= tf::kTypeCounterBase)
        ev.counters[counter_track(pcf.types.count(type) ? pcf.types.at(type) : "?")].push_back(
            double(value) / tf::kCounterScale);
      if (type <= tf::kTypeEventBase || type >= tf::kTypeEventBase + tf::kNumEvents) continue;
      const auto e = std::uint32_t(type - tf::kTypeEventBase);
      if (e == tf::kEvMpiCall) {
        if (value == 0) {
          ++ev.mpi_leaves;
          continue;
        }
        const auto& names =
            pcf.values.count(type) ? pcf.values.at(type) : std::map<long long, std::string>{};
        ev.mpi_calls.push_back(names.count(value) ? names.at(value) : "?");
      }
      ++ev.by_event[e];
      if (e == tf::kEvDependencyFrom) pred[thread] = std::uint64_t(value);
      if (e == tf::kEvDependency)
        ev.edges.push_back({std::exchange(pred[thread], 0), std::uint64_t(value)});
    }
  }
  return ev;
}

Events load_json_events(const std::string& path) {
  Events ev;
  const std::string text = read_file(path);
  EXPECT_EQ(tf::json_error(text), "");
  tf::JsonParser p(text);
  std::string key;
  std::map<std::string, std::vector<std::pair<double, double>>> samples;
  p.begin_object();
  while (p.next_key(key)) {
    if (key != "traceEvents") {
      p.skip_value();
      continue;
    }
    p.begin_array();
    while (p.next_item()) {
      const tf::JsonValue e = p.parse_value();
      const std::string ph = e.string_or("ph", ""), cat = e.string_or("cat", "");
      const tf::JsonValue* args = e.find("args");
      const double ts = e.number_or("ts", 0);
      if (ph == "i" && cat == "iteration") ++ev.iterations;
      if (ph == "i" && cat == "create" && args)
        ev.created[std::uint64_t(args->number_or("id", 0))] = ts;
      if (ph == "C" && args)
        samples[e.string_or("name", "")].push_back({ts, args->number_or("value", 0)});
      if (ph == "B" && cat == "mpi") ev.mpi_calls.push_back(e.string_or("name", ""));
      if (ph == "B" && cat == "mpi") ++ev.by_event[tf::kEvMpiCall];
      if (ph == "E" && cat == "mpi") ++ev.mpi_leaves;
      if (ph == "X" && cat == "state" && e.string_or("name", "") == "MPI") ++ev.mpi_states;
      if (ph != "i" || cat != "event" || !args) continue;
      const auto id = std::uint32_t(args->number_or("event", 0));
      ++ev.by_event[id];
      if (id == tf::kEvDependency)
        ev.edges.push_back(
            {std::uint64_t(args->number_or("pred", 0)), std::uint64_t(args->number_or("succ", 0))});
    }
  }
  for (auto& [name, v] : samples) {
    std::stable_sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.first < b.first; });
    for (const auto& s : v) ev.counters[name].push_back(s.second);
  }
  return ev;
}

Events load_events(const TempDir& dir) {
  const auto prv = dir.files(".prv");
  const auto json = dir.files(".json");
  EXPECT_EQ(prv.size() + json.size(), 1u) << "one trace expected in " << dir.path();
  if (!prv.empty()) return load_prv_events(prv[0], prv[0].substr(0, prv[0].size() - 4) + ".pcf");
  if (!json.empty()) return load_json_events(json[0]);
  return {};
}

}  // namespace trace_test
