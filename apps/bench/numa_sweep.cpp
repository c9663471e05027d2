// A memory-bound sweep over blocks of one array, one keyed task per block
// and sweep: with placed=1 the array comes from joule_alloc(JOULE_PLACE_BY_KEY),
// so block b lies on the node of the worker that runs key b; with placed=0
// the main thread writes it first and every page sits on its node. Prints
//   sweep placed=<0|1> ms=<time of the sweeps>
// (docs/user-guide-semantics.md, "Placing data on NUMA nodes"; scripts/device-check).
//
//   numa_sweep <placed 0|1> [MiB, default 256] [sweeps, default 10]
#include <joule/joule.hpp>
#include <joule/memory.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

constexpr std::size_t kBlockBytes = std::size_t(1) << 20;  // 1 MiB per key

long parse(const char* text, const char* what, long lo, long hi) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (!end || *end || v < lo || v > hi) {
    std::fprintf(stderr, "numa_sweep: %s must be an integer in %ld..%ld, not '%s'\n", what, lo, hi,
                 text);
    std::exit(2);
  }
  return v;
}

// a[i] = a[i] * 0.5 + 1 over one block: a read and a write per element.
void sweep_block(double* a, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) a[i] = a[i] * 0.5 + 1.0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: numa_sweep <placed 0|1> [MiB] [sweeps]\n");
    return 2;
  }
  const bool placed = parse(argv[1], "placed", 0, 1) == 1;
  const std::size_t mib = std::size_t(argc > 2 ? parse(argv[2], "MiB", 1, 1 << 20) : 256);
  const int sweeps = int(argc > 3 ? parse(argv[3], "sweeps", 1, 1000000) : 10);
  const std::size_t blocks = mib * (std::size_t(1) << 20) / kBlockBytes;
  const std::size_t per_block = kBlockBytes / sizeof(double);

  joule::runtime rt;
  double* a = nullptr;
  if (placed) {
    // Block b is first touched by the worker that keyed tasks of b go to.
    a = static_cast<double*>(
        joule::numa_alloc(blocks * kBlockBytes, joule::placement::by_key(0, kBlockBytes)));
  } else {
    // Touched here: every page on this thread's node.
    a = static_cast<double*>(joule::numa_alloc(blocks * kBlockBytes, joule::placement::local()));
    std::memset(a, 0, blocks * kBlockBytes);
  }
  joule::task_options opts;
  const auto start = std::chrono::steady_clock::now();
  for (int s = 0; s < sweeps; ++s) {
    for (std::size_t b = 0; b < blocks; ++b) {
      opts.affinity = b;
      double* block = a + b * per_block;
      joule::spawn([block, per_block] { sweep_block(block, per_block); }, opts);
    }
    joule::taskwait();
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  // Every element went through the recurrence `sweeps` times from 0: a
  // block a task skipped would show here.
  double expect = 0;
  for (int s = 0; s < sweeps; ++s) expect = expect * 0.5 + 1.0;
  for (std::size_t i = 0; i < blocks * per_block; i += 4096 / sizeof(double)) {
    if (a[i] != expect) {
      std::fprintf(stderr, "numa_sweep: element %zu is %g, expected %g\n", i, a[i], expect);
      return 1;
    }
  }
  std::printf("sweep placed=%d ms=%.1f\n", placed ? 1 : 0, ms);
  joule::numa_free(a);
  return 0;
}
