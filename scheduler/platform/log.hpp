// One-line messages of the platform layer on stderr. A warning is printed
// once per key per process, so a missing capability never spams.
#pragma once

#include <string>

namespace joule::platform {

// Prints "joule: warning: <msg>" the first time `key` is seen; true if printed.
bool warn_once(const std::string& key, const std::string& msg);
void note(const std::string& msg);  // "joule: <msg>"
// Forgets which warnings were printed (tests).
void reset_warnings();

}  // namespace joule::platform
