/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/reduce.h - deterministic reductions.
 *
 * A reduction is a point function that folds one point into an accumulator,
 * plus init and merge functions for the accumulator type:
 *
 *   HD_DEFINE_REDUCE_3D(name, T, A, fn, init, merge)
 *     fn(const T *a, hd_idx i, hd_idx j, hd_idx k, A *acc)
 *     init(A *acc)              merge(A *into, const A *from)
 *   -> hd_status name(hd_ctx *ctx, const T *a, hd_range3 r, A *out)
 *
 * The association order is fixed by the range alone: CPU backends cut the
 * flattened range into HD_REDUCE_CHUNKS parts, fold each part in order and
 * merge the parts in order, so serial and OpenMP agree bit for bit at any
 * thread count.  The CUDA backend uses a grid that depends on the range only
 * and a fixed tree in shared memory, so its result is reproducible run to
 * run and differs from the CPU only by association (no atomics).
 *
 * hd_stats is the ready-made accumulator for fields: sum, min, max over the
 * finite values, and the count and first offset of non-finite ones. */
#ifndef HD_REDUCE_H
#define HD_REDUCE_H

#include <float.h>

#include "launch.h"
#include "memory.h"
#include "real.h"

#define HD_REDUCE_CHUNKS 256
#define HD_REDUCE_THREADS 256

typedef struct hd_stats {
  double sum, min, max;
  hd_idx count;      /* finite values folded */
  hd_idx nonfinite;  /* NaN or Inf values seen */
  hd_idx first_bad;  /* smallest offset of a non-finite value, -1 if none */
} hd_stats;

HD_FN void hd_stats_init(hd_stats *s) {
  s->sum = 0.0;
  s->min = DBL_MAX;
  s->max = -DBL_MAX;
  s->count = 0;
  s->nonfinite = 0;
  s->first_bad = -1;
}

HD_FN void hd_stats_add(hd_stats *s, double v, hd_idx where) {
  if (!hd_isfinite(v)) {
    if (s->nonfinite == 0 || where < s->first_bad) s->first_bad = where;
    s->nonfinite++;
    return;
  }
  s->sum += v;
  if (v < s->min) s->min = v;
  if (v > s->max) s->max = v;
  s->count++;
}

HD_FN void hd_stats_merge(hd_stats *s, const hd_stats *o) {
  s->sum += o->sum;
  if (o->min < s->min) s->min = o->min;
  if (o->max > s->max) s->max = o->max;
  s->count += o->count;
  if (o->nonfinite && (s->nonfinite == 0 || o->first_bad < s->first_bad))
    s->first_bad = o->first_bad;
  s->nonfinite += o->nonfinite;
}

#if defined(HD_BACKEND_CUDA)

/* Reduction grids depend on the range only (never on the device), capped so
 * that partials stay few: at most 2048 blocks of HD_REDUCE_THREADS. */
HD_HOST_FN int hd_reduce_dims(const hd_range3 *r, dim3 *grid, dim3 *block) {
  hd_idx n[3];
  int d;
  for (d = 0; d < 3; ++d) {
    n[d] = r->hi[d] - r->lo[d];
    if (n[d] <= 0) return 0;
  }
  if (n[1] == 1 && n[2] == 1) {
    *block = dim3(256, 1, 1);
    *grid = dim3(hd_grid_extent(n[0], 256, 2048), 1, 1);
  } else if (n[2] == 1) {
    *block = dim3(32, 8, 1);
    *grid = dim3(hd_grid_extent(n[0], 32, 32), hd_grid_extent(n[1], 8, 32), 1);
  } else {
    *block = dim3(32, 4, 2);
    *grid = dim3(hd_grid_extent(n[0], 32, 16), hd_grid_extent(n[1], 4, 16),
                 hd_grid_extent(n[2], 2, 8));
  }
  return 1;
}

/* Fold sh[0..HD_REDUCE_THREADS) into sh[0]; every thread of the block must
 * call it (it synchronises). */
