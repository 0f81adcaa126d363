/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/poisson_fft_cuda.h - the FFT Poisson solve on CUDA (hd/poisson_fft.h
 * says how): the folds, prefix sums and split inverse transforms around
 * cuFFT's real and complex FFTs, the correction replayed as a CUDA graph.
 * Empty on the CPU backends. */
#ifndef HD_POISSON_FFT_CUDA_H
#define HD_POISSON_FFT_CUDA_H

#include <stdlib.h>
#include <string.h>

#include "poisson_fft_args.h"

#if defined(HD_BACKEND_CUDA)
/* x_a and x_{n-a} of a line folded into y[a] and y[n - a] (hd/poisson_fft.h). */
HD_FN void hd_pois_fft_fold(hd_real *y, hd_idx n, hd_idx a, hd_real xa, hd_real xna, hd_real sine) {
  const hd_real sum = 2 * sine * (xa + xna), diff = xa - xna;
  y[a] = sum + diff;
  if (a && 2 * a != n) y[n - a] = sum - diff;
}

/* max(|x|, |y|), infinite where either is not finite. */
HD_FN double hd_pois_fft_absmax(double x, double y) {
  x = fabs(x), y = fabs(y);
  return x <= DBL_MAX && y <= DBL_MAX ? fmax(x, y) : HUGE_VAL;
}

/* Modes k (0 <= k <= n) of lines 2q and 2q + 1's sine transforms (v[0],
 * v[1]; line 2q + 1 may be past the last), divided by their eigenvalues
 * (mode (line + 1, k)) into the pair's odd extension for the inverse
 * transform, line 2q its real part, 2q + 1 its imaginary part (v at k, -v
 * at 2n - k, zeros at k = 0 and n). */
HD_FN void hd_pois_fft_put(const hd_pois_fft_args *a, hd_idx q, hd_idx k, const hd_real v[2]) {
  const hd_idx n = a->lv.n;
  const int two = 2 * q + 1 < a->m;
  if (k <= n) {
    hd_fft_complex *z = a->z + q * 2 * n, e;
    const int in = k && k < n;
    e.x = in ? v[0] / (a->eig[2 * q] + a->eig[k - 1]) : HD_R(0);
    e.y = in && two ? v[1] / (a->eig[2 * q + 1] + a->eig[k - 1]) : HD_R(0);
    z[k] = e;
    e.x = -e.x, e.y = -e.y;
    if (in) z[2 * n - k] = e;
  }
}

/* Where odd mode 2o + 1 of a line goes in its reordered line of n / 2
 * values (Makhoul's order for the DCT-II), and in *sign its sign there
 * (alternating: the DST-II as a DCT-II read backwards). */
HD_FN hd_idx hd_pois_fft_odd_at(hd_idx half, hd_idx o, hd_real *sign) {
  *sign = o & 1 ? HD_R(-1) : HD_R(1);
  return o & 1 ? half - 1 - (o >> 1) : o >> 1;
}

/* Split: modes 2l and 2l + 1 of lines 2q and 2q + 1 (line 2q + 1 may be
 * past the last), divided by their eigenvalues, the even mode into the
 * pair's odd extension of n values (line 2q its real part; positions 0 and
 * n / 2 stay zero from the allocation), the odd one into each line's
 * reordered odd modes. */
HD_FN void hd_pois_fft_put_split(const hd_pois_fft_args *a, hd_idx q, hd_idx l, const hd_real even[2],
                                 const hd_real odd[2]) {
  const hd_idx n = a->lv.n, half = n / 2, line = 2 * q;
  const int two = line + 1 < a->m;
  hd_real sign;
  if (l >= 1 && l < half) {
    hd_fft_complex *z = a->z + q * n, e;
    e.x = even[0] / (a->eig[line] + a->eig[2 * l - 1]);
    e.y = two ? even[1] / (a->eig[line + 1] + a->eig[2 * l - 1]) : HD_R(0);
    z[l] = e;
    e.x = -e.x, e.y = -e.y;
    z[n - l] = e;
  }
  if (l < half) {
    const hd_idx at = hd_pois_fft_odd_at(half, l, &sign);
    a->v[line * half + at] = sign * odd[0] / (a->eig[line] + a->eig[2 * l]);
    if (two) a->v[(line + 1) * half + at] = sign * odd[1] / (a->eig[line + 1] + a->eig[2 * l]);
  }
}

/* Split: the sine transform of a line at j and n - j (1 <= j <= n / 2)
 * from the FFT e of its even modes' odd extension (the pair's value at j,
 * the line's part e_j) and the real FFT V of its reordered odd modes: the
 * odd modes' sum O_j = O_{n-j} is a DST-II of n / 2, Re(w V_{n/2-j}) with
 * a twiddle w (V_k the conjugate of V_{n/2-k} past n / 4), and the even
 * modes' sum changes sign at n - j. */
