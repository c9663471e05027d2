// The NUMA placement room (numa_placement.hpp): memory a program places
// (joule_alloc: on a node, interleaved, or first touched by the worker of
// an affinity key), and tasks queued on the node of their data. Keyed
// first touch runs as tasks only the key's worker may take (the scheduler's
// pinned list), so the page faults happen on that worker's CPU; the Linux
// first-touch policy then puts the pages on its node (Documentation/
// admin-guide/mm/numa_memory_policy.rst, "default policy").
#include <iomanip>
#include <limits>
#include <new>
#include <string>

#include "runtime.hpp"
#include "task_pool.hpp"

namespace joule::engine {

using namespace joule::core;
namespace {

[[noreturn]] void invalid(const std::string& msg) { throw joule::error(JOULE_ERR_INVALID, msg); }

// One chunk to touch, and who waits for it.
struct TouchArgs {
  char* begin;
  std::size_t bytes;
  std::uint64_t key;
  void (*init)(void*, std::size_t, std::uint64_t, void*);
  void* init_arg;
  std::atomic<std::size_t>* left;
  WaitSlot* waiter;  // the placing thread, woken by the last chunk
};

// The chunk's pages are made here (a user's init, or one zero per page),
// and its record says on which node.
void touch(const TouchArgs& a) {
  if (a.init) {
    a.init(a.begin, a.bytes, a.key, a.init_arg);
  } else {
    const std::size_t page = NumaMemory::page_size();
    volatile char* c = a.begin;
    for (std::size_t off = 0; off < a.bytes; off += page) c[off] = 0;
  }
  const Worker* w = thread_context().worker;
  NumaMemory::instance().set_touched(a.begin, w ? w->node() : -1);
  // seq_cst: pairs with the waiter's registration as a sleeper (Idle).
  if (a.left->fetch_sub(1, std::memory_order_seq_cst) == 1) Runtime::get().idle().wake(a.waiter);
}

void touch_task(void* args) { touch(*static_cast<TouchArgs*>(args)); }

}  // namespace

int NumaPlacement::worker_of_key(std::uint64_t key) const noexcept {
  const AffinityMap& affinity = rt_.affinity();
  const int owned = rt_.workers().owned();
  const int w = affinity.worker_of(key);
  if (w >= 0 && w < owned) return w;
  return affinity.spread(key, owned);
}

void* NumaPlacement::place(std::size_t bytes, const PlaceRequest& req) {
  if (bytes == 0) invalid("joule_alloc: bytes is 0");
  // Rounding a larger size up to whole pages would wrap size_t.
  if (bytes > std::size_t(std::numeric_limits<std::ptrdiff_t>::max()))
    invalid("joule_alloc: " + std::to_string(bytes) + " bytes is larger than any object can be");
  // From the first placement on, thieves wait before crossing nodes: tasks
  // may now be queued on their data's node. A program that places nothing
  // keeps the plain nearest-first stealing.
  if (nodes_.active())
    rt_.scheduler().set_remote_delay(std::uint64_t(rt_.settings().numa_steal_delay_us) * 1000);
  NumaMemory& mem = NumaMemory::instance();
  const int nodes = nodes_.nodes();
  switch (req.kind) {
    case PlaceRequest::local:
      return mem.allocate_unplaced(bytes, MemoryUse::api);
    case PlaceRequest::interleaved:
      return mem.allocate_interleaved(bytes, nodes, MemoryUse::api);
    case PlaceRequest::on_node:
      if (req.node < 0 || req.node >= nodes)
        invalid("joule_alloc: node " + std::to_string(req.node) +
                " does not exist; valid nodes: 0.." + std::to_string(nodes - 1) + " (" +
                std::to_string(nodes) + " NUMA node(s))");
      return mem.allocate_on(bytes, req.node, MemoryUse::api);
    case PlaceRequest::by_key: {
      const std::size_t chunk = req.chunk_bytes ? std::min(req.chunk_bytes, bytes) : bytes;
      if (bytes / chunk + (bytes % chunk != 0) > (std::size_t(1) << 20))
        invalid("joule_alloc: chunk_bytes " + std::to_string(chunk) + " cuts " +
                std::to_string(bytes) + " bytes into more than 1048576 chunks");
      auto* p = static_cast<char*>(mem.allocate_chunks(bytes, chunk, MemoryUse::api));
      try {
        touch_chunks(p, bytes, req);
      } catch (...) {
        mem.release(p);
        throw;
      }
      return p;
    }
  }
  invalid("joule_alloc: placement kind " + std::to_string(int(req.kind)) +
          " is not one of local, interleaved, node, by_key");
}

// Chunk i goes to the worker of key + i. The whole key range is shown to
// AffinityMap::spread first, so keyed tasks over the same keys later meet
// the same workers (spread cuts the keys seen so far into runs).
void NumaPlacement::touch_chunks(char* p, std::size_t bytes, const PlaceRequest& req) {
  ThreadContext& ctx = rt_.context();
  TaskLifecycle& tasks = rt_.tasks();
  const std::size_t chunk = req.chunk_bytes ? std::min(req.chunk_bytes, bytes) : bytes;
  const std::size_t chunks = (bytes + chunk - 1) / chunk;
  worker_of_key(req.key);
  worker_of_key(req.key + chunks - 1);
  const int me = ctx.worker ? ctx.worker->index() : -1;
  std::atomic<std::size_t> left{chunks};
  for (std::size_t i = 0; i < chunks; ++i) {
    const std::size_t off = i * chunk;
    const TouchArgs args{
        p + off, std::min(chunk, bytes - off), req.key + i, req.init, req.init_arg, &left,
        ctx.slot};
    int w = worker_of_key(args.key);
    // Worker 0 is the thread that started the runtime: it runs tasks only
    // while it waits, so another worker of its node stands in for it.
    if (w == 0 && me != 0) {
      const auto& same = nodes_.workers_on(nodes_.node_of(0));
      w = same.size() > 1 ? same[1] : me;
    }
    if (tasks.serial_inline() || !rt_.scheduler().sharded() || w == me || w < 0 ||
        rt_.workers().worker(w)->parked()) {
      touch(args);  // here: no other thread could take it, or this is the one
      continue;
    }
    task_options opts;
    opts.label = "joule_alloc first touch";
    Task* t = tasks.create(touch_task, sizeof(TouchArgs), alignof(TouchArgs), opts);
    ::new (t->args) TouchArgs(args);
    tasks.submit_pinned(t, w, ctx);
  }
  WaitNote note(ctx, "the first touch of placed memory (joule_alloc)", nullptr);
  rt_.waits().help_until(
      ctx, [&] { return left.load(std::memory_order_acquire) == 0; }, nullptr);
}

// -2: looked, no placed data (later dependencies are not looked up).
void NumaPlacement::prefer_data_node(Task* t, const void* addr) noexcept {
  const NumaMemory& mem = NumaMemory::instance();
  int home = -2;
  if (t->affinity == JOULE_NO_AFFINITY && mem.any_api_data()) {
    const int node = mem.api_node_of(addr);
    const int w = node >= 0 ? nodes_.worker_for(node, reinterpret_cast<std::uintptr_t>(addr)) : -1;
    if (w >= 0) {
      home = w;
      nodes_.count_placed(node);
    }
  }
  t->data_home.store(std::int16_t(home), std::memory_order_relaxed);
}

// Soft: a task whose data is on this thread's node stays here (thieves of
// the node look here first); one whose data is on another node goes to
// that node's worker, and a sleeper near it is woken.
bool NumaPlacement::routed_to_node(Task* t, ThreadContext& ctx) {
  const int home = t->data_home.load(std::memory_order_relaxed);
  if (home < 0 || nodes_.node_of(home) == nodes_.node_of(ctx.worker ? ctx.worker->index() : -1))
    return false;
  rt_.scheduler().push_for(t, home);
  Idle& idle = rt_.idle();
  WaitSlot* slot = &idle.worker_slot(home);
  if (slot->sleeping.load(std::memory_order_seq_cst))
    idle.wake(slot);
  else
    idle.wake_one(home);
  return true;
}

// Per node: its workers, the tasks they ran, the tasks queued there for
// their data, and the memory on it (the node meant, on a synthetic
// topology). Program data interleaved counts an equal share on each node.
void NumaPlacement::report(std::ostream& os) const {
  const NumaMemory& mem = NumaMemory::instance();
  const auto mib = [](std::uint64_t b) { return double(b) / double(1 << 20); };
  os << "numa: " << nodes_.nodes() << " node(s)"
     << (rt_.topology().synthetic() ? " (synthetic)" : "") << ", data-node preference "
     << (nodes_.active() ? "on" : "off") << "\n";
  os << std::fixed << std::setprecision(2);
  for (int node = 0; node < nodes_.nodes(); ++node) {
    std::uint64_t ran = 0;
    for (int w : nodes_.workers_on(node)) ran += rt_.workers().worker(w)->completed();
    os << "  node " << node << ": workers " << nodes_.workers_on(node).size() << ", tasks run "
       << ran << ", queued for their data " << nodes_.placed(node) << ", program data "
       << mib(mem.bytes_on(node, MemoryUse::api)) << " MiB, worker state "
       << mib(mem.bytes_on(node, MemoryUse::worker_state)) << " MiB\n";
  }
  os.unsetf(std::ios::fixed);
  os << std::setprecision(6);
}

}  // namespace joule::engine
