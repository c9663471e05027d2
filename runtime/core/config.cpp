#include "config.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "joule/types.hpp"

extern char** environ;

namespace joule::core {
namespace {

constexpr std::string_view kPrefix = "JOULE_";

[[noreturn]] void config_error(const std::string& msg) {
  throw joule::error(JOULE_ERR_CONFIG, "joule: configuration error: " + msg);
}

// The keys, then the old names still accepted: a user who types an old name
// wrong finds the new one beside it.
std::string valid_key_list() {
  std::string out, old;
  for (const auto& k : config_keys()) {
    out += (out.empty() ? "" : ", ") + k.name;
    for (const auto& a : k.aliases) old += (old.empty() ? "" : ", ") + a + " for " + k.name;
  }
  return old.empty() ? out : out + "; old names still accepted: " + old;
}

bool known_key(std::string_view name) { return find_config_key(name) != nullptr; }

// One KEY=VALUE of a source, with where it came from ("path:3: " for a
// file's line, empty for the environment).
struct Entry {
  std::string where, key, value;
};

// A key set under its name and an alias (or two aliases) to different
// values in one source: which one was meant is unknowable, so neither wins.
// Between sources the later one wins, as for any key.
void check_aliases(const std::vector<Entry>& source) {
  for (std::size_t i = 0; i < source.size(); ++i) {
    const ConfigKey* k = find_config_key(source[i].key);
    if (!k) continue;
    for (std::size_t j = i + 1; j < source.size(); ++j) {
      const Entry &a = source[i], &b = source[j];
      if (a.key == b.key || a.value == b.value || find_config_key(b.key) != k) continue;
      const std::string& old = a.key == k->name ? b.key : a.key;
      config_error(escape_text(a.where) + a.key + "=" + escape_text(a.value) + " and " +
                   escape_text(b.where) + b.key + "=" + escape_text(b.value) +
                   " set the same key to different values (" + old + " is the old name of " +
                   k->name + "); set only " + k->name);
    }
  }
}

std::vector<Entry> entries(const Settings& s, const std::string& where) {
  std::vector<Entry> out;
  for (const auto& [k, v] : s) out.push_back({where, k, v});
  return out;
}

// JOULE_* variables, and the OMP_*, GOMP_*, SLURM_* and DLB_* ones that a
// section declares (the OpenMP layer's; the platform's SLURM_JOB_ID; the
// lending layer's DLB_ARGS); the others belong to other runtimes and to Slurm.
Settings environment_settings() {
  Settings out;
  for (char** e = environ; e && *e; ++e) {
    std::string_view entry(*e);
    auto eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view name = entry.substr(0, eq);
    const bool joule = name.substr(0, kPrefix.size()) == kPrefix;
    const bool foreign = name.substr(0, 4) == "OMP_" || name.substr(0, 5) == "GOMP_" ||
                         name.substr(0, 6) == "SLURM_" || name.substr(0, 4) == "DLB_";
    if (!joule && !(foreign && known_key(name))) continue;
    out.emplace_back(std::string(name), std::string(entry.substr(eq + 1)));
  }
  return out;
}

Settings file_settings(const std::string& path) {
  std::error_code ec;
  // An ifstream opens a directory and reads nothing: it would pass as empty.
  if (std::filesystem::is_directory(path, ec))
    config_error("JOULE_CONFIG_FILE=" + escape_text(path) +
                 ": is a directory; allowed values: a path to a file of KEY=VALUE lines");
  std::ifstream in(path);
  if (!in) config_error("JOULE_CONFIG_FILE=" + escape_text(path) + ": cannot open the file");
  Settings out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    std::string_view l = trim(line);
    if (l.empty() || l.front() == '#') continue;
    auto eq = l.find('=');
    if (eq == std::string_view::npos)
      config_error(escape_text(path) + ":" + std::to_string(n) + ": expected KEY=VALUE, got '" +
                   escape_text(l) + "'");
    out.emplace_back(path + ":" + std::to_string(n) + ": " + std::string(trim(l.substr(0, eq))),
                     std::string(trim(l.substr(eq + 1))));
  }
  return out;
}

std::string find_file(const Settings& env, const Settings& overrides) {
  std::string file;
  for (const auto* s : {&env, &overrides})
    for (const auto& [k, v] : *s)
      if (k == "JOULE_CONFIG_FILE") file = v;
  return file;
}

}  // namespace

