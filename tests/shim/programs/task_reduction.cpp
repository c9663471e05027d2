// Task reductions in C++: the tasks reducing one variable run concurrently,
// each on a private copy, for scalars, arrays, sections, shaped pointers, a
// pointer parameter and task functions (pointer and reference parameters);
// weakreduction parents, a reducing parent whose children reduce into its
// copy; and a task after a reduction sees its result.
#include <cstdio>
#include <vector>

// A global stays an in-place update (commutative).
static long g_total;

// Returns before its tasks run: they must hold the pointer, not its address.
static void add_into(long *sum, int n) {
  for (int i = 0; i < n; i++) {
#pragma oss task reduction(+: [1]sum) firstprivate(i)
    *sum += i;
  }
}

#pragma oss task reduction(+: [n]out)
static void add_row(long *out, int n, int row) {
  for (int k = 0; k < n; k++) out[k] += row * k;
}

#pragma oss task reduction(max: m)
static void raise_to(double &m, double v) {
  if (v > m) m = v;
}

int main() {
  long sum = 0, seen = -1;
  double best = -1.0;
  unsigned bits = 0;
  bool all = true;
  for (int i = 1; i <= 100; i++) {
#pragma oss task reduction(+: sum) firstprivate(i)
    sum += i;
#pragma oss task reduction(max: best) firstprivate(i)
    if (i * 0.5 > best) best = i * 0.5;
#pragma oss task reduction(|: bits) firstprivate(i)
    bits |= 1u << (i % 32);
#pragma oss task in_reduction(&&: all) firstprivate(i)
    all = all && (i > 0);
  }
#pragma oss task in(sum) out(seen)
  seen = sum;
  static long s_local = 0;
  for (int i = 0; i < 50; i++) {
#pragma oss task reduction(+: g_total) firstprivate(i)
    g_total += i;
#pragma oss task reduction(+: s_local) firstprivate(i)
    s_local += 2 * i;
  }

  long hist[8] = {0};
  for (int i = 0; i < 200; i++) {
#pragma oss task reduction(+: hist[2;4]) firstprivate(i)
    hist[2 + i % 4] += 1;
  }
  std::vector<long> storage(4, 0);
  long *v = storage.data();
  for (int i = 0; i < 40; i++) {
#pragma oss task reduction(+: [4]v) firstprivate(i)
    v[i % 4] += i;
  }
  long psum = 0;
  add_into(&psum, 50);
  long rows[5] = {0};
  for (int r = 0; r < 10; r++) add_row(rows, 5, r);
  double top = 0;
  for (int r = 0; r < 20; r++) raise_to(top, r * 0.25);

  long weak = 0, strong = 0;
  for (int p = 0; p < 8; p++) {
#pragma oss task weakreduction(+: weak) firstprivate(p)
    {
      for (int c = 0; c < 8; c++) {
#pragma oss task reduction(+: weak) firstprivate(p, c)
        weak += p * 8 + c;
      }
    }
#pragma oss task reduction(+: strong)
    {
      strong += 1000;
      for (int c = 0; c < 4; c++) {
#pragma oss task reduction(+: strong) firstprivate(c)
        strong += c;
      }
    }
  }
#pragma oss taskwait
  bool ok = sum == 5050 && seen == 5050 && best == 50.0 && bits == 0xffffffffu && all;
  for (int k = 0; k < 8; k++) ok = ok && hist[k] == (k >= 2 && k < 6 ? 50 : 0);
  for (int k = 0; k < 4; k++) ok = ok && v[k] == 10 * k + 180;
  ok = ok && psum == 1225 && top == 4.75;
  for (int k = 0; k < 5; k++) ok = ok && rows[k] == 45 * k;
  ok = ok && weak == 2016 && strong == 8 * 1006 && g_total == 1225 && s_local == 2450;
  std::printf("task_reduction: sum %ld seen %ld best %g psum %ld top %g weak %ld strong %ld\n", sum,
              seen, best, psum, top, weak, strong);
  if (!ok) return 1;
  std::printf("OK\n");
  return 0;
}
