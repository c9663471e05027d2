// joule-ctl numa: the machine's NUMA nodes (CPUs, memory, free memory) from
// sysfs, and with --pid where a running process's memory is, per node and
// per memory policy, from /proc/PID/numa_maps (the kernel's
// Documentation/admin-guide/mm/numa_memory_policy.rst and proc(5)). A joule
// program's own view (worker state, placed data, tasks per node) is its
// JOULE_REPORT; this one works from outside, on any process.
#include <CLI/CLI.hpp>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "cli_parse.hpp"
#include "commands.hpp"

namespace joule::ctl {
namespace {

namespace fs = std::filesystem;

struct NodeInfo {
  std::string cpus;
  double total_mib = 0;
  double free_mib = 0;
};

std::string first_line(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  return line;
}

// "Node 0 MemTotal:       16380740 kB"
double meminfo_mib(const fs::path& p, const std::string& key) {
  std::ifstream in(p);
  for (std::string line; std::getline(in, line);) {
    const auto at = line.find(key + ":");
    if (at == std::string::npos) continue;
    return std::stod(line.substr(at + key.size() + 1)) / 1024.0;
  }
  return 0;
}

std::map<int, NodeInfo> read_nodes(const fs::path& root) {
  std::map<int, NodeInfo> nodes;
  const fs::path dir = root / "sys/devices/system/node";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("node", 0) != 0 || name.size() == 4 ||
        name.find_first_not_of("0123456789", 4) != std::string::npos)
      continue;
    NodeInfo& n = nodes[std::stoi(name.substr(4))];
    n.cpus = first_line(e.path() / "cpulist");
    n.total_mib = meminfo_mib(e.path() / "meminfo", "MemTotal");
    n.free_mib = meminfo_mib(e.path() / "meminfo", "MemFree");
  }
  return nodes;
}

// MiB per node and policy ("default", "prefer", "bind", "interleave", ...).
using Usage = std::map<int, std::map<std::string, double>>;

bool read_numa_maps(const fs::path& file, Usage& usage) {
  std::ifstream in(file);
  if (!in) return false;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string address, policy, w;
    words >> address >> policy;
    policy = policy.substr(0, policy.find_first_of(":="));
    double page_kib = 4;
    std::map<int, double> pages;
    while (words >> w) {
      if (w.rfind("kernelpagesize_kB=", 0) == 0) page_kib = std::stod(w.substr(18));
      if (w.size() > 1 && w[0] == 'N' && std::isdigit(static_cast<unsigned char>(w[1])) &&
          w.find('=') != std::string::npos)
        pages[std::stoi(w.substr(1))] += std::stod(w.substr(w.find('=') + 1));
    }
    for (const auto& [node, n] : pages) usage[node][policy] += n * page_kib / 1024.0;
  }
  return true;
}

int print_numa(const std::string& root_dir, int pid) {
  const fs::path root = root_dir.empty() ? fs::path("/") : fs::path(root_dir);
  const auto nodes = read_nodes(root);
  if (nodes.empty()) {
    std::printf("no NUMA nodes under %s (one memory node, or no sysfs)\n",
                (root / "sys/devices/system/node").c_str());
  }
  for (const auto& [id, n] : nodes)
    std::printf("node %d: cpus %s, memory %.0f MiB, free %.0f MiB\n", id, n.cpus.c_str(),
                n.total_mib, n.free_mib);
  if (pid <= 0) return kOk;
  Usage usage;
  const fs::path maps = root / "proc" / std::to_string(pid) / "numa_maps";
  if (!read_numa_maps(maps, usage)) {
    std::fprintf(stderr, "joule-ctl numa: cannot read %s (no such process, or not yours)\n",
                 maps.c_str());
    return kFailed;
  }
  for (const auto& [node, by_policy] : usage) {
    double all = 0;
    for (const auto& [policy, mib] : by_policy) all += mib;
    std::printf("pid %d node %d: %.1f MiB (", pid, node, all);
    const char* sep = "";
    for (const auto& [policy, mib] : by_policy) {
      std::printf("%s%s %.1f", sep, policy.c_str(), mib);
      sep = ", ";
    }
    std::printf(")\n");
  }
  return kOk;
}

}  // namespace

int cmd_numa(int argc, char** argv) {
  CLI::App app(
      "Prints the NUMA nodes (CPUs, memory, free memory) and, with --pid, where a process's "
      "memory is per node and memory policy (MiB).",
      "joule-ctl numa");
  int pid = 0;
  std::string root;
  app.add_option("--pid", pid, "a process whose memory to show (its /proc/PID/numa_maps)");
  app.add_option("--root", root, "read sys/ and proc/ below this directory (tests; default /)");
  if (int rc = kOk; !parse_options(app, argc, argv, &rc)) return rc;
  return print_numa(root, pid);
}

}  // namespace joule::ctl
