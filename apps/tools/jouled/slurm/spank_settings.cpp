#include "spank_settings.hpp"

namespace joule::slurm {
namespace {

// Generated at build time from joule-config's key table
// (gen_policy_names.cmake), so the list cannot drift from the registry.
const char* const kRegistered[] = {
#include "policy_names.inc"
};

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

bool is_policy(std::string_view name) {
  for (const auto& p : policy_names())
    if (p == name) return true;
  return false;
}

}  // namespace

const std::vector<std::string>& policy_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const char* n : kRegistered)
      if (std::string_view(n) != "auto") out.emplace_back(n);
    return out;
  }();
  return names;
}

std::string allowed_values() {
  std::vector<std::string> all{"auto", "off"};
  all.insert(all.end(), policy_names().begin(), policy_names().end());
  return join(all);
}

std::optional<PlugArgs> parse_plug_args(const std::vector<std::string>& argv, std::string* why) {
  PlugArgs args;
  for (const auto& arg : argv) {
    const auto eq = arg.find('=');
    const std::string key = arg.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    if (eq == std::string::npos || value.empty()) {
      *why = "plugstack argument '" + arg + "': expected KEY=VALUE with KEY one of socket, " +
             "default_policy, default";
      return std::nullopt;
    }
    if (key == "socket") {
      // The runtime and jouled take the path as is; a relative one would
      // depend on each job's working directory.
      if (value.front() != '/') {
        *why = "plugstack argument 'socket=" + value + "': an absolute path is needed";
        return std::nullopt;
      }
      args.socket = value;
    } else if (key == "default_policy") {
      if (!is_policy(value)) {
        *why = "plugstack argument 'default_policy=" + value +
               "': unknown policy; allowed values: " + join(policy_names());
        return std::nullopt;
      }
      args.default_policy = value;
    } else if (key == "default") {
      if (value != "auto" && value != "off") {
        *why = "plugstack argument 'default=" + value + "': allowed values: auto, off";
        return std::nullopt;
      }
      args.default_value = value;
    } else {
      *why = "plugstack argument '" + arg + "': unknown key '" + key +
             "'; allowed keys: socket, default_policy, default";
      return std::nullopt;
    }
  }
  return args;
}

bool valid_option(std::string_view value, std::string* why) {
  if (value == "auto" || value == "off" || is_policy(value)) return true;
  *why = "--joule-energy=" + std::string(value) +
         ": unknown value; allowed values: " + allowed_values();
  return false;
}

std::vector<std::pair<std::string, std::string>> job_environment(std::string_view value,
                                                                 const PlugArgs& args) {
  std::vector<std::pair<std::string, std::string>> env;
  if (!args.socket.empty()) env.emplace_back("JOULE_SERVICE_SOCKET", args.socket);
  if (value == "off") {
    // Both: no frequency changes, and no policy that would plan for them.
    env.emplace_back("JOULE_DVFS", "none");
    env.emplace_back("JOULE_ENERGY_POLICY", "none");
  } else if (value == "auto") {
    env.emplace_back("JOULE_DVFS", "auto");
    if (!args.default_policy.empty()) env.emplace_back("JOULE_ENERGY_POLICY", args.default_policy);
  } else {
    env.emplace_back("JOULE_ENERGY_POLICY", std::string(value));
    env.emplace_back("JOULE_DVFS", "auto");
  }
  return env;
}

}  // namespace joule::slurm
