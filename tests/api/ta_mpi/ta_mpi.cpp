#include "ta_mpi.hpp"

#include <joule/nanos6/nanos6.h>

#include <cstdio>
#include <cstdlib>

namespace ta_mpi {

namespace {
void check(int rc, const char* what) {
  if (rc == ALPI_SUCCESS) return;
  std::fprintf(stderr, "ta_mpi: %s: %s\n", what, alpi_error_string(alpi_error_t(rc)));
  std::abort();
}

alpi_task* self() {
  alpi_task* t = nullptr;
  check(alpi_task_self(&t), "alpi_task_self");
  if (!t) {
    std::fprintf(stderr, "ta_mpi: called outside a task\n");
    std::abort();
  }
  return t;
}

bool test(MPI_Request& req) {
  int done = 0;
  std::lock_guard guard(mpi_lock());
  MPI_Test(&req, &done, MPI_STATUS_IGNORE);
  return done != 0;
}
}  // namespace

std::mutex& mpi_lock() {
  static std::mutex m;
  return m;
}

void init_serialized(int* argc, char*** argv, const char* program) {
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided);
  if (provided >= MPI_THREAD_SERIALIZED) return;
  std::fprintf(stderr, "%s: MPI_THREAD_SERIALIZED not provided\n", program);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

void Layer::start() {
  int major = 0, minor = 0;
  check(alpi_version_get(&major, &minor), "alpi_version_get");
  check(alpi_version_check(ALPI_VERSION_MAJOR, ALPI_VERSION_MINOR), "alpi_version_check");
  check(alpi_feature_check(ALPI_FEATURE_BLOCKING | ALPI_FEATURE_EVENTS), "alpi_feature_check");
  // The ALPI has no polling call: TAMPI registers its service with the
  // Nanos6 API's nanos6_register_polling_service, as here (task-aware
  // runtimes export both).
  nanos6_register_polling_service("ta_mpi", &Layer::poll, this);
}

void Layer::stop() { nanos6_unregister_polling_service("ta_mpi", &Layer::poll, this); }

void Layer::wait(MPI_Request req) {
  if (test(req)) return;
  alpi_task* t = self();
  add(req, false);
  blocked_.fetch_add(1);
  // An unblock that comes before the block makes it return at once.
  check(alpi_task_block(t), "alpi_task_block");
}

void Layer::bind(MPI_Request req) {
  if (test(req)) return;
  check(alpi_task_events_increase(self(), 1), "alpi_task_events_increase");
  add(req, true);
  bound_.fetch_add(1);
}

std::size_t Layer::pending() const {
  std::lock_guard guard(mutex_);
  return pending_.size();
}

void Layer::add(MPI_Request req, bool event) {
  alpi_task* t = self();
  std::lock_guard guard(mutex_);
  pending_.push_back(Pending{req, t, event});
}

std::vector<Layer::Pending> Layer::take_completed() {
  std::vector<Pending> done;
  std::lock_guard guard(mutex_);
  for (std::size_t i = 0; i < pending_.size();) {
    if (!test(pending_[i].req)) {
      ++i;
      continue;
    }
    done.push_back(pending_[i]);
    pending_[i] = pending_.back();
    pending_.pop_back();
  }
  return done;
}

// The service: never done while the layer is started (returns 0). The
// tasks are resumed outside mutex_: a decrease may complete a task and
// release its successors.
int Layer::poll(void* p) {
  auto* layer = static_cast<Layer*>(p);
  for (const Pending& d : layer->take_completed()) {
    if (d.event)
      check(alpi_task_events_decrease(d.task, 1), "alpi_task_events_decrease");
    else
      check(alpi_task_unblock(d.task), "alpi_task_unblock");
  }
  return 0;
}

}  // namespace ta_mpi
