// Task reductions with an operator: reducing tasks run concurrently on
// private copies and every operator gives the sequential result, for
// scalars and array sections, across groups, at taskwait, nested and
// weak (the parent only passes the reduction on to its children); at 1 to 64
// workers (up to 32 per CPU here).
#include "runtime_sweep.hpp"

#include <joule/joule.h>
#include <joule/joule.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

namespace {

using namespace joule_test;
namespace red = joule::red;

class TaskReduction : public sweep_test {};

// The sequential fold, written out per operator (independent of red::*).
template <class T>
T apply(int op, T a, T b) {
  switch (op) {
    case JOULE_RED_SUM:
      return T(a + b);
    case JOULE_RED_PROD:
      return T(a * b);
    case JOULE_RED_MIN:
      return b < a ? b : a;
    case JOULE_RED_MAX:
      return a < b ? b : a;
    case JOULE_RED_LAND:
      return T(a && b);
    case JOULE_RED_LOR:
      return T(a || b);
    default:
      break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case JOULE_RED_BAND:
        return T(a & b);
      case JOULE_RED_BOR:
        return T(a | b);
      case JOULE_RED_BXOR:
        return T(a ^ b);
      default:
        break;
    }
  }
  ADD_FAILURE() << "operator " << op;
  return a;
}

// Contributions exactly representable in every type, whose products stay
// small (1 and 2 alternate with 1/2 for floating types, with 1 for integers).
template <class T>
T value(int op, int i) {
  if (op == JOULE_RED_PROD) {
    if constexpr (std::is_floating_point_v<T>)
      return i % 3 == 0 ? T(2) : i % 3 == 1 ? T(0.5) : T(1);
    return i % 16 == 0 ? T(2) : T(1);
  }
  if (op == JOULE_RED_LAND) return T(i != 37);
  if (op == JOULE_RED_LOR) return T(i == 41);
  return T((i * 37) % 97 + (op == JOULE_RED_MIN ? 5 : 0));
}

template <class T, class Op>
void reduce_scalar(int op, Op o) {
  constexpr int n = 80;
  const T start = op == JOULE_RED_PROD ? T(3) : op == JOULE_RED_LAND ? T(1) : T(50);
  T x = start;
  T expected = start;
  for (int i = 0; i < n; ++i) expected = apply<T>(op, expected, value<T>(op, i));
  for (int i = 0; i < n; ++i)
    joule::spawn({joule::reduction(x, o)}, [&x, op, i] {
      T& mine = joule::reduction_private(x);
      mine = apply<T>(op, mine, value<T>(op, i));
    });
  joule::taskwait();
  EXPECT_EQ(x, expected) << "operator " << op << ", " << sizeof(T) << "-byte type";
}

template <class T>
void arithmetic_ops() {
  reduce_scalar<T>(JOULE_RED_SUM, red::sum{});
  reduce_scalar<T>(JOULE_RED_PROD, red::prod{});
  reduce_scalar<T>(JOULE_RED_MIN, red::min{});
  reduce_scalar<T>(JOULE_RED_MAX, red::max{});
  reduce_scalar<T>(JOULE_RED_LAND, red::land{});
  reduce_scalar<T>(JOULE_RED_LOR, red::lor{});
}

template <class T>
void bitwise_ops() {
  reduce_scalar<T>(JOULE_RED_BAND, red::band{});
  reduce_scalar<T>(JOULE_RED_BOR, red::bor{});
  reduce_scalar<T>(JOULE_RED_BXOR, red::bxor{});
}

TEST_P(TaskReduction, EveryOperatorGivesTheSequentialResult) {
  arithmetic_ops<int>();
  arithmetic_ops<long>();
  arithmetic_ops<float>();
  arithmetic_ops<double>();
  arithmetic_ops<unsigned char>();
  bitwise_ops<int>();
  bitwise_ops<long>();
  bitwise_ops<unsigned char>();
}

TEST_P(TaskReduction, ArraySectionReducesOnlyItsElements) {
  long a[10];
  for (int k = 0; k < 10; ++k) a[k] = 100 * k;
  constexpr int n = 64;
  for (int i = 0; i < n; ++i)
    joule::spawn({joule::reduction(a + 2, 5, red::sum{})}, [&a, i] {
      long* mine = joule::reduction_private(a + 2);
      for (int k = 0; k < 5; ++k) mine[k] += i + k;
    });
  joule::taskwait();
  for (int k = 0; k < 10; ++k) {
    const long added = k >= 2 && k < 7 ? long(n) * (n - 1) / 2 + long(n) * (k - 2) : 0;
    EXPECT_EQ(a[k], 100 * k + added) << "element " << k;
  }
}

