/* nvml_probe: whether NVML (libnvidia-ml.so.1) loads here, and what it can
 * read without changing anything: per GPU its name, power, energy counter,
 * clocks, temperature and whether setting application clocks needs root.
 * scripts/device-check runs it on the lent GPU machine; it is linked with no
 * NVIDIA library, so it builds and runs (reporting "not loadable") anywhere.
 *
 *   nvml_probe [library]      (default libnvidia-ml.so.1)
 *
 * Exit 0 when NVML initialised, 1 when it did not load or initialise. The
 * signatures below are those of NVML's documented C API (nvml.h), whose
 * enums are passed as int. */
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

typedef int nvmlReturn_t; /* 0: NVML_SUCCESS */
typedef void* nvmlDevice_t;

typedef nvmlReturn_t (*VoidFn)(void);
typedef nvmlReturn_t (*TextFn)(char*, unsigned);
typedef nvmlReturn_t (*CountFn)(unsigned*);
typedef nvmlReturn_t (*ByIndexFn)(unsigned, nvmlDevice_t*);
typedef nvmlReturn_t (*NameFn)(nvmlDevice_t, char*, unsigned);
typedef nvmlReturn_t (*UintFn)(nvmlDevice_t, unsigned*);
typedef nvmlReturn_t (*KindUintFn)(nvmlDevice_t, int, unsigned*);
typedef nvmlReturn_t (*KindIntFn)(nvmlDevice_t, int, int*);
typedef nvmlReturn_t (*EnergyFn)(nvmlDevice_t, unsigned long long*);
typedef const char* (*ErrorFn)(nvmlReturn_t);

enum { kClockSm = 1, kClockMem = 2, kTemperatureGpu = 0, kApiSetApplicationClocks = 0 };

static void* lib;

static void* sym(const char* name) { return dlsym(lib, name); }

static const char* why(nvmlReturn_t r) {
  ErrorFn err = (ErrorFn)sym("nvmlErrorString");
  return err ? err(r) : "error";
}

static void unavailable(const char* label, const void* fn, nvmlReturn_t r) {
  printf("    %-28s unavailable (%s)\n", label, fn ? why(r) : "no such function");
}

/* A reading of FN (scaled by SCALE), or why there is none. */
static void print_uint(nvmlDevice_t dev, const char* fn, const char* label, double scale,
                       const char* unit) {
  UintFn f = (UintFn)sym(fn);
  unsigned v = 0;
  nvmlReturn_t r = f ? f(dev, &v) : -1;
  if (r == 0)
    printf("    %-28s %.1f %s\n", label, v * scale, unit);
  else
    unavailable(label, f, r);
}

/* The same for the functions that take a kind (clock type, sensor). */
static void print_kind(nvmlDevice_t dev, const char* fn, int kind, const char* label,
                       const char* unit) {
  KindUintFn f = (KindUintFn)sym(fn);
  unsigned v = 0;
  nvmlReturn_t r = f ? f(dev, kind, &v) : -1;
  if (r == 0)
    printf("    %-28s %u %s\n", label, v, unit);
  else
    unavailable(label, f, r);
}

/* The energy counter over 0.5 s: whether it is there and moves. */
static void print_energy(nvmlDevice_t dev) {
  EnergyFn f = (EnergyFn)sym("nvmlDeviceGetTotalEnergyConsumption");
  unsigned long long a = 0, b = 0; /* mJ */
  nvmlReturn_t r = f ? f(dev, &a) : -1;
  if (r != 0) {
    unavailable("energy counter", f, r);
    return;
  }
  const struct timespec half = {0, 500000000L};
  nanosleep(&half, NULL);
  f(dev, &b);
  printf("    %-28s %.3f J since driver load; %.1f W over 0.5 s\n", "energy counter", a / 1e3,
         (b - a) / 1e3 / 0.5);
}

/* Whether application clocks may be set by this user (read, not set). */
static void print_restriction(nvmlDevice_t dev) {
  KindIntFn f = (KindIntFn)sym("nvmlDeviceGetAPIRestriction");
  int restricted = 0;
  nvmlReturn_t r = f ? f(dev, kApiSetApplicationClocks, &restricted) : -1;
  if (r == 0)
    printf("    %-28s %s\n", "set application clocks", restricted ? "root only" : "any user");
  else
    unavailable("set application clocks", f, r);
}

static void print_device(unsigned i) {
  ByIndexFn by_index = (ByIndexFn)sym("nvmlDeviceGetHandleByIndex_v2");
  NameFn name = (NameFn)sym("nvmlDeviceGetName");
  nvmlDevice_t dev = NULL;
  char text[96] = "?";
  if (!by_index || by_index(i, &dev) != 0) {
    printf("  GPU %u: no handle\n", i);
    return;
  }
  if (name) name(dev, text, sizeof text);
  printf("  GPU %u: %s\n", i, text);
  print_uint(dev, "nvmlDeviceGetPowerUsage", "power draw", 1e-3, "W");
  print_uint(dev, "nvmlDeviceGetPowerManagementLimit", "power limit", 1e-3, "W");
  print_energy(dev);
  print_kind(dev, "nvmlDeviceGetClockInfo", kClockSm, "SM clock", "MHz");
  print_kind(dev, "nvmlDeviceGetMaxClockInfo", kClockSm, "SM clock max", "MHz");
  print_kind(dev, "nvmlDeviceGetClockInfo", kClockMem, "memory clock", "MHz");
  print_kind(dev, "nvmlDeviceGetTemperature", kTemperatureGpu, "temperature", "C");
  print_restriction(dev);
}

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "libnvidia-ml.so.1";
  lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    printf("NVML: %s not loadable (%s)\n", path, dlerror());
    return 1;
  }
  VoidFn init = (VoidFn)sym("nvmlInit_v2");
  nvmlReturn_t r = init ? init() : -1;
  if (r != 0) {
    printf("NVML: %s loaded, nvmlInit_v2 %s\n", path, init ? why(r) : "missing");
    return 1;
  }
  char driver[96] = "?";
  TextFn version = (TextFn)sym("nvmlSystemGetDriverVersion");
  if (version) version(driver, sizeof driver);
  CountFn count = (CountFn)sym("nvmlDeviceGetCount_v2");
  unsigned n = 0;
  if (count) count(&n);
  printf("NVML: %s loaded and initialised; driver %s, %u GPU(s)\n", path, driver, n);
  for (unsigned i = 0; i < n; ++i) print_device(i);
  VoidFn shutdown = (VoidFn)sym("nvmlShutdown");
  if (shutdown) shutdown();
  return 0;
}