HD_FN void hd_pois_fft_split_values(const hd_pois_fft_args *a, hd_real e_j, const hd_fft_complex *V, hd_idx j,
                                    hd_real *t_j, hd_real *t_nj) {
  const hd_idx half = a->lv.n / 2;
  const hd_real s = HD_LOAD(a->sine + j), c = HD_LOAD(a->sine + half - j);
  hd_real o;
  if (2 * j >= half) {
    const hd_fft_complex w = HD_LOAD(V + half - j);
    o = 2 * (s * w.x + c * w.y);
  } else {
    const hd_fft_complex w = HD_LOAD(V + j);
    o = 2 * (s * w.x - c * w.y);
  }
  *t_j = o + e_j, *t_nj = o - e_j;
}

/* Value l of line `line`'s FFT, zero past the ends. */
HD_FN hd_fft_complex hd_pois_fft_coef(const hd_pois_fft_args *a, hd_idx line, hd_idx l) {
  hd_fft_complex y;
  y.x = y.y = HD_R(0);
  if (line < a->m && l < a->nh) y = HD_LOAD(a->c + line * a->nh + l);
  return y;
}

/* The inverse transforms' first step: a block a pair of lines (columns),
 * their sine transforms from their FFTs (the prefix sums of the real parts
 * by tiles of blockDim values, in a fixed order) into the pair's odd
 * extension (split: its even modes', and the odd modes reordered).  Lane
 * i of a warp holds modes 2l and 2l + 1, l = l0 + i, and puts modes
 * 2 l0 + i and 2 l0 + 32 + i: stores of consecutive modes. */
static __global__ void hd_pois_fft_modes_kernel(HD_KPARAM(hd_pois_fft_args) a) {
  __shared__ hd_real sums[2][32];
  const hd_idx q = (hd_idx)blockIdx.x;
  const int tid = (int)threadIdx.x, lane = tid & 31, w = tid >> 5, warps = (int)blockDim.x >> 5;
  hd_real carry[2] = {HD_R(0), HD_R(0)};
  hd_idx l0;
  int o, e, h;
  for (l0 = 0; l0 < a.nh; l0 += blockDim.x) {
    const hd_idx l = l0 + tid;
    hd_real v[2], odd[2], even[2], put[2];
    for (e = 0; e < 2; ++e) {
      const hd_fft_complex y = hd_pois_fft_coef(&a, 2 * q + e, l);
      v[e] = l ? y.x : y.x / 2;
      even[e] = -y.y;
      for (o = 1; o < 32; o <<= 1) {
        const hd_real u = __shfl_up_sync(0xffffffffu, v[e], o);
        if (lane >= o) v[e] += u;
      }
      if (lane == 31) sums[e][w] = v[e];
    }
    __syncthreads();
    if (w < 2) {
      hd_real s = lane < warps ? sums[w][lane] : HD_R(0);
      for (o = 1; o < 32; o <<= 1) {
        const hd_real u = __shfl_up_sync(0xffffffffu, s, o);
        if (lane >= o) s += u;
      }
      sums[w][lane] = s;
    }
    __syncthreads();
    for (e = 0; e < 2; ++e) {
      odd[e] = carry[e] + (w ? sums[e][w - 1] : HD_R(0)) + v[e];
      carry[e] += sums[e][warps - 1];
    }
    if (a.split) hd_pois_fft_put_split(&a, q, l, even, odd);
    else
      for (h = 0; h < 2; ++h) {
        for (e = 0; e < 2; ++e) {
          const hd_real ev = __shfl_sync(0xffffffffu, even[e], 16 * h + lane / 2);
          const hd_real od = __shfl_sync(0xffffffffu, odd[e], 16 * h + lane / 2);
          put[e] = lane & 1 ? od : ev;
        }
        hd_pois_fft_put(&a, q, 2 * (l - lane) + 32 * h + lane, put);
      }
    __syncthreads(); /* sums is the next tile's */
  }
}

/* The forward transforms' middle step: the rows' sine transforms from
 * their FFTs, written transposed into x (line k - 1: rows p folded with
 * rows n - p) with no pass through memory between.  A block takes four
 * rows p0 .. p0 + 3 and their mirrors n - p (eight lines; row p is line
 * p - 1 of c) by tiles of 256 values of their FFTs: loads along the lines
 * (the whole tile in flight before any use), a warp's prefix sums a line
 * 32 values at a time, stores of four consecutive rows (a 32-byte sector
 * in double) along x's lines.  One pass through memory fewer than a pass
 * to the modes and a tiled transpose, and no faster: 1.39 ms a solve at
 * 4096^2 either way, its loads waited on (8 rows by 128 values and 16 by
 * 64 no faster). */