TEST_P(TaskReduction, LaterAccessesSeeTheFoldedValue) {
  long x = 7;
  long seen_by_in = -1, seen_by_prod_group = -1;
  constexpr int n = 40;
  for (int i = 0; i < n; ++i)
    joule::spawn({joule::reduction(x, red::sum{})}, [&x] { joule::reduction_private(x) += 1; });
  joule::spawn({joule::in(x)}, [&] { seen_by_in = x; });
  for (int i = 0; i < n; ++i)
    joule::spawn({joule::reduction(x, red::sum{})}, [&x] { joule::reduction_private(x) += 2; });
  // Another operator: a new group, after the sums are folded.
  for (int i = 0; i < 3; ++i)
    joule::spawn({joule::reduction(x, red::prod{})}, [&x] { joule::reduction_private(x) *= 2; });
  joule::spawn({joule::inout(x)}, [&] { seen_by_prod_group = x; });
  joule::taskwait();
  EXPECT_EQ(seen_by_in, 7 + n);
  EXPECT_EQ(seen_by_prod_group, (7 + 3 * n) * 8);
  EXPECT_EQ(x, (7 + 3 * n) * 8);
}

TEST_P(TaskReduction, TaskwaitFoldsAndTheNextRoundStartsAfresh) {
  double x = 0;
  for (int round = 1; round <= 3; ++round) {
    for (int i = 0; i < 50; ++i)
      joule::spawn({joule::reduction(x, red::sum{})},
                   [&x, round] { joule::reduction_private(x) += round; });
    joule::taskwait();
    EXPECT_EQ(x, 50.0 * round * (round + 1) / 2) << "round " << round;
  }
  const joule::dep d = joule::reduction(x, red::sum{});
  for (int i = 0; i < 10; ++i) joule::spawn({d}, [&x] { joule::reduction_private(x) += 1; });
  joule::taskwait_on({d});  // waits for the folded value
  EXPECT_EQ(x, 310.0);
  joule::taskwait();
}

// Undeferred members and a member run inline below a final task.
TEST_P(TaskReduction, UndeferredAndFinalMembersJoin) {
  int x = 0;
  joule::task_options undeferred;
  undeferred.if_ = false;
  joule::task_options final_task;
  final_task.final = true;
  for (int i = 0; i < 30; ++i) {
    if (i % 3 == 0) {
      joule::spawn(
          {joule::reduction(x, red::sum{})}, [&x] { joule::reduction_private(x) += 1; },
          undeferred);
    } else if (i % 3 == 1) {
      joule::spawn(
          {joule::reduction(x, red::sum{})},
          [&x] {
            joule::reduction_private(x) += 1;
            // Runs inline: it updates its parent's copy of this thread.
            joule::spawn({joule::reduction(x, red::sum{})},
                         [&x] { joule::reduction_private(x) += 10; });
          },
          final_task);
    } else {
      joule::spawn({joule::reduction(x, red::sum{})}, [&x] { joule::reduction_private(x) += 1; });
    }
  }
  joule::taskwait();
  EXPECT_EQ(x, 30 + 10 * 10);
}

// Parents reduce and give part of the work to children that reduce into
// the parent's copy; the children's group folds when the parent ends.
TEST_P(TaskReduction, ChildrenReduceIntoTheParentsCopy) {
  long x = 0;
  constexpr int parents = 12, children = 8;
  for (int p = 0; p < parents; ++p)
    joule::spawn({joule::reduction(x, red::sum{})}, [&x] {
      long& mine = joule::reduction_private(x);
      mine += 1000;
      for (int c = 0; c < children; ++c)
        joule::spawn({joule::reduction(mine, red::sum{})},
                     [&mine, c] { joule::reduction_private(mine) += c; });
    });
  joule::taskwait();
  EXPECT_EQ(x, parents * (1000 + children * (children - 1) / 2));
}

// weakreduction: the parents never touch x, their children reduce on x
// itself; siblings' children must not race on x (the parents' groups fold
// into the parent group's copies).
TEST_P(TaskReduction, WeakParentsPassTheReductionToChildren) {
  long x = 5;
  constexpr int parents = 10, children = 10;
  for (int p = 0; p < parents; ++p)
    joule::spawn({joule::reduction(x, red::sum{})}, [&x, p] {
      for (int c = 0; c < children; ++c)
        joule::spawn({joule::reduction(x, red::sum{})},
                     [&x, p, c] { joule::reduction_private(x) += p * children + c; });
      if (p % 2) joule::taskwait();  // folds the children's group here
    });
  long seen = -1;
  joule::spawn({joule::in(x)}, [&] { seen = x; });
  joule::taskwait();
  const long total = 5 + long(parents * children) * (parents * children - 1) / 2;
  EXPECT_EQ(seen, total);
  EXPECT_EQ(x, total);
}

struct absmax {
  static double identity() { return 0; }
  static void combine(double& a, const double& b) { a = std::max(a, b < 0 ? -b : b); }
};

TEST_P(TaskReduction, UserDefinedOperator) {
  double x = 1;
  for (int i = 0; i < 40; ++i)
    joule::spawn({joule::reduction(x, absmax{})}, [&x, i] {
      absmax::combine(joule::reduction_private(x), i % 2 ? -double(i) : double(i));
    });
  joule::taskwait();
  EXPECT_EQ(x, 39.0);
}

