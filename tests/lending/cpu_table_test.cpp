// The shared CPU table: creation, attachment, refusal of corrupt, foreign and
// wrong-version segments, the registry, and cleaning after dead processes.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <cstring>

#include "cpu_table.hpp"
#include "lending_support.hpp"
#include "os_support.hpp"

namespace {

using namespace joule::lending;
using namespace lending_test;

bool segment_exists(const std::string& name) {
  const int fd = ::shm_open(name.c_str(), O_RDONLY, 0);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

// Writes `bytes` of `fill` as the segment, with the given mode.
void write_raw(const std::string& name, std::size_t bytes, unsigned char fill, mode_t mode) {
  const int fd = ::shm_open(name.c_str(), O_RDWR | O_CREAT | O_TRUNC, mode);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::fchmod(fd, mode), 0);
  ASSERT_EQ(::ftruncate(fd, off_t(bytes)), 0);
  if (bytes) {
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ASSERT_NE(p, MAP_FAILED);
    std::memset(p, fill, bytes);
    ::munmap(p, bytes);
  }
  ::close(fd);
}

std::string open_error(const std::string& name, TableError::Kind* kind = nullptr) {
  try {
    auto t = CpuTable::open_shared(name);
  } catch (const TableError& e) {
    if (kind) *kind = e.kind();
    return e.what();
  }
  return "";
}

pid_t dead_pid() {
  const pid_t pid = fork_child([] {});
  wait_child(pid);
  return pid;
}

TEST(CpuTable, CreateAttachAndRemoveWithTheLastProcess) {
  ShmGuard g(unique_shm("table"));
  auto a = CpuTable::open_shared(g.name);
  EXPECT_GE(a->ncpus(), 1);
  const int sa = a->registry().register_process(::getpid(), 2);
  auto b = CpuTable::attach_existing(g.name);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->registry().processes().size(), 1u);
  EXPECT_EQ(b->apply(0, CpuOp::Own, ::getpid()).outcome, Outcome::Done);
  EXPECT_EQ(a->load(0).state, CpuState::Busy);        // both map the same memory
  EXPECT_TRUE(a->registry().unregister_process(sa));  // last one out removes the segment
  EXPECT_FALSE(segment_exists(g.name));
  EXPECT_EQ(b->load(0).state, CpuState::Disabled);  // and gave its CPU back
}

