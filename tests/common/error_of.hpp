// The message of the joule::error a call throws, for tests of bad input.
#pragma once

#include <string>

#include <joule/types.hpp>

namespace joule_test {

// f()'s joule::error message, or "" when f returns normally.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const joule::error& e) {
    return e.what();
  }
  return "";
}

}  // namespace joule_test
