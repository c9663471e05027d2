#include "nvml_clock_record.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <sstream>

namespace joule::cuda::nvml {
namespace {

constexpr const char* kMagic = "joule-gpu-clocks 2";  // 2: with the owner's start time
constexpr const char* kPrefix = "joule-gpu-";
constexpr const char* kSuffix = ".clocks";

bool valid_bus_id(const std::string& s) {
  if (s.empty() || s.size() > 32) return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.') return false;
  return true;
}

bool parse_line(const std::string& line, ClockRecord& r, bool& has_start) {
  std::istringstream ls(line);
  std::string tag, extra;
  ls >> tag;
  if (tag == "pid") {
    if (!(ls >> r.pid) || r.pid <= 0) return false;
  } else if (tag == "start") {
    if (!(ls >> r.start_time)) return false;  // 0: unknown (pid only)
    has_start = true;
  } else if (tag == "bus") {
    if (!(ls >> r.bus_id) || !valid_bus_id(r.bus_id)) return false;
  } else if (tag == "locked") {
    r.locked = true;
  } else if (tag == "applications") {
    if (!(ls >> r.app_mem_mhz >> r.app_sm_mhz)) return false;
    r.applications = true;
  } else {
    return false;
  }
  return !(ls >> extra);
}

}  // namespace

std::string clock_record_name(int pid, const std::string& bus_id) {
  std::string bus = bus_id;
  for (char& c : bus)
    if (c == ':' || c == '.') c = '_';
  return kPrefix + std::to_string(::geteuid()) + "-" + std::to_string(pid) + "-" + bus + kSuffix;
}

bool is_clock_record_name(const std::string& n) {
  const std::string s = kSuffix;
  return n.rfind(kPrefix, 0) == 0 && n.size() > s.size() + 10 &&
         n.compare(n.size() - s.size(), s.size(), s) == 0;
}

std::string clock_record_text(const ClockRecord& r) {
  std::ostringstream os;
  os << kMagic << "\npid " << r.pid << "\nstart " << r.start_time << "\nbus " << r.bus_id << "\n";
  if (r.locked) os << "locked\n";
  if (r.applications) os << "applications " << r.app_mem_mhz << " " << r.app_sm_mhz << "\n";
  return os.str();
}

std::optional<ClockRecord> parse_clock_record(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != kMagic) return std::nullopt;
  ClockRecord r;
  bool has_start = false;
  while (std::getline(in, line))
    if (!parse_line(line, r, has_start)) return std::nullopt;
  if (r.pid <= 0 || !has_start || r.bus_id.empty()) return std::nullopt;
  return r;
}

bool write_clock_record(const std::string& dir, const ClockRecord& r, std::string* error) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    if (error) *error = "cannot create " + dir + ": " + std::strerror(errno);
    return false;
  }
  const std::string path = dir + "/" + clock_record_name(r.pid, r.bus_id);
  const std::string text = clock_record_text(r);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  bool ok = fd >= 0 && ::fchmod(fd, 0600) == 0 &&
            ::write(fd, text.data(), text.size()) == ssize_t(text.size());
  if (fd >= 0) ok = ::close(fd) == 0 && ok;
  if (!ok && error) *error = "cannot write " + path + ": " + std::strerror(errno);
  return ok;
}

void remove_clock_record(const std::string& dir, const ClockRecord& r) noexcept {
  ::unlink((dir + "/" + clock_record_name(r.pid, r.bus_id)).c_str());
}

bool undo_clock_record(const Library& lib, const ClockRecord& r, std::string* error) {
  Device dev = nullptr;
  Return rc = lib.handle_by_bus_id(r.bus_id.c_str(), &dev);
  std::string call = "nvmlDeviceGetHandleByPciBusId_v2(" + r.bus_id + ")";
  if (rc == kSuccess && r.locked) {
    rc = lib.reset_locked_clocks(dev);
    call = "nvmlDeviceResetGpuLockedClocks";
  }
  if (rc == kSuccess && r.applications) {
    const bool known = r.app_mem_mhz && r.app_sm_mhz;
    rc = known ? lib.set_applications_clocks(dev, r.app_mem_mhz, r.app_sm_mhz)
               : lib.reset_applications_clocks(dev);
    call = known ? "nvmlDeviceSetApplicationsClocks" : "nvmlDeviceResetApplicationsClocks";
  }
  if (rc != kSuccess && error) *error = call + ": " + lib.error(rc);
  return rc == kSuccess;
}

}  // namespace joule::cuda::nvml
