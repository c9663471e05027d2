// OpenMP places on synthetic machines (hwloc synthetic descriptions, whole
// and restricted masks), the assignment of a team's threads to places
// checked against the rules OpenMP 5.x gives for close, spread and primary,
// and the plan that puts joule's workers on distinct CPUs of those places.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "omp_bind_plan.hpp"
#include "omp_places.hpp"

namespace {

using namespace joule::api;
using Places = std::vector<std::vector<int>>;

struct Topo {
  explicit Topo(const char* synthetic) {
    hwloc_topology_init(&t);
    EXPECT_EQ(hwloc_topology_set_synthetic(t, synthetic), 0) << synthetic;
    hwloc_topology_load(t);
  }
  ~Topo() { hwloc_topology_destroy(t); }
  hwloc_topology_t t = nullptr;
};

std::vector<int> range(int first, int last) {
  std::vector<int> v;
  for (int c = first; c <= last; ++c) v.push_back(c);
  return v;
}

Places places_of(const char* topo, const char* places, const std::vector<int>& mask) {
  const Topo t(topo);
  return build_places(t.t, parse_places(places), {}, mask).places;
}

TEST(OmpPlaces, AbstractNamesOnASyntheticMachine) {
  const char* m = "pack:2 numa:2 core:8 pu:2";  // 64 PUs, 16 per NUMA node
  const std::vector<int> all = range(0, 63);
  const Places threads = places_of(m, "threads", all);
  ASSERT_EQ(threads.size(), 64u);
  EXPECT_EQ(threads[63], (std::vector<int>{63}));
  const Places cores = places_of(m, "cores", all);
  ASSERT_EQ(cores.size(), 32u);
  EXPECT_EQ(cores[5], (std::vector<int>{10, 11}));
  const Places numa = places_of(m, "numa_domains", all);
  EXPECT_EQ(numa, (Places{range(0, 15), range(16, 31), range(32, 47), range(48, 63)}));
  EXPECT_EQ(places_of(m, "sockets", all), (Places{range(0, 31), range(32, 63)}));
  EXPECT_EQ(places_of("pack:2 l3:2 core:2 pu:2", "ll_caches", range(0, 15)),
            (Places{range(0, 3), range(4, 7), range(8, 11), range(12, 15)}));
  EXPECT_EQ(places_of(m, "cores(3)", all), (Places{{0, 1}, {2, 3}, {4, 5}}));
  EXPECT_EQ(places_of(m, "sockets(9)", all).size(), 2u);  // no more than there are
}

TEST(OmpPlaces, RestrictedToTheMask) {
  const char* m = "pack:2 numa:2 core:8 pu:2";
  std::vector<int> even;
  for (int c = 0; c < 64; c += 2) even.push_back(c);
  const Places cores = places_of(m, "cores", even);
  ASSERT_EQ(cores.size(), 32u);
  EXPECT_EQ(cores[1], (std::vector<int>{2}));
  std::vector<int> odd_mask = range(0, 7);
  odd_mask.push_back(40);
  EXPECT_EQ(places_of(m, "sockets", odd_mask), (Places{range(0, 7), {40}}));
  EXPECT_EQ(places_of(m, "numa_domains", odd_mask), (Places{range(0, 7), {40}}));
  EXPECT_EQ(places_of(m, "cores(2)", {6, 7, 20}), (Places{{6, 7}, {20}}));
}

TEST(OmpPlaces, ListsAndGompCpusKeepTheirOrder) {
  const Topo t("pack:1 core:4 pu:2");
  const BuiltPlaces listed =
      build_places(t.t, parse_places("{4:2},{0,1},{40,41},{2,9}"), {}, range(0, 7));
  EXPECT_EQ(listed.places, (Places{{4, 5}, {0, 1}, {2}}));
  EXPECT_NE(listed.note.find("1 of 4 places"), std::string::npos) << listed.note;
  EXPECT_EQ(build_places(t.t, PlaceSpec{}, {3, 1, 2}, range(0, 7)).places, (Places{{3}, {1}, {2}}));
  // Neither set (OMP_PROC_BIND alone): threads, as libgomp.
  EXPECT_EQ(build_places(t.t, PlaceSpec{}, {}, {1, 5}).places, (Places{{1}, {5}}));
  EXPECT_TRUE(build_places(t.t, parse_places("{8:4}"), {}, range(0, 7)).places.empty());
  // No cache level in the description: one place, said so.
  const BuiltPlaces caches = build_places(t.t, parse_places("ll_caches"), {}, range(0, 7));
  EXPECT_EQ(caches.places, (Places{range(0, 7)}));
  EXPECT_FALSE(caches.note.empty());
}

// What OpenMP 5.x requires of a team of T threads on P places whose primary
// is at place `primary` and whose parent partition is every place.
void expect_spec_rules(OmpBind bind, int T, int P, int primary,
                       const std::vector<ThreadPlace>& got) {
  SCOPED_TRACE("bind " + std::to_string(int(bind)) + " T " + std::to_string(T) + " P " +
               std::to_string(P) + " primary " + std::to_string(primary));
  ASSERT_EQ(int(got.size()), T);
  EXPECT_EQ(got[0].place, primary);  // the primary stays on its place
  auto rel = [&](int place) { return (place - primary + P) % P; };
  const int lo = T / P, hi = (T + P - 1) / P;
  if (bind == OmpBind::primary) {
    for (const ThreadPlace& t : got) EXPECT_EQ(t.place, primary);
    return;
  }
  if (bind == OmpBind::close || T > P) {
    // Consecutive threads per place, in place order from the primary's,
    // floor(T/P) or ceil(T/P) on each (T <= P: thread i on place primary + i).
    std::vector<int> per(std::size_t(P), 0);
    for (int i = 0; i < T; ++i) {
      ++per[std::size_t(rel(got[std::size_t(i)].place))];
      if (i > 0) EXPECT_GE(rel(got[std::size_t(i)].place), rel(got[std::size_t(i - 1)].place));
    }
    for (int n : per)
      if (T >= P) EXPECT_TRUE(n == lo || n == hi) << n;
    if (T <= P)
      for (int i = 0; i < T; ++i) EXPECT_EQ(rel(got[std::size_t(i)].place), i);
  }
  if (bind != OmpBind::spread) {
    for (const ThreadPlace& t : got) EXPECT_EQ(t.part_len, P);
    return;
  }
  // spread: each thread on the first place of its own subpartition; T <= P
  // subpartitions tile the places in order, floor(P/T) or ceil(P/T) each.
  int next = 0;
  for (int i = 0; i < T; ++i) {
    const ThreadPlace& t = got[std::size_t(i)];
    EXPECT_EQ(t.place, t.part_first);
    if (T > P) {
      EXPECT_EQ(t.part_len, 1);
      continue;
    }
    EXPECT_EQ(rel(t.part_first), next);
    EXPECT_TRUE(t.part_len == P / T || t.part_len == (P + T - 1) / T) << t.part_len;
    next += t.part_len;
  }
  if (T <= P) EXPECT_EQ(next, P);
}

TEST(OmpBindPlan, AssignmentFollowsTheSpecRules) {
  for (OmpBind bind : {OmpBind::close, OmpBind::spread, OmpBind::primary})
    for (int P = 1; P <= 12; ++P)
      for (int T = 1; T <= 26; ++T)
        for (int primary : {0, P / 2, P - 1})
          expect_spec_rules(bind, T, P, primary, assign_places(bind, T, P, primary));
}

TEST(OmpBindPlan, AssignmentExamples) {
  auto places = [](OmpBind b, int T, int P, int primary = 0) {
    std::vector<int> out;
    for (const ThreadPlace& t : assign_places(b, T, P, primary)) out.push_back(t.place);
    return out;
  };
  EXPECT_EQ(places(OmpBind::close, 4, 8), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(places(OmpBind::close, 8, 3), (std::vector<int>{0, 0, 0, 1, 1, 1, 2, 2}));
  EXPECT_EQ(places(OmpBind::close, 3, 4, 2), (std::vector<int>{2, 3, 0}));
  EXPECT_EQ(places(OmpBind::on, 3, 4, 2), (std::vector<int>{2, 3, 0}));
  // libgomp gives these on 8 places (omp_get_place_num in each thread).
  EXPECT_EQ(places(OmpBind::spread, 3, 8), (std::vector<int>{0, 3, 6}));
  EXPECT_EQ(places(OmpBind::spread, 5, 8), (std::vector<int>{0, 2, 4, 6, 7}));
  EXPECT_EQ(places(OmpBind::spread, 2, 8, 6), (std::vector<int>{6, 2}));
  EXPECT_EQ(places(OmpBind::primary, 3, 8, 5), (std::vector<int>{5, 5, 5}));
  EXPECT_EQ(places(OmpBind::off, 2, 8), (std::vector<int>{-1, -1}));
  const std::vector<ThreadPlace> s = assign_places(OmpBind::spread, 3, 8);
  EXPECT_EQ(s[2].part_first, 6);
  EXPECT_EQ(s[2].part_len, 2);
}

TEST(OmpBindPlan, DistinctCpusWhileAnyIsFree) {
  // cores of 2 PUs, CPU 1 outside the mask: places {0},{2,3},{4,5},{6,7}.
  const Places p{{0}, {2, 3}, {4, 5}, {6, 7}};
  for (OmpBind b : {OmpBind::close, OmpBind::spread, OmpBind::primary}) {
    std::vector<ThreadPlace> team = assign_places(b, 7, 4);
    const std::vector<int> cpus = pick_cpus(p, team);
    EXPECT_EQ(std::set<int>(cpus.begin(), cpus.end()), (std::set<int>{0, 2, 3, 4, 5, 6, 7}));
    for (std::size_t i = 0; i < cpus.size(); ++i) {
      const auto& own = p[std::size_t(team[i].place)];  // a moved thread is on its new place
      EXPECT_NE(std::find(own.begin(), own.end(), cpus[i]), own.end());
    }
  }
  std::vector<ThreadPlace> many = assign_places(OmpBind::close, 9, 4);
  const std::vector<int> cpus = pick_cpus(p, many);
  EXPECT_EQ(std::set<int>(cpus.begin(), cpus.end()).size(), 7u);  // 7 CPUs, 9 threads
}

OmpSettings settings(const char* bind, const char* places, int threads = 0) {
  OmpSettings o;
  if (*bind)
    o.proc_bind = {bind[0] == 's'   ? OmpBind::spread
                   : bind[0] == 'c' ? OmpBind::close
                   : bind[0] == 'p' ? OmpBind::primary
                   : bind[0] == 't' ? OmpBind::on
                                    : OmpBind::off};
  o.places = parse_places(places);
  o.num_threads = threads;
  return o;
}

TEST(OmpBindPlan, WorkersOnAMachine) {
  const Topo t("pack:2 core:4 pu:2");  // 16 CPUs, sockets 0-7 and 8-15
  const std::vector<int> all = range(0, 15);
  EXPECT_EQ(make_bind_plan(t.t, settings("spread", "", 2), 0, {}, all).cpus,
            (std::vector<int>{0, 8}));
  EXPECT_EQ(make_bind_plan(t.t, settings("close", "", 2), 0, {}, all).cpus,
            (std::vector<int>{0, 1}));
  EXPECT_EQ(make_bind_plan(t.t, settings("spread", "cores", 4), 0, {}, all).cpus,
            (std::vector<int>{0, 4, 8, 12}));
  // Without a thread count: every CPU of the places, whatever the policy.
  for (const char* bind : {"true", "close", "spread", "primary"})
    for (const char* places : {"", "threads", "cores", "sockets", "numa_domains"}) {
      const BindPlan p = make_bind_plan(t.t, settings(bind, places), 0, {}, all);
      EXPECT_EQ(p.cpus, all) << bind << " " << places;
      EXPECT_EQ(p.workers, 0);
      for (int c : all) EXPECT_GE(p.of_cpu[std::size_t(c)].place, 0) << c;
    }
  const BindPlan sockets = make_bind_plan(t.t, settings("spread", "sockets"), 0, {}, all);
  ASSERT_EQ(sockets.places.size(), 2u);
  EXPECT_EQ(sockets.of_cpu[9].place, 1);
  EXPECT_EQ(sockets.of_cpu[9].part_len, 1);
}

TEST(OmpBindPlan, MasksCountsAndOff) {
  const Topo t("pack:2 core:4 pu:2");
  EXPECT_EQ(make_bind_plan(t.t, settings("primary", "cores"), 0, {}, {2, 3, 9}).cpus,
            (std::vector<int>{2, 3, 9}));
  const BindPlan more = make_bind_plan(t.t, settings("close", "", 6), 0, {}, {0, 1, 2, 3});
  EXPECT_EQ(more.cpus, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(more.workers, 6);  // OMP_NUM_THREADS above the CPUs: workers share them
  EXPECT_EQ(make_bind_plan(t.t, settings("close", ""), 3, {}, range(0, 15)).cpus,
            (std::vector<int>{0, 1, 2}));  // JOULE_WORKERS
  EXPECT_EQ(make_bind_plan(t.t, settings("close", "cores"), 0, {4, 5, 12}, range(0, 15)).cpus,
            (std::vector<int>{4, 5, 12}));  // JOULE_CPUS
  const BindPlan off = make_bind_plan(t.t, settings("false", "cores"), 0, {}, range(0, 15));
  EXPECT_TRUE(off.places.empty());
  EXPECT_TRUE(off.cpus.empty());
  const BindPlan none = make_bind_plan(t.t, settings("", "{20:4}"), 0, {}, range(0, 15));
  EXPECT_TRUE(none.places.empty());
  EXPECT_FALSE(none.note.empty());
  EXPECT_EQ(make_bind_plan(t.t, settings("", "cores"), 0, {}, range(0, 15)).binds,
            (std::vector<OmpBind>{OmpBind::on}));
}

}  // namespace
