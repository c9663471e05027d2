// The state dump's shared wording (state_dump.cpp, state_dump_deps.cpp):
// how a task, a time and a place in the code are named.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "blocking.hpp"
#include "dep_domain_view.hpp"
#include "thread_context.hpp"

namespace joule::engine {

class Runtime;

namespace dump_text {

std::string seconds(std::uint64_t ns);
// ", tid 12345" (gettid): the thread in gdb ("LWP"), `top -H` and perf;
// "" while not known.
std::string tid_text(int tid);
// "350 us", "2.5 ms", "1.2 s": for times that may be short (ALPI timeouts).
std::string duration(std::uint64_t ns);
// "task 2.17 \"label\"": the 17th task created by thread slot 2 (task ids
// are the creating thread's slot << 40 | a sequence).
std::string task_id(std::uint64_t id, const char* label);
// Where the task's code is: its function's symbol when the dynamic symbol
// table has one, and always its module and offset, which
// `addr2line -f -C -i -e MODULE OFFSET` turns into file:line.
std::string code_of(joule_task_fn_t fn);
// A blocked or suspended task's id, label and parent ("a child of task
// 1.3 \"label\"": the taskwait that waits for it names that task).
std::string listed_task(const Blocking::Blocked& b);
// What a suspended task waits for before its body runs again.
std::string suspended_text(const Blocking::Suspended& s, std::uint64_t now);
// Blocked and suspended tasks listed each, at most this many.
inline constexpr std::size_t kListed = 32;

// A thread's waits and running task, copied from what it publishes
// (ThreadContext). The tasks its waits name are read while no wait can
// end (g_dump_readers); the running task is named only by id and label,
// read without such a guard (see read_running).
struct ThreadView {
  struct Wait {
    const char* what = nullptr;
    const Task* task = nullptr;  // identity only
    bool root = false;           // the thread's own code
    DepTaskView view;
  };
  std::vector<Wait> waits;        // outermost first
  const Task* current = nullptr;  // identity only; null outside tasks
  std::uint64_t current_id = 0;
  const char* current_label = nullptr;
  int tid = 0;  // gettid; 0: not known yet
};
ThreadView view_thread(const ThreadContext& ctx);

// What the thread does now (its innermost wait, or the task it runs).
std::string thread_state(const ThreadView& t);
// The waits further down its stack, outermost last, one line each.
void write_outer_waits(std::ostream& os, const ThreadView& t, const char* indent);

// Where the threads are, gathered once per dump: the task each worker and
// spare runs or waits in, and the blocked and suspended tasks by id.
struct Whereabouts {
  std::vector<std::pair<const Task*, std::string>> running;
  std::vector<std::pair<std::uint64_t, std::string>> blocked;  // and suspended
  const std::string* of(const DepTaskView& v) const;
};
Whereabouts gather(Runtime& rt);

// Children of the task not finished yet, read from Task::pending.
inline constexpr std::int64_t kRunningFloor = kBodyBias - (std::int64_t(1) << 60);
inline constexpr std::int64_t kWaitingFloor = kWaitBase - (std::int64_t(1) << 59);
std::int64_t children_left(const DepTaskView& v);

// What a task is doing or waiting for, from its counters and whereabouts.
std::string state_of(const DepTaskView& v, const Whereabouts& w);

}  // namespace dump_text

// The dump's sections past the workers (state_dump_deps.cpp).
void write_dependencies(std::ostream& os, const dump_text::Whereabouts& w);
void write_spares(std::ostream& os, Runtime& rt);
void write_polling(std::ostream& os, Runtime& rt);

}  // namespace joule::engine
