// The state dump's wording of tasks, times and code (state_dump_text.hpp).
#include "state_dump_text.hpp"

#include <cxxabi.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "clock.hpp"
#include "runtime.hpp"

namespace joule::engine::dump_text {

std::string seconds(std::uint64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", double(ns) * 1e-9);
  return buf;
}

std::string tid_text(int tid) { return tid > 0 ? ", tid " + std::to_string(tid) : std::string(); }

std::string duration(std::uint64_t ns) {
  char buf[32];
  if (ns < 1'000'000)
    std::snprintf(buf, sizeof buf, "%lu us", static_cast<unsigned long>(ns / 1000));
  else if (ns < 1'000'000'000)
    std::snprintf(buf, sizeof buf, "%.1f ms", double(ns) * 1e-6);
  else
    return seconds(ns);
  return buf;
}

std::string task_id(std::uint64_t id, const char* label) {
  std::string s = "task " + std::to_string(id >> 40) + "." +
                  std::to_string(id & ((std::uint64_t(1) << 40) - 1));
  if (label) s += std::string(" \"") + label + "\"";
  return s;
}

std::string code_of(joule_task_fn_t fn) {
  if (!fn) return "";
  const auto addr = reinterpret_cast<std::uintptr_t>(fn);
  Dl_info info{};
  if (!::dladdr(reinterpret_cast<void*>(addr), &info) || !info.dli_fname) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "code at %#lx", static_cast<unsigned long>(addr));
    return buf;
  }
  std::string s = "code ";
  if (info.dli_sname) {
    int status = -1;
    char* plain = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
    s += std::string(status == 0 && plain ? plain : info.dli_sname) + ", ";
    std::free(plain);
  }
  // The offset in the module's file: what addr2line reads for a PIE or a
  // shared library (the executable's base is 0 when it is not a PIE).
  char buf[40];
  std::snprintf(
      buf, sizeof buf, "+%#lx",
      static_cast<unsigned long>(addr - reinterpret_cast<std::uintptr_t>(info.dli_fbase)));
  // The loader names the executable as it was started (often relative):
  // the absolute name works from any directory.
  char* full = ::realpath(info.dli_fname, nullptr);
  s += full ? full : info.dli_fname;
  std::free(full);
  return s + buf;
}

std::string listed_task(const Blocking::Blocked& b) {
  std::string s = task_id(b.id, b.label);
  if (b.parent_id) s += " (a child of " + task_id(b.parent_id, b.parent_label) + ")";
  return s;
}

std::string suspended_text(const Blocking::Suspended& s, std::uint64_t now) {
  std::string text =
      "suspended for " + duration(now - std::min(now, s.task.since_ns)) + " (alpi_task_suspend): ";
  if (s.due_ns == 0) {
    if (s.events <= 0) return text + "its events are 0: it runs again at the next polling round";
    return text + "runs again once its " + std::to_string(s.events) +
           " outstanding event(s) are decreased (ALPI_SUSPEND_EVENT_SUBMIT, "
           "alpi_task_events_decrease)";
  }
  if (s.due_ns > now)
    return text + "runs again in " + duration(s.due_ns - now) + " (ALPI_SUSPEND_TIMEOUT_SUBMIT)";
  // Put back by a polling round (Blocking::poll_suspended): a late one
  // means the polling services do not run (see their last round).
  return text + "its time came " + duration(now - s.due_ns) +
         " ago (ALPI_SUSPEND_TIMEOUT_SUBMIT): it runs again at the next polling round";
}

namespace {

// The running task's id and label, read while the dump readers' count is
// up. Not pinned: it may finish, and its pool block be reused, between the
// load of ctx.current and these reads; the text may then name the task
// created next in that block. Pool blocks stay mapped while the runtime
// runs, and a task from malloc is freed only once no dump reads
// (TaskPool::destroy_task), so the read itself is safe; the reuse is left
// out of TSan's view (docs/hang-dump.md, "How consistent it is").
[[gnu::no_sanitize_thread]] void read_running(const Task* t, ThreadView& v) {
  v.current_id = t->id;
  v.current_label = t->label;
}

std::string wait_task_text(const ThreadView::Wait& w) {
  if (!w.task) return "its own code";
  if (w.root) return "the thread's own code (outside any task)";
  return task_id(w.view.id, w.view.label);
}

std::string children_text(const ThreadView::Wait& w) {
  const std::int64_t left = w.task ? children_left(w.view) : 0;
  return left > 0 ? ", " + std::to_string(left) + " of its children unfinished" : "";
}

}  // namespace

