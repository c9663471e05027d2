#include "papi.hpp"

#include <pthread.h>

#include <cctype>
#include <charconv>
#include <mutex>

#include "meter.hpp"

#if JOULE_HAVE_PAPI
#include <papi.h>
#endif

namespace joule::platform {

#if JOULE_HAVE_PAPI
namespace {

unsigned long thread_id() { return static_cast<unsigned long>(pthread_self()); }

std::once_flag g_once;
std::string g_init_error;
bool g_init_ok = false;

// Chip number at the end of a name such as ...PACKAGE1 or ...ZONE0.
int trailing_number(const std::string& s, const char* after) {
  const auto p = s.rfind(after);
  if (p == std::string::npos) return -1;
  int v = -1;
  const char* b = s.data() + p + std::char_traits<char>::length(after);
  std::from_chars(b, s.data() + s.size(), v);
  return v;
}

double scale_of(const std::string& units, const std::string& name) {
  if (units == "nJ") return 1e-9;
  if (units == "uJ") return 1e-6;
  if (units == "mJ") return 1e-3;
  if (units == "J") return 1.0;
  if (name.find("ENERGY_UJ") != std::string::npos) return 1e-6;
  return 0.0;  // unknown units: not used
}

class PapiMeter final : public EnergyMeter {
 public:
  const char* name() const override { return "papi"; }

  bool discover(std::string* why) {
    for (const char* comp : {"rapl", "powercap"}) {
      const int cidx = PAPI_get_component_index(comp);
      if (cidx < 0) continue;
      int code = PAPI_NATIVE_MASK;
      if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx) != PAPI_OK) continue;
      do add_event(code);
      while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) == PAPI_OK);
    }
    if (names_.empty()) {
      if (why) *why = "PAPI has no rapl or powercap energy events (only perf_event counters)";
      return false;
    }
    set_ = PAPI_NULL;
    if (PAPI_create_eventset(&set_) != PAPI_OK) return false;
    std::size_t kept = 0;  // keep, in place, the events the set accepts
    for (std::size_t i = 0; i < names_.size(); ++i) {
      if (PAPI_add_named_event(set_, names_[i].c_str()) != PAPI_OK) continue;
      names_[kept] = names_[i];
      scale_[kept] = scale_[i];
      domains_[kept] = domains_[i];
      ++kept;
    }
    names_.resize(kept);
    scale_.resize(kept);
    domains_.resize(kept);
    last_.assign(names_.size(), 0);
    if (names_.empty() || PAPI_start(set_) != PAPI_OK) {
      if (why) *why = "PAPI energy events could not be started";
      return false;
    }
    owner_ = thread_id();
    return true;
  }

  void start() override {
    std::lock_guard guard(mu_);
    read_now(last_);
    for (auto& d : domains_) d.joules = 0;
  }

  void sample() override {
    std::lock_guard guard(mu_);
    if (thread_id() != owner_) return;  // PAPI event sets belong to a thread
    std::vector<long long> v(names_.size());
    if (!read_now(v)) return;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (v[i] >= last_[i]) domains_[i].joules += double(v[i] - last_[i]) * scale_[i];
      last_[i] = v[i];
    }
  }

 private:
  void add_event(int code) {
    char name[PAPI_MAX_STR_LEN];
    PAPI_event_info_t info;
    if (PAPI_event_code_to_name(code, name) != PAPI_OK ||
        PAPI_get_event_info(code, &info) != PAPI_OK)
      return;
    const std::string n = name;
    const bool energy =
        (n.find("ENERGY") != std::string::npos && n.find("_CNT") == std::string::npos &&
         n.find("MAX_") == std::string::npos);
    const double s = scale_of(info.units, n);
    if (!energy || s == 0.0) return;
    std::string kind = "package";
    if (n.find("DRAM") != std::string::npos)
      kind = "dram";
    else if (n.find("PP0") != std::string::npos)
      kind = "core";
    else if (n.find("PP1") != std::string::npos)
      kind = "uncore";
    else if (n.find("SUBZONE") != std::string::npos)
      kind = "other";
    int chip = trailing_number(n, "PACKAGE");
    if (chip < 0 && n.find("SUBZONE") == std::string::npos) chip = trailing_number(n, "ZONE");
    names_.push_back(n);
    scale_.push_back(s);
    domains_.push_back({n, kind, chip, 0.0});
  }

  bool read_now(std::vector<long long>& v) {
    return set_ >= 0 && PAPI_read(set_, v.data()) == PAPI_OK;
  }

  int set_ = -1;
  unsigned long owner_ = 0;
  std::vector<std::string> names_;
  std::vector<double> scale_;
  std::vector<long long> last_;
};

}  // namespace

