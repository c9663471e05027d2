#include "trace_buffer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>

#include "log.hpp"
#include "trace_session.hpp"

namespace joule::trace {

using namespace trace_format;

ThreadBuffer::ThreadBuffer(TraceSession& session, int worker, int cpu, std::size_t capacity,
                           bool guest)
    : session_(session), worker_(worker), cpu_(cpu), guest_(guest), capacity_(capacity) {
  // new[] without value-initialisation: pages are touched only when used.
  if (capacity_) records_.reset(new Record[capacity_]);
  stack_.reserve(16);
}

ThreadBuffer::~ThreadBuffer() {
  if (fd_ >= 0) ::close(fd_);
}

std::uint32_t ThreadBuffer::label_id(const char* label) {
  if (!label) return 1;
  CacheEntry& e = cache_[(reinterpret_cast<std::uintptr_t>(label) >> 3) & 255];
  if (e.key != label) e = CacheEntry{label, session_.intern_label(label)};
  return e.id;
}

std::uint32_t ThreadBuffer::name_id(const char* name) {
  if (!name) return 0;
  CacheEntry& e = names_[(reinterpret_cast<std::uintptr_t>(name) >> 3) & 31];
  if (e.key != name) e = CacheEntry{name, session_.intern_name(name)};
  return e.id;
}

std::uint32_t ThreadBuffer::counter_id(const char* counter, int cpu) {
  CacheEntry& e =
      counters_[((reinterpret_cast<std::uintptr_t>(counter) >> 3) + unsigned(cpu)) & 31];
  if (!counter || e.key != counter || e.cpu != cpu)
    e = CacheEntry{counter, session_.intern_counter(counter, cpu), cpu};
  return e.id;
}

void ThreadBuffer::task_create(const char* label, std::uint64_t id, std::uint64_t now) {
  const std::uint32_t l = label_id(label);
  stats_.created();
  push(Record{now, kRecTaskCreate, kNoCpu, l, id});
}

void ThreadBuffer::task_start(const char* label, std::uint64_t id, std::uint64_t now) {
  const std::uint32_t l = label_id(label);
  stack_.push_back(Frame{l, id, now});
  push(Record{now, kRecTaskStart, kNoCpu, l, id});
}

void ThreadBuffer::task_end(std::uint64_t now) {
  if (stack_.empty()) return;  // started before tracing began
  const Frame f = stack_.back();
  stack_.pop_back();
  stats_.task(f.label, now - f.start, stack_.empty());
  push(Record{now, kRecTaskEnd, kNoCpu, f.label, f.id});
}

void ThreadBuffer::sleep(bool begin, std::uint64_t now) {
  if (begin) {
    sleep_start_ = now;
  } else if (sleep_start_) {
    stats_.sleep(now - sleep_start_);
    sleep_start_ = 0;
  }
  push(Record{now, begin ? kRecSleepBegin : kRecSleepEnd, kNoCpu, 0, 0});
}

// Appends the buffer to this thread's spill file. On failure the trace is
// marked truncated and later records are dropped; the run goes on.
void ThreadBuffer::flush() {
  if (fd_ < 0 && !truncated_) {
    std::string path = session_.options().dir + "/.joule-trace-XXXXXX";
    fd_ = ::mkstemp(path.data());
    if (fd_ >= 0) ::unlink(path.c_str());  // gone with the process, whatever happens
  }
  const char* p = reinterpret_cast<const char*>(records_.get());
  std::size_t left = size_ * sizeof(Record);
  while (fd_ >= 0 && left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    p += n;
    left -= std::size_t(n);
  }
  if (fd_ < 0 || left > 0) {
    if (!truncated_)
      core::log_warn("trace buffer flush failed in " + session_.options().dir + " (" +
                     std::strerror(errno) + "); the trace of this thread is truncated");
    truncated_ = true;
    capacity_ = 0;  // stop recording; statistics go on
    size_ = 0;
    return;
  }
  spilled_ += size_;
  size_ = 0;
}

bool ThreadBuffer::Reader::next(Record& r) {
  if (pos_ < chunk_.size()) {
    r = chunk_[pos_++];
    return true;
  }
  while (!file_done_) {
    const std::uint64_t total = b_.spilled_ * sizeof(Record);
    if (b_.fd_ < 0 || file_off_ >= total) {
      file_done_ = true;
      break;
    }
    const std::size_t want =
        std::size_t(std::min<std::uint64_t>(total - file_off_, 4096 * sizeof(Record)));
    chunk_.resize(want / sizeof(Record));
    const ssize_t n = ::pread(b_.fd_, chunk_.data(), want, off_t(file_off_));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || std::size_t(n) % sizeof(Record) != 0) {
      file_done_ = true;  // unreadable spill: keep what is in memory
      chunk_.clear();
      break;
    }
    chunk_.resize(std::size_t(n) / sizeof(Record));
    file_off_ += std::uint64_t(n);
    pos_ = 0;
    r = chunk_[pos_++];
    return true;
  }
  if (b_.records_ && mem_pos_ < b_.size_) {
    r = b_.records_[mem_pos_++];
    return true;
  }
  return false;
}

}  // namespace joule::trace
