// DLB_ARGS for the process (what DLB_Init took), its --verbose lines, and
// --mode=async: a helper thread that keeps the process's CPU requests
// standing and calls its callbacks when CPUs come and go, so that a
// program that never calls DLB again (DLB's "LeWI mask consumer" example:
// DLB_AcquireCpus(DLB_MAX_CPUS), then only callbacks) still gets every CPU
// other processes lend and gives each back when its owner reclaims it.
//
// DLB's helper reacts to messages in its shared memory at once; joule's
// looks at the node table every kAsyncPollMs: a lent CPU reaches the
// consumer within that time, and the owner's reclaim waits at most as long
// for the disable callback (the owner's JOULE_LENDING_RECLAIM_TIMEOUT_MS
// bounds it in any case). Callbacks run on the helper thread under the DLB
// lock, as DLB's user guide says of async mode: they must not call DLB.
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <string>
#include <thread>

#include "dlb_internal.hpp"
#include "lending_settings.hpp"

namespace joule::dlb {
namespace {

constexpr int kAsyncPollMs = 2;

lending::DlbArgs& args_state() {
  static lending::DlbArgs a;
  return a;
}

struct Async {
  std::thread thread;
  std::condition_variable wake;
  bool stop = false;
  int wanted = 0;  // standing request: CPUs to hold beyond the own ones
};
Async& async_state() {
  static Async a;
  return a;
}

// One round of the helper: reclaims and returns through poll, then the
// standing request. Caller holds api_mutex.
void async_round(lending::Session& s) {
  acting() = &process_participant();
  poll(s);
  const int missing = async_state().wanted - s.loans().borrowed_count();
  if (missing <= 0) return;
  std::vector<int> got;
  s.loans().borrow_up_to(missing, &got);
  enable_cpus(s, got);
}

void async_loop() {
  std::unique_lock lock(api_mutex());
  Async& a = async_state();
  while (!a.stop) {
    a.wake.wait_for(lock, std::chrono::milliseconds(kAsyncPollMs));
    if (a.stop || !initialised()) continue;
    auto s = lending::active_session();
    if (!s) continue;
    try {
      async_round(*s);
    } catch (const std::exception& e) {
      joule::core::log_error(std::string("DLB async helper: ") + e.what());
    }
  }
}

}  // namespace

const lending::DlbArgs& dlb_args() { return args_state(); }

int take_args(const char* dlb_args, lending::LendingSettings& settings) {
  lending::DlbArgs a;
  try {
    settings = core::Config::load({}).get<lending::LendingSettings>();
    a = settings.dlb_args;  // the environment's DLB_ARGS, checked by the config layer
    if (dlb_args) a.parse(dlb_args);
  } catch (const std::exception& e) {
    joule::core::log_error(std::string("DLB_Init: ") + e.what());
    return DLB_ERR_NOCOMP;
  }
  args_state() = a;
  return DLB_SUCCESS;
}

void verbose_callback(const char* kind, const std::vector<int>& cpus) {
  if (args_state().verbose.empty()) return;
  std::string list;
  for (int c : cpus) list += (list.empty() ? "" : ",") + std::to_string(c);
  std::fprintf(stderr, "DLB[%d]: callback %s [%s]\n", int(::getpid()), kind, list.c_str());
}

void async_start() {
  if (!args_state().async) return;
  Async& a = async_state();
  a.stop = false;
  a.wanted = 0;
  a.thread = std::thread(async_loop);
}

void async_stop(std::unique_lock<std::mutex>& held) {
  Async& a = async_state();
  if (!a.thread.joinable()) return;
  a.stop = true;
  a.wake.notify_all();
  held.unlock();  // the helper takes the lock to see the flag
  a.thread.join();
  held.lock();
}

bool async_request(lending::Session& s, int ncpus, int got_now) {
  if (!args_state().async || acting() != &process_participant()) return false;
  Async& a = async_state();
  if (ncpus == DLB_DELETE_REQUESTS)
    a.wanted = 0;
  else if (ncpus == DLB_MAX_CPUS)
    a.wanted = s.table().ncpus();
  else if (ncpus > got_now)
    a.wanted = s.loans().borrowed_count() + (ncpus - got_now);
  a.wake.notify_all();
  return a.wanted > s.loans().borrowed_count();
}

}  // namespace joule::dlb
