// White-box helper of the key tests: the message a bad KEY=VALUE gives.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "config.hpp"
#include "joule/types.hpp"

namespace joule_test {

// The error Config::set throws for key=value (checked to be a
// JOULE_ERR_CONFIG), or "" when the value is accepted.
inline std::string config_error_of(const char* key, const char* value) {
  joule::core::Config c;
  try {
    c.set(key, value);
  } catch (const joule::error& e) {
    EXPECT_EQ(e.code(), JOULE_ERR_CONFIG);
    return e.what();
  }
  return "";
}

}  // namespace joule_test