TEST(CpuTable, SegmentIsPrivateToTheUser) {
  ShmGuard g(unique_shm("mode"));
  auto t = CpuTable::open_shared(g.name);
  struct stat st {};
  ASSERT_EQ(::stat(("/dev/shm" + g.name).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_uid, ::geteuid());
}

TEST(CpuTable, ForeignBytesAreRefusedWithAClearMessage) {
  ShmGuard g(unique_shm("foreign"));
  write_raw(g.name, kSegmentSize, 0x5a, 0600);
  TableError::Kind kind{};
  const std::string msg = open_error(g.name, &kind);
  EXPECT_EQ(kind, TableError::Kind::Corrupt);
  EXPECT_NE(msg.find("is not a joule CPU table"), std::string::npos) << msg;
  EXPECT_NE(msg.find("joule-ctl clean"), std::string::npos) << msg;
  EXPECT_TRUE(segment_exists(g.name));  // never removed behind the user's back
}

TEST(CpuTable, TruncatedSegmentIsRefused) {
  ShmGuard g(unique_shm("small"));
  write_raw(g.name, 8, 0x11, 0600);
  TableError::Kind kind{};
  const std::string msg = open_error(g.name, &kind);
  EXPECT_EQ(kind, TableError::Kind::Corrupt);
  EXPECT_NE(msg.find("corrupt"), std::string::npos) << msg;
}

TEST(CpuTable, DamagedLayoutIsRefused) {
  ShmGuard g(unique_shm("layout"));
  {
    auto t = CpuTable::open_shared(g.name);
    t->segment()->header.max_cpus = 7;
  }
  TableError::Kind kind{};
  const std::string msg = open_error(g.name, &kind);
  EXPECT_EQ(kind, TableError::Kind::Corrupt);
  EXPECT_NE(msg.find("is corrupt"), std::string::npos) << msg;
}

TEST(CpuTable, WrongVersionSaysSo) {
  ShmGuard g(unique_shm("version"));
  {
    auto t = CpuTable::open_shared(g.name);
    t->segment()->header.version = 99;
  }
  TableError::Kind kind{};
  const std::string msg = open_error(g.name, &kind);
  EXPECT_EQ(kind, TableError::Kind::Version);
  EXPECT_NE(msg.find("version 99"), std::string::npos) << msg;
  EXPECT_NE(msg.find("uses version " + std::to_string(kVersion)), std::string::npos) << msg;
}

TEST(CpuTable, SegmentOpenToOthersIsRefused) {
  ShmGuard g(unique_shm("open"));
  { auto t = CpuTable::open_shared(g.name); }
  ASSERT_EQ(::chmod(("/dev/shm" + g.name).c_str(), 0644), 0);
  TableError::Kind kind{};
  const std::string msg = open_error(g.name, &kind);
  EXPECT_EQ(kind, TableError::Kind::Foreign);
  EXPECT_NE(msg.find("mode 644"), std::string::npos) << msg;
}

TEST(CpuTable, HalfMadeSegmentOfADeadCreatorIsReplaced) {
  ShmGuard g(unique_shm("half"));
  write_raw(g.name, kSegmentSize, 0, 0600);
  {  // magic 0 (never finished), creator dead
    const int fd = ::shm_open(g.name.c_str(), O_RDWR, 0);
    auto* seg = static_cast<ShmSegment*>(
        ::mmap(nullptr, kSegmentSize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
    seg->header.creator_pid = std::uint32_t(dead_pid());
    ::munmap(seg, kSegmentSize);
    ::close(fd);
  }
  auto t = CpuTable::open_shared(g.name);
  EXPECT_EQ(t->segment()->header.magic, kMagic);
  EXPECT_EQ(t->segment()->header.creator_pid, std::uint32_t(::getpid()));
}

TEST(CpuTable, EmptySegmentOfADeadCreatorIsReplaced) {
  ShmGuard g(unique_shm("empty"));
  write_raw(g.name, 0, 0, 0600);
  auto t = CpuTable::open_shared(g.name);
  EXPECT_EQ(t->segment()->header.magic, kMagic);
}

// A process that died holding CPUs (never unregistered) is cleaned by the
// next process that attaches: its lent CPU and its own CPU are disabled.
TEST(CpuTable, DeadProcessIsCleanedAtAttach) {
  if (online_cpus() < 2) GTEST_SKIP() << "needs 2 CPUs";
  ShmGuard g(unique_shm("stale"));
  const pid_t child = fork_child([&] {
    auto t = CpuTable::open_shared(g.name);
    t->registry().register_process(::getpid(), 2);
    CHILD_CHECK(t->apply(0, CpuOp::Own, ::getpid()).outcome == Outcome::Done);
    CHILD_CHECK(t->apply(1, CpuOp::Own, ::getpid()).outcome == Outcome::Done);
    CHILD_CHECK(t->apply(1, CpuOp::Lend, ::getpid()).outcome == Outcome::Done);
    ::_exit(0);  // crash-like: no unregister
  });
  ASSERT_EQ(wait_child(child), 0);
  ASSERT_TRUE(segment_exists(g.name));
  auto t = CpuTable::open_shared(g.name);
  EXPECT_EQ(t->load(1).state, CpuState::Idle);
  EXPECT_EQ(t->idle_hint(), 1);
  EXPECT_EQ(t->registry().reap_dead(), 1);
  EXPECT_EQ(t->load(0).state, CpuState::Disabled);
  EXPECT_EQ(t->load(1).state, CpuState::Disabled);
  EXPECT_EQ(t->idle_hint(), 0);
  EXPECT_TRUE(t->registry().processes().empty());
}

TEST(CpuTable, CleanRemovesStaleButNotLiveOrForeignSegments) {
  ShmGuard stale(unique_shm("clean-stale"));
  const pid_t child = fork_child([&] {
    auto t = CpuTable::open_shared(stale.name);
    t->registry().register_process(::getpid(), 2);
    ::_exit(0);
  });
  ASSERT_EQ(wait_child(child), 0);
  EXPECT_NE(CpuTable::clean(stale.name, false).find("removed"), std::string::npos);
  EXPECT_FALSE(segment_exists(stale.name));

  ShmGuard live(unique_shm("clean-live"));
  auto t = CpuTable::open_shared(live.name);
  t->registry().register_process(::getpid(), 2);
  EXPECT_NE(CpuTable::clean(live.name, false).find("in use"), std::string::npos);
  EXPECT_TRUE(segment_exists(live.name));

  ShmGuard junk(unique_shm("clean-junk"));
  write_raw(junk.name, 64, 0x33, 0600);
  EXPECT_NE(CpuTable::clean(junk.name, false).find("corrupt"), std::string::npos);
  EXPECT_TRUE(segment_exists(junk.name));
  EXPECT_NE(CpuTable::clean(junk.name, true).find("removed (forced)"), std::string::npos);
  EXPECT_FALSE(segment_exists(junk.name));
}

TEST(CpuTable, PrivateTableIsNotShared) {
  auto t = CpuTable::open_private();
  EXPECT_FALSE(t->shared());
  t->registry().register_process(::getpid(), 1);
  EXPECT_EQ(t->apply(0, CpuOp::Own, ::getpid()).outcome, Outcome::Done);
  EXPECT_EQ(t->owned_by(::getpid()), std::vector<int>{0});
}

TEST(CpuTable, NamesAreValidated) {
  EXPECT_EQ(CpuTable::check_name("abc"), "/abc");
  EXPECT_EQ(CpuTable::check_name("/abc"), "/abc");
  EXPECT_THROW(CpuTable::check_name("/a/b"), std::invalid_argument);
  EXPECT_THROW(CpuTable::check_name("/"), std::invalid_argument);
  EXPECT_EQ(CpuTable::default_name(), "/joule-cpus-" + std::to_string(::geteuid()));
}

TEST(CpuTable, ProcessAliveTellsReusedPidsApart) {
  EXPECT_TRUE(process_alive(::getpid(), process_start_time(::getpid())));
  EXPECT_FALSE(process_alive(::getpid(), process_start_time(::getpid()) + 12345));
  EXPECT_FALSE(process_alive(dead_pid(), 0));
}

}  // namespace
