// Callgrind's client requests when valgrind's header is installed, no-ops
// otherwise: the programs measured by scripts/callgrind-paths and
// scripts/callgrind-node-scale zero the counts after a warm-up and dump them
// per phase (valgrind manual, "Callgrind: client request reference").
#pragma once

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(name) ((void)(name))
#endif
