// The SVG / HTML timeline is produced and well formed, and shows what the
// trace holds (labels, states, frequency band, power curve, iterations);
// the JSON reader accepts valid and rejects invalid text.
#include <gtest/gtest.h>

#include "json.hpp"
#include "timeline.hpp"
#include "trace_events.hpp"
#include "trace_test_util.hpp"

namespace {

namespace tf = joule::trace_format;
using trace_test::xml_error;

tf::TraceModel synthetic_model() {
  tf::TraceModel m;
  m.labels = {"End", "unlabelled", "lu0", "bmod <&\"x\">"};
  m.processes = {{0, 42, "node-a", 0, 10000000}};
  tf::Row w0{0, 0, 0, "worker 0", {}, {}};
  tf::Row w1{0, 1, 1, "worker 1", {}, {}};
  for (std::uint64_t t = 0; t < 9000000; t += 100000) {
    w0.tasks.push_back({t, t + 80000, 2, 0});
    w1.tasks.push_back({t + 10000, t + 60000, 3, 0});
  }
  w1.states.push_back({9000000, 9500000, tf::kSleeping, 0});
  w0.states.push_back({9000000, 9800000, tf::kLent, 0});
  m.rows = {w0, w1};
  tf::Counter f0{"frequency_mhz", 0, 0, {{0, 2400}, {5000000, 1200}}};
  tf::Counter f1{"frequency_mhz", 0, 1, {{0, 1800}}};
  tf::Counter power{"power_w", 0, -1, {{0, 30}, {3000000, 36.3}, {6000000, 20.4}}};
  m.counters = {f0, f1, power};
  for (std::uint64_t i = 1; i <= 4; ++i) m.iterations.push_back({i * 2000000, i, 0});
  m.finish();
  return m;
}

TEST(Timeline, SvgIsWellFormedAndShowsEverything) {
  const tf::TraceModel m = synthetic_model();
  const std::string svg = tf::render_svg(m, {});
  EXPECT_EQ(xml_error(svg), "");
  EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_NE(svg.find("lu0"), std::string::npos);
  EXPECT_NE(svg.find("bmod &lt;&amp;&quot;x&quot;&gt;"), std::string::npos);  // escaped
  EXPECT_NE(svg.find("Lent CPU"), std::string::npos);
  EXPECT_NE(svg.find("Sleeping"), std::string::npos);
  EXPECT_EQ(svg.find("Borrowed CPU"), std::string::npos);   // absent states stay out of the legend
  EXPECT_NE(svg.find("rgb(255,60,0)"), std::string::npos);  // 2400 MHz, the top of the band
  EXPECT_NE(svg.find("<polyline"), std::string::npos);      // the power curve
  EXPECT_NE(svg.find("power_w"), std::string::npos);
  EXPECT_NE(svg.find("it 4"), std::string::npos);
  EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos);
  if (std::system("python3 -c 'import xml.etree.ElementTree' > /dev/null 2>&1") == 0) {
    trace_test::TempDir dir;
    const std::string path = dir.path() + "/t.svg";
    std::ofstream(path) << svg;
    const std::string cmd =
        "python3 -c 'import sys,xml.etree.ElementTree as E; E.parse(sys.argv[1])' " + path;
    EXPECT_EQ(std::system(cmd.c_str()), 0);
  }
}

TEST(Timeline, SizeDependsOnWidthNotTaskCount) {
  tf::TraceModel m = synthetic_model();
  const std::size_t small = tf::render_svg(m, {}).size();
  for (int i = 0; i < 50000; ++i)
    m.rows[0].tasks.push_back({std::uint64_t(i) * 100, std::uint64_t(i) * 100 + 50, 2, 0});
  m.finish();
  const std::string big = tf::render_svg(m, {});
  EXPECT_EQ(xml_error(big), "");
  EXPECT_LT(big.size(), small * 3);
}

TEST(Timeline, WindowAndHtml) {
  const tf::TraceModel m = synthetic_model();
  tf::TimelineOptions opt;
  opt.from_ns = 1000000;
  opt.to_ns = 2000000;
  opt.width = 800;
  opt.title = "window";
  const std::string svg = tf::render_svg(m, opt);
  EXPECT_EQ(xml_error(svg), "");
  EXPECT_NE(svg.find("width=\"800\""), std::string::npos);
  const std::string html = tf::render_html(m, {});
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  const auto a = html.find("<svg"), b = html.find("</svg>");
  ASSERT_NE(a, std::string::npos);
  ASSERT_NE(b, std::string::npos);
  EXPECT_EQ(xml_error(html.substr(a, b + 6 - a)), "");
  EXPECT_NE(html.find("load balance"), std::string::npos);
  EXPECT_NE(html.find("<td>lu0</td>"), std::string::npos);
}

TEST(Timeline, EmptyTrace) {
  tf::TraceModel m;
  m.finish();
  EXPECT_EQ(xml_error(tf::render_svg(m, {})), "");
}

TEST(XmlChecker, CatchesMalformedText) {
  EXPECT_EQ(xml_error("<a><b/><c x=\"1\">t</c></a>"), "");
  EXPECT_NE(xml_error("<a><b></a>"), "");
  EXPECT_NE(xml_error("<a>x & y</a>"), "");
  EXPECT_NE(xml_error("<a></a><b/>"), "");
  EXPECT_NE(xml_error("<a x=\"<\"/>"), "");
  EXPECT_NE(xml_error("<a>"), "");
}

TEST(Json, AcceptsValidRejectsInvalid) {
  for (const char* ok : {"{}", "[]", "{\"a\":[1,-2.5e3,true,false,null,\"x\\u00e9\\n\"]}", " 0 ",
                         "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1.5}]}"})
    EXPECT_EQ(tf::json_error(ok), "") << ok;
  for (const char* bad : {"", "{", "[1,]", "{\"a\":1,}", "{a:1}", "[01]", "[1.]", "\"\\x\"",
                          "[1] 2", "{\"a\" 1}", "[\"tab\there\"]", "nul"})
    EXPECT_NE(tf::json_error(bad), "") << bad;
  tf::JsonParser p("{\"k\":[1,{\"n\":\"v\"}],\"z\":2}");
  const tf::JsonValue v = p.parse_value();
  ASSERT_EQ(v.type, tf::JsonValue::object);
  EXPECT_EQ(v.find("k")->items[1].string_or("n", ""), "v");
  EXPECT_DOUBLE_EQ(v.number_or("z", 0), 2);
  EXPECT_EQ(tf::to_json(v), "{\"k\":[1,{\"n\":\"v\"}],\"z\":2}");
}

}  // namespace
