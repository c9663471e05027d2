// Host code addresses on a daemon's card worker. An attached card's worker
// is the host's binary re-executed, not a fork, so the host's task functions
// (and the joulecc argument tables) sit at other addresses there: address
// space layout randomisation loads every object at its own bias. The host
// records where it loaded each object (record_modules); the worker finds
// the same object by name in its own process and moves the address by the
// difference of the two biases. A forked card records nothing and
// relocates nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "card_protocol.hpp"

namespace joule::offload {

// Host side: the objects loaded now (dl_iterate_phdr), into t.
void record_modules(ModuleTable& t);

class Relocator {
 public:
  // Worker side: pairs the host's objects with this process's.
  explicit Relocator(const ModuleTable& host);
  // The worker's address of a host address inside one of the host's
  // objects; throws joule::error naming the object when the worker has not
  // loaded it (a library the host loaded with dlopen) or the address is in
  // none of them (code made at run time).
  const void* relocate(const void* host) const;
  bool empty() const noexcept { return modules_.empty(); }

 private:
  struct Pair {
    std::uint64_t lo, hi;  // host range
    std::int64_t shift;    // worker bias - host bias
    bool found;            // the worker has the object
    std::string name;
  };
  std::vector<Pair> modules_;
};

// The worker's relocator (set once by the card's dispatcher before any card
// task runs); relocate_host_code is the identity when none is set (forked).
void install_relocator(const Relocator* r) noexcept;
const void* relocate_host_code(const void* host);

}  // namespace joule::offload
