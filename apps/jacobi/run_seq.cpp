// The sequential version: every block of every iteration in order on one
// thread, no runtime (the baseline of scripts/bench apps).
#include "app.hpp"

namespace {

class SeqRunner final : public jacobi::Runner {
 public:
  const char* runtime() const override { return "sequential"; }
  int workers() const override { return 1; }
  void iterate(jacobi::Grid& g, const jacobi::Problem& p, int src) override {
    const std::size_t nb = p.blocks_per_side();
    for (std::size_t b = 0; b < p.blocks(); ++b)
      jacobi::sweep_block(g.buffer(src), g.buffer(1 - src), g.ld(), b / nb, b % nb, p.bs,
                          p.sweeps_of(b));
  }
};

}  // namespace

int main(int argc, char** argv) {
  SeqRunner runner;
  return jacobi::app_main(argc, argv, runner);
}
