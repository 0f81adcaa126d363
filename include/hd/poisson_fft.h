/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/poisson_fft.h - a direct solve of hd/poisson.h's problem by the
 * discrete sine transform: FFTW3 on CPU backends (link -lfftw3, or
 * -lfftw3f when HD_REAL_FLOAT), cuFFT on CUDA (link -lcufft).
 *
 * With u = 0 on the boundary the modes sin(k pi i / n) sin(l pi j / n),
 * 1 <= k, l <= n - 1, are the eigenvectors of the 5-point operator, with
 * eigenvalues (4 / h^2) (sin^2(k pi / 2n) + sin^2(l pi / 2n)); a solve is a
 * DST-I along each axis, a division, and the same transforms back (the
 * DST-I, 2 sum_j x_j sin(pi j k / n), is its own inverse up to a factor 2n
 * per axis).  Boundary values and the first guess enter through the
 * residual r = f - A u: the solve finds the correction from r and repeats
 * (iterative refinement) while max|r| > tol max|f| (once in double
 * precision).
 *
 * CPU: the interior rows are packed into rows of ld values, transformed,
 * transposed into columns (contiguous, ld apart), transformed, divided,
 * transformed back, transposed back and transformed again.  Every transform
 * is one FFTW RODFT00 plan of m = n - 1 values made with FFTW_ESTIMATE (the
 * same plan on every run) and executed on arrays of one alignment, so rows
 * may go to any thread and serial and OpenMP give the same bits.
 *
 * CPU backends also solve a grid split into blocks of rows over processes
 * (hd_pois_fft_create_block): u and f hold the block's rows and a ghost row
 * each side, every row index stays global, each block transforms its own
 * interior rows and then the columns of the same indices, and the
 * transposes go through the caller's all-to-all exchange.  Each transform
 * sees the values it would on one block, so a split grid gives the same
 * bits as the whole one.  Hooks (0, or -1 on failure): halo fills u's ghost
 * rows; max replaces *v by its maximum over the blocks; alltoall sends
 * counts[p] values from send to block p and receives counts[p] from it
 * into recv, each block's share consecutive, in block order.  On entry u's
 * ghost rows must be current.
 *
 * CUDA: cuFFT has no sine transform; the DST-I of x_1 .. x_m is minus the
 * imaginary part of the real-to-complex FFT of its odd extension
 * (0, x_1 .. x_m, 0, -x_m .. -x_1), 2n values.  The m extensions of the
 * rows lie one after another (rows: 2n apart), those of the columns side by
 * side (columns: m apart, the transform's stride), so every pass between
 * two transforms reads and writes contiguous runs; the correction's
 * launches are replayed as one CUDA graph. */
#ifndef HD_POISSON_FFT_H
#define HD_POISSON_FFT_H

#include <stdlib.h>
#include <string.h>

#include "poisson.h"

#if defined(HD_BACKEND_CUDA)
#include <cufft.h>
#if defined(HD_REAL_FLOAT)
typedef cufftComplex hd_fft_complex;
#define HD_CUFFT_R2C CUFFT_R2C
#define HD_CUFFT_EXEC cufftExecR2C
#else
typedef cufftDoubleComplex hd_fft_complex;
#define HD_CUFFT_R2C CUFFT_D2Z
#define HD_CUFFT_EXEC cufftExecD2Z
#endif
#else
#include <fftw3.h>
#if defined(HD_REAL_FLOAT)
#define HD_FFTW(name) fftwf_##name
#else
#define HD_FFTW(name) fftw_##name
#endif
#endif

typedef struct hd_pois_fft_args {
  hd_pois_level lv;   /* u, f (array row 0 is global row row0), n, h2 (the residual's) */
  hd_real *x;         /* CPU: the block's interior rows jlo .. jhi - 1, ld values apart; CUDA: m odd extensions */
  const hd_real *eig; /* (4 / h^2) sin^2(k pi / 2n), k = 1 .. m, times (2n)^2 */
  hd_idx m, ld;
  hd_idx row0, jlo, jhi; /* CUDA: 0, 1, n (the whole grid) */
#if defined(HD_BACKEND_CUDA)
  const hd_fft_complex *c; /* the transforms of the m extensions, n + 1 values each */
#else
  hd_real *y;            /* columns jlo .. jhi - 1 (of x's indices), m values each, ld apart */
  hd_real *pack;         /* the transposes' buffer, the blocks' shares in block order */
  const hd_idx *lo, *hi; /* interior rows of every block */
  const hd_idx *at;      /* where each block's share starts in pack */
  hd_idx stride;         /* between its columns there (one block: pack is y, ld) */
  int parts;
  HD_FFTW(plan) plan;    /* RODFT00 of m values in place */
#endif
} hd_pois_fft_args;

/* The residual at interior node (i, j), into x as the sine transform
 * along rows takes it, and its norm. */
HD_FN void hd_pois_fft_residual_pt(const hd_pois_fft_args *a, hd_idx i, hd_idx j, hd_idx k, hd_stats *acc) {
  const hd_idx n = a->lv.n, o = i + (j - a->row0) * (n + 1);
  const hd_real r = hd_pois_residual(&a->lv, o);
  (void)k;
#if defined(HD_BACKEND_CUDA)
  {
    hd_real *row = a->x + (j - 1) * 2 * n;
    row[i] = r, row[2 * n - i] = -r;
    if (i == 1) row[0] = row[n] = HD_R(0);
  }
#else
  a->x[(i - 1) + (j - a->jlo) * a->ld] = r;
#endif
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

#if defined(HD_BACKEND_CUDA)

/* A sine transform from the FFT of its odd extension: rows' modes lie one
 * after another, n + 1 apart; columns' modes m apart, side by side. */
HD_FN hd_real hd_pois_fft_sine(const hd_fft_complex *c, hd_idx at) { return -c[at].y; }

/* Value p of an odd extension of length 2n whose value q (1 <= q <= m) is v:
 * the q it takes and its sign; 0 at p = 0 and p = n. */
HD_FN hd_real hd_pois_fft_odd_sign(hd_idx p, hd_idx n, hd_idx *q) {
  if (p == 0 || p == n) {
    *q = 0;
    return HD_R(0);
  }
  *q = p < n ? p : 2 * n - p;
  return p < n ? HD_R(1) : HD_R(-1);
}

/* Rows' transforms to the columns' extensions: value p of column k' is the
 * transform of row p (1-based) at mode k' + 1. */
HD_FN void hd_pois_fft_to_cols_pt(const hd_pois_fft_args *a, hd_idx kk, hd_idx p) {
  hd_idx q;
  const hd_real s = hd_pois_fft_odd_sign(p, a->lv.n, &q);
  a->x[kk + p * a->m] = q ? s * hd_pois_fft_sine(a->c, kk + 1 + (q - 1) * (a->lv.n + 1)) : HD_R(0);
}

/* Columns' transforms divided by the eigenvalues, extended again along the
 * columns: mode (k' + 1, q). */
HD_FN void hd_pois_fft_divide_pt(const hd_pois_fft_args *a, hd_idx kk, hd_idx p) {
  hd_idx q;
  const hd_real s = hd_pois_fft_odd_sign(p, a->lv.n, &q);
  a->x[kk + p * a->m] = q ? s * hd_pois_fft_sine(a->c, kk + q * a->m) / (a->eig[kk] + a->eig[q - 1]) : HD_R(0);
}

/* Columns' transforms back to the rows' extensions: value p of row j' is
 * the transform of column p at row j' + 1. */
HD_FN void hd_pois_fft_to_rows_pt(const hd_pois_fft_args *a, hd_idx p, hd_idx jj) {
  hd_idx q;
  const hd_real s = hd_pois_fft_odd_sign(p, a->lv.n, &q);
  a->x[p + jj * 2 * a->lv.n] = q ? s * hd_pois_fft_sine(a->c, (q - 1) + (jj + 1) * a->m) : HD_R(0);
}

HD_FN void hd_pois_fft_correct_pt(const hd_pois_fft_args *a, hd_idx i, hd_idx j) {
  a->lv.u[i + j * (a->lv.n + 1)] += hd_pois_fft_sine(a->c, i + (j - 1) * (a->lv.n + 1));
}

HD_DEFINE_FOR_2D(hd_pois_fft_to_cols_loop, hd_pois_fft_to_cols_pt, hd_pois_fft_args)
HD_DEFINE_FOR_2D(hd_pois_fft_divide_loop, hd_pois_fft_divide_pt, hd_pois_fft_args)
HD_DEFINE_FOR_2D(hd_pois_fft_to_rows_loop, hd_pois_fft_to_rows_pt, hd_pois_fft_args)
HD_DEFINE_FOR_2D(hd_pois_fft_correct_loop, hd_pois_fft_correct_pt, hd_pois_fft_args)

typedef struct hd_pois_fft {
  hd_pois_fft_args a;
  hd_real *buf, *eig;
  hd_fft_complex *c;
  cufftHandle rows, cols; /* the m rows' extensions (2n apart), the m columns' (side by side) */
  int have_rows, have_cols;
  void *graph; /* the correction's launches, for u = graph_u */
  const void *graph_u;
  int (*halo)(void *user, hd_real *u); /* unused: one block */
  int (*max)(void *user, double *v);
  void *user;
} hd_pois_fft;

HD_HOST_FN hd_status hd_cufft_fail(hd_ctx *ctx, cufftResult r, const char *what) {
  return hd_fail(ctx, r == CUFFT_ALLOC_FAILED ? HD_ERR_NOMEM : HD_ERR_DEVICE, "poisson: cuFFT %s failed (cufftResult %d)",
                 what, (int)r);
}

HD_HOST_FN void hd_pois_fft_destroy(hd_ctx *ctx, hd_pois_fft *s) {
  if (s->graph) cudaGraphExecDestroy((cudaGraphExec_t)s->graph);
  if (s->have_rows) cufftDestroy(s->rows);
  if (s->have_cols) cufftDestroy(s->cols);
  hd_dev_free(ctx, s->buf), hd_dev_free(ctx, s->eig), hd_dev_free(ctx, s->c);
  memset(s, 0, sizeof *s);
}

/* A plan for m real-to-complex transforms of 2n values, stride `stride`,
 * `dist` apart (outputs the same way, n + 1 values). */
HD_HOST_FN hd_status hd_pois_fft_plan(hd_ctx *ctx, cufftHandle *plan, int *have, hd_idx n, hd_idx m, long long stride,
                                      long long dist, long long out_dist) {
  long long len = 2 * (long long)n, olen = (long long)n + 1;
  size_t work = 0;
  cufftResult r = cufftCreate(plan);
  if (r != CUFFT_SUCCESS) return hd_cufft_fail(ctx, r, "plan creation");
  *have = 1;
  r = cufftMakePlanMany64(*plan, 1, &len, &len, stride, dist, &olen, stride, out_dist, HD_CUFFT_R2C, (long long)m, &work);
  return r == CUFFT_SUCCESS ? HD_OK : hd_cufft_fail(ctx, r, "planning the sine transforms");
}

HD_HOST_FN hd_status hd_pois_fft_exec(hd_ctx *ctx, cufftHandle plan, hd_real *x, hd_fft_complex *c) {
  cufftResult r = cufftSetStream(plan, hd_stream(ctx));
  if (r == CUFFT_SUCCESS) r = HD_CUFFT_EXEC(plan, x, c);
  return r == CUFFT_SUCCESS ? HD_OK : hd_cufft_fail(ctx, r, "execution");
}

HD_HOST_FN hd_status hd_pois_fft_alloc(hd_ctx *ctx, hd_pois_fft *s, hd_idx n, hd_idx m) {
  hd_status st = hd_dev_alloc(ctx, (void **)&s->buf, (size_t)(2 * n * m) * sizeof(hd_real));
  if (st == HD_OK) st = hd_dev_alloc(ctx, (void **)&s->c, (size_t)((n + 1) * m) * sizeof(hd_fft_complex));
  if (st == HD_OK) st = hd_dev_alloc(ctx, (void **)&s->eig, (size_t)m * sizeof(hd_real));
  if (st == HD_OK) st = hd_pois_fft_plan(ctx, &s->rows, &s->have_rows, n, m, 1, 2 * n, n + 1);
  if (st == HD_OK) st = hd_pois_fft_plan(ctx, &s->cols, &s->have_cols, n, m, m, 1, 1);
  s->a.ld = 2 * n, s->a.c = s->c;
  return st;
}

/* The correction from the residual's extensions in x, added to u. */
HD_HOST_FN hd_status hd_pois_fft_correct_launches(hd_ctx *ctx, void *arg) {
  hd_pois_fft *s = (hd_pois_fft *)arg;
  const hd_idx n = s->a.lv.n, m = s->a.m;
  hd_status st = hd_pois_fft_exec(ctx, s->rows, s->buf, s->c);
  if (st == HD_OK) st = hd_pois_fft_to_cols_loop(ctx, &s->a, hd_range3_make(0, m, 0, 2 * n, 0, 1));
  if (st == HD_OK) st = hd_pois_fft_exec(ctx, s->cols, s->buf, s->c);
  if (st == HD_OK) st = hd_pois_fft_divide_loop(ctx, &s->a, hd_range3_make(0, m, 0, 2 * n, 0, 1));
  if (st == HD_OK) st = hd_pois_fft_exec(ctx, s->cols, s->buf, s->c);
  if (st == HD_OK) st = hd_pois_fft_to_rows_loop(ctx, &s->a, hd_range3_make(0, 2 * n, 0, m, 0, 1));
  if (st == HD_OK) st = hd_pois_fft_exec(ctx, s->rows, s->buf, s->c);
  if (st == HD_OK) st = hd_pois_fft_correct_loop(ctx, &s->a, hd_range3_make(1, n, 1, n, 0, 1));
  return st;
}

HD_HOST_FN hd_status hd_pois_fft_correct(hd_ctx *ctx, hd_pois_fft *s) {
#if !defined(HD_DEBUG)
  if (!s->graph || s->graph_u != s->a.lv.u) {
    hd_status st;
    if (s->graph) cudaGraphExecDestroy((cudaGraphExec_t)s->graph);
    s->graph = NULL;
    st = hd_graph_record(ctx, hd_pois_fft_correct_launches, s, "recording the FFT solve as a CUDA graph", &s->graph);
    if (st != HD_OK) return st;
    s->graph_u = s->a.lv.u;
  }
  HD_CUDA_TRY(ctx, cudaGraphLaunch((cudaGraphExec_t)s->graph, hd_stream(ctx)));
  return HD_OK;
#else
  return hd_pois_fft_correct_launches(ctx, s);
#endif
}

#else /* CPU backends: FFTW3 */

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

/* The correction from the residual packed in x, added to u. */
HD_HOST_FN hd_status hd_pois_fft_correct(hd_ctx *ctx, hd_pois_fft *s) {
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
  return st;
}

#endif

/* The eigenvalues, after hd_pois_fft_alloc. */
HD_HOST_FN hd_status hd_pois_fft_setup(hd_ctx *ctx, hd_pois_fft *s, hd_idx n, double h) {
  const hd_idx m = n - 1;
  const double pi = 3.14159265358979323846;
  hd_status st;
  hd_real *eig;
  hd_idx i;
  if (!(eig = (hd_real *)malloc((size_t)m * sizeof(hd_real))))
    return hd_fail(ctx, HD_ERR_NOMEM, "poisson: out of host memory for the FFT solve on %ld^2 cells", (long)n);
  for (i = 0; i < m; ++i) {
    const double si = sin(pi * (double)(i + 1) / (2.0 * (double)n));
    eig[i] = (hd_real)(4.0 * si * si / (h * h) * (2.0 * (double)n) * (2.0 * (double)n));
  }
  st = hd_dev_upload(ctx, s->eig, eig, (size_t)m * sizeof(hd_real));
  free(eig);
  s->a.lv.n = n, s->a.lv.h2 = (hd_real)(h * h);
  s->a.x = s->buf, s->a.eig = s->eig, s->a.m = m;
  return st;
}

#if !defined(HD_BACKEND_CUDA)
/* Block `part` of `parts` blocks of rows of a split grid: block p updates
 * node rows [lo[p], hi[p]) (walls included), in any order of p; u and f
 * hold rows row0 .. (row0 = lo[part] - 1: a ghost row each side).  The
 * hooks are set by the caller afterwards. */
HD_HOST_FN hd_status hd_pois_fft_create_block(hd_ctx *ctx, hd_pois_fft *s, hd_idx n, double h, hd_idx row0, int parts,
                                              int part, const hd_idx *lo, const hd_idx *hi) {
  hd_status st = hd_pois_check_size(ctx, n, h);
  hd_idx *r;
  int p;
  memset(s, 0, sizeof *s);
  if (st != HD_OK) return st;
  if (parts < 1 || part < 0 || part >= parts)
    return hd_fail(ctx, HD_ERR_ARG, "poisson: block %d of %d blocks", part, parts);
  if (!(r = s->parts_rows = (hd_idx *)malloc(4 * (size_t)parts * sizeof(hd_idx))))
    return hd_fail(ctx, HD_ERR_NOMEM, "poisson: out of host memory");
  for (p = 0; p < parts; ++p) { /* interior rows: 1 .. n - 1 */
    r[p] = lo[p] > 1 ? lo[p] : 1;
    r[parts + p] = hi[p] < n ? hi[p] : n;
    if (r[parts + p] < r[p]) r[parts + p] = r[p];
  }
  s->a.row0 = row0, s->a.jlo = r[part], s->a.jhi = r[parts + part];
  for (p = 0; p < parts; ++p) { /* shares: this block's rows times block p's */
    r[3 * parts + p] = (s->a.jhi - s->a.jlo) * (r[parts + p] - r[p]);
    r[2 * parts + p] = p ? r[2 * parts + p - 1] + r[3 * parts + p - 1] : 0;
  }
  s->a.lo = r, s->a.hi = r + parts, s->a.at = r + 2 * parts, s->a.parts = parts;
  st = hd_pois_fft_alloc(ctx, s, n, n - 1);
  if (st == HD_OK) st = hd_pois_fft_setup(ctx, s, n, h);
  if (st != HD_OK) hd_pois_fft_destroy(ctx, s);
  return st;
}
#endif

HD_HOST_FN hd_status hd_pois_fft_create(hd_ctx *ctx, hd_pois_fft *s, hd_idx n, double h) {
#if defined(HD_BACKEND_CUDA)
  hd_status st = hd_pois_check_size(ctx, n, h);
  memset(s, 0, sizeof *s);
  s->a.jlo = 1, s->a.jhi = n;
  if (st == HD_OK) st = hd_pois_fft_alloc(ctx, s, n, n - 1);
  if (st == HD_OK) st = hd_pois_fft_setup(ctx, s, n, h);
  if (st != HD_OK) hd_pois_fft_destroy(ctx, s);
  return st;
#else
  const hd_idx lo = 0, hi = n + 1;
  return hd_pois_fft_create_block(ctx, s, n, h, 0, 1, 0, &lo, &hi);
#endif
}

HD_HOST_FN hd_status hd_pois_fft_solve(hd_ctx *ctx, hd_pois_fft *s, hd_real *u, const hd_real *f,
                                       const hd_pois_opts *o, hd_pois_result *res) {
  const hd_range3 rows = hd_range3_make(1, s->a.lv.n, s->a.jlo, s->a.jhi, 0, 1);
  double fmax = 0.0, r = 0.0;
  hd_stats acc;
  hd_status st;
  s->a.lv.u = u, s->a.lv.f = f;
  st = hd_pois_fft_f_reduce(ctx, &s->a, rows, &acc);
  if (st == HD_OK) st = hd_pois_block_norm(ctx, s->max, s->user, &acc, "the right-hand side", &fmax);
  res->iterations = 0, res->checks = 0, res->residual = 0.0;
  while (st == HD_OK) {
    st = hd_pois_fft_residual_reduce(ctx, &s->a, rows, &acc);
    if (st == HD_OK) st = hd_pois_block_norm(ctx, s->max, s->user, &acc, "the residual", &r);
    res->checks++;
    res->residual = fmax > 0 ? r / fmax : r;
    if (st != HD_OK || r <= o->tol * fmax) break;
    if (res->iterations >= o->max_iter) {
      st = hd_fail(ctx, HD_ERR_NOCONV, "poisson: FFT residual %.3g of max|f| after %ld solves (tolerance %g)",
                   res->residual, res->iterations, o->tol);
      break;
    }
    st = hd_pois_fft_correct(ctx, s);
    if (st == HD_OK && s->halo && s->halo(s->user, u)) st = hd_fail(ctx, HD_ERR_IO, "poisson: the halo exchange failed");
    res->iterations++;
  }
  s->a.lv.u = NULL, s->a.lv.f = NULL;
  return st;
}

#endif /* HD_POISSON_FFT_H */
