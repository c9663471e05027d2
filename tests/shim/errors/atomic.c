/* atomic statements joulecc does not lower (it would need a lock shared with
   the lock-free forms on the same data). */
int f(int);
int main(void) {
  int x = 0, v = 0;
#pragma omp atomic
  x = f(x);
#pragma omp atomic read
  v = x + 1;
#pragma omp atomic capture
  { v = x; x = 3; }
#pragma omp atomic
  if (x) x++;
  return x + v;
}
// expect: 6:13: error: joulecc does not recognise this '#pragma omp atomic' statement (expected x++, x op= expr, x = x op expr, v = x, x = expr, v = x op= expr or { v = x; x op= expr; })
// expect: 8:13: error: joulecc does not recognise this '#pragma omp atomic read' statement (expected x++, x op= expr, x = x op expr, v = x, x = expr, v = x op= expr or { v = x; x op= expr; })
// expect: 10:13: error: joulecc does not recognise this '#pragma omp atomic capture' statement (expected x++, x op= expr, x = x op expr, v = x, x = expr, v = x op= expr or { v = x; x op= expr; })
// expect: 12:13: error: joulecc does not recognise this '#pragma omp atomic' statement (expected x++, x op= expr, x = x op expr, v = x, x = expr, v = x op= expr or { v = x; x op= expr; })
