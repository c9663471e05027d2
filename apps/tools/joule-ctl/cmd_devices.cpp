// joule-ctl devices: the offload devices joule would see here, read through
// the configuration layer as the runtime reads them: the many-core card as
// configured (JOULE_CARD ...) and each CUDA GPU the driver shows, with what
// NVML can measure and whether its clocks could be changed (decided without
// changing anything). Starts no runtime.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "card_settings.hpp"
#include "commands.hpp"
#include "config.hpp"
#include "cuda_device.hpp"
#include "gpu_meter.hpp"
#include "nvml_clocks.hpp"
#include "text.hpp"

namespace joule::ctl {
namespace {

using core::json_quote;
using cuda::CudaDeviceInfo;

struct GpuView {
  CudaDeviceInfo info;
  std::string meter;  // "nvml" or "none: ..."
  int sm_now = 0;
  std::vector<int> clocks;
  bool energy = false, power = false, free_known = false;
  double joules = 0, watts = 0;
  std::string settable;
};

struct View {
  offload::CardSettings card;
  std::string why_none;
  int driver_version = 0;
  std::vector<GpuView> gpus;
};

GpuView look_at(const cuda::CudaSettings& s, const CudaDeviceInfo& d) {
  GpuView g;
  g.info = d;
  auto m = cuda::open_gpu_meter(s, d.pci_bus_id);
  g.meter = m->source();
  g.sm_now = m->sm_clock_mhz();
  g.clocks = m->sm_clocks_mhz();
  g.energy = m->energy_joules(&g.joules);
  g.power = m->power_watts(&g.watts);
  g.settable = g.meter == "nvml" ? cuda::nvml::clock_permission(s, d.pci_bus_id)
                                 : "unknown (" + g.meter + ")";
  // The driver's probe cannot read free memory without a context; NVML can.
  cuda::nvml::Memory mem{};
  if (cuda::nvml::device_memory(s, d.pci_bus_id, &mem)) {
    g.info.total_bytes = mem.total;
    g.info.free_bytes = mem.free;
    g.free_known = true;
  }
  return g;
}

View look(const core::Config& cfg) {
  View v;
  v.card = cfg.get<offload::CardSettings>();
  const auto& s = cfg.get<cuda::CudaSettings>();
  const cuda::CudaProbe p = cuda::probe_cuda(s);
  v.why_none = p.devices.empty() ? p.why_none : "";
  v.driver_version = p.driver_version;
  for (const auto& d : p.devices) v.gpus.push_back(look_at(s, d));
  return v;
}

std::string card_mode(const offload::CardSettings& c) {
  return core::choice_name<offload::CardMode>(offload::kCardModes, c.mode);
}

std::string card_line(const offload::CardSettings& c) {
  const std::string mode = card_mode(c);
  if (c.mode == offload::CardMode::none) return "none (JOULE_CARD=none)";
  std::string out = mode + ": topology \"" + c.topology + "\", threads " +
                    (c.threads ? std::to_string(c.threads) : std::string("every PU")) +
                    ", affinity " + c.affinity;
  if (c.mode == offload::CardMode::attach) out += ", daemon " + c.daemon;
  return out;
}

std::string gib(std::size_t bytes) { return core::format_number("%.1f GiB", bytes / 1073741824.0); }

std::string clock_range(const std::vector<int>& c) {
  if (c.empty()) return "unknown";
  return std::to_string(c.back()) + ".." + std::to_string(c.front()) + " MHz (" +
         std::to_string(c.size()) + " clocks)";
}

void print_gpu(const GpuView& g) {
  const auto& d = g.info;
  std::printf("GPU %d: %s (bus %s)\n", d.index, d.name.c_str(), d.pci_bus_id.c_str());
  const std::string free = g.free_known ? gib(d.free_bytes) + " free" : "free unknown";
  std::printf("  memory:    %s total, %s\n", gib(d.total_bytes).c_str(), free.c_str());
  std::printf("  compute:   capability %d.%d, %d SMs\n", d.cc_major, d.cc_minor, d.sm_count);
  const std::string now = g.sm_now > 0 ? std::to_string(g.sm_now) + " MHz" : "unknown";
  std::printf("  SM clock:  now %s, %d MHz max; supported %s\n", now.c_str(), d.sm_clock_mhz_max,
              clock_range(g.clocks).c_str());
  std::printf("  meter:     %s\n", g.meter.c_str());
  std::printf("  energy:    %s\n", g.energy
                                       ? core::format_number("readable (%.3f J)", g.joules).c_str()
                                       : "not readable");
  std::printf("  power:     %s\n",
              g.power ? core::format_number("readable (%.1f W)", g.watts).c_str() : "not readable");
  std::printf("  clocks settable: %s\n", g.settable.c_str());
}

void print_text(const View& v) {
  std::printf("many-core card: %s\n", card_line(v.card).c_str());
  if (v.gpus.empty()) {
    std::printf("no CUDA device (%s)\n", v.why_none.c_str());
    return;
  }
  std::printf("CUDA driver %d.%d, %zu GPU(s)\n", v.driver_version / 1000,
              v.driver_version % 1000 / 10, v.gpus.size());
  for (const auto& g : v.gpus) print_gpu(g);
}

std::string gpu_json(const GpuView& g) {
  const auto& d = g.info;
  std::string clocks;
  for (int c : g.clocks) clocks += (clocks.empty() ? "" : ",") + std::to_string(c);
  auto num = [](double x) { return core::format_number("%.3f", x); };
  return "{\"index\":" + std::to_string(d.index) + ",\"name\":" + json_quote(d.name) +
         ",\"pci_bus_id\":" + json_quote(d.pci_bus_id) +
         ",\"total_bytes\":" + std::to_string(d.total_bytes) +
         ",\"free_bytes\":" + (g.free_known ? std::to_string(d.free_bytes) : "null") +
         ",\"compute_capability\":" +
         json_quote(std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)) +
         ",\"sm_count\":" + std::to_string(d.sm_count) +
         ",\"sm_clock_mhz\":" + std::to_string(g.sm_now) +
         ",\"sm_clock_mhz_max\":" + std::to_string(d.sm_clock_mhz_max) + ",\"sm_clocks_mhz\":[" +
         clocks + "],\"meter\":" + json_quote(g.meter) +
         ",\"energy_joules\":" + (g.energy ? num(g.joules) : "null") +
         ",\"power_watts\":" + (g.power ? num(g.watts) : "null") +
         ",\"clocks_settable\":" + json_quote(g.settable) + "}";
}

void print_json(const View& v) {
  const auto& c = v.card;
  std::printf("{\"card\":{\"mode\":%s,\"topology\":%s,\"threads\":%d,\"affinity\":%s},",
              json_quote(card_mode(c)).c_str(), json_quote(c.topology).c_str(), c.threads,
              json_quote(c.affinity).c_str());
  std::printf("\"cuda\":{\"driver_version\":%d,\"why_none\":%s,\"gpus\":[", v.driver_version,
              v.gpus.empty() ? json_quote(v.why_none).c_str() : "null");
  for (std::size_t i = 0; i < v.gpus.size(); ++i)
    std::printf("%s%s", i ? "," : "", gpu_json(v.gpus[i]).c_str());
  std::printf("]}}\n");
}

void devices_usage(std::FILE* out) {
  std::fprintf(out,
               "usage: joule-ctl devices [--json]\n\n"
               "Lists the offload devices joule sees with this environment's settings:\n"
               "the many-core card (JOULE_CARD, JOULE_CARD_TOPOLOGY, ...) and each CUDA\n"
               "GPU the driver shows (JOULE_CUDA, JOULE_CUDA_DRIVER, JOULE_NVML_LIBRARY):\n"
               "memory, compute capability, SM clocks, whether NVML reads its energy and\n"
               "power, and whether its clocks could be set (nothing is changed).\n\n"
               "  --json  one JSON object, for scripts\n");
}

}  // namespace

int cmd_devices(int argc, char** argv) {
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      devices_usage(stdout);
      return kOk;
    }
    if (a != "--json") {
      std::fprintf(stderr, "joule-ctl devices: unknown option '%s'\n", a.c_str());
      devices_usage(stderr);
      return kUsage;
    }
    json = true;
  }
  try {
    const View v = look(core::Config::load({}));
    json ? print_json(v) : print_text(v);
    return kOk;
  } catch (const std::exception& e) {  // a bad setting: joule::error names the key
    std::fprintf(stderr, "joule-ctl devices: %s\n", e.what());
    return kUsage;
  }
}

}  // namespace joule::ctl
