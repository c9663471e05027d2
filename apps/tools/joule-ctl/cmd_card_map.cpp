// joule-ctl card-map: where the many-core card would put N threads under
// compact, scatter or balanced placement (KMP_AFFINITY semantics), one line
// per thread. The same library places the emulated card's workers.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "commands.hpp"
#include "placement.hpp"

namespace joule::ctl {
namespace {

struct CardMapArgs {
  std::string topology = "package:1 core:60 pu:4";
  int threads = 0;
  std::string affinity = "compact";
  int permute = 0;
  int offset = 0;
  bool verbose = false;
};

void add_options(CLI::App& app, CardMapArgs& a) {
  app.add_option("--topology", a.topology,
                 "hwloc synthetic topology of the card (default: a Xeon Phi 5110P)");
  app.add_option("--threads", a.threads, "number of threads to place")->required();
  app.add_option("--affinity", a.affinity, "compact, scatter or balanced");
  app.add_option("--permute", a.permute, "KMP_AFFINITY permute (compact, scatter)");
  app.add_option("--offset", a.offset, "KMP_AFFINITY offset (compact, scatter)");
  app.add_flag("--verbose", a.verbose, "also print the KMP_AFFINITY=verbose form on stderr");
}

int print_map(const CardMapArgs& a) {
  const card_affinity::CardTopology topo = card_affinity::CardTopology::from_synthetic(a.topology);
  const card_affinity::PlacementOptions opts{card_affinity::parse_affinity(a.affinity), a.permute,
                                             a.offset};
  const auto map = card_affinity::place_threads(topo, a.threads, opts);
  if (a.verbose)
    std::fprintf(stderr, "card-map: %d packages, %d cores, %d PUs; affinity %s,%d,%d\n",
                 topo.package_count(), topo.core_count(), topo.pu_count(),
                 card_affinity::affinity_name(opts.affinity), a.permute, a.offset);
  for (int t = 0; t < static_cast<int>(map.size()); ++t) {
    std::printf("%s\n", card_affinity::map_line(t, map[t]).c_str());
    if (a.verbose) std::fprintf(stderr, "%s\n", card_affinity::verbose_line(t, map[t]).c_str());
  }
  return kOk;
}

}  // namespace

int cmd_card_map(int argc, char** argv) {
  CLI::App app("Prints the card's thread -> core / PU map, one line per thread.",
               "joule-ctl card-map");
  CardMapArgs args;
  add_options(app, args);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kOk : kUsage;
  }
  try {
    return print_map(args);
  } catch (const card_affinity::PlacementError& e) {
    std::fprintf(stderr, "joule-ctl card-map: %s\n", e.what());
    return kUsage;
  }
}

}  // namespace joule::ctl
