// Exceptions thrown by tasks: captured, the other tasks still run, and the
// first one is rethrown (same type) at the parent's next taskwait; from a
// grandchild it reaches the grandparent when the parent does not taskwait.
// Through the C ABI, joule_taskwait returns JOULE_ERR_TASK_EXCEPTION.
#include "runtime_sweep.hpp"
#include "test_support.hpp"

#include <joule/joule.h>
#include <joule/joule.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>

namespace {

using namespace joule_test;
using std::chrono::microseconds;

struct custom_error : std::runtime_error {
  explicit custom_error(int v)
      : std::runtime_error("custom_error " + std::to_string(v)), value(v) {}
  int value;
};

class Exceptions : public sweep_test {};

TEST_P(Exceptions, RethrownAtTaskwaitWithSameType) {
  std::atomic<int> ran{0};
  for (int i = 0; i < 50; ++i)
    joule::spawn([&] {
      spin_for(microseconds(20));
      ran.fetch_add(1);
    });
  joule::spawn([] { throw custom_error(7); });
  for (int i = 0; i < 50; ++i) joule::spawn([&] { ran.fetch_add(1); });
  try {
    joule::taskwait();
    ADD_FAILURE() << "taskwait did not rethrow";
  } catch (const custom_error& e) {
    EXPECT_EQ(e.value, 7);
  } catch (...) {
    ADD_FAILURE() << "rethrown with another type";
  }
  EXPECT_EQ(ran.load(), 100) << "taskwait returned before every child finished";
  // The exception was consumed: the next taskwait is clean.
  joule::spawn([&] { ran.fetch_add(1); });
  EXPECT_NO_THROW(joule::taskwait());
  EXPECT_EQ(ran.load(), 101);
}

TEST_P(Exceptions, NonStdExceptionType) {
  joule::spawn([] { throw 42; });
  try {
    joule::taskwait();
    ADD_FAILURE() << "taskwait did not rethrow";
  } catch (int v) {
    EXPECT_EQ(v, 42);
  } catch (...) {
    ADD_FAILURE() << "rethrown with another type";
  }
}

TEST_P(Exceptions, SeveralThrowersOneRethrow) {
  std::atomic<int> ran{0};
  for (int i = 0; i < 10; ++i)
    joule::spawn([&, i] {
      ran.fetch_add(1);
      throw custom_error(i);
    });
  EXPECT_THROW(joule::taskwait(), custom_error);
  EXPECT_NO_THROW(joule::taskwait());
  EXPECT_EQ(ran.load(), 10);
}

// A throwing task still releases its dependencies: its successors run.
TEST_P(Exceptions, SuccessorsOfThrowingTaskRun) {
  long x = 0;
  std::atomic<bool> successor_ran{false};
  joule::spawn({joule::out(x)}, [] { throw custom_error(1); });
  joule::spawn({joule::in(x)}, [&] { successor_ran.store(true); });
  EXPECT_THROW(joule::taskwait(), custom_error);
  EXPECT_TRUE(successor_ran.load());
}

// The parent does not taskwait: the grandchild's exception reaches main.
TEST_P(Exceptions, NestedPropagatesToGrandparent) {
  std::atomic<int> ran{0};
  joule::spawn([&] {
    joule::spawn([] {
      spin_for(microseconds(200));
      throw custom_error(3);
    });
    joule::spawn([&] { ran.fetch_add(1); });
  });
  try {
    joule::taskwait();
    ADD_FAILURE() << "taskwait did not rethrow";
  } catch (const custom_error& e) {
    EXPECT_EQ(e.value, 3);
  }
  EXPECT_EQ(ran.load(), 1);
}

// The parent catches at its own taskwait: nothing reaches main.
TEST_P(Exceptions, ParentCatchesAtItsTaskwait) {
  std::atomic<bool> caught{false};
  joule::spawn([&] {
    joule::spawn([] { throw custom_error(4); });
    try {
      joule::taskwait();
    } catch (const custom_error& e) {
      caught.store(e.value == 4);
    }
  });
  EXPECT_NO_THROW(joule::taskwait());
  EXPECT_TRUE(caught.load());
}

// The parent's taskwait rethrows and the parent does not catch: the
// exception leaves the parent and main sees it.
TEST_P(Exceptions, RethrowFromParentTaskwaitPropagates) {
  joule::spawn([] {
    joule::spawn([] { throw custom_error(5); });
    joule::taskwait();
  });
  EXPECT_THROW(joule::taskwait(), custom_error);
}

// The body itself throws after spawning children: children still run.
TEST_P(Exceptions, ThrowingParentChildrenStillRun) {
  std::atomic<int> ran{0};
  joule::spawn([&] {
    for (int i = 0; i < 10; ++i)
      joule::spawn([&] {
        spin_for(microseconds(50));
        ran.fetch_add(1);
      });
    throw custom_error(6);
  });
  EXPECT_THROW(joule::taskwait(), custom_error);
  EXPECT_EQ(ran.load(), 10);
}

void c_throwing_body(void*) { throw custom_error(8); }

void c_counting_body(void* args) {
  static_cast<std::atomic<int>*>(*static_cast<void**>(args))->fetch_add(1);
}

TEST_P(Exceptions, CAbiTaskwaitReportsTaskException) {
  std::atomic<int> ran{0};
  joule_task_t* t = nullptr;
  void* args = nullptr;
  ASSERT_EQ(joule_task_create(&c_throwing_body, 0, nullptr, &t, &args), JOULE_OK);
  ASSERT_EQ(joule_task_submit(t), JOULE_OK);
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(joule_task_create(&c_counting_body, sizeof(void*), nullptr, &t, &args), JOULE_OK);
    *static_cast<void**>(args) = &ran;
    ASSERT_EQ(joule_task_submit(t), JOULE_OK);
  }
  EXPECT_EQ(joule_taskwait(), JOULE_ERR_TASK_EXCEPTION);
  const char* msg = joule_last_error();
  ASSERT_NE(msg, nullptr);
  EXPECT_NE(std::string(msg).find("custom_error 8"), std::string::npos) << msg;
  EXPECT_EQ(joule_taskwait(), JOULE_OK);
  EXPECT_EQ(ran.load(), 5);
}

// An exception in a taskloop chunk surfaces (at the taskloop or at the next
// taskwait) with its type.
TEST_P(Exceptions, TaskloopBodyThrows) {
  bool thrown = false;
  try {
    joule::taskloop(0, 100, 10, [](int i) {
      if (i == 55) throw custom_error(55);
    });
    joule::taskwait();
  } catch (const custom_error& e) {
    thrown = e.value == 55;
  }
  EXPECT_TRUE(thrown);
  EXPECT_NO_THROW(joule::taskwait());
}

INSTANTIATE_TEST_SUITE_P(Sweep, Exceptions, testing::ValuesIn(scheduler_sweep()), config_namer{});

}  // namespace
