#include "domain_cache.hpp"

#include "dep_domain.hpp"

namespace joule::engine {

DomainCache::~DomainCache() { delete kept_.load(std::memory_order_relaxed); }

DepDomain* DomainCache::take(core::Task* owner) noexcept {
  DepDomain* d = kept_.exchange(nullptr, std::memory_order_acquire);
  if (d) d->adopt(owner);
  return d;
}

void DomainCache::give(DepDomain* d) noexcept {
  d->retire();
  delete kept_.exchange(d, std::memory_order_acq_rel);
}

}  // namespace joule::engine