// The point of it all: bodies of one group overlap. Each body waits (up to
// a bound) until another is inside too; under the commutative mapping no
// two ever are, and max stays 1.
TEST_P(TaskReduction, ReducingBodiesOverlap) {
  if (workers() < 2) GTEST_SKIP() << "one worker runs one body at a time";
  std::atomic<int> inside{0}, max_inside{0};
  long x = 0;
  constexpr int n = 16;
  for (int i = 0; i < n; ++i)
    joule::spawn({joule::reduction(x, red::sum{})}, [&] {
      const int now = inside.fetch_add(1) + 1;
      int m = max_inside.load();
      while (now > m && !max_inside.compare_exchange_weak(m, now)) {
      }
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
      while (max_inside.load() < 2 && std::chrono::steady_clock::now() < until)
        std::this_thread::yield();
      joule::reduction_private(x) += 1;
      inside.fetch_sub(1);
    });
  joule::taskwait();
  EXPECT_GE(max_inside.load(), 2);
  EXPECT_EQ(x, n);
}

TEST_P(TaskReduction, PrivateCopyOfDataNotReducedIsAnError) {
  long x = 0, y = 0;
  bool threw = false;
  const void* c_result = &y;
  std::string c_error;
  joule::spawn({joule::reduction(x, red::sum{})}, [&] {
    joule::reduction_private(x) += 1;
    try {
      joule::reduction_private(y);
    } catch (const joule::error& e) {
      threw = std::strstr(e.what(), "holds no reduction") != nullptr;
    }
    c_result = joule_reduction_private(&y);
    c_error = joule_last_error();
  });
  joule::taskwait();
  EXPECT_EQ(x, 1);
  if (GetParam().serial_inline) {
    // Run inline, a task updates in place.
    EXPECT_EQ(c_result, &y);
    return;
  }
  EXPECT_TRUE(threw);
  EXPECT_EQ(c_result, nullptr);
  EXPECT_NE(c_error.find("reduction_private"), std::string::npos) << c_error;
}

// The C ABI: a built-in operator on a joule_dep_t.
struct c_args {
  unsigned* bits;
  int i;
};
void c_body(void* p) {
  auto* a = static_cast<c_args*>(p);
  auto* mine = static_cast<unsigned*>(joule_reduction_private(a->bits));
  *mine |= 1u << (a->i % 32);
}

TEST_P(TaskReduction, CApiBuiltInOperator) {
  EXPECT_EQ(joule_reduction_op(JOULE_RED_BAND, JOULE_TYPE_DOUBLE), nullptr);
  EXPECT_EQ(joule_reduction_op(99, JOULE_TYPE_INT), nullptr);
  const joule_reduction_op_t* op = joule_reduction_op(JOULE_RED_BOR, JOULE_TYPE_UINT);
  ASSERT_NE(op, nullptr);
  unsigned bits = 0;
  for (int i = 0; i < 20; ++i) {
    joule_task_t* t = nullptr;
    void* args = nullptr;
    ASSERT_EQ(joule_task_create(&c_body, sizeof(c_args), nullptr, &t, &args), JOULE_OK);
    *static_cast<c_args*>(args) = {&bits, i};
    const joule_dep_t d = {JOULE_DEP_REDUCTION, &bits, sizeof bits, op};
    ASSERT_EQ(joule_task_add_deps(t, &d, 1), JOULE_OK);
    ASSERT_EQ(joule_task_submit(t), JOULE_OK);
  }
  const joule_dep_t on = {JOULE_DEP_REDUCTION, &bits, sizeof bits, op};
  ASSERT_EQ(joule_taskwait_on(&on, 1), JOULE_OK);  // the folded value
  EXPECT_EQ(bits, (1u << 20) - 1);
  ASSERT_EQ(joule_taskwait(), JOULE_OK);

  // An operator without its functions is refused, naming what is missing.
  const joule_reduction_op_t half = {nullptr, op->combine};
  joule_task_t* t = nullptr;
  void* args = nullptr;
  ASSERT_EQ(joule_task_create(&c_body, sizeof(c_args), nullptr, &t, &args), JOULE_OK);
  const joule_dep_t bad = {JOULE_DEP_REDUCTION, &bits, sizeof bits, &half};
  EXPECT_EQ(joule_task_add_deps(t, &bad, 1), JOULE_ERR_INVALID);
  EXPECT_NE(std::string(joule_last_error()).find("init"), std::string::npos);
  ASSERT_EQ(joule_task_discard(t), JOULE_OK);
}

std::vector<sweep_config> reduction_sweep() {
  std::vector<sweep_config> v;
  v.push_back({1, "work-stealing", true, true});  // everything inline
  for (int w : {1, 2, 4, 32, 64}) v.push_back({w, "work-stealing", true});
  v.push_back({4, "fifo", false});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Sweep, TaskReduction, testing::ValuesIn(reduction_sweep()),
                         config_namer());

}  // namespace
