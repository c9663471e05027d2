// Polite waiting: a blocking point-to-point or completion call whose CPU was
// lent waits through its non-blocking form, polling MPI_Test (or Iprobe) and
// backing off while another process runs on that CPU: sched_yield first,
// then short sleeps. The borrower then has the CPU to itself, whatever the
// MPI library does in its own blocking waits (docs/lending.md).
#pragma once

#include <mpi.h>

namespace joule::mpi {

// The caller's CPU when it does not hold it now (it lent it, or returned a
// borrowed one, on entering the blocking call), else -1: then the call waits
// the library's own way.
int given_up_cpu();

// Does a thread of another process run on cpu now (borrowed, claimed, or
// busy with its owner)?
bool other_runs_on(int cpu);

// Pauses that grow while the CPU stays someone else's: a few sched_yield
// calls, then sleeps doubling from 5 us to kMaxSleepUs.
class Backoff {
 public:
  static constexpr int kYields = 4;
  static constexpr long kMaxSleepUs = 250;
  void pause();
  void reset() { n_ = 0; }

 private:
  int n_ = 0;
};

// Calls poll(&done) until it sets done or fails; between polls, backs off
// while another process runs on cpu (and polls at once while nobody does).
template <class Poll>
int polite_wait(int cpu, Poll&& poll) {
  Backoff backoff;
  for (;;) {
    int done = 0;
    const int rc = poll(&done);
    if (rc != MPI_SUCCESS || done) return rc;
    if (other_runs_on(cpu)) {
      backoff.pause();
    } else {
      backoff.reset();
    }
  }
}

// Completes one request politely (MPI_Wait).
inline int polite_wait_request(int cpu, MPI_Request* r, MPI_Status* st) {
  return polite_wait(cpu, [&](int* done) { return PMPI_Test(r, done, st); });
}

}  // namespace joule::mpi
