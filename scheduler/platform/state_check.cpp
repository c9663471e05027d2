#include "state_check.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace joule::platform {
namespace {

constexpr const char* kCpuDir = "/sys/devices/system/cpu";

bool fail(std::string* why, std::string reason) {
  if (why) *why = std::move(reason);
  return false;
}

std::string mode_text(mode_t m) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", unsigned(m & 07777));
  return buf;
}

// The folder's owner and mode, from an open descriptor (no race with a
// rename between the check and the read).
bool trusted_dir_fd(int fd, const std::string& dir, std::string* why) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode))
    return fail(why, "its folder " + dir + " is not a directory");
  if (st.st_uid != ::geteuid())
    return fail(why, "its folder " + dir + " is owned by uid " + std::to_string(st.st_uid) +
                         ", not by uid " + std::to_string(::geteuid()) + " (this process)");
  if (st.st_mode & 022)
    return fail(why, "its folder " + dir + " has mode " + mode_text(st.st_mode) +
                         ": group or others may write it (allowed: no group/other write bit)");
  return true;
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// "cpuN/cpufreq/NAME" or "cpufreq/policyN/NAME", relative to the cpu folder.
bool cpufreq_layout(std::string_view rel, std::string_view name) {
  const auto tail = "/" + std::string(name);
  if (rel.size() <= tail.size() || rel.substr(rel.size() - tail.size()) != tail) return false;
  rel.remove_suffix(tail.size());
  if (rel.rfind("cpufreq/policy", 0) == 0) return all_digits(rel.substr(14));
  const auto slash = rel.find('/');
  if (slash == std::string_view::npos || rel.substr(slash) != "/cpufreq") return false;
  return rel.rfind("cpu", 0) == 0 && all_digits(rel.substr(3, slash - 3));
}

bool has_dot_component(std::string_view p) {
  std::size_t i = 0;
  while (i <= p.size()) {
    const std::size_t j = std::min(p.find('/', i), p.size());
    const std::string_view c = p.substr(i, j - i);
    if (c == "." || c == "..") return true;
    i = j + 1;
  }
  return false;
}

// One frequency in kHz, as cpufreq prints it ("2400000\n").
bool frequency_text(std::string_view v) {
  if (!v.empty() && v.back() == '\n') v.remove_suffix(1);
  if (!all_digits(v) || v.size() > 9) return false;
  unsigned long x = 0;
  std::from_chars(v.data(), v.data() + v.size(), x);
  return x > 0 && x < 100000000;
}

// A governor name: the kernel allows 15 characters; joule accepts [a-z0-9_].
bool governor_text(std::string_view v) {
  if (!v.empty() && v.back() == '\n') v.remove_suffix(1);
  if (v.empty() || v.size() > 15) return false;
  for (char c : v)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

bool content_ok(std::string_view name, std::string_view v) {
  if (name == "scaling_governor") return governor_text(v);
  if (name == "scaling_setspeed")
    return frequency_text(v) || v == "<unsupported>\n" || v == "<unsupported>";
  return frequency_text(v);
}

std::string printable(const std::string& s) {
  std::string out;
  for (char c : s.substr(0, 40)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return s.size() > 40 ? out + "... (" + std::to_string(s.size()) + " bytes)" : out;
}

// A regular file owned by the effective user, 0600 or stricter, bounded.
bool trusted_file_fd(int fd, std::string* why) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return fail(why, "it is not a regular file");
  if (st.st_uid != ::geteuid())
    return fail(why, "it is owned by uid " + std::to_string(st.st_uid) + ", not by uid " +
                         std::to_string(::geteuid()) + " (this process)");
  if (st.st_mode & 077)
    return fail(why, "it has mode " + mode_text(st.st_mode) + " (allowed: 0600 or stricter)");
  if (std::size_t(st.st_size) > kMaxStateFileBytes)
    return fail(why, "it has " + std::to_string(st.st_size) + " bytes (allowed: at most " +
                         std::to_string(kMaxStateFileBytes) + ")");
  return true;
}

std::optional<std::string> read_fd(int fd, std::string* why) {
  struct stat st {};
  ::fstat(fd, &st);
  const std::size_t size = std::size_t(st.st_size);
  std::string text(size, '\0');
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = ::read(fd, text.data() + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += std::size_t(n);
  }
  if (got != size) {
    fail(why, "it cannot be read whole");
    return std::nullopt;
  }
  return text;
}

}  // namespace