enum { HD_POIS_FFT_T_PAIRS = 4, HD_POIS_FFT_T_TILE = 256, HD_POIS_FFT_T_THREADS = 256 };
static __global__ void __launch_bounds__(HD_POIS_FFT_T_THREADS)
    hd_pois_fft_modes_t_kernel(HD_KPARAM(hd_pois_fft_args) a) {
  enum { P = HD_POIS_FFT_T_PAIRS, TILE = HD_POIS_FFT_T_TILE, THREADS = HD_POIS_FFT_T_THREADS, WARPS = THREADS / 32 };
  enum { PER_WARP = 2 * P > WARPS ? 2 * P / WARPS : 1 };
  __shared__ hd_real re[2 * P][TILE + 1]; /* the prefix sums in place */
  __shared__ hd_real im[2 * P][TILE + 1];
  const hd_idx n = a.lv.n, p0 = (hd_idx)blockIdx.x * P;
  const int t = (int)threadIdx.x, lane = t & 31, w = t >> 5; /* warp w scans lines w, w + WARPS, .. */
  hd_real carry[PER_WARP];
  hd_idx l0;
  int idx, j, s;
  for (s = 0; s < PER_WARP; ++s) carry[s] = HD_R(0);
  for (l0 = 0; l0 < a.nh; l0 += TILE) {
    for (idx = t; idx < 2 * P * TILE; idx += THREADS) {
      const int r = idx / TILE, dl = idx % TILE;
      const hd_idx p = p0 + r % P, l = l0 + dl;
      hd_fft_complex y;
      y.x = y.y = HD_R(0);
      if (p >= 1 && 2 * p <= n && l < a.nh) y = HD_LOAD(a.c + (r < P ? p - 1 : n - p - 1) * a.nh + l);
      re[r][dl] = l ? y.x : y.x / 2;
      im[r][dl] = -y.y;
    }
    __syncthreads();
#pragma unroll
    for (s = 0; s < PER_WARP; ++s) {
      const int r = w + WARPS * s;
      if (r >= 2 * P) break;
      for (j = 0; j < TILE; j += 32) {
        hd_real v = re[r][j + lane];
        int o;
        for (o = 1; o < 32; o <<= 1) {
          const hd_real u = __shfl_up_sync(0xffffffffu, v, o);
          if (lane >= o) v += u;
        }
        v += carry[s];
        re[r][j + lane] = v;
        carry[s] = __shfl_sync(0xffffffffu, v, 31);
      }
    }
    __syncthreads();
    for (idx = t; idx < 2 * P * TILE; idx += THREADS) {
      const int pp = idx % P, kk = idx / P, dl = kk >> 1;
      const hd_idx p = p0 + pp, k = 2 * l0 + kk; /* mode 2l: -Im Y_l; 2l + 1: the prefix sum */
      if (k < 1 || k >= n || 2 * p > n) continue;
      hd_pois_fft_fold(a.x + (k - 1) * n, n, p, kk & 1 ? re[pp][dl] : im[pp][dl],
                       kk & 1 ? re[P + pp][dl] : im[P + pp][dl], HD_LOAD(a.sine + p));
    }
    __syncthreads(); /* re and im are the next tile's */
  }
}

/* Line L's value at k (1 <= k < n) from its pair's FFT: T_b - i T_a. */
HD_FN hd_real hd_pois_fft_value(const hd_pois_fft_args *a, hd_idx line, hd_idx k) {
  const hd_fft_complex v = HD_LOAD(a->zf + (line >> 1) * 2 * a->lv.n + k);
  return line & 1 ? v.x : -v.y;
}

/* The transpose of the lines' values in zf (line L, position k) into the
 * odd extensions of z (line k - 1, position L + 1): tiles of 32 lines by
 * 32 positions, a pair's two values stored together. */
static __global__ void hd_pois_fft_extend_t_kernel(HD_KPARAM(hd_pois_fft_args) a) {
  __shared__ hd_real v[32][33]; /* [line - l0][k - k0] */
  const hd_idx n = a.lv.n, m = a.m, l0 = (hd_idx)blockIdx.y * 32, k0 = 1 + (hd_idx)blockIdx.x * 32;
  const int tx = (int)threadIdx.x;
  int r;
  for (r = (int)threadIdx.y; r < 32; r += (int)blockDim.y) {
    const hd_idx line = l0 + r, k = k0 + tx;
    v[r][tx] = line < m && k < n ? hd_pois_fft_value(&a, line, k) : HD_R(0);
  }
  __syncthreads();
  for (r = (int)threadIdx.y; 2 * r < 32; r += (int)blockDim.y) {
    const hd_idx q = (k0 - 1) / 2 + r, line = l0 + tx, p = line + 1; /* lines 2q, 2q + 1 of z, position p */
    hd_fft_complex *z = a.z + q * 2 * n, val;
    if (2 * q >= m || line >= m) continue;
    val.x = v[tx][2 * r], val.y = v[tx][2 * r + 1]; /* zero past the last line */
    z[p] = val;
    val.x = -val.x, val.y = -val.y;
    z[2 * n - p] = val;
    if (p == 1) z[0].x = z[0].y = HD_R(0);
    if (p == m) z[n].x = z[n].y = HD_R(0);
  }
}

