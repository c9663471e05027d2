#include "paraver_files.hpp"

#include <cctype>
#include <charconv>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "text.hpp"

namespace joule::trace_format {
namespace {

[[noreturn]] void bad_header(const std::string& line, const std::string& why) {
  throw std::runtime_error("not a Paraver header (" + why + "): " + core::escape_text(line, 120));
}

std::int64_t to_int(std::string_view s) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size())
    throw std::runtime_error("not an integer: '" + core::escape_text(s) + "'");
  return v;
}

// "N(a,b,c)" -> N and the list inside.
std::pair<int, std::vector<std::string>> counted_list(std::string_view s, const std::string& line) {
  const auto open = s.find('(');
  if (open == std::string_view::npos || s.back() != ')') bad_header(line, "expected N(...)");
  const int n = int(to_int(s.substr(0, open)));
  std::vector<std::string> items;
  std::string_view in = s.substr(open + 1, s.size() - open - 2);
  while (!in.empty()) {
    const auto comma = in.find(',');
    items.emplace_back(in.substr(0, comma));
    if (comma == std::string_view::npos) break;
    in.remove_prefix(comma + 1);
  }
  if (int(items.size()) != n) bad_header(line, "count does not match the list");
  return {n, items};
}

// Bounds on what a header may claim: each count becomes rows and vectors
// before a single record is read, so a 100-byte file could ask for billions.
constexpr std::int64_t kMaxPrvThreads = 65536;  // threads of all tasks together
constexpr std::int64_t kMaxPrvCpus = 65536;     // CPUs of one node

int bounded(std::string_view s, std::int64_t hi, const char* what, const std::string& line) {
  const std::int64_t v = to_int(s);
  if (v < 1 || v > hi)
    bad_header(line, std::string(what) + " " + std::to_string(v) + " out of range; allowed: 1.." +
                         std::to_string(hi));
  return int(v);
}

// "12" or "1.12" (task.thread) of a .info thread line.
void parse_thread_id(const std::string& id, InfoFile::Thread& t) {
  const auto dot = id.find('.');
  const std::string_view v(id);
  if (dot != std::string::npos) {
    t.task = int(to_int(v.substr(0, dot)));
    t.thread = int(to_int(v.substr(dot + 1)));
  } else {
    t.thread = int(to_int(v));
  }
}

}  // namespace

PrvHeader parse_prv_header(const std::string& line, const std::string& path) {
  try {
    return parse_prv_header(line);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path + ":1: " + e.what());
  }
}

PrvHeader parse_prv_header(const std::string& line) {
  if (line.rfind("#Paraver (", 0) != 0) bad_header(line, "no #Paraver");
  const auto close = line.find("):");
  if (close == std::string::npos) bad_header(line, "no date");
  PrvHeader h;
  h.date = line.substr(10, close - 10);
  std::string_view rest = std::string_view(line).substr(close + 2);
  // ftime[_unit]:nodes(...):nappl:appl...; split at ':' outside parentheses.
  std::vector<std::string_view> parts;
  int depth = 0;
  std::size_t from = 0;
  for (std::size_t i = 0; i <= rest.size(); ++i) {
    if (i < rest.size() && rest[i] == '(') ++depth;
    if (i < rest.size() && rest[i] == ')') --depth;
    if (i == rest.size() || (rest[i] == ':' && depth == 0)) {
      parts.push_back(rest.substr(from, i - from));
      from = i + 1;
    }
  }
  if (parts.size() < 4) bad_header(line, "too few fields");
  std::string_view ft = parts[0];
  double scale = 1000.0;  // no unit: microseconds
  if (ft.size() > 3 && ft.substr(ft.size() - 3) == "_ns")
    scale = 1, ft.remove_suffix(3);
  else if (ft.size() > 3 && ft.substr(ft.size() - 3) == "_us")
    scale = 1000, ft.remove_suffix(3);
  else if (ft.size() > 3 && ft.substr(ft.size() - 3) == "_ms")
    scale = 1e6, ft.remove_suffix(3);
  h.ftime_ns = std::uint64_t(double(to_int(ft)) * scale);
  for (const auto& c : counted_list(parts[1], line).second)
    h.node_cpus.push_back(bounded(c, kMaxPrvCpus, "CPUs per node", line));
  if (to_int(parts[2]) < 1) bad_header(line, "no application");
  std::int64_t threads = 0;
  for (const auto& t : counted_list(parts[3], line).second) {
    const auto colon = t.find(':');
    if (colon == std::string::npos) bad_header(line, "task without node");
    h.task_threads.push_back(
        bounded(std::string_view(t).substr(0, colon), kMaxPrvThreads, "threads of a task", line));
    h.task_node.push_back(int(to_int(std::string_view(t).substr(colon + 1))));
    if ((threads += h.task_threads.back()) > kMaxPrvThreads)
      bad_header(line, "threads of all tasks " + std::to_string(threads) +
                           " out of range; allowed: 1.." + std::to_string(kMaxPrvThreads));
  }
  return h;
}

