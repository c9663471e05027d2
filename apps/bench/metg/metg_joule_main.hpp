// main() of the METG programs that run on joule (the C++ API and the
// joulecc-translated OmpSs-2 one): joule started with --workers workers,
// then the sweep (metg.hpp).
#pragma once

#include <joule/joule.hpp>

#include <cstdio>
#include <string>

#include "metg.hpp"

namespace metg {

inline int joule_main(int argc, char** argv, const char* runtime, RunFn run) {
  const Options o = parse(argc, argv);
  joule::runtime rt({{"JOULE_WORKERS", std::to_string(o.workers)}});
  if (joule::num_workers() != o.workers) {
    std::fprintf(stderr, "metg %s: joule started %d workers, not %d\n", runtime,
                 joule::num_workers(), o.workers);
    return 1;
  }
  return sweep(runtime, o, run);
}

}  // namespace metg
