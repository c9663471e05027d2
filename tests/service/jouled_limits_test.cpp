// jouled's connection limits against a flood (docs/service.md, "Limits"):
// slots kept for root, so that the Slurm epilog's job-end and joule-ctl are
// answered however many idle connections users open, and the idle timeout
// that closes connections without a lease.
#include <gtest/gtest.h>

#include <chrono>

#include "fuzz_lines.hpp"
#include "jouled_fixture.hpp"

namespace joule::test {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kMaxPerUser = 32;  // server.hpp

// Root's answer to `request` on a fresh connection, and how long it took
// from connect to answer.
std::pair<std::string, double> timed_root_call(const std::string& socket,
                                               const std::string& request) {
  const auto t0 = Clock::now();
  std::string why;
  auto c = ps::Client::connect(socket, 1000, &why);
  if (!c) return {"connect-failed " + why, 0};
  std::string err;
  auto req = ps::parse_line(request, &err);
  auto reply = req ? c->call(*req, &why) : std::nullopt;
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  std::string answer = reply ? reply->final.format() : "call-failed " + why + "\n";
  answer.pop_back();
  return {answer, s};
}

// The case: nine users with 32 idle connections each (more than
// the 256 slots). Root's status and job-end are still answered within a
// second, and a user at the per-user limit is refused.
TEST_F(JouledTest, IdleFloodOfUsersLeavesRootServed) {
  build(Layout::pairs);
  ASSERT_TRUE(start()) << log();
  std::vector<int> flood;
  for (uid_t u = 0; u < 9; ++u)
    for (int i = 0; i < kMaxPerUser; ++i) flood.push_back(connect_as(61000 + u));
  for (int fd : flood) ASSERT_GE(fd, 0);
  for (const char* request : {"status", "job-end job=4242"}) {
    auto [answer, seconds] = timed_root_call(socket_, request);
    EXPECT_EQ(answer.rfind("ok ", 0), 0u) << request << ": " << answer << "\n" << log();
    EXPECT_LT(seconds, 1.0) << request;
  }
  for (int fd : flood) ::close(fd);
  EXPECT_EQ(tree_->snapshot(), before_);
}

// A connection that holds no lease is closed after --idle-timeout seconds,
// with a line saying why; one with a lease stays.
TEST_F(JouledTest, IdleConnectionWithoutALeaseIsClosed) {
  build(Layout::pairs);
  ASSERT_TRUE(start({"--idle-timeout", "1"})) << log();
  auto leased = client({0, 1}, {"hello version=1"});
  EXPECT_NE(leased.next().find("ok version=1"), std::string::npos);
  ASSERT_EQ(leased.next(), "ready");
  const int idle = fuzz_connect(socket_);
  ASSERT_GE(idle, 0);
  const auto t0 = Clock::now();
  const std::string got = read_for(idle, 4000);  // until jouled closes it
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  ::close(idle);
  EXPECT_NE(got.find("err code=state"), std::string::npos) << got;
  EXPECT_NE(got.find("idle"), std::string::npos) << got;
  EXPECT_LT(s, 3.5);
  auto [answer, seconds] = timed_root_call(socket_, "status");
  EXPECT_EQ(answer, "ok count=1") << "the leased connection is kept";
}

TEST_F(JouledTest, IdleTimeoutOutsideItsRangeIsRefused) {
  build(Layout::pairs);
  ASSERT_FALSE(start({"--idle-timeout", "0"}));
  EXPECT_EQ(exit_status(), 2);
  EXPECT_NE(log().find("--idle-timeout"), std::string::npos) << log();
}

}  // namespace
}  // namespace joule::test
