// Reads the CPU quota (cpu_quota.hpp): which groups the process is in
// (/proc/self/cgroup), where their hierarchies are mounted
// (/proc/self/mountinfo), then each group's limit files up to the mount.
#include "cpu_quota.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include "log.hpp"

namespace joule::core {
namespace {

// A cgroup hierarchy as mounted: the directory of the hierarchy that is
// mounted (mountinfo's 4th field) and where (the 5th).
struct Mount {
  std::string root, point;
};

// The process's group in the v2 hierarchy and in the v1 one with "cpu", and
// where those hierarchies are mounted.
struct Groups {
  std::optional<std::string> v2, v1;
};
struct Mounts {
  std::optional<Mount> v2, v1;
};

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (std::size_t at = 0; at <= s.size();) {
    const std::size_t end = std::min(s.find(sep, at), s.size());
    out.push_back(s.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

std::string_view strip(std::string_view s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.remove_suffix(1);
  return s;
}

bool has_item(std::string_view list, std::string_view item) {
  for (std::string_view x : split(list, ','))
    if (x == item) return true;
  return false;
}

// mountinfo writes a blank, tab, newline or backslash in a path as \ooo.
std::string unescape(std::string_view s) {
  auto octal = [&](std::size_t i) {
    return i + 3 < s.size() &&
           s.substr(i + 1, 3).find_first_not_of("01234567") == std::string_view::npos;
  };
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && octal(i)) {
      out += char((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

// "36 35 98:0 /root /point rw,noatime master:1 - cgroup2 cgroup2 rw": the
// optional fields end at "-", then the type, the source, the options.
Mounts parse_mountinfo(std::string_view text) {
  Mounts m;
  for (std::string_view line : split(text, '\n')) {
    const std::vector<std::string_view> f = split(line, ' ');
    std::size_t dash = 6;
    while (dash < f.size() && f[dash] != "-") ++dash;
    if (dash + 3 >= f.size()) continue;  // not a mount line (an empty last line)
    const Mount here{unescape(f[3]), unescape(f[4])};
    if (f[dash + 1] == "cgroup2" && !m.v2) m.v2 = here;
    if (f[dash + 1] == "cgroup" && has_item(f[dash + 3], "cpu") && !m.v1) m.v1 = here;
  }
  return m;
}

// "hierarchy-ID:controller-list:path" per line (cgroups(7)); "0::path" is
// v2. The path may itself hold ':'.
Groups parse_cgroup(std::string_view text) {
  Groups g;
  for (std::string_view line : split(text, '\n')) {
    const std::size_t a = line.find(':');
    const std::size_t b = a == std::string_view::npos ? a : line.find(':', a + 1);
    if (b == std::string_view::npos) continue;
    const std::string_view id = line.substr(0, a), controllers = line.substr(a + 1, b - a - 1);
    const std::string path(line.substr(b + 1));
    if (path.empty() || path.front() != '/') continue;
    if (id == "0" && controllers.empty()) g.v2 = path;
    if (has_item(controllers, "cpu")) g.v1 = path;
  }
  return g;
}

// Root "/" reads the machine's files; any other root, the same paths below it.
std::string under(const std::string& root, std::string_view path) {
  std::string_view r = root;
  while (!r.empty() && r.back() == '/') r.remove_suffix(1);
  return std::string(r) + std::string(path);
}

std::optional<std::int64_t> parse_integer(std::string_view v) {
  std::int64_t x = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || ec != std::errc() || p != v.data() + v.size()) return std::nullopt;
  return x;
}

// A file that is there but says nothing we can read: its limit is ignored.
void garbled(const std::string& file, std::string_view text) {
  const std::string shown(strip(text).substr(0, 40));
  warn_once("cpu-quota:" + file,
            "cannot parse " + file + " ('" + shown + "'); its CPU quota is ignored");
}

std::optional<CpuQuota> quota_of(std::int64_t quota, std::int64_t period, std::string file) {
  return CpuQuota{double(quota) / double(period), std::move(file)};
}

// v2: "max 100000" (no limit) or "150000 100000" (1.5 CPUs). No file: the
// cpu controller is not enabled for the group, or it is the root group.
std::optional<CpuQuota> v2_limit(const std::string& dir) {
  const std::string file = dir + "/cpu.max";
  const std::optional<std::string> text = read_file(file);
  if (!text) return std::nullopt;
  const std::vector<std::string_view> f = split(strip(*text), ' ');
  const std::optional<std::int64_t> period = f.size() == 2 ? parse_integer(f[1]) : std::nullopt;
  const std::optional<std::int64_t> quota = f.size() == 2 ? parse_integer(f[0]) : std::nullopt;
  if (period && *period > 0 && f[0] == "max") return std::nullopt;
  if (!period || *period <= 0 || !quota || *quota <= 0) {
    garbled(file, *text);
    return std::nullopt;
  }
  return quota_of(*quota, *period, file);
}

// v1: cpu.cfs_quota_us, -1 for no limit, over cpu.cfs_period_us.
std::optional<CpuQuota> v1_limit(const std::string& dir) {
  const std::string qfile = dir + "/cpu.cfs_quota_us", pfile = dir + "/cpu.cfs_period_us";
  const std::optional<std::string> qtext = read_file(qfile);
  if (!qtext) return std::nullopt;
  const std::optional<std::int64_t> quota = parse_integer(strip(*qtext));
  if (quota == -1) return std::nullopt;
  if (!quota || *quota <= 0) {
    garbled(qfile, *qtext);
    return std::nullopt;
  }
  const std::string ptext = read_file(pfile).value_or("");
  const std::optional<std::int64_t> period = parse_integer(strip(ptext));
  if (!period || *period <= 0) {
    garbled(pfile, ptext);
    return std::nullopt;
  }
  return quota_of(*quota, *period, qfile);
}

// The group's directory: the mount point, then the group's path below the
// mounted directory. A group outside what is mounted, or above the cgroup
// namespace's root ("/../.." in cgroup_namespaces(7)), is read at the mount
// point.
std::string group_dir(const Mount& m, std::string_view group) {
  std::string_view rel = group;
  if (m.root != "/") {
    const bool inside = group.substr(0, m.root.size()) == m.root &&
                        (group.size() == m.root.size() || group[m.root.size()] == '/');
    rel = inside ? group.substr(m.root.size()) : std::string_view{};
  }
  if (rel.find("/..") != std::string_view::npos) rel = {};
  while (!rel.empty() && rel.back() == '/') rel.remove_suffix(1);
  std::string_view point = m.point;
  while (point.size() > 1 && point.back() == '/') point.remove_suffix(1);
  return std::string(point == "/" && !rel.empty() ? "" : point) + std::string(rel);
}

// The tightest limit of the group and its ancestors up to the mount point.
template <class Limit>
std::optional<CpuQuota> tightest(const std::string& root, const Mount& m, std::string_view group,
                                 Limit limit) {
  std::string dir = group_dir(m, group);
  const std::size_t top = group_dir(m, m.root).size();
  std::optional<CpuQuota> best;
  for (;;) {
    std::optional<CpuQuota> q = limit(under(root, dir));
    if (q && (!best || q->cpus < best->cpus)) best = std::move(q);
    if (dir.size() <= top) return best;
    const std::size_t slash = dir.rfind('/');
    dir = slash == 0 ? "/" : dir.substr(0, slash);
  }
}

}  // namespace

std::optional<CpuQuota> read_cpu_quota(const std::string& root) {
  const std::optional<std::string> cgroup = read_file(under(root, "/proc/self/cgroup"));
  const std::optional<std::string> mountinfo = read_file(under(root, "/proc/self/mountinfo"));
  if (!cgroup || !mountinfo) return std::nullopt;
  const Groups groups = parse_cgroup(*cgroup);
  const Mounts mounts = parse_mountinfo(*mountinfo);
  std::optional<CpuQuota> best;
  if (groups.v2 && mounts.v2) best = tightest(root, *mounts.v2, *groups.v2, v2_limit);
  if (groups.v1 && mounts.v1) {
    std::optional<CpuQuota> v1 = tightest(root, *mounts.v1, *groups.v1, v1_limit);
    if (v1 && (!best || v1->cpus < best->cpus)) best = std::move(v1);
  }
  return best;
}

}  // namespace joule::core
