/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/poisson_fft.h - a direct solve of hd/poisson.h's problem by the
 * discrete sine transform, on CPU backends, with FFTW3 (link -lfftw3, or
 * -lfftw3f when HD_REAL_FLOAT).
 *
 * With u = 0 on the boundary the modes sin(k pi i / n) sin(l pi j / n),
 * 1 <= k, l <= n - 1, are the eigenvectors of the 5-point operator, with
 * eigenvalues (4 / h^2) (sin^2(k pi / 2n) + sin^2(l pi / 2n)); a solve is a
 * DST-I along each axis, a division, and the same transforms back (FFTW's
 * RODFT00 is its own inverse up to a factor 2n per axis).  Boundary values
 * and the first guess enter through the residual r = f - A u: the solve
 * finds the correction from r and repeats (iterative refinement) while
 * max|r| > tol max|f| (once in double precision).
 *
 * The interior is packed into m = n - 1 rows padded to ld values.  Rows
 * and columns are transformed in chunks of HD_POIS_FFT_CHUNK by one plan
 * (and one for the last, shorter chunk), made with FFTW_ESTIMATE (the same
 * plans on every run) and executed on chunks of one alignment, so chunks
 * may go to any thread and serial and OpenMP give the same bits. */
#ifndef HD_POISSON_FFT_H
#define HD_POISSON_FFT_H

#if defined(HD_BACKEND_CUDA)
#error "hd/poisson_fft.h runs on CPU backends (FFTW3); on CUDA use hd/poisson.h's multigrid"
#endif

#include <string.h>

#include <fftw3.h>

#include "poisson.h"

#if defined(HD_REAL_FLOAT)
#define HD_FFTW(name) fftwf_##name
#else
#define HD_FFTW(name) fftw_##name
#endif

#ifndef HD_POIS_FFT_CHUNK
#define HD_POIS_FFT_CHUNK 16
#endif

typedef struct hd_pois_fft_args {
  hd_pois_level lv;   /* u, f, n, h2 (the residual's) */
  hd_real *x;         /* m rows of ld values: the packed interior */
  const hd_real *eig; /* (4 / h^2) sin^2(k pi / 2n), k = 1 .. m, times (2n)^2 */
  hd_idx m, ld;
  /* RODFT00 of m values in place: [0] a whole chunk, [1] the last one;
   * rows (stride 1, ld apart) and columns (stride ld, 1 apart) */
  HD_FFTW(plan) rows[2], cols[2];
} hd_pois_fft_args;

/* The residual at interior node (i, j), packed into x, and its norm. */
HD_FN void hd_pois_fft_residual_pt(const hd_pois_fft_args *a, hd_idx i, hd_idx j, hd_idx k, hd_stats *acc) {
  const hd_idx o = i + j * (a->lv.n + 1);
  const hd_real r = hd_pois_residual(&a->lv, o);
  (void)k;
  a->x[(i - 1) + (j - 1) * a->ld] = r;
  hd_stats_add(acc, (double)r, o);
}

/* Chunk q of rows (along x) or of columns (along y). */
HD_FN void hd_pois_fft_rows_pt(const hd_pois_fft_args *a, hd_idx q) {
  hd_real *p = a->x + q * HD_POIS_FFT_CHUNK * a->ld;
  HD_FFTW(execute_r2r)(a->rows[(q + 1) * HD_POIS_FFT_CHUNK > a->m], p, p);
}

HD_FN void hd_pois_fft_cols_pt(const hd_pois_fft_args *a, hd_idx q) {
  hd_real *p = a->x + q * HD_POIS_FFT_CHUNK;
  HD_FFTW(execute_r2r)(a->cols[(q + 1) * HD_POIS_FFT_CHUNK > a->m], p, p);
}

/* Divide mode (k, l) by its eigenvalue (both scaled by the transforms'
 * (2n)^2). */
HD_FN void hd_pois_fft_divide_pt(const hd_pois_fft_args *a, hd_idx k, hd_idx l) {
  a->x[k + l * a->ld] /= a->eig[k] + a->eig[l];
}

HD_FN void hd_pois_fft_correct_pt(const hd_pois_fft_args *a, hd_idx i, hd_idx j) {
  a->lv.u[i + j * (a->lv.n + 1)] += a->x[(i - 1) + (j - 1) * a->ld];
}

HD_DEFINE_REDUCE_3D(hd_pois_fft_residual_reduce, hd_pois_fft_args, hd_stats, hd_pois_fft_residual_pt,
                    hd_stats_init, hd_stats_merge)
HD_DEFINE_FOR_1D(hd_pois_fft_rows_loop, hd_pois_fft_rows_pt, hd_pois_fft_args)
HD_DEFINE_FOR_1D(hd_pois_fft_cols_loop, hd_pois_fft_cols_pt, hd_pois_fft_args)
HD_DEFINE_FOR_2D(hd_pois_fft_divide_loop, hd_pois_fft_divide_pt, hd_pois_fft_args)
HD_DEFINE_FOR_2D(hd_pois_fft_correct_loop, hd_pois_fft_correct_pt, hd_pois_fft_args)

typedef struct hd_pois_fft {
  hd_pois_fft_args a;
  hd_real *buf, *eig;
} hd_pois_fft;

HD_HOST_FN void hd_pois_fft_destroy(hd_ctx *ctx, hd_pois_fft *s) {
  int k;
  (void)ctx;
  for (k = 0; k < 2; ++k) {
    if (s->a.rows[k]) HD_FFTW(destroy_plan)(s->a.rows[k]);
    if (s->a.cols[k]) HD_FFTW(destroy_plan)(s->a.cols[k]);
  }
  HD_FFTW(free)(s->buf), HD_FFTW(free)(s->eig);
  memset(s, 0, sizeof *s);
}

