// split-gpu: the work splitter between the CPU workers and a CUDA GPU on a
// tiled iterative workload (docs/offload-gpu-energy.md, "Splitting work between the
// CPUs and a GPU"). Every iteration computes C = A * B (single precision,
// n x n) by rows: the CPUs' rows as a taskloop, the GPU's as one CUDA task
// whose B stays resident on the GPU. Runs, each for --iters iterations:
//   cpu     every row on the CPU workers     gpu     every row on the GPU
//   energy, time, edp                        the splitter with that objective
// and prints one table (or --json): time, GPU energy (NVML, else the
// model), CPU energy (RAPL where the platform reads it, else its model),
// EDP, the final GPU share, bytes moved, the SM clock and whether the
// splitter could set clocks (--clocks auto lets it try).
//
//   split-gpu [--n 2048] [--iters 30] [--modes cpu,gpu,energy,time,edp]
//             [--workers W] [--device D] [--clocks fixed|auto] [--json]
//             [--json-file PATH]
//
// Without a GPU it prints "no CUDA device: <why>" and exits 77.
#include <CLI/CLI.hpp>
#include <joule/cuda.hpp>
#include <joule/split.hpp>

#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gemm_gpu.hpp"
#include "split_gpu.hpp"

namespace {

struct Options {
  int n = 2048, iters = 30, workers = 0, device = 0;
  std::string modes = "cpu,gpu,energy,time,edp", clocks = "fixed", json_file;
  bool json = false;
};

struct Matrices {
  int n;
  std::vector<float> a, b, c;
  explicit Matrices(int size) : n(size), a(std::size_t(size) * size), b(a.size()), c(a.size()) {
    for (std::size_t i = 0; i < a.size(); ++i) {
      a[i] = float((i * 7 + 3) % 17) / 17.0f - 0.5f;
      b[i] = float((i * 5 + 1) % 13) / 13.0f - 0.5f;
    }
  }
};

// C's rows [lo, hi) on the CPU into out (row lo first).
void gemm_rows_cpu(const Matrices& m, std::int64_t lo, std::int64_t hi, float* out) {
  const std::size_t n = std::size_t(m.n);
  for (std::int64_t i = lo; i < hi; ++i) {
    float* row = out + std::size_t(i - lo) * n;
    for (std::size_t j = 0; j < n; ++j) row[j] = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const float aik = m.a[std::size_t(i) * n + k];
      const float* bk = m.b.data() + k * n;
      for (std::size_t j = 0; j < n; ++j) row[j] += aik * bk[j];
    }
  }
}

// Spot checks of C against the CPU kernel: rows spread over the matrix.
bool correct(Matrices& m) {
  std::vector<float> want(std::size_t(m.n));
  for (int i = 0; i < m.n; i += std::max(1, m.n / 7)) {
    gemm_rows_cpu(m, i, i + 1, want.data());
    for (int j = 0; j < m.n; ++j) {
      const float got = m.c[std::size_t(i) * std::size_t(m.n) + std::size_t(j)];
      if (std::abs(got - want[std::size_t(j)]) > 1e-3f * (1 + std::abs(want[std::size_t(j)])))
        return false;
    }
  }
  return true;
}

joule::split_options options_for(const std::string& mode, const Options& o) {
  joule::split_options s;
  s.device = joule::device::cuda;
  s.device_num = o.device;
  s.card_freq = o.clocks.c_str();
  if (mode == "cpu") s.share = 0;
  if (mode == "gpu") s.share = 1;
  if (mode != "cpu" && mode != "gpu") s.objective = mode.c_str();
  return s;
}

