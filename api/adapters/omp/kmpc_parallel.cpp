// Parallel regions and teams in the LLVM runtime ABI: __kmpc_fork_call runs
// the compiled microtask as every member of a team made by run_parallel
// (parallel.cpp), __kmpc_fork_teams runs it as every team of a league
// (teams.cpp); the serialized form is the old split GOMP form's team of one.
#include <array>
#include <cstdarg>
#include <utility>

#include "kmpc.hpp"

namespace joule::omp::kmp {
namespace {

constexpr int kMaxArgs = 64;

// What __kmpc_push_num_threads / _num_teams asked for the next region
// this thread starts (0: none).
struct Pushed {
  unsigned threads = 0;
  int teams = 0, thread_limit = 0;
};
thread_local Pushed t_pushed;

using Caller = void (*)(Micro, std::int32_t*, std::int32_t*, void**);

template <std::size_t... I>
void call_with(Micro fn, std::int32_t* g, std::int32_t* b, void** a, std::index_sequence<I...>) {
  fn(g, b, a[I]...);
}
template <std::size_t N>
void call_n(Micro fn, std::int32_t* g, std::int32_t* b, void** a) {
  call_with(fn, g, b, a, std::make_index_sequence<N>{});
}
template <std::size_t... N>
constexpr std::array<Caller, sizeof...(N)> make_callers(std::index_sequence<N...>) {
  return {&call_n<N>...};
}
constexpr auto kCallers = make_callers(std::make_index_sequence<kMaxArgs + 1>{});

struct Region {
  Micro fn;
  int argc;
  void** args;
};

// Each member (and each team's initial thread) calls the microtask with
// its own gtid and thread number.
void member(void* p) {
  const auto* r = static_cast<Region*>(p);
  std::int32_t g = gtid(), b = self().id;
  kCallers[std::size_t(r->argc)](r->fn, &g, &b, r->args);
}

void collect(int argc, va_list ap, void** args, const char* entry) {
  if (argc < 0 || argc > kMaxArgs) unsupported(entry);
  for (int i = 0; i < argc; ++i) args[i] = va_arg(ap, void*);
}

}  // namespace

void fork(Micro fn, int argc, void** args) {
  Region r{fn, argc, args};
  const unsigned n = std::exchange(t_pushed.threads, 0u);
  run_parallel(member, &r, n);
}

}  // namespace joule::omp::kmp

using namespace joule::omp;
using namespace joule::omp::kmp;

extern "C" {

JOULE_EXPORT std::int32_t __kmpc_global_thread_num(Ident*) {
  ensure_init();
  return gtid();
}
JOULE_EXPORT std::int32_t __kmpc_bound_thread_num(Ident*) { return self().id; }
JOULE_EXPORT std::int32_t __kmpc_bound_num_threads(Ident*) { return current_team()->n; }
JOULE_EXPORT std::int32_t __kmpc_in_parallel(Ident*) { return current_team()->active_level > 0; }
JOULE_EXPORT void __kmpc_begin(Ident*, std::int32_t) { ensure_init(); }
JOULE_EXPORT void __kmpc_end(Ident*) {}

JOULE_EXPORT void __kmpc_fork_call(Ident*, std::int32_t argc, Micro fn, ...) {
  void* args[64];
  va_list ap;
  va_start(ap, fn);
  collect(argc, ap, args, "__kmpc_fork_call with more than 64 shared variables");
  va_end(ap);
  fork(fn, argc, args);
}

JOULE_EXPORT void __kmpc_push_num_threads(Ident*, std::int32_t, std::int32_t n) {
  t_pushed.threads = n > 0 ? unsigned(n) : 0u;
}
// proc_bind: joule's workers are bound already (as GOMP_parallel's flags).
JOULE_EXPORT void __kmpc_push_proc_bind(Ident*, std::int32_t, int) {}

// parallel if(0) and nested regions clang serialises itself: a team of one
// around the microtask the compiled code calls directly.
JOULE_EXPORT void __kmpc_serialized_parallel(Ident*, std::int32_t) {
  start_on_master(begin_team([](void*) {}, nullptr, 1));
}
JOULE_EXPORT void __kmpc_end_serialized_parallel(Ident*, std::int32_t) { finish_on_master(); }

JOULE_EXPORT void __kmpc_push_num_teams(Ident*, std::int32_t, std::int32_t teams,
                                        std::int32_t limit) {
  t_pushed.teams = teams > 0 ? teams : 0;
  t_pushed.thread_limit = limit > 0 ? limit : 0;
}

// OpenMP 5.1's num_teams(lower:upper): any number in the range is
// conforming; the upper bound, as num_teams(upper) asks.
JOULE_EXPORT void __kmpc_push_num_teams_51(Ident* loc, std::int32_t gtid, std::int32_t,
                                           std::int32_t upper, std::int32_t limit) {
  __kmpc_push_num_teams(loc, gtid, upper, limit);
}

void GOMP_teams_reg(void (*fn)(void*), void* data, unsigned num_teams, unsigned thread_limit,
                    unsigned flags);

// Host teams: the league of GOMP_teams_reg, each team's initial thread
// calling the microtask.
JOULE_EXPORT void __kmpc_fork_teams(Ident*, std::int32_t argc, Micro fn, ...) {
  void* args[64];
  va_list ap;
  va_start(ap, fn);
  collect(argc, ap, args, "__kmpc_fork_teams with more than 64 shared variables");
  va_end(ap);
  Region r{fn, argc, args};
  const Pushed p = std::exchange(t_pushed, Pushed{});
  GOMP_teams_reg(member, &r, unsigned(p.teams), unsigned(p.thread_limit), 0);
}

}  // extern "C"
