// The public copy regions (joule/offload.hpp) as the card tasks layer's,
// for the card's and the GPUs' API (offload_api.cpp, cuda_api.cpp).
#pragma once

#include <vector>

#include "card_tasks.hpp"
#include "joule/offload.hpp"

namespace joule::detail {

inline std::vector<card_tasks::CopyRegion> copies_of(const copy_region* copies, std::size_t n) {
  std::vector<card_tasks::CopyRegion> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    out.push_back({copies[i].addr, copies[i].bytes, int(copies[i].dir)});
  return out;
}

}  // namespace joule::detail
