// Runs a random program two ways: sequentially (every task executed at once
// when it is created, which defines the expected result) and on joule.
#pragma once

#include "program.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace joule_stress {

struct run_result {
  std::uint8_t mem[kMemBytes] = {};
  std::vector<std::uint64_t> slots;   // observations
  std::vector<int> runs;              // times each task's body ran
  std::vector<std::string> problems;  // joule-only checks (final, if_=false)
};

run_result run_sequential(const program& p);
// Needs a running joule runtime; returns after a final taskwait. drop_deps
// spawns every task without dependencies: only for checking that the test
// notices (use a single worker, so nothing races).
run_result run_joule(const program& p, bool drop_deps = false);

// Empty when equal; otherwise a description of the differences.
std::string compare(const program& p, const run_result& expected, const run_result& actual);

}  // namespace joule_stress
