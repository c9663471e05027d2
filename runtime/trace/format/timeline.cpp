#include "timeline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <sstream>

#include "timeline_bins.hpp"
#include "trace_events.hpp"

namespace joule::trace_format {
namespace {

using namespace timeline_detail;

constexpr int kRight = 20, kTop = 56, kRowH = 14, kBandH = 5, kGap = 3;
constexpr int kPanelH = 70;
constexpr std::uint32_t kStateCat = 0x80000000;

const char* const kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                "#8c564b", "#e377c2", "#bcbd22", "#17becf", "#393b79",
                                "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd",
                                "#e6550d", "#31a354", "#756bb1", "#fd8d3c", "#6baed6"};
constexpr int kPaletteSize = int(sizeof kPalette / sizeof kPalette[0]);

const char* state_color(std::uint32_t s) {
  switch (s) {
    case kSleeping:
      return "#d0d0d0";
    case kLent:
      return "#ffb000";
    case kBorrowed:
      return "#00b050";
    case kMpi:
      return "#c00000";
    case kOffload:
      return "#a000a0";
    default:
      return "#ffffff";
  }
}

std::string num(double v, int prec = 1) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", prec, v);
  return buf;
}

bool is_frequency(const std::string& name) { return name.rfind("frequency", 0) == 0; }

class Painter {
 public:
  Painter(const TraceModel& m, const TimelineOptions& opt);
  std::string svg();

 private:
  void axis(int y);
  void row(const Row& r, int y);
  void frequency_band(const Counter& c, int y, double lo, double hi);
  int panels(int y);
  void legend(int y);
  const Counter* frequency_for(const Row& r) const;

  const TraceModel& m_;
  TimelineOptions opt_;
  View v_;
  std::vector<std::string> colors_;  // by label index
  std::vector<std::uint32_t> legend_labels_;
  double fmin_ = 0, fmax_ = 0;
  std::uint32_t states_seen_ = 0;  // bit per State drawn somewhere
  std::ostringstream body_;
};

Painter::Painter(const TraceModel& m, const TimelineOptions& opt) : m_(m), opt_(opt) {
  opt_.width = std::clamp(opt_.width, 400, 20000);
  const std::uint64_t a = m.t0 + opt.from_ns;
  const std::uint64_t b = opt.to_ns ? std::min(m.t1, m.t0 + opt.to_ns) : m.t1;
  v_ = View{a, std::max(b, a + 1), opt_.width - kLeft - kRight};
  // Colours by total time, so the biggest labels get the clearest colours.
  const TraceSummary s = summarize(m);
  colors_.assign(m.labels.size(), "#999999");
  int next = 0;
  for (const auto& row : s.labels) {
    for (std::size_t i = 0; i < m.labels.size(); ++i)
      if (m.labels[i] == row.name && colors_[i] == "#999999") {
        colors_[i] = next < kPaletteSize ? kPalette[next] : "#999999";
        if (next < kPaletteSize) legend_labels_.push_back(std::uint32_t(i));
        ++next;
        break;
      }
  }
  bool any = false;
  for (const Counter& c : m.counters) {
    if (!is_frequency(c.name)) continue;
    for (const auto& s2 : c.samples) {
      fmin_ = any ? std::min(fmin_, s2.second) : s2.second;
      fmax_ = any ? std::max(fmax_, s2.second) : s2.second;
      any = true;
    }
  }
}

const Counter* Painter::frequency_for(const Row& r) const {
  const Counter* package = nullptr;
  for (const Counter& c : m_.counters) {
    if (!is_frequency(c.name) || c.process != r.process) continue;
    if (c.cpu == r.cpu && r.cpu >= 0) return &c;
    if (c.cpu < 0) package = &c;
  }
  return r.worker >= 0 ? package : nullptr;
}

void Painter::axis(int y) {
  const double span = double(v_.b - v_.a);
  const double raw = span / 8, base = std::pow(10.0, std::floor(std::log10(raw)));
  double step = base * 10;
  for (double mul : {1.0, 2.0, 5.0})
    if (base * mul >= raw) {
      step = base * mul;
      break;
    }
  const bool secs = span >= 2e9;
  const double unit = secs ? 1e9 : 1e6;
  const int decimals = std::max(0, -int(std::floor(std::log10(step / unit) + 1e-9)));
  body_ << "<g class=\"axis\">\n";
  for (double t = 0; t <= span + 1; t += step) {
    const double x = kLeft + t / span * v_.w;
    const double shown = double(v_.a - m_.t0) + t;
    body_ << "<line x1=\"" << num(x) << "\" y1=\"" << y << "\" x2=\"" << num(x) << "\" y2=\""
          << y + 5 << "\" stroke=\"#444\"/><text x=\"" << num(x) << "\" y=\"" << y - 3
          << "\" text-anchor=\"" << (t == 0 ? "start" : "middle") << "\">"
          << num(shown / unit, decimals) << "</text>\n";
  }
  body_ << "<text x=\"" << kLeft - 10 << "\" y=\"" << y - 3 << "\" text-anchor=\"end\">time ("
        << (secs ? "s" : "ms") << ")</text>\n</g>\n";
}

