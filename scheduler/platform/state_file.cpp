#include "state_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "state_check.hpp"
#include "sysfs.hpp"

namespace joule::platform {
namespace {

constexpr const char* kMagic = "joule-state 1";

std::string hex(const std::string& s) {
  static const char* d = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() * 2 + 1);
  for (unsigned char c : s) {
    out += d[c >> 4];
    out += d[c & 15];
  }
  return out.empty() ? "-" : out;
}

std::optional<std::string> unhex(const std::string& s) {
  if (s == "-") return std::string();
  if (s.empty() || s.size() % 2) return std::nullopt;
  auto v = [](char c) {
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= '0' && c <= '9' ? c - '0' : -1;
  };
  std::string out;
  for (std::size_t i = 0; i < s.size(); i += 2) {
    const int hi = v(s[i]), lo = v(s[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += char(hi * 16 + lo);
  }
  return out;
}

// "pid N T" or "file HEX HEX", nothing more on the line.
bool parse_line(const std::string& line, StateRecord& rec) {
  std::istringstream ls(line);
  std::string tag, a, b, extra;
  if (!(ls >> tag >> a >> b) || (ls >> extra)) return false;
  if (tag == "pid") {
    char* end = nullptr;
    const long pid = std::strtol(a.c_str(), &end, 10);
    if (*end || pid <= 0 || pid > (1L << 22) || rec.pid != 0) return false;
    const unsigned long long t = std::strtoull(b.c_str(), &end, 10);
    if (*end || !std::isdigit(static_cast<unsigned char>(b[0]))) return false;
    rec.pid = int(pid);
    rec.start_time = t;
    return true;
  }
  if (tag != "file") return false;
  auto path = unhex(a), content = unhex(b);
  if (!path || !content || path->empty()) return false;
  rec.files.push_back({*path, *content});
  return true;
}

std::optional<std::string> read_whole(const std::string& path) { return Sysfs("/").read_raw(path); }

bool same_content(const SavedFile& f) {
  auto now = read_whole(f.path);
  return now && *now == f.content;
}

}  // namespace

std::string state_file_name(int pid) {
  return "joule-" + std::to_string(::geteuid()) + "-" + std::to_string(pid) + ".state";
}

bool write_state_file(const std::string& dir, const StateRecord& rec, std::string* error) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    if (error) *error = "cannot create " + dir + ": " + std::strerror(errno);
    return false;
  }
  // A folder others may write could hold a planted symlink or be read back
  // as someone else's: no state file there (the next start would refuse it).
  std::string why;
  if (!trusted_state_dir(dir, &why)) {
    if (error) *error = "no state file: " + why;
    return false;
  }
  std::ostringstream os;
  os << kMagic << "\npid " << rec.pid << " " << rec.start_time << "\n";
  for (const auto& f : rec.files) os << "file " << hex(f.path) << " " << hex(f.content) << "\n";
  return write_private_file(dir + "/" + state_file_name(rec.pid), os.str(), error);
}

bool write_private_file(const std::string& path, const std::string& text, std::string* error) {
  const std::string tmp = path + ".tmp";
  ::unlink(tmp.c_str());  // a leftover of ours; O_EXCL below refuses anything planted since
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  bool ok = fd >= 0 && ::write(fd, text.data(), text.size()) == ssize_t(text.size());
  if (fd >= 0) {
    ok = ::fsync(fd) == 0 && ok;
    ok = ::close(fd) == 0 && ok;
  }
  if (ok) ok = ::rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok) {
    if (error) *error = "cannot write " + path + ": " + std::strerror(errno);
    if (fd >= 0) ::unlink(tmp.c_str());
  }
  return ok;
}

std::optional<StateRecord> parse_state_text(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != kMagic) return std::nullopt;
  StateRecord rec;
  while (std::getline(in, line))
    if (!parse_line(line, rec)) return std::nullopt;
  if (rec.pid <= 0) return std::nullopt;
  return rec;
}

int restore_files(const std::vector<SavedFile>& files, std::vector<std::string>* errors) {
  for (auto it = files.rbegin(); it != files.rend(); ++it)
    write_file_raw(it->path.c_str(), it->content.data(), it->content.size());
  int failed = 0;
  for (auto it = files.rbegin(); it != files.rend(); ++it) {
    if (same_content(*it)) continue;
    write_file_raw(it->path.c_str(), it->content.data(), it->content.size());
    if (same_content(*it)) continue;
    ++failed;
    if (errors) errors->push_back("could not restore " + it->path + ": " + std::strerror(errno));
  }
  return failed;
}

namespace {

bool is_state_name(const std::string& n) {
  return n.rfind("joule-", 0) == 0 && n.size() > 12 && n.substr(n.size() - 6) == ".state";
}

// One state file: refused (left alone), live (left alone), or restored and
// removed.
void repair_one(const std::string& dir, const std::string& name, const RepairOptions& o,
                RepairResult& r) {
  std::string why;
  auto rec = read_owned_state(dir, name, &why);
  // A running process's file is not ours to judge by our sysfs root.
  if (rec &&
      (rec->pid == ::getpid() || (!o.include_live && process_alive(rec->pid, rec->start_time)))) {
    ++r.live;
    return;
  }
  if (!rec || !check_saved_files(*rec, o.sysfs_root, &why)) {
    ++r.refused;
    r.messages.push_back("refused state file " + dir + "/" + name + ": " + why + "; left alone");
    return;
  }
  const std::string n = std::to_string(rec->files.size());
  const std::string who = " file(s) changed by process " + std::to_string(rec->pid);
  if (o.dry_run) {
    r.messages.push_back("would restore " + n + who);
    return;
  }
  std::vector<std::string> errors;
  const int failed = restore_files(rec->files, &errors);
  r.failed += failed;
  for (auto& e : errors) r.messages.push_back(e);
  if (failed == 0) {
    ::unlink((dir + "/" + name).c_str());
    ++r.repaired;
    r.messages.push_back("restored " + n + who);
  }
}

}  // namespace

RepairResult repair_stale_states(const std::string& dir, const RepairOptions& o) {
  RepairResult r;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return r;
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d))
    if (is_state_name(e->d_name)) names.push_back(e->d_name);
  ::closedir(d);
  std::sort(names.begin(), names.end());
  for (const auto& n : names) repair_one(dir, n, o, r);
  return r;
}

RepairResult repair_state_of(const std::string& dir, int pid, const std::string& sysfs_root) {
  RepairResult r;
  const std::string name = state_file_name(pid);
  struct stat st {};
  if (::lstat((dir + "/" + name).c_str(), &st) == 0) repair_one(dir, name, {sysfs_root}, r);
  return r;
}

}  // namespace joule::platform
