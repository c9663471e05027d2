// joule-advisor's outputs: the configuration table as CSV, the (time,
// energy) plane as a hand-written SVG, and the one-line description of a
// configuration used on the terminal.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "configs.hpp"

namespace joule::advisor {

// "card 120 threads balanced (60 cores x 2) 1.053 GHz"
std::string describe(const Config& c);

// Header: device,threads,placement,cores,threads_per_core,freq_ghz,time_s,
// energy_j,power_w,pareto. Throws InputError when the file cannot be written.
void write_csv(const std::string& path, const std::vector<Config>& configs,
               const std::vector<size_t>& front);

// All configurations in grey, the front in red, the chosen one in blue.
void write_svg(const std::string& path, const std::vector<Config>& configs,
               const std::vector<size_t>& front, std::optional<size_t> chosen);

}  // namespace joule::advisor
