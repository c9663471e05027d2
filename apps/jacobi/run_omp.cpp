// OpenMP tasks with depend clauses, the way an OpenMP user writes the
// blocked Jacobi: one thread of a parallel region creates, per iteration,
// one task per block with depend(in:) on the source block and its
// neighbours (named by their first points) and depend(out:) on the
// destination block, then taskwait. Built by g++ (libgomp) and by clang++
// (libomp); OMP_* variables apply as usual, except the thread count given by
// --workers.
#include <omp.h>

#include "app.hpp"

namespace {

using jacobi::Grid;
using jacobi::Problem;

#if defined(__clang__)
constexpr const char* kRuntime = "libomp";
#else
constexpr const char* kRuntime = "libgomp";
#endif

class OmpRunner final : public jacobi::Runner {
 public:
  const char* runtime() const override { return kRuntime; }
  void start(int workers) override { workers_ = workers > 0 ? workers : omp_get_max_threads(); }
  int workers() const override { return workers_; }
  void iterate(Grid& g, const Problem& p, int src) override {
    const std::size_t nb = p.blocks_per_side();
#pragma omp parallel num_threads(workers_)
#pragma omp single
    {
      for (std::size_t bi = 0; bi < nb; ++bi)
        for (std::size_t bj = 0; bj < nb; ++bj) spawn_block(g, p, src, bi, bj);
#pragma omp taskwait
    }
  }

 private:
  static void spawn_block(Grid& g, const Problem& p, int src, std::size_t bi, std::size_t bj) {
    const std::size_t nb = p.blocks_per_side(), bs = p.bs, ld = g.ld();
    // A missing neighbour (on the domain's edge) names the block itself; g++
    // does not count a use in a depend clause, hence maybe_unused.
    [[maybe_unused]] const double& self = *g.block_origin(src, bi, bj, bs);
    [[maybe_unused]] const double& north = bi > 0 ? *g.block_origin(src, bi - 1, bj, bs) : self;
    [[maybe_unused]] const double& south =
        bi + 1 < nb ? *g.block_origin(src, bi + 1, bj, bs) : self;
    [[maybe_unused]] const double& west = bj > 0 ? *g.block_origin(src, bi, bj - 1, bs) : self;
    [[maybe_unused]] const double& east = bj + 1 < nb ? *g.block_origin(src, bi, bj + 1, bs) : self;
    [[maybe_unused]] double& out = *g.block_origin(1 - src, bi, bj, bs);
    const double* from = g.buffer(src);
    double* to = g.buffer(1 - src);
    const int sweeps = p.sweeps_of(bi * nb + bj);
#pragma omp task firstprivate(from, to, ld, bi, bj, bs, sweeps) \
    depend(in                                                   \
           : self, north, south, west, east) depend(out         \
                                                    : out)
    jacobi::sweep_block(from, to, ld, bi, bj, bs, sweeps);
  }
  int workers_ = 1;
};

}  // namespace

int main(int argc, char** argv) {
  OmpRunner runner;
  return jacobi::app_main(argc, argv, runner);
}
