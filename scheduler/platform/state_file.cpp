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
#include <cstring>
#include <fstream>
#include <sstream>

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
  if (s.size() % 2) return std::nullopt;
  std::string out;
  for (std::size_t i = 0; i < s.size(); i += 2) {
    auto v = [](char c) { return c >= 'a' ? c - 'a' + 10 : c - '0'; };
    if (!std::isxdigit(static_cast<unsigned char>(s[i])) ||
        !std::isxdigit(static_cast<unsigned char>(s[i + 1])))
      return std::nullopt;
    out += char(v(s[i]) * 16 + v(s[i + 1]));
  }
  return out;
}

std::optional<std::string> read_whole(const std::string& path) { return Sysfs("/").read_raw(path); }

bool same_content(const SavedFile& f) {
  auto now = read_whole(f.path);
  return now && *now == f.content;
}

}  // namespace

std::string state_file_name(int pid) {
  return "joule-" + std::to_string(::getuid()) + "-" + std::to_string(pid) + ".state";
}

bool write_state_file(const std::string& dir, const StateRecord& rec, std::string* error) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    if (error) *error = "cannot create " + dir + ": " + std::strerror(errno);
    return false;
  }
  std::ostringstream os;
  os << kMagic << "\npid " << rec.pid << " " << rec.start_time << "\n";
  for (const auto& f : rec.files) os << "file " << hex(f.path) << " " << hex(f.content) << "\n";
  const std::string final_path = dir + "/" + state_file_name(rec.pid);
  const std::string tmp = final_path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const std::string text = os.str();
  bool ok = fd >= 0 && ::write(fd, text.data(), text.size()) == ssize_t(text.size());
  if (fd >= 0) {
    ok = ::fsync(fd) == 0 && ok;
    ok = ::close(fd) == 0 && ok;
  }
  if (ok) ok = ::rename(tmp.c_str(), final_path.c_str()) == 0;
  if (!ok) {
    if (error) *error = "cannot write " + final_path + ": " + std::strerror(errno);
    ::unlink(tmp.c_str());
  }
  return ok;
}

std::optional<StateRecord> read_state_file(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line) || line != kMagic) return std::nullopt;
  StateRecord rec;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string tag;
    ls >> tag;
    if (tag == "pid") {
      ls >> rec.pid >> rec.start_time;
    } else if (tag == "file") {
      std::string p, c;
      ls >> p >> c;
      auto path_s = unhex(p), content = unhex(c);
      if (!path_s || !content || path_s->empty()) return std::nullopt;
      rec.files.push_back({*path_s, *content});
    }
  }
  if (rec.pid <= 0) return std::nullopt;
  return rec;
}

unsigned long long process_start_time(int pid) {
  auto stat = read_whole("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return 0;
  const auto rparen = stat->rfind(')');
  if (rparen == std::string::npos) return 0;
  std::istringstream is(stat->substr(rparen + 2));
  std::string field;
  // Fields after the command: state is field 3; start time is field 22.
  for (int i = 3; i < 22 && (is >> field); ++i) {
  }
  unsigned long long t = 0;
  is >> t;
  return t;
}

bool process_alive(int pid, unsigned long long start_time) {
  if (pid <= 0) return false;
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
  const unsigned long long now = process_start_time(pid);
  return now != 0 && (start_time == 0 || now == start_time);
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

RepairResult repair_stale_states(const std::string& dir, bool include_live, bool dry_run) {
  RepairResult r;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return r;
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (n.rfind("joule-", 0) == 0 && n.size() > 6 && n.substr(n.size() - 6) == ".state")
      names.push_back(n);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  for (const auto& n : names) {
    const std::string path = dir + "/" + n;
    auto rec = read_state_file(path);
    if (!rec) {
      r.messages.push_back("ignored unreadable state file " + path);
      continue;
    }
    if (rec->pid == ::getpid() || (!include_live && process_alive(rec->pid, rec->start_time))) {
      ++r.live;
      continue;
    }
    if (dry_run) {
      r.messages.push_back("would restore " + std::to_string(rec->files.size()) +
                           " file(s) changed by process " + std::to_string(rec->pid));
      continue;
    }
    std::vector<std::string> errors;
    const int failed = restore_files(rec->files, &errors);
    r.failed += failed;
    for (auto& e : errors) r.messages.push_back(e);
    if (failed == 0) {
      ::unlink(path.c_str());
      ++r.repaired;
      r.messages.push_back("restored " + std::to_string(rec->files.size()) +
                           " file(s) changed by process " + std::to_string(rec->pid));
    }
  }
  return r;
}

}  // namespace joule::platform
