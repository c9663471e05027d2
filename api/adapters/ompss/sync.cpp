// Locks for critical, atomic and taskloop reductions, and the record of
// device clauses, for code translated by joulecc.
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "joule/ompss.h"

namespace {

struct Registry {
  std::mutex guard;
  std::map<std::string, std::unique_ptr<std::mutex>> named;
  std::map<std::string, uint64_t> devices;
};

// Never destroyed: tasks may still take a lock while the process exits.
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

std::mutex& lock_named(const char* name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.guard);
  auto& slot = r.named[name ? name : ""];
  if (!slot) slot = std::make_unique<std::mutex>();
  return *slot;
}

std::mutex g_atomic;
std::array<std::mutex, 64> g_address_locks;

std::mutex& address_lock(const void* addr) {
  auto v = reinterpret_cast<std::uintptr_t>(addr);
  return g_address_locks[(v >> 4) % g_address_locks.size()];
}

}  // namespace

extern "C" {

void joule_oss_critical_enter(void** handle, const char* name) {
  void* h = __atomic_load_n(handle, __ATOMIC_ACQUIRE);
  if (!h) {
    h = &lock_named(name);
    __atomic_store_n(handle, h, __ATOMIC_RELEASE);
  }
  static_cast<std::mutex*>(h)->lock();
}

void joule_oss_critical_exit(void** handle) {
  static_cast<std::mutex*>(__atomic_load_n(handle, __ATOMIC_ACQUIRE))->unlock();
}

void joule_oss_atomic_enter(void) { g_atomic.lock(); }
void joule_oss_atomic_exit(void) { g_atomic.unlock(); }

void joule_oss_lock_address(const void* addr) { address_lock(addr).lock(); }
void joule_oss_unlock_address(const void* addr) { address_lock(addr).unlock(); }

void joule_oss_record_device(const char* devices, int copy_deps, int n_copies) {
  (void)copy_deps;
  (void)n_copies;
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.guard);
  ++r.devices[devices ? devices : "smp"];
}

uint64_t joule_oss_device_records(const char* device) {
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.guard);
  auto it = r.devices.find(device ? device : "smp");
  return it == r.devices.end() ? 0 : it->second;
}

}  // extern "C"
