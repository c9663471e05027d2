// Card tasks for translated code: `#pragma oss task device(mic)` on a task
// function (docs/offload.md, "joulecc: device(mic)"). The wrapper joulecc
// writes packs the function's arguments into a block and describes each
// (offset, pointer or not, name); on the card, card_entry below replaces
// every pointer argument by the card's copy of what it points at, then calls
// joulecc's call function, which calls the task function. The card is a fork
// of this program, so every function pointer and the static descriptions are
// valid there. The remapping is here, in C++, so that its errors are thrown
// from C++ frames only (a C call function has no unwind tables). Only the
// public joule API is used.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "joule/offload.hpp"
#include "joule/ompss.h"

namespace {

// What the card receives: this header, then the argument block at kArgsAt.
struct CardHeader {
  joule_oss_card_call_t call;
  const joule_oss_card_arg_t* table;
  size_t nargs;
};
constexpr size_t kArgsAt = (sizeof(CardHeader) + 15) & ~size_t(15);

// The host's static addresses (call function, table, names) as the card
// sees them: a joule-card daemon's worker loads the program elsewhere.
template <class T>
T on_card(T host) {
  return reinterpret_cast<T>(
      const_cast<void*>(joule::detail::card_host_static(reinterpret_cast<const void*>(host))));
}

void remap(void* ctx, unsigned char* args, const joule_oss_card_arg_t& a) {
  if (!a.is_pointer) return;
  void* p;
  std::memcpy(&p, args + a.offset, sizeof p);
  if (!p) return;  // a null pointer stays null
  try {
    p = joule::detail::card_map(ctx, p);
  } catch (const joule::error& e) {
    throw joule::error(JOULE_ERR_INVALID, std::string("joule card: argument '") + on_card(a.name) +
                                              "' of the card task: " + e.what());
  }
  std::memcpy(args + a.offset, &p, sizeof p);
}

void card_entry(void* block, void* ctx) {
  const auto* h = static_cast<const CardHeader*>(block);
  unsigned char* args = static_cast<unsigned char*>(block) + kArgsAt;
  const joule_oss_card_arg_t* table = on_card(h->table);
  for (size_t i = 0; i < h->nargs; ++i) remap(ctx, args, table[i]);
  on_card(h->call)(args);
}

// The host task that launches the card task: a copy of the argument block.
struct CardCall {
  joule::detail::card_fn fn;
  std::vector<unsigned char> args;  // operator new: aligned to 16, as commands are
  std::vector<joule::dep> deps;
  std::vector<joule::copy_region> copies;
  int device;
  bool copy_deps;
  void operator()() const {
    joule::detail::card_run(device, fn, args.data(), args.size(), 16, deps.data(), deps.size(),
                            copy_deps, copies.data(), copies.size());
  }
};

joule::copy_dir copy_dir_of(int kind) {
  if (kind == JOULE_DEP_IN) return joule::copy_dir::in;
  if (kind == JOULE_DEP_OUT) return joule::copy_dir::out;
  return joule::copy_dir::inout;
}

// "mic": the card; "smp,mic" / "mic,smp": the card if there is one, else here.
int pick_device(const char* devices) {
  const bool smp_too = devices && std::strstr(devices, "smp") != nullptr;
  if (smp_too && joule::card_status().pid < 0) return int(joule::device::host);
  return int(joule::device::mic);
}

CardCall make_call(const CardHeader& h, const void* args, size_t size, joule_oss_deps_t* deps,
                   int copy_deps, joule_oss_deps_t* copies, const char* devices) {
  CardCall call{&card_entry, {}, {}, {}, pick_device(devices), copy_deps != 0};
  call.args.resize(kArgsAt + size);
  std::memcpy(call.args.data(), &h, sizeof h);
  if (size) std::memcpy(call.args.data() + kArgsAt, args, size);
  for (size_t i = 0; i < deps->n; ++i) {
    const joule_dep_t& d = deps->deps[i];
    call.deps.push_back({static_cast<joule::dep_kind>(d.kind), d.addr, d.bytes});
  }
  for (size_t i = 0; i < copies->n; ++i) {
    const joule_dep_t& c = copies->deps[i];
    call.copies.push_back({copy_dir_of(c.kind), c.addr, c.bytes});
  }
  return call;
}

}  // namespace

extern "C" {

void joule_oss_card_task(joule_oss_card_call_t call_fn, const joule_oss_card_arg_t* table,
                         size_t nargs, const void* args, size_t args_size,
                         const joule_task_options_t* opts, joule_oss_deps_t* deps, int copy_deps,
                         joule_oss_deps_t* copies, const char* devices) {
  CardCall call =
      make_call({call_fn, table, nargs}, args, args_size, deps, copy_deps, copies, devices);
  joule_oss_deps_free(deps);
  joule_oss_deps_free(copies);
  void* entered = nullptr;
  try {
    entered = joule::detail::card_enter(call.device, call.deps.data(), call.deps.size(),
                                        call.copy_deps, call.copies.data(), call.copies.size());
    const std::vector<joule::dep> deps_copy = call.deps;
    joule::detail::submit_callable(deps_copy, std::move(call), joule::detail::to_options(opts));
  } catch (const std::exception& e) {
    joule::detail::card_leave(entered, false);
    std::fprintf(stderr, "joule: card task failed: %s\n", e.what());
    std::abort();
  }
  joule::detail::card_leave(entered, true);
}

}  // extern "C"
