// The Paraver side files: .pcf (state and event names, label values), .row
// (names of CPUs, node, threads) and joule's .info (for joule-trace merge).
#include <unistd.h>

#include <fstream>
#include <stdexcept>

#include "pcf_text.hpp"
#include "trace_session.hpp"

namespace joule::trace {
namespace {

using namespace trace_format;

void check(std::ostream& os, const std::string& path) {
  os.flush();
  if (!os) throw std::runtime_error("cannot write " + path);
}

}  // namespace

void write_pcf(const TraceSession& s, const std::string& path) {
  std::ofstream os(path);
  os << pcf_text(s.label_names(), s.names(), s.counter_names());
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
  // thread=<paraver thread number> <worker or -1> <cpu or -1> <1: on a borrowed CPU>
  for (std::size_t i = 0; i < threads.size(); ++i)
    os << "thread=" << i + 1 << " " << threads[i]->worker() << " " << threads[i]->cpu() << " "
       << int(threads[i]->guest()) << "\n";
  check(os, base + ".info");
}

}  // namespace joule::trace
