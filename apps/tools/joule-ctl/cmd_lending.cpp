// joule-ctl show | drom | clean: the node's CPU lending table (LeWI / DROM).
// Built from the self-contained table sources of runtime/lending, so it works
// without starting a runtime and on tables left by dead processes.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "cpu_table.hpp"
#include "table_print.hpp"
#include "text.hpp"

namespace joule::ctl {
namespace {

using lending::CpuTable;
using lending::TableError;

// The table the runtime would use: JOULE_LENDING_SHM (or its old name
// JOULE_LEWI_SHM, which the runtime still accepts), else the user's default.
std::string default_table() {
  for (const char* key : {"JOULE_LENDING_SHM", "JOULE_LEWI_SHM"})
    if (const char* s = std::getenv(key); s && *s) return CpuTable::check_name(s);
  return CpuTable::default_name();
}

// Every segment in /dev/shm that looks like a joule CPU table of this user,
// and the one JOULE_LENDING_SHM names (any name) when it exists.
std::vector<std::string> user_tables() {
  std::vector<std::string> out;
  DIR* d = ::opendir("/dev/shm");
  if (!d) return out;
  while (const dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (n.rfind("joule-cpus-", 0) != 0 && n.rfind("joule-test-", 0) != 0) continue;
    struct stat st {};
    if (::stat(("/dev/shm/" + n).c_str(), &st) == 0 && st.st_uid == ::geteuid())
      out.push_back("/" + n);
  }
  ::closedir(d);
  const std::string custom = default_table();
  struct stat st {};
  if (std::find(out.begin(), out.end(), custom) == out.end() &&
      ::stat(("/dev/shm" + custom).c_str(), &st) == 0)
    out.push_back(custom);
  return out;
}

// --timeout's milliseconds: a whole number 0..3600000.
unsigned parse_timeout_ms(const std::string& v) {
  unsigned ms = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), ms);
  if (v.empty() || ec != std::errc() || p != v.data() + v.size() || ms > 3600000)
    throw std::invalid_argument("--timeout " + core::escape_text(v) +
                                ": expected milliseconds, an integer 0..3600000");
  return ms;
}

// "0-3,6" -> {0,1,2,3,6}, "none" -> {}; false on anything else.
bool parse_cpus(const std::string& text, std::vector<int>& out) {
  if (text == "none") {
    out.clear();
    return true;
  }
  try {
    out = core::parse_cpu_list(text);
  } catch (const std::invalid_argument&) {
    return false;
  }
  return out.empty() || out.back() <= 4095;
}

bool take_shm(const std::string& a, int& i, int argc, char** argv, std::string& shm) {
  if (a != "--shm") return false;
  if (i + 1 >= argc) throw std::invalid_argument("--shm needs a name");
  shm = CpuTable::check_name(argv[++i]);
  return true;
}

int show_one(const std::string& name) {
  try {
    auto t = CpuTable::attach_existing(name);
    if (!t) {
      std::printf("no CPU table %s: no joule process with JOULE_LENDING=node runs here\n",
                  name.c_str());
      return kOk;
    }
    lending::print_table(*t, std::cout);
    return kOk;
  } catch (const TableError& e) {
    std::fprintf(stderr, "joule-ctl show: %s\n", e.what());
    return kFailed;
  }
}

}  // namespace

int cmd_show(int argc, char** argv) {
  std::string shm;
  bool all = false;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--help" || a == "-h") {
        std::printf(
            "usage: joule-ctl show [--shm NAME | --all]\n\n"
            "Prints the node's CPU lending table: for each CPU in use its state (busy, idle,\n"
            "borrowed, claimed), owner and guest process; then each registered process.\n"
            "  --shm NAME  the table to show (default: $JOULE_LENDING_SHM, else /joule-cpus-UID)\n"
            "  --all       every joule table of this user in /dev/shm (/joule-cpus-*,\n"
            "              /joule-test-* and the one $JOULE_LENDING_SHM names)\n");
        return kOk;
      }
      if (a == "--all")
        all = true;
      else if (!take_shm(a, i, argc, argv, shm))
        throw std::invalid_argument("unknown option " + core::escape_text(a));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "joule-ctl show: %s\n", e.what());
    return kUsage;
  }
  if (!all) return show_one(shm.empty() ? default_table() : shm);
  int rc = kOk;
  const auto names = user_tables();
  if (names.empty()) std::printf("no joule CPU tables in /dev/shm\n");
  for (const auto& n : names) rc |= show_one(n);
  return rc;
}

