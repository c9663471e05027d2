/* taskloop forms. */
void taskloops(int n, double *v, double (*m)[16]) {
  double total = 0;
  int i;
#pragma oss taskloop grainsize(8) in(v[0;n]) reduction(+: total)
  for (int k = 0; k < n; k++) total += v[k];
#pragma oss taskloop num_tasks(4) label(scale)
  for (i = n - 1; i >= 0; i -= 2) v[i] *= 2;
#pragma oss taskloop collapse(2) grainsize(16) private(total)
  for (int r = 0; r < n; r++)
    for (int c = 0; c < 16; c += 1) m[r][c] = r * c;
#pragma omp taskloop nogroup
  for (long k = 1; k <= n; k = k + 1) v[k - 1] += 1;
#pragma omp taskloop
  for (unsigned k = 0; k != 10u; ++k) v[k] -= 1;
  /* const locals with constant initialisers stay constants in the chunk */
  const int stride = 2;
  const double w = 0.5;
#pragma oss taskloop grainsize(4)
  for (int k = 0; k < n / stride; k++) v[k * stride] *= w;
  /* dependencies over the loop variable: one set per chunk */
#pragma oss taskloop grainsize(8) in(v[k]) out(m[k][0; 16])
  for (int k = 0; k < n; k++) m[k][0] = v[k];
  /* a section reduced element by element */
#pragma oss taskloop reduction(+: v[1; 4])
  for (int k = 0; k < n; k++) v[1 + k % 4] += k;
}