void Painter::row(const Row& r, int y) {
  Bins bins(v_);
  std::vector<std::pair<std::uint64_t, std::uint32_t>> open;  // enclosing tasks (end, label)
  for (const Slice& s : r.tasks) {
    while (!open.empty() && open.back().first <= s.t0) open.pop_back();
    if (!open.empty()) bins.add(open.back().second, s.t0, s.t1, -1);  // nested: the inner one shows
    bins.add(s.what, s.t0, s.t1, +1);
    open.emplace_back(s.t1, s.what);
  }
  for (const Slice& s : r.states) {
    bins.add(kStateCat | s.what, s.t0, s.t1, +1);
    if (s.what < 32) states_seen_ |= 1u << s.what;
  }
  const auto cols = bins.dominant();
  body_ << "<rect x=\"" << kLeft << "\" y=\"" << y << "\" width=\"" << v_.w << "\" height=\""
        << kRowH << "\" fill=\"#f3f7fb\"/>\n";
  for (int c = 0; c < v_.w;) {
    const std::uint32_t cat = cols[std::size_t(c)];
    int e = c + 1;
    while (e < v_.w && cols[std::size_t(e)] == cat) ++e;
    if (cat != kNone) {
      const bool state = cat & kStateCat;
      const std::string name = state ? state_name(cat & ~kStateCat)
                                     : (cat < m_.labels.size() ? m_.labels[cat] : "label");
      const char* fill = state ? state_color(cat & ~kStateCat)
                               : (cat < colors_.size() ? colors_[cat].c_str() : "#999999");
      const double t0 = double(v_.a - m_.t0) + c * v_.dt(), t1 = double(v_.a - m_.t0) + e * v_.dt();
      body_ << "<rect x=\"" << kLeft + c << "\" y=\"" << y << "\" width=\"" << e - c
            << "\" height=\"" << kRowH << "\" fill=\"" << fill << "\"><title>" << xml_escape(name)
            << " " << num(t0 * 1e-6, 3) << "-" << num(t1 * 1e-6, 3) << " ms</title></rect>\n";
    }
    c = e;
  }
}

void Painter::frequency_band(const Counter& c, int y, double lo, double hi) {
  const auto vals = column_values(c, v_);
  auto level = [&](double v) {
    if (std::isnan(v)) return -1;
    return hi > lo ? int(std::lround((v - lo) / (hi - lo) * 11)) : 11;
  };
  for (int col = 0; col < v_.w;) {
    const int lv = level(vals[std::size_t(col)]);
    int e = col + 1;
    while (e < v_.w && level(vals[std::size_t(e)]) == lv) ++e;
    if (lv >= 0) {
      const int red = lv * 255 / 11, blue = 255 - red;
      body_ << "<rect x=\"" << kLeft + col << "\" y=\"" << y << "\" width=\"" << e - col
            << "\" height=\"" << kBandH << "\" fill=\"rgb(" << red << ",60," << blue
            << ")\"><title>" << xml_escape(c.name) << " ~" << num(vals[std::size_t(col)], 0)
            << "</title></rect>\n";
    }
    col = e;
  }
}

