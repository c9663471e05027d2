// The energy controller's entry points for libjoule-mpi (mpi-slack).
#include "joule/joule.h"
#include "lending_settings.hpp"
#include "platform.hpp"
#include "runtime.hpp"

namespace {

// The calling worker, or -1: not a worker, no runtime, or its CPU is lent
// for the call (its borrower runs there: not ours to slow).
int slack_worker() noexcept {
  using joule::engine::Runtime;
  if (!Runtime::running() || !joule::platform::current_platform()) return -1;
  Runtime& rt = Runtime::get();
  if (joule_lending_active() && !rt.config().get<joule::lending::LendingSettings>().keeps_cpu())
    return -1;
  // The thread's own context, never attaching one (a non-worker thread in
  // MPI is not ours to model).
  const auto& ctx = joule::engine::thread_context();
  if (ctx.generation != Runtime::generation() || !ctx.worker) return -1;
  return ctx.worker->index();
}

}  // namespace

void joule_energy_mpi_enter(void) {
  const int w = slack_worker();
  if (w < 0) return;
  if (auto* p = joule::platform::current_platform()) p->mpi_enter(w);
}

void joule_energy_mpi_leave(void) {
  const int w = slack_worker();
  if (w < 0) return;
  if (auto* p = joule::platform::current_platform()) p->mpi_leave(w);
}
