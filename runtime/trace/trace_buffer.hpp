// One thread's trace buffer: records in its own time order, flushed by its
// own thread to an unlinked spill file when full (so memory stays bounded
// and no lock is taken on the task path), plus its run statistics.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "run_stats.hpp"
#include "trace_events.hpp"

namespace joule::trace {

class TraceSession;

class ThreadBuffer {
 public:
  // capacity 0: statistics only (JOULE_REPORT without JOULE_TRACE).
  // guest: a worker the runtime started on a CPU borrowed from another process.
  ThreadBuffer(TraceSession& session, int worker, int cpu, std::size_t capacity,
               bool guest = false);
  ~ThreadBuffer();
  ThreadBuffer(const ThreadBuffer&) = delete;
  ThreadBuffer& operator=(const ThreadBuffer&) = delete;

  int worker() const { return worker_; }
  int cpu() const { return cpu_; }
  bool guest() const { return guest_; }

  // Times handed in by the runtime may trail a record another observer's
  // hook emitted just before (by nanoseconds): clamp, so that each thread's
  // records stay in time order, which the writers rely on.
  void push(trace_format::Record r) {
    if (capacity_ == 0) return;
    if (size_ == capacity_) flush();
    if (r.t < last_t_) r.t = last_t_;
    last_t_ = r.t;
    records_[size_++] = r;
  }
  // Label ids are cached per thread by pointer: labels are static strings.
  std::uint32_t label_id(const char* label);
  std::uint32_t name_id(const char* name);                 // MPI call names
  std::uint32_t counter_id(const char* counter, int cpu);  // tracks: name [cpu N]

  void task_create(const char* label, std::uint64_t id, std::uint64_t now);
  void task_start(const char* label, std::uint64_t id, std::uint64_t now);
  void task_end(std::uint64_t now);
  void sleep(bool begin, std::uint64_t now);

  trace_format::WorkerStats& stats() { return stats_; }
  const trace_format::WorkerStats& stats() const { return stats_; }

  // Reading back, after the thread stopped writing: spill file, then memory.
  class Reader {
   public:
    explicit Reader(const ThreadBuffer& b) : b_(b) {}
    bool next(trace_format::Record& r);

   private:
    const ThreadBuffer& b_;
    std::vector<trace_format::Record> chunk_;
    std::size_t pos_ = 0;
    std::uint64_t file_off_ = 0;  // bytes of the spill file consumed
    std::size_t mem_pos_ = 0;
    bool file_done_ = false;
  };
  bool truncated() const { return truncated_; }
  std::uint64_t records_written() const { return spilled_ + size_; }

 private:
  void flush();

  struct Frame {
    std::uint32_t label;
    std::uint64_t id;
    std::uint64_t start;
  };
  struct CacheEntry {
    const char* key = nullptr;
    std::uint32_t id = 0;
    int cpu = -1;
  };

  TraceSession& session_;
  int worker_, cpu_;
  bool guest_;
  std::size_t capacity_;
  std::size_t size_ = 0;
  std::uint64_t last_t_ = 0;
  std::unique_ptr<trace_format::Record[]> records_;
  int fd_ = -1;                // spill file, opened at the first flush
  std::uint64_t spilled_ = 0;  // records in the spill file
  bool truncated_ = false;     // a flush failed: later records are dropped
  std::vector<Frame> stack_;   // tasks running on this thread (nesting)
  std::uint64_t sleep_start_ = 0;
  CacheEntry cache_[256];  // labels
  CacheEntry names_[32];
  CacheEntry counters_[32];
  trace_format::WorkerStats stats_;
};

}  // namespace joule::trace
