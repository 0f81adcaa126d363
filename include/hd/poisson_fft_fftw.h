/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/poisson_fft_fftw.h - the FFT Poisson solve on the CPU backends with
 * FFTW3 (hd/poisson_fft.h says how): RODFT00 plans along rows, transposes
 * (through an all-to-all exchange on a split grid), the division by the
 * eigenvalues.  Empty on CUDA. */
#ifndef HD_POISSON_FFT_FFTW_H
#define HD_POISSON_FFT_FFTW_H

#include <stdlib.h>
#include <string.h>

#include "poisson_fft_args.h"

#if !defined(HD_BACKEND_CUDA)
/* The residual at interior node (i, j), into x as the sine transform
 * along rows takes it, and its norm. */
HD_FN void hd_pois_fft_residual_pt(const hd_pois_fft_args *a, hd_idx i, hd_idx j, hd_idx k, hd_stats *acc) {
  const hd_idx n = a->lv.n, o = i + (j - a->row0) * (n + 1);
  const hd_real r = hd_pois_residual(&a->lv, o);
  (void)k;
  a->x[(i - 1) + (j - a->jlo) * a->ld] = r;
  hd_stats_add(acc, (double)r, i + j * (n + 1));
}

HD_FN void hd_pois_fft_f_pt(const hd_pois_fft_args *a, hd_idx i, hd_idx j, hd_idx k, hd_stats *acc) {
  (void)k;
  hd_stats_add(acc, (double)a->lv.f[i + (j - a->row0) * (a->lv.n + 1)], i + j * (a->lv.n + 1));
}

HD_DEFINE_REDUCE_3D(hd_pois_fft_residual_reduce, hd_pois_fft_args, hd_stats, hd_pois_fft_residual_pt,
                    hd_stats_init, hd_stats_merge)
HD_DEFINE_REDUCE_3D(hd_pois_fft_f_reduce, hd_pois_fft_args, hd_stats, hd_pois_fft_f_pt, hd_stats_init,
                    hd_stats_merge)

/* Row q of x, column q of y. */
HD_FN void hd_pois_fft_rows_pt(const hd_pois_fft_args *a, hd_idx q) {
  HD_FFTW(execute_r2r)(a->plan, a->x + q * a->ld, a->x + q * a->ld);
}

HD_FN void hd_pois_fft_cols_pt(const hd_pois_fft_args *a, hd_idx q) {
  HD_FFTW(execute_r2r)(a->plan, a->y + q * a->ld, a->y + q * a->ld);
}

/* Rows of x to (or from) the buffer, a tile of HD_POIS_FFT_TILE rows (runs
 * of that many values in the buffer): block p's share holds its columns k,
 * each over this block's rows, `stride` apart. */
#define HD_POIS_FFT_TILE 16
HD_FN void hd_pois_fft_rows_io(const hd_pois_fft_args *a, hd_idx t, int to_pack) {
  const hd_idx rows = a->jhi - a->jlo, q0 = t * HD_POIS_FFT_TILE;
  const hd_idx q1 = q0 + HD_POIS_FFT_TILE < rows ? q0 + HD_POIS_FFT_TILE : rows;
  int p;
  hd_idx k, q;
  for (p = 0; p < a->parts; ++p)
    for (k = a->lo[p]; k < a->hi[p]; ++k) {
      hd_real *b = a->pack + a->at[p] + (k - a->lo[p]) * a->stride, *x = a->x + (k - 1);
      if (to_pack)
        for (q = q0; q < q1; ++q) b[q] = x[q * a->ld];
      else
        for (q = q0; q < q1; ++q) x[q * a->ld] = b[q];
    }
}

/* Column q of y to (or from) the buffer: block p's share holds this block's
 * columns, each over block p's rows. */
HD_FN void hd_pois_fft_cols_io(const hd_pois_fft_args *a, hd_idx q, int to_pack) {
  int p;
  for (p = 0; p < a->parts; ++p) {
    const hd_idx rows = a->hi[p] - a->lo[p];
    hd_real *b = a->pack + a->at[p] + q * rows, *y = a->y + q * a->ld + a->lo[p] - 1;
    if (rows > 0) memcpy(to_pack ? b : y, to_pack ? y : b, (size_t)rows * sizeof(hd_real));
  }
}

HD_FN void hd_pois_fft_pack_rows_pt(const hd_pois_fft_args *a, hd_idx q) { hd_pois_fft_rows_io(a, q, 1); }
HD_FN void hd_pois_fft_unpack_rows_pt(const hd_pois_fft_args *a, hd_idx q) { hd_pois_fft_rows_io(a, q, 0); }
HD_FN void hd_pois_fft_pack_cols_pt(const hd_pois_fft_args *a, hd_idx q) { hd_pois_fft_cols_io(a, q, 1); }
HD_FN void hd_pois_fft_unpack_cols_pt(const hd_pois_fft_args *a, hd_idx q) { hd_pois_fft_cols_io(a, q, 0); }

