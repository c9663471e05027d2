/* N-queens (OmpSs-1, BOTS style): each task copies the board it extends
   into a private array; solutions are counted with an atomic. */
#include <stdio.h>
#include <string.h>

#define MAXN 12

static int solutions;

static int ok(int n, const char *board) {
  for (int i = 0; i < n; i++) {
    int p = board[i];
    for (int j = i + 1; j < n; j++) {
      int q = board[j];
      if (q == p || q == p - (j - i) || q == p + (j - i)) return 0;
    }
  }
  return 1;
}

static void queens(int size, int row, const char *prefix) {
  if (row == size) {
#pragma omp atomic
    solutions++;
    return;
  }
  for (int col = 0; col < size; col++) {
    char board[MAXN];
#pragma omp task private(board) firstprivate(col, row, size, prefix)
    {
      memcpy(board, prefix, (size_t)row);
      board[row] = (char)col;
      if (ok(row + 1, board)) queens(size, row + 1, board);
    }
  }
#pragma omp taskwait
}

int main(void) {
  char empty[MAXN] = {0};
  for (int n = 4; n <= 8; n++) {
    solutions = 0;
    queens(n, 0, empty);
    printf("%d queens: %d solutions\n", n, solutions);
  }
  return 0;
}
