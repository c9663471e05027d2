#include "task_dag.hpp"

#include <utility>

namespace blocked {
namespace {

using u32 = std::uint32_t;
using Edge = std::pair<u32, u32>;
constexpr u32 kNone = ~u32{0};

struct BlockState {
  u32 writer = kNone;
  std::vector<u32> readers;
};

void read_block(BlockState& b, u32 task, std::vector<Edge>& edges) {
  if (b.writer != kNone) edges.emplace_back(b.writer, task);
  b.readers.push_back(task);
}

void write_block(BlockState& b, u32 task, std::vector<Edge>& edges) {
  if (!b.readers.empty()) {
    for (u32 r : b.readers) edges.emplace_back(r, task);
    b.readers.clear();
  } else if (b.writer != kNone) {
    edges.emplace_back(b.writer, task);
  }
  b.writer = task;
}

}  // namespace

TaskDag build_dag(const std::vector<TaskDesc>& tasks, std::size_t nb) {
  std::vector<BlockState> blocks(nb * nb);
  std::vector<Edge> edges;
  edges.reserve(tasks.size() * 3);
  for (const TaskDesc& t : tasks) {
    const Access a = access_of(t);
    for (u32 i = 0; i < a.n_in; ++i)
      read_block(blocks[a.in[i].row * nb + a.in[i].col], t.seq, edges);
    write_block(blocks[a.inout.row * nb + a.inout.col], t.seq, edges);
  }
  // Counting sort of the edges by source into CSR form.
  TaskDag dag;
  dag.first.assign(tasks.size() + 1, 0);
  dag.preds.assign(tasks.size(), 0);
  for (const Edge& e : edges) {
    ++dag.first[e.first + 1];
    ++dag.preds[e.second];
  }
  for (std::size_t t = 0; t < tasks.size(); ++t) dag.first[t + 1] += dag.first[t];
  dag.succ.resize(edges.size());
  std::vector<u32> next(dag.first.begin(), dag.first.end() - 1);
  for (const Edge& e : edges) dag.succ[next[e.first]++] = e.second;
  return dag;
}

}  // namespace blocked