/* Divide mode (column jlo + q, row l + 1) by its eigenvalue (both scaled
 * by the transforms' (2n)^2). */
HD_FN void hd_pois_fft_divide_pt(const hd_pois_fft_args *a, hd_idx l, hd_idx q) {
  a->y[l + q * a->ld] /= a->eig[a->jlo - 1 + q] + a->eig[l];
}

HD_FN void hd_pois_fft_correct_pt(const hd_pois_fft_args *a, hd_idx i, hd_idx j) {
  a->lv.u[i + (j - a->row0) * (a->lv.n + 1)] += a->x[(i - 1) + (j - a->jlo) * a->ld];
}

HD_DEFINE_FOR_1D(hd_pois_fft_rows_loop, hd_pois_fft_rows_pt, hd_pois_fft_args)
HD_DEFINE_FOR_1D(hd_pois_fft_cols_loop, hd_pois_fft_cols_pt, hd_pois_fft_args)
HD_DEFINE_FOR_1D(hd_pois_fft_pack_rows_loop, hd_pois_fft_pack_rows_pt, hd_pois_fft_args)
HD_DEFINE_FOR_1D(hd_pois_fft_unpack_rows_loop, hd_pois_fft_unpack_rows_pt, hd_pois_fft_args)
HD_DEFINE_FOR_1D(hd_pois_fft_pack_cols_loop, hd_pois_fft_pack_cols_pt, hd_pois_fft_args)
HD_DEFINE_FOR_1D(hd_pois_fft_unpack_cols_loop, hd_pois_fft_unpack_cols_pt, hd_pois_fft_args)
HD_DEFINE_FOR_2D(hd_pois_fft_divide_loop, hd_pois_fft_divide_pt, hd_pois_fft_args)
HD_DEFINE_FOR_2D(hd_pois_fft_correct_loop, hd_pois_fft_correct_pt, hd_pois_fft_args)

typedef struct hd_pois_fft {
  hd_pois_fft_args a;
  hd_real *buf, *eig, *cols, *pack;
  hd_idx *parts_rows; /* lo, hi and at of every block, and the counts exchanged */
  int (*halo)(void *user, hd_real *u);
  int (*max)(void *user, double *v);
  int (*alltoall)(void *user, const hd_real *send, hd_real *recv, const hd_idx *counts);
  void *user;
} hd_pois_fft;

HD_HOST_FN void hd_pois_fft_destroy(hd_ctx *ctx, hd_pois_fft *s) {
  (void)ctx;
  if (s->a.plan) HD_FFTW(destroy_plan)(s->a.plan);
  if (s->pack != s->cols) HD_FFTW(free)(s->pack);
  HD_FFTW(free)(s->buf), HD_FFTW(free)(s->eig), HD_FFTW(free)(s->cols);
  free(s->parts_rows);
  memset(s, 0, sizeof *s);
}

/* Arrays for the block's rows (set in s->a by the caller) and the plan. */
HD_HOST_FN hd_status hd_pois_fft_alloc(hd_ctx *ctx, hd_pois_fft *s, hd_idx n, hd_idx m) {
  const hd_idx ld = (m + 15) / 16 * 16, rows = s->a.jhi > s->a.jlo ? s->a.jhi - s->a.jlo : 1;
  HD_FFTW(r2r_kind) kind = FFTW_RODFT00;
  if (m > 2147483647) return hd_fail(ctx, HD_ERR_ARG, "poisson: the FFT solve takes n - 1 < 2^31, got n = %ld", (long)n);
  s->buf = (hd_real *)HD_FFTW(malloc)((size_t)rows * (size_t)ld * sizeof(hd_real));
  s->cols = (hd_real *)HD_FFTW(malloc)((size_t)rows * (size_t)ld * sizeof(hd_real));
  s->pack = s->a.parts > 1 ? (hd_real *)HD_FFTW(malloc)((size_t)rows * (size_t)m * sizeof(hd_real)) : s->cols;
  s->eig = (hd_real *)HD_FFTW(malloc)((size_t)m * sizeof(hd_real));
  if (!s->buf || !s->cols || !s->pack || !s->eig)
    return hd_fail(ctx, HD_ERR_NOMEM, "poisson: out of host memory for the FFT solve on %ld^2 cells", (long)n);
  /* rows and columns start ld values apart from FFTW's allocations: one alignment */
  s->a.plan = HD_FFTW(plan_r2r_1d)((int)m, s->buf, s->buf, kind, FFTW_ESTIMATE);
  if (!s->a.plan) return hd_fail(ctx, HD_ERR_ARG, "poisson: FFTW made no sine-transform plan of length %ld", (long)m);
  s->a.ld = ld, s->a.y = s->cols;
  return HD_OK;
}