bool papi_init(std::string* why) {
  std::call_once(g_once, [] {
    const int v = PAPI_library_init(PAPI_VER_CURRENT);
    if (v != PAPI_VER_CURRENT) {
      g_init_error = v > 0 ? "PAPI library version mismatch"
                           : std::string("PAPI_library_init: ") + PAPI_strerror(v);
      return;
    }
    const int t = PAPI_thread_init(thread_id);
    if (t != PAPI_OK) {
      g_init_error = std::string("PAPI_thread_init: ") + PAPI_strerror(t);
      return;
    }
    g_init_ok = true;
  });
  if (!g_init_ok && why) *why = g_init_error;
  return g_init_ok;
}

bool PapiEventSet::open(const std::vector<std::string>& events, std::vector<std::string>* skipped,
                        std::string* why) {
  close();
  if (!papi_init(why)) return false;
  registered_ = PAPI_register_thread() == PAPI_OK;
  int set = PAPI_NULL;
  if (PAPI_create_eventset(&set) != PAPI_OK) {
    if (why) *why = "PAPI_create_eventset failed";
    return false;
  }
  for (const auto& e : events) {
    if (PAPI_add_named_event(set, e.c_str()) == PAPI_OK)
      names_.push_back(e);
    else if (skipped)
      skipped->push_back(e);
  }
  if (names_.empty() || PAPI_start(set) != PAPI_OK) {
    if (why)
      *why = names_.empty() ? "none of the requested PAPI events exists here" : "PAPI_start failed";
    PAPI_cleanup_eventset(set);
    PAPI_destroy_eventset(&set);
    names_.clear();
    return false;
  }
  set_ = set;
  return true;
}

bool PapiEventSet::read(long long* values) noexcept {
  return set_ >= 0 && PAPI_read(set_, values) == PAPI_OK;
}

void PapiEventSet::close() noexcept {
  if (set_ >= 0) {
    std::vector<long long> sink(names_.size() + 1);
    PAPI_stop(set_, sink.data());
    PAPI_cleanup_eventset(set_);
    PAPI_destroy_eventset(&set_);
    set_ = -1;
  }
  names_.clear();
  if (registered_) PAPI_unregister_thread();
  registered_ = false;
}

std::unique_ptr<EnergyMeter> make_papi_meter(std::string* why) {
  if (!papi_init(why)) return nullptr;
  auto m = std::make_unique<PapiMeter>();
  if (!m->discover(why)) return nullptr;
  return m;
}

#else  // !JOULE_HAVE_PAPI

bool papi_init(std::string* why) {
  if (why) *why = "joule was built without PAPI";
  return false;
}
bool PapiEventSet::open(const std::vector<std::string>&, std::vector<std::string>*,
                        std::string* why) {
  return papi_init(why);
}
bool PapiEventSet::read(long long*) noexcept { return false; }
void PapiEventSet::close() noexcept {}
std::unique_ptr<EnergyMeter> make_papi_meter(std::string* why) {
  papi_init(why);
  return nullptr;
}

#endif

}  // namespace joule::platform