/* u += the correction, row j from line j - 1, a thread a node of two rows. */
static __global__ void hd_pois_fft_add_kernel(HD_KPARAM(hd_pois_fft_args) a) {
  const hd_idx n = a.lv.n, i = 1 + (hd_idx)blockIdx.x * blockDim.x + threadIdx.x;
  hd_idx q;
  for (q = (hd_idx)blockIdx.y; 2 * q < a.m && i < n; q += gridDim.y) {
    const hd_fft_complex v = HD_LOAD(a.zf + q * 2 * n + i);
    a.lv.u[i + (2 * q + 1) * (n + 1)] -= v.y;
    if (2 * q + 1 < a.m) a.lv.u[i + (2 * q + 2) * (n + 1)] += v.x;
  }
}

/* Split: the columns' values (line L at j and n - j from zf and vf) into
 * the rows' inputs, transposed: rows j and n - j (pair j - 1) at position
 * L + 1, even positions into the pair's odd extension, odd ones into each
 * row's reordered odd modes.  Tiles of 32 lines by 32 positions j. */
static __global__ void hd_pois_fft_extend_split_kernel(HD_KPARAM(hd_pois_fft_args) a) {
  __shared__ hd_real lo[32][33], hi[32][33]; /* [line - l0][j - j0]: values at j and n - j */
  const hd_idx n = a.lv.n, half = n / 2, m = a.m, l0 = (hd_idx)blockIdx.y * 32, j0 = 1 + (hd_idx)blockIdx.x * 32;
  const int tx = (int)threadIdx.x;
  int r;
  for (r = (int)threadIdx.y; r < 32; r += (int)blockDim.y) {
    const hd_idx line = l0 + r, j = j0 + tx;
    hd_real tj = HD_R(0), tnj = HD_R(0);
    if (line < m && j <= half) {
      const hd_fft_complex e = HD_LOAD(a.zf + (line >> 1) * n + j);
      hd_pois_fft_split_values(&a, line & 1 ? e.x : -e.y, a.vf + line * (half / 2 + 1), j, &tj, &tnj);
    }
    lo[r][tx] = tj, hi[r][tx] = tnj;
  }
  __syncthreads();
  for (r = (int)threadIdx.y; r < 32; r += (int)blockDim.y) {
    const hd_idx j = j0 + r, p = l0 + tx + 1;
    const int mirror = j < half; /* row n - j is another row */
    if (j > half || p > m) continue;
    if (p & 1) {
      hd_real sign;
      const hd_idx at = hd_pois_fft_odd_at(half, p >> 1, &sign);
      a.v[(j - 1) * half + at] = sign * lo[tx][r];
      if (mirror) a.v[(n - j - 1) * half + at] = sign * hi[tx][r];
    } else {
      hd_fft_complex *z = a.z + (j - 1) * n, val;
      val.x = lo[tx][r], val.y = mirror ? hi[tx][r] : HD_R(0);
      z[p / 2] = val;
      val.x = -val.x, val.y = -val.y;
      z[n - p / 2] = val;
    }
  }
}

/* Split: u += the correction, rows j and n - j from pair j - 1, a thread
 * nodes i and n - i (1 <= i <= n / 2) of both. */
static __global__ void hd_pois_fft_add_split_kernel(HD_KPARAM(hd_pois_fft_args) a) {
  const hd_idx n = a.lv.n, half = n / 2, sy = n + 1, i = 1 + (hd_idx)blockIdx.x * blockDim.x + threadIdx.x;
  hd_idx j;
  for (j = 1 + (hd_idx)blockIdx.y; j <= half && i <= half; j += gridDim.y) {
    const hd_fft_complex e = HD_LOAD(a.zf + (j - 1) * n + i);
    const hd_idx vl = half / 2 + 1;
    hd_real t, tn;
    hd_pois_fft_split_values(&a, -e.y, a.vf + (j - 1) * vl, i, &t, &tn);
    a.lv.u[i + j * sy] += t;
    if (i < half) a.lv.u[n - i + j * sy] += tn;
    if (j == half) continue;
    hd_pois_fft_split_values(&a, e.x, a.vf + (n - j - 1) * vl, i, &t, &tn);
    a.lv.u[i + (n - j) * sy] += t;
    if (i < half) a.lv.u[n - i + (n - j) * sy] += tn;
  }
}

/* Blocks for a grid-stride pass over `lines` lines of `blocks_x` blocks:
 * enough to fill the GPU, within the grid's limit for any n. */
HD_HOST_FN unsigned hd_pois_fft_grid_y(hd_idx lines, unsigned blocks_x) {
  const hd_idx want = 4096 / (hd_idx)blocks_x;
  return (unsigned)(lines < want ? lines : want > 0 ? want : 1);
}

HD_HOST_FN hd_status hd_pois_fft_modes(hd_ctx *ctx, const hd_pois_fft_args *a) {
  /* two warps or more: one scans each line's tile sums */
  const unsigned threads = a->nh >= 256 ? 256u : a->nh <= 64 ? 64u : (unsigned)((a->nh + 31) / 32 * 32);
  hd_pois_fft_modes_kernel<<<(unsigned)((a->m + 1) / 2), threads, 0, hd_stream(ctx)>>>(*a);
  return hd_check_launch(ctx, "hd_pois_fft_modes_kernel", __FILE__, __LINE__);
}

