#include "domain_cache.hpp"

#include "dep_domain.hpp"

namespace joule::engine {

DomainCache::~DomainCache() { delete kept_.load(std::memory_order_relaxed); }

DepDomain* DomainCache::take(core::Task* owner) {
  if (DepDomain* d = kept_.exchange(nullptr, std::memory_order_acquire)) {
    d->adopt(owner);
    return d;
  }
  return new DepDomain(owner);
}

void DomainCache::give(DepDomain* d) noexcept {
  d->retire();
  delete kept_.exchange(d, std::memory_order_acq_rel);
}

}  // namespace joule::engine