#define HD_BLOCK_TREE(A, merge, sh, tid)                                           \
  do {                                                                             \
    int hd_s_;                                                                     \
    __syncthreads();                                                               \
    for (hd_s_ = HD_REDUCE_THREADS / 2; hd_s_ > 0; hd_s_ >>= 1) {                  \
      if ((tid) < hd_s_) merge(&(sh)[tid], &(sh)[(tid) + hd_s_]);                  \
      __syncthreads();                                                             \
    }                                                                              \
  } while (0)

#define HD_DEFINE_REDUCE_3D(name, T, A, fn, init, merge)                           \
  HD_KERNEL void name##_hd_rk(HD_KPARAM(T) a, hd_range3 r, A *part) {              \
    __shared__ A sh[HD_REDUCE_THREADS];                                            \
    const int tid = (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)); \
    A acc;                                                                         \
    init(&acc);                                                                    \
    HD_GRID_LOOP_3D(r, fn(&a, i, j, k, &acc));                                     \
    sh[tid] = acc;                                                                 \
    HD_BLOCK_TREE(A, merge, sh, tid);                                              \
    if (tid == 0) part[blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)] = sh[0]; \
  }                                                                                \
  HD_KERNEL void name##_hd_rk2(A *part, unsigned nb) {                             \
    __shared__ A sh[HD_REDUCE_THREADS];                                            \
    const int tid = (int)threadIdx.x;                                              \
    unsigned b;                                                                    \
    A acc;                                                                         \
    init(&acc);                                                                    \
    for (b = threadIdx.x; b < nb; b += HD_REDUCE_THREADS) merge(&acc, &part[b]);   \
    sh[tid] = acc;                                                                 \
    HD_BLOCK_TREE(A, merge, sh, tid);                                              \
    if (tid == 0) part[nb] = sh[0];                                                \
  }                                                                                \
  HD_HOST_FN hd_status name(hd_ctx *ctx, const T *a, hd_range3 r, A *out) {        \
    dim3 grid, block;                                                              \
    unsigned nb;                                                                   \
    void *scratch;                                                                 \
    hd_status s;                                                                   \
    init(out);                                                                     \
    if (!hd_reduce_dims(&r, &grid, &block)) return HD_OK;                          \
    nb = grid.x * grid.y * grid.z;                                                 \
    s = hd_ctx_scratch(ctx, (nb + 1) * sizeof(A), &scratch);                       \
    if (s != HD_OK) return s;                                                      \
    name##_hd_rk<<<grid, block, 0, hd_stream(ctx)>>>(*a, r, (A *)scratch);         \
    s = hd_check_launch(ctx, #name, __FILE__, __LINE__);                           \
    if (s != HD_OK) return s;                                                      \
    name##_hd_rk2<<<1, HD_REDUCE_THREADS, 0, hd_stream(ctx)>>>((A *)scratch, nb);  \
    s = hd_check_launch(ctx, #name, __FILE__, __LINE__);                           \
    if (s != HD_OK) return s;                                                      \
    HD_CUDA_TRY(ctx, cudaMemcpyAsync(out, (A *)scratch + nb, sizeof(A),            \
                                     cudaMemcpyDeviceToHost, hd_stream(ctx)));     \
    HD_CUDA_TRY(ctx, cudaStreamSynchronize(hd_stream(ctx)));                       \
    return HD_OK;                                                                  \
  }

#else /* CPU backends */

#define HD_DEFINE_REDUCE_3D(name, T, A, fn, init, merge)                           \
  HD_HOST_FN hd_status name(hd_ctx *ctx, const T *a, hd_range3 r, A *out) {        \
    A part[HD_REDUCE_CHUNKS];                                                      \
    const hd_idx n = hd_range3_count(&r);                                          \
    const hd_idx n0 = r.hi[0] - r.lo[0], n1 = r.hi[1] - r.lo[1];                   \
    const int nc = n < HD_REDUCE_CHUNKS ? (int)n : HD_REDUCE_CHUNKS;               \
    int c;                                                                         \
    (void)ctx;                                                                     \
    init(out);                                                                     \
    if (n == 0) return HD_OK;                                                      \
    HD_OMP_FOR(schedule(static) num_threads(hd_ctx_threads(ctx)))                  \
    for (c = 0; c < nc; ++c) {                                                     \
      const hd_idx b = hd_chunk_begin(n, nc, c), e = hd_chunk_begin(n, nc, c + 1); \
      hd_idx i = b % n0, t = b / n0, j = t % n1, k = t / n1, p;                    \
      A acc;                                                                       \
      init(&acc);                                                                  \
      for (p = b; p < e; ++p) {                                                    \
        fn(a, r.lo[0] + i, r.lo[1] + j, r.lo[2] + k, &acc);                        \
        if (++i == n0) {                                                           \
          i = 0;                                                                   \
          if (++j == n1) j = 0, ++k;                                               \
        }                                                                          \
      }                                                                            \
      part[c] = acc;                                                               \
    }                                                                              \
    for (c = 0; c < nc; ++c) merge(out, &part[c]);                                 \
    return HD_OK;                                                                  \
  }

#endif

/* Row sums: two doubles for every row (j, k) of a range, each row folded
 * in a fixed order that depends on the row's length only, into
 * out[2 row], out[2 row + 1], row = (j - lo) + (k - lo) * rows along y:
 *
 *   HD_DEFINE_ROWS2_3D(name, T, fn)
 *     hd_sum2 fn(const T *a, hd_idx i, hd_idx j, hd_idx k)   (the cell's two terms)
 *   -> hd_status name(hd_ctx *ctx, const T *a, hd_range3 r, double *out)
 *   HD_DEFINE_ROWS1_3D: the same where fn's s1 is 0 (out[2 row + 1] = 0)
 *   HD_DEFINE_ROWS1_3D_PLAIN: the same for a point function with branches
 *     or inner loops, which the CPU's vector loop cannot take (clang warns
 *     where asked): a scalar loop, the same sums
 *
 * A row's sums do not depend on how the rows are spread over threads or
 * ranks (the decompositions never split x): summed in global row order
 * they give one answer on any number of ranks (hd/heat_solve.h).  The
 * terms come back by value (two scalars, not an array the point function
 * writes into) so that the CPU's loop over a row vectorises. */
typedef struct hd_sum2 {
  double s0, s1;
} hd_sum2;

#if defined(HD_BACKEND_CUDA)
/* CUDA: hd_rows2_width(n) threads a row, 32, 64, 128 or 256 (16 cells a
 * thread or fewer: enough warps in flight on rows of thousands); thread
 * t of a row takes cells t, t + width, ..., its warp folds them by a fixed
 * shuffle tree and the row's first thread adds its warps in order. */
#define HD_ROWS2_THREADS 256
HD_FN int hd_rows2_width(hd_idx n) {
  int w = 32;
  while (w < HD_ROWS2_THREADS && 16 * (hd_idx)w < n) w *= 2;
  return w;
}
#define HD_DEFINE_ROWS2_3D(name, T, fn)                                            \
  HD_KERNEL void __launch_bounds__(HD_ROWS2_THREADS) name##_hd_rows(HD_KPARAM(T) a, hd_range3 r, int width, double *out) { \
    __shared__ double part[HD_ROWS2_THREADS / 32][2];                            \
    const hd_idx ny = r.hi[1] - r.lo[1], nrows = ny * (r.hi[2] - r.lo[2]);      \
    const int per = HD_ROWS2_THREADS / width, t = (int)threadIdx.x % width;      \
    const int lane = (int)(threadIdx.x & 31u), warp = (int)(threadIdx.x / 32u);  \
    hd_idx base;                                                                 \
    for (base = (hd_idx)blockIdx.x * per; base < nrows; base += (hd_idx)gridDim.x * per) { \
      const hd_idx row = base + (hd_idx)threadIdx.x / width;                     \
      double s0 = 0.0, s1 = 0.0;                                                 \
      int o;                                                                     \
      if (row < nrows) {                                                         \
        const hd_idx j = r.lo[1] + row % ny, k = r.lo[2] + row / ny;             \
        hd_idx i;                                                                \
        for (i = r.lo[0] + t; i < r.hi[0]; i += width) {                         \
          const hd_sum2 v = fn(&a, i, j, k);                                     \
          s0 += v.s0, s1 += v.s1;                                                \
        }                                                                        \
      }                                                                          \
      for (o = 16; o > 0; o >>= 1) {                                             \
        s0 += __shfl_down_sync(0xffffffffu, s0, o);                              \
        s1 += __shfl_down_sync(0xffffffffu, s1, o);                              \
      }                                                                          \
      if (lane == 0) part[warp][0] = s0, part[warp][1] = s1;                     \
      __syncthreads();                                                           \
      if (t == 0 && row < nrows) {                                               \
        int w;                                                                   \
        for (w = 1; w < width / 32; ++w) s0 += part[warp + w][0], s1 += part[warp + w][1]; \
        out[2 * row] = s0, out[2 * row + 1] = s1;                                \
      }                                                                          \
      __syncthreads();                                                           \
    }                                                                            \
  }                                                                              \
  HD_HOST_FN hd_status name(hd_ctx *ctx, const T *a, hd_range3 r, double *out) { \
    const hd_idx nrows = (r.hi[1] - r.lo[1]) * (r.hi[2] - r.lo[2]);             \
    const int width = hd_rows2_width(r.hi[0] - r.lo[0]);                         \
    if (nrows <= 0 || r.hi[0] <= r.lo[0]) return HD_OK;                          \
    name##_hd_rows<<<hd_grid_extent(nrows, (unsigned)(HD_ROWS2_THREADS / width), 1 << 20), HD_ROWS2_THREADS, 0, \
                     hd_stream(ctx)>>>(*a, r, width, out);                       \
    return hd_check_launch(ctx, #name, __FILE__, __LINE__);                      \
  }
#define HD_DEFINE_ROWS1_3D(name, T, fn) HD_DEFINE_ROWS2_3D(name, T, fn)
#define HD_DEFINE_ROWS1_3D_PLAIN(name, T, fn) HD_DEFINE_ROWS2_3D(name, T, fn)
#else
/* CPU: four interleaved sums a row (cells i = lo + 4t + q into sum q, then
 * (q0 + q1) + (q2 + q3)): the same bits serial and OpenMP.  The point
 * function runs as a vector loop over chunks of the row (it writes its own
 * cell only: no dependence between cells), and the chunk's terms join the
 * four chains after it. */
#define HD_ROWS2_CHUNK 256
/* s[q] += b[t] for t = q mod 4: a chunk's terms into the four chains. */
HD_HOST_FN void hd_rows2_chains(double s[4], const double *b, hd_idx n) {
  hd_idx t;
  for (t = 0; t + 3 < n; t += 4) s[0] += b[t], s[1] += b[t + 1], s[2] += b[t + 2], s[3] += b[t + 3];
  for (; t < n; ++t) s[t & 3] += b[t];
}
#define HD_DEFINE_ROWS_3D_(name, T, fn, two, simd)                                 \
  HD_HOST_FN hd_status name(hd_ctx *ctx, const T *a, hd_range3 r, double *out) { \
    const T la = *a;                                                             \
    const hd_idx ny = r.hi[1] - r.lo[1], nrows = ny * (r.hi[2] - r.lo[2]);      \
    hd_idx row;                                                                  \
    (void)ctx;                                                                   \
    HD_OMP_FOR(schedule(static) num_threads(hd_ctx_threads(ctx)))                \
    for (row = 0; row < nrows; ++row) {                                          \
      const hd_idx j = r.lo[1] + row % ny, k = r.lo[2] + row / ny;               \
      double s0[4] = {0.0, 0.0, 0.0, 0.0}, s1[4] = {0.0, 0.0, 0.0, 0.0};        \
      hd_idx i0;                                                                 \
      for (i0 = r.lo[0]; i0 < r.hi[0]; i0 += HD_ROWS2_CHUNK) {                   \
        const hd_idx n = r.hi[0] - i0 < HD_ROWS2_CHUNK ? r.hi[0] - i0 : HD_ROWS2_CHUNK; \
        double b0[HD_ROWS2_CHUNK], b1[HD_ROWS2_CHUNK];                           \
        hd_idx t;                                                                \
        simd                                                                     \
        for (t = 0; t < n; ++t) {                                                \
          const hd_sum2 v = fn(&la, i0 + t, j, k);                               \
          b0[t] = v.s0;                                                          \
          if (two) b1[t] = v.s1;                                                 \
        }                                                                        \
        hd_rows2_chains(s0, b0, n);                                              \
        if (two) hd_rows2_chains(s1, b1, n);                                     \
      }                                                                          \
      out[2 * row] = (s0[0] + s0[1]) + (s0[2] + s0[3]);                          \
      out[2 * row + 1] = (s1[0] + s1[1]) + (s1[2] + s1[3]);                      \
    }                                                                            \
    return HD_OK;                                                                \
  }
#define HD_DEFINE_ROWS2_3D(name, T, fn) HD_DEFINE_ROWS_3D_(name, T, fn, 1, HD_OMP_SIMD)
#define HD_DEFINE_ROWS1_3D(name, T, fn) HD_DEFINE_ROWS_3D_(name, T, fn, 0, HD_OMP_SIMD)
#define HD_DEFINE_ROWS1_3D_PLAIN(name, T, fn) HD_DEFINE_ROWS_3D_(name, T, fn, 0, )
#endif

/* 1-D and 2-D reductions are 3-D reductions over a line or a plane. */
#define HD_DEFINE_REDUCE_2D(name, T, A, fn, init, merge)                           \
  HD_FN void name##_hd_pt3(const T *a, hd_idx i, hd_idx j, hd_idx k, A *acc) {     \
    (void)k;                                                                       \
    fn(a, i, j, acc);                                                              \
  }                                                                                \
  HD_DEFINE_REDUCE_3D(name##_hd_3d, T, A, name##_hd_pt3, init, merge)              \
  HD_HOST_FN hd_status name(hd_ctx *ctx, const T *a, hd_range3 r, A *out) {        \
    r.lo[2] = 0;                                                                   \
    r.hi[2] = 1;                                                                   \
    return name##_hd_3d(ctx, a, r, out);                                           \
  }

#define HD_DEFINE_REDUCE_1D(name, T, A, fn, init, merge)                           \
  HD_FN void name##_hd_pt3(const T *a, hd_idx i, hd_idx j, hd_idx k, A *acc) {     \
    (void)j;                                                                       \
    (void)k;                                                                       \
    fn(a, i, acc);                                                                 \
  }                                                                                \
  HD_DEFINE_REDUCE_3D(name##_hd_3d, T, A, name##_hd_pt3, init, merge)              \
  HD_HOST_FN hd_status name(hd_ctx *ctx, const T *a, hd_idx i0, hd_idx i1, A *out) { \
    return name##_hd_3d(ctx, a, hd_range3_make(i0, i1, 0, 1, 0, 1), out);          \
  }

/* Statistics of a padded field over a range of cells: the one reduction
 * every grid module needs (diagnostics, blow-up checks). */
typedef struct hd_field {
  const hd_real *f;
  hd_grid g;
} hd_field;

HD_FN void hd_field_stats_pt(const hd_field *a, hd_idx i, hd_idx j, hd_idx k,
                             hd_stats *s) {
  const hd_idx c = hd_grid_at(&a->g, i, j, k);
  hd_stats_add(s, (double)a->f[c], c);
}

HD_DEFINE_REDUCE_3D(hd_field_stats, hd_field, hd_stats, hd_field_stats_pt,
                    hd_stats_init, hd_stats_merge)

#endif /* HD_REDUCE_H */
