// One runtime run's trace: the threads' buffers, the tables that give
// labels, names and counters their ids, and the writing of the files at the
// end. Only registration (once per thread) and interning (once per new
// string per thread) take the mutex.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "run_stats.hpp"
#include "trace_buffer.hpp"
#include "trace_settings.hpp"

namespace joule::trace {

class Runtime;

class TraceSession {
 public:
  using Format = TraceFormat;
  struct Options {
    Format format = Format::none;
    std::string dir = ".";
    std::size_t buffer_bytes = 1 << 20;
    int rank = -1;
  };

  explicit TraceSession(Options opt);
  ~TraceSession();

  // Creates the workers' buffers; `cpus[w]` is worker w's CPU.
  void start(const std::vector<int>& cpus, std::uint64_t now);
  // Writes the files (if tracing) and combines the statistics.
  void stop(std::uint64_t now);

  // The buffer of worker w when called on its thread: the owned workers'
  // are indexed; guests (on borrowed CPUs) and other threads go through TLS.
  ThreadBuffer& buffer(int w) {
    return w >= 0 && std::size_t(w) < workers_.size() ? *workers_[std::size_t(w)] : this_thread();
  }
  // The calling thread's buffer: a worker's after bind_worker, else a new
  // one registered on first use.
  ThreadBuffer& this_thread();
  // On the worker's own thread, when it starts. A worker beyond the owned
  // ones runs on a borrowed CPU: it gets a new buffer, in the Borrowed state.
  void bind_worker(int w, int cpu, std::uint64_t now);

  std::uint32_t intern_label(const char* label);
  std::uint32_t intern_name(const char* name);
  // Counter tracks are named "<name>" or "<name> cpu <N>".
  std::uint32_t intern_counter(const char* name, int cpu);
  void set_rank(int rank) { opt_.rank = rank; }

  // For the writers (after the threads stopped).
  const Options& options() const { return opt_; }
  std::uint64_t start_ns() const { return start_ns_; }
  std::uint64_t stop_ns() const { return stop_ns_; }
  // Owned workers in order, then guests and other threads in registration order.
  std::vector<const ThreadBuffer*> threads() const;
  const std::vector<std::string>& label_names() const { return labels_.names; }
  const std::vector<std::string>& names() const { return names_.names; }
  const std::vector<std::string>& counter_names() const { return counters_.names; }
  // The file name stem: <dir>/joule-<pid>[-rank<r>][-<n>].
  std::string file_base() const;

  const trace_format::RunStats& stats() const { return stats_; }
  const std::vector<std::string>& files() const { return files_; }
  const std::string& write_error() const { return write_error_; }
  bool truncated() const;

 private:
  struct Table {
    std::map<std::string, std::uint32_t, std::less<>> ids;
    std::vector<std::string> names;
    std::uint32_t intern(const char* s);
  };

  Options opt_;
  std::uint64_t gen_;
  std::uint64_t start_ns_ = 0, stop_ns_ = 0;
  std::vector<std::unique_ptr<ThreadBuffer>> workers_;
  std::vector<std::unique_ptr<ThreadBuffer>> others_;
  std::mutex mutex_;
  Table labels_, names_, counters_;
  trace_format::RunStats stats_;
  std::vector<std::string> files_;
  std::string write_error_;
};

// Writers (paraver_writer.cpp, chrome_writer.cpp): return the files written;
// throw std::runtime_error on an I/O failure.
std::vector<std::string> write_paraver(const TraceSession& s, const std::string& base);
std::vector<std::string> write_chrome(const TraceSession& s, const std::string& base);

}  // namespace joule::trace
