#include "code_relocation.hpp"

#include <link.h>

#include <atomic>
#include <cstdio>
#include <cstring>

#include "joule/types.hpp"

namespace joule::offload {
namespace {

struct Loaded {
  std::string name;
  std::uint64_t base, lo, hi;
};

int collect(dl_phdr_info* info, std::size_t, void* out) {
  std::uint64_t lo = UINT64_MAX, hi = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    lo = std::min<std::uint64_t>(lo, ph.p_vaddr);
    hi = std::max<std::uint64_t>(hi, ph.p_vaddr + ph.p_memsz);
  }
  if (hi == 0) return 0;
  const std::uint64_t base = info->dlpi_addr;
  static_cast<std::vector<Loaded>*>(out)->push_back(
      {info->dlpi_name ? info->dlpi_name : "", base, base + lo, base + hi});
  return 0;
}

std::vector<Loaded> loaded_now() {
  std::vector<Loaded> v;
  dl_iterate_phdr(collect, &v);
  return v;
}

std::string hex(std::uint64_t a) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%#llx", static_cast<unsigned long long>(a));
  return buf;
}

std::atomic<const Relocator*> g_relocator{nullptr};

}  // namespace

void record_modules(ModuleTable& t) {
  t.count = 0;
  for (const Loaded& l : loaded_now()) {
    if (t.count == ModuleTable::kMax) break;  // the rest cannot hold task code the card runs
    WireModule& m = t.module[t.count++];
    m.base = l.base;
    m.lo = l.lo;
    m.hi = l.hi;
    std::snprintf(m.name, sizeof m.name, "%s", l.name.c_str());
  }
}

Relocator::Relocator(const ModuleTable& host) {
  const std::vector<Loaded> mine = loaded_now();
  for (std::uint32_t i = 0; i < host.count && i < ModuleTable::kMax; ++i) {
    const WireModule& h = host.module[i];
    Pair p{h.lo, h.hi, 0, false, h.name};
    for (const Loaded& l : mine)
      if (l.name == h.name) {
        p.shift = std::int64_t(l.base - h.base);
        p.found = true;
        break;
      }
    modules_.push_back(std::move(p));
  }
}

const void* Relocator::relocate(const void* host) const {
  const auto a = reinterpret_cast<std::uint64_t>(host);
  for (const Pair& p : modules_) {
    if (a < p.lo || a >= p.hi) continue;
    if (!p.found)
      throw joule::error(JOULE_ERR_INVALID,
                         "joule card: the host's code at " + hex(a) + " is in '" + p.name +
                             "', which the card worker has not loaded (link it into the program "
                             "instead of loading it with dlopen)");
    return reinterpret_cast<const void*>(a + std::uint64_t(p.shift));
  }
  throw joule::error(JOULE_ERR_INVALID, "joule card: the host's code at " + hex(a) +
                                            " is in none of the host's loaded objects");
}

void install_relocator(const Relocator* r) noexcept { g_relocator.store(r); }

const void* relocate_host_code(const void* host) {
  const Relocator* r = g_relocator.load();
  return r ? r->relocate(host) : host;
}

}  // namespace joule::offload
