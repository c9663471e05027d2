// joule-ctl <command> [options]: node-level housekeeping for joule.
#include <cstdio>
#include <cstring>

#include "commands.hpp"

namespace joule::ctl {
namespace {

constexpr Command kCommands[] = {
    {"restore", "undo CPU frequency and governor changes left by killed joule processes",
     cmd_restore},
    {"show", "print the node's CPU lending table: owner, guest and state of each CPU", cmd_show},
    {"drom", "set the CPUs a running joule process owns (DROM)", cmd_drom},
    {"clean", "remove CPU lending tables left by dead processes", cmd_clean},
    {"card-map", "print where the many-core card places N threads (compact, scatter, balanced)",
     cmd_card_map},
    {"numa", "print the NUMA nodes, and where a process's memory is per node (--pid)", cmd_numa},
    {"jobs", "print jouled's per-job energy records (from the service, or --db FILE)", cmd_jobs},
    {"access", "check jouled's access file: what a user may ask for (access check USER)",
     cmd_access},
    {"devices", "list the offload devices joule sees: the card, CUDA GPUs, their meters and clocks",
     cmd_devices},
    {"dump", "print what a running joule program's workers and blocked tasks are doing (PID)",
     cmd_dump},
};

void usage(std::FILE* out) {
  std::fprintf(out, "usage: joule-ctl <command> [options]\n\ncommands:\n");
  for (const auto& c : kCommands) std::fprintf(out, "  %-10s %s\n", c.name, c.summary);
  std::fprintf(out, "\n'joule-ctl <command> --help' describes a command.\n");
}

}  // namespace
}  // namespace joule::ctl

int main(int argc, char** argv) {
  using namespace joule::ctl;
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? kUsage : kOk;
  }
  for (const auto& c : kCommands)
    if (!std::strcmp(argv[1], c.name)) return c.run(argc - 1, argv + 1);
  std::fprintf(stderr, "joule-ctl: unknown command '%s'\n\n", argv[1]);
  usage(stderr);
  return kUsage;
}
