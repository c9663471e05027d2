/* The affinity display of OpenMP 5.2 §18.12 and §21.2.4-5, as a validation
 * suite checks it: omp_capture_affinity's text for every field (letter and
 * long name), sizes with the `0.` and `.` flags, %%, its return value (the
 * whole length, also when the buffer is smaller or NULL) and the NUL it
 * truncates with; omp_get/set_affinity_format; omp_display_affinity with
 * NULL or "" (the affinity-format-var); and OMP_DISPLAY_AFFINITY's lines
 * (one per thread at the first region, again for every thread when the
 * team's size changes). stderr is captured into a file and printed back
 * sorted; fields that differ between runs (host, process id, thread id,
 * CPUs) are checked and printed by shape (the native thread id is an
 * implementation's choice: digits or a hexadecimal pthread_t). `bad` as argument: a format with
 * an unknown field must stop the program with status 1. */
#define _GNU_SOURCE
#include <ctype.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

static const char *kVariable = "H%H P%P i%i A%A";

static int all_of(const char *s, const char *set) {
  if (!*s) return 0;
  for (; *s; ++s)
    if (!strchr(set, *s)) return 0;
  return 1;
}

/* One blank-separated word of a line: variable fields by shape. */
static void shape(char *word, char *out) {
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  const char *v = word + 1;
  if (word[0] == 'H' && strcmp(v, host) == 0)
    strcat(out, "H=host");
  else if (word[0] == 'P' && atol(v) == (long)getpid())
    strcat(out, "P=pid");
  else if (word[0] == 'i' && (all_of(v, "0123456789") || all_of(v, "0123456789abcdefx")))
    strcat(out, "i=tid");
  else if (word[0] == 'A' && all_of(v, "0123456789,-"))
    strcat(out, "A=cpus");
  else
    strcat(out, word);
}

static void print_shaped(const char *what, const char *line) {
  char copy[512], out[512] = "";
  snprintf(copy, sizeof copy, "%s", line);
  for (char *w = strtok(copy, " "); w; w = strtok(NULL, " ")) {
    if (*out) strcat(out, " ");
    shape(w, out);
  }
  printf("%s [%s]\n", what, out);
}

static void capture(const char *fmt) {
  char buf[256];
  const size_t n = omp_capture_affinity(buf, sizeof buf, fmt);
  printf("[%s] -> [%s] %zu\n", fmt, buf, n);
  CHECK(n == strlen(buf));
}

static void fields(void) {
  capture("%t %T %L %n %N %a|%%|%5n|%.5n|%0.5n|%3L|x%0.10ay|%1n|%.3a");
  capture(
      "%{team_num} %{num_teams} %{nesting_level} %{thread_num} %{num_threads} %{ancestor_tnum}");
  capture("%3{thread_num}|%0.4{num_threads}|%.2{nesting_level}|plain text");
  char buf[256];
  omp_capture_affinity(buf, sizeof buf, kVariable);
  print_shaped("variable", buf);
  /* joule's native thread id is the Linux one (libgomp's is a pthread_t). */
  const long tid = (long)syscall(SYS_gettid);
  omp_capture_affinity(buf, sizeof buf, "%i");
  if (joule_worker_id) CHECK(atol(buf) == tid);
  size_t n = omp_capture_affinity(buf, sizeof buf, "%.12P|%0.12L|%.20H");
  printf("padded to %zu: %d\n", n, n == 12 + 1 + 12 + 1 + 20 && buf[0] == ' ' && buf[13] == '0');
  /* The whole length, a NUL at the end of what fits, nothing past it. */
  char small[8];
  memset(small, 'z', sizeof small);
  n = omp_capture_affinity(small, 5, "%n-abcdefgh");
  printf("truncated [%s] %zu, untouched %c\n", small, n, small[6]);
  printf("no buffer %zu %zu\n", omp_capture_affinity(NULL, 0, "%N-abcdefgh"),
         omp_capture_affinity(small, 0, "%%%%"));
}

static void formats(void) {
  char f[8];
  memset(f, 'z', sizeof f);
  const size_t n = omp_get_affinity_format(f, 6);
  char full[256];
  omp_get_affinity_format(full, sizeof full);
  printf("format [%s] %zu, first 5 [%s]\n", full, n, f);
  CHECK(n == strlen(full));
}

/* Shows a team's lines, one per member, sorted by the reader. */
static int g_members = 0;
static void region(int n) {
#pragma omp parallel num_threads(n)
  {
#pragma omp atomic
    ++g_members;
  }
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "bad") == 0) {
    char buf[64];
    omp_capture_affinity(buf, sizeof buf, "level %L %q");
    printf("not reached\n");
    return 0;
  }
  formats();
  fields();
  fflush(stdout);
  /* Everything written to stderr from here on goes to a file. */
  char path[] = "/tmp/affinity_display_XXXXXX";
  const int file = mkstemp(path), saved = dup(2);
  dup2(file, 2);
  const int threads = omp_get_max_threads();
  region(threads); /* the first region: every member's line */
  region(threads); /* the same team: none */
  region(1);       /* a team of one: none */
  if (threads > 1) {
    region(threads - 1 > 1 ? threads - 1 : threads); /* another size: all again */
    region(threads);
  }
  omp_set_affinity_format("display L%L n%n N%N");
  region(threads); /* a new format alone: none */
  omp_display_affinity(NULL);
  omp_display_affinity("");
  omp_display_affinity("direct %n of %N");
  fflush(stderr);
  dup2(saved, 2);
  FILE *in = fdopen(file, "r");
  rewind(in);
  char lines[256][256];
  int count = 0;
  while (count < 256 && fgets(lines[count], sizeof lines[count], in)) {
    lines[count][strcspn(lines[count], "\n")] = 0;
    ++count;
  }
  fclose(in);
  unlink(path);
  qsort(lines, (size_t)count, sizeof lines[0], (int (*)(const void *, const void *))strcmp);
  printf("%d lines on stderr\n", count);
  for (int i = 0; i < count; ++i) print_shaped("stderr", lines[i]);
  return finish("affinity_display");
}
