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
  std::snprintf(buf, sizeof buf, "+%#lx",
                static_cast<unsigned long>(addr - reinterpret_cast<std::uintptr_t>(info.dli_fbase)));
  // The loader names the executable as it was started (often relative):
  // the absolute name works from any directory.
  char* full = ::realpath(info.dli_fname, nullptr);
  s += full ? full : info.dli_fname;
  std::free(full);
  return s + buf;
}

std::string task_text(const Task* t) {
  if (t->has(task_flag::root)) return "the thread's own code (outside any task)";
  return task_id(t->id, t->label);
}

namespace {

std::string children_text(const Task* t) {
  const std::int64_t left = children_left(view_task(t));
  return left > 0 ? ", " + std::to_string(left) + " of its children unfinished" : "";
}

}  // namespace

std::string thread_state(const ThreadContext& ctx) {
  const Task* current = ctx.current.get();
  const bool in_task = current && current != ctx.root;
  const char* what = ctx.waiting_for.get();
  const Task* waiting = ctx.waiting_task.get();
  if (!what) return in_task ? "running " + task_text(current) : "between tasks";
  std::string s = std::string("waiting for ") + what;
  if (waiting) s += " (" + task_text(waiting) + children_text(waiting) + ")";
  // A waiting thread runs other tasks on the same stack meanwhile.
  if (in_task && current != waiting) s += "; meanwhile it runs " + task_text(current);
  return s;
}

void write_outer_waits(std::ostream& os, const ThreadContext& ctx, const char* indent) {
  const int depth = std::min(ctx.wait_depth.get(),
                             ThreadContext::kWaitDepth);
  for (int i = depth - 2; i >= 0; --i) {
    const char* what = ctx.waits[i].what.get();
    const Task* task = ctx.waits[i].task.get();
    if (!what) continue;
    os << indent << "further down its stack: " << (task ? task_text(task) : "its own code")
       << " waits for " << what << (task ? children_text(task) : "") << "\n";
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
  const int depth = std::min(ctx->wait_depth.get(),
                             ThreadContext::kWaitDepth);
  const Task* innermost = nullptr;
  for (int i = depth - 1; i >= 0; --i) {
    const char* what = ctx->waits[i].what.get();
    const Task* task = ctx->waits[i].task.get();
    if (!what || !task) continue;
    if (!innermost) innermost = task;
    w.running.emplace_back(task, who + " waits in it for " + what);
  }
  const Task* current = ctx->current.get();
  if (current && current != ctx->root && current != innermost)
    w.running.emplace_back(current, "running on " + who);
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
  for (const Blocking::Blocked& b : rt.blocking().blocked_now())
    w.blocked.emplace_back(
        b.id, "blocked for " + seconds(now - b.since_ns) +
                  " (nanos6_block_current_task / alpi_task_block): waits for its unblock" +
                  (b.worker >= 0 ? ", its thread asleep, a spare on worker " +
                                       std::to_string(b.worker) + "'s CPU"
                                 : std::string()));
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
