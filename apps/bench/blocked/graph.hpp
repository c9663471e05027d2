// The task graphs of the two applications, as a list of task descriptors in
// creation order. Every driver walks the same list and derives its
// dependencies from access_of(), so all runtimes build the same graph in the
// same order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace blocked {

enum class App : std::uint8_t { lu, cholesky };
enum class Kernel : std::uint8_t { lu0, fwd, bdiv, bmod, potrf, trsm, syrk, gemm };

const char* app_name(App app);
bool parse_app(std::string_view text, App* app);
const char* kernel_name(Kernel kernel);

// One task: its kernel, the step k and the block it writes (row, col), and
// its position in creation order.
struct TaskDesc {
  Kernel kernel;
  std::uint32_t k;
  std::uint32_t row;
  std::uint32_t col;
  std::uint32_t seq;
};

struct BlockRef {
  std::uint32_t row;
  std::uint32_t col;
};

// The blocks a task reads (0 to 2, whole blocks) and the one it updates.
struct Access {
  BlockRef in[2];
  std::uint32_t n_in;
  BlockRef inout;
};

Access access_of(const TaskDesc& task);

// Every task of `app` on nb x nb blocks, in creation order (step by step:
// the diagonal block, its panels, then the trailing updates row by row).
std::vector<TaskDesc> build_graph(App app, std::size_t nb);

// The conventional flop count of the factorisation of an n x n matrix.
double app_flops(App app, std::size_t n);

}  // namespace blocked
