// GCC's depend arrays as joule dependencies. Dependencies follow the OpenMP
// model joule shares: among the children of one task, by address.
#include "ompt.hpp"
#include "task.hpp"
#include "team.hpp"

namespace joule::omp {
namespace {

int dep_kind(std::uintptr_t gomp_kind) {
  switch (gomp_kind) {
    case 1:
      return JOULE_DEP_IN;
    case 4:
      return JOULE_DEP_COMMUTATIVE;  // mutexinoutset
    case 5:
      return JOULE_DEP_CONCURRENT;  // inoutset
    default:
      return JOULE_DEP_INOUT;  // out, inout
  }
}

}  // namespace

int depend_count(void** depend) {
  const auto first = reinterpret_cast<std::uintptr_t>(depend[0]);
  return int(first ? first : reinterpret_cast<std::uintptr_t>(depend[1]));
}

void depend_to_joule(void** depend, joule_dep_t* out) {
  auto word = [&](int i) { return reinterpret_cast<std::uintptr_t>(depend[i]); };
  const int n = depend_count(depend);
  const bool old = word(0) != 0;
  const std::uintptr_t n_out = old ? word(1) : word(2);
  const std::uintptr_t n_mutex = old ? 0 : word(3);
  const std::uintptr_t n_in = old ? std::uintptr_t(n) - n_out : word(4);
  const int first = old ? 2 : 5;
  for (int i = 0; i < n; ++i) {
    void* addr = depend[first + i];
    int kind = JOULE_DEP_INOUT;
    if (std::uintptr_t(i) >= n_out + n_mutex + n_in) {
      // A depend object (or inoutset): {address, kind}.
      auto* obj = static_cast<void**>(addr);
      addr = obj[0];
      kind = dep_kind(reinterpret_cast<std::uintptr_t>(obj[1]));
    } else if (std::uintptr_t(i) >= n_out + n_mutex) {
      kind = JOULE_DEP_IN;
    } else if (std::uintptr_t(i) >= n_out) {
      kind = JOULE_DEP_COMMUTATIVE;
    }
    out[i] = joule_dep_t{kind, addr, 1, nullptr};
  }
}

void add_depend(joule_task_t* t, void** depend) {
  const int n = depend_count(depend);
  joule_dep_t small[16];
  joule_dep_t* deps = n <= 16 ? small : new joule_dep_t[std::size_t(n)];
  depend_to_joule(depend, deps);
  add_deps(t, deps, std::size_t(n));
  if (deps != small) delete[] deps;
}

void add_deps(joule_task_t* t, const joule_dep_t* deps, std::size_t n) {
  if (ompt::on()) ompt::task_dependences(deps, n);  // the task was just created
  joule_task_add_deps(t, deps, n);
}

}  // namespace joule::omp

using namespace joule::omp;

extern "C" {

JOULE_EXPORT void GOMP_taskwait_depend(void** depend) {
  const int n = depend_count(depend);
  joule_dep_t small[16];
  joule_dep_t* deps = n <= 16 ? small : new joule_dep_t[std::size_t(n)];
  depend_to_joule(depend, deps);
  // Inside a task run inline its deferred children are joule children of
  // the enclosing joule task, so this finds them (with its other children).
  if (!self().in_final) {
    SeatAway away;
    joule_taskwait_on(deps, std::size_t(n));
  }
  if (deps != small) delete[] deps;
}

}  // extern "C"
