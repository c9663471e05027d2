// lub: blocked LU factorisation (no pivoting) of a diagonally dominant random
// matrix on joule, with a residual check against a copy. The factorisation
// is lu_tasks.cpp (C++ API) in `lub` and lu_ompss.cpp (OmpSs pragmas through
// joulecc) in `lub_ompss`; lub_mpi (main_mpi.cpp) spreads it over MPI ranks.
//
//   lub [--n N] [--bs B] [--workers W] [--seed S] [--check | --no-check]
//
// Exit status: 0 on PASS, 1 on a failed check, 2 on bad arguments or a
// runtime error.
#include <joule/joule.hpp>

#include <chrono>
#include <cstdio>
#include <exception>
#include <optional>

#include "block_matrix.hpp"
#include "lu_check.hpp"
#include "lu_tasks.hpp"
#include "lub_options.hpp"

namespace {

int run(const lub::Options& o) {
  std::optional<joule::runtime> rt;
  lub::start_runtime(rt, o.workers);

  lub::BlockMatrix m(o.n / o.bs, o.bs);
  m.fill_diagonally_dominant(o.seed);
  std::optional<lub::BlockMatrix> original;
  if (o.check) original.emplace(m);

  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t tasks = lub::factorize(m);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  lub::print_run(o, lub::kVariant, joule::num_workers(), 1, tasks, secs);
  if (!o.check) return 0;
  return lub::print_check(o, lub::relative_residual(*original, m)) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const lub::Options o = lub::parse_options(argc, argv, "lub");
  try {
    return run(o);
  } catch (const joule::error& e) {
    std::fprintf(stderr, "lub: joule error %d: %s\n", static_cast<int>(e.code()), e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lub: %s\n", e.what());
  }
  return 2;
}
