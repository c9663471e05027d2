// The affinity keys as text: every OMP_PLACES form of OpenMP 5.x (abstract
// names with counts, explicit lists, intervals with length and stride, "!"
// exclusions), GCC's GOMP_CPU_AFFINITY, OMP_PROC_BIND lists, the affinity
// format's fields, and the messages bad values give.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "config.hpp"
#include "config_errors.hpp"
#include "omp_affinity_format.hpp"
#include "omp_place_list.hpp"
#include "omp_settings.hpp"

namespace {

using namespace joule::api;
using joule_test::config_error_of;
using Places = std::vector<std::vector<int>>;

Places listed(const char* text) {
  const PlaceSpec s = parse_places(text);
  EXPECT_EQ(s.kind, PlaceKind::list) << text;
  return s.places;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(OmpPlaceParse, AbstractNames) {
  const std::pair<const char*, PlaceKind> names[] = {{"threads", PlaceKind::threads},
                                                     {"cores", PlaceKind::cores},
                                                     {"ll_caches", PlaceKind::ll_caches},
                                                     {"numa_domains", PlaceKind::numa_domains},
                                                     {"sockets", PlaceKind::sockets}};
  for (const auto& [name, kind] : names) {
    EXPECT_EQ(parse_places(name).kind, kind) << name;
    EXPECT_EQ(parse_places(name).count, 0) << name;
  }
  const PlaceSpec four = parse_places(" Cores(4) ");
  EXPECT_EQ(four.kind, PlaceKind::cores);
  EXPECT_EQ(four.count, 4);
  EXPECT_EQ(parse_places("sockets( 2 )").count, 2);
  EXPECT_TRUE(parse_places("").empty());
  EXPECT_TRUE(parse_places("   ").empty());
}

TEST(OmpPlaceParse, ExplicitLists) {
  EXPECT_EQ(listed("{0,1},{2,3}"), (Places{{0, 1}, {2, 3}}));
  EXPECT_EQ(listed("{0:4}"), (Places{{0, 1, 2, 3}}));
  EXPECT_EQ(listed("{0:4}:4:4"),
            (Places{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}}));
  EXPECT_EQ(listed("{0:2:8}:3"), (Places{{0, 8}, {1, 9}, {2, 10}}));
  EXPECT_EQ(listed("3,1, 2"), (Places{{3}, {1}, {2}}));  // braces may be left out
  EXPECT_EQ(listed("{0}:4:2"), (Places{{0}, {2}, {4}, {6}}));
  EXPECT_EQ(listed("{12:4}:3:-4"), (Places{{12, 13, 14, 15}, {8, 9, 10, 11}, {4, 5, 6, 7}}));
  EXPECT_EQ(listed("{3,1,1}"), (Places{{1, 3}}));  // a place is a set
  // The libgomp manual's three spellings of one list.
  const Places same{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}};
  EXPECT_EQ(listed("{0,1,2}, {3,4,5}, {6,7,8}, {9,10,11}"), same);
  EXPECT_EQ(listed("{0:3}, {3:3}, {6:3}, {9:3}"), same);
  EXPECT_EQ(listed("{0:3}:4:3"), same);
}

TEST(OmpPlaceParse, Exclusions) {
  EXPECT_EQ(listed("{0:8,!3,!5}"), (Places{{0, 1, 2, 4, 6, 7}}));
  EXPECT_EQ(listed("{0:2}:4:2,!{2:2}"), (Places{{0, 1}, {4, 5}, {6, 7}}));
  EXPECT_EQ(listed("!{0},{0},{1}"), (Places{{1}}));  // wherever it stands
  EXPECT_EQ(listed("0,1,!1"), (Places{{0}}));
}

TEST(OmpPlaceParse, BadListsSayWhere) {
  const char* bad[] = {"{0,1",     "{0:0}",   "{}",   "{0}:0",      "{1:2:-3}",         "{!0}",
                       "{0},,{1}", "{0}{1}",  "{a}",  "threads(0)", "cores(x)",         "cores(2",
                       "rings",    "{99999}", "!{0}", "{0},!{0}",   "{0:65535}:65535:0"};
  for (const char* v : bad) EXPECT_THROW(parse_places(v), std::invalid_argument) << v;
  try {
    parse_places("{0,1},{2,3");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(contains(e.what(), "character 11")) << e.what();
  }
}

TEST(OmpPlaceParse, GompCpuAffinity) {
  EXPECT_EQ(parse_gomp_cpu_affinity("0-1"), (std::vector<int>{0, 1}));
  EXPECT_EQ(parse_gomp_cpu_affinity("0 3 1-2 4-15:4"), (std::vector<int>{0, 3, 1, 2, 4, 8, 12}));
  EXPECT_EQ(parse_gomp_cpu_affinity("2,0, 1"), (std::vector<int>{2, 0, 1}));
  EXPECT_TRUE(parse_gomp_cpu_affinity("  ").empty());
  for (const char* v : {"a", "3-1", "0-4:0", "4:2", "-1", "1-", "70000"})
    EXPECT_THROW(parse_gomp_cpu_affinity(v), std::invalid_argument) << v;
}

