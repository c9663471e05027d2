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

const std::string kCpuDir = "/sys/devices/system/cpu";

struct CpuInfo {
  int cpu = 0;
  std::string dir;  // kernel path of cpuN/cpufreq
  std::vector<std::uint32_t> table;
  std::vector<int> related;
  bool userspace = false;  // else pin min = max
  bool writable = false;
  int level = 0;
};

bool has_word(const std::string& text, const std::string& word) {
  std::istringstream is(text);
  for (std::string w; is >> w;)
    if (w == word) return true;
  return false;
}

std::vector<std::uint32_t> table_of(const Sysfs& fs, const std::string& dir) {
  if (auto t = fs.read(dir + "/scaling_available_frequencies")) {
    auto list = parse_frequency_list(*t);
    if (!list.empty()) return list;
  }
  auto lo = fs.read_u64(dir + "/cpuinfo_min_freq"), hi = fs.read_u64(dir + "/cpuinfo_max_freq");
  if (!lo || !hi) {
    lo = fs.read_u64(dir + "/scaling_min_freq");
    hi = fs.read_u64(dir + "/scaling_max_freq");
  }
  std::vector<std::uint32_t> out;
  if (!lo || !hi || *lo == 0 || *hi < *lo || *hi > 100000000) return out;
  for (std::uint64_t f = *lo; f < *hi && out.size() < 255; f += 100000)
    out.push_back(std::uint32_t(f));
  out.push_back(std::uint32_t(*hi));
  return out;
}

// Reads one CPU's policy; false (with a reason) if it cannot be controlled.
bool read_cpu(const Sysfs& fs, int cpu, CpuInfo& info, std::string& why) {
  info.cpu = cpu;
  info.dir = kCpuDir + "/cpu" + std::to_string(cpu) + "/cpufreq";
  if (!fs.exists(info.dir)) return false;  // offline or no cpufreq: silently skipped
  info.table = table_of(fs, info.dir);
  if (info.table.empty()) {
    why = "cpu" + std::to_string(cpu) + ": no frequency list or cpuinfo_min/max_freq";
    return false;
  }
  const auto governors = fs.read(info.dir + "/scaling_available_governors").value_or("");
  const bool setspeed = fs.exists(info.dir + "/scaling_setspeed");
  const bool minmax =
      fs.exists(info.dir + "/scaling_min_freq") && fs.exists(info.dir + "/scaling_max_freq");
  info.userspace =
      has_word(governors, "userspace") && setspeed && fs.exists(info.dir + "/scaling_governor");
  if (!info.userspace && !minmax) {
    why = "cpu" + std::to_string(cpu) + ": neither the userspace governor nor scaling_min/max_freq";
    return false;
  }
  info.writable = info.userspace ? fs.writable(info.dir + "/scaling_governor") &&
                                       fs.writable(info.dir + "/scaling_setspeed")
                                 : fs.writable(info.dir + "/scaling_min_freq") &&
                                       fs.writable(info.dir + "/scaling_max_freq");
  auto rel = fs.read(info.dir + "/related_cpus");
  if (!rel || rel->empty()) rel = fs.read(info.dir + "/affected_cpus");
  info.related = rel ? parse_cpu_set(*rel) : std::vector<int>{};
  if (std::find(info.related.begin(), info.related.end(), cpu) == info.related.end())
    info.related.push_back(cpu);
  std::sort(info.related.begin(), info.related.end());
  auto cur = fs.read_u64(info.dir + "/scaling_cur_freq");
  info.level =
      cur ? Dvfs::nearest_level(info.table, std::uint32_t(*cur)) : int(info.table.size()) - 1;
  return true;
}

class CpufreqDvfs final : public Dvfs {
 public:
  explicit CpufreqDvfs(Sysfs fs) : fs_(std::move(fs)) { caps_ = kCapSet | kCapReal; }
  const char* name() const override { return "cpufreq"; }

  void add(const std::vector<const CpuInfo*>& members) {
    std::vector<int> cpus;
    std::vector<Policy> pols;
    for (const CpuInfo* m : members) {
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
    add_domain(std::move(cpus), members.front()->table, members.front()->level);
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

std::vector<std::uint32_t> parse_frequency_list(const std::string& text) {
  std::vector<std::uint32_t> out;
  std::istringstream is(text);
  for (std::string w; is >> w;) {
    std::uint64_t x = 0;
    auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), x);
    if (ec == std::errc() && p == w.data() + w.size() && x > 0 && x < 100000000)
      out.push_back(std::uint32_t(x));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::unique_ptr<Dvfs> make_cpufreq_dvfs(const Sysfs& fs, const Machine& machine,
                                        DvfsDomain domain_mode, CpufreqStatus* status) {
  std::vector<CpuInfo> infos;
  std::string why_all;
  for (const auto& name : fs.list(kCpuDir)) {
    int cpu = -1;
    if (name.size() < 4 || name.rfind("cpu", 0) != 0) continue;
    auto [p, ec] = std::from_chars(name.data() + 3, name.data() + name.size(), cpu);
    if (ec != std::errc() || p != name.data() + name.size()) continue;
    CpuInfo info;
    std::string why;
    if (read_cpu(fs, cpu, info, why))
      infos.push_back(std::move(info));
    else if (!why.empty())
      why_all += (why_all.empty() ? "" : "; ") + why;
  }
  std::sort(infos.begin(), infos.end(), [](auto& a, auto& b) { return a.cpu < b.cpu; });
  // Group CPUs: by the kernel's policy, or by chip.
  std::map<std::vector<int>, std::vector<const CpuInfo*>> groups;
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
