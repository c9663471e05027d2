// One barrier across the processes of a node, in a small shared segment of
// its own (0600, named after the node's CPU table and the barrier, removed
// by the last process to leave). A participant that dies is found by the
// others while they wait (every kPollMs) and breaks that barrier: they get
// an error instead of waiting for ever, and the dead one is dropped.
#pragma once

#include <sys/types.h>

#include <string>

namespace joule::dlb {

class BarrierSegment {
 public:
  enum class Result { Done, Broken, NotAttached };
  static constexpr int kPollMs = 20;

  // Opens (creating if needed) the segment of `name` in table `table`; throws
  // std::runtime_error if it cannot.
  BarrierSegment(const std::string& table, const std::string& name);
  ~BarrierSegment();
  BarrierSegment(const BarrierSegment&) = delete;
  BarrierSegment& operator=(const BarrierSegment&) = delete;

  bool attach();  // false: already attached
  bool detach();  // false: not attached (the last one out removes the name)
  bool attached() const noexcept { return attached_; }
  // Blocks until every attached process arrived, or one died.
  Result wait();
  const std::string& shm_name() const noexcept { return shm_name_; }

 private:
  struct Shared;
  void map();
  void unmap();
  // Drops dead participants, failing a barrier under way if any; caller
  // holds the segment's mutex.
  int drop_dead();
  void lock();
  void unlock();

  std::string shm_name_;
  Shared* shared_ = nullptr;
  bool attached_ = false;
};

}  // namespace joule::dlb