bool trusted_state_dir(const std::string& dir, std::string* why) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return fail(why, "cannot open " + dir + ": " + std::strerror(errno));
  const bool ok = trusted_dir_fd(fd, dir, why);
  ::close(fd);
  return ok;
}

std::optional<std::string> read_trusted_state_text(const std::string& dir, const std::string& name,
                                                   std::string* why) {
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) {
    fail(why, "cannot open its folder " + dir + ": " + std::strerror(errno));
    return std::nullopt;
  }
  std::optional<std::string> text;
  if (trusted_dir_fd(dfd, dir, why)) {
    // O_NOFOLLOW: a symlink fails with ELOOP; O_NONBLOCK: a FIFO cannot hang us.
    const int fd = ::openat(dfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
      fail(why, errno == ELOOP ? "it is a symlink (allowed: a regular file)"
                               : std::string("cannot open it: ") + std::strerror(errno));
    else if (trusted_file_fd(fd, why))
      text = read_fd(fd, why);
    if (fd >= 0) ::close(fd);
  }
  ::close(dfd);
  return text;
}

bool check_saved_file(SavedFile& f, const std::string& sysfs_root, std::string* why) {
  const auto slash = f.path.rfind('/');
  const std::string name = slash == std::string::npos ? f.path : f.path.substr(slash + 1);
  bool known = false;
  for (const char* k : kRestorableFiles) known = known || name == k;
  if (!known)
    return fail(why, "it names " + printable(f.path) +
                         " (allowed: scaling_governor, scaling_setspeed, scaling_min_freq, "
                         "scaling_max_freq under the cpufreq folders)");
  if (f.path.empty() || f.path[0] != '/' || f.path.size() >= 512 || has_dot_component(f.path))
    return fail(why,
                "it names " + printable(f.path) + " (allowed: an absolute path without . or ..)");
  char base[PATH_MAX], real[PATH_MAX];
  const std::string cpu_dir = (sysfs_root == "/" ? "" : sysfs_root) + kCpuDir;
  if (!::realpath(cpu_dir.c_str(), base))
    return fail(why, "there is no " + cpu_dir + " to restore into");
  if (!::realpath(f.path.c_str(), real))
    return fail(why, "it names " + f.path + ", which does not resolve: " + std::strerror(errno));
  const std::string b = base, r = real;
  if (r.size() <= b.size() + 1 || r.compare(0, b.size(), b) != 0 || r[b.size()] != '/' ||
      !cpufreq_layout(std::string_view(r).substr(b.size() + 1), name))
    return fail(why, "it names " + f.path + ", which resolves to " + r +
                         " (allowed: a cpufreq file "
                         "under " +
                         b + "/cpuN/cpufreq or " + b + "/cpufreq/policyN)");
  struct stat st {};
  if (::stat(real, &st) != 0 || !S_ISREG(st.st_mode))
    return fail(why, "it names " + r + ", which is not a regular file");
  if (!content_ok(name, f.content))
    return fail(why,
                "it holds '" + printable(f.content) + "' for " + name +
                    (name == "scaling_governor" ? " (allowed: a governor name, 1-15 of a-z 0-9 _)"
                                                : " (allowed: a frequency in kHz, 1 to 99999999)"));
  f.path = r;
  return true;
}

std::optional<StateRecord> read_owned_state(const std::string& dir, const std::string& name,
                                            std::string* why) {
  auto refuse = [&](const std::string& reason) {
    fail(why, reason);
    return std::optional<StateRecord>();
  };
  auto text = read_trusted_state_text(dir, name, why);
  if (!text) return std::nullopt;
  auto rec = parse_state_text(*text);
  if (!rec) return refuse("it is not a joule state file (bad header, line, hex or pid)");
  if (name != state_file_name(rec->pid))
    return refuse("it names process " + std::to_string(rec->pid) +
                  " (allowed: the pid and uid of its own file name)");
  if (rec->files.size() > kMaxSavedFiles)
    return refuse("it names more than " + std::to_string(kMaxSavedFiles) + " files");
  return rec;
}

bool check_saved_files(StateRecord& rec, const std::string& sysfs_root, std::string* why) {
  for (auto& f : rec.files)
    if (!check_saved_file(f, sysfs_root, why)) return false;
  return true;
}

std::optional<StateRecord> load_trusted_state(const std::string& dir, const std::string& name,
                                              const std::string& sysfs_root, std::string* why) {
  auto rec = read_owned_state(dir, name, why);
  if (!rec || !check_saved_files(*rec, sysfs_root, why)) return std::nullopt;
  return rec;
}

}  // namespace joule::platform
