// Deterministic task bodies for dependency tests: what a task with a given
// access kind does to its bytes. A sequential run and a joule run of the same
// tasks must produce identical memory and identical observations, provided the
// runtime orders the tasks as their dependencies require:
//   in          observes (hashes) the bytes
//   out         writes values derived from the task id and the offset
//   inout       observes, then writes values derived from the old bytes
//   commutative plain read-modify-write adding a per-task constant; the
//   reduction   read and the write are split by a spin, so two of them
//               running at once lose an update (and TSan sees the race)
//   concurrent  atomic fetch_add of a per-task constant (std::atomic_ref)
// Commutative and concurrent updates commute, so they observe nothing.
#pragma once

#include <joule/joule.hpp>

#include "test_support.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace joule_test {

enum class access_kind { in, out, inout, commutative, concurrent, reduction };

inline constexpr access_kind all_accesses[] = {access_kind::in,         access_kind::out,
                                               access_kind::inout,      access_kind::commutative,
                                               access_kind::concurrent, access_kind::reduction};

inline const char* access_name(access_kind a) {
  switch (a) {
    case access_kind::in:
      return "in";
    case access_kind::out:
      return "out";
    case access_kind::inout:
      return "inout";
    case access_kind::commutative:
      return "commutative";
    case access_kind::concurrent:
      return "concurrent";
    case access_kind::reduction:
      return "reduction";
  }
  return "?";
}

inline joule::dep make_dep(access_kind a, const void* p, std::size_t n) {
  switch (a) {
    case access_kind::in:
      return {joule::dep_kind::in, p, n};
    case access_kind::out:
      return {joule::dep_kind::out, p, n};
    case access_kind::inout:
      return {joule::dep_kind::inout, p, n};
    case access_kind::commutative:
      return {joule::dep_kind::commutative, p, n};
    case access_kind::concurrent:
      return {joule::dep_kind::concurrent, p, n};
    case access_kind::reduction:
      return {joule::dep_kind::reduction, p, n};
  }
  return {joule::dep_kind::in, p, n};
}

// Commutative and reduction tasks form one exclusive, unordered class.
inline bool is_commutative_class(access_kind a) {
  return a == access_kind::commutative || a == access_kind::reduction;
}
inline bool observes(access_kind a) { return a == access_kind::in || a == access_kind::inout; }
inline bool writes(access_kind a) { return a != access_kind::in; }

// What two tasks with kinds a (created first) and b need when their regions
// overlap: an order (b after a), mutual exclusion only, or nothing.
enum class relation { none, ordered, exclusive };
inline relation required_relation(access_kind a, access_kind b) {
  if (a == access_kind::in && b == access_kind::in) return relation::none;
  if (a == access_kind::concurrent && b == access_kind::concurrent) return relation::none;
  if (is_commutative_class(a) && is_commutative_class(b)) return relation::exclusive;
  return relation::ordered;
}

inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

inline std::uint64_t hash_bytes(const std::uint8_t* p, std::size_t n, std::uint64_t seed) {
  std::uint64_t h = mix64(seed ^ n);
  for (std::size_t i = 0; i < n; ++i) h = mix64(h ^ p[i]);
  return h;
}

// Performs access a by task id on base[start, start + len). spin_us is spent
// first (and, for commutative updates, between the read and the write) so a
// wrongly ordered neighbour gets the chance to interleave. Returns the
// observation (0 for kinds that observe nothing).
inline std::uint64_t perform(access_kind a, std::uint8_t* base, std::size_t start, std::size_t len,
                             std::uint64_t id, int spin_us) {
  std::uint8_t* p = base + start;
  const auto spin = std::chrono::microseconds(spin_us);
  const auto delta = static_cast<std::uint8_t>(1 + mix64(id) % 97);
  std::uint64_t seen = 0;
  if (a != access_kind::commutative && a != access_kind::reduction) spin_for(spin);
  switch (a) {
    case access_kind::in:
      seen = hash_bytes(p, len, id);
      break;
    case access_kind::out:
      for (std::size_t i = 0; i < len; ++i)
        p[i] = static_cast<std::uint8_t>(mix64(id * 131 + start + i));
      break;
    case access_kind::inout:
      seen = hash_bytes(p, len, id);
      for (std::size_t i = 0; i < len; ++i)
        p[i] = static_cast<std::uint8_t>(p[i] * 3 + mix64(seen + i));
      break;
    case access_kind::commutative:
    case access_kind::reduction: {
      std::uint8_t old[256];
      for (std::size_t i = 0; i < len && i < sizeof old; ++i) old[i] = p[i];
      spin_for(spin);
      for (std::size_t i = 0; i < len && i < sizeof old; ++i)
        p[i] = static_cast<std::uint8_t>(old[i] + delta);
      break;
    }
    case access_kind::concurrent:
      for (std::size_t i = 0; i < len; ++i)
        std::atomic_ref<std::uint8_t>(p[i]).fetch_add(delta, std::memory_order_relaxed);
      break;
  }
  return seen;
}

}  // namespace joule_test