HD_HOST_FN hd_status hd_pois_fft_modes_t(hd_ctx *ctx, const hd_pois_fft_args *a) {
  const unsigned blocks = (unsigned)((a->lv.n / 2 + HD_POIS_FFT_T_PAIRS) / HD_POIS_FFT_T_PAIRS); /* rows 0 .. n / 2 */
  hd_pois_fft_modes_t_kernel<<<blocks, HD_POIS_FFT_T_THREADS, 0, hd_stream(ctx)>>>(*a);
  return hd_check_launch(ctx, "hd_pois_fft_modes_t_kernel", __FILE__, __LINE__);
}

HD_HOST_FN hd_status hd_pois_fft_extend_t(hd_ctx *ctx, const hd_pois_fft_args *a) {
  const unsigned positions = (unsigned)(((a->split ? a->lv.n / 2 : a->m) + 31) / 32);
  const dim3 grid(positions, (unsigned)((a->m + 31) / 32)), block(32, 8);
  if (a->split) hd_pois_fft_extend_split_kernel<<<grid, block, 0, hd_stream(ctx)>>>(*a);
  else hd_pois_fft_extend_t_kernel<<<grid, block, 0, hd_stream(ctx)>>>(*a);
  return hd_check_launch(ctx, "hd_pois_fft_extend_t_kernel", __FILE__, __LINE__);
}

HD_HOST_FN hd_status hd_pois_fft_add(hd_ctx *ctx, const hd_pois_fft_args *a) {
  const hd_idx nodes = a->split ? a->lv.n / 2 : a->m;
  const unsigned bx = (unsigned)((nodes + 255) / 256);
  const dim3 grid(bx, hd_pois_fft_grid_y((a->m + 1) / 2, bx));
  if (a->split) hd_pois_fft_add_split_kernel<<<grid, 256, 0, hd_stream(ctx)>>>(*a);
  else hd_pois_fft_add_kernel<<<grid, 256, 0, hd_stream(ctx)>>>(*a);
  return hd_check_launch(ctx, "hd_pois_fft_add_kernel", __FILE__, __LINE__);
}

/* The block's maximum of v >= 0 into *out, by shuffles and atomicMax on
 * the bits (non-negative doubles order as their bits do): the same value
 * in any order.  Every thread of the block calls it. */
static __device__ void hd_pois_fft_block_max(double v, double *top, unsigned long long *out) {
  int d;
  for (d = 16; d; d >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, d));
  if ((threadIdx.x & 31) == 0) top[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (d = 1; d < (int)blockDim.x / 32; ++d) v = fmax(v, top[d]);
    atomicMax(out, (unsigned long long)__double_as_longlong(v));
  }
}

/* Rows a thread of the residual and check passes: each thread walks down
 * its columns keeping the rows below and above in registers, so a node's
 * u is read once from memory rather than by three threads.  Blocks are
 * numbered along x only (column block fastest), so that any n fits the
 * grid without a loop over row groups, which costs 10 % at 4096^2. */
enum { HD_POIS_FFT_RES_ROWS = 8, HD_POIS_FFT_CHECK_ROWS = 16 };

/* The residual at nodes (i, j) and (n - i, j), 0 <= i <= n / 2, folded
 * into row j's line of x, and max|r| (with want_f max|f| too) into out. */
static __global__ void hd_pois_fft_residual_kernel(HD_KPARAM(hd_pois_fft_args) a, unsigned long long *out,
                                                   int want_f, unsigned col_blocks) {
  __shared__ double top[2][32];
  const hd_pois_level lv = a.lv;
  const hd_idx n = lv.n, sy = n + 1, i = (hd_idx)(blockIdx.x % col_blocks) * blockDim.x + threadIdx.x;
  const hd_idx j0 = 1 + (hd_idx)(blockIdx.x / col_blocks) * HD_POIS_FFT_RES_ROWS, ni = 2 * i != n ? n - i : i;
  double v[2] = {0.0, 0.0};
  if (2 * i <= n) {
    const hd_idx ia = i ? i : 1, ib = i ? ni : 1; /* column 0 walks column 1, unused */
    const hd_real *u = lv.u, sine = HD_LOAD(a.sine + i);
    hd_real sa = HD_LOAD(u + ia + (j0 - 1) * sy), ca = HD_LOAD(u + ia + j0 * sy);
    hd_real sb = HD_LOAD(u + ib + (j0 - 1) * sy), cb = HD_LOAD(u + ib + j0 * sy);
    int k;
#pragma unroll 2
    for (k = 0; k < HD_POIS_FFT_RES_ROWS; ++k) { /* a constant count: loads of rows ahead are issued early */
      const hd_idx j = j0 + k, o = j * sy;
      if (j >= n) break;
      const hd_real na = HD_LOAD(u + ia + o + sy), nb = HD_LOAD(u + ib + o + sy);
      const hd_real fa = HD_LOAD(lv.f + ia + o), fb = HD_LOAD(lv.f + ib + o);
      const hd_real ra = hd_pois_residual_of(fa, ca, HD_LOAD(u + ia + o + 1), HD_LOAD(u + ia + o - 1), na, sa, lv.h2);
      const hd_real rb = hd_pois_residual_of(fb, cb, HD_LOAD(u + ib + o + 1), HD_LOAD(u + ib + o - 1), nb, sb, lv.h2);
      const hd_real r = i ? ra : HD_R(0), rn = i && ni != i ? rb : r;
      sa = ca, ca = na, sb = cb, cb = nb;
      hd_pois_fft_fold(a.x + (j - 1) * n, n, i, r, rn, sine);
      v[0] = fmax(v[0], hd_pois_fft_absmax((double)r, (double)rn));
      if (want_f && i) v[1] = fmax(v[1], hd_pois_fft_absmax((double)fa, (double)fb));
    }
  }
  hd_pois_fft_block_max(v[0], top[0], out);
  if (want_f) hd_pois_fft_block_max(v[1], top[1], out + 1);
}

