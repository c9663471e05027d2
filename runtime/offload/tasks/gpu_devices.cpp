#include "gpu_devices.hpp"

#include <algorithm>
#include <cstdlib>
#include <mutex>

#include "card_tasks.hpp"
#include "choices.hpp"
#include "log.hpp"
#include "nvml_clock_repair.hpp"
#include "platform_settings.hpp"
#include "runtime.hpp"
#include "state_check.hpp"

namespace joule::card_tasks {
namespace {

std::mutex g_mutex;  // opening, closing, the settings
// Built under g_mutex before g_count publishes it; unchanged while any is
// published (closed only between runs, at exit, with no task running).
std::vector<std::unique_ptr<Gpu>>* g_gpus = new std::vector<std::unique_ptr<Gpu>>();
std::atomic<int> g_count{0};
bool g_tried = false;  // opened (or failed to) with g_settings
std::string g_why;     // why there is none
cuda::CudaSettings g_settings;
std::string g_key;
std::atomic<std::uint64_t> g_polled_generation{0};  // the runtime polling the GPUs

std::string settings_key(const cuda::CudaSettings& s) {
  return std::string(core::choice_name(core::Choices<cuda::CudaMode>(cuda::kCudaModes), s.mode)) +
         "|" + s.driver + "|" + std::to_string(s.streams) + "|" + (s.pin ? "1" : "0") + "|" +
         s.nvml;
}

// The run's JOULE_CUDA_SM_CLOCK, if set; a refusal is reported, never fatal.
void apply_clock(Gpu& g) {
  if (g_settings.sm_clock_mhz <= 0) return;
  const cuda::GpuClockChange c = g.clocks->set_sm_clock_mhz(g_settings.sm_clock_mhz);
  if (!c.ok)
    core::log_warn("joule: JOULE_CUDA_SM_CLOCK=" + std::to_string(g_settings.sm_clock_mhz) +
                   " on " + g.name() + " not applied: " + c.message);
}

void close_locked() noexcept {
  g_count.store(0, std::memory_order_release);
  for (auto& g : *g_gpus) g->clocks->restore();
  g_gpus->clear();
  g_tried = false;
  g_why.clear();
}

void close_gpus_at_exit() {
  if (!engine::Runtime::stop_at_exit()) return;  // exit() inside a task: nothing finishes
  card_after_stop();                             // results still on the GPUs come home
  std::lock_guard lk(g_mutex);
  close_locked();
}

// Clocks a joule process that died left changed on these GPUs go back
// before this one opens them, as the platform's start does for the CPUs'
// state files; a GPU a running process holds waits for that one.
void repair_dead_owners(const cuda::CudaProbe& probe) {
  cuda::nvml::ClockRepairOptions o;
  o.nvml = g_settings.nvml;
  for (const cuda::CudaDeviceInfo& d : probe.devices) o.bus_ids.push_back(d.pci_bus_id);
  if (o.bus_ids.empty()) return;
  const std::string dir =
      g_settings.state_dir.empty() ? core::Config::default_state_dir() : g_settings.state_dir;
  const auto r = cuda::nvml::repair_clock_records(dir, o, &platform::read_trusted_state_text);
  for (const std::string& m : r.messages) {
    if (m.rfind("reset", 0) == 0)
      core::log_info(m + " (clock record in " + dir + ")");
    else
      core::log_warn(m);
  }
}

void open_locked() {
  if (g_tried) return;
  g_tried = true;
  const cuda::CudaProbe probe = probe_cuda(g_settings);
  repair_dead_owners(probe);
  std::string why;
  // The clocks are the registry's (apply_clock at each start, restored at
  // each stop): a device left to lock them keeps them locked until it closes.
  cuda::CudaSettings unclocked = g_settings;
  unclocked.sm_clock_mhz = 0;
  std::vector<std::unique_ptr<offload::Device>> devs;
  if (!probe.devices.empty()) devs = cuda::open_cuda_devices(unclocked, &why);
  const std::size_t n = std::min(devs.size(), probe.devices.size());  // both by ordinal
  for (std::size_t i = 0; i < n; ++i) {
    auto g = std::make_unique<Gpu>();
    g->info = probe.devices[i];
    g->device = std::move(devs[i]);
    g->clocks = cuda::open_gpu_meter(g_settings, g->info.pci_bus_id);
    apply_clock(*g);
    g_gpus->push_back(std::move(g));
  }
  g_why = n ? "" : !probe.why_none.empty() ? probe.why_none : why.empty() ? "no CUDA GPU" : why;
  if (n) {
    static const bool registered = (std::atexit(close_gpus_at_exit), true);
    (void)registered;
  }
  g_count.store(int(n), std::memory_order_release);
}

int poll_gpus(void*) {
  const int n = open_gpu_count();
  for (int i = 0; i < n; ++i) {
    Gpu& g = open_gpu(i);
    try {
      g.device->poll_completions();
    } catch (const std::exception& e) {  // a completion that threw: said, never out of a poll
      core::log_error(g.name() + ": " + e.what());
    }
    trace_gpu_sample(i, g);
  }
  return 0;  // stays registered for the runtime's life
}

// The GPUs' completions run from the engine's polling services.
void poll_from_this_runtime() {
  const std::uint64_t gen = engine::Runtime::generation();
  if (g_polled_generation.load(std::memory_order_acquire) == gen) return;
  std::lock_guard lk(g_mutex);
  if (g_polled_generation.load(std::memory_order_relaxed) == gen) return;
  engine::Runtime::get().polling().add("joule cuda completions", &poll_gpus, nullptr);
  g_polled_generation.store(gen, std::memory_order_release);
}

std::string allowed_gpus(int n) { return n == 1 ? "0" : "0.." + std::to_string(n - 1); }

Gpu& gpu_numbered(int device_num, const char* what) {
  std::string why;
  const int n = open_gpus(&why);
  if (n == 0)
    throw error(JOULE_ERR_STATE, std::string("joule: ") + what + " but no CUDA GPU: " + why);
  if (device_num < 0 || device_num >= n)
    throw error(JOULE_ERR_INVALID, std::string("joule: ") + what + ": no GPU " +
                                       std::to_string(device_num) +
                                       " (allowed device_num: " + allowed_gpus(n) + ")");
  return open_gpu(device_num);
}

}  // namespace

std::unique_ptr<core::Observer> start_gpus(const core::Config& cfg) {
  std::lock_guard lk(g_mutex);
  const cuda::CudaSettings& s = cfg.get<cuda::CudaSettings>();
  const std::string key = settings_key(s);
  if (key != g_key) close_locked();  // another driver or stream count: reopen
  g_settings = s;
  // GPU clock records go where `joule-ctl restore` looks for the CPUs' (JOULE_STATE_DIR).
  g_settings.state_dir = cfg.get<platform::PlatformSettings>().state_dir;
  g_key = key;
  const int n = g_count.load(std::memory_order_relaxed);
  for (int i = 0; i < n; ++i) {
    apply_clock(open_gpu(i));   // a new run's JOULE_CUDA_SM_CLOCK
    open_gpu(i).traced_ns = 0;  // and a new trace, sampled from its start
  }
  if (s.mode == cuda::CudaMode::required) {
    open_locked();
    if (g_count.load(std::memory_order_relaxed) == 0)
      throw error(JOULE_ERR_CONFIG, "joule: JOULE_CUDA=required but no CUDA GPU: " + g_why);
  }
  return cfg.report ? make_gpu_report() : nullptr;
}

int open_gpu_count() noexcept { return g_count.load(std::memory_order_acquire); }

Gpu& open_gpu(int i) noexcept { return *(*g_gpus)[std::size_t(i)]; }

int open_gpus(std::string* why) {
  engine::Runtime::get();  // its start records the settings (start_gpus)
  std::lock_guard lk(g_mutex);
  open_locked();
  if (why) *why = g_why;
  return g_count.load(std::memory_order_relaxed);
}

Gpu& gpu_for_task(int device_num) {
  Gpu& g = gpu_numbered(device_num, "a task for device(cuda)");
  poll_from_this_runtime();
  return g;
}

std::vector<GpuStatus> gpu_statuses() {
  std::vector<GpuStatus> out;
  const int n = open_gpu_count();
  for (int i = 0; i < n; ++i) {
    Gpu& g = open_gpu(i);
    GpuStatus s{g.info,
                g.device->energy(),
                g.coherence.stats(),
                g.tasks.load(std::memory_order_relaxed),
                g.clocks->sm_clock_mhz(),
                g.clocks->source()};
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<int> gpu_sm_clocks(int device_num) {
  return gpu_numbered(device_num, "cuda_sm_clocks").clocks->sm_clocks_mhz();
}

void set_gpu_sm_clock(int device_num, int mhz) {
  Gpu& g = gpu_numbered(device_num, "set_cuda_sm_clock");
  const std::vector<int> clocks = g.clocks->sm_clocks_mhz();
  if (!clocks.empty() && std::find(clocks.begin(), clocks.end(), mhz) == clocks.end()) {
    std::string allowed;
    for (int c : clocks) allowed += (allowed.empty() ? "" : ", ") + std::to_string(c);
    throw error(JOULE_ERR_INVALID, "joule: set_cuda_sm_clock: " + std::to_string(mhz) +
                                       " MHz is not a supported SM clock of " + g.name() +
                                       " (allowed: " + allowed + ")");
  }
  const cuda::GpuClockChange c = g.clocks->set_sm_clock_mhz(mhz);
  if (!c.ok)
    throw error(JOULE_ERR_STATE, "joule: set_cuda_sm_clock(" + std::to_string(device_num) + ", " +
                                     std::to_string(mhz) + "): " + c.message);
}

void gpus_after_stop() noexcept {
  std::lock_guard lk(g_mutex);
  const int n = g_count.load(std::memory_order_relaxed);
  for (int i = 0; i < n; ++i) open_gpu(i).clocks->restore();
}

}  // namespace joule::card_tasks
