/* SPDX-License-Identifier: BSD-3-Clause */
/* The N-body CPU loop (hd_nbody_accel_tuned) built as scalar code on one
 * thread: the baseline for the OpenMP + SIMD speed-up.  Makefile.am
 * compiles this file without OpenMP, with -fno-tree-vectorize and without
 * the AVX-512/AVX2 clones.  Prints interactions per second on the same
 * Plummer bodies hd-nbody --bench uses.  Usage: nbody-scalar-f|d [N [EVALS]] */
#define HD_SERIAL 1
#define HD_NO_TARGET_CLONES 1
#include <hd/nbody.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
  const hd_idx n = argc > 1 ? atol(argv[1]) : 16384;
  const int evals = argc > 2 ? atoi(argv[2]) : 1;
  double *d = (double *)malloc((size_t)n * 7 * sizeof(double));
  hd_real *r = (hd_real *)malloc((size_t)n * 7 * sizeof(hd_real));
  hd_nbody_args a;
  hd_ctx ctx;
  struct timespec t0, t1;
  double s;
  hd_idx i;
  int e;
  if (n < 1 || evals < 1 || !d || !r) {
    fprintf(stderr, "usage: %s [N [EVALS]]\n", argv[0]);
    return 2;
  }
  hd_nbody_ic_plummer(n, 1, d, d + n, d + 2 * n, d + 3 * n, d + 4 * n, d + 5 * n, d + 6 * n);
  for (i = 0; i < 3 * n; ++i) r[i] = (hd_real)d[i];
  for (i = 0; i < n; ++i) r[3 * n + i] = (hd_real)d[6 * n + i];
  a.x = r, a.y = r + n, a.z = r + 2 * n, a.m = r + 3 * n;
  a.ax = r + 4 * n, a.ay = r + 5 * n, a.az = r + 6 * n;
  a.n = n;
  a.eps2 = (hd_real)1e-4; /* softening 0.01, hd-nbody's default */
  a.periodic = 0;
  hd_ctx_init(&ctx, 0);
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (e = 0; e < evals; ++e) hd_nbody_accel_tuned(&ctx, &a);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  printf("precision: %s\nbodies: %lld\ninteractions_per_second: %.6g\ncheck_ax0: %.9g\n", HD_REAL_NAME,
         (long long)n, (double)n * (double)n * evals / s, (double)a.ax[0]);
  free(d);
  free(r);
  return 0;
}
