#include "app_cli.hpp"

#include <sched.h>

namespace apps {
namespace {

std::string divisors_text(std::size_t n) {
  std::string out;
  for (std::size_t d = 1; d <= n; ++d)
    if (n % d == 0) out += (out.empty() ? "" : ", ") + std::to_string(d);
  return out;
}

}  // namespace

void add_common_options(CLI::App& app, CommonOptions& o, const std::string& what) {
  app.add_option("--n", o.n, "problem size (points or matrix order per side)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 16))
      ->capture_default_str();
  app.add_option("--bs", o.bs, what + " side; must divide --n")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 16))
      ->capture_default_str();
  app.add_option("--workers", o.workers, "worker threads; 0: one per CPU of the affinity mask")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  app.add_flag("--no-check", o.no_check, "skip the verification of the result");
}

void check_block_divides(const CommonOptions& o, const std::string& what) {
  if (o.n % o.bs != 0)
    throw CLI::ValidationError("--bs", std::to_string(o.bs) + " does not divide --n " +
                                           std::to_string(o.n) + "; allowed " + what +
                                           " sides: " + divisors_text(o.n));
}

int parse_command_line(CLI::App& app, int argc, char** argv,
                       const std::function<void()>& validate) {
  app.failure_message([](const CLI::App* a, const CLI::Error& e) {
    return a->get_name() + ": error: " + e.what() + "\nRun with --help for the options.\n";
  });
  try {
    app.parse(argc, argv);
    validate();
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return -1;
}

int cpus_in_mask() {
  cpu_set_t set;
  return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

}  // namespace apps
