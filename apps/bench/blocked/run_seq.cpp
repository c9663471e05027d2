// The sequential reference: the same task bodies called in creation order by
// one thread, no runtime. Its body time is what the work costs when every
// task finds its data where creation order leaves it.
#include "driver.hpp"

namespace {

class SeqDriver final : public blocked::Driver {
 public:
  const char* runtime() const override { return "sequential"; }
  void run(blocked::TiledMatrix& m, const std::vector<blocked::TaskDesc>& tasks) override {
    for (const blocked::TaskDesc& t : tasks) {
      blocked::run_task(t, blocked::operands_of(m, t), m.block_size());
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  SeqDriver driver;
  return blocked::driver_main(argc, argv, driver);
}
