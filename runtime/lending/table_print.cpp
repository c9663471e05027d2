#include "table_print.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "text.hpp"

namespace joule::lending {
namespace {

std::string pid_label(pid_t pid, const std::vector<ProcInfo>& procs) {
  if (pid == 0) return "-";
  std::string s = std::to_string(pid);
  for (const auto& p : procs)
    if (p.pid == pid) {
      if (!p.comm.empty()) s += " (" + p.comm + ")";
      if (!p.alive) s += " [dead]";
    }
  return s;
}

}  // namespace

void print_table(CpuTable& t, std::ostream& out) {
  const auto procs = t.registry().processes();
  char line[256];
  out << "CPU table " << t.name() << ": " << t.ncpus() << " CPUs, " << procs.size()
      << " process(es), " << t.idle_hint() << " idle\n";
  std::snprintf(line, sizeof line, "%5s  %-9s  %-28s  %s\n", "CPU", "STATE", "OWNER", "GUEST");
  out << line;
  for (int c = 0; c < t.ncpus(); ++c) {
    const CpuWord w = t.load(c);
    if (w.state == CpuState::Disabled) continue;
    std::snprintf(line, sizeof line, "%5d  %-9s  %-28s  %s\n", c, state_name(w.state),
                  pid_label(w.owner, procs).c_str(), pid_label(w.guest, procs).c_str());
    out << line;
  }
  int disabled = 0;
  for (int c = 0; c < t.ncpus(); ++c) disabled += t.load(c).state == CpuState::Disabled;
  if (disabled) out << "  (" << disabled << " CPU(s) disabled: owned by no joule process)\n";
  for (const auto& p : procs) {
    const std::string list = core::format_cpu_list(t.owned_by(p.pid));
    std::snprintf(line, sizeof line, "process %-8d %-16s %-6s %-5s owns [%s]", int(p.pid),
                  p.comm.c_str(), p.mode == 1 ? "local" : "node", p.alive ? "alive" : "dead",
                  list.c_str());
    out << line;
    // CPUs taken back from a borrower that ignored the claim (stopped, hung).
    if (p.revoked) out << " revoked " << p.revoked;
    out << "\n";
  }
}

}  // namespace joule::lending
