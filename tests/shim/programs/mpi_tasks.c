/* MPI + tasks: each rank sums its block with tasks, then MPI_Allreduce. */
#include <mpi.h>
#include <stdio.h>

#define N 100000
#define BS 5000

static double v[N];

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double partial[N / BS];
  for (int b = 0; b < N / BS; b++) {
#pragma oss task out(v[b * BS;BS]) firstprivate(rank)
    for (int i = b * BS; i < (b + 1) * BS; i++) v[i] = rank + 1;
#pragma oss task in(v[b * BS;BS]) out(partial[b])
    {
      double s = 0;
      for (int i = b * BS; i < (b + 1) * BS; i++) s += v[i];
      partial[b] = s;
    }
  }
#pragma oss taskwait
  double local = 0, total = 0;
  for (int b = 0; b < N / BS; b++) local += partial[b];
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double expect = (double)N * size * (size + 1) / 2;
  if (rank == 0) printf("mpi_tasks: %g expected %g\n", total, expect);
  MPI_Finalize();
  if (total != expect) return 1;
  if (rank == 0) printf("OK\n");
  return 0;
}
