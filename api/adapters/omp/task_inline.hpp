// run_inline's two halves (task_inline.cpp), inline: the LLVM ABI's tasks
// run at once call them around a body the compiled code supplies
// (kmpc_task.cpp, and the if(0) tasks), and a call each is a visible part
// of the cost per task (docs/openmp-llvm-abi.md, "Cost per task").
#pragma once

#include "task.hpp"
#include "team.hpp"

namespace joule::omp {

inline InlineSaved inline_enter(bool final_task, const void* tag) {
  ThreadState& s = self();
  const InlineSaved saved{s.in_task, s.in_final, s.inline_task, s.frame, s.task_tag};
  s.in_task = true;
  s.in_final = saved.in_final || final_task;
  s.inline_task = true;
  s.frame = nullptr;
  s.task_tag = tag;
  return saved;
}

inline void inline_leave(const InlineSaved& saved) {
  ThreadState& s = self();
  InlineFrame* f = s.frame;  // made by a deferred child: they hold it now
  s.in_task = saved.in_task;
  s.in_final = saved.in_final;
  s.inline_task = saved.inline_task;
  s.frame = saved.frame;
  s.task_tag = saved.tag;
  if (f) frame_release(f);
}

}  // namespace joule::omp
