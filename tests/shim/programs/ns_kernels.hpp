// A task function declared in a header, inside namespaces, with a default argument.
#pragma once
#include <vector>
namespace a {
namespace b {
#pragma oss task inout(v[i])
void bump(std::vector<int>& v, int i, int by = 1);
}  // namespace b
}  // namespace a
