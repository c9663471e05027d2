// CPU lending's settings: LeWI, DROM and libjoule-mpi's waiting (keys in
// config_keys_lewi.cpp; docs/lending.md).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "choices.hpp"
#include "config.hpp"
#include "dlb_args.hpp"

namespace joule::lending {

enum class LewiMode { off, local, node };
inline constexpr std::pair<const char*, LewiMode> kLewiModes[] = {
    {"off", LewiMode::off}, {"local", LewiMode::local}, {"node", LewiMode::node}};

enum class LewiPolicy { autonomous, mpi };  // "auto": idle workers lend at once
inline constexpr std::pair<const char*, LewiPolicy> kLewiPolicies[] = {
    {"auto", LewiPolicy::autonomous}, {"mpi", LewiPolicy::mpi}};

enum class MpiYield { automatic, on, off };
inline constexpr std::pair<const char*, MpiYield> kMpiYields[] = {
    {"auto", MpiYield::automatic}, {"on", MpiYield::on}, {"off", MpiYield::off}};

struct LendingSettings {
  LewiMode mode = LewiMode::off;               // JOULE_LENDING
  LewiPolicy policy = LewiPolicy::autonomous;  // JOULE_LENDING_POLICY
  bool keep_cpu = false;                       // JOULE_LENDING_KEEP_CPU
  std::string shm;                             // JOULE_LENDING_SHM; empty = /joule-cpus-<uid>
  int drom_timeout_ms = 5000;                  // JOULE_LENDING_DROM_TIMEOUT_MS
  int reclaim_timeout_ms = 500;                // JOULE_LENDING_RECLAIM_TIMEOUT_MS
  MpiYield mpi_yield = MpiYield::automatic;    // JOULE_MPI_YIELD
  DlbArgs dlb_args;                            // DLB_ARGS (dlb_args.hpp)
  std::string dlb_args_text;                   // as given
  // JOULE_LENDING_KEEP_CPU, or DLB_ARGS --lewi-keep-one-cpu.
  bool keeps_cpu() const noexcept { return keep_cpu || dlb_args.keep_one_cpu; }
  // Whether blocking MPI calls should make the MPI library yield its CPU.
  bool yields() const noexcept {
    return mpi_yield == MpiYield::on || (mpi_yield == MpiYield::automatic && mode != LewiMode::off);
  }
};

// JOULE_LENDING, JOULE_LENDING_POLICY, JOULE_LENDING_KEEP_CPU, JOULE_LENDING_SHM,
// JOULE_LENDING_DROM_TIMEOUT_MS, JOULE_LENDING_RECLAIM_TIMEOUT_MS, JOULE_MPI_YIELD, DLB_ARGS.
std::vector<core::ConfigKey> lewi_config_keys();

}  // namespace joule::lending
