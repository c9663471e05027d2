// Finding and starting an OMPT tool (OpenMP 5.2 §19.2): the program's own
// ompt_start_tool first, then each library of OMP_TOOL_LIBRARIES in turn;
// the first that returns a non-null result is initialised with the lookup
// function (ompt_lookup.cpp) and finalised at exit or ompt_finalize_tool.
// OMP_TOOL=disabled skips the search; OMP_TOOL_VERBOSE_INIT logs it.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "joule/team.h"
#include "ompt.hpp"
#include "team.hpp"

namespace joule::omp::ompt {

InterfaceFn lookup(const char* name);  // ompt_lookup.cpp

bool g_on = false;

namespace {

constexpr unsigned kOmpVersion = 201811;  // OpenMP 5.0, as _OPENMP of the LLVM ABI programs
constexpr const char* kRuntimeVersion = "libjoule-omp (joule)";

StartToolResult* g_result = nullptr;
FILE* g_log = nullptr;

void log_line(const char* fmt, const char* a = "", const char* b = "") {
  if (!g_log) return;
  std::fprintf(g_log, fmt, a, b);
  std::fputc('\n', g_log);
  std::fflush(g_log);
}

FILE* open_log(const char* where) {
  if (!*where) return nullptr;
  if (!std::strcmp(where, "stdout")) return stdout;
  if (!std::strcmp(where, "stderr")) return stderr;
  FILE* f = std::fopen(where, "w");
  if (!f) std::fprintf(stderr, "libjoule-omp: OMP_TOOL_VERBOSE_INIT: cannot open %s\n", where);
  return f;
}

StartToolResult* try_start(StartTool start, const char* where) {
  StartToolResult* r = start(kOmpVersion, kRuntimeVersion);
  log_line(r ? "Tool found in %s: ompt_start_tool returned a result"
             : "Tool found in %s: ompt_start_tool returned NULL",
           where);
  return r;
}

// Each library of the list in turn (dlopen'ed; kept open when it is used).
StartToolResult* search_libraries(const char* list) {
  std::string all(list);
  std::size_t at = 0;
  while (at <= all.size()) {
    std::size_t end = all.find(':', at);
    if (end == std::string::npos) end = all.size();
    const std::string name = all.substr(at, end - at);
    at = end + 1;
    if (name.empty()) continue;
    log_line("Opening %s", name.c_str());
    void* h = dlopen(name.c_str(), RTLD_LAZY);
    if (!h) {
      log_line("  failed: %s", dlerror());
      continue;
    }
    auto start = reinterpret_cast<StartTool>(dlsym(h, "ompt_start_tool"));
    if (!start) {
      log_line("  %s defines no ompt_start_tool", name.c_str());
      dlclose(h);
      continue;
    }
    if (StartToolResult* r = try_start(start, name.c_str())) return r;
    dlclose(h);
  }
  return nullptr;
}

StartToolResult* search(const joule_omp_tool_settings_t& s) {
  log_line("libjoule-omp: searching for an OMPT tool (OMP_TOOL_LIBRARIES=%s)%s", s.libraries);
  // The program's (or a preloaded library's) own; libjoule-omp defines none.
  if (auto start = reinterpret_cast<StartTool>(dlsym(RTLD_DEFAULT, "ompt_start_tool")))
    if (StartToolResult* r = try_start(start, "the program")) return r;
  return search_libraries(s.libraries);
}

void finalize_at_exit() { finalize_tool(); }

}  // namespace

void start_tool() {
  joule_omp_tool_settings_t s{};
  s.struct_size = sizeof s;
  if (joule_omp_get_tool_settings(&s) != JOULE_OK) fail_start(joule_last_error());
  if (!s.tool) return;
  g_log = open_log(s.verbose_init);
  g_result = search(s);
  if (!g_result) {
    log_line("No OMPT tool found%s", "");
    return;
  }
  // The initializer may register callbacks; events start after it returns non-zero.
  if (!g_result->initialize(lookup, 0 /* the host: omp_get_initial_device() */,
                            &g_result->tool_data)) {
    log_line("The tool's initializer returned 0: the tool is not active%s", "");
    g_result = nullptr;
    return;
  }
  log_line("The tool is active%s", "");
  g_on = true;
  thread_start(kThreadInitial);
  std::atexit(finalize_at_exit);
}

// ompt_finalize_tool, and the exit: the initial thread's end, then the
// tool's finalizer; no event is reported afterwards.
void finalize_tool() {
  if (!g_on || !g_result) return;
  thread_finish();
  g_on = false;
  StartToolResult* r = g_result;
  g_result = nullptr;
  if (r->finalize) r->finalize(&r->tool_data);
  log_line("The tool was finalized%s", "");
}

}  // namespace joule::omp::ompt
