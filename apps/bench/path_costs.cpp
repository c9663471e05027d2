// A fixed amount of work through the runtime's hot paths, for counting
// instructions under callgrind (scripts/callgrind-paths): creation, pushes,
// steals, completion, the idle path and wake-ups. The work is the same at
// every worker count, so a path whose cost per task grows with the count
// shows up as such; wall time is not measured here (the host is too noisy).
//
//   path_costs --workers 16 [--rounds 200 --batch 64 --chain 4000
//                            --parents 100 --children 32 --oversubscribed no]
//
// Idle spinning is off (JOULE_SPIN_US=0, JOULE_SPIN_MAX_US=0): idle workers
// sleep after one round of polls instead of spinning for a time, so that
// what they execute is the idle path itself, not a spin whose length
// depends on how the threads happen to be interleaved. Lending, DVFS and
// the energy policy are off too: no observer runs per task.
// JOULE_OVERSUBSCRIBED defaults to no here: the counts stand for a machine
// with a CPU per worker, and on a small host `auto` would switch 16 and 64
// workers to the yielding waits, so the rows would compare two idle paths.
//
// Under callgrind each phase is dumped on its own (CALLGRIND_DUMP_STATS_AT),
// after a warm-up whose costs (thread start, first pool blocks) are zeroed.
// Without valgrind the client requests cost a few instructions each.
#include <joule/joule.hpp>

#include "callgrind_marks.hpp"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

struct Sizes {
  int workers = 2;
  int rounds = 200;   // independent: rounds of `batch` tasks, each followed by a taskwait
  int batch = 64;     // as many as the largest worker count measured, so every worker may steal
  int chain = 4000;   // one inout chain
  int parents = 100;  // nested: parent tasks ...
  int children = 32;  // ... each spawning this many and waiting for them
  std::string oversubscribed = "no";  // JOULE_OVERSUBSCRIBED
};

// Relaxed: the count is checked after a taskwait, which orders it.
std::atomic<long> ran{0};

void tiny() { ran.fetch_add(1, std::memory_order_relaxed); }

// Create, push to the main thread's deque, stolen or popped, complete; the
// taskwait's helping loop and the other workers' idle paths in between.
long independent(const Sizes& s) {
  for (int r = 0; r < s.rounds; ++r) {
    for (int i = 0; i < s.batch; ++i) joule::spawn([] { tiny(); });
    joule::taskwait();
  }
  return long(s.rounds) * s.batch;
}

// Dependency registration and release: every completion readies the next
// task (the immediate successor).
long chain(const Sizes& s, std::uint64_t& x) {
  for (int i = 0; i < s.chain; ++i) joule::spawn({joule::inout(x)}, [&x] { ++x; });
  joule::taskwait();
  return s.chain;
}

// Spawns from workers into their own deques, taskwait inside tasks, and
// parents completing after their last child.
long nested(const Sizes& s) {
  const int children = s.children;
  for (int p = 0; p < s.parents; ++p)
    joule::spawn([children] {
      for (int c = 0; c < children; ++c) joule::spawn([] { tiny(); });
      joule::taskwait();
      tiny();
    });
  joule::taskwait();
  return long(s.parents) * (s.children + 1);
}

int parse_int(const char* flag, const char* text) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || v < 1 || v > 1'000'000) {
    std::fprintf(stderr, "path_costs: %s expects an integer 1..1000000, got '%s'\n", flag, text);
    std::exit(2);
  }
  return int(v);
}

Sizes parse(int argc, char** argv) {
  Sizes s;
  struct Flag {
    const char* name;
    int* value;
  };
  const Flag flags[] = {{"--workers", &s.workers}, {"--rounds", &s.rounds},
                        {"--batch", &s.batch},     {"--chain", &s.chain},
                        {"--parents", &s.parents}, {"--children", &s.children}};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--oversubscribed") == 0 && i + 1 < argc) {
      s.oversubscribed = argv[++i];  // joule checks the value
      continue;
    }
    bool known = false;
    for (const Flag& f : flags)
      if (std::strcmp(argv[i], f.name) == 0 && i + 1 < argc) {
        *f.value = parse_int(f.name, argv[++i]);
        known = true;
      }
    if (!known) {
      std::fprintf(stderr,
                   "usage: path_costs [--workers N] [--rounds R] [--batch K] [--chain C] "
                   "[--parents P] [--children Q] [--oversubscribed auto|yes|no]\n");
      std::exit(2);
    }
  }
  return s;
}

bool check(const char* phase, long expected) {
  const long got = ran.exchange(0);
  if (got == expected) return true;
  std::fprintf(stderr, "path_costs: %s ran %ld tasks, expected %ld\n", phase, got, expected);
  return false;
}

int run(const Sizes& s) {
  bool ok = true;
  long tasks = 0;
  std::uint64_t x = 0;
  {
    joule::runtime rt({{"JOULE_WORKERS", std::to_string(s.workers)},
                       {"JOULE_SPIN_US", "0"},
                       {"JOULE_SPIN_MAX_US", "0"},
                       {"JOULE_LENDING", "off"},
                       {"JOULE_DVFS", "none"},
                       {"JOULE_ENERGY_POLICY", "none"},
                       {"JOULE_OVERSUBSCRIBED", s.oversubscribed}});
    if (joule::num_workers() != s.workers) {
      std::fprintf(stderr, "path_costs: asked for %d workers, got %d\n", s.workers,
                   joule::num_workers());
      return 1;
    }
    // Warm-up: every path once, so that the pools hold blocks and the
    // threads' contexts exist before counting starts.
    Sizes warm = s;
    warm.rounds = 2;
    warm.chain = 64;
    warm.parents = 4;
    std::uint64_t w = 0;
    ok = check("warm-up", independent(warm) + nested(warm)) && ok;
    const long warm_chain = chain(warm, w);
    ok = warm_chain == long(w) && ok;

    CALLGRIND_ZERO_STATS;
    const long a = independent(s);
    CALLGRIND_DUMP_STATS_AT("independent");
    const long b = chain(s, x);
    CALLGRIND_DUMP_STATS_AT("chain");
    const long c = nested(s);
    CALLGRIND_DUMP_STATS_AT("nested");
    ok = check("independent and nested", a + c) && ok;
    tasks = a + b + c;
    std::printf("path_costs: workers=%d tasks=%ld independent=%ld chain=%ld nested=%ld\n",
                s.workers, tasks, a, b, c);
  }
  if (x != std::uint64_t(s.chain)) {
    std::fprintf(stderr, "path_costs: the chain counted %llu, expected %d\n",
                 static_cast<unsigned long long>(x), s.chain);
    ok = false;
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const Sizes s = parse(argc, argv);
  try {
    return run(s);
  } catch (const joule::error& e) {  // a setting joule rejects (--oversubscribed)
    std::fprintf(stderr, "path_costs: %s\n", e.what());
    return 2;
  }
}
