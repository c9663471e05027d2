// Command line and report shared by lub's executables (lub, lub_ompss, lub_mpi).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include <joule/joule.hpp>

namespace lub {

struct Options {
  std::size_t n = 2048;
  std::size_t bs = 128;
  int workers = -1;  // -1: leave JOULE_WORKERS / the environment alone
  std::uint64_t seed = 42;
  bool check = true;
};

// Exits with status 0 after --help, 2 on a bad or unknown argument (naming it)
// or when N is not a multiple of the block size.
Options parse_options(int argc, char** argv, const char* prog);

// Starts joule with `workers` workers (-1: the environment's setting).
void start_runtime(std::optional<joule::runtime>& rt, int workers);

// Prints the run's figures (`ranks` > 1 adds the MPI line).
void print_run(const Options& o, const char* variant, int workers, int ranks, std::size_t tasks,
               double seconds);

// Prints the residual line; true when it is within LU's backward-error scale.
bool print_check(const Options& o, double residual);

}  // namespace lub
