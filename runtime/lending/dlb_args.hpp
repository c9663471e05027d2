// DLB_ARGS: the option string DLB users set (DLB user guide, "DLB_ARGS";
// also DLB_Init's dlb_args argument). joule accepts the options it gives
// DLB's meaning to and refuses the rest by name, never ignoring one
// silently: a program that asked for something joule does not do stops at
// start (the config layer reports the key) or at DLB_Init (an error code).
//
// Forms, as DLB's: --name (yes), --name=yes|no|true|false|1|0, --no-name,
// --name=value for the options that take one. Later options override
// earlier ones; DLB_Init's string comes after the environment's.
#pragma once

#include <string>
#include <string_view>

namespace joule::lending {

// Which blocking MPI calls lend the caller's CPU (--lewi-mpi-calls).
enum class MpiCalls { none, all, barrier, collectives };

struct DlbArgs {
  bool lewi = true;           // --lewi: joule's DLB_Init always lends unless --lewi=no
  bool drom = true;           // --drom: always answered (only yes is accepted)
  bool talp = true;           // --talp: monitoring regions always measure (only yes)
  bool barrier = true;        // --barrier: the node barrier (only yes)
  bool ompt = false;          // --ompt: libjoule-omp lends at the points DLB's OMPT mode does
  bool keep_one_cpu = false;  // --lewi-keep-one-cpu: as JOULE_LENDING_KEEP_CPU=1
  bool async = false;         // --mode=async: callbacks from a helper thread
  std::string verbose;        // --verbose[=components]: DLB calls' callbacks on stderr
  bool quiet = false;         // --quiet: accepted (joule prints errors only)
  MpiCalls lewi_mpi_calls = MpiCalls::all;  // --lewi-mpi-calls=none|all|barrier|collectives

  // Parses `text` over the values already here. Throws std::invalid_argument
  // naming the option and the allowed ones.
  void parse(std::string_view text);
  // The options that joule accepts, for messages and docs.
  static const char* allowed();
};

}  // namespace joule::lending
