// Scenario settings from TOML (toml++) and from `--set key=value`. A TOML
// file is flattened to "section.key" = text with its file:line, so a file
// and the command line go through the same key table. The [meta] section
// (description, the paper's claim) is for people and is not a setting.
#include <algorithm>
#include <charconv>
#include <string>

#include <toml++/toml.h>

#include "scenario.hpp"
#include "text.hpp"

namespace joule::sim {
namespace {

std::string number_text(double x) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);  // shortest round-trip form
  return std::string(buf, r.ptr);
}

std::string origin(const std::string& path, const toml::node& n) {
  return core::escape_text(path) + ":" + std::to_string(n.source().begin.line);
}

// A scalar or an array of scalars as text; arrays joined with commas.
std::string value_text(const toml::node& n, const std::string& where) {
  if (auto s = n.as_string()) return s->get();
  if (auto i = n.as_integer()) return std::to_string(i->get());
  if (auto f = n.as_floating_point()) return number_text(f->get());
  if (auto b = n.as_boolean()) return b->get() ? "true" : "false";
  if (auto a = n.as_array()) {
    std::string out;
    for (const auto& e : *a) {
      if (e.is_array() || e.is_table()) throw ConfigError(where + ": nested arrays not allowed");
      out += (out.empty() ? "" : ",") + value_text(e, where);
    }
    return out;
  }
  throw ConfigError(where + ": expected a string, number, boolean or array");
}

}  // namespace

std::vector<Setting> settings_from_toml(const std::string& path) {
  toml::table root;
  try {
    root = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    throw ConfigError(core::escape_text(path) + ":" + std::to_string(e.source().begin.line) + ": " +
                      core::escape_text(e.description()));
  }
  std::vector<Setting> out;
  for (const auto& [section, node] : root) {
    const std::string where = origin(path, node);
    const auto* table = node.as_table();
    if (!table)
      throw ConfigError(where + ": '" + core::escape_text(section.str()) +
                        "' must be a section: [platform], [workload], [policy], [lb] or [meta]");
    if (section.str() == "meta") continue;
    for (const auto& [key, value] : *table) {
      const std::string name = std::string(section.str()) + "." + std::string(key.str());
      const std::string at = origin(path, value);
      out.push_back({name, value_text(value, at + ": " + core::escape_text(name)), at});
    }
  }
  // toml++ tables are ordered by key; file order makes errors read top-down.
  std::stable_sort(out.begin(), out.end(), [](const Setting& a, const Setting& b) {
    return std::stoi(a.origin.substr(a.origin.rfind(':') + 1)) <
           std::stoi(b.origin.substr(b.origin.rfind(':') + 1));
  });
  return out;
}

Setting setting_from_arg(const std::string& arg) {
  const auto eq = arg.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ConfigError("--set " + core::escape_text(arg) +
                      ": expected key=value, e.g. policy.name=fg-energylb");
  return {arg.substr(0, eq), arg.substr(eq + 1), "--set " + core::escape_text(arg)};
}

}  // namespace joule::sim
