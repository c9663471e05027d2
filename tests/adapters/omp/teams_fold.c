/* Host teams reductions (OpenMP 5.2 §10.2, a teams construct not nested in
 * target): every team folds its private copies into the same originals,
 * and joule runs a league's teams at once on different workers, so each
 * fold needs the reduction's lock or atomics although each team is a team
 * of one. Many short constructs whose teams finish together: a fold with
 * neither loses updates in nearly every run (tens of the 400 rounds).
 * The array is local: clang 14 does not privatize a file-scope array
 * section in a host teams reduction (libomp loses its updates too).
 * Prints only the verdict, which a conforming runtime cannot change. */
#include <omp.h>
#include <stdio.h>

#define M 2048
#define TEAMS 16
#define ROUNDS 400

int main(void) {
  long cells[M];
  long scalar = 0, want_scalar = 0;
  double real = 0, want_real = 0;
  int wrong_rounds = 0;
  for (int r = 0; r < ROUNDS; ++r) {
    int teams = 0; /* the league's size: a runtime may form fewer than asked */
    for (int i = 0; i < M; ++i) cells[i] = 0;
      /* The array section's fold is a loop over M elements: a wide window. */
#pragma omp teams num_teams(TEAMS) reduction(+ : cells[:M], scalar, real)
    {
      if (omp_get_team_num() == 0) teams = omp_get_num_teams();
      for (int i = 0; i < M; ++i) cells[i] += 1;
      scalar += omp_get_team_num() + 1;
      real += 0.5;
    }
    want_scalar += (long)teams * (teams + 1) / 2;
    want_real += teams * 0.5;
    for (int i = 0; i < M; ++i)
      if (cells[i] != teams) {
        ++wrong_rounds;
        break;
      }
  }
  const int ok = wrong_rounds == 0 && scalar == want_scalar && real == want_real;
  if (!ok)
    fprintf(stderr, "teams_fold: %d of %d rounds lost an array update; scalar %ld (want %ld)\n",
            wrong_rounds, ROUNDS, scalar, want_scalar);
  printf("teams_fold: %s\n", ok ? "OK" : "WRONG");
  return ok ? 0 : 1;
}