ThreadView view_thread(const ThreadContext& ctx) {
  ThreadView v;
  g_dump_readers.fetch_add(1, std::memory_order_seq_cst);
  const int depth = std::min(ctx.wait_depth.get(), ThreadContext::kWaitDepth);
  for (int i = 0; i < depth; ++i) {
    ThreadView::Wait w;
    w.what = ctx.waits[i].what.get();
    w.task = ctx.waits[i].task.get();
    if (w.task) {
      w.root = w.task->has(task_flag::root);
      w.view = view_task(w.task);
    }
    if (w.what) v.waits.push_back(w);
  }
  const Task* current = ctx.current.get();
  if (current && current != ctx.root) {
    v.current = current;
    read_running(current, v);
  }
  g_dump_readers.fetch_sub(1, std::memory_order_release);
  v.tid = ctx.tid.get();
  return v;
}

std::string thread_state(const ThreadView& t) {
  const std::string running = t.current ? task_id(t.current_id, t.current_label) : std::string();
  if (t.waits.empty()) return t.current ? "running " + running : "between tasks";
  const ThreadView::Wait& w = t.waits.back();
  std::string s = std::string("waiting for ") + w.what;
  if (w.task) s += " (" + wait_task_text(w) + children_text(w) + ")";
  // A waiting thread runs other tasks on the same stack meanwhile.
  if (t.current && t.current != w.task) s += "; meanwhile it runs " + running;
  return s;
}

void write_outer_waits(std::ostream& os, const ThreadView& t, const char* indent) {
  for (std::size_t i = t.waits.size(); i-- > 1;) {
    const ThreadView::Wait& w = t.waits[i - 1];
    os << indent << "further down its stack: " << wait_task_text(w) << " waits for " << w.what
       << children_text(w) << "\n";
  }
}

const std::string* Whereabouts::of(const DepTaskView& v) const {
  for (const auto& [id, text] : blocked)
    if (id == v.id) return &text;
  for (const auto& [task, text] : running)
    if (task == v.task) return &text;
  return nullptr;
}

namespace {

void note_thread(Whereabouts& w, const ThreadContext* ctx, const std::string& who) {
  if (!ctx) return;
  const ThreadView t = view_thread(*ctx);
  for (std::size_t i = t.waits.size(); i-- > 0;)
    if (t.waits[i].task)
      w.running.emplace_back(t.waits[i].task, who + " waits in it for " + t.waits[i].what);
  if (t.current && (t.waits.empty() || t.waits.back().task != t.current))
    w.running.emplace_back(t.current, "running on " + who);
}

}  // namespace

Whereabouts gather(Runtime& rt) {
  Whereabouts w;
  Workforce& workers = rt.workers();
  for (int i = 0; i < workers.count(); ++i)
    note_thread(w, workers.worker(i)->context(), "worker " + std::to_string(i) + "'s thread");
  std::vector<Spares::SpareView> spares;
  if (workers.spares().view(spares))
    for (std::size_t k = 0; k < spares.size(); ++k)
      note_thread(w, spares[k].ctx, "spare thread " + std::to_string(k));
  const std::uint64_t now = now_ns();
  std::vector<Blocking::Blocked> blocked;
  rt.blocking().blocked_now(blocked);
  for (const Blocking::Blocked& b : blocked)
    w.blocked.emplace_back(
        b.id, "blocked for " + seconds(now - std::min(now, b.since_ns)) +
                  " (nanos6_block_current_task / alpi_task_block): waits for its unblock" +
                  (b.worker >= 0 ? ", its thread asleep, a spare on worker " +
                                       std::to_string(b.worker) + "'s CPU"
                                 : std::string()));
  std::vector<Blocking::Suspended> suspended;
  rt.blocking().suspended_now(suspended);
  for (const Blocking::Suspended& s : suspended)
    w.blocked.emplace_back(s.task.id, suspended_text(s, now));
  return w;
}

std::int64_t children_left(const DepTaskView& v) {
  // Task::pending's three ranges (task.hpp): near kBodyBias while the body
  // runs, near kWaitBase while it sleeps in a taskwait, small once returned.
  if (v.pending > kRunningFloor) return v.spawned + v.pending - kBodyBias;
  if (v.pending >= kWaitingFloor) return v.pending - kWaitBase;
  return v.pending - v.events;
}

std::string state_of(const DepTaskView& v, const Whereabouts& w) {
  if (v.finished) return "finished";
  if (v.preds >= kPredBias / 2) return "being created (not submitted yet)";
  if (v.preds > 0)
    return "not ready: waits for " + std::to_string(v.preds) + " earlier task(s) to finish";
  const std::string* where = w.of(v);
  const std::int64_t left = children_left(v);
  std::string s;
  if (v.pending >= kWaitingFloor) {
    s = where ? *where : std::string("ready (queued; or run by a thread that is not a worker)");
    if (left > 0) s += "; " + std::to_string(left) + " of its children unfinished";
  } else {
    s = "its body returned; it completes after " + std::to_string(left > 0 ? left : 0) +
        " unfinished children and " + std::to_string(v.events) + " external event(s)";
  }
  if (v.blocking == 1 && !where) s += "; blocked";
  return s;
}

}  // namespace joule::engine::dump_text
