// `joule-ctl restore`'s GPU part: the clock records (nvml_clock_record.hpp)
// of joule processes that are gone, undone through NVML. A record is
// trusted under the same ownership rules as the CPU state files
// (state_check.hpp) and must name its owner and GPU as its file name does.
#include <dirent.h>
#include <unistd.h>

#include <algorithm>

#include "commands.hpp"
#include "nvml_clock_record.hpp"
#include "state_check.hpp"

namespace joule::ctl {
namespace {

using offload::nvml::ClockRecord;

std::vector<std::string> record_names(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d))
      if (offload::nvml::is_clock_record_name(e->d_name)) names.push_back(e->d_name);
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<ClockRecord> trusted_record(const std::string& dir, const std::string& name,
                                          std::string* why) {
  auto text = platform::read_trusted_state_text(dir, name, why);
  if (!text) return std::nullopt;
  auto rec = offload::nvml::parse_clock_record(*text);
  if (!rec)
    *why = "not a GPU clock record";
  else if (offload::nvml::clock_record_name(rec->pid, rec->bus_id) != name)
    *why = "its contents do not match its name";
  else
    return rec;
  return std::nullopt;
}

// One record: refused, live, or undone and removed.
void repair_one(const GpuRestore& g, const std::string& name, platform::RepairResult& r) {
  const std::string path = g.dir + "/" + name;
  std::string why;
  const auto rec = trusted_record(g.dir, name, &why);
  if (!rec) {
    ++r.refused;
    r.messages.push_back("refused state file " + path + ": " + why + "; left alone");
    return;
  }
  if (rec->pid == ::getpid() || (!g.options.include_live && platform::process_alive(rec->pid, 0))) {
    ++r.live;
    return;
  }
  const std::string what =
      "GPU " + rec->bus_id + " clocks changed by process " + std::to_string(rec->pid);
  if (g.options.dry_run) {
    r.messages.push_back("would reset " + what);
    return;
  }
  const offload::nvml::Library* lib = offload::nvml::load_library(g.nvml, &why);
  if (lib && offload::nvml::undo_clock_record(*lib, *rec, &why)) {
    ::unlink(path.c_str());
    ++r.repaired;
    r.messages.push_back("reset " + what);
    return;
  }
  ++r.failed;
  r.messages.push_back("could not reset " + what + ": " + why);
}

}  // namespace

void restore_gpu_clocks(const GpuRestore& g, platform::RepairResult& r) {
  for (const auto& name : record_names(g.dir)) repair_one(g, name, r);
}

}  // namespace joule::ctl
