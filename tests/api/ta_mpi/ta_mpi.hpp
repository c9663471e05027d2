// A test-only task-aware MPI layer on ALPI (<joule/alpi.h>), written from the
// ALPI and MPI interfaces to exercise what TAMPI needs from the runtime:
// a task waits for an MPI request either by blocking itself (wait) or by
// binding the request to its completion with an event (bind), and a
// polling service tests the pending requests and unblocks, or decreases
// the events of, the tasks whose requests completed.
//
// Every MPI call goes through mpi_lock(): the layer needs only
// MPI_THREAD_SERIALIZED (tasks call MPI from any worker, the service from
// whichever thread polls).
#pragma once

#include <joule/alpi.h>
#include <mpi.h>

#include <atomic>
#include <mutex>
#include <vector>

namespace ta_mpi {

std::mutex& mpi_lock();
// MPI_Init_thread at MPI_THREAD_SERIALIZED, or an abort naming `program`.
void init_serialized(int* argc, char*** argv, const char* program);

class Layer {
 public:
  // Registers the polling service (ends joule's serial inline mode).
  void start();
  // Unregisters it; every bound request must have completed.
  void stop();
  // From a task: returns once req completed (the task blocks meanwhile).
  void wait(MPI_Request req);
  // From a task: its completion (the release of its dependencies) waits
  // until req completed; the body returns at once.
  void bind(MPI_Request req);
  // Requests still pending (after stop: 0 when nothing was left behind).
  std::size_t pending() const;
  // Waits that blocked and binds that held an event (the request had not
  // completed when tested first).
  int blocked() const noexcept { return blocked_.load(); }
  int bound() const noexcept { return bound_.load(); }

 private:
  struct Pending {
    MPI_Request req;
    alpi_task* task;
    bool event;  // decrease an event (bind) rather than unblock (wait)
  };
  static int poll(void* self);
  void add(MPI_Request req, bool event);
  // Tests every pending request; returns those that completed.
  std::vector<Pending> take_completed();

  mutable std::mutex mutex_;  // guards pending_
  std::vector<Pending> pending_;
  std::atomic<int> blocked_{0}, bound_{0};
};

}  // namespace ta_mpi
