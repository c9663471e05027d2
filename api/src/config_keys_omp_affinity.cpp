// The OpenMP affinity keys: the binding policy per nesting level, the places
// (OpenMP's OMP_PLACES and GCC's GOMP_CPU_AFFINITY) and the affinity display.
// What they do to joule's workers is omp_bind_plan.cpp's; docs/openmp.md.
#include <cctype>
#include <stdexcept>
#include <string>

#include "key_table.hpp"
#include "omp_affinity_format.hpp"
#include "omp_settings.hpp"

namespace joule::api {

using namespace joule::core;
namespace {

// "spread", "spread,close", "TRUE": one binding per nesting level; true and
// false stand alone, as OpenMP says.
std::vector<OmpBind> parse_proc_bind(std::string_view raw) {
  std::vector<OmpBind> out;
  std::string_view v = trim(raw);
  while (!v.empty()) {
    const auto comma = v.find(',');
    std::string item(trim(v.substr(0, comma)));
    v = comma == std::string_view::npos ? std::string_view{} : v.substr(comma + 1);
    for (char& c : item) c = char(std::tolower(static_cast<unsigned char>(c)));
    bool known = false;
    for (const auto& [name, bind] : kOmpBinds)
      if (item == name) {
        out.push_back(bind);
        known = true;
      }
    if (!known) throw std::invalid_argument("unknown binding '" + item + "'");
  }
  if (out.size() > 1)
    for (OmpBind b : out)
      if (b == OmpBind::off || b == OmpBind::on)
        throw std::invalid_argument("true and false cannot be part of a list");
  return out;
}

std::string format_proc_bind(const std::vector<OmpBind>& binds) {
  std::string out;
  for (OmpBind b : binds) {
    if (!out.empty()) out += ',';
    out += choice_name(Choices<OmpBind>(kOmpBinds), b);
  }
  return out;
}

// In the given order, consecutive runs as ranges: "4-7 0-3".
std::string format_gomp_cpus(const std::vector<int>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ' ';
    out += std::to_string(cpus[i]);
    if (j > i) out += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace

void add_omp_affinity_keys(KeyTable<OmpSettings>& t) {
  using S = OmpSettings;
  t.custom(
      "OMP_PROC_BIND", "choice",
      "false, true, or a list of primary, master, close, spread (one per nesting level, such "
      "as spread,close; empty: not set)",
      "how the outer team's threads (joule's workers) are bound to places; not set: true when "
      "OMP_PLACES or GOMP_CPU_AFFINITY is, else false",
      [](S& o, std::string_view v) { o.proc_bind = parse_proc_bind(v); },
      [](const S& o) { return format_proc_bind(o.proc_bind); });
  t.custom(
      "OMP_PLACES", "text", place_forms() + " (empty: not set)",
      "the places threads are bound to, inside the process's CPU mask (threads when binding "
      "is on and neither this nor GOMP_CPU_AFFINITY is set)",
      [](S& o, std::string_view v) {
        o.places = parse_places(v);
        o.places_text = std::string(trim(v));
      },
      [](const S& o) { return o.places_text; });
  t.custom(
      "GOMP_CPU_AFFINITY", "list",
      "CPU numbers and ranges separated by blanks or commas, such as 0 3 1-2 or 0-15:2 "
      "(empty: not set)",
      "GCC's places: one per CPU, in the given order (OMP_PLACES wins when both are set)",
      [](S& o, std::string_view v) { o.gomp_cpu_affinity = parse_gomp_cpu_affinity(v); },
      [](const S& o) { return format_gomp_cpus(o.gomp_cpu_affinity); });
  t.flag("OMP_DISPLAY_AFFINITY", &S::display_affinity,
         "each thread prints its affinity (OMP_AFFINITY_FORMAT) at the first parallel region, "
         "again when a region's team size differs from the previous one or its CPUs changed");
  t.custom(
      "OMP_AFFINITY_FORMAT", "text",
      "text with %-fields, each %[[[0].]size] and a letter or {name}: " + affinity_fields() +
          ", %% for %",
      "what OMP_DISPLAY_AFFINITY and omp_display_affinity print for each thread",
      [](S& o, std::string_view v) {
        check_affinity_format(v);
        o.affinity_format = std::string(v);
      },
      [](const S& o) { return o.affinity_format; });
}

}  // namespace joule::api
