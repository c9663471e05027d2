// Bad input through the C++ API throws joule::error with JOULE_ERR_INVALID,
// runs nothing, and leaves the runtime usable.
#include "runtime_sweep.hpp"

#include <joule/joule.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

namespace {

using namespace joule_test;

// Runs f, expects a joule::error with code, and returns its message.
template <class F>
std::string expect_error(F&& f, joule_status_t code) {
  try {
    f();
  } catch (const joule::error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_GT(std::string(e.what()).size(), 0u);
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a joule::error: " << e.what();
    return {};
  }
  ADD_FAILURE() << "no exception";
  return {};
}

class ApiErrors : public testing::Test {
 protected:
  void SetUp() override { rt_ = start_runtime({2, "work-stealing", true}); }
  void TearDown() override {
    joule::taskwait();
    EXPECT_EQ(ran_.load(), 0) << "a rejected task ran";
    rt_.reset();
  }
  std::atomic<int> ran_{0};
  std::unique_ptr<joule::runtime> rt_;
};

TEST_F(ApiErrors, EmptyStdFunctionBody) {
  std::function<void()> empty;
  expect_error([&] { joule::spawn(empty); }, JOULE_ERR_INVALID);
  long x = 0;
  expect_error([&] { joule::spawn({joule::in(x)}, empty); }, JOULE_ERR_INVALID);
}

TEST_F(ApiErrors, NullFunctionPointerBody) {
  void (*fp)() = nullptr;
  expect_error([&] { joule::spawn(fp); }, JOULE_ERR_INVALID);
}

std::atomic<int> g_by_name{0};
void by_name() { ++g_by_name; }

// A function passed by name is never null: it runs (and joule.hpp's null
// check compiles without g++'s -Waddress warning).
TEST_F(ApiErrors, FunctionByNameRuns) {
  joule::spawn(by_name);
  joule::spawn(&by_name);
  joule::taskwait();
  EXPECT_EQ(g_by_name.load(), 2);
}

TEST_F(ApiErrors, ElementCountOverflow) {
  int a[4] = {};
  expect_error([&] { (void)joule::in(a, SIZE_MAX); }, JOULE_ERR_INVALID);
  expect_error([&] { (void)joule::out(a, SIZE_MAX / 2); }, JOULE_ERR_INVALID);
  expect_error([&] { joule::spawn({joule::inout(a, SIZE_MAX)}, [this] { ran_++; }); },
               JOULE_ERR_INVALID);
}

TEST_F(ApiErrors, RegionPastEndOfAddressSpace) {
  const void* near_end = reinterpret_cast<const void*>(UINTPTR_MAX - 15);
  const joule::dep bad{joule::dep_kind::in, near_end, 64};
  expect_error([&] { joule::spawn(std::span<const joule::dep>(&bad, 1), [this] { ran_++; }); },
               JOULE_ERR_INVALID);
  expect_error([&] { joule::taskwait_on(std::span<const joule::dep>(&bad, 1)); },
               JOULE_ERR_INVALID);
}

TEST_F(ApiErrors, UnknownDependencyKind) {
  long x = 0;
  const joule::dep bad{static_cast<joule::dep_kind>(99), &x, sizeof x};
  expect_error([&] { joule::spawn(std::span<const joule::dep>(&bad, 1), [this] { ran_++; }); },
               JOULE_ERR_INVALID);
}

TEST_F(ApiErrors, RuntimeStillUsableAfterErrors) {
  std::function<void()> empty;
  expect_error([&] { joule::spawn(empty); }, JOULE_ERR_INVALID);
  long x = 0;
  std::atomic<int> ok{0};
  for (int i = 0; i < 10; ++i)
    joule::spawn({joule::inout(x)}, [&] {
      ++x;
      ok++;
    });
  joule::taskwait();
  EXPECT_EQ(x, 10);
  EXPECT_EQ(ok.load(), 10);
}

// A rejected dependency on a task whose body owns resources: the body is
// destroyed (not leaked, not run). ASan's leak checker watches this one.
TEST_F(ApiErrors, RejectedTaskDestroysItsBody) {
  auto owned = std::make_shared<int>(5);
  std::weak_ptr<int> watch = owned;
  const joule::dep bad{joule::dep_kind::in, reinterpret_cast<const void*>(UINTPTR_MAX - 1), 8};
  expect_error(
      [&] {
        joule::spawn(std::span<const joule::dep>(&bad, 1),
                     [this, p = std::move(owned)] { ran_ += *p; });
      },
      JOULE_ERR_INVALID);
  EXPECT_TRUE(watch.expired()) << "the body of the rejected task was not destroyed";
}

// A second runtime while one exists is a state error.
TEST_F(ApiErrors, SecondRuntimeIsStateError) {
  expect_error([] { joule::runtime second({{"JOULE_WORKERS", "1"}}); }, JOULE_ERR_STATE);
  std::atomic<int> ok{0};
  joule::spawn([&] { ok++; });
  joule::taskwait();
  EXPECT_EQ(ok.load(), 1);
}

}  // namespace
