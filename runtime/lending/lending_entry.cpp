#include "lending_entry.hpp"

#include <sched.h>

#include <mutex>

#include "config.hpp"
#include "lending_settings.hpp"
#include "os_support.hpp"

namespace joule::lending {
namespace {

std::mutex g_mutex;
std::vector<std::shared_ptr<Session>> g_standalone;  // references held by start_standalone

}  // namespace

std::shared_ptr<Session> active_session() { return Session::current(); }

std::vector<int> affinity_cpus() {
  std::vector<int> out;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out.push_back(c);
  return out;
}

std::string configured_table_name() {
  try {
    const core::Config cfg = core::Config::load({});
    const std::string& shm = cfg.get<LendingSettings>().shm;
    return shm.empty() ? CpuTable::default_name() : shm;
  } catch (const std::exception&) {
    return CpuTable::default_name();
  }
}

StartResult start_standalone(const std::string& mode, const std::vector<int>& owned,
                             std::string& why, bool owns_none) {
  if (auto s = Session::current()) {  // the runtime (or an earlier start) joined already
    std::lock_guard guard(g_mutex);
    g_standalone.push_back(std::move(s));
    return StartResult::Ok;
  }
  core::Config cfg;
  try {
    cfg = core::Config::load({});
  } catch (const std::exception& e) {
    why = e.what();
    return StartResult::BadConfig;
  }
  if (mode.empty() && cfg.get<LendingSettings>().mode == LewiMode::off) {
    why = "joule: CPU lending is off (JOULE_LENDING=off)";
    return StartResult::Off;
  }
  LendingOptions o = options_from(cfg);
  if (!mode.empty()) o.mode = mode;
  std::vector<int> cpus = owned;
  if (cpus.empty() && !owns_none) cpus = cfg.cpus.empty() ? affinity_cpus() : cfg.cpus;
  try {
    auto s = Session::join(o, cpus);
    std::lock_guard guard(g_mutex);
    g_standalone.push_back(std::move(s));
    return StartResult::Ok;
  } catch (const std::exception& e) {
    why = e.what();
    return StartResult::TableFailed;
  }
}

bool stop_standalone() {
  std::shared_ptr<Session> s;
  {
    std::lock_guard guard(g_mutex);
    if (g_standalone.empty()) return false;
    s = std::move(g_standalone.back());
    g_standalone.pop_back();
  }
  if (s.use_count() == 1) s->loans().return_all();  // nobody else (the runtime) uses it
  return true;
}

int drom_set_mask(CpuTable& t, pid_t pid, const std::vector<int>& cpus, unsigned timeout_ms,
                  std::string& why) {
  if (auto s = Session::current(); s && &s->table() == &t)
    return s->drom().set_process_mask(pid, cpus, timeout_ms, why);  // handles our own pid
  const long seq = t.drom().request(pid, cpus, why);
  if (seq < 0) return int(seq);
  if (timeout_ms == 0 || t.drom().wait(pid, std::uint32_t(seq), timeout_ms)) return 0;
  why = "process " + std::to_string(pid) + " did not apply the new mask within " +
        std::to_string(timeout_ms) + " ms (masks are applied at task boundaries)";
  return 1;
}

}  // namespace joule::lending
