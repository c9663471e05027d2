// Parsers for scenario values. Each throws ValueError with what is allowed;
// make_scenario adds the key and the origin to the message.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "scenario.hpp"

namespace joule::sim {

struct ValueError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

double parse_number(const std::string& v, double lo, double hi);
int parse_int(const std::string& v, int lo, int hi);
bool parse_bool(const std::string& v);
std::vector<double> parse_numbers(const std::string& v, double lo, double hi);
std::string parse_choice(const std::string& v, const std::vector<std::string>& allowed);
// "1.2,1.3,2.4" or "lo-hi:step" (GHz), ascending, no repeats.
std::vector<double> parse_pstates(const std::string& v);
// "linear:a,b", "cubic:Ps,k" or "table:w1,w2,...".
PowerModel parse_power(const std::string& v);

}  // namespace joule::sim
