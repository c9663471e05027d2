// What lub's C++ API versions (lu_tasks.cpp, lu_mpi.cpp) share: the options
// of the four task types and the tasks of a step's diagonal block and row
// panel (lu_panel.cpp). The options: labels name them in JOULE_REPORT and traces
// (static strings, as task_options requires); the diagonal block and the
// panels go first, they are on the critical path.
#pragma once

#include <joule/joule.hpp>

#include <cstddef>

#include "block_matrix.hpp"

namespace lub {

inline const joule::task_options kLu0{.label = "lu0", .priority = 2};
inline const joule::task_options kFwd{.label = "fwd", .priority = 1};
inline const joule::task_options kBdiv{.label = "bdiv", .priority = 1};
inline const joule::task_options kBmod{.label = "bmod"};

// Spawns lu0 on block (k, k) and fwd on the blocks right of it in row k.
void spawn_diagonal_and_row(BlockMatrix& m, std::size_t k);

}  // namespace lub
