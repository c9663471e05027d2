/* Statement tasks in a header that computed.h includes as SCALE_HEADER,
 * and that the tests also give with -include. */
#ifndef SCALE_H
#define SCALE_H

static inline void scale(int n, double *v, double f) {
  for (int i = 0; i < n; i += 8) {
    int len = i + 8 < n ? 8 : n - i;
#pragma oss task inout(v[i;len])
    for (int k = i; k < i + len; ++k) v[k] *= f;
  }
#pragma oss taskwait
}

#endif
