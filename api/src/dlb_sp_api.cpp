// DLB's subprocess API (dlb_sp.h): DLB_Init_sp opens a participant of its
// own in the node table, with an id of its own (the process's pid and the
// handle's number, runtime/lending/os_support.hpp), its own CPUs, hints and
// callbacks, so that a runtime managing several subprocesses in one process
// lends and borrows between them as between processes. The verbs live with
// their process forms (dlb_api.cpp, dlb_lewi_api.cpp, dlb_mask_api.cpp,
// dlb_drom_api.cpp); this file keeps the handles.
#include <map>
#include <memory>
#include <string>

#include "config.hpp"
#include "dlb_internal.hpp"
#include "joule/dlb/dlb_sp.h"
#include "lending_settings.hpp"

namespace joule::dlb {
namespace {

// Live handles by number (1, 2, ...: the id's upper bits); api_mutex held.
std::map<int, std::unique_ptr<SubProcess>>& handles() {
  static std::map<int, std::unique_ptr<SubProcess>> h;
  return h;
}

int free_number() {
  int n = 1;
  for (const auto& [k, sp] : handles())
    if (k == n) ++n;
  return n;
}

// The node table whatever JOULE_LENDING says: subprocesses of one process
// lend to each other (and to other processes) through it.
lending::LewiOptions sp_options() {
  lending::LewiOptions o;
  try {
    o = lending::options_from(core::Config::load({}));
  } catch (const std::exception&) {
  }
  o.mode = "node";
  return o;
}

}  // namespace

SubProcess* live_handle(dlb_handler_t h) {
  for (auto& [k, sp] : handles())
    if (sp.get() == h) return sp.get();
  return nullptr;
}

bool live(dlb_handler_t h) {
  std::lock_guard guard(api_mutex());
  return h && live_handle(h);
}

}  // namespace joule::dlb

using namespace joule::dlb;

extern "C" {

dlb_handler_t DLB_Init_sp(int /*ncpus*/, const_dlb_cpu_set_t mask, const char* /*dlb_args*/) {
  std::lock_guard guard(api_mutex());
  const int number = free_number();
  auto sp = std::make_unique<SubProcess>();
  try {
    sp->session = joule::lending::Session::join_subprocess(sp_options(), from_mask(mask), number);
  } catch (const std::exception& e) {
    joule::core::log_error(std::string("DLB_Init_sp: ") + e.what());
    return nullptr;
  }
  SubProcess* h = sp.get();
  handles()[number] = std::move(sp);
  return h;
}

int DLB_Finalize_sp(dlb_handler_t h) {
  std::lock_guard guard(api_mutex());
  for (auto it = handles().begin(); it != handles().end(); ++it)
    if (it->second.get() == h) {
      it->second->session->return_all();
      handles().erase(it);  // the session leaves the table, giving its CPUs back
      return DLB_SUCCESS;
    }
  return DLB_ERR_NOINIT;
}

// DLB's options are the process's (joule's JOULE_* settings): the handle
// only has to be live.
int DLB_GetVariable_sp(dlb_handler_t h, const char* variable, char* value) {
  return live(h) ? DLB_GetVariable(variable, value) : DLB_ERR_NOINIT;
}
int DLB_SetVariable_sp(dlb_handler_t h, const char* variable, const char* value) {
  return live(h) ? DLB_SetVariable(variable, value) : DLB_ERR_NOINIT;
}
int DLB_PrintVariables_sp(dlb_handler_t h, int print_extended) {
  return live(h) ? DLB_PrintVariables(print_extended) : DLB_ERR_NOINIT;
}
int DLB_PrintShmem_sp(dlb_handler_t h, int num_columns, int print_flags) {
  return live(h) ? DLB_PrintShmem(num_columns, print_flags) : DLB_ERR_NOINIT;
}

}  // extern "C"
