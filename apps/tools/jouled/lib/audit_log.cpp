#include "audit_log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>

#include "service_protocol.hpp"
#include "text.hpp"

namespace joule::service {

namespace ps = platform::service_client;

std::string utc_now_text() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void AuditLog::change(const AuditWho& who, const Domain& d, const FileChange& c) const {
  emit(utc_now_text() + " uid=" + std::to_string(who.uid) + " user=" + ps::escape_value(who.user) +
       " pid=" + std::to_string(who.pid) + " job=" +
       ps::escape_value(who.job.empty() ? "-" : who.job) + " domain=" + std::to_string(d.id) +
       " cpus=" + core::format_cpu_list(d.cpus) + " file=" + ps::escape_value(c.file) +
       " old=" + ps::escape_value(c.old_value) + " new=" + ps::escape_value(c.new_value));
}

void AuditLog::note(const std::string& text) const { emit(utc_now_text() + " " + text); }

void AuditLog::emit(const std::string& line) const {
  std::fprintf(stderr, "jouled: %s\n", line.c_str());
  if (path_.empty()) return;
  const int fd =
      ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return;
  const std::string l = line + "\n";
  if (::write(fd, l.data(), l.size()) < 0) {
    // The journal copy on stderr remains.
  }
  ::close(fd);
}

}  // namespace joule::service
