// lub_mpi: the blocked LU over MPI ranks with joule tasks inside each rank
// (lu_mpi.hpp). Every rank generates the same matrix; rank 0 gathers the
// factors and checks the residual against the original.
//
//   mpirun -np 2 --bind-to core -x JOULE_LENDING=node lub_mpi --n 2048 --bs 128
#include <joule/joule.hpp>

#include <cstdio>
#include <exception>
#include <optional>

#include "lu_check.hpp"
#include "lu_mpi.hpp"
#include "lub_options.hpp"

namespace {

int run(const lub::Options& o, int rank, int ranks) {
  std::optional<joule::runtime> rt;
  lub::start_runtime(rt, o.workers);
  lub::BlockMatrix m(o.n / o.bs, o.bs);
  m.fill_diagonally_dominant(o.seed);

  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  const std::size_t mine = lub::factorize_distributed(m, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  const double secs = MPI_Wtime() - t0;
  unsigned long long tasks = 0, local = mine;
  MPI_Reduce(&local, &tasks, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (o.check) lub::gather_rows(m, MPI_COMM_WORLD);
  if (rank != 0) return 0;
  lub::print_run(o, "MPI + C++ API tasks", joule::num_workers(), ranks, std::size_t(tasks), secs);
  if (!o.check) return 0;
  lub::BlockMatrix original(o.n / o.bs, o.bs);
  original.fill_diagonally_dominant(o.seed);
  return lub::print_check(o, lub::relative_residual(original, m)) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const lub::Options o = lub::parse_options(argc, argv, "lub_mpi");
  int status = 2;
  try {
    status = run(o, rank, ranks);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lub_mpi (rank %d): %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int worst = 0;
  MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
