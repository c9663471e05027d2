// The many-core card's topology as thread placement sees it: every PU
// (hardware context) with its package, core and context labels. Built from
// an hwloc synthetic description ("package:1 core:60 pu:4" is a Xeon Phi
// 5110P) so the emulated card and joule-ctl agree on one numbering: PUs,
// cores and packages are numbered by hwloc's logical indexes.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace joule::card_affinity {

// Bad topology, affinity, thread count or option: the message names the
// offending value and what is allowed.
struct PlacementError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct PuSlot {
  int package = 0;      // package logical index
  int core = 0;         // core logical index over the whole card
  int core_in_pkg = 0;  // core rank inside its package (the KMP "core" label)
  int ctx = 0;          // context rank inside its core (the KMP "thread" label)
  int pu = 0;           // PU logical index (what the card binds a thread to)
};

// The most PUs (hardware contexts, so also cores) a card or advisor host
// topology may have: placement and the advisor's search grow with the PU
// count, and real many-core cards have a few hundred.
inline constexpr int kMaxCardPus = 4096;

class CardTopology {
 public:
  // Parses an hwloc synthetic description; throws PlacementError naming the
  // string when hwloc rejects it or it has more than kMaxCardPus PUs.
  static CardTopology from_synthetic(const std::string& description);
  // packages × cores × contexts, without hwloc (tests, the advisor's hosts).
  static CardTopology uniform(int packages, int cores_per_package, int pus_per_core);

  const std::vector<PuSlot>& pus() const { return pus_; }
  int pu_count() const { return static_cast<int>(pus_.size()); }
  int core_count() const { return cores_; }
  int package_count() const { return packages_; }
  // Contexts per core when every core has the same number, else 0.
  int uniform_pus_per_core() const { return uniform_ctx_; }
  const std::string& description() const { return description_; }

 private:
  explicit CardTopology(std::vector<PuSlot> pus, std::string description);

  std::vector<PuSlot> pus_;
  int cores_ = 0;
  int packages_ = 0;
  int uniform_ctx_ = 0;
  std::string description_;
};

}  // namespace joule::card_affinity