int cmd_drom(int argc, char** argv) {
  std::string shm;
  unsigned timeout_ms = 5000;
  std::vector<std::string> pos;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--help" || a == "-h") {
        std::printf(
            "usage: joule-ctl drom PID CPUS [--shm NAME] [--timeout MS]\n\n"
            "Sets the CPUs that process PID owns (DROM), e.g. `joule-ctl drom 1234 0-3,6`\n"
            "or `joule-ctl drom 1234 none`. The process applies the new mask at its next\n"
            "task boundary; this waits for that (--timeout 0: do not wait). A CPU owned\n"
            "by another process must first be removed from that process's mask.\n");
        return kOk;
      }
      if (a == "--timeout") {
        if (i + 1 >= argc) throw std::invalid_argument("--timeout needs milliseconds");
        timeout_ms = parse_timeout_ms(argv[++i]);
      } else if (!take_shm(a, i, argc, argv, shm)) {
        pos.push_back(a);
      }
    }
    if (pos.size() != 2) throw std::invalid_argument("expected PID and CPUS");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "joule-ctl drom: %s (see --help)\n", e.what());
    return kUsage;
  }
  const long pid = std::strtol(pos[0].c_str(), nullptr, 10);
  std::vector<int> cpus;
  if (pid <= 0 || !parse_cpus(pos[1], cpus)) {
    std::fprintf(stderr,
                 "joule-ctl drom: bad PID or CPU list ('%s' '%s'): expected a PID > 0 and a CPU "
                 "list such as 0-3,6 (CPUs 0..4095) or none\n",
                 core::escape_text(pos[0]).c_str(), core::escape_text(pos[1]).c_str());
    return kUsage;
  }
  try {
    const std::string name = shm.empty() ? default_table() : shm;
    auto t = CpuTable::attach_existing(name);
    if (!t) {
      std::fprintf(stderr, "joule-ctl drom: no CPU table %s\n", name.c_str());
      return kFailed;
    }
    std::string why;
    const long seq = t->drom_request(pid_t(pid), cpus, why);
    if (seq < 0) {
      std::fprintf(stderr, "joule-ctl drom: %s\n", why.c_str());
      return kFailed;
    }
    if (timeout_ms && !t->drom_wait(pid_t(pid), std::uint32_t(seq), timeout_ms)) {
      std::fprintf(stderr,
                   "joule-ctl drom: process %ld did not apply the mask within %u ms (it applies "
                   "masks at task boundaries; the request stays)\n",
                   pid, timeout_ms);
      return kFailed;
    }
    const std::string list = core::format_cpu_list(t->owned_by(pid_t(pid)));
    std::printf("process %ld owns [%s]%s\n", pid, list.c_str(),
                timeout_ms ? "" : " (request sent, not yet applied)");
    return kOk;
  } catch (const TableError& e) {
    std::fprintf(stderr, "joule-ctl drom: %s\n", e.what());
    return kFailed;
  }
}

int cmd_clean(int argc, char** argv) {
  bool force = false;
  std::vector<std::string> names;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--help" || a == "-h") {
        std::printf(
            "usage: joule-ctl clean [--force] [NAME...]\n\n"
            "Removes CPU tables left in /dev/shm by joule processes that died: a table is\n"
            "removed when no live process is registered in it (its dead processes' CPUs\n"
            "are given back first). Without NAME, every joule table of this user (names\n"
            "/joule-cpus-* and /joule-test-*, and the one $JOULE_LENDING_SHM names).\n"
            "  --force  also remove tables in use, corrupt, foreign or of another version\n"
            "Exits 1 when a table could not be cleaned (an error, not a table in use).\n");
        return kOk;
      }
      if (a == "--force")
        force = true;
      else if (a.rfind("-", 0) == 0)
        throw std::invalid_argument("unknown option " + core::escape_text(a) + " (see --help)");
      else
        names.push_back(CpuTable::check_name(a));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "joule-ctl clean: %s\n", e.what());
    return kUsage;
  }
  if (names.empty()) names = user_tables();
  if (names.empty()) std::printf("no joule CPU tables in /dev/shm\n");
  int rc = kOk;
  for (const auto& n : names) {
    bool failed = false;
    const std::string line = CpuTable::clean(n, force, &failed);
    std::fprintf(failed ? stderr : stdout, "%s\n", line.c_str());
    if (failed) rc = kFailed;
  }
  return rc;
}

}  // namespace joule::ctl
