// Task reductions for C++: operators, the reduction dependency that carries
// one, and the private copy a reducing task updates. Included by joule.hpp.
//
//   double sum = 0;
//   for (int i = 0; i < n; ++i)
//     joule::spawn({joule::reduction(sum, joule::red::sum)},
//                  [&sum, i] { joule::reduction_private(sum) += f(i); });
//   joule::taskwait();  // sum holds the total
//
// An operator is a class with `combine(T& inout, const T& in)` and
// `identity()` (both static; either may be a template over T), e.g.
//   struct absmax {
//     static double identity() { return 0; }
//     static void combine(double& a, const double& b) { a = std::max(a, std::fabs(b)); }
//   };
// The reduced type must be trivially copyable and destructible: copies are
// raw memory the runtime frees without running destructors.
#pragma once

#include <joule/types.hpp>

#include <cstddef>
#include <limits>
#include <memory>
#include <type_traits>

namespace joule {

namespace red {
// The built-in operators, as OmpSs-2 and OpenMP spell them: + * min max & | ^ && ||.
struct sum {
  template <class T>
  static constexpr T identity() {
    return T(0);
  }
  template <class T>
  static void combine(T& a, const T& b) {
    a = T(a + b);
  }
};
struct prod {
  template <class T>
  static constexpr T identity() {
    return T(1);
  }
  template <class T>
  static void combine(T& a, const T& b) {
    a = T(a * b);
  }
};
struct min {
  template <class T>
  static constexpr T identity() {
    if constexpr (std::numeric_limits<T>::has_infinity) return std::numeric_limits<T>::infinity();
    return std::numeric_limits<T>::max();
  }
  template <class T>
  static void combine(T& a, const T& b) {
    if (b < a) a = b;
  }
};
struct max {
  template <class T>
  static constexpr T identity() {
    if constexpr (std::numeric_limits<T>::has_infinity) return -std::numeric_limits<T>::infinity();
    return std::numeric_limits<T>::lowest();
  }
  template <class T>
  static void combine(T& a, const T& b) {
    if (a < b) a = b;
  }
};
struct band {
  template <class T>
  static constexpr T identity() {
    if constexpr (std::is_same_v<T, bool>)
      return true;
    else
      return T(~T(0));
  }
  template <class T>
  static void combine(T& a, const T& b) {
    a = T(a & b);
  }
};
struct bor {
  template <class T>
  static constexpr T identity() {
    return T(0);
  }
  template <class T>
  static void combine(T& a, const T& b) {
    a = T(a | b);
  }
};
struct bxor {
  template <class T>
  static constexpr T identity() {
    return T(0);
  }
  template <class T>
  static void combine(T& a, const T& b) {
    a = T(a ^ b);
  }
};
struct land {
  template <class T>
  static constexpr T identity() {
    return T(1);
  }
  template <class T>
  static void combine(T& a, const T& b) {
    a = T(a && b);
  }
};
struct lor {
  template <class T>
  static constexpr T identity() {
    return T(0);
  }
  template <class T>
  static void combine(T& a, const T& b) {
    a = T(a || b);
  }
};
}  // namespace red

namespace detail {

JOULE_EXPORT void* reduction_private(const void* orig);
JOULE_EXPORT std::size_t checked_bytes(std::size_t count, std::size_t elem_size);

template <class Op, class T>
T identity_of() {
  if constexpr (requires { Op::template identity<T>(); })
    return Op::template identity<T>();
  else
    return Op::identity();
}

// The C descriptor of Op over an array of T: elementwise.
template <class T, class Op>
struct reduction_desc {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "joule::reduction: the reduced type must be trivially copyable and destructible");
  static void init(void* priv, const void*, std::size_t bytes) {
    T* p = static_cast<T*>(priv);
    const T id = identity_of<Op, T>();
    for (std::size_t i = 0, n = bytes / sizeof(T); i < n; ++i) ::new (p + i) T(id);
  }
  static void combine(void* inout, const void* in, std::size_t bytes) {
    T* a = static_cast<T*>(inout);
    const T* b = static_cast<const T*>(in);
    for (std::size_t i = 0, n = bytes / sizeof(T); i < n; ++i) Op::combine(a[i], b[i]);
  }
  static constexpr joule_reduction_op_t value{&init, &combine};
};

}  // namespace detail

// A reduction of x (or of the n elements at p) with operator Op: the tasks
// that reduce the same data with the same operator run concurrently, each
// on a private copy, folded into the data before any other access to it.
template <class T, class Op>
requires std::is_class_v<Op> dep reduction(const T& x, Op)
noexcept {
  using E = std::remove_all_extents_t<T>;
  return {dep_kind::reduction, std::addressof(x), sizeof(T), &detail::reduction_desc<E, Op>::value};
}
template <class T, class Op>
requires std::is_class_v<Op> dep reduction(const T* p, std::size_t n, Op) {
  return {dep_kind::reduction, p, detail::checked_bytes(n, sizeof(T)),
          &detail::reduction_desc<T, Op>::value};
}

// In a reducing task: the copy to update in place of x (or of *p, an
// element of a reduced array section). Throws joule::error when the
// running task holds no reduction on that address.
template <class T>
T& reduction_private(T& x) {
  return *static_cast<T*>(detail::reduction_private(std::addressof(x)));
}
template <class T>
T* reduction_private(T* p) {
  return static_cast<T*>(detail::reduction_private(p));
}

}  // namespace joule
