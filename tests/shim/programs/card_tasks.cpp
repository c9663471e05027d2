// The C++ side of card_tasks.c: device(mic) task functions translated by
// joulecc, in a namespace, with the transfers checked through
// joule::card_status(): a chain of 10 card tasks on x copies it in once, the
// second task's copy_in of x finds it already on the card, and only what the
// host needs comes back.
#include <unistd.h>
#include <joule/offload.hpp>

#include <cstdio>
#include <vector>

namespace kernels {

#pragma oss task device(mic) copy_deps inout(x[0;n])
void add_one(long n, double *x) {
  for (long i = 0; i < n; i++) x[i] += 1.0;
}

#pragma oss task device(mic) in(a[0;n]) out(b[0;n]) copy_in(a[0;n]) copy_out(b[0;n])
void twice(long n, const double *a, double *b) {
  for (long i = 0; i < n; i++) b[i] = 2.0 * a[i];
}

#pragma oss task device(mic) out(*where)
void card_pid(long *where) { *where = long(getpid()); }

}  // namespace kernels

int main() {
  const long n = 1000;
  std::vector<double> xv(n, 0.0), yv(n, 0.0);
  double *x = xv.data(), *y = yv.data();
  long pid = 0, seen = -1;
  const joule::card_energy before = joule::card_status();
  for (int k = 0; k < 10; k++) kernels::add_one(n, x);
  kernels::twice(n, x, y);
#pragma oss task in(y[0;n]) out(seen)
  seen = long(y[5]);
  kernels::card_pid(&pid);
#pragma oss taskwait
  const joule::card_energy after = joule::card_status();
  const unsigned long to_card = after.bytes_to_card - before.bytes_to_card;
  const unsigned long to_host = after.bytes_to_host - before.bytes_to_host;
  int bad = 0;
  for (long i = 0; i < n; i++) bad += xv[i] != 10.0 || yv[i] != 20.0;
  std::printf("seen %ld card pid %ld host pid %ld; to card %lu bytes, to host %lu bytes\n", seen,
              pid, long(getpid()), to_card, to_host);
  // x in once; y back for the host task, x and pid back at taskwait.
  const unsigned long x_bytes = n * sizeof(double);
  if (bad || seen != 20 || pid <= 0 || pid == long(getpid())) return 1;
  if (to_card != x_bytes || to_host != 2 * x_bytes + sizeof(long)) return 2;
  std::printf("OK\n");
  return 0;
}
