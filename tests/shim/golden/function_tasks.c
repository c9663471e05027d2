/* Task functions: declared in a header, declared here, defined here,
 * recursive, with a VLA parameter and a struct parameter. */
#include "ft.h"

struct cfg {
  int steps;
  double scale;
};

#pragma oss task inout(blk[0;rows][0;cols]) label(scale_block)
void scale_block(int rows, int cols, double blk[rows][cols], struct cfg c);

void scale_block(int rows, int cols, double blk[rows][cols], struct cfg c) {
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++) blk[i][j] *= c.scale;
}

#pragma oss task inout(*result) priority(depth)
void tree(int depth, long *result) {
  if (depth == 0) {
    *result = 1;
    return;
  }
  long left = 0, right = 0;
  tree(depth - 1, &left);
  tree(depth - 1, &right);
#pragma oss taskwait
  *result = left + right;
}

void use(int n, double *a, double *b, double (*m)[4]) {
  struct cfg c = {1, 2.0};
  long leaves = 0;
  copy_block(n, a, b);
  factor_block(4, b);
  scale_block(n, 4, m, c);
  tree(3, &leaves);
#pragma oss taskwait
}
