// energy_bench: the workloads of docs/energy.md, for scripts/bench energy.
// Task bodies spin on the clock (so a block's work is exact); the emulated
// DVFS stretches them on slowed cores. Prints one line:
//   energy_bench <mode> time_s <wall of the measured part>
//
//   energy_bench iter  [iterations] [block_us]   three equal keyed blocks on
//                                                two workers per iteration (2:1)
//   energy_bench graph [steps] [step_us]         a chain of dependent tasks,
//                                                each releasing a side task
//                                                of half its length (no iterations)
//   energy_bench indep [tasks] [task_us]         independent equal tasks
//   energy_bench keyed [iterations] [block_us]   two equal keyed blocks per
//                                                iteration (balanced, iterative)
//   energy_bench chain [steps] [step_us]         a chain alone: parallelism 1
//                                                (CPU masks park the other core)
#include <joule/joule.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

void spin_us(long us) {
  const auto until = Clock::now() + std::chrono::microseconds(us);
  while (Clock::now() < until) {
  }
}

long arg(int argc, char** argv, int i, long fallback) {
  return argc > i ? std::strtol(argv[i], nullptr, 10) : fallback;
}

void iterative(int blocks, long iterations, long block_us) {
  for (long it = 0; it < iterations; ++it) {
    for (int b = 0; b < blocks; ++b) {
      joule::task_options o;
      o.label = "block";
      o.affinity = std::uint64_t(b);
      joule::spawn([block_us] { spin_us(block_us); }, o);
    }
    joule::taskwait();
    joule::iteration_boundary();
  }
}

// Chain step i writes chain and token[i]; side task i reads token[i], so it
// becomes ready when step i ends and has no successors. Side i is created
// after step i+1, so step i+1 is step i's first successor and runs next on
// the same worker (immediate successor); the side tasks go to worker 1 (key).
void graph(long steps, long step_us) {
  int chain = 0;
  std::vector<int> token(std::size_t(steps), 0);
  auto side = [&](long i) {
    joule::task_options s;
    s.label = "side";
    s.affinity = 1;
    joule::spawn(
        {joule::in(token[std::size_t(i)])}, [step_us] { spin_us(step_us / 2); }, s);
  };
  for (long i = 0; i < steps; ++i) {
    joule::task_options c;
    c.label = "chain";
    c.affinity = 0;
    joule::spawn(
        {joule::inout(chain), joule::out(token[std::size_t(i)])}, [step_us] { spin_us(step_us); },
        c);
    if (i > 0) side(i - 1);
  }
  side(steps - 1);
  joule::taskwait();
}

void chain_only(long steps, long step_us) {
  int chain = 0;
  for (long i = 0; i < steps; ++i)
    joule::spawn(
        {joule::inout(chain)}, [step_us] { spin_us(step_us); },
        joule::task_options{.label = "chain"});
  joule::taskwait();
}

void independent(long tasks, long task_us) {
  for (long i = 0; i < tasks; ++i) {
    joule::task_options o;
    o.label = "indep";
    joule::spawn([task_us] { spin_us(task_us); }, o);
  }
  joule::taskwait();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "iter";
  joule::runtime rt;
  const auto t0 = Clock::now();
  if (mode == "iter")
    iterative(3, arg(argc, argv, 2, 400), arg(argc, argv, 3, 2000));
  else if (mode == "keyed")
    iterative(2, arg(argc, argv, 2, 400), arg(argc, argv, 3, 2000));
  else if (mode == "graph")
    graph(arg(argc, argv, 2, 1500), arg(argc, argv, 3, 1000));
  else if (mode == "chain")
    chain_only(arg(argc, argv, 2, 1500), arg(argc, argv, 3, 1000));
  else if (mode == "indep")
    independent(arg(argc, argv, 2, 3000), arg(argc, argv, 3, 500));
  else {
    std::fprintf(stderr, "energy_bench: unknown mode '%s' (iter, keyed, graph, chain, indep)\n",
                 mode.c_str());
    return 2;
  }
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf("energy_bench %s time_s %.6f\n", mode.c_str(), secs);
  return 0;
}
