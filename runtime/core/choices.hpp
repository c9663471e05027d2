// A setting with a fixed set of values is an enum with a table of names:
//   enum class LewiMode { off, local, node };
//   inline constexpr std::pair<const char*, LewiMode> kLewiModes[] = {{"off", ...}, ...};
// The table parses and prints the key (KeyTable::choice) and names a value
// in messages and reports (choice_name).
#pragma once

#include <span>
#include <string>
#include <utility>

namespace joule::core {

// The names of an enum's values, in the order `allowed values` lists them.
template <class E>
using Choices = std::span<const std::pair<const char*, E>>;

template <class E>
const char* choice_name(Choices<E> names, E value) {
  for (const auto& [n, v] : names)
    if (v == value) return n;
  return "?";
}

template <class E>
std::string choice_list(Choices<E> names) {
  std::string out;
  for (const auto& [n, v] : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

}  // namespace joule::core