std::string format_prv_header(const PrvHeader& h) {
  std::ostringstream os;
  os << "#Paraver (" << h.date << "):" << h.ftime_ns << "_ns:" << h.node_cpus.size() << "(";
  for (std::size_t i = 0; i < h.node_cpus.size(); ++i) os << (i ? "," : "") << h.node_cpus[i];
  os << "):1:" << h.task_threads.size() << "(";
  for (std::size_t i = 0; i < h.task_threads.size(); ++i)
    os << (i ? "," : "") << h.task_threads[i] << ":" << h.task_node[i];
  os << ")";
  return os.str();
}

std::int64_t PrvRecord::num(std::size_t i) const {
  if (i >= f.size()) throw std::runtime_error("record has too few fields");
  return to_int(f[i]);
}

bool split_prv(std::string_view line, PrvRecord& r) {
  r.f.clear();
  r.type = 0;
  if (line.empty() || line[0] == '#' || line[0] == 'c') return false;
  std::size_t from = 0;
  for (std::size_t i = 0; i <= line.size(); ++i)
    if (i == line.size() || line[i] == ':') {
      r.f.push_back(line.substr(from, i - from));
      from = i + 1;
    }
  r.type = int(to_int(r.f[0]));
  return true;
}

PcfNames read_pcf(const std::string& path) {
  PcfNames out;
  std::ifstream in(path);
  std::string line;
  enum { none, types, values } mode = none;
  std::vector<std::int64_t> block;  // types of the current EVENT_TYPE block
  while (std::getline(in, line)) {
    if (line.rfind("EVENT_TYPE", 0) == 0) {
      mode = types;
      block.clear();
      continue;
    }
    if (line.rfind("VALUES", 0) == 0) {
      mode = values;
      continue;
    }
    if (line.empty() || !(std::isdigit(static_cast<unsigned char>(line[0])) || line[0] == '-')) {
      if (!line.empty()) mode = none;
      continue;
    }
    std::istringstream ls(line);
    std::int64_t a = 0, b = 0;
    std::string name;
    if (mode == types && ls >> a >> b) {
      std::getline(ls >> std::ws, name);
      out.types[b] = name;
      block.push_back(b);
    } else if (mode == values && ls >> a) {
      std::getline(ls >> std::ws, name);
      for (auto t : block) out.values[t][a] = name;
    }
  }
  return out;
}

InfoFile read_info(const std::string& path) {
  InfoFile info;
  std::ifstream in(path);
  if (!in) return info;
  info.present = true;
  InfoFile::Proc single;
  bool merged = false;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = line.substr(0, eq);
    std::istringstream v(line.substr(eq + 1));
    if (key == "pid")
      v >> single.pid;
    else if (key == "rank")
      v >> single.rank;
    else if (key == "host")
      v >> single.host;
    else if (key == "start_ns")
      v >> single.start_ns;
    else if (key == "stop_ns")
      v >> single.stop_ns;
    else if (key == "process") {
      InfoFile::Proc p;
      v >> p.task >> p.rank >> p.pid >> p.host >> p.start_ns >> p.stop_ns >> p.offset_ns;
      info.procs.push_back(p);
      merged = true;
    } else if (key == "thread") {
      InfoFile::Thread t;
      std::string id;
      int guest = 0;
      v >> id >> t.worker >> t.cpu;
      if (v >> guest) t.guest = guest != 0;
      try {
        parse_thread_id(id, t);
      } catch (const std::runtime_error&) {
        throw std::runtime_error(path + ":" + std::to_string(n) + ": bad thread id '" +
                                 core::escape_text(id) +
                                 "': expected THREAD or TASK.THREAD (integers)");
      }
      info.threads.push_back(t);
    }
  }
  if (!merged) info.procs.push_back(single);
  return info;
}

void write_info(const InfoFile& info, const std::string& path) {
  std::ofstream os(path);
  os << "format=joule-paraver 1\n";
  // process=<task> <rank> <pid> <host> <start_ns> <stop_ns> <offset_ns in the file>
  for (const auto& p : info.procs)
    os << "process=" << p.task << " " << p.rank << " " << p.pid << " " << p.host << " "
       << p.start_ns << " " << p.stop_ns << " " << p.offset_ns << "\n";
  for (const auto& t : info.threads)
    os << "thread=" << t.task << "." << t.thread << " " << t.worker << " " << t.cpu << " "
       << int(t.guest) << "\n";
  if (!os) throw std::runtime_error("cannot write " + path);
}

std::string sibling(const std::string& prv_path, const std::string& ext) {
  const auto dot = prv_path.rfind('.');
  const auto slash = prv_path.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
    return prv_path + ext;
  return prv_path.substr(0, dot) + ext;
}

}  // namespace joule::trace_format
