// The text forms of a job record's lists, as job_store.cpp keeps them in
// SQLite: CPUs as a cpulist ("0-3,8"), P-state seconds as "KHZ:S,..." with
// the seconds exact. nullopt when the text is not of that form.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace joule::service {

std::string cpus_text(std::vector<int> cpus);
std::optional<std::vector<int>> cpus_from_text(std::string_view text);
std::string pstates_text(const std::vector<std::pair<std::uint32_t, double>>& p);
std::optional<std::vector<std::pair<std::uint32_t, double>>> pstates_from_text(
    std::string_view text);

}  // namespace joule::service