split_gpu::Result run_mode(const std::string& mode, const Options& o, Matrices& m,
                           std::string* source) {
  const joule::cuda_device_status before = joule::cuda_devices().at(std::size_t(o.device));
  joule::work_splitter s(options_for(mode, o));
  const int n = m.n;
  const float *a = m.a.data(), *b = m.b.data();
  float* c = m.c.data();
  const std::size_t row = std::size_t(n);
  for (int it = 0; it < o.iters; ++it)
    joule::split_iteration(
        s, n, 16,
        [&m, c, n](std::int64_t lo, std::int64_t hi) { gemm_rows_cpu(m, lo, hi, c + lo * n); },
        [=](joule::cuda_context& ctx, std::int64_t lo, std::int64_t hi) {
          split_gpu::gemm_rows_gpu(ctx.stream(), ctx.map(a + lo * n), ctx.map(b),
                                   ctx.map(c + lo * n), int(hi - lo), n);
        },
        [=](std::int64_t lo, std::int64_t hi) {
          const std::size_t rows = std::size_t(hi - lo) * row;
          return std::vector<joule::dep>{joule::in(a + lo * n, rows), joule::in(b, row * row),
                                         joule::out(c + lo * n, rows)};
        });
  const joule::cuda_device_status after = joule::cuda_devices().at(std::size_t(o.device));
  const joule::split_totals t = s.totals();
  *source = s.energy_source();
  const std::string cpu = source->substr(source->find("cpu: ") + 5);
  return {mode,
          o.iters,
          t.seconds,
          t.device_joules,
          t.host_joules,
          t.device_measured,
          t.host_measured ? cpu : "model",
          s.card_share(),
          after.bytes_to_gpu - before.bytes_to_gpu,
          after.bytes_to_host - before.bytes_to_host,
          after.sm_clock_mhz,
          s.clocks()};
}

void write_json(const std::string& path, const split_gpu::Setup& setup,
                const std::vector<split_gpu::Result>& rows) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error("--json-file " + path + ": cannot write");
  split_gpu::print_json(f, setup, rows);
  std::fclose(f);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"split-gpu: the work splitter between the CPU workers and a CUDA GPU"};
  app.add_option("--n", o.n, "matrix order")->check(CLI::Range(16, 32768));
  app.add_option("--iters", o.iters, "iterations per mode")->check(CLI::Range(1, 100000));
  app.add_option("--modes", o.modes, "comma-separated: cpu, gpu, energy, time, edp");
  app.add_option("--workers", o.workers, "CPU workers (0: joule's default)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--device", o.device, "the GPU (the driver's ordinal)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--clocks", o.clocks, "fixed, or auto: the splitter may lock SM clocks")
      ->check(CLI::IsMember({"fixed", "auto"}));
  app.add_flag("--json", o.json, "JSON instead of the table");
  app.add_option("--json-file", o.json_file, "also write the JSON to this file");
  CLI11_PARSE(app, argc, argv);
  std::vector<std::string> modes;
  for (const std::string& m : CLI::detail::split(o.modes, ',')) {
    if (m != "cpu" && m != "gpu" && m != "energy" && m != "time" && m != "edp") {
      std::fprintf(stderr,
                   "split-gpu: --modes: unknown mode '%s' (allowed: cpu, gpu, energy, "
                   "time, edp)\n",
                   m.c_str());
      return 2;
    }
    modes.push_back(m);
  }
  try {
    std::optional<joule::runtime> rt;
    if (o.workers > 0)
      rt.emplace(std::initializer_list<std::pair<std::string, std::string>>{
          {"JOULE_WORKERS", std::to_string(o.workers)}});
    else
      rt.emplace();
    std::string why;
    const std::vector<joule::cuda_device_status> gpus = joule::cuda_devices(&why);
    if (gpus.empty()) {
      std::printf("no CUDA device: %s\n", why.c_str());
      return 77;
    }
    if (std::size_t(o.device) >= gpus.size()) {
      std::fprintf(stderr, "split-gpu: --device %d: only %zu GPUs\n", o.device, gpus.size());
      return 2;
    }
    Matrices m(o.n);
    std::vector<split_gpu::Result> rows;
    split_gpu::Setup setup{gpus[std::size_t(o.device)].name, joule::num_workers(), o.n, o.iters,
                           ""};
    for (const std::string& mode : modes) {
      rows.push_back(run_mode(mode, o, m, &setup.energy_source));
      if (!correct(m)) {
        std::fprintf(stderr, "split-gpu: %s: wrong result\n", mode.c_str());
        return 1;
      }
    }
    o.json ? split_gpu::print_json(stdout, setup, rows) : split_gpu::print_table(setup, rows);
    if (!o.json_file.empty()) write_json(o.json_file, setup, rows);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "split-gpu: %s\n", e.what());
    return 1;
  }
  return 0;
}
