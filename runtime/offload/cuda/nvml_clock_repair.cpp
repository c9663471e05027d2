#include "nvml_clock_repair.hpp"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>

#include "nvml_clock_record.hpp"
#include "process_identity.hpp"

namespace joule::cuda::nvml {
namespace {

struct Found {
  std::string name;
  ClockRecord record;
  bool alive = false;
};

std::vector<std::string> record_names(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d))
      if (is_clock_record_name(e->d_name)) names.push_back(e->d_name);
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool wanted(const ClockRepairOptions& o, const std::string& bus) {
  return o.bus_ids.empty() || std::find(o.bus_ids.begin(), o.bus_ids.end(), bus) != o.bus_ids.end();
}

// The trusted records of the wanted GPUs; the others counted as refused.
std::vector<Found> trusted_records(const std::string& dir, const ClockRepairOptions& o,
                                   const TrustedReader& read, ClockRepairResult& r) {
  std::vector<Found> out;
  for (const std::string& name : record_names(dir)) {
    std::string why;
    const auto text = read(dir, name, &why);
    auto rec = text ? parse_clock_record(*text) : std::nullopt;
    if (text && !rec)
      why = "not a GPU clock record";
    else if (rec && clock_record_name(rec->pid, rec->bus_id) != name)
      why = "its contents do not match its name";
    if (!rec || !why.empty()) {
      ++r.refused;
      r.messages.push_back("refused state file " + dir + "/" + name + ": " + why + "; left alone");
      continue;
    }
    if (!wanted(o, rec->bus_id)) continue;
    const bool alive = rec->pid == ::getpid() || core::process_alive(rec->pid, rec->start_time);
    out.push_back({name, *rec, alive});
  }
  return out;
}

// The running process holding a record for f's GPU, or 0.
int live_holder(const std::vector<Found>& all, const Found& f) {
  for (const Found& o : all)
    if (o.alive && &o != &f && o.record.bus_id == f.record.bus_id) return o.record.pid;
  return 0;
}

void repair_one(const std::string& dir, const ClockRepairOptions& o, const Found& f,
                ClockRepairResult& r) {
  const std::string what =
      "GPU " + f.record.bus_id + " clocks changed by process " + std::to_string(f.record.pid);
  if (o.dry_run) {
    r.messages.push_back("would reset " + what);
    return;
  }
  std::string why;
  const Library* lib = load_library(o.nvml, &why);
  if (lib && undo_clock_record(*lib, f.record, &why)) {
    ::unlink((dir + "/" + f.name).c_str());
    ++r.repaired;
    r.messages.push_back("reset " + what);
    return;
  }
  ++r.failed;
  r.messages.push_back("could not reset " + what + ": " + why);
}

}  // namespace

ClockRepairResult repair_clock_records(const std::string& dir, const ClockRepairOptions& o,
                                       const TrustedReader& read) {
  ClockRepairResult r;
  const std::vector<Found> all = trusted_records(dir, o, read, r);
  for (const Found& f : all) {
    const bool mine = f.record.pid == ::getpid();
    if (mine || (f.alive && !o.include_live)) {
      ++r.live;
      continue;
    }
    if (const int holder = f.alive || o.include_live ? 0 : live_holder(all, f)) {
      ++r.live;
      r.messages.push_back("left GPU " + f.record.bus_id + " clocks changed by process " +
                           std::to_string(f.record.pid) + " (gone) for later: process " +
                           std::to_string(holder) + " holds the GPU's clocks now");
      continue;
    }
    repair_one(dir, o, f, r);
  }
  return r;
}

}  // namespace joule::cuda::nvml
