// joule-trace svg|html TRACE [-o FILE] [--width PX] [--from MS] [--to MS]
// [--title TEXT]: the timeline (and, for html, the POP and label tables)
// drawn by the trace-format library, written next to the trace by default.
#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "commands.hpp"
#include "timeline.hpp"
#include "trace_io.hpp"

namespace joule::trace_cli {
namespace {

namespace tf = joule::trace_format;

enum class Page { kSvg, kHtml };

struct TimelineArgs {
  std::string trace;
  std::string output;  // "": the trace's name with .svg / .html
  std::string title;   // "": the trace's file name
  int width = tf::TimelineOptions{}.width;
  double from_ms = 0;
  double to_ms = -1;  // < 0: to the end
};

// --from / --to: a finite number of milliseconds, not negative.
std::string check_ms(std::string& text) {
  double v = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || v < 0)
    return "'" + text + "' is not a time in ms (a number >= 0)";
  return "";
}

std::string ms_text(double ms) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f ms", ms);
  return buf;
}

// --to after --from: a command-line error (exit status kUsage), found
// before the trace is read.
void check_window(const TimelineArgs& a) {
  if (a.to_ms >= 0 && a.to_ms <= a.from_ms)
    throw CLI::ValidationError(
        "--to", ms_text(a.to_ms) + " must be greater than --from (" + ms_text(a.from_ms) + ")");
}

// The window, checked against the trace's length.
tf::TimelineOptions timeline_options(const TimelineArgs& a, const tf::TraceModel& m) {
  const double span_ms = double(m.t1 - m.t0) * 1e-6;
  if (a.from_ms > 0 && a.from_ms >= span_ms)
    throw ToolError(a.trace + ": --from " + ms_text(a.from_ms) +
                    " is at or past the end of the trace (" + ms_text(span_ms) + " long)");
  tf::TimelineOptions opt;
  opt.width = a.width;
  opt.from_ns = std::uint64_t(std::llround(a.from_ms * 1e6));
  if (a.to_ms >= 0)
    opt.to_ns = std::max<std::uint64_t>(1, std::uint64_t(std::llround(a.to_ms * 1e6)));
  opt.title = a.title.empty() ? std::filesystem::path(a.trace).filename().string() : a.title;
  return opt;
}

void run_timeline(const TimelineArgs& a, Page page) {
  check_window(a);
  const tf::TraceModel m = load_trace_file(a.trace);
  const tf::TimelineOptions opt = timeline_options(a, m);
  const std::string out = a.output.empty()
                              ? replace_extension(a.trace, page == Page::kSvg ? ".svg" : ".html")
                              : a.output;
  if (same_file(out, a.trace))
    throw ToolError(out + ": is the input trace; name another output with -o");
  const std::string text = naming_trace(a.trace, [&] {
    return page == Page::kSvg ? tf::render_svg(m, opt) : tf::render_html(m, opt);
  });
  write_text_file(out, text);
  std::printf("wrote %s\n", out.c_str());
}

void add_timeline_command(CLI::App& app, Page page) {
  const bool svg = page == Page::kSvg;
  CLI::App* cmd = app.add_subcommand(
      svg ? "svg" : "html",
      svg ? "draw the timeline as a self-contained SVG"
          : "the SVG timeline in an HTML page with the POP and per-label task tables");
  auto a = std::make_shared<TimelineArgs>();
  cmd->add_option("TRACE", a->trace, "the trace (.prv or .json)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option(
         "-o,--output", a->output,
         svg ? "output file (default: TRACE with .svg)" : "output file (default: TRACE with .html)")
      ->type_name("FILE");
  cmd->add_option("--width", a->width, "image width in pixels")
      ->type_name("PX")
      ->check(CLI::Range(400, 20000))
      ->capture_default_str();
  cmd->add_option("--from", a->from_ms, "start of the window, ms from the trace start")
      ->type_name("MS")
      ->check(CLI::Validator(check_ms, ">= 0"));
  cmd->add_option("--to", a->to_ms, "end of the window, ms from the trace start (default: the end)")
      ->type_name("MS")
      ->check(CLI::Validator(check_ms, ">= 0"));
  cmd->add_option("--title", a->title, "title (default: the trace's file name)")->type_name("TEXT");
  cmd->callback([a, page] { run_timeline(*a, page); });
}

}  // namespace

void add_timeline_commands(CLI::App& app) {
  add_timeline_command(app, Page::kSvg);
  add_timeline_command(app, Page::kHtml);
}

}  // namespace joule::trace_cli
