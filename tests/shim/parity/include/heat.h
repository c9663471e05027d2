/* C header with statement tasks in static inline functions, included by
 * heat_a.c and heat_b.c, each translated on its own. */
#ifndef HEAT_H
#define HEAT_H

static inline void relax(int n, double *u, int sweeps) {
  for (int s = 0; s < sweeps; ++s) {
    for (int b = 1; b < n - 1; b += 16) {
      int len = b + 16 < n - 1 ? 16 : n - 1 - b;
#pragma oss task inout(u[b;len]) in(u[b-1], u[b+len])
      for (int i = b; i < b + len; ++i) u[i] = 0.5 * (u[i - 1] + u[i + 1]);
    }
  }
#pragma oss taskwait
}

#endif
