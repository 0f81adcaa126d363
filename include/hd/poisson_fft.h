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
 * CUDA: cuFFT has no sine transform.  The forward transforms take a real
 * FFT Y of n values of the fold y_a = 2 sin(pi a / n)(x_a + x_{n-a}) +
 * (x_a - x_{n-a}) (x_0 = x_n = 0; Numerical Recipes' sinft): the DST-I
 * T_k = 2 sum_j x_j sin(pi j k / n) is -Im Y_l at k = 2l and Re Y_0 / 2 +
 * Re Y_1 + .. + Re Y_l at k = 2l + 1, a prefix sum along the line.  Its
 * rounding grows as sqrt(n), which the residual sees undivided.  The
 * inverse transforms' rounding is multiplied by the operator (up to 8/h^2,
 * a factor 8n^2 on max|r|), so they take the odd extension to 2n values
 * instead, two lines a, b as one complex line ext(a) + i ext(b) whose FFT
 * is T_b - i T_a: one complex FFT of 2n a pair, exact to an FFT's
 * rounding, and one solve reaches max|r| ~ eps n^2 max|f|.  For even n
 * (8 or more) the inverse transforms split each line's modes by parity:
 * the even modes' sum E is a sine transform of n / 2 (the pair's odd
 * extension, n values), the odd modes' sum O a DST-II of n / 2 (a real FFT
 * of the modes in Makhoul's order, then a twiddle), and T_j = O_j + E_j,
 * T_{n-j} = O_j - E_j: 1.5n values a line through memory instead of 2n,
 * to the same rounding.  Every transform
 * runs on contiguous lines (cuFFT is about four times slower on strided
 * columns): the rows' prefix sums are stored transposed (and folded for
 * the columns' FFTs), a block a pair of columns takes theirs into the odd
 * extensions, a tiled transpose turns the columns back into rows, and
 * the correction's launches with the check of the new u are replayed as
 * one CUDA graph. */
#ifndef HD_POISSON_FFT_H
#define HD_POISSON_FFT_H

#include <stdlib.h>
#include <string.h>

#include "poisson_fft_cuda.h"
#include "poisson_fft_fftw.h"

/* The eigenvalues, after hd_pois_fft_alloc. */
HD_HOST_FN hd_status hd_pois_fft_setup(hd_ctx *ctx, hd_pois_fft *s, hd_idx n, double h) {
  const hd_idx m = n - 1;
  const double pi = 3.14159265358979323846;
  hd_status st;
  hd_real *eig;
  hd_idx i;
  if (!(eig = (hd_real *)malloc((size_t)(m + 1) * sizeof(hd_real))))
    return hd_fail(ctx, HD_ERR_NOMEM, "poisson: out of host memory for the FFT solve on %ld^2 cells", (long)n);
  for (i = 0; i < m; ++i) {
    const double si = sin(pi * (double)(i + 1) / (2.0 * (double)n));
    eig[i] = (hd_real)(4.0 * si * si / (h * h) * (2.0 * (double)n) * (2.0 * (double)n));
  }
  st = hd_dev_upload(ctx, s->eig, eig, (size_t)m * sizeof(hd_real));
#if defined(HD_BACKEND_CUDA)
  for (i = 0; i <= n / 2; ++i) eig[i] = (hd_real)sin(pi * (double)i / (double)n);
  if (st == HD_OK) st = hd_dev_upload(ctx, s->sine, eig, (size_t)(n / 2 + 1) * sizeof(hd_real));
#endif
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
  if (!(r = s->parts_rows = (hd_idx *)calloc(4 * (size_t)parts, sizeof(hd_idx))))
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
  double fmax = 0.0, r = 0.0;
  hd_status st = HD_OK;
  s->a.lv.u = u, s->a.lv.f = f;
  res->iterations = 0, res->checks = 0, res->residual = 0.0;
  st = hd_pois_fft_residual(ctx, s, &r, &fmax);
  res->checks = 1;
  while (st == HD_OK) {
    res->residual = fmax > 0 ? r / fmax : r;
    if (r <= o->tol * fmax) break;
    if (res->iterations >= o->max_iter) {
      st = hd_fail(ctx, HD_ERR_NOCONV, "poisson: FFT residual %.3g of max|f| after %ld solves (tolerance %g)",
                   res->residual, res->iterations, o->tol);
      break;
    }
    /* a check that did not fold leaves x to fold again */
    if (res->iterations && !HD_POIS_FFT_CHECK_FOLDS) st = hd_pois_fft_residual(ctx, s, &r, NULL);
    if (st == HD_OK) st = hd_pois_fft_correct(ctx, s, &r);
    res->iterations++, res->checks++;
  }
  s->a.lv.u = NULL, s->a.lv.f = NULL;
  return st;
}

#endif /* HD_POISSON_FFT_H */
