/* device(mic) task functions translated by joulecc and run on the emulated
 * card (JOULE_CARD=emulated): a chain on one array (kept on the card), copy
 * clauses without copy_deps, a host task reading the card's output, and a
 * task that reports the process it ran in. Prints OK when every result is
 * right and the card (another process) ran the card tasks. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#pragma oss task device(mic) copy_deps inout(x[0;n])
void add_one(long n, double *x) {
  for (long i = 0; i < n; i++) x[i] += 1.0;
}

#pragma oss task device(mic) in(a[0;n]) out(b[0;n]) copy_in(a[0;n]) copy_out(b[0;n])
void twice(long n, const double *a, double *b) {
  for (long i = 0; i < n; i++) b[i] = 2.0 * a[i];
}

#pragma oss task device(mic) out(*where)
void card_pid(long *where) { *where = (long)getpid(); }

int main(void) {
  const long n = 1000;
  double *x = calloc(n, sizeof(double)), *y = calloc(n, sizeof(double));
  long pid = 0, seen = -1;
  for (int k = 0; k < 10; k++) add_one(n, x);
  twice(n, x, y);
#pragma oss task in(y[0;n]) out(seen)
  seen = (long)y[5];
  card_pid(&pid);
#pragma oss taskwait
  int bad = 0;
  for (long i = 0; i < n; i++) bad += x[i] != 10.0 || y[i] != 20.0;
  printf("x[0] %.1f y[0] %.1f seen %ld card pid %ld host pid %ld\n", x[0], y[0], seen, pid,
         (long)getpid());
  free(x);
  free(y);
  if (bad || seen != 20 || pid <= 0 || pid == (long)getpid()) return 1;
  printf("OK\n");
  return 0;
}
