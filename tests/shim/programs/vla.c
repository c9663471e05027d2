/* Function tasks with variable-length array parameters and sections of
 * them, and a statement task capturing a pointer to a VLA. */
#include <stdio.h>

#pragma oss task inout(blk[0;rows][0;cols])
void scale(int rows, int cols, double blk[rows][cols], double s);

void scale(int rows, int cols, double blk[rows][cols], double s) {
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++) blk[i][j] *= s;
}

/* The form: a block of a B x N panel; the whole parameter array is the data. */
#pragma oss task in(k) inout(blk)
void add_k(int k, int B, int N, double blk[B][N]);

void add_k(int k, int B, int N, double blk[B][N]) {
  for (int i = 0; i < B; i++)
    for (int j = 0; j < N; j++) blk[i][j] += k;
}

static void column_sums(int n, int m, double (*a)[m], double *out) {
  for (int j = 0; j < m; j++) {
#pragma oss task in(a[0;n][j]) out(out[j])
    {
      double s = 0;
      for (int i = 0; i < n; i++) s += a[i][j];
      out[j] = s;
    }
  }
#pragma oss taskwait
}

int main(void) {
  int n = 6, m = 5;
  double a[n][m];
  double sums[5];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) a[i][j] = i + j;
  scale(3, m, a, 2.0);          /* rows 0..2 */
  scale(3, m, &a[3], 10.0);     /* rows 3..5 */
  add_k(1, n, m, a);
#pragma oss task inout(a[2][0;m]) firstprivate(m)
  for (int j = 0; j < m; j++) a[2][j] += 100;
#pragma oss taskwait
  column_sums(n, m, a, sums);
  for (int j = 0; j < m; j++) {
    double expect = 0;
    for (int i = 0; i < n; i++) expect += (i + j) * (i < 3 ? 2.0 : 10.0) + 1 + (i == 2 ? 100 : 0);
    if (sums[j] != expect) {
      printf("vla: column %d sum %g expected %g\n", j, sums[j], expect);
      return 1;
    }
  }
  printf("OK\n");
  return 0;
}
