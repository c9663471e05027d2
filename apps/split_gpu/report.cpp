// split-gpu's table and JSON: the same fields, energies labelled by where
// they came from (NVML measured, or the splitter's model; RAPL or the
// platform's power model for the CPUs).
#include <cstdio>
#include <string>

#include "split_gpu.hpp"

namespace split_gpu {
namespace {

const char* gpu_label(const Result& r) { return r.gpu_measured ? "nvml" : "model"; }

// A JSON string's body: quotes, backslashes and control characters escaped.
std::string escaped(const std::string& s) {
  std::string out;
  for (const char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (static_cast<unsigned char>(ch) < 0x20) {
      out += ' ';
      continue;
    }
    out += ch;
  }
  return out;
}

}  // namespace

void print_table(const Setup& s, const std::vector<Result>& rows) {
  std::printf("split-gpu: %s, %d workers, %dx%d sgemm by rows, %d iterations per mode\n",
              s.gpu_name.c_str(), s.workers, s.n, s.n, s.iterations);
  std::printf("energy source: %s\n", s.energy_source.c_str());
  std::printf("%-7s %9s %12s %12s %12s %7s %10s %10s %7s  %s\n", "mode", "time_s", "gpu_J", "cpu_J",
              "edp_Js", "gpu_%", "to_gpu_MB", "to_host_MB", "sm_MHz", "clocks");
  for (const Result& r : rows)
    std::printf("%-7s %9.3f %7.1f %-4s %7.1f %-4s %12.1f %7.1f %10.1f %10.1f %7d  %s\n",
                r.mode.c_str(), r.seconds, r.gpu_joules, gpu_label(r), r.cpu_joules,
                r.cpu_source.c_str(), r.edp(), 100 * r.gpu_share, double(r.bytes_to_gpu) / 1e6,
                double(r.bytes_to_host) / 1e6, r.sm_clock_mhz, r.clocks.c_str());
}

void print_json(std::FILE* f, const Setup& s, const std::vector<Result>& rows) {
  std::fprintf(f,
               "{\"gpu\": \"%s\", \"workers\": %d, \"n\": %d, \"iterations\": %d, "
               "\"energy_source\": \"%s\", \"runs\": [",
               escaped(s.gpu_name).c_str(), s.workers, s.n, s.iterations,
               escaped(s.energy_source).c_str());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Result& r = rows[i];
    std::fprintf(f,
                 "%s\n  {\"mode\": \"%s\", \"seconds\": %.6f, \"gpu_joules\": %.3f, "
                 "\"gpu_energy\": \"%s\", \"cpu_joules\": %.3f, \"cpu_energy\": \"%s\", "
                 "\"edp\": %.6f, \"gpu_share\": %.4f, \"bytes_to_gpu\": %llu, "
                 "\"bytes_to_host\": %llu, \"sm_clock_mhz\": %d, \"clocks\": \"%s\"}",
                 i ? "," : "", r.mode.c_str(), r.seconds, r.gpu_joules, gpu_label(r), r.cpu_joules,
                 r.cpu_source.c_str(), r.edp(), r.gpu_share,
                 static_cast<unsigned long long>(r.bytes_to_gpu),
                 static_cast<unsigned long long>(r.bytes_to_host), r.sm_clock_mhz,
                 escaped(r.clocks).c_str());
  }
  std::fprintf(f, "\n]}\n");
}

}  // namespace split_gpu
