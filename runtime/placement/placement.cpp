#include "placement.hpp"

#include <algorithm>
#include <array>

namespace joule::card_affinity {
namespace {

constexpr int kLevels = 3;  // package, core, context: the KMP topology map

std::array<int, kLevels> labels(const PuSlot& s) { return {s.package, s.core_in_pkg, s.ctx}; }

// Sort key of a PU when the `inner` innermost levels are made the most
// significant (innermost first) and the rest keep their top-down order. This
// is how KMP_AFFINITY's permute works: compact,0 is (package, core, ctx);
// scatter is compact with the permutation turned around, (ctx, core, package).
std::array<int, kLevels> sort_key(const PuSlot& s, int inner) {
  const auto l = labels(s);
  std::array<int, kLevels> key{};
  int k = 0;
  for (int i = 0; i < inner; ++i) key[k++] = l[kLevels - 1 - i];
  for (int i = 0; i < kLevels - inner; ++i) key[k++] = l[i];
  return key;
}

std::vector<PuSlot> sorted_places(const CardTopology& topo, int inner) {
  std::vector<PuSlot> places = topo.pus();
  std::stable_sort(places.begin(), places.end(), [inner](const PuSlot& a, const PuSlot& b) {
    return sort_key(a, inner) < sort_key(b, inner);
  });
  return places;
}

// Balanced: the first `big` cores take chunk+1 threads, the others chunk;
// thread ids run contiguously through each core, so a core's threads are
// neighbours. Cores are taken in logical order across packages.
std::vector<PuSlot> balanced(const CardTopology& topo, int threads) {
  const int cores = topo.core_count();
  const int ctx_per_core = topo.uniform_pus_per_core();
  const int chunk = threads / cores, big = threads % cores;
  const int big_threads = (chunk + 1) * big;
  std::vector<PuSlot> by_core(topo.pus());
  std::stable_sort(by_core.begin(), by_core.end(), [](const PuSlot& a, const PuSlot& b) {
    return a.core != b.core ? a.core < b.core : a.ctx < b.ctx;
  });
  std::vector<PuSlot> map;
  for (int t = 0; t < threads; ++t) {
    const int core = t < big_threads ? t / (chunk + 1) : (t - big) / chunk;
    const int ctx = t < big_threads ? t % (chunk + 1) : (t - big) % chunk;
    map.push_back(by_core[core * ctx_per_core + ctx]);
  }
  return map;
}

void check(const CardTopology& topo, int threads, const PlacementOptions& o) {
  if (threads < 1 || threads > topo.pu_count())
    throw PlacementError("cannot place " + std::to_string(threads) + " threads: the card (" +
                         topo.description() + ") has " + std::to_string(topo.pu_count()) +
                         " PUs; use 1.." + std::to_string(topo.pu_count()));
  if (o.offset < 0) throw PlacementError("offset must be >= 0");
  if (o.affinity == Affinity::balanced) {
    if (o.permute != 0 || o.offset != 0)
      throw PlacementError("balanced takes no permute or offset (it places by thread count)");
    if (topo.uniform_pus_per_core() == 0)
      throw PlacementError("balanced needs the same number of PUs on every core");
    return;
  }
  if (o.permute < 0 || o.permute >= kLevels)
    throw PlacementError("permute must be 0.." + std::to_string(kLevels - 1) +
                         " (levels: package, core, thread)");
}

}  // namespace

Affinity parse_affinity(std::string_view name) {
  if (name == "compact") return Affinity::compact;
  if (name == "scatter") return Affinity::scatter;
  if (name == "balanced") return Affinity::balanced;
  throw PlacementError("unknown affinity '" + std::string(name) + "' (allowed: " + kAffinityNames +
                       ")");
}

namespace {

// A non-negative integer field of a placement spec.
int spec_int(std::string_view field, std::string_view spec) {
  int v = 0;
  if (field.empty() || field.size() > 6) v = -1;
  for (char c : field) v = (v >= 0 && c >= '0' && c <= '9') ? v * 10 + (c - '0') : -1;
  if (v < 0)
    throw PlacementError("bad placement '" + std::string(spec) + "': '" + std::string(field) +
                         "' is not an integer >= 0 (expected " + kPlacementForm + ")");
  return v;
}

}  // namespace

PlacementOptions parse_placement(std::string_view spec) {
  std::vector<std::string_view> fields;
  for (std::size_t start = 0;;) {
    const std::size_t comma = spec.find(',', start);
    fields.push_back(spec.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (fields.size() > 3)
    throw PlacementError("bad placement '" + std::string(spec) + "' (expected " + kPlacementForm +
                         ")");
  PlacementOptions o;
  o.affinity = parse_affinity(fields[0]);
  if (fields.size() > 1) o.permute = spec_int(fields[1], spec);
  if (fields.size() > 2) o.offset = spec_int(fields[2], spec);
  return o;
}

std::string placement_spec(const PlacementOptions& o) {
  std::string s = affinity_name(o.affinity);
  if (o.permute != 0 || o.offset != 0) s += "," + std::to_string(o.permute);
  if (o.offset != 0) s += "," + std::to_string(o.offset);
  return s;
}

const char* affinity_name(Affinity a) {
  switch (a) {
    case Affinity::compact:
      return "compact";
    case Affinity::scatter:
      return "scatter";
    case Affinity::balanced:
      return "balanced";
  }
  return "?";
}

std::vector<PuSlot> place_threads(const CardTopology& topo, int threads,
                                  const PlacementOptions& options) {
  check(topo, threads, options);
  if (options.affinity == Affinity::balanced) return balanced(topo, threads);
  // scatter,p is compact with the complementary permutation.
  const int inner =
      options.affinity == Affinity::compact ? options.permute : kLevels - 1 - options.permute;
  const std::vector<PuSlot> places = sorted_places(topo, inner);
  const int n = static_cast<int>(places.size());
  std::vector<PuSlot> map;
  map.reserve(threads);
  for (int t = 0; t < threads; ++t) map.push_back(places[(t + options.offset % n) % n]);
  return map;
}

std::vector<int> threads_per_core(const CardTopology& topo, const std::vector<PuSlot>& map) {
  std::vector<int> counts(topo.core_count(), 0);
  for (const PuSlot& s : map) ++counts[s.core];
  return counts;
}

std::string map_line(int thread, const PuSlot& s) {
  return "thread " + std::to_string(thread) + " core " + std::to_string(s.core) + " pu " +
         std::to_string(s.pu);
}

std::string verbose_line(int thread, const PuSlot& s) {
  return "thread " + std::to_string(thread) + " bound to OS proc set {" + std::to_string(s.pu) +
         "} (package " + std::to_string(s.package) + " core " + std::to_string(s.core_in_pkg) +
         " thread " + std::to_string(s.ctx) + ")";
}

}  // namespace joule::card_affinity
