// Doacross loops in the LLVM runtime ABI: __kmpc_doacross_init gives every
// ordered dimension (inclusive bounds and steps) before the loop starts;
// posts and waits name iterations by their values. doacross.cpp's state
// wants the loop's worksharing dimension first, as GCC passes it: with
// collapse(c) the first c dimensions are dealt as one, so they are merged
// here into one, c being what the loop's trip count covers (known once
// the loop has started, at the first post or wait). The state hangs on a
// worksharing construct of the team taken at the init, left at the fini.
#include <vector>

#include "kmpc.hpp"

namespace joule::omp::kmp {
namespace {

struct Current {
  WorkShare* ws = nullptr;  // null in a team of one: iterations run in order
  std::vector<Dim> dims;
  std::vector<std::uint64_t> counts;
  std::size_t merged = 0;  // dimensions merged into the first (0: not known yet)
};
thread_local Current t_doacross;
thread_local std::uint64_t t_loop_count;

std::uint64_t count_of(const Dim& d) {
  if (d.st > 0) return d.up < d.lo ? 0 : std::uint64_t(d.up - d.lo) / std::uint64_t(d.st) + 1;
  if (d.st == 0) unsupported("__kmpc_doacross_init with a zero step");
  return d.lo < d.up ? 0 : std::uint64_t(d.lo - d.up) / (0 - std::uint64_t(d.st)) + 1;
}

// The state, made by the first member to post or wait: dimensions
// 0..c-1 as one, the smallest c whose counts multiply to the loop's.
void* state(Current& c) {
  if (!c.merged) {
    std::uint64_t product = 1;
    c.merged = 1;
    for (std::size_t k = 0; k < c.counts.size(); ++k) {
      product *= c.counts[k];
      c.merged = k + 1;
      if (product >= t_loop_count) break;
    }
  }
  void* d = c.ws->doacross.load(std::memory_order_acquire);
  if (d) return d;
  std::vector<std::uint64_t> counts{1};
  for (std::size_t k = 0; k < c.counts.size(); ++k)
    if (k < c.merged)
      counts[0] *= c.counts[k];
    else
      counts.push_back(c.counts[k]);
  void* fresh = doacross_create(unsigned(counts.size()), counts.data());
  if (c.ws->doacross.compare_exchange_strong(d, fresh, std::memory_order_acq_rel)) return fresh;
  std::free(fresh);  // another member's is the loop's (the same)
  return d;
}

// Iteration numbers of vec, the merged dimensions as one; false if a
// component is outside its dimension (a sink naming no iteration is
// ignored: OpenMP 5.2 §15.9.7).
bool to_numbers(const Current& c, const std::int64_t* vec, std::uint64_t* out) {
  std::size_t o = 0;
  out[0] = 0;
  for (std::size_t k = 0; k < c.dims.size(); ++k) {
    const Dim& d = c.dims[k];
    const std::int64_t off = d.st > 0 ? vec[k] - d.lo : d.lo - vec[k];
    const auto step = std::uint64_t(d.st > 0 ? d.st : -d.st);
    if (off < 0 || std::uint64_t(off) % step != 0) return false;
    const std::uint64_t i = std::uint64_t(off) / step;
    if (i >= c.counts[k]) return false;
    if (k < c.merged)
      out[0] = out[0] * c.counts[k] + i;
    else
      out[++o] = i;
  }
  return true;
}

template <class Op>
void at(const std::int64_t* vec, Op op) {
  Current& c = t_doacross;
  if (!c.ws) return;
  if (c.dims.size() > 16) unsupported("a doacross loop of more than 16 ordered dimensions");
  void* d = state(c);
  std::uint64_t it[16];
  if (to_numbers(c, vec, it)) op(d, it);
}

}  // namespace

void note_loop_count(std::uint64_t count) { t_loop_count = count; }

}  // namespace joule::omp::kmp

using namespace joule::omp;
using namespace joule::omp::kmp;

extern "C" {

JOULE_EXPORT void __kmpc_doacross_init(Ident*, std::int32_t, std::int32_t n, const Dim* dims) {
  Current& c = t_doacross;
  c = Current{};
  if (current_team()->n == 1 || n <= 0) return;
  c.dims.assign(dims, dims + n);
  for (const Dim& d : c.dims) c.counts.push_back(count_of(d));
  ThreadState& s = self();
  WorkShare* outer = s.ws;
  c.ws = ws_enter([](WorkShare&) {});
  s.ws = outer;
}

JOULE_EXPORT void __kmpc_doacross_wait(Ident*, std::int32_t, const std::int64_t* vec) {
  at(vec, doacross_wait_at);
}

JOULE_EXPORT void __kmpc_doacross_post(Ident*, std::int32_t, const std::int64_t* vec) {
  at(vec, doacross_post_at);
}

JOULE_EXPORT void __kmpc_doacross_fini(Ident*, std::int32_t) {
  Current& c = t_doacross;
  if (c.ws) {  // leave its construct (the slot frees the state when reused)
    ThreadState& s = self();
    WorkShare* loop = s.ws;
    s.ws = c.ws;
    ws_leave();
    s.ws = loop;
  }
  c = Current{};
}

}  // extern "C"
