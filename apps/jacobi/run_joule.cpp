// joule: one task per block and iteration, reading the source block and its
// four neighbours (named by their first points) and writing the block of the
// other buffer. Each block's tasks carry the block number as affinity key,
// and every iteration ends with taskwait and joule::iteration_boundary(), so
// the iterative energy policies (fg-energylb, `auto`) see per-key loads and
// decide per iteration.
#include <joule/joule.hpp>

#include <array>
#include <memory>
#include <string>

#include "app.hpp"

namespace {

using jacobi::Grid;
using jacobi::Problem;

class JouleRunner final : public jacobi::Runner {
 public:
  const char* runtime() const override { return "joule"; }
  void start(int workers) override {
    if (workers > 0) {
      rt_ = std::make_unique<joule::runtime>(
          std::initializer_list<std::pair<std::string, std::string>>{
              {"JOULE_WORKERS", std::to_string(workers)}});
    } else {
      rt_ = std::make_unique<joule::runtime>();
    }
  }
  int workers() const override { return joule::num_workers(); }
  void iterate(Grid& g, const Problem& p, int src) override {
    const std::size_t nb = p.blocks_per_side();
    for (std::size_t bi = 0; bi < nb; ++bi)
      for (std::size_t bj = 0; bj < nb; ++bj) spawn_block(g, p, src, bi, bj);
    joule::taskwait();
    joule::iteration_boundary();
  }
  void stop() override { rt_.reset(); }

 private:
  static void spawn_block(Grid& g, const Problem& p, int src, std::size_t bi, std::size_t bj) {
    const std::size_t nb = p.blocks_per_side();
    const std::size_t b = bi * nb + bj;
    // At most six dependencies: a fixed array, as a depend clause is, not a
    // vector grown by push_back (up to four allocations and frees a task).
    std::array<joule::dep, 6> deps;
    std::size_t n = 0;
    deps[n++] = joule::in(*g.block_origin(src, bi, bj, p.bs));
    if (bi > 0) deps[n++] = joule::in(*g.block_origin(src, bi - 1, bj, p.bs));
    if (bi + 1 < nb) deps[n++] = joule::in(*g.block_origin(src, bi + 1, bj, p.bs));
    if (bj > 0) deps[n++] = joule::in(*g.block_origin(src, bi, bj - 1, p.bs));
    if (bj + 1 < nb) deps[n++] = joule::in(*g.block_origin(src, bi, bj + 1, p.bs));
    deps[n++] = joule::out(*g.block_origin(1 - src, bi, bj, p.bs));
    joule::task_options o;
    o.label = "sweep";
    o.affinity = b;
    o.cost = double(p.sweeps_of(b));
    const double* from = g.buffer(src);
    double* to = g.buffer(1 - src);
    const std::size_t ld = g.ld(), bs = p.bs;
    const int sweeps = p.sweeps_of(b);
    joule::spawn(
        std::span<const joule::dep>(deps.data(), n),
        [=] { jacobi::sweep_block(from, to, ld, bi, bj, bs, sweeps); }, o);
  }
  std::unique_ptr<joule::runtime> rt_;
};

}  // namespace

int main(int argc, char** argv) {
  JouleRunner runner;
  return jacobi::app_main(argc, argv, runner);
}