/* max|r| alone into out (a check): a thread a column. */
static __global__ void hd_pois_fft_check_kernel(HD_KPARAM(hd_pois_fft_args) a, unsigned long long *out,
                                                unsigned col_blocks) {
  __shared__ double top[32];
  const hd_pois_level lv = a.lv;
  const hd_idx n = lv.n, sy = n + 1, i = 1 + (hd_idx)(blockIdx.x % col_blocks) * blockDim.x + threadIdx.x;
  const hd_idx j0 = 1 + (hd_idx)(blockIdx.x / col_blocks) * HD_POIS_FFT_CHECK_ROWS;
  double v = 0.0;
  if (i < n) {
    const hd_real *u = lv.u;
    hd_real s = HD_LOAD(u + i + (j0 - 1) * sy), c = HD_LOAD(u + i + j0 * sy);
    int k;
#pragma unroll 4
    for (k = 0; k < HD_POIS_FFT_CHECK_ROWS; ++k) {
      const hd_idx o = i + (j0 + k) * sy;
      if (j0 + k >= n) break;
      const hd_real nn = HD_LOAD(u + o + sy);
      v = hd_pois_fft_absmax(v, (double)hd_pois_residual_of(HD_LOAD(lv.f + o), c, HD_LOAD(u + o + 1),
                                                            HD_LOAD(u + o - 1), nn, s, lv.h2));
      s = c, c = nn;
    }
  }
  hd_pois_fft_block_max(v, top, out);
}

typedef struct hd_pois_fft {
  hd_pois_fft_args a;
  hd_real *buf, *eig, *sine;  /* buf: x and t, then (as zf) the pairs' FFTs */
  unsigned long long *norms, *host_norms; /* max|r|, max|f| as bits; their read-back (pinned) */
  hd_fft_complex *c, *z;
  /* m real-to-complex FFTs of n values; (m + 1) / 2 complex ones of 2n (split: of n, and m
   * real-to-complex ones of n / 2) */
  cufftHandle lines, pairs, halves;
  int have_lines, have_pairs, have_halves;
  /* the correction's launches and the check, for u = graph_u[k], f = graph_f[k]: two,
   * as a time march's right-hand side alternates between two arrays */
  void *graph[2];
  const void *graph_u[2], *graph_f[2];
  int graph_next;
  int (*halo)(void *user, hd_real *u); /* unused: one block */
  int (*max)(void *user, double *v);
  void *user;
} hd_pois_fft;

HD_HOST_FN hd_status hd_cufft_fail(hd_ctx *ctx, cufftResult r, const char *what) {
  return hd_fail(ctx, r == CUFFT_ALLOC_FAILED ? HD_ERR_NOMEM : HD_ERR_DEVICE, "poisson: cuFFT %s failed (cufftResult %d)",
                 what, (int)r);
}

HD_HOST_FN void hd_pois_fft_destroy(hd_ctx *ctx, hd_pois_fft *s) {
  if (s->graph[0]) cudaGraphExecDestroy((cudaGraphExec_t)s->graph[0]);
  if (s->graph[1]) cudaGraphExecDestroy((cudaGraphExec_t)s->graph[1]);
  if (s->have_lines) cufftDestroy(s->lines);
  if (s->have_pairs) cufftDestroy(s->pairs);
  if (s->have_halves) cufftDestroy(s->halves);
  hd_dev_free(ctx, s->buf), hd_dev_free(ctx, s->eig), hd_dev_free(ctx, s->sine);
  hd_dev_free(ctx, s->c), hd_dev_free(ctx, s->z), hd_dev_free(ctx, s->norms);
  if (s->host_norms) cudaFreeHost(s->host_norms);
  memset(s, 0, sizeof *s);
}

/* The lines' forward FFTs (x to c), or the pairs' (z to zf, and split v
 * to vf). */
