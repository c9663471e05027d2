/* OpenMP memory allocators (OpenMP 5.2 §6, §18.13), as a validation suite
 * checks them: omp_init_allocator's answer for every trait and value, the
 * predefined allocators, alignment, pools charged per block (libgomp charges
 * a 32-byte header too: a pool of 1000 grants 968 bytes), every fallback,
 * realloc within a pool, calloc zeroing and overflow, the default allocator
 * (OMP_ALLOCATOR, set to omp_low_lat_mem_alloc by the tests, also as the
 * program's first OpenMP call reads it), and a pool
 * shared by a team. Prints what it finds (compared with libgomp) and checks
 * it (run alone on libjoule-omp). `abort` as argument: an abort_fb
 * allocator fails; that must end the program with status 1 and a message. */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

static omp_allocator_handle_t make(omp_memspace_handle_t ms, int n, omp_alloctrait_t *t) {
  return omp_init_allocator(ms, n, t);
}

static int valid1(omp_alloctrait_key_t key, omp_uintptr_t value) {
  omp_alloctrait_t t[] = {{key, value}};
  omp_allocator_handle_t a = make(omp_default_mem_space, 1, t);
  if (a == omp_null_allocator) return 0;
  omp_destroy_allocator(a);
  return 1;
}

static void traits(void) {
  static const struct {
    omp_alloctrait_key_t key;
    omp_uintptr_t value;
    int ok;
  } cases[] = {{omp_atk_sync_hint, omp_atv_contended, 1},
               {omp_atk_sync_hint, omp_atv_private, 1},
               {omp_atk_sync_hint, omp_atv_all, 0},
               {omp_atk_alignment, 64, 1},
               {omp_atk_alignment, 3, 0},
               {omp_atk_alignment, 0, 0},
               {omp_atk_access, omp_atv_thread, 1},
               {omp_atk_access, omp_atv_null_fb, 0},
               {omp_atk_pool_size, 0, 1},
               {omp_atk_fallback, omp_atv_abort_fb, 1},
               {omp_atk_fallback, omp_atv_true, 0},
               {omp_atk_fb_data, omp_default_mem_alloc, 1},
               {omp_atk_pinned, omp_atv_false, 1},
               {omp_atk_pinned, omp_atv_true, 0},
               {omp_atk_partition, omp_atv_interleaved, 1},
               {omp_atk_partition, omp_atv_nearest, 1},
               {omp_atk_partition, omp_atv_thread, 0},
               {omp_atk_sync_hint, omp_atv_default, 1},
               {(omp_alloctrait_key_t)99, 1, 0}};
  for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    const int got = valid1(cases[i].key, cases[i].value);
    printf("trait %d=%ld: %s\n", (int)cases[i].key, (long)cases[i].value, got ? "ok" : "null");
    CHECK(got == cases[i].ok);
  }
  for (int ms = 0; ms <= 5; ++ms) {
    omp_allocator_handle_t a = make((omp_memspace_handle_t)ms, 0, NULL);
    printf("memspace %d: %s\n", ms, a != omp_null_allocator ? "ok" : "null");
    CHECK((a != omp_null_allocator) == (ms != 3 && ms != 5));
    if (a != omp_null_allocator) omp_destroy_allocator(a);
  }
}

static void predefined(void) {
  for (int h = 1; h <= 8; ++h) {
    char *p = omp_alloc(100, (omp_allocator_handle_t)h);
    CHECK(p != NULL);
    if (p) memset(p, h, 100);
    omp_free(p, (omp_allocator_handle_t)h);
  }
  CHECK(omp_alloc(0, omp_default_mem_alloc) == NULL);
  omp_free(NULL, omp_default_mem_alloc);
  printf("predefined: ok\n");
}

static void alignment(void) {
  omp_alloctrait_t t[] = {{omp_atk_alignment, 256}};
  omp_allocator_handle_t a = make(omp_default_mem_space, 1, t);
  for (int i = 0; i < 8; ++i) {
    void *p = omp_alloc(1 + i * 37, a), *q = omp_aligned_alloc(1024, 10, a);
    void *r = omp_aligned_calloc(64, 3, 7, omp_default_mem_alloc);
    CHECK((uintptr_t)p % 256 == 0 && (uintptr_t)q % 1024 == 0 && (uintptr_t)r % 64 == 0);
    omp_free(p, a);
    omp_free(q, a);
    omp_free(r, omp_default_mem_alloc);
  }
  omp_destroy_allocator(a);
  printf("alignment: ok\n");
}

static omp_allocator_handle_t pool(omp_uintptr_t size, omp_uintptr_t fallback,
                                   omp_allocator_handle_t fb) {
  omp_alloctrait_t t[] = {
      {omp_atk_pool_size, size}, {omp_atk_fallback, fallback}, {omp_atk_fb_data, fb}};
  return make(omp_default_mem_space, fb ? 3 : 2, t);
}

/* The largest block from `lo` up that a fresh allocation of `a` grants. */
static int largest(omp_allocator_handle_t a, int lo, int hi) {
  for (int s = lo; s <= hi; ++s) {
    void *p = omp_alloc(s, a);
    if (!p) return s - 1;
    omp_free(p, a);
  }
  return hi;
}

