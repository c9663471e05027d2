// One line per kernel file jouled changes or puts back, to stderr (the
// journal, under systemd) and appended to STATE_DIR/audit.log (0600):
// "2026-11-26T14:00:00Z uid=1000 user=alice pid=4242 job=77 domain=0
//  cpus=0-1 file=/sys/.../scaling_setspeed old=<unsupported> new=1200000".
#pragma once

#include <string>
#include <vector>

#include "domain_table.hpp"

namespace joule::service {

struct AuditWho {
  unsigned uid = 0;
  std::string user;
  int pid = 0;
  std::string job;
};

class AuditLog {
 public:
  // An empty path logs to stderr only.
  explicit AuditLog(std::string path) : path_(std::move(path)) {}
  void change(const AuditWho& who, const Domain& d, const FileChange& c) const;
  void note(const std::string& text) const;  // a free-form line (restores at start, ...)

 private:
  void emit(const std::string& line) const;
  std::string path_;
};

std::string utc_now_text();

}  // namespace joule::service
