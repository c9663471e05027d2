// joule-ctl access check USER: what jouled's access file lets USER do (the
// controls, the frequency bounds, and which [[allow]] entries granted
// them), read with the same loader and rules jouled uses (docs/service.md,
// "Admin guide"). An administrator's check before reloading the service.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "access_policy.hpp"
#include "commands.hpp"

namespace joule::ctl {
namespace {

int check(const std::string& user, const std::string& path) {
  std::string why;
  auto policy = service::AccessPolicy::load(path, &why);
  if (!policy) {
    std::fprintf(stderr, "joule-ctl access: %s\n", why.c_str());
    return kFailed;
  }
  const service::Grant g = policy->grant_for_user(user, &why);
  if (!why.empty()) {
    std::fprintf(stderr, "joule-ctl access: %s\n", why.c_str());
    return kFailed;
  }
  std::printf("%s: %s\n", user.c_str(), service::describe_grant(g).c_str());
  if (!g.controls) return kOk;
  std::printf("  frequency: %s\n", g.allows(service::kControlFrequency) ? "yes" : "no");
  std::printf("  energy:    %s\n", g.allows(service::kControlEnergy) ? "yes" : "no");
  for (const auto& where : g.because) std::printf("  matched:   %s\n", where.c_str());
  return kOk;
}

}  // namespace

int cmd_access(int argc, char** argv) {
  CLI::App app("joule-ctl access: check jouled's access file", "joule-ctl access");
  app.require_subcommand(1);
  std::string user, path = "/etc/joule/access.toml";
  auto* sub = app.add_subcommand("check", "print what USER may ask jouled for, and why");
  sub->add_option("USER", user, "user name")->required();
  sub->add_option("--access", path, "access file (default /etc/joule/access.toml)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kOk : kUsage;
  }
  return check(user, path);
}

}  // namespace joule::ctl
