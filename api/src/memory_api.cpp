// The C ABI of joule/memory.h: arguments to the engine's terms, errors to
// joule_last_error. The placement itself is NumaPlacement::place (numa_placement.cpp).
#include <new>
#include <string>

#include "joule/joule.h"
#include "joule/memory.h"
#include "numa_memory.hpp"
#include "runtime.hpp"

namespace joule::api {

// c_api.cpp's per-thread message, set through its exported setter.
void set_last_error(const std::string& msg);

}  // namespace joule::api

namespace {

using joule::engine::NumaMemory;
using joule::engine::PlaceRequest;
using joule::engine::Runtime;

PlaceRequest to_request(const joule_placement_t* where) {
  PlaceRequest r;
  if (!where) return r;
  switch (where->kind) {
    case JOULE_PLACE_LOCAL:
      r.kind = PlaceRequest::local;
      break;
    case JOULE_PLACE_INTERLEAVED:
      r.kind = PlaceRequest::interleaved;
      break;
    case JOULE_PLACE_NODE:
      r.kind = PlaceRequest::on_node;
      break;
    case JOULE_PLACE_BY_KEY:
      r.kind = PlaceRequest::by_key;
      break;
    default:
      throw joule::error(JOULE_ERR_INVALID,
                         "joule_alloc: placement kind " + std::to_string(where->kind) +
                             " is not one of JOULE_PLACE_LOCAL (0), JOULE_PLACE_INTERLEAVED (1), "
                             "JOULE_PLACE_NODE (2), JOULE_PLACE_BY_KEY (3)");
  }
  r.node = where->node;
  r.key = where->key;
  r.chunk_bytes = where->chunk_bytes;
  r.init = where->init;
  r.init_arg = where->init_arg;
  return r;
}

}  // namespace

extern "C" {

void* joule_alloc(size_t bytes, const joule_placement_t* where) {
  try {
    return Runtime::get().numa().place(bytes, to_request(where));
  } catch (const joule::error& e) {
    joule::api::set_last_error(e.what());
  } catch (const std::bad_alloc&) {
    joule::api::set_last_error("joule_alloc: out of memory (" + std::to_string(bytes) + " bytes)");
  }
  return nullptr;
}

int joule_free(void* p) {
  if (!p) return JOULE_OK;
  if (NumaMemory::instance().release(p)) return JOULE_OK;
  joule::api::set_last_error("joule_free: the pointer is not the start of memory from joule_alloc");
  return JOULE_ERR_INVALID;
}

// Both may start the runtime: a bad setting gives -1 and the message, as
// for joule_alloc (an exception must not cross the C boundary).
int joule_numa_node_count(void) {
  try {
    return Runtime::get().numa().nodes().nodes();
  } catch (const joule::error& e) {
    joule::api::set_last_error(e.what());
    return -1;
  }
}

int joule_node_of_key(uint64_t key) {
  try {
    Runtime& rt = Runtime::get();
    return rt.numa().nodes().node_of(rt.numa().worker_of_key(key));
  } catch (const joule::error& e) {
    joule::api::set_last_error(e.what());
    return -1;
  }
}

int joule_node_of_address(const void* p) {
  joule::engine::MemoryRecord r;
  if (NumaMemory::instance().find(p, r) && r.node >= 0)
    return r.node_at(reinterpret_cast<std::uintptr_t>(p));
  return NumaMemory::kernel_node_of(p);
}

}  // extern "C"