TEST(OmpPlaceParse, KeysThroughTheConfiguration) {
  joule::core::Config c;
  c.set("OMP_PLACES", "{0:2}:2:2");
  c.set("GOMP_CPU_AFFINITY", "4-7 0-3");
  c.set("OMP_PROC_BIND", "Spread, MASTER,close");
  c.set("OMP_DISPLAY_AFFINITY", "TRUE");
  c.set("OMP_AFFINITY_FORMAT", "%0.3n of %N on %{thread_affinity}");
  const OmpSettings& o = c.get<OmpSettings>();
  EXPECT_EQ(o.places.places, (Places{{0, 1}, {2, 3}}));
  EXPECT_EQ(o.gomp_cpu_affinity.size(), 8u);
  EXPECT_EQ(o.proc_bind, (std::vector<OmpBind>{OmpBind::spread, OmpBind::primary, OmpBind::close}));
  EXPECT_EQ(o.first_bind(), OmpBind::spread);
  EXPECT_TRUE(o.display_affinity);
  const std::string dumped = c.dump_text();
  for (const char* line :
       {"OMP_PLACES={0:2}:2:2", "GOMP_CPU_AFFINITY=4-7 0-3", "OMP_PROC_BIND=spread,primary,close"})
    EXPECT_TRUE(contains(dumped, line)) << dumped;
}

TEST(OmpPlaceParse, BindingDefaultsToTrueWithPlaces) {
  joule::core::Config c;
  EXPECT_EQ(c.get<OmpSettings>().first_bind(), OmpBind::off);
  c.set("GOMP_CPU_AFFINITY", "0");
  EXPECT_EQ(c.get<OmpSettings>().first_bind(), OmpBind::on);
  c.set("GOMP_CPU_AFFINITY", "");
  c.set("OMP_PLACES", "cores");
  EXPECT_EQ(c.get<OmpSettings>().first_bind(), OmpBind::on);
  c.set("OMP_PROC_BIND", "false");
  EXPECT_EQ(c.get<OmpSettings>().first_bind(), OmpBind::off);
}

TEST(OmpPlaceParse, BadValuesNameTheKeyAndTheForms) {
  const std::string places = config_error_of("OMP_PLACES", "{0,1");
  EXPECT_TRUE(contains(places, "OMP_PLACES={0,1: expected ',' or '}'")) << places;
  EXPECT_TRUE(contains(places, "allowed values: threads, cores, ll_caches")) << places;
  EXPECT_TRUE(contains(config_error_of("OMP_PLACES", "cores(0)"), "positive integer"));
  EXPECT_TRUE(contains(config_error_of("OMP_PLACES", "tiles"), "unknown place name 'tiles'"));
  const std::string gomp = config_error_of("GOMP_CPU_AFFINITY", "0-x");
  EXPECT_TRUE(contains(gomp, "GOMP_CPU_AFFINITY=0-x")) << gomp;
  EXPECT_TRUE(contains(gomp, "0-15:2")) << gomp;
  const std::string bind = config_error_of("OMP_PROC_BIND", "true,close");
  EXPECT_TRUE(contains(bind, "true and false cannot be part of a list")) << bind;
  EXPECT_TRUE(contains(config_error_of("OMP_PROC_BIND", "tight"), "spread"));
  const std::string fmt = config_error_of("OMP_AFFINITY_FORMAT", "%05n");
  EXPECT_TRUE(contains(fmt, "a leading 0 needs a '.'")) << fmt;
  EXPECT_TRUE(contains(config_error_of("OMP_AFFINITY_FORMAT", "%{tid}"), "unknown field {tid}"));
  EXPECT_TRUE(contains(config_error_of("OMP_AFFINITY_FORMAT", "%x"), "%n {thread_num}"));
  EXPECT_TRUE(contains(config_error_of("OMP_DISPLAY_AFFINITY", "maybe"), "OMP_DISPLAY_AFFINITY"));
}

TEST(OmpAffinityFormat, FieldsAndPadding) {
  joule_omp_thread_info_t i{};
  i.num_teams = 1;
  i.level = 1;
  i.thread_num = 3;
  i.num_threads = 4;
  i.ancestor_tnum = -1;
  i.native_thread_id = 4242;
  i.process_id = 77;
  i.host = "node7";
  i.affinity = "0-3,6";
  EXPECT_EQ(format_affinity("level %L thread %i affinity %A", i),
            "level 1 thread 4242 affinity 0-3,6");
  EXPECT_EQ(format_affinity("%t/%T %n/%N %a %P %H", i), "0/1 3/4 -1 77 node7");
  EXPECT_EQ(format_affinity("%{thread_num}:%{num_threads}:%{host}:%{process_id}", i),
            "3:4:node7:77");
  EXPECT_EQ(format_affinity("|%5n|%.5n|%0.5n|%0.3a|%.7A|%2A|", i),
            "|3    |    3|00003|-01|  0-3,6|0-3,6|");
  EXPECT_EQ(format_affinity("100%% %q %{x}", i), "100% %q %{x}");  // unknown: as written
}

}  // namespace
