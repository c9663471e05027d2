// A readable dump of the CPU table (joule-ctl show, DLB_PrintShmem).
#pragma once

#include <ostream>

#include "cpu_table.hpp"

namespace joule::lending {

// One line per CPU in use (state, owner, guest), one per registered process.
void print_table(CpuTable& t, std::ostream& out);

}  // namespace joule::lending
