/* Tasks nested in the text of other tasks: the outlined outer task reaches
 * shared data through pointers, and the inner tasks' clauses and bodies must
 * use them (whole arrays keep their size: inout(data) is all of it). */
#include <stdio.h>

#define M 8

static int square(int v) { return v * v; }

int main(void) {
  int total = 0, data[M] = {0}, rounds = 3;
  long seen = 0;
#pragma oss task inout(total, data) firstprivate(rounds)
  {
    for (int r = 0; r < rounds; r++) {
      for (int i = 0; i < M; i++) {
#pragma oss task inout(data[i])
        data[i] += square(i);
      }
#pragma oss task inout(data)
      for (int i = 0; i < M; i++) data[i] += 1;
      for (int i = 0; i < M; i++) {
#pragma oss task in(data[i]) commutative(total)
        total += data[i];
      }
#pragma oss taskwait
    }
  }
#pragma oss task in(total) out(seen)
  seen = total + (long)sizeof(data);
#pragma oss taskwait
  /* round r adds squares (140) and 8, then sums: sum over r of (r+1)*148 */
  int expect = 148 * (1 + 2 + 3);
  printf("nested: total %d expected %d, seen %ld\n", total, expect, seen);
  if (total != expect || seen != expect + (long)sizeof(data)) return 1;
  printf("OK\n");
  return 0;
}
