// Who may ask jouled for what: the access file (by default
// /etc/joule/access.toml). Deny by default: a user gets only what some
// [[allow]] entry naming the user, or one of the user's groups, grants.
//
//   [[allow]]
//   users = ["alice"]                   # and/or groups = ["hpc"]
//   controls = ["frequency", "energy"]
//   min_khz = 1200000                   # optional frequency bounds
//   max_khz = 2400000
//
// A user matching several entries gets the union of their controls and the
// widest of their bounds: the lowest min_khz and the highest max_khz, where
// an entry without a bound (0) makes that side unbounded. Entries only ever
// add; there is no deny entry, so the order of entries does not matter.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace joule::service {

enum Control : unsigned { kControlFrequency = 1, kControlEnergy = 2 };

struct Grant {
  unsigned controls = 0;             // Control bits
  std::uint32_t min_khz = 0;         // 0: no bound
  std::uint32_t max_khz = 0;         // 0: no bound
  std::vector<std::string> because;  // "FILE:LINE" of each matching entry
  bool allows(Control c) const noexcept { return (controls & c) != 0; }
};

class AccessPolicy {
 public:
  // Reads and parses `path`. Refuses a symbolic link and a file that is
  // not owned by root or is writable by group or others: whoever can write
  // it can grant themselves the node's frequencies.
  static std::optional<AccessPolicy> load(const std::string& path, std::string* error);
  // `source` names the text in errors ("FILE:LINE: ...").
  static std::optional<AccessPolicy> parse(std::string_view text, const std::string& source,
                                           std::string* error);

  // The grant of a user (uid) whose primary group is gid; the other groups
  // come from getgrouplist(3) of the uid's name.
  Grant grant_for(std::uint32_t uid, std::uint32_t gid) const;
  // The grant of a user by name; an unknown user is an error (*error set,
  // empty grant).
  Grant grant_for_user(const std::string& name, std::string* error) const;

  std::size_t entries() const noexcept { return entries_.size(); }

  struct Entry {
    std::vector<std::string> users;
    std::vector<std::string> groups;
    unsigned controls = 0;
    std::uint32_t min_khz = 0;
    std::uint32_t max_khz = 0;
    std::string where;  // FILE:LINE of its [[allow]]
  };

 private:
  Grant grant_for(const std::string& user, const std::vector<std::string>& groups) const;

  std::vector<Entry> entries_;
};

// "controls=frequency,energy min_khz=K max_khz=K (FILE:LINE, ...)", or
// "nothing (no [[allow]] entry matches)".
std::string describe_grant(const Grant& g);
// "frequency,energy", "frequency", "" for the bits of a grant.
std::string controls_text(unsigned controls);

}  // namespace joule::service
