#include "dvfs_cpufreq.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <map>

#include <fcntl.h>
#include <unistd.h>
#include <sstream>

#include "log.hpp"
#include "restore_guard.hpp"
#include "text.hpp"

namespace joule::platform {
namespace {

class CpufreqDvfs final : public Dvfs {
 public:
  explicit CpufreqDvfs(Sysfs fs) : fs_(std::move(fs)) { caps_ = kCapSet | kCapReal; }
  const char* name() const override { return "cpufreq"; }

  void add(const std::vector<const CpufreqCpu*>& members) {
    std::vector<int> cpus;
    std::vector<Policy> pols;
    for (const CpufreqCpu* m : members) {
      cpus.push_back(m->cpu);
      const std::string canon = fs_.canonical(m->dir);
      bool dup = false;
      for (auto& p : pols) dup = dup || p.canonical == canon;
      if (!dup) {
        Policy p;
        p.dir = m->dir;
        p.canonical = canon;
        p.userspace = m->userspace;
        pols.push_back(std::move(p));
      }
    }
    std::sort(cpus.begin(), cpus.end());
    policies_.push_back(std::move(pols));
    owned_.push_back(0);
    notes_.emplace_back();
    const auto* first = members.front();
    const int level = first->cur_khz ? Dvfs::nearest_level(first->table, *first->cur_khz)
                                     : int(first->table.size()) - 1;
    add_domain(std::move(cpus), first->table, level);
  }

  ~CpufreqDvfs() override { close_files(); }

  void restore() override {
    std::vector<std::string> errors;
    if (RestoreGuard::instance().restore_all(&errors) > 0)
      for (auto& e : errors) core::warn_once("restore:" + e, "cpufreq: " + e);
    close_files();  // what they last held is no longer what the files hold
    // Ownership went with the originals; a later change claims again.
    std::fill(owned_.begin(), owned_.end(), char(0));
    for (auto& n : notes_) n.clear();
  }

  std::string domain_note(int d) const override { return notes_[std::size_t(d)]; }

 protected:
  bool apply(int d, std::uint32_t khz) override {
    if (!own(d)) return false;
    for (auto& p : policies_[std::size_t(d)])
      if (!(p.userspace ? apply_userspace(p, khz) : apply_minmax(p, khz))) return false;
    return true;
  }

 private:
  // A file joule writes again and again: opened once (after the first
  // write, which saves the original), written only when the value changes.
  // At 128 per-core domains this saves two open/close pairs per domain and
  // period (docs/performance.md).
  struct File {
    int fd = -1;
    std::string last;  // what we last wrote; empty: unknown
  };
  struct Policy {
    std::string dir, canonical;
    bool userspace = false;
    bool governor_set = false;  // we switched it to userspace (or found it so)
    File setspeed, min, max;
  };

  // Before the first change of a domain its CPUs must be ours: another live
  // joule process that changed them first holds their originals, and we
  // leave them alone (once refused, until restore(): no lock per change).
  bool own(int d) {
    const auto i = std::size_t(d);
    if (owned_[i]) return true;
    if (!notes_[i].empty()) return false;
    std::string why;
    if (!RestoreGuard::instance().claim(domain_cpus(d), fs_.root().empty() ? "/" : fs_.root(),
                                        &why)) {
      notes_[i] = "left alone: " + why;
      core::warn_once("held:" + std::to_string(d),
                      "cpufreq: cpu " + core::format_cpu_list(domain_cpus(d)) + " " + notes_[i] +
                          "; this process runs them at the frequency they have");
      return false;
    }
    owned_[i] = 1;
    return true;
  }

  void close_files() {
    for (auto& dom : policies_)
      for (auto& p : dom) {
        for (File* f : {&p.setspeed, &p.min, &p.max}) {
          if (f->fd >= 0) ::close(f->fd);
          *f = File{};
        }
        p.governor_set = false;
      }
  }

  bool write(const std::string& file, const std::string& value) {
    auto& guard = RestoreGuard::instance();
    const std::string real = fs_.path(file);
    if (!guard.saved(real)) {
      auto original = fs_.read_raw(file);
      std::string warning;
      if (!original || !guard.save(real, *original, &warning)) {
        core::warn_once("save:" + real,
                        "cpufreq: cannot save " + real + " before changing it; left alone");
        return false;
      }
      if (!warning.empty()) core::warn_once("statefile", warning);
    }
    if (fs_.write(file, value)) return true;
    core::warn_once("write:" + file, "cpufreq: cannot write " + real + ": " + std::strerror(errno));
    return false;
  }

