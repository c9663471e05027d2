// The dependency graph of a task list, worked out from access_of() in
// creation order with the rules of OpenMP / OmpSs depend clauses: a reader
// waits for the last writer of its block; a writer waits for the readers
// since the last writer, or for that writer when there were none. For the
// runtimes without data-driven dependencies (oneTBB), built inside the timed
// region because the others discover their dependencies while running too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "graph.hpp"

namespace blocked {

struct TaskDag {
  // Successors of task t: succ[first[t]] .. succ[first[t + 1] - 1].
  std::vector<std::uint32_t> first;
  std::vector<std::uint32_t> succ;
  // Number of incoming edges of each task (duplicates counted).
  std::vector<std::uint32_t> preds;
};

TaskDag build_dag(const std::vector<TaskDesc>& tasks, std::size_t nb);

}  // namespace blocked