HD_HOST_FN hd_status hd_pois_fft_create(hd_ctx *ctx, hd_pois_fft *s, hd_idx n, double h) {
  const hd_idx m = n - 1, ld = (m + HD_POIS_FFT_CHUNK - 1) / HD_POIS_FFT_CHUNK * HD_POIS_FFT_CHUNK;
  const double pi = 3.14159265358979323846;
  hd_status st = hd_pois_check_size(ctx, n, h);
  HD_FFTW(r2r_kind) kind = FFTW_RODFT00;
  int len, k;
  hd_idx i;
  memset(s, 0, sizeof *s);
  if (st != HD_OK) return st;
  if (m > 2147483647) return hd_fail(ctx, HD_ERR_ARG, "poisson: the FFT solve takes n - 1 < 2^31, got n = %ld", (long)n);
  len = (int)m;
  s->buf = (hd_real *)HD_FFTW(malloc)((size_t)m * (size_t)ld * sizeof(hd_real));
  s->eig = (hd_real *)HD_FFTW(malloc)((size_t)m * sizeof(hd_real));
  if (!s->buf || !s->eig) {
    hd_pois_fft_destroy(ctx, s);
    return hd_fail(ctx, HD_ERR_NOMEM, "poisson: out of host memory for the FFT solve on %ld^2 cells", (long)n);
  }
  for (i = 0; i < m; ++i) {
    const double si = sin(pi * (double)(i + 1) / (2.0 * (double)n));
    s->eig[i] = (hd_real)(4.0 * si * si / (h * h) * (2.0 * (double)n) * (2.0 * (double)n));
  }
  for (k = 0; k < 2; ++k) { /* a whole chunk, the last chunk */
    const int count = k == 0 ? HD_POIS_FFT_CHUNK : (int)(m - (m - 1) / HD_POIS_FFT_CHUNK * HD_POIS_FFT_CHUNK);
    s->a.rows[k] = HD_FFTW(plan_many_r2r)(1, &len, count, s->buf, NULL, 1, (int)ld, s->buf, NULL, 1, (int)ld, &kind,
                                          FFTW_ESTIMATE);
    s->a.cols[k] = HD_FFTW(plan_many_r2r)(1, &len, count, s->buf, NULL, (int)ld, 1, s->buf, NULL, (int)ld, 1, &kind,
                                          FFTW_ESTIMATE);
    if (!s->a.rows[k] || !s->a.cols[k]) {
      hd_pois_fft_destroy(ctx, s);
      return hd_fail(ctx, HD_ERR_ARG, "poisson: FFTW made no sine-transform plan of length %ld", (long)m);
    }
  }
  s->a.lv.n = n, s->a.lv.h2 = (hd_real)(h * h);
  s->a.x = s->buf, s->a.eig = s->eig, s->a.m = m, s->a.ld = ld;
  return HD_OK;
}

/* The correction from the residual packed in x, added to u. */
HD_HOST_FN hd_status hd_pois_fft_correct(hd_ctx *ctx, const hd_pois_fft *s) {
  const hd_idx m = s->a.m, chunks = (m + HD_POIS_FFT_CHUNK - 1) / HD_POIS_FFT_CHUNK;
  hd_status st = hd_pois_fft_rows_loop(ctx, &s->a, 0, chunks);
  if (st == HD_OK) st = hd_pois_fft_cols_loop(ctx, &s->a, 0, chunks);
  if (st == HD_OK) st = hd_pois_fft_divide_loop(ctx, &s->a, hd_range3_make(0, m, 0, m, 0, 1));
  if (st == HD_OK) st = hd_pois_fft_cols_loop(ctx, &s->a, 0, chunks);
  if (st == HD_OK) st = hd_pois_fft_rows_loop(ctx, &s->a, 0, chunks);
  if (st == HD_OK) st = hd_pois_fft_correct_loop(ctx, &s->a, hd_range3_make(1, m + 1, 1, m + 1, 0, 1));
  return st;
}

HD_HOST_FN hd_status hd_pois_fft_solve(hd_ctx *ctx, hd_pois_fft *s, hd_real *u, const hd_real *f,
                                       const hd_pois_opts *o, hd_pois_result *res) {
  const hd_idx n = s->a.lv.n;
  double fmax = 0.0, r = 0.0;
  hd_status st;
  s->a.lv.u = u, s->a.lv.f = f;
  st = hd_pois_f_norm(ctx, n, f, &fmax);
  res->iterations = 0, res->checks = 0, res->residual = 0.0;
  while (st == HD_OK) {
    hd_stats acc;
    st = hd_pois_fft_residual_reduce(ctx, &s->a, hd_range3_make(1, n, 1, n, 0, 1), &acc);
    if (st == HD_OK) st = hd_pois_norm(ctx, &acc, "the residual", &r);
    res->checks++;
    res->residual = fmax > 0 ? r / fmax : r;
    if (st != HD_OK || r <= o->tol * fmax) break;
    if (res->iterations >= o->max_iter) {
      st = hd_fail(ctx, HD_ERR_NOCONV, "poisson: FFT residual %.3g of max|f| after %ld solves (tolerance %g)",
                   res->residual, res->iterations, o->tol);
      break;
    }
    st = hd_pois_fft_correct(ctx, s);
    res->iterations++;
  }
  s->a.lv.u = NULL, s->a.lv.f = NULL;
  return st;
}

#endif /* HD_POISSON_FFT_H */
