// The Slurm plugin's decisions (apps/tools/jouled/slurm/spank_settings.hpp):
// plugstack arguments, --joule-energy values and the job environment. The
// plugin itself runs under a real Slurm in slurm_test.sh.
#include "spank_settings.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "energy_policy.hpp"

namespace js = joule::slurm;

namespace {

using Env = std::vector<std::pair<std::string, std::string>>;

js::PlugArgs parse_ok(const std::vector<std::string>& argv) {
  std::string why;
  auto args = js::parse_plug_args(argv, &why);
  EXPECT_TRUE(args.has_value()) << why;
  return args.value_or(js::PlugArgs{});
}

std::string parse_error(const std::vector<std::string>& argv) {
  std::string why;
  EXPECT_FALSE(js::parse_plug_args(argv, &why).has_value());
  return why;
}

}  // namespace

// The plugin's list is generated from joule-config at build time; it must be
// the registry's, less "auto" (which --joule-energy gives its own meaning).
TEST(SpankSettings, PolicyNamesAreTheRegistered) {
  auto registered = joule::energy::energy_policy_names();
  registered.erase(std::remove(registered.begin(), registered.end(), "auto"), registered.end());
  EXPECT_EQ(js::policy_names(), registered);
  EXPECT_NE(std::find(registered.begin(), registered.end(), "fg-energylb"), registered.end());
}

TEST(SpankSettings, OptionValues) {
  std::string why;
  for (const char* ok : {"auto", "off", "none", "fg-energylb", "cg-energylb"})
    EXPECT_TRUE(js::valid_option(ok, &why)) << ok;
  for (const char* bad : {"", "bogus", "AUTO", "fg-energylb,none", "on"}) {
    why.clear();
    EXPECT_FALSE(js::valid_option(bad, &why)) << bad;
    EXPECT_NE(why.find("--joule-energy=" + std::string(bad) + ":"), std::string::npos) << why;
    EXPECT_NE(why.find("allowed values: auto, off, none, fg-energylb"), std::string::npos) << why;
  }
}

TEST(SpankSettings, PlugArgs) {
  const auto none = parse_ok({});
  EXPECT_EQ(none.socket, "");
  EXPECT_EQ(none.default_policy, "");
  EXPECT_EQ(none.default_value, "auto");
  const auto all = parse_ok({"socket=/tmp/j.sock", "default_policy=queue-depth", "default=off"});
  EXPECT_EQ(all.socket, "/tmp/j.sock");
  EXPECT_EQ(all.default_policy, "queue-depth");
  EXPECT_EQ(all.default_value, "off");
}

TEST(SpankSettings, BadPlugArgsNameTheArgumentAndTheAllowed) {
  auto why = parse_error({"sockt=/x"});
  EXPECT_NE(why.find("'sockt=/x'"), std::string::npos) << why;
  EXPECT_NE(why.find("allowed keys: socket, default_policy, default"), std::string::npos) << why;
  why = parse_error({"socket"});
  EXPECT_NE(why.find("KEY=VALUE"), std::string::npos) << why;
  why = parse_error({"socket=relative.sock"});
  EXPECT_NE(why.find("absolute"), std::string::npos) << why;
  why = parse_error({"default=maybe"});
  EXPECT_NE(why.find("'default=maybe'"), std::string::npos) << why;
  EXPECT_NE(why.find("auto, off"), std::string::npos) << why;
  why = parse_error({"default_policy=auto"});  // auto is not a site default: it is no policy
  EXPECT_NE(why.find("fg-energylb"), std::string::npos) << why;
}

TEST(SpankSettings, Environment) {
  const js::PlugArgs plain;
  EXPECT_EQ(js::job_environment("auto", plain), (Env{{"JOULE_DVFS", "auto"}}));
  EXPECT_EQ(js::job_environment("off", plain),
            (Env{{"JOULE_DVFS", "none"}, {"JOULE_ENERGY_POLICY", "none"}}));
  EXPECT_EQ(js::job_environment("fg-energylb", plain),
            (Env{{"JOULE_ENERGY_POLICY", "fg-energylb"}, {"JOULE_DVFS", "auto"}}));

  const auto site = parse_ok({"socket=/run/j.sock", "default_policy=templb"});
  EXPECT_EQ(js::job_environment("auto", site), (Env{{"JOULE_SERVICE_SOCKET", "/run/j.sock"},
                                                    {"JOULE_DVFS", "auto"},
                                                    {"JOULE_ENERGY_POLICY", "templb"}}));
  // An explicit policy wins over the site's default.
  EXPECT_EQ(js::job_environment("mpi-slack", site), (Env{{"JOULE_SERVICE_SOCKET", "/run/j.sock"},
                                                         {"JOULE_ENERGY_POLICY", "mpi-slack"},
                                                         {"JOULE_DVFS", "auto"}}));
}
