#include "cpufreq_policy.hpp"

#include <algorithm>
#include <charconv>
#include <sstream>

namespace joule::platform {
namespace {

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

}  // namespace

bool read_cpufreq_cpu(const Sysfs& fs, int cpu, CpufreqCpu& info, std::string& why) {
  info.cpu = cpu;
  info.dir = std::string(kCpufreqCpuDir) + "/cpu" + std::to_string(cpu) + "/cpufreq";
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
  if (auto cur = fs.read_u64(info.dir + "/scaling_cur_freq")) info.cur_khz = std::uint32_t(*cur);
  return true;
}

std::vector<CpufreqCpu> read_cpufreq_cpus(const Sysfs& fs, std::string* why_all) {
  std::vector<CpufreqCpu> infos;
  for (const auto& name : fs.list(kCpufreqCpuDir)) {
    int cpu = -1;
    if (name.size() < 4 || name.rfind("cpu", 0) != 0) continue;
    auto [p, ec] = std::from_chars(name.data() + 3, name.data() + name.size(), cpu);
    if (ec != std::errc() || p != name.data() + name.size()) continue;
    CpufreqCpu info;
    std::string why;
    if (read_cpufreq_cpu(fs, cpu, info, why))
      infos.push_back(std::move(info));
    else if (!why.empty() && why_all)
      *why_all += (why_all->empty() ? "" : "; ") + why;
  }
  std::sort(infos.begin(), infos.end(), [](auto& a, auto& b) { return a.cpu < b.cpu; });
  return infos;
}

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

}  // namespace joule::platform