int Painter::panels(int y) {
  std::map<std::string, std::vector<const Counter*>> groups;
  for (const Counter& c : m_.counters)
    if (!(is_frequency(c.name) && c.cpu >= 0) && !c.samples.empty()) groups[c.name].push_back(&c);
  for (const auto& [name, series] : groups) {
    double lo = std::numeric_limits<double>::max(), hi = std::numeric_limits<double>::lowest();
    std::vector<std::vector<double>> vals;
    for (const Counter* c : series) {
      vals.push_back(column_values(*c, v_));
      for (double v : vals.back())
        if (!std::isnan(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    }
    if (lo > hi) continue;
    if (hi - lo < 1e-9) hi = lo + 1;
    body_ << "<g class=\"panel\"><rect x=\"" << kLeft << "\" y=\"" << y << "\" width=\"" << v_.w
          << "\" height=\"" << kPanelH << "\" fill=\"#fafafa\" stroke=\"#ccc\"/>\n<text x=\""
          << kLeft - 6 << "\" y=\"" << y + 12 << "\" text-anchor=\"end\">" << xml_escape(name)
          << "</text><text x=\"" << kLeft - 6 << "\" y=\"" << y + 26
          << "\" text-anchor=\"end\">max " << num(hi, 2) << "</text><text x=\"" << kLeft - 6
          << "\" y=\"" << y + kPanelH << "\" text-anchor=\"end\">min " << num(lo, 2) << "</text>\n";
    for (std::size_t s = 0; s < vals.size(); ++s) {
      body_ << "<polyline fill=\"none\" stroke=\"" << kPalette[s % kPaletteSize]
            << "\" stroke-width=\"1.2\" points=\"";
      for (int c = 0; c < v_.w; ++c) {
        const double v = vals[s][std::size_t(c)];
        if (!std::isnan(v))
          body_ << kLeft + c << "," << num(y + kPanelH - 2 - (v - lo) / (hi - lo) * (kPanelH - 4))
                << " ";
      }
      body_ << "\"/>\n";
      if (series.size() > 1) {  // which line is which
        const Counter& c = *series[s];
        std::string who = "series " + std::to_string(s + 1);
        if (std::size_t(c.process) < m_.processes.size()) {
          const Process& p = m_.processes[std::size_t(c.process)];
          who = p.rank >= 0 ? "rank " + std::to_string(p.rank) : "pid " + std::to_string(p.pid);
        }
        if (c.cpu >= 0) who += " cpu " + std::to_string(c.cpu);
        body_ << "<text x=\"" << kLeft + 4 + int(s) * 110 << "\" y=\"" << y + 11 << "\" fill=\""
              << kPalette[s % kPaletteSize] << "\">" << xml_escape(who) << "</text>\n";
      }
    }
    body_ << "</g>\n";
    y += kPanelH + 16;
  }
  return y;
}

void Painter::legend(int y) {
  int x = kLeft;
  auto item = [&](const std::string& color, const std::string& name) {
    if (x > kLeft + v_.w - 120) x = kLeft, y += 16;
    body_ << "<rect x=\"" << x << "\" y=\"" << y - 9 << "\" width=\"10\" height=\"10\" fill=\""
          << color << "\"/><text x=\"" << x + 14 << "\" y=\"" << y << "\">" << xml_escape(name)
          << "</text>\n";
    x += 24 + int(std::min<std::size_t>(name.size(), 28) * 7);
  };
  body_ << "<g class=\"legend\">\n";
  for (std::uint32_t l : legend_labels_) item(colors_[l], m_.labels[l]);
  if (legend_labels_.size() < m_.labels.size() - 2) item("#999999", "other labels");
  for (std::uint32_t s : {kSleeping, kLent, kBorrowed, kMpi, kOffload})
    if (states_seen_ & (1u << s)) item(state_color(s), state_name(s));
  if (fmax_ > 0) {
    item("rgb(0,60,255)", "frequency " + num(fmin_, 0));
    item("rgb(255,60,0)", "frequency " + num(fmax_, 0));
  }
  body_ << "</g>\n";
}

std::string Painter::svg() {
  axis(kTop - 8);
  int y = kTop;
  const int rows_top = y;
  int last_process = -1;
  for (const Row& r : m_.rows) {
    if (m_.processes.size() > 1 && r.process != last_process &&
        std::size_t(r.process) < m_.processes.size()) {
      const Process& p = m_.processes[std::size_t(r.process)];
      y += 4;
      body_ << "<text x=\"4\" y=\"" << y + 10 << "\" font-weight=\"bold\">"
            << (p.rank >= 0 ? "rank " + std::to_string(p.rank) : "pid " + std::to_string(p.pid))
            << " " << xml_escape(p.host) << "</text>\n";
      y += 14;
    }
    last_process = r.process;
    body_ << "<text x=\"" << kLeft - 6 << "\" y=\"" << y + 11 << "\" text-anchor=\"end\">"
          << xml_escape(r.worker >= 0
                            ? "cpu " + std::to_string(r.cpu) + " · worker " +
                                  std::to_string(r.worker) + (r.guest ? " (borrowed)" : "")
                            : r.name)
          << "</text>\n";
    this->row(r, y);
    y += kRowH;
    if (const Counter* f = frequency_for(r)) {
      frequency_band(*f, y + 1, fmin_, fmax_);
      y += kBandH + 1;
    }
    y += kGap;
  }
  const int rows_bottom = y;
  double last_x = -100;
  for (const auto& it : m_.iterations) {
    if (it.process != 0 || it.t < v_.a || it.t > v_.b) continue;
    const double x = v_.x(it.t);
    body_ << "<line x1=\"" << num(x) << "\" y1=\"" << rows_top << "\" x2=\"" << num(x) << "\" y2=\""
          << rows_bottom << "\" stroke=\"#000\" stroke-dasharray=\"3,3\" stroke-width=\"0.8\"/>\n";
    if (x - last_x >= 28) {
      body_ << "<text x=\"" << num(x + 2) << "\" y=\"" << rows_bottom + 10
            << "\" font-size=\"9\">it " << it.n << "</text>\n";
      last_x = x;
    }
  }
  y = panels(rows_bottom + 22);
  legend(y + 14);
  const int height = y + 60;
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
         "width=\""
      << opt_.width << "\" height=\"" << height << "\" viewBox=\"0 0 " << opt_.width << " "
      << height
      << "\" font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" "
         "fill=\"#fff\"/>\n"
      << "<text x=\"4\" y=\"16\" font-size=\"14\" font-weight=\"bold\">" << xml_escape(opt_.title)
      << "</text>\n"
      << body_.str() << "</svg>\n";
  return out.str();
}

}  // namespace

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += (static_cast<unsigned char>(c) < 0x20 && c != '\t') ? ' ' : c;
    }
  }
  return out;
}

std::string render_svg(const TraceModel& m, const TimelineOptions& opt) {
  return Painter(m, opt).svg();
}

}  // namespace joule::trace_format