static void pools(void) {
  omp_allocator_handle_t a = pool(1000, omp_atv_null_fb, 0);
  printf("pool 1000 grants %d\n", largest(a, 900, 1000));
  void *p = omp_alloc(500, a);
  printf("after 500: %d\n", largest(a, 400, 600));
  for (int s = 500; s <= 1000; ++s) { /* realloc within the same pool */
    void *q = omp_realloc(p, s, a, a);
    if (!q) {
      printf("realloc grows to %d\n", s - 1);
      break;
    }
    CHECK(q != NULL);
    p = q;
  }
  omp_free(p, a);
  printf("freed: %d\n", largest(a, 900, 1000));
  omp_allocator_handle_t d = pool(1000, omp_atv_default_mem_fb, 0);
  omp_allocator_handle_t f = pool(1000, omp_atv_allocator_fb, a);
  void *big = omp_alloc(5000, d), *via = omp_alloc(1500, f), *own = omp_alloc(800, f);
  void *spill = omp_alloc(300, f); /* f is full: a takes it */
  printf("default_mem_fb %d allocator_fb %d %d %d\n", big != NULL, via != NULL, own != NULL,
         spill != NULL);
  CHECK(big && !via && own && spill);
  omp_free(big, d);
  omp_free(own, f);
  omp_free(spill, omp_null_allocator);
  CHECK(largest(a, 900, 1000) == 968);
  char *z = omp_calloc(10, 10, a);
  int zero = 1;
  for (int i = 0; z && i < 100; ++i) zero &= z[i] == 0;
  volatile size_t half_max = SIZE_MAX / 2; /* volatile: the overflow is the point, not a warning */
  printf("calloc zeroed %d, overflow %d\n", z && zero, omp_calloc(half_max, 4, a) != NULL);
  omp_free(z, a);
  /* allocator_fb without fb_data falls back to the default; an impossible alignment fails. */
  omp_allocator_handle_t g = pool(100, omp_atv_allocator_fb, 0);
  void *by_default = omp_alloc(500, g);
  void *huge = omp_aligned_alloc((size_t)1 << 62, 8, omp_default_mem_alloc);
  printf("allocator_fb without fb_data %d, alignment 2^62 %d\n", by_default != NULL, huge != NULL);
  CHECK(by_default && !huge);
  omp_free(by_default, g);
  omp_destroy_allocator(g);
  omp_destroy_allocator(f);
  omp_destroy_allocator(d);
  omp_destroy_allocator(a);
}

static void realloc_keeps(void) {
  unsigned char *p = omp_alloc(64, omp_default_mem_alloc);
  for (int i = 0; i < 64; ++i) p[i] = (unsigned char)i;
  p = omp_realloc(p, 4096, omp_large_cap_mem_alloc, omp_default_mem_alloc);
  int same = p != NULL;
  for (int i = 0; p && i < 64; ++i) same &= p[i] == i;
  p = omp_realloc(p, 16, omp_null_allocator, omp_null_allocator);
  for (int i = 0; p && i < 16; ++i) same &= p[i] == i;
  printf("realloc keeps the data %d, size 0 frees %d\n", same,
         omp_realloc(p, 0, omp_null_allocator, omp_null_allocator) == NULL);
  CHECK(same);
}

/* A team shares one pool of 64 blocks: never more out at once, all back at the end. */
static void team_pool(void) {
  omp_allocator_handle_t a = pool(64 * (100 + 32), omp_atv_null_fb, 0);
  int out = 0, over = 0;
#pragma omp parallel
  {
    void *mine[16];
    for (int round = 0; round < 200; ++round) {
      int got = 0;
      for (int i = 0; i < 16; ++i)
        if ((mine[got] = omp_alloc(100, a)) != NULL) ++got;
      int now;
#pragma omp atomic capture
      now = out += got;
      if (now > 64) {
#pragma omp atomic
        ++over;
      }
#pragma omp atomic
      out -= got;
      for (int i = 0; i < got; ++i) omp_free(mine[i], a);
    }
  }
  int all = 0;
  void *p[65];
  while (all < 65 && (p[all] = omp_alloc(100, a)) != NULL) ++all;
  printf("team pool: %d blocks, overdrawn %d\n", all, over);
  CHECK(all == 64 && over == 0);
  for (int i = 0; i < all; ++i) omp_free(p[i], a);
  omp_destroy_allocator(a);
}

/* first: the default allocator as the program's first OpenMP call saw it. */
static void defaults(omp_allocator_handle_t first) {
  printf("default allocator %d, at the first call %d\n", (int)omp_get_default_allocator(),
         (int)first);
  CHECK(omp_get_default_allocator() == omp_low_lat_mem_alloc && first == omp_low_lat_mem_alloc);
  omp_alloctrait_t t[] = {{omp_atk_alignment, 128}};
  omp_allocator_handle_t a = make(omp_default_mem_space, 1, t);
  omp_set_default_allocator(a);
  void *p = omp_alloc(8, omp_null_allocator);
  CHECK(omp_get_default_allocator() == a && (uintptr_t)p % 128 == 0);
  omp_free(p, omp_null_allocator);
  omp_set_default_allocator(omp_default_mem_alloc);
  omp_destroy_allocator(a);
}

int main(int argc, char **argv) {
  const omp_allocator_handle_t first = omp_get_default_allocator();
  if (argc > 1 && strcmp(argv[1], "abort") == 0) {
    omp_allocator_handle_t a = pool(1000, omp_atv_abort_fb, 0);
    printf("before\n");
    fflush(stdout);
    omp_alloc(5000, a);
    printf("not reached\n");
    return 0;
  }
  traits();
  predefined();
  alignment();
  pools();
  realloc_keeps();
  team_pool();
  defaults(first);
  return finish("allocators");
}
