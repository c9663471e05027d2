#include "access_policy.hpp"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <toml++/toml.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

namespace joule::service {
namespace {

constexpr const char* kKeys = "users, groups, controls, min_khz, max_khz";
constexpr const char* kControls = "frequency, energy";

// Parse failures carry their message up to parse(), which returns it.
struct PolicyError {
  std::string text;
};

std::string at(const std::string& source, const toml::source_region& r) {
  return source + ":" + std::to_string(r.begin.line);
}

std::vector<std::string> string_list(const toml::node& n, const std::string& source,
                                     const std::string& where, const std::string& key) {
  const auto* arr = n.as_array();
  if (!arr) throw PolicyError{where + ": " + key + " must be an array of strings"};
  std::vector<std::string> out;
  for (const auto& item : *arr) {
    const auto s = item.value<std::string>();
    if (!item.is_string() || !s || s->empty())
      throw PolicyError{at(source, item.source()) + ": " + key +
                        " must be an array of non-empty strings"};
    out.push_back(*s);
  }
  return out;
}

unsigned control_bits(const toml::node& n, const std::string& source, const std::string& where) {
  unsigned bits = 0;
  for (const auto& name : string_list(n, source, where, "controls")) {
    if (name == "frequency")
      bits |= kControlFrequency;
    else if (name == "energy")
      bits |= kControlEnergy;
    else
      throw PolicyError{at(source, n.source()) + ": unknown control \"" + name +
                        "\" (allowed: " + kControls + ")"};
  }
  if (!bits)
    throw PolicyError{where + ": controls must name at least one of: " + std::string(kControls)};
  return bits;
}

std::uint32_t khz(const toml::node& n, const std::string& where, const std::string& key) {
  const auto v = n.value_exact<std::int64_t>();
  if (!n.is_integer() || !v || *v <= 0 || *v > std::numeric_limits<std::uint32_t>::max())
    throw PolicyError{where + ": " + key + " must be a positive integer (kHz, at most 4294967295)"};
  return std::uint32_t(*v);
}

AccessPolicy::Entry parse_entry(const toml::table& t, const std::string& source) {
  AccessPolicy::Entry e;
  e.where = at(source, t.source());
  for (const auto& [key, value] : t) {
    const std::string k(key.str());
    const std::string where = at(source, key.source());
    if (k == "users")
      e.users = string_list(value, source, where, k);
    else if (k == "groups")
      e.groups = string_list(value, source, where, k);
    else if (k == "controls")
      e.controls = control_bits(value, source, where);
    else if (k == "min_khz")
      e.min_khz = khz(value, where, k);
    else if (k == "max_khz")
      e.max_khz = khz(value, where, k);
    else
      throw PolicyError{where + ": unknown key '" + k + "' in [[allow]] (allowed: " + kKeys + ")"};
  }
  if (e.users.empty() && e.groups.empty())
    throw PolicyError{e.where + ": [[allow]] names no one: give users = [...] or groups = [...]"};
  if (!e.controls)
    throw PolicyError{e.where + ": [[allow]] has no controls (allowed: " + kControls + ")"};
  if (e.min_khz && e.max_khz && e.min_khz > e.max_khz)
    throw PolicyError{e.where + ": min_khz " + std::to_string(e.min_khz) + " is above max_khz " +
                      std::to_string(e.max_khz)};
  return e;
}

std::vector<AccessPolicy::Entry> parse_entries(const toml::table& root, const std::string& source) {
  std::vector<AccessPolicy::Entry> out;
  for (const auto& [key, value] : root) {
    const std::string where = at(source, key.source());
    if (key.str() != "allow")
      throw PolicyError{where + ": unknown table or key '" + std::string(key.str()) +
                        "' (allowed: [[allow]])"};
    const auto* arr = value.as_array();
    if (!arr || !arr->is_array_of_tables())
      throw PolicyError{where + ": 'allow' must be an array of tables, written [[allow]]"};
    for (const auto& item : *arr) out.push_back(parse_entry(*item.as_table(), source));
  }
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Group names of a user: the primary gid plus getgrouplist(3)'s.
std::vector<std::string> group_names(const char* user, gid_t gid) {
  int n = 64;
  std::vector<gid_t> gids(n);
  while (::getgrouplist(user, gid, gids.data(), &n) < 0) gids.resize(std::size_t(n) + 1);
  gids.resize(std::size_t(n));
  std::vector<std::string> names;
  std::vector<char> buf(16384);
  for (gid_t g : gids) {
    group gr{};
    group* res = nullptr;
    if (::getgrgid_r(g, &gr, buf.data(), buf.size(), &res) == 0 && res) names.push_back(gr.gr_name);
  }
  return names;
}

}  // namespace

std::optional<AccessPolicy> AccessPolicy::parse(std::string_view text, const std::string& source,
                                                std::string* error) {
  try {
    const toml::table root = toml::parse(text, source);
    AccessPolicy p;
    p.entries_ = parse_entries(root, source);
    return p;
  } catch (const toml::parse_error& e) {
    if (error)
      *error = source + ":" + std::to_string(e.source().begin.line) + ": " +
               std::string(e.description());
  } catch (const PolicyError& e) {
    if (error) *error = e.text;
  }
  return std::nullopt;
}

std::optional<AccessPolicy> AccessPolicy::load(const std::string& path, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = path + ": " + why;
    return std::nullopt;
  };
  // O_NOFOLLOW and fstat on the open file: the checked file is the read one.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return errno == ELOOP ? fail("is a symbolic link; give the access file itself")
                          : fail(std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  std::string text;
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (ok && (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)))) {
    ::close(fd);
    return fail(
        "access file must be owned by root and not writable by others (see chown(1), "
        "chmod(1): root-owned, mode 0644 or 0600)");
  }
  char buf[4096];
  for (ssize_t n; ok && (n = ::read(fd, buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      ok = false;
    else
      text.append(buf, std::size_t(n));
  }
  ::close(fd);
  if (!ok) return fail("not a readable regular file");
  return parse(text, path, error);
}

Grant AccessPolicy::grant_for(const std::string& user,
                              const std::vector<std::string>& groups) const {
  Grant g;
  bool unbounded_min = false, unbounded_max = false;
  for (const auto& e : entries_) {
    bool match = contains(e.users, user);
    for (const auto& grp : groups) match = match || contains(e.groups, grp);
    if (!match) continue;
    g.controls |= e.controls;
    unbounded_min = unbounded_min || e.min_khz == 0;
    unbounded_max = unbounded_max || e.max_khz == 0;
    g.min_khz = g.because.empty() ? e.min_khz : std::min(g.min_khz, e.min_khz);
    g.max_khz = std::max(g.max_khz, e.max_khz);
    g.because.push_back(e.where);
  }
  if (unbounded_min) g.min_khz = 0;
  if (unbounded_max) g.max_khz = 0;
  return g;
}

Grant AccessPolicy::grant_for(std::uint32_t uid, std::uint32_t gid) const {
  passwd pw{};
  passwd* res = nullptr;
  std::vector<char> buf(16384);
  if (::getpwuid_r(uid_t(uid), &pw, buf.data(), buf.size(), &res) != 0 || !res)
    return {};  // a uid without a name matches no entry: deny
  return grant_for(pw.pw_name, group_names(pw.pw_name, gid_t(gid)));
}

Grant AccessPolicy::grant_for_user(const std::string& name, std::string* error) const {
  passwd pw{};
  passwd* res = nullptr;
  std::vector<char> buf(16384);
  if (::getpwnam_r(name.c_str(), &pw, buf.data(), buf.size(), &res) != 0 || !res) {
    if (error) *error = "no such user '" + name + "' (getpwnam(3))";
    return {};
  }
  return grant_for(pw.pw_uid, pw.pw_gid);
}

std::string controls_text(unsigned controls) {
  std::string out;
  if (controls & kControlFrequency) out = "frequency";
  if (controls & kControlEnergy) out += out.empty() ? "energy" : ",energy";
  return out;
}

std::string describe_grant(const Grant& g) {
  if (!g.controls) return "nothing (no [[allow]] entry matches)";
  std::string out = "controls=" + controls_text(g.controls);
  out += " min_khz=" + (g.min_khz ? std::to_string(g.min_khz) : std::string("none"));
  out += " max_khz=" + (g.max_khz ? std::to_string(g.max_khz) : std::string("none"));
  out += " (";
  for (std::size_t i = 0; i < g.because.size(); ++i) out += (i ? ", " : "") + g.because[i];
  return out + ")";
}

}  // namespace joule::service
