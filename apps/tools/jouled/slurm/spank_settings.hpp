// What the Slurm plugin (spank_joule.cpp) decides, without Slurm: the
// plugstack.conf arguments, the value of --joule-energy, and the job
// environment they give. Kept apart from the SPANK calls so that a unit test
// covers every case without a cluster.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace joule::slurm {

// The energy policy names joule registers (JOULE_ENERGY_POLICY), "auto"
// excluded: --joule-energy=auto has the plugin's own meaning.
const std::vector<std::string>& policy_names();

// "auto, off, none, fg-energylb, ...": every value --joule-energy accepts.
std::string allowed_values();

// The plugstack.conf arguments (`man spank`, CONFIGURATION).
struct PlugArgs {
  std::string socket;                  // socket=PATH: jouled's socket (JOULE_SERVICE_SOCKET)
  std::string default_policy;          // default_policy=NAME: the policy of --joule-energy=auto
  std::string default_value = "auto";  // default=auto|off: without --joule-energy
};

// Parses `argv`; nullopt with the reason (naming the argument and the
// allowed keys or values) in *why.
std::optional<PlugArgs> parse_plug_args(const std::vector<std::string>& argv, std::string* why);

// Checks a --joule-energy value; false with a message naming the option and
// the allowed values in *why.
bool valid_option(std::string_view value, std::string* why);

// The variables to set in the job's environment, in order, for `value`
// (the option's value, or args.default_value when the user gave none).
std::vector<std::pair<std::string, std::string>> job_environment(std::string_view value,
                                                                 const PlugArgs& args);

}  // namespace joule::slurm
