/* Data reference forms in dependence clauses. */
struct pt {
  double x, y;
  double coords[3];
};

void regions(int n, int m, double *p, double a[10][20], double (*vla)[m], struct pt *s, double blk[n][m]) {
  double local[8];
  struct pt q;
#pragma oss task inout(*p) in(s->x) out(q.y) inout(local[3])
  *p = s->x + (q.y = local[3]);
#pragma oss task in(p[0;n]) out(local[2:5]) inout(local[4:]) in(local[:2])
  local[2] = p[n - 1] + local[0];
#pragma oss task in(a[1;2][0;20]) out(a[3:4][5:9]) inout(a[0])
  a[3][5] = a[1][0] + a[0][0];
#pragma oss task in([n]p) inout([n][m]p) out(([n][m]p)[1;2][0;m])
  p[0] = 1;
#pragma oss task in(vla[0;n][2]) inout(vla[1]) out(blk[0;n][1:m-1])
  blk[0][1] = vla[0][2] + vla[1][0];
#pragma oss task in(a) inout(blk)
  blk[0][0] = a[0][0];
#pragma omp task depend(in: p[2:4]) depend(out: local[0:8])
  local[0] = p[2];
#pragma oss task inout(s->coords[0;3]) in(q.coords[1])
  s->coords[0] += q.coords[1];
}
