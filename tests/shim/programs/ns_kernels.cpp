// The definitions behind ns_kernels.hpp (a second translation unit).
#include "ns_kernels.hpp"

namespace a {
namespace b {
void bump(std::vector<int>& v, int i, int by) { v[i] += by; }
}  // namespace b
}  // namespace a
