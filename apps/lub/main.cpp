// lub: blocked LU factorisation (no pivoting) of a diagonally dominant random
// matrix on the joule C++ API, with a residual check against a copy.
//
//   lub [--n N] [--bs B] [--workers W] [--seed S] [--check | --no-check]
//
// Exit status: 0 on PASS, 1 on a failed check, 2 on bad arguments or a
// runtime error.
#include <joule/joule.hpp>

#include <cfloat>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "block_matrix.hpp"
#include "lu_tasks.hpp"

namespace {

struct Options {
  std::size_t n = 2048;
  std::size_t bs = 128;
  int workers = -1;  // -1: leave JOULE_WORKERS / the environment alone
  std::uint64_t seed = 42;
  bool check = true;
};

void usage(std::FILE* out) {
  std::fprintf(out,
               "usage: lub [--n N] [--bs B] [--workers W] [--seed S] [--check | --no-check]\n"
               "  --n N        matrix order, a multiple of B (default 2048)\n"
               "  --bs B       block size (default 128)\n"
               "  --workers W  joule workers, 0 = one per CPU (default: JOULE_WORKERS or 0)\n"
               "  --seed S     random seed (default 42)\n"
               "  --check      verify ||A - L*U||_max / ||A||_max (default)\n"
               "  --no-check   skip the verification\n");
}

// Parses a positive decimal count; exits with status 2 on anything else.
std::uint64_t parse_count(std::string_view flag, const char* text, bool allow_zero) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (end == text || *end != '\0' || text[0] == '-' || (v == 0 && !allow_zero)) {
    std::fprintf(stderr, "lub: %.*s needs a %s integer, got '%s'\n", static_cast<int>(flag.size()),
                 flag.data(), allow_zero ? "non-negative" : "positive", text);
    std::exit(2);
  }
  return v;
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--check") {
      o.check = true;
    } else if (a == "--no-check") {
      o.check = false;
    } else if (a == "-h" || a == "--help") {
      usage(stdout);
      std::exit(0);
    } else if (has_value && a == "--n") {
      o.n = parse_count(a, argv[++i], false);
    } else if (has_value && a == "--bs") {
      o.bs = parse_count(a, argv[++i], false);
    } else if (has_value && a == "--workers") {
      o.workers = static_cast<int>(parse_count(a, argv[++i], true));
    } else if (has_value && a == "--seed") {
      o.seed = parse_count(a, argv[++i], true);
    } else {
      std::fprintf(stderr, "lub: unknown or incomplete option '%s'\n", argv[i]);
      usage(stderr);
      std::exit(2);
    }
  }
  if (o.n % o.bs != 0) {
    std::fprintf(stderr, "lub: --n %zu is not a multiple of --bs %zu\n", o.n, o.bs);
    std::exit(2);
  }
  return o;
}

int run(const Options& o) {
  // The settings are an initializer list, so the two cases are two constructions.
  using Settings = std::initializer_list<std::pair<std::string, std::string>>;
  std::optional<joule::runtime> rt;
  if (o.workers >= 0) {
    rt.emplace(Settings{{"JOULE_WORKERS", std::to_string(o.workers)}});
  } else {
    rt.emplace();
  }

  const std::size_t nb = o.n / o.bs;
  lub::BlockMatrix m(nb, o.bs);
  m.fill_diagonally_dominant(o.seed);
  std::optional<lub::BlockMatrix> original;
  if (o.check) original.emplace(m);

  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t tasks = lub::factorize(m);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double n = static_cast<double>(o.n);
  const double gflops = 2.0 / 3.0 * n * n * n / secs * 1e-9;

  std::printf("lub: blocked LU without pivoting on joule %s\n", joule::version());
  std::printf("  workers     %d\n", joule::num_workers());
  std::printf("  N           %zu\n", o.n);
  std::printf("  block size  %zu (%zu x %zu blocks, %zu tasks)\n", o.bs, nb, nb, tasks);
  std::printf("  time        %.3f s\n", secs);
  std::printf("  GFLOP/s     %.2f\n", gflops);
  if (!o.check) {
    std::printf("  check       skipped\n");
    return 0;
  }
  // Backward-error scale of LU: a small multiple of N * machine epsilon.
  const double tol = 16.0 * n * DBL_EPSILON;
  const double residual = lub::relative_residual(*original, m);
  const bool pass = residual <= tol;
  std::printf("  residual    %.3e  (||A - L*U||_max / ||A||_max, tolerance %.1e)  %s\n", residual,
              tol, pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse_options(argc, argv);
  try {
    return run(o);
  } catch (const joule::error& e) {
    std::fprintf(stderr, "lub: joule error %d: %s\n", static_cast<int>(e.code()), e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lub: %s\n", e.what());
  }
  return 2;
}
