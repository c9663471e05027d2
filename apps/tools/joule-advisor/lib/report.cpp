#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "runs.hpp"

namespace joule::advisor {
namespace {

std::ofstream open_out(const std::string& path) {
  std::ofstream out(path);
  if (!out) throw InputError(path + ": cannot write");
  return out;
}

std::string fmt(const char* spec, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, spec, v);
  return buf;
}

// Maps a value range onto pixels on a log scale (times and energies of a
// configuration space span orders of magnitude), with 5% margins.
struct Axis {
  double lo, hi, px0, px1;  // lo, hi: log10 of the range
  double at(double v) const { return px0 + (std::log10(v) - lo) / (hi - lo) * (px1 - px0); }
  double value(double frac) const { return std::pow(10.0, lo + (hi - lo) * frac); }
};

Axis make_axis(double lo, double hi, double px0, double px1) {
  const double l = std::log10(lo), h = std::log10(hi);
  const double pad = (h > l ? h - l : 1) * 0.05;
  return {l - pad, h + pad, px0, px1};
}

void svg_axes(std::ostream& o, const Axis& x, const Axis& y) {
  o << "<line x1='" << x.px0 << "' y1='" << y.px0 << "' x2='" << x.px1 << "' y2='" << y.px0
    << "' stroke='black'/>\n<line x1='" << x.px0 << "' y1='" << y.px0 << "' x2='" << x.px0
    << "' y2='" << y.px1 << "' stroke='black'/>\n";
  for (int i = 0; i <= 4; ++i) {
    const double tx = x.value(i / 4.0), ty = y.value(i / 4.0);
    o << "<text x='" << x.at(tx) << "' y='" << y.px0 + 18 << "' font-size='11' "
      << "text-anchor='middle'>" << fmt("%.3g", tx) << "</text>\n";
    o << "<text x='" << x.px0 - 6 << "' y='" << y.at(ty) + 4 << "' font-size='11' "
      << "text-anchor='end'>" << fmt("%.3g", ty) << "</text>\n";
  }
  o << "<text x='" << (x.px0 + x.px1) / 2 << "' y='" << y.px0 + 38
    << "' text-anchor='middle'>time (s, log scale)</text>\n<text x='16' y='" << (y.px0 + y.px1) / 2
    << "' transform='rotate(-90 16 " << (y.px0 + y.px1) / 2
    << ")' text-anchor='middle'>energy (J, log scale)</text>\n";
}

}  // namespace

std::string describe(const Config& c) {
  std::ostringstream o;
  o << device_name(c.device) << ' ' << c.shape.threads << " threads "
    << card_affinity::affinity_name(c.placement) << " (" << c.shape.cores << " cores, up to "
    << c.shape.busiest << " per core) " << fmt("%.3f", c.freq_ghz) << " GHz";
  return o.str();
}

void write_csv(const std::string& path, const std::vector<Config>& configs,
               const std::vector<size_t>& front) {
  std::ofstream out = open_out(path);
  const std::set<size_t> on_front(front.begin(), front.end());
  out << "device,threads,placement,cores,threads_per_core,freq_ghz,time_s,energy_j,power_w,"
         "pareto\n";
  for (size_t i = 0; i < configs.size(); ++i) {
    const Config& c = configs[i];
    out << device_name(c.device) << ',' << c.shape.threads << ','
        << card_affinity::affinity_name(c.placement) << ',' << c.shape.cores << ','
        << c.shape.busiest << ',' << c.freq_ghz << ',' << fmt("%.6g", c.predicted.time_s) << ','
        << fmt("%.6g", c.predicted.energy_j) << ',' << fmt("%.6g", c.predicted.power_w) << ','
        << (on_front.count(i) ? 1 : 0) << '\n';
  }
}

void write_svg(const std::string& path, const std::vector<Config>& configs,
               const std::vector<size_t>& front, std::optional<size_t> chosen) {
  double t0 = 1e300, t1 = -1e300, e0 = 1e300, e1 = -1e300;
  for (const Config& c : configs) {
    t0 = std::min(t0, c.predicted.time_s), t1 = std::max(t1, c.predicted.time_s);
    e0 = std::min(e0, c.predicted.energy_j), e1 = std::max(e1, c.predicted.energy_j);
  }
  const Axis x = make_axis(t0, t1, 70, 620), y = make_axis(e0, e1, 420, 20);
  std::ofstream o = open_out(path);
  o << "<svg xmlns='http://www.w3.org/2000/svg' width='640' height='480' "
       "font-family='sans-serif'>\n<rect width='640' height='480' fill='white'/>\n";
  svg_axes(o, x, y);
  for (const Config& c : configs)
    o << "<circle cx='" << x.at(c.predicted.time_s) << "' cy='" << y.at(c.predicted.energy_j)
      << "' r='1.5' fill='#999'/>\n";
  o << "<polyline fill='none' stroke='#d22' points='";
  for (size_t i : front)
    o << x.at(configs[i].predicted.time_s) << ',' << y.at(configs[i].predicted.energy_j) << ' ';
  o << "'/>\n";
  for (size_t i : front)
    o << "<circle cx='" << x.at(configs[i].predicted.time_s) << "' cy='"
      << y.at(configs[i].predicted.energy_j) << "' r='3' fill='#d22'><title>"
      << describe(configs[i]) << "</title></circle>\n";
  if (chosen)
    o << "<circle cx='" << x.at(configs[*chosen].predicted.time_s) << "' cy='"
      << y.at(configs[*chosen].predicted.energy_j)
      << "' r='6' fill='none' stroke='#22d' stroke-width='2'/>\n";
  o << "<text x='620' y='16' text-anchor='end' font-size='12'>grey: configurations, red: Pareto "
       "front, blue: chosen</text>\n</svg>\n";
}

}  // namespace joule::advisor
