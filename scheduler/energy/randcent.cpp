// RandCentLB (Padoin's thesis, Table 5.3, "Ra"): every key onto a random
// core, ignoring every measurement. The thesis uses it as the worst case: it
// leaves a large residual imbalance for the DVFS branch to absorb (§5.2.1).
#include "remap.hpp"

namespace joule::energy {
namespace {

// splitmix64's finaliser: a well-mixed 64-bit hash, identical everywhere.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

Moves randcent_remap(const std::vector<KeyLoad>& keys, const RemapProblem& p, std::uint64_t salt) {
  Moves out;
  if (p.cores.empty()) return out;
  const std::uint64_t n = p.cores.size();
  for (const auto& k : keys) {
    bool movable = false;
    for (int c : p.cores) movable = movable || c == k.core;
    if (!movable) continue;
    const int to = p.cores[std::size_t(mix(k.key ^ mix(salt)) % n)];
    if (to != k.core) out.emplace_back(k.key, to);
  }
  return out;
}

}  // namespace joule::energy
