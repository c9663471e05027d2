#include "lub_options.hpp"

#include <joule/joule.hpp>

#include <cfloat>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <string_view>

namespace lub {
namespace {

void usage(std::FILE* out, const char* prog) {
  std::fprintf(out,
               "usage: %s [--n N] [--bs B] [--workers W] [--seed S] [--check | --no-check]\n"
               "  --n N        matrix order, a multiple of B (default 2048)\n"
               "  --bs B       block size (default 128)\n"
               "  --workers W  joule workers, 0 = one per CPU (default: JOULE_WORKERS or 0)\n"
               "  --seed S     random seed (default 42)\n"
               "  --check      verify ||A - L*U||_max / ||A||_max (default)\n"
               "  --no-check   skip the verification\n",
               prog);
}

// Parses a positive decimal count; exits with status 2 on anything else.
std::uint64_t parse_count(const char* prog, std::string_view flag, const char* text,
                          bool allow_zero) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (end == text || *end != '\0' || text[0] == '-' || (v == 0 && !allow_zero)) {
    std::fprintf(stderr, "%s: %.*s needs a %s integer, got '%s'\n", prog,
                 static_cast<int>(flag.size()), flag.data(),
                 allow_zero ? "non-negative" : "positive", text);
    std::exit(2);
  }
  return v;
}

}  // namespace

Options parse_options(int argc, char** argv, const char* prog) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--check") {
      o.check = true;
    } else if (a == "--no-check") {
      o.check = false;
    } else if (a == "-h" || a == "--help") {
      usage(stdout, prog);
      std::exit(0);
    } else if (has_value && a == "--n") {
      o.n = parse_count(prog, a, argv[++i], false);
    } else if (has_value && a == "--bs") {
      o.bs = parse_count(prog, a, argv[++i], false);
    } else if (has_value && a == "--workers") {
      o.workers = static_cast<int>(parse_count(prog, a, argv[++i], true));
    } else if (has_value && a == "--seed") {
      o.seed = parse_count(prog, a, argv[++i], true);
    } else {
      std::fprintf(stderr, "%s: unknown or incomplete option '%s'\n", prog, argv[i]);
      usage(stderr, prog);
      std::exit(2);
    }
  }
  if (o.n % o.bs != 0) {
    std::fprintf(stderr, "%s: --n %zu is not a multiple of --bs %zu\n", prog, o.n, o.bs);
    std::exit(2);
  }
  return o;
}

void start_runtime(std::optional<joule::runtime>& rt, int workers) {
  // The settings are an initializer list, so the two cases are two constructions.
  using Settings = std::initializer_list<std::pair<std::string, std::string>>;
  if (workers >= 0) {
    rt.emplace(Settings{{"JOULE_WORKERS", std::to_string(workers)}});
  } else {
    rt.emplace();
  }
}

void print_run(const Options& o, const char* variant, int workers, int ranks, std::size_t tasks,
               double seconds) {
  const std::size_t nb = o.n / o.bs;
  const double n = static_cast<double>(o.n);
  std::printf("lub: blocked LU without pivoting on joule %s (%s)\n", joule::version(), variant);
  if (ranks > 1) std::printf("  MPI ranks   %d (block rows cyclic)\n", ranks);
  std::printf("  workers     %d%s\n", workers, ranks > 1 ? " per rank" : "");
  std::printf("  N           %zu\n", o.n);
  std::printf("  block size  %zu (%zu x %zu blocks, %zu tasks)\n", o.bs, nb, nb, tasks);
  std::printf("  time        %.3f s\n", seconds);
  std::printf("  GFLOP/s     %.2f\n", 2.0 / 3.0 * n * n * n / seconds * 1e-9);
  if (!o.check) std::printf("  check       skipped\n");
}

bool print_check(const Options& o, double residual) {
  // Backward-error scale of LU: a small multiple of N * machine epsilon.
  const double tol = 16.0 * static_cast<double>(o.n) * DBL_EPSILON;
  const bool pass = residual <= tol;
  std::printf("  residual    %.3e  (||A - L*U||_max / ||A||_max, tolerance %.1e)  %s\n", residual,
              tol, pass ? "PASS" : "FAIL");
  return pass;
}

}  // namespace lub