/* The transposes: rows to columns (forward) or back, through the
 * exchange on a split grid. */
HD_HOST_FN hd_status hd_pois_fft_transpose(hd_ctx *ctx, hd_pois_fft *s, int forward) {
  hd_pois_fft_args a = s->a;
  const hd_idx rows = a.jhi - a.jlo;
  hd_real *recv = forward ? a.x : a.y; /* free while the other holds the values */
  const hd_idx tiles = (rows + HD_POIS_FFT_TILE - 1) / HD_POIS_FFT_TILE;
  hd_status st;
  if (a.parts == 1) { /* straight between x and y */
    a.pack = a.y + (a.jlo - 1), a.stride = a.ld;
    return forward ? hd_pois_fft_pack_rows_loop(ctx, &a, 0, tiles) : hd_pois_fft_unpack_rows_loop(ctx, &a, 0, tiles);
  }
  if (!s->alltoall) return hd_fail(ctx, HD_ERR_ARG, "poisson: a split FFT solve needs the alltoall hook");
  a.pack = s->pack, a.stride = rows;
  st = forward ? hd_pois_fft_pack_rows_loop(ctx, &a, 0, tiles) : hd_pois_fft_pack_cols_loop(ctx, &a, 0, rows);
  if (st == HD_OK && s->alltoall(s->user, s->pack, recv, s->parts_rows + 3 * a.parts))
    return hd_fail(ctx, HD_ERR_IO, "poisson: the FFT transpose's exchange failed");
  a.pack = recv;
  if (st == HD_OK)
    st = forward ? hd_pois_fft_unpack_cols_loop(ctx, &a, 0, rows) : hd_pois_fft_unpack_rows_loop(ctx, &a, 0, tiles);
  return st;
}

/* max|r| into *r after packing the residual into x; max|f| into *fmax
 * unless NULL (over every block). */
HD_HOST_FN hd_status hd_pois_fft_residual(hd_ctx *ctx, hd_pois_fft *s, double *r, double *fmax) {
  const hd_range3 rows = hd_range3_make(1, s->a.lv.n, s->a.jlo, s->a.jhi, 0, 1);
  hd_stats acc;
  hd_status st = HD_OK;
  if (fmax) st = hd_pois_fft_f_reduce(ctx, &s->a, rows, &acc);
  if (fmax && st == HD_OK) st = hd_pois_block_norm(ctx, s->max, s->user, &acc, "the right-hand side", fmax);
  if (st == HD_OK) st = hd_pois_fft_residual_reduce(ctx, &s->a, rows, &acc);
  return st == HD_OK ? hd_pois_block_norm(ctx, s->max, s->user, &acc, "the residual", r) : st;
}

/* The correction from the residual packed in x, added to u; the ghost
 * rows refreshed, and max|r| of the new u into *r (packed into x). */
#define HD_POIS_FFT_CHECK_FOLDS 1
HD_HOST_FN hd_status hd_pois_fft_correct(hd_ctx *ctx, hd_pois_fft *s, double *r) {
  const hd_idx rows = s->a.jhi - s->a.jlo;
  hd_status st = hd_pois_fft_rows_loop(ctx, &s->a, 0, rows);
  if (st == HD_OK) st = hd_pois_fft_transpose(ctx, s, 1);
  if (st == HD_OK) st = hd_pois_fft_cols_loop(ctx, &s->a, 0, rows);
  if (st == HD_OK) st = hd_pois_fft_divide_loop(ctx, &s->a, hd_range3_make(0, s->a.m, 0, rows, 0, 1));
  if (st == HD_OK) st = hd_pois_fft_cols_loop(ctx, &s->a, 0, rows);
  if (st == HD_OK) st = hd_pois_fft_transpose(ctx, s, 0);
  if (st == HD_OK) st = hd_pois_fft_rows_loop(ctx, &s->a, 0, rows);
  if (st == HD_OK)
    st = hd_pois_fft_correct_loop(ctx, &s->a, hd_range3_make(1, s->a.lv.n, s->a.jlo, s->a.jhi, 0, 1));
  if (st == HD_OK && s->halo && s->halo(s->user, s->a.lv.u))
    st = hd_fail(ctx, HD_ERR_IO, "poisson: the halo exchange failed");
  return st == HD_OK ? hd_pois_fft_residual(ctx, s, r, NULL) : st;
}
#endif

#endif /* HD_POISSON_FFT_FFTW_H */
