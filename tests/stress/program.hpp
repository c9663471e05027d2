// Random task programs for the differential stress test: a tree of tasks with
// random regions over a small byte array, random access kinds, nesting that
// respects the parent's access, random taskwaits and taskwait_ons.
#pragma once

#include "dep_actions.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace joule_stress {

using joule_test::access_kind;

inline constexpr std::size_t kMemBytes = 128;  // 32 ints
inline constexpr std::uint32_t kNoSlot = UINT32_MAX;

struct region {
  std::uint32_t start = 0;
  std::uint32_t len = 0;
  std::uint32_t end() const { return start + len; }
};

struct access_dep {
  access_kind kind;
  region r;
};

enum class op_kind { spawn, taskwait, taskwait_on };

// One step of a task body (or of the top level, run by the main thread).
struct op {
  op_kind kind = op_kind::spawn;
  std::uint32_t task = 0;             // spawn: index into program::tasks
  std::vector<access_dep> wait_deps;  // taskwait_on
  bool write_after = false;           // taskwait_on: then write the waited regions
  std::uint32_t obs_slot = kNoSlot;   // taskwait*: where the observation goes
};

struct task_node {
  std::uint32_t id = 0;
  std::vector<access_dep> deps;  // pairwise disjoint
  std::vector<op> body;          // run after the task's own accesses
  int priority = 0;
  bool final = false;
  bool undeferred = false;  // if_ = false
  bool in_final = false;    // final itself or below a final task
  int spin_us = 0;
  std::uint32_t first_slot = 0;  // one observation slot per dep
};

struct program {
  std::uint64_t seed = 0;
  std::vector<task_node> tasks;
  std::vector<op> top;
  std::uint32_t num_slots = 0;
  std::uint8_t initial[kMemBytes] = {};
};

// Builds the program for seed; max_tasks bounds its size.
program generate(std::uint64_t seed, std::uint32_t max_tasks = 60);

// A readable listing, printed when a program fails.
std::string describe(const program& p);

}  // namespace joule_stress