HD_HOST_FN hd_status hd_pois_fft_exec(hd_ctx *ctx, hd_pois_fft *s, int pairs) {
  cufftResult r = cufftSetStream(pairs ? s->pairs : s->lines, hd_stream(ctx));
  if (r == CUFFT_SUCCESS)
    r = pairs ? HD_CUFFT_EXEC_C2C(s->pairs, s->z, (hd_fft_complex *)s->buf, CUFFT_FORWARD)
              : HD_CUFFT_EXEC(s->lines, s->buf, s->c);
  if (r == CUFFT_SUCCESS && pairs && s->a.split && (r = cufftSetStream(s->halves, hd_stream(ctx))) == CUFFT_SUCCESS)
    r = HD_CUFFT_EXEC(s->halves, s->a.v, (hd_fft_complex *)s->a.vf);
  return r == CUFFT_SUCCESS ? HD_OK : hd_cufft_fail(ctx, r, "execution");
}

HD_HOST_FN hd_status hd_pois_fft_alloc(hd_ctx *ctx, hd_pois_fft *s, hd_idx n, hd_idx m) {
  const hd_idx nh = n / 2 + 1, pairs = (m + 1) / 2;
  const int split = n % 2 == 0 && n >= 8;
  long long len = n, olen = nh, len2 = split ? n : 2 * n, half = n / 2, hh = n / 4 + 1;
  const size_t zbytes = (size_t)(pairs * 2 * n) * sizeof(hd_fft_complex);
  size_t work = 0;
  cufftResult r;
  hd_status st = hd_dev_alloc(ctx, (void **)&s->buf, zbytes); /* >= 2 m n reals */
  if (st == HD_OK) st = hd_dev_alloc(ctx, (void **)&s->z, zbytes);
  if (st == HD_OK) st = hd_dev_alloc(ctx, (void **)&s->c, (size_t)(nh * m) * sizeof(hd_fft_complex));
  if (st == HD_OK) st = hd_dev_alloc(ctx, (void **)&s->eig, (size_t)m * sizeof(hd_real));
  if (st == HD_OK) st = hd_dev_alloc(ctx, (void **)&s->sine, (size_t)nh * sizeof(hd_real));
  if (st == HD_OK) st = hd_dev_alloc(ctx, (void **)&s->norms, 2 * sizeof(unsigned long long));
  if (st != HD_OK) return st;
  HD_CUDA_TRY(ctx, cudaMallocHost((void **)&s->host_norms, 2 * sizeof(unsigned long long)));
  HD_CUDA_TRY(ctx, cudaMemset(s->z, 0, zbytes));
  if ((r = cufftCreate(&s->lines)) != CUFFT_SUCCESS) return hd_cufft_fail(ctx, r, "plan creation");
  s->have_lines = 1;
  r = cufftMakePlanMany64(s->lines, 1, &len, &len, 1, len, &olen, 1, olen, HD_CUFFT_R2C, (long long)m, &work);
  if (r != CUFFT_SUCCESS) return hd_cufft_fail(ctx, r, "planning the forward sine transforms");
  if ((r = cufftCreate(&s->pairs)) != CUFFT_SUCCESS) return hd_cufft_fail(ctx, r, "plan creation");
  s->have_pairs = 1;
  r = cufftMakePlanMany64(s->pairs, 1, &len2, &len2, 1, len2, &len2, 1, len2, HD_CUFFT_C2C, (long long)pairs, &work);
  if (r != CUFFT_SUCCESS) return hd_cufft_fail(ctx, r, "planning the inverse sine transforms");
  if (split) {
    if ((r = cufftCreate(&s->halves)) != CUFFT_SUCCESS) return hd_cufft_fail(ctx, r, "plan creation");
    s->have_halves = 1;
    r = cufftMakePlanMany64(s->halves, 1, &half, &half, 1, half, &hh, 1, hh, HD_CUFFT_R2C, (long long)m, &work);
    if (r != CUFFT_SUCCESS) return hd_cufft_fail(ctx, r, "planning the inverse sine transforms' halves");
  }
  s->a.ld = n, s->a.nh = nh, s->a.c = s->c, s->a.sine = s->sine, s->a.split = split;
  s->a.z = s->z, s->a.zf = (const hd_fft_complex *)s->buf;
  /* split: v and vf follow the pairs' n values each in z and buf (within the 2n allowed) */
  s->a.v = (hd_real *)(s->z + pairs * n), s->a.vf = s->a.zf + pairs * n;
  return HD_OK;
}

/* Launches the residual pass (with want_f max|f| too) or the check, and
 * the read-back of the norms they take. */
