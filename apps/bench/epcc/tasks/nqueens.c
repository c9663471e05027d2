/* Recursive task code cut off by clauses rather than by hand: N-queens
 * where every placement is a task, `final` below a depth (the rest runs as
 * included tasks, so the runtime's cost per included task counts) and
 * `if` on the last rows (undeferred tasks). Each task gets its own copy of
 * the board (a firstprivate array: GCC copies it into the task's block).
 *
 *   nqueens [n=11] [final_depth=3] [reps=5] */
#include <string.h>

#include "suite.h"

#define MAX_N 16

static int g_n = 11, g_final = 3;

static int safe(const char *board, int row, int col) {
  for (int r = 0; r < row; ++r) {
    const int c = board[r];
    if (c == col || c - col == row - r || col - c == row - r) return 0;
  }
  return 1;
}

static long solve(char *parent, int row) {
  if (row == g_n) return 1;
  long found[MAX_N] = {0};
  for (int col = 0; col < g_n; ++col) {
    char board[MAX_N];
    memcpy(board, parent, (size_t)row);
    if (!safe(board, row, col)) continue;
    board[row] = (char)col;
#pragma omp task firstprivate(board) shared(found) final(row >= g_final) if (g_n - row > 2)
    found[col] = solve(board, row + 1);
  }
#pragma omp taskwait
  long sum = 0;
  for (int col = 0; col < g_n; ++col) sum += found[col];
  return sum;
}

static const long kSolutions[MAX_N + 1] = {
    1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512};

static int kernel(void *unused) {
  (void)unused;
  long r = 0;
  char board[MAX_N] = {0};
#pragma omp parallel
#pragma omp single
  r = solve(board, 0);
  return r != kSolutions[g_n];
}

int main(int argc, char **argv) {
  g_n = suite_arg(argc, argv, 1, g_n);
  g_final = suite_arg(argc, argv, 2, g_final);
  if (g_n < 1 || g_n > MAX_N) {
    fprintf(stderr, "nqueens: n must be 1..%d\n", MAX_N);
    return 2;
  }
  return suite_main("nqueens", suite_arg(argc, argv, 3, 5), kernel, NULL);
}
