// format_record and the text forms a record's lists take in the database.
#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "job_record_text.hpp"
#include "job_store.hpp"
#include "service_protocol.hpp"
#include "text.hpp"

namespace joule::service {

namespace {

std::string shortest(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : "0";
}

}  // namespace

std::string cpus_text(std::vector<int> cpus) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return core::format_cpu_list(cpus);
}

std::optional<std::vector<int>> cpus_from_text(std::string_view text) {
  try {
    return core::parse_cpu_list(text);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

// "1200000:3.5,2400000:10" with the seconds exact (shortest round trip).
std::string pstates_text(const std::vector<std::pair<std::uint32_t, double>>& p) {
  std::string out;
  for (const auto& [khz, s] : p)
    out += (out.empty() ? "" : ",") + std::to_string(khz) + ":" + shortest(s);
  return out;
}

std::optional<std::vector<std::pair<std::uint32_t, double>>> pstates_from_text(
    std::string_view text) {
  std::vector<std::pair<std::uint32_t, double>> out;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const auto colon = item.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    std::uint32_t khz = 0;
    double s = 0;
    const char* mid = item.data() + colon;
    const char* end = item.data() + item.size();
    if (std::from_chars(item.data(), mid, khz).ptr != mid ||
        std::from_chars(mid + 1, end, s).ptr != end)
      return std::nullopt;
    out.emplace_back(khz, s);
  }
  return out;
}

std::string format_record(const JobRecord& rec) {
  using platform::service_client::escape_value;
  auto or_dash = [](std::string s) { return s.empty() ? std::string("-") : s; };
  std::string pstates;
  for (const auto& [khz, s] : rec.pstate_s)
    pstates +=
        (pstates.empty() ? "" : ",") + std::to_string(khz) + ":" + core::format_number("%.3f", s);
  return "job=" + escape_value(rec.job) + " user=" + or_dash(escape_value(rec.user)) +
         " uid=" + std::to_string(rec.uid) + " cpus=" + or_dash(cpus_text(rec.cpus)) +
         " start=" + std::to_string(rec.start_unix_s) +
         " duration_s=" + core::format_number("%.3f", rec.duration_s) +
         " energy_j=" + core::format_number("%.3f", rec.energy_j) +
         " energy_scope=" + or_dash(escape_value(rec.energy_scope)) +
         " avg_khz=" + core::format_number("%.0f", rec.avg_khz) + " pstate_s=" + or_dash(pstates);
}

}  // namespace joule::service
