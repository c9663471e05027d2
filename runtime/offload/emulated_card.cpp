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

std::unique_ptr<Device> start_emulated_card(const CardSettings& cfg) {
  return EmulatedCard::start(cfg);
}
std::unique_ptr<Device> attach_card(const CardSettings& cfg) { return EmulatedCard::attach(cfg); }

EmulatedCard::EmulatedCard(const CardSettings& cfg, card_affinity::CardTopology topo)
    : cfg_(cfg), topo_(std::move(topo)) {}

CardPlan plan_card(const CardSettings& cfg) {
  card_affinity::CardTopology topo = card_affinity::CardTopology::from_synthetic(cfg.topology);
  const int threads = cfg.threads > 0 ? cfg.threads : topo.pu_count();
  if (threads > topo.pu_count())
    config_error("JOULE_CARD_THREADS=" + std::to_string(threads) + ": the card (" + cfg.topology +
                 ") has " + std::to_string(topo.pu_count()) + " PUs; use 1.." +
                 std::to_string(topo.pu_count()) + " (0: all)");
  const std::vector<int> allowed = allowed_cpus();
  std::vector<int> cpus = cfg.cpus.empty() ? allowed : cfg.cpus;
  for (int c : cpus)
    if (std::find(allowed.begin(), allowed.end(), c) == allowed.end())
      config_error("JOULE_CARD_CPUS=" + core::format_cpu_list(cfg.cpus) + ": CPU " +
                   std::to_string(c) + " is not in the process affinity mask (" +
                   core::format_cpu_list(allowed) + ")");
  std::vector<card_affinity::PuSlot> slots;
  try {
    slots =
        card_affinity::place_threads(topo, threads, card_affinity::parse_placement(cfg.affinity));
  } catch (const card_affinity::PlacementError& e) {
    config_error(e.what());
  }
  return {std::move(topo), std::move(slots), std::move(cpus), card_frequency(cfg)};
}

std::unique_ptr<EmulatedCard> EmulatedCard::start(const CardSettings& cfg) {
  CardPlan plan = plan_card(cfg);
  std::unique_ptr<EmulatedCard> card(new EmulatedCard(cfg, std::move(plan.topo)));
  card->slots_ = std::move(plan.slots);
  card->freq_.store(plan.freq);
  card->fork_card(std::move(plan.cpus));
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
  area_->counters.speed_permille.store(speed_permille(cfg_, freq_.load()));
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
  start_ns_ = core::now_ns();
  // The card's threads are up before the first launch is timed.
  while (!area_->counters.ready.load(std::memory_order_acquire) && !card_exited()) usleep(200);
  pump_ = std::thread([this] { pump(); });
}

EmulatedCard::~EmulatedCard() {
  if (!area_) {  // start or attach failed before the card was up
    if (daemon_fd_ >= 0) close(daemon_fd_);
    return;
  }
  stopping_.store(true);
  area_->results.ring();
  if (pump_.joinable()) pump_.join();
  for (int i = 0; i < 5000 && pid_ > 0 && !card_exited(); ++i) usleep(1000);
  if (!dead_.load() && pid_ > 0 && daemon_fd_ < 0) {
    int status = 0;
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
  }
  // Attached: closing the connection makes the daemon end the worker (if
  // it has not stopped) and reset its segment for the next host.
  if (daemon_fd_ >= 0) close(daemon_fd_);
  munmap(area_, map_bytes_);
}

std::string EmulatedCard::describe() const {
  return std::string(daemon_fd_ >= 0 ? "card of joule-card daemon '" + cfg_.daemon + "'"
                                     : "emulated card") +
         " (pid " + std::to_string(pid_) + "): " + cfg_.topology + ", " +
         std::to_string(slots_.size()) + " threads " + cfg_.affinity + " on host CPUs " +
         core::format_cpu_list(host_cpus_);
}

std::vector<std::string> EmulatedCard::thread_map() const {
  std::vector<std::string> lines;
  for (std::size_t t = 0; t < slots_.size(); ++t)
    lines.push_back(card_affinity::verbose_line(int(t), slots_[t]));
  return lines;
}

bool EmulatedCard::card_exited() {
  if (dead_.load()) return true;
  if (daemon_fd_ >= 0) return daemon_gone();
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
  e.seconds = double(core::now_ns() - start_ns_) * 1e-9;
  e.busy_core_s = double(c.core_busy_ns.load()) * 1e-9;
  e.busy_thread_s = double(c.thread_busy_ns.load()) * 1e-9;
  // Dynamic terms at the P-state each busy second ran at (card_dvfs.cpp).
  e.joules = cfg_.power_idle * e.seconds + cfg_.power_core * double(c.core_busy_wns.load()) * 1e-9 +
             cfg_.power_thread * double(c.thread_busy_wns.load()) * 1e-9;
  e.bytes_to_card = bytes_to_card_.load();
  e.bytes_to_host = bytes_to_host_.load();
  e.transfer_s = double(e.bytes_to_card + e.bytes_to_host) / (cfg_.pcie_gbs * 1e9);
  e.launches = launches_.load();
  return e;
}

}  // namespace joule::offload
