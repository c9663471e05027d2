// Task reductions: the private copy a task updates, and the C ABI's
// built-in operators (the same elementwise templates as joule/reduction.hpp).
#include "joule/joule.h"
#include "joule/joule.hpp"
#include "reduction_slot.hpp"
#include "runtime.hpp"

namespace joule::detail {

void* reduction_private(const void* orig) {
  engine::Runtime& rt = engine::Runtime::get();
  return engine::reduction_private(rt.context().current, orig);
}

}  // namespace joule::detail

namespace {

template <class T>
const joule_reduction_op_t* arithmetic(int kind) {
  using namespace joule;
  switch (kind) {
    case JOULE_RED_SUM:
      return &detail::reduction_desc<T, red::sum>::value;
    case JOULE_RED_PROD:
      return &detail::reduction_desc<T, red::prod>::value;
    case JOULE_RED_MIN:
      return &detail::reduction_desc<T, red::min>::value;
    case JOULE_RED_MAX:
      return &detail::reduction_desc<T, red::max>::value;
    case JOULE_RED_LAND:
      return &detail::reduction_desc<T, red::land>::value;
    case JOULE_RED_LOR:
      return &detail::reduction_desc<T, red::lor>::value;
    default:
      break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (kind) {
      case JOULE_RED_BAND:
        return &detail::reduction_desc<T, red::band>::value;
      case JOULE_RED_BOR:
        return &detail::reduction_desc<T, red::bor>::value;
      case JOULE_RED_BXOR:
        return &detail::reduction_desc<T, red::bxor>::value;
      default:
        break;
    }
  }
  return nullptr;
}

}  // namespace

extern "C" const joule_reduction_op_t* joule_reduction_op(int kind, int type) {
  switch (type) {
    case JOULE_TYPE_CHAR:
      return arithmetic<char>(kind);
    case JOULE_TYPE_SCHAR:
      return arithmetic<signed char>(kind);
    case JOULE_TYPE_UCHAR:
      return arithmetic<unsigned char>(kind);
    case JOULE_TYPE_SHORT:
      return arithmetic<short>(kind);
    case JOULE_TYPE_USHORT:
      return arithmetic<unsigned short>(kind);
    case JOULE_TYPE_INT:
      return arithmetic<int>(kind);
    case JOULE_TYPE_UINT:
      return arithmetic<unsigned>(kind);
    case JOULE_TYPE_LONG:
      return arithmetic<long>(kind);
    case JOULE_TYPE_ULONG:
      return arithmetic<unsigned long>(kind);
    case JOULE_TYPE_LLONG:
      return arithmetic<long long>(kind);
    case JOULE_TYPE_ULLONG:
      return arithmetic<unsigned long long>(kind);
    case JOULE_TYPE_FLOAT:
      return arithmetic<float>(kind);
    case JOULE_TYPE_DOUBLE:
      return arithmetic<double>(kind);
    case JOULE_TYPE_LDOUBLE:
      return arithmetic<long double>(kind);
    case JOULE_TYPE_BOOL:
      return arithmetic<bool>(kind);
    default:
      return nullptr;
  }
}