HD_HOST_FN hd_status hd_pois_fft_measure(hd_ctx *ctx, hd_pois_fft *s, int residual, int want_f) {
  const hd_idx n = s->a.lv.n, rows = residual ? HD_POIS_FFT_RES_ROWS : HD_POIS_FFT_CHECK_ROWS;
  const unsigned cols = (unsigned)(residual ? (n / 2 + 256) / 256 : (n + 254) / 256);
  const unsigned blocks = cols * (unsigned)((n - 2 + rows) / rows);
  const size_t bytes = 2 * sizeof(unsigned long long);
  hd_status st;
  HD_CUDA_TRY(ctx, cudaMemsetAsync(s->norms, 0, bytes, hd_stream(ctx)));
  if (residual) hd_pois_fft_residual_kernel<<<blocks, 256, 0, hd_stream(ctx)>>>(s->a, s->norms, want_f, cols);
  else hd_pois_fft_check_kernel<<<blocks, 256, 0, hd_stream(ctx)>>>(s->a, s->norms, cols);
  st = hd_check_launch(ctx, residual ? "hd_pois_fft_residual_kernel" : "hd_pois_fft_check_kernel", __FILE__, __LINE__);
  if (st != HD_OK) return st;
  HD_CUDA_TRY(ctx, cudaMemcpyAsync(s->host_norms, s->norms, bytes, cudaMemcpyDeviceToHost, hd_stream(ctx)));
  return HD_OK;
}

/* After hd_pois_fft_measure: max|r| into *r, max|f| into *fmax unless NULL. */
HD_HOST_FN hd_status hd_pois_fft_norms(hd_ctx *ctx, const hd_pois_fft *s, double *r, double *fmax) {
  double v[2];
  HD_CUDA_TRY(ctx, cudaStreamSynchronize(hd_stream(ctx)));
  memcpy(v, s->host_norms, sizeof v);
  if (fmax && v[1] == HUGE_VAL) return hd_fail(ctx, HD_ERR_NONFINITE, "poisson: the right-hand side is not finite");
  if (v[0] == HUGE_VAL) return hd_fail(ctx, HD_ERR_NONFINITE, "poisson: the residual is not finite");
  if (fmax) *fmax = v[1];
  *r = v[0];
  return HD_OK;
}

/* max|r| into *r after folding the residual into x; max|f| into *fmax
 * unless NULL. */
HD_HOST_FN hd_status hd_pois_fft_residual(hd_ctx *ctx, hd_pois_fft *s, double *r, double *fmax) {
  const hd_status st = hd_pois_fft_measure(ctx, s, 1, fmax != NULL);
  return st == HD_OK ? hd_pois_fft_norms(ctx, s, r, fmax) : st;
}

/* The correction from the residual's folded rows in x, added to u: rows'
 * transforms, columns', the division, columns' and rows' back; then the
 * check of the new u (which does not fold). */
HD_HOST_FN hd_status hd_pois_fft_correct_launches(hd_ctx *ctx, void *arg) {
  hd_pois_fft *s = (hd_pois_fft *)arg;
  hd_status st = hd_pois_fft_exec(ctx, s, 0);
  if (st == HD_OK) st = hd_pois_fft_modes_t(ctx, &s->a);
  if (st == HD_OK) st = hd_pois_fft_exec(ctx, s, 0);
  if (st == HD_OK) st = hd_pois_fft_modes(ctx, &s->a);
  if (st == HD_OK) st = hd_pois_fft_exec(ctx, s, 1);
  if (st == HD_OK) st = hd_pois_fft_extend_t(ctx, &s->a);
  if (st == HD_OK) st = hd_pois_fft_exec(ctx, s, 1);
  if (st == HD_OK) st = hd_pois_fft_add(ctx, &s->a);
  if (st == HD_OK) st = hd_pois_fft_measure(ctx, s, 0, 0);
  return st;
}

/* The correction added to u, and max|r| of the new u into *r. */
#define HD_POIS_FFT_CHECK_FOLDS 0
HD_HOST_FN hd_status hd_pois_fft_correct(hd_ctx *ctx, hd_pois_fft *s, double *r) {
#if !defined(HD_DEBUG)
  int k = s->graph[0] && s->graph_u[0] == s->a.lv.u && s->graph_f[0] == s->a.lv.f ? 0 : 1;
  if (!s->graph[k] || s->graph_u[k] != s->a.lv.u || s->graph_f[k] != s->a.lv.f) {
    hd_status st;
    k = s->graph_next, s->graph_next = 1 - k;
    if (s->graph[k]) cudaGraphExecDestroy((cudaGraphExec_t)s->graph[k]);
    s->graph[k] = NULL;
    st = hd_graph_record(ctx, hd_pois_fft_correct_launches, s, "recording the FFT solve as a CUDA graph", &s->graph[k]);
    if (st != HD_OK) return st;
    s->graph_u[k] = s->a.lv.u, s->graph_f[k] = s->a.lv.f;
  }
  HD_CUDA_TRY(ctx, cudaGraphLaunch((cudaGraphExec_t)s->graph[k], hd_stream(ctx)));
#else
  const hd_status st = hd_pois_fft_correct_launches(ctx, s);
  if (st != HD_OK) return st;
#endif
  return hd_pois_fft_norms(ctx, s, r, NULL);
}
#endif

#endif /* HD_POISSON_FFT_CUDA_H */
