// The HTML page: the timeline SVG inline, then the POP metrics per process
// (and for the job) and the per-label task table. No scripts, no links.
#include <cstdio>
#include <sstream>

#include "timeline.hpp"

namespace joule::trace_format {
namespace {

std::string f3(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

std::string f6(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", v);
  return buf;
}

void pop_row(std::ostream& os, const std::string& who, const PopMetrics& p) {
  os << "<tr><td>" << xml_escape(who) << "</td><td>" << p.units << "</td><td>" << f6(p.elapsed_s)
     << "</td><td>" << f6(p.useful_s) << "</td><td>" << f3(p.parallel_efficiency) << "</td><td>"
     << f3(p.load_balance) << "</td><td>" << f3(p.comm_efficiency) << "</td></tr>\n";
}

}  // namespace

std::string render_html(const TraceModel& m, const TimelineOptions& opt) {
  const TraceSummary s = summarize(m);
  std::string svg = render_svg(m, opt);
  svg.erase(0, svg.find("<svg"));  // drop the XML declaration inside HTML
  std::ostringstream os;
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
     << xml_escape(opt.title) << "</title>\n<style>\n"
     << "body{font-family:sans-serif;margin:16px;color:#222}\n"
     << "table{border-collapse:collapse;margin:8px 0 20px}\n"
     << "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}\n"
     << "td:first-child,th:first-child{text-align:left}\n"
     << ".scroll{overflow-x:auto}\n</style>\n</head>\n<body>\n<h1>" << xml_escape(opt.title)
     << "</h1>\n<div class=\"scroll\">\n"
     << svg << "</div>\n";
  os << "<h2>Efficiency (POP metrics)</h2>\n<table>\n<tr><th>process</th><th>workers</th>"
        "<th>elapsed s</th><th>useful s</th><th>parallel eff.</th><th>load balance</th>"
        "<th>comm. eff.</th></tr>\n";
  for (const auto& p : s.processes)
    pop_row(os, p.rank >= 0 ? "rank " + std::to_string(p.rank) : "pid " + std::to_string(p.pid),
            p.pop);
  if (s.processes.size() > 1) pop_row(os, "job (all workers)", s.job);
  os << "</table>\n<p>useful = time in task bodies (outermost tasks); load balance = avg useful / "
        "max useful; communication efficiency = max useful / elapsed; parallel efficiency = "
        "useful / (workers &#215; elapsed) = load balance &#215; communication efficiency.";
  if (s.processes.size() > 1)
    os << " Load balance across processes (useful time summed per process): "
       << f3(s.mpi_lb.load_balance) << ".";
  os << "</p>\n<h2>Tasks by label</h2>\n<table>\n<tr><th>label</th><th>count</th><th>mean "
        "&#181;s</th>"
        "<th>max &#181;s</th><th>total s</th></tr>\n";
  for (const auto& l : s.labels)
    os << "<tr><td>" << xml_escape(l.name) << "</td><td>" << l.stats.count << "</td><td>"
       << f3(l.mean_us()) << "</td><td>" << f3(l.stats.max_ns * 1e-3) << "</td><td>"
       << f6(l.stats.total_ns * 1e-9) << "</td></tr>\n";
  os << "</table>\n</body>\n</html>\n";
  return os.str();
}

}  // namespace joule::trace_format
