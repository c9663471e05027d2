// A self-contained timeline of a trace: one row per thread (CPU), tasks
// coloured by label, sleep / lent / borrowed / MPI / offload states, a
// frequency band under each CPU row and a panel per other counter (power,
// temperature, ...), iteration marks and a legend. Drawn at pixel
// resolution: each column shows what took most of its time, so the file
// size depends on the width and the number of rows, not on the task count.
#pragma once

#include <cstdint>
#include <string>

#include "trace_model.hpp"

namespace joule::trace_format {

struct TimelineOptions {
  int width = 1400;           // pixels, 400..20000
  std::uint64_t from_ns = 0;  // window, relative to the trace start
  std::uint64_t to_ns = 0;    // 0: to the end
  std::string title = "joule trace";
};

std::string render_svg(const TraceModel& m, const TimelineOptions& opt);
// The SVG inside an HTML page with the POP and per-label tables.
std::string render_html(const TraceModel& m, const TimelineOptions& opt);

std::string xml_escape(const std::string& s);

}  // namespace joule::trace_format
