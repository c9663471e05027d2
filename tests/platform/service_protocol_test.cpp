// The jouled line format: round trips, strict parsing, and a byte fuzzer
// that must never crash or accept an invalid line.
#include <gtest/gtest.h>

#include <random>

#include "service_protocol.hpp"

namespace svc = joule::platform::service_client;

TEST(ServiceProtocol, RoundTripsEscapedValues) {
  svc::Line line{"set"};
  line.add("cpu", 3).add("khz", std::uint64_t{2400000}).add("note", std::string("a b%c\n\x01"));
  const auto text = line.format();
  ASSERT_EQ(text.back(), '\n');
  EXPECT_EQ(text, "set cpu=3 khz=2400000 note=a%20b%25c%0A%01\n");
  std::string error;
  const auto back = svc::parse_line(text.substr(0, text.size() - 1), &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->verb(), "set");
  EXPECT_EQ(back->get_u64("cpu"), 3u);
  EXPECT_EQ(back->get_u64("khz"), 2400000u);
  EXPECT_EQ(*back->get("note"), "a b%c\n\x01");
  EXPECT_EQ(back->get("absent"), nullptr);
}

TEST(ServiceProtocol, RefusesMalformedLines) {
  const char* bad[] = {
      "",          "Hello",         "hello ",     "hello  version=1", "hello =1",
      "hello v",   "hello a=1 a=2", "hello a=%4", "hello a=%zz",      "hello a=1\r",
      "hello K=1", "hello a=\x7f"};
  for (const char* text : bad) {
    std::string error;
    EXPECT_FALSE(svc::parse_line(text, &error)) << '"' << text << '"';
    EXPECT_FALSE(error.empty());
  }
  std::string many = "x";
  for (int i = 0; i < 65; ++i) many += " k" + std::to_string(i) + "=1";
  EXPECT_FALSE(svc::parse_line(many, nullptr));
}

TEST(ServiceProtocol, NumbersAreStrict) {
  auto line = svc::parse_line("set cpu=-1 khz=12x big=99999999999999999999999 ok=7", nullptr);
  ASSERT_TRUE(line);
  EXPECT_FALSE(line->get_u64("cpu"));
  EXPECT_FALSE(line->get_u64("khz"));
  EXPECT_FALSE(line->get_u64("big"));
  EXPECT_EQ(line->get_u64("ok"), 7u);
}

TEST(ServiceProtocol, ReaderSplitsLinesAndStopsOverlong) {
  svc::LineReader r;
  r.feed("ok a=1\nda", 9);
  EXPECT_EQ(r.next(), "ok a=1");
  EXPECT_FALSE(r.next());
  r.feed("ta\n", 3);
  EXPECT_EQ(r.next(), "data");
  const std::string huge(svc::kMaxLine + 2, 'a');
  r.feed(huge.data(), huge.size());
  EXPECT_FALSE(r.next());
  EXPECT_TRUE(r.overlong());
}

TEST(ServiceProtocol, FuzzedBytesNeverCrashAndReformatIdentically) {
  std::mt19937 rng(1234);
  const std::string alphabet =
      "abz-_=%0F9 \n\r\x01\x7f\xff"
      "AZ";
  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text(rng() % 40, ' ');
    for (auto& c : text) c = alphabet[rng() % alphabet.size()];
    const auto line = svc::parse_line(text, nullptr);
    if (!line) continue;
    ++accepted;
    // Whatever parses formats back to a line that parses to the same thing.
    auto again = line->format();
    again.pop_back();
    const auto line2 = svc::parse_line(again, nullptr);
    ASSERT_TRUE(line2);
    EXPECT_EQ(line2->format(), line->format());
  }
  EXPECT_GT(accepted, 0);
}
