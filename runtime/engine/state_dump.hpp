// The state dump: what each worker and each blocked task of a live process
// is doing, as text, for someone whose program hangs (`joule-ctl dump PID`,
// or JOULE_WATCHDOG when no task completes for a while). It reads what the
// threads publish for it (ThreadContext's Published fields, the workers'
// counters, Idle's slots, the queues' sizes, Blocking's list) from another
// thread and takes no lock a worker could hold. A task it names may finish
// meanwhile: a dump is exact where nothing moves, which is the case it is
// for. docs/user-guide.md, "When a program hangs", shows one.
#pragma once

#include <string>

namespace joule::engine {

class Runtime;

// sample_ms: how long to watch the completion counters (0: not at all), to
// say which workers make progress.
std::string state_dump(Runtime& rt, int sample_ms);

}  // namespace joule::engine
