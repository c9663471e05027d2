// One dependency domain per worker, kept from the last task whose children
// it ordered there for the next one. A code whose tasks each order their
// children over the same data (an OpenMP parallel region per time step, an
// OmpSs task per iteration) then finds the earlier fragments on the
// exact-address path instead of building them again (dep_domain.hpp,
// retire() and adopt(): what is kept and when it is dropped).
//
// The worker's thread takes and gives, but a spare thread may stand in on
// the worker's CPU (spare_threads.hpp): the slot is an atomic exchange.
#pragma once

#include <atomic>

#include "task.hpp"

namespace joule::engine {

class DepDomain;

class DomainCache {
 public:
  DomainCache() = default;
  DomainCache(const DomainCache&) = delete;
  DomainCache& operator=(const DomainCache&) = delete;
  ~DomainCache();

  // The kept domain, adopted by owner; null when none is kept.
  DepDomain* take(core::Task* owner) noexcept;
  // Retires d (its owner finished) and keeps it in place of the one kept.
  void give(DepDomain* d) noexcept;

 private:
  std::atomic<DepDomain*> kept_{nullptr};
};

}  // namespace joule::engine
