// The card worker of a joule-card daemon: the host's own binary, executed
// again by the daemon with JOULE_CARD_WORKER naming the daemon's segment.
// libjoule's constructor below sees the variable before the program's
// main (and before the program's own static initialisers, which run after
// its libraries'), builds the card the daemon describes in the segment and
// serves it until the daemon stops it; the program's main never runs. That
// is why an attached card can run the host's task functions: they are the
// same code, found again at this process's load addresses
// (code_relocation.hpp).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "card_daemon_wire.hpp"
#include "card_process.hpp"
#include "emulated_card.hpp"

namespace joule::offload {
namespace {

[[noreturn]] void worker_failed(const std::string& why) {
  std::fprintf(stderr, "joule card worker (pid %d): %s\n", int(getpid()), why.c_str());
  _exit(120);
}

[[noreturn]] void run_worker(const std::string& segment) {
  const int fd = shm_open(segment.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) worker_failed("cannot open the daemon's segment " + segment);
  struct stat st {};
  if (fstat(fd, &st) != 0 || std::size_t(st.st_size) < SharedArea::staging_offset())
    worker_failed("the segment " + segment + " is too small");
  void* p = mmap(nullptr, std::size_t(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) worker_failed("cannot map the segment " + segment);
  auto* area = static_cast<SharedArea*>(p);
  if (area->magic != SharedArea::kMagic)
    worker_failed("the segment " + segment + " is not a card's");
  CardSetup setup;
  try {
    const CardPlan plan = plan_card(parse_card_settings(area->worker.settings));
    setup = {plan.slots, plan.topo.core_count(), plan.cpus,
             std::size_t(st.st_size) - SharedArea::staging_offset(), area->worker.daemon_pid};
  } catch (const std::exception& e) {
    worker_failed(e.what());
  }
  card_main(area, setup);
}

__attribute__((constructor)) void card_worker_entry() {
  const char* segment = std::getenv(kWorkerEnv);
  if (!segment) return;
  const std::string name = segment;
  unsetenv(kWorkerEnv);  // nothing the card runs starts another worker
  run_worker(name);
}

}  // namespace
}  // namespace joule::offload