  // The first write goes through write() (saving the original); later ones
  // reuse the open descriptor. A fake tree's regular file is truncated to
  // the value; sysfs ignores the truncate.
  bool put(const std::string& file, File& f, const std::string& value) {
    if (!f.last.empty() && f.last == value) return true;
    if (f.fd < 0) {
      if (!write(file, value)) return false;
      f.fd = ::open(fs_.path(file).c_str(), O_WRONLY | O_CLOEXEC);
      f.last = value;
      return true;
    }
    if (::pwrite(f.fd, value.data(), value.size(), 0) != ssize_t(value.size())) {
      core::warn_once("write:" + file,
                      "cpufreq: cannot write " + fs_.path(file) + ": " + std::strerror(errno));
      ::close(f.fd);
      f = File{};
      return false;
    }
    if (::ftruncate(f.fd, off_t(value.size())) != 0) {
      // sysfs attributes cannot be truncated, and need not be.
    }
    f.last = value;
    return true;
  }

  bool apply_userspace(Policy& p, std::uint32_t khz) {
    if (!p.governor_set) {
      if (fs_.read(p.dir + "/scaling_governor").value_or("") != "userspace") {
        // Save the set speed too: it changes meaning with the governor.
        if (!RestoreGuard::instance().saved(fs_.path(p.dir + "/scaling_setspeed"))) {
          auto sp = fs_.read_raw(p.dir + "/scaling_setspeed");
          std::string w;
          if (!sp || !RestoreGuard::instance().save(fs_.path(p.dir + "/scaling_setspeed"), *sp, &w))
            return false;
        }
        if (!write(p.dir + "/scaling_governor", "userspace")) return false;
      }
      p.governor_set = true;
    }
    return put(p.dir + "/scaling_setspeed", p.setspeed, std::to_string(khz));
  }

  // min = max = khz, in the order that never makes min > max on the way
  // (the current min is read once, then known from what we wrote).
  bool apply_minmax(Policy& p, std::uint32_t khz) {
    std::uint64_t lo = 0;
    if (p.min.last.empty())
      lo = fs_.read_u64(p.dir + "/scaling_min_freq").value_or(0);
    else
      lo = std::strtoull(p.min.last.c_str(), nullptr, 10);
    const std::string v = std::to_string(khz);
    if (khz >= lo)
      return put(p.dir + "/scaling_max_freq", p.max, v) &&
             put(p.dir + "/scaling_min_freq", p.min, v);
    return put(p.dir + "/scaling_min_freq", p.min, v) && put(p.dir + "/scaling_max_freq", p.max, v);
  }

  Sysfs fs_;
  std::vector<std::vector<Policy>> policies_;
  // Per domain, each touched only under that domain's lock (see apply).
  std::vector<char> owned_;         // claimed (cpu_owner.hpp)
  std::vector<std::string> notes_;  // why it is left alone; empty if not
};

}  // namespace

std::unique_ptr<Dvfs> make_cpufreq_dvfs(const Sysfs& fs, const Machine& machine,
                                        DvfsDomain domain_mode, CpufreqStatus* status) {
  std::string why_all;
  const std::vector<CpufreqCpu> infos = read_cpufreq_cpus(fs, &why_all);
  // Group CPUs: by the kernel's policy, or by chip.
  std::map<std::vector<int>, std::vector<const CpufreqCpu*>> groups;
  for (const auto& info : infos) {
    std::vector<int> key = info.related;
    if (domain_mode == DvfsDomain::chip) key = {machine.chip_of(info.cpu)};
    groups[key].push_back(&info);
  }
  auto dvfs = std::make_unique<CpufreqDvfs>(fs);
  CpufreqStatus st;
  for (auto& [key, members] : groups) {
    ++st.domains;
    bool w = true;
    for (auto* m : members) w = w && m->writable;
    if (!w) {
      why_all += (why_all.empty() ? "" : "; ") + std::string("cpu") +
                 std::to_string(members.front()->cpu) + ": read-only";
      continue;
    }
    ++st.writable;
    dvfs->add(members);
  }
  st.detail = why_all;
  if (status) *status = st;
  return dvfs;
}

}  // namespace joule::platform
