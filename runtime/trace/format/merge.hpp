// joule-trace merge: the per-process traces of one MPI run into one trace,
// processes ordered by rank (then pid), times lined up by each process's
// CLOCK_MONOTONIC start (exact on one node; across nodes the clocks differ).
#pragma once

#include <string>
#include <vector>

namespace joule::trace_format {

// Paraver: inputs are .prv paths (each with its .pcf/.info beside it);
// writes <out_base>.prv/.pcf/.row/.info and returns those paths.
std::vector<std::string> merge_paraver(const std::vector<std::string>& inputs,
                                       const std::string& out_base);
// Chrome JSON: concatenates the events (timestamps are already absolute).
void merge_chrome(const std::vector<std::string>& inputs, const std::string& out_path);

}  // namespace joule::trace_format
