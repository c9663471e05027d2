// See mpi_yield.hpp. Reads only the MPI library's own variables (and HOME to
// find Open MPI's per-user parameter file); joule's settings come through the
// C ABI.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include "mpi_yield.hpp"

#include <dlfcn.h>
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace joule::mpi {
namespace {

bool is_set(const std::string& name) { return std::getenv(name.c_str()) != nullptr; }

// setenv without overwriting: a value that appeared meanwhile wins.
void set_default(const std::string& name, const char* value, std::vector<std::string>& out) {
  if (is_set(name) || ::setenv(name.c_str(), value, 0) != 0) return;
  out.push_back(name + "=" + value);
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  for (std::size_t p = 0; p <= s.size();) {
    const std::size_t e = std::min(s.find(sep, p), s.size());
    if (e > p) out.emplace_back(s.substr(p, e - p));
    p = e + 1;
  }
  return out;
}

// The directory two levels above the file that defines PMPI_Init
// (/opt/ompi/lib/libmpi.so -> /opt/ompi), or "".
std::string library_prefix() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&PMPI_Init), &info) == 0 || !info.dli_fname) return "";
  std::string path = info.dli_fname;
  for (int up = 0; up < 2; ++up) {
    const auto slash = path.rfind('/');
    if (slash == std::string::npos) return "";
    path.resize(slash);
  }
  return path;
}

// Open MPI's MCA parameter files: the list the user gave, else the per-user
// file and the usual places of the system-wide one.
std::vector<std::string> open_mpi_param_files() {
  if (const char* list = std::getenv("OMPI_MCA_mca_base_param_files")) return split(list, ':');
  std::vector<std::string> files;
  if (const char* home = std::getenv("HOME"))
    files.push_back(std::string(home) + "/.openmpi/mca-params.conf");
  if (const char* dir = std::getenv("OPAL_SYSCONFDIR"))
    files.push_back(std::string(dir) + "/openmpi-mca-params.conf");
  if (const char* dir = std::getenv("OPAL_PREFIX"))
    files.push_back(std::string(dir) + "/etc/openmpi-mca-params.conf");
  if (const std::string p = library_prefix(); !p.empty())
    files.push_back(p + "/etc/openmpi-mca-params.conf");
  files.emplace_back("/etc/openmpi/openmpi-mca-params.conf");
  files.emplace_back("/etc/openmpi-mca-params.conf");
  return files;
}

// Does a line of the file set `param` ("param = value", leading blanks allowed)?
bool file_sets(const std::string& file, std::string_view param) {
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    const auto start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line.compare(start, param.size(), param) != 0) continue;
    const auto next = line.find_first_not_of(" \t", start + param.size());
    if (next != std::string::npos && line[next] == '=') return true;
  }
  return false;
}

void open_mpi_yield(std::vector<std::string>& out) {
  constexpr std::string_view param = "mpi_yield_when_idle";
  for (const auto& f : open_mpi_param_files())
    if (file_sets(f, param)) return;  // the user's (or the site's) choice
  set_default("OMPI_MCA_" + std::string(param), "1", out);
}

// MPICH reads a control variable X from MPIR_CVAR_X, MPICH_X or MPIR_PARAM_X.
void mpich_default(const std::string& cvar, const char* value, std::vector<std::string>& out) {
  for (const char* prefix : {"MPIR_CVAR_", "MPICH_", "MPIR_PARAM_"})
    if (is_set(prefix + cvar)) return;
  set_default("MPIR_CVAR_" + cvar, value, out);
}

}  // namespace

MpiLibrary detect_library() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  if (PMPI_Get_library_version(version, &len) != MPI_SUCCESS) return MpiLibrary::other;
  const std::string_view v(version, std::size_t(len > 0 ? len : 0));
  if (v.find("Open MPI") != std::string_view::npos) return MpiLibrary::open_mpi;
  if (v.find("MPICH") != std::string_view::npos && v.find("Intel") == std::string_view::npos)
    return MpiLibrary::mpich;
  return MpiLibrary::other;
}

std::vector<std::string> ask_library_to_yield(MpiLibrary lib) {
  std::vector<std::string> set;
  if (lib == MpiLibrary::open_mpi) {
    open_mpi_yield(set);
  } else if (lib == MpiLibrary::mpich) {
    mpich_default("POLLS_BEFORE_YIELD", "1", set);
    mpich_default("CH4_PROGRESS_THROTTLE", "1", set);
  }
  return set;
}

}  // namespace joule::mpi
