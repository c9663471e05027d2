// The Paraver side files: .pcf (state and event names, label values), .row
// (names of CPUs, node, threads) and joule's .info (for joule-trace merge).
#include <unistd.h>

#include <fstream>
#include <stdexcept>

#include "trace_session.hpp"

namespace joule::rt {
namespace {

using namespace trace_format;

const char* const kStateColors[kNumStates] = {"{117,195,255}", "{0,0,255}",   "{190,190,190}",
                                              "{255,160,0}",   "{0,160,0}",   "{200,0,0}",
                                              "{170,0,170}"};

void event_type(std::ostream& os, std::int64_t type, const std::string& name,
                const std::vector<std::string>* values) {
  os << "EVENT_TYPE\n0    " << type << "    " << name << "\n";
  if (values) {
    os << "VALUES\n";
    for (std::size_t v = 0; v < values->size(); ++v) os << v << "      " << (*values)[v] << "\n";
  }
  os << "\n\n";
}

void check(std::ostream& os, const std::string& path) {
  os.flush();
  if (!os) throw std::runtime_error("cannot write " + path);
}

}  // namespace

void write_pcf(const TraceSession& s, const std::string& path) {
  std::ofstream os(path);
  os << "DEFAULT_OPTIONS\n\nLEVEL               THREAD\nUNITS               NANOSEC\n"
        "LOOK_BACK           100\nSPEED               1\nFLAG_ICONS          ENABLED\n"
        "NUM_OF_STATE_COLORS 1000\nYMAX_SCALE          37\n\n\nDEFAULT_SEMANTIC\n\n"
        "THREAD_FUNC          State As Is\n\n\nSTATES\n";
  for (std::uint32_t i = 0; i < kNumStates; ++i) os << i << "    " << state_name(i) << "\n";
  os << "\n\nSTATES_COLOR\n";
  for (std::uint32_t i = 0; i < kNumStates; ++i) os << i << "    " << kStateColors[i] << "\n";
  os << "\n\n";
  event_type(os, kTypeTaskLabel, "Task label", &s.label_names());
  event_type(os, kTypeTaskId, "Task id", nullptr);
  event_type(os, kTypeTaskCreate, "Task created (label)", &s.label_names());
  event_type(os, kTypeTaskCreateId, "Task created (id)", nullptr);
  event_type(os, kTypeIteration, "Iteration", nullptr);
  for (std::uint32_t e = 1; e < kNumEvents; ++e)
    event_type(os, kTypeEventBase + e, event_name(e), e == kEvMpiCall ? &s.names() : nullptr);
  const auto& counters = s.counter_names();
  for (std::size_t c = 0; c < counters.size(); ++c)
    event_type(os, kTypeCounterBase + std::int64_t(c), counters[c] + " (x1000)", nullptr);
  check(os, path);
}

void write_row_and_info(const TraceSession& s, const std::string& base, int cpus,
                        const std::string& host, const std::vector<std::string>& names) {
  {
    std::ofstream os(base + ".row");
    os << "LEVEL CPU SIZE " << cpus << "\n";
    for (int c = 0; c < cpus; ++c) os << "cpu " << c << "\n";
    os << "\nLEVEL NODE SIZE 1\n" << host << "\n";
    os << "\nLEVEL THREAD SIZE " << names.size() << "\n";
    for (const auto& n : names) os << n << "\n";
    check(os, base + ".row");
  }
  std::ofstream os(base + ".info");
  const auto threads = s.threads();
  os << "format=joule-paraver 1\npid=" << ::getpid() << "\nrank=" << s.options().rank
     << "\nhost=" << host << "\nstart_ns=" << s.start_ns() << "\nstop_ns=" << s.stop_ns()
     << "\ncpus=" << cpus << "\nthreads=" << threads.size() << "\n";
  // thread=<paraver thread number> <worker or -1> <cpu or -1>
  for (std::size_t i = 0; i < threads.size(); ++i)
    os << "thread=" << i + 1 << " " << threads[i]->worker() << " " << threads[i]->cpu() << "\n";
  check(os, base + ".info");
}

}  // namespace joule::rt
