// Task reductions: the private blocks, which one a thread uses, and the
// remapping of an in_reduction task's addresses (reduction.hpp).
#include "reduction.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "team.hpp"

namespace joule::omp {
namespace {

constexpr std::size_t kVars = 7;  // first variable's words in a descriptor

std::uintptr_t& var_addr(std::uintptr_t* d, std::uintptr_t i) { return d[kVars + 3 * i]; }
std::uintptr_t& var_offset(std::uintptr_t* d, std::uintptr_t i) { return d[kVars + 3 * i + 1]; }
// The runtime's word: how many bytes of the block belong to variable i (up
// to the next variable's offset), so that an address inside an array
// section maps to the same element of the copy.
std::uintptr_t& var_span(std::uintptr_t* d, std::uintptr_t i) { return d[kVars + 3 * i + 2]; }

void fill_spans(std::uintptr_t* d) {
  for (std::uintptr_t i = 0; i < d[0]; ++i) {
    std::uintptr_t end = d[1];
    for (std::uintptr_t j = 0; j < d[0]; ++j)
      if (var_offset(d, j) > var_offset(d, i)) end = std::min(end, var_offset(d, j));
    var_span(d, i) = end - var_offset(d, i);
  }
}

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "libjoule-omp: %s\n", what);
  std::abort();
}

// The calling thread's block of r: the one of the thread number it holds.
std::uintptr_t block_of(Reduction* r) {
  const ThreadState& s = self();
  if (s.seat < 0 || s.team != r->team)
    fail(
        "task reduction: a task used a reduction without holding a thread number of its "
        "team (libjoule-omp bug)");
  return r->base + std::uintptr_t(s.seat) * r->chunk;
}

// ptr as an original list item (or an address inside an array section) of
// descriptor d: its copy in block `block`, and the original in *orig.
bool map_original(std::uintptr_t* d, std::uintptr_t p, std::uintptr_t block, std::uintptr_t* out,
                  std::uintptr_t* orig) {
  for (std::uintptr_t i = 0; i < d[0]; ++i) {
    const std::uintptr_t a = var_addr(d, i);
    if (p >= a && p - a < std::max<std::uintptr_t>(var_span(d, i), 1)) {
      *out = block + var_offset(d, i) + (p - a);
      *orig = p;
      return true;
    }
  }
  return false;
}

// ptr inside some thread's block of d (a copy remapped before): the same
// place in this thread's block.
bool map_private(std::uintptr_t* d, std::uintptr_t p, std::uintptr_t block, std::uintptr_t* out,
                 std::uintptr_t* orig) {
  if (p < d[2] || p >= d[6]) return false;
  const std::uintptr_t off = (p - d[2]) % d[1];
  *out = block + off;
  *orig = p;
  for (std::uintptr_t i = 0; i < d[0]; ++i)
    if (off >= var_offset(d, i) && off - var_offset(d, i) < var_span(d, i))
      *orig = var_addr(d, i) + (off - var_offset(d, i));
  return true;
}

}  // namespace

Reduction* reduction_of(const std::uintptr_t* desc) {
  return reinterpret_cast<Reduction*>(desc[5]);
}

Reduction* reduction_create(std::uintptr_t* desc, ReductionKind kind, Team* team, int blocks) {
  auto* r = new Reduction;
  r->kind = kind;
  r->team = team;
  r->blocks = blocks;
  r->chunk = desc[1];
  const std::size_t align = std::max<std::size_t>(desc[2], alignof(std::max_align_t));
  const std::size_t bytes = (std::size_t(blocks) * r->chunk + align - 1) / align * align;
  void* mem = std::aligned_alloc(align, bytes ? bytes : align);
  if (!mem) fail("task reduction: out of memory for the private copies");
  std::memset(mem, 0, bytes);  // a zero flag byte: "not initialised yet"
  r->base = reinterpret_cast<std::uintptr_t>(mem);
  reduction_attach(desc, r);
  team->red_active.fetch_add(1, std::memory_order_acq_rel);
  return r;
}

void reduction_attach(std::uintptr_t* desc, Reduction* r) {
  desc[2] = r->base;
  desc[5] = reinterpret_cast<std::uintptr_t>(r);
  desc[6] = r->base + std::uintptr_t(r->blocks) * r->chunk;
  fill_spans(desc);
}

void reduction_free(Reduction* r) {
  if (r->team) r->team->red_active.fetch_sub(1, std::memory_order_acq_rel);
  std::free(reinterpret_cast<void*>(r->base));
  delete r;
}

// The innermost descriptor naming p exactly; else one whose blocks or an
// array section (by its span) hold p. Exact matches come first: a span
// covers a copy's flag and padding, which may reach a neighbouring original.
bool remap_one(std::uintptr_t p, std::uintptr_t* out, std::uintptr_t* orig) {
  using Desc = std::uintptr_t*;
  for (Desc d = self().red; d; d = reinterpret_cast<Desc>(d[4]))
    for (std::uintptr_t i = 0; i < d[0]; ++i)
      if (var_addr(d, i) == p) {
        *out = block_of(reduction_of(d)) + var_offset(d, i);
        *orig = p;
        return true;
      }
  for (Desc d = self().red; d; d = reinterpret_cast<Desc>(d[4])) {
    std::uintptr_t o = 0;
    const bool mine = (p >= d[2] && p < d[6]) || map_original(d, p, 0, &o, orig);
    if (!mine) continue;
    const std::uintptr_t block = block_of(reduction_of(d));
    return map_original(d, p, block, out, orig) || map_private(d, p, block, out, orig);
  }
  return false;
}

void reduction_remap(std::size_t cnt, std::size_t cntorig, void** ptrs) {
  for (std::size_t i = 0; i < cnt; ++i) {
    std::uintptr_t out = 0, orig = 0;
    if (!remap_one(reinterpret_cast<std::uintptr_t>(ptrs[i]), &out, &orig))
      fail(
          "GOMP_task_reduction_remap: an in_reduction item is not in any enclosing "
          "task_reduction (taskgroup), reduction(task, ...) or taskloop reduction");
    ptrs[i] = reinterpret_cast<void*>(out);
    if (i < cntorig) ptrs[cnt + i] = reinterpret_cast<void*>(orig);
  }
}

}  // namespace joule::omp
