#include "emulated_card.hpp"

#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>

#include "card_process.hpp"
#include "clock.hpp"
#include "joule/types.hpp"
#include "text.hpp"

namespace joule::offload {
namespace {

[[noreturn]] void config_error(const std::string& msg) {
  throw joule::error(JOULE_ERR_CONFIG, "joule: configuration error: " + msg);
}

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  std::vector<int> out;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out.push_back(c);
  return out;
}

}  // namespace

std::unique_ptr<Device> start_emulated_card(const rt::Config::Card& cfg) {
  return EmulatedCard::start(cfg);
}

EmulatedCard::EmulatedCard(const rt::Config::Card& cfg, CardTopology topo)
    : cfg_(cfg), topo_(std::move(topo)) {}

std::unique_ptr<EmulatedCard> EmulatedCard::start(const rt::Config::Card& cfg) {
  CardTopology topo = CardTopology::from_synthetic(cfg.topology);
  const int threads = cfg.threads > 0 ? cfg.threads : topo.pu_count();
  if (threads > topo.pu_count())
    config_error("JOULE_CARD_THREADS=" + std::to_string(threads) + ": the card (" + cfg.topology +
                 ") has " + std::to_string(topo.pu_count()) + " PUs; use 1.." +
                 std::to_string(topo.pu_count()) + " (0: all)");
  const std::vector<int> allowed = allowed_cpus();
  std::vector<int> cpus = cfg.cpus.empty() ? allowed : cfg.cpus;
  for (int c : cpus)
    if (std::find(allowed.begin(), allowed.end(), c) == allowed.end())
      config_error("JOULE_CARD_CPUS=" + rt::format_cpu_list(cfg.cpus) + ": CPU " +
                   std::to_string(c) + " is not in the process affinity mask (" +
                   rt::format_cpu_list(allowed) + ")");
  std::unique_ptr<EmulatedCard> card(new EmulatedCard(cfg, std::move(topo)));
  try {
    card->slots_ = place_threads(card->topo_, threads, {parse_affinity(cfg.affinity), 0, 0});
  } catch (const PlacementError& e) {
    config_error(e.what());
  }
  card->fork_card(std::move(cpus));
  return card;
}

void EmulatedCard::fork_card(std::vector<int> host_cpus) {
  host_cpus_ = std::move(host_cpus);
  staging_bytes_ = std::size_t(cfg_.staging_mb) << 20;
  map_bytes_ = SharedArea::staging_offset() + staging_bytes_;
  void* p = mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    throw joule::error(JOULE_ERR_NOMEM, "joule card: cannot map " + std::to_string(map_bytes_) +
                                            " bytes of shared memory: " + std::strerror(errno));
  area_ = new (p) SharedArea();
  free_[0] = staging_bytes_;
  CardSetup setup{slots_, topo_.core_count(), host_cpus_, staging_bytes_, getpid()};
  std::fflush(nullptr);  // buffered output must not be written twice
  pid_ = fork();
  if (pid_ < 0) {
    munmap(p, map_bytes_);
    throw joule::error(JOULE_ERR_STATE,
                       std::string("joule card: fork failed: ") + std::strerror(errno));
  }
  if (pid_ == 0) card_main(area_, setup);
  start_ns_ = rt::now_ns();
  // The card's threads are up before the first launch is timed.
  while (!area_->counters.ready.load(std::memory_order_acquire) && !card_exited()) usleep(200);
  pump_ = std::thread([this] { pump(); });
}

EmulatedCard::~EmulatedCard() {
  stopping_.store(true);
  area_->results.ring();
  if (pump_.joinable()) pump_.join();
  int status = 0;
  for (int i = 0; i < 5000 && pid_ > 0 && !dead_.load(); ++i) {
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      dead_.store(true);
      break;
    }
    usleep(1000);
  }
  if (!dead_.load() && pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
  }
  munmap(area_, map_bytes_);
}

std::string EmulatedCard::describe() const {
  return "emulated card (pid " + std::to_string(pid_) + "): " + cfg_.topology + ", " +
         std::to_string(slots_.size()) + " threads " + cfg_.affinity + " on host CPUs " +
         rt::format_cpu_list(host_cpus_);
}

bool EmulatedCard::card_exited() {
  if (dead_.load()) return true;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) != pid_) return false;
  death_ = "joule card: the card process (pid " + std::to_string(pid_) + ") died (" +
           (WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                : "exit status " + std::to_string(WEXITSTATUS(status))) +
           ")";
  dead_.store(true);
  return true;
}

DeviceEnergy EmulatedCard::energy() const {
  DeviceEnergy e;
  const CardCounters& c = area_->counters;
  e.seconds = double(rt::now_ns() - start_ns_) * 1e-9;
  e.busy_core_s = double(c.core_busy_ns.load()) * 1e-9;
  e.busy_thread_s = double(c.thread_busy_ns.load()) * 1e-9;
  e.joules = cfg_.power_idle * e.seconds + cfg_.power_core * e.busy_core_s +
             cfg_.power_thread * e.busy_thread_s;
  e.bytes_to_card = bytes_to_card_.load();
  e.bytes_to_host = bytes_to_host_.load();
  e.transfer_s = double(e.bytes_to_card + e.bytes_to_host) / (cfg_.pcie_gbs * 1e9);
  e.launches = launches_.load();
  return e;
}

}  // namespace joule::offload