bool parse_bool(std::string_view v) {
  std::string s(v);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  if (s == "1" || s == "true" || s == "yes" || s == "on") return true;
  if (s == "0" || s == "false" || s == "no" || s == "off") return false;
  throw std::invalid_argument("not a boolean");
}

std::string format_bool(bool b) { return b ? "1" : "0"; }
std::string bool_values() { return "0, 1, true, false, yes, no, on, off"; }

std::int64_t parse_int(std::string_view v, std::int64_t lo, std::int64_t hi) {
  v = trim(v);
  std::int64_t x = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  // A number too long for 64 bits is still a number: out of range.
  if (ec == std::errc::result_out_of_range && p == v.data() + v.size())
    throw std::invalid_argument("out of range");
  if (ec != std::errc() || p != v.data() + v.size() || v.empty())
    throw std::invalid_argument("not an integer");
  if (x < lo || x > hi) throw std::invalid_argument("out of range");
  return x;
}

double parse_double(std::string_view v, double lo, double hi) {
  v = trim(v);
  if (!v.empty() && v.front() == '+') v.remove_prefix(1);
  double x = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || ec != std::errc() || p != v.data() + v.size() || !std::isfinite(x))
    throw std::invalid_argument("not a number: '" + escape_text(v) + "'");
  if (x < lo || x > hi) throw std::invalid_argument("out of range: " + escape_text(v));
  return x;
}

std::uint64_t parse_size(std::string_view v, std::uint64_t unit) {
  v = trim(v);
  if (!v.empty() && std::isalpha(static_cast<unsigned char>(v.back()))) {
    const char c = char(std::tolower(static_cast<unsigned char>(v.back())));
    unit = c == 'b' ? 1 : c == 'k' ? 1ull << 10 : c == 'm' ? 1ull << 20 : c == 'g' ? 1ull << 30 : 0;
    if (!unit) throw std::invalid_argument("unknown suffix (allowed: B, K, M, G)");
    v.remove_suffix(1);
  }
  const auto n = std::uint64_t(parse_int(v, 1, std::int64_t(1) << 40));
  if (n > (std::uint64_t(1) << 40) / unit) throw std::invalid_argument("out of range");
  return n * unit;
}

std::string format_double(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

std::size_t next_section_index() noexcept {
  static std::atomic<std::size_t> next{0};
  return next.fetch_add(1, std::memory_order_relaxed);
}

void Config::set(std::string_view key, std::string_view value, const std::string& where) {
  const ConfigKey* k = find_config_key(key);
  if (!k)
    config_error(escape_text(where) + "unknown key " + escape_text(key) +
                 "; valid keys: " + valid_key_list());
  try {
    k->set(*this, value);
  } catch (const std::invalid_argument& e) {
    config_error(escape_text(where) + std::string(key) + "=" + escape_text(value) + ": " +
                 e.what() + "; allowed values: " + k->allowed());
  }
}

Config Config::load(const Settings& overrides) {
  Config c;
  Settings env = environment_settings();
  std::string file = find_file(env, overrides);
  if (!file.empty()) {
    std::vector<Entry> lines;
    for (const auto& [located_key, value] : file_settings(file)) {
      auto sep = located_key.rfind(": ");
      lines.push_back({located_key.substr(0, sep + 2), located_key.substr(sep + 2), value});
    }
    check_aliases(lines);
    for (const auto& e : lines) c.set(e.key, e.value, e.where);
  }
  check_aliases(entries(env, ""));
  for (const auto& [k, v] : env) c.set(k, v);
  check_aliases(entries(overrides, "setting "));
  for (const auto& [k, v] : overrides) c.set(k, v, "setting ");
  return c;
}

std::string Config::dump_text() const {
  std::ostringstream os;
  os << "joule configuration:\n";
  for (const auto& k : config_keys()) os << "  " << k.name << "=" << k.get(*this) << "\n";
  return os.str();
}

// The environment is read here, in the one place that reads it: the state
// file's default folder and the MPI launcher's rank.
std::string Config::default_state_dir() {
  const char* x = std::getenv("XDG_RUNTIME_DIR");
  if (x && *x) return std::string(x) + "/joule";
  return "/run/joule";
}

int Config::launcher_rank() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"}) {
    const char* v = std::getenv(var);
    if (!v || !*v) continue;
    char* end = nullptr;
    const long r = std::strtol(v, &end, 10);
    if (*end == '\0' && r >= 0 && r < (1L << 24)) return int(r);
  }
  return -1;
}

}  // namespace joule::core
