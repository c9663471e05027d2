// The affinity display of OpenMP 5: OMP_DISPLAY_AFFINITY's lines as members
// start a region, omp_display_affinity / omp_capture_affinity, and the
// affinity-format-var (omp_set/get_affinity_format). libjoule formats the
// fields (joule_omp_format_affinity); this file gathers what they show of the
// calling thread. Lines go to stderr, as libgomp's do.
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

#include "affinity.hpp"
#include "team.hpp"

extern "C" {
int omp_get_level(void);
int omp_get_thread_num(void);
int omp_get_num_threads(void);
int omp_get_ancestor_thread_num(int);
int omp_get_team_num(void);
int omp_get_num_teams(void);
}

namespace joule::omp {
namespace {

std::mutex g_mutex;
std::string g_format;  // affinity-format-var (set at start from OMP_AFFINITY_FORMAT)
thread_local bool t_shown = false;
thread_local std::string t_shown_cpus;  // the CPUs when this thread last printed its line

// The calling thread's CPUs as ranges: "0-3,6".
std::string thread_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return "";
  std::string out;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    int last = c;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    if (!out.empty()) out += ',';
    out += std::to_string(c);
    if (last > c) out += '-' + std::to_string(last);
    c = last;
  }
  return out;
}

std::string host_name() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

}  // namespace

void set_affinity_format(std::string format) {
  std::lock_guard guard(g_mutex);
  g_format = std::move(format);
}

std::string affinity_format() {
  std::lock_guard guard(g_mutex);
  return g_format;
}

// A format with a bad field stops the program, as in libgomp (the
// variable's own value was checked at start).
void check_format(const std::string& fmt, const char* entry) {
  char why[256];
  if (joule_omp_check_affinity_format(fmt.c_str(), why, sizeof why) == 0) return;
  std::fprintf(stderr, "libjoule-omp: %s: bad affinity format '%s': %s\n", entry, fmt.c_str(), why);
  std::exit(1);
}

std::string format_affinity(const char* format, const char* entry) {
  const std::string fmt = format && *format ? std::string(format) : affinity_format();
  check_format(fmt, entry);
  const int level = omp_get_level();
  const std::string cpus = thread_cpus();
  const std::string host = host_name();
  joule_omp_thread_info_t info{};
  info.team_num = omp_get_team_num();  // the teams construct's, once it has one
  info.num_teams = omp_get_num_teams();
  info.level = level;
  info.thread_num = omp_get_thread_num();
  info.num_threads = omp_get_num_threads();
  info.ancestor_tnum = omp_get_ancestor_thread_num(level - 1);
  info.native_thread_id = long(syscall(SYS_gettid));
  info.process_id = long(getpid());
  info.host = host.c_str();
  info.affinity = cpus.c_str();
  std::string line(joule_omp_format_affinity(fmt.c_str(), &info, nullptr, 0), '\0');
  joule_omp_format_affinity(fmt.c_str(), &info, line.data(), line.size() + 1);
  return line;
}

// OpenMP 5.2 §21.2.4: every thread's line at the first region and "when
// there is any change in the information" the fields show. As libgomp reads
// that: a team whose size differs from this master's previous team shows
// every line, a team of one none (nor does a new format); and a thread whose
// CPUs changed shows its own.
bool team_shows_affinity(int n) {
  thread_local int t_last_team = 0;
  if (n <= 1 || n == t_last_team) return false;
  t_last_team = n;
  return true;
}

void display_affinity_on_entry(bool team_shows) {
  std::string cpus = thread_cpus();
  if (!team_shows && (!t_shown || cpus == t_shown_cpus)) return;
  std::fprintf(stderr, "%s\n", format_affinity(nullptr, "OMP_DISPLAY_AFFINITY").c_str());
  t_shown = true;
  t_shown_cpus = std::move(cpus);
}

}  // namespace joule::omp

using namespace joule::omp;

extern "C" {

JOULE_EXPORT void omp_set_affinity_format(const char* format) {
  ensure_init();
  set_affinity_format(format ? format : "");
}

// The format's length; its first size - 1 characters and a NUL go to buffer.
JOULE_EXPORT size_t omp_get_affinity_format(char* buffer, size_t size) {
  ensure_init();
  const std::string f = affinity_format();
  if (buffer && size > 0) {
    const std::size_t n = std::min(f.size(), size - 1);
    std::memcpy(buffer, f.data(), n);
    buffer[n] = '\0';
  }
  return f.size();
}

JOULE_EXPORT void omp_display_affinity(const char* format) {
  ensure_init();
  std::fprintf(stderr, "%s\n", format_affinity(format, "omp_display_affinity").c_str());
}

JOULE_EXPORT size_t omp_capture_affinity(char* buffer, size_t size, const char* format) {
  ensure_init();
  const std::string line = format_affinity(format, "omp_capture_affinity");
  if (buffer && size > 0) {
    const std::size_t n = std::min(line.size(), size - 1);
    std::memcpy(buffer, line.data(), n);
    buffer[n] = '\0';
  }
  return line.size();
}

}  // extern "C"
