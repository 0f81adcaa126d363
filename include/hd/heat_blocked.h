/* hd/heat_blocked.h - temporal blocking for the heat step of hd/heat.h:
 * several time steps per sweep of memory, bit-identical to single steps.
 *
 * hd_heat_step_blocked(ctx, a, steps, &in_next) advances a->t by `steps`
 * steps using both fields of a (t, t_next): the result, ghosts included,
 * lies in a->t_next when in_next comes back 1 and in a->t when 0, equal bit
 * for bit to `steps` single steps (the same update and ghost functions with
 * the same arguments in the same order).
 *
 * CPU backends: a wavefront over slabs of the last axis (planes in 3-D,
 * rows in 2-D).  At wave w, step s (1 .. steps, in that order) updates
 * slab w - (s - 1): the slab above it has just been brought to step s - 1
 * in the same wave, the one below a wave earlier, and the values step s
 * overwrites (step s - 2's) have been read by every step s - 1 that needs
 * them.  A wave touches about steps + 2 slabs of each field; slabs are
 * sized so that this stays in HD_HEAT_BLOCK_CACHE bytes, or ctx->block[2]
 * units thick when set.
 *
 * Faces shared with a neighbouring block (HD_HEAT_HALO) need a halo
 * exchange between steps: HD_ERR_UNSUPPORTED (step singly).
 *
 * CUDA: up to HD_HEAT_TB_MAX steps a launch; tiles stream along the last
 * axis in segments, one level of registers and shared memory a step
 * (2-D: hd_heat_tb_kernel; 3-D: hd_heat_tb3_kernel, four cells a thread
 * along y); ctx->block is their block shape and segment length (single
 * steps, for a source array or a last lone step, keep their defaults).
 * Measured on an H200 (doc/performance.md): 2-D gains, 3-D does not yet. */
#ifndef HD_HEAT_BLOCKED_H
#define HD_HEAT_BLOCKED_H

#include "heat.h"

/* Cache a CPU wave should stay within (bytes). */
#ifndef HD_HEAT_BLOCK_CACHE
#define HD_HEAT_BLOCK_CACHE ((hd_idx)1 << 20)
#endif

/* Slab thickness (units of the last axis) for `steps` steps a wave. */
HD_HOST_FN hd_idx hd_heat_block_slab(const hd_heat_args *a, int steps) {
  const hd_grid *g = &a->g;
  const hd_idx unit = g->stride[g->dim == 3 ? 2 : 1] * (hd_idx)sizeof(hd_real);
  const hd_idx slab = unit > 0 ? HD_HEAT_BLOCK_CACHE / (2 * (steps + 2) * unit) : 1, least = g->dim == 3 ? 1 : 64;
  return slab > least ? slab : least; /* 2-D: rows enough to share among threads (measured) */
}

#if defined(HD_BACKEND_CUDA)

/* Steps one launch takes (its levels live in registers and shared memory),
 * and planes level 0 loads ahead (to cover the memory's latency). */
#define HD_HEAT_TB_MAX 8
#define HD_HEAT_TB3_R 4     /* 3-D: cells a thread along y */
#define HD_HEAT_TB3_AHEAD 2 /* 3-D: planes loaded ahead */
#ifndef HD_HEAT_TB_AHEAD
#define HD_HEAT_TB_AHEAD 4
#endif

/* A segment's iterations from z0: [zs, zq) and [zr, zend) test each
 * level's plane against the block's and the grid's ends, [zq, zr) need not
 * (every level's plane inside, no face plane among levels 1 .. T, level
 * 0's loads `ahead` inside the grid). */
static __device__ __forceinline__ void hd_heat_tb_span(int z0, int top, int segment, int t, int ahead, int *zq, int *zr,
                                                       int *zend) {
  const int z1 = z0 + segment < top ? z0 + segment : top;
  *zend = z1 + t;
  *zq = z0 + t > t + 2 ? z0 + t : t + 2;
  *zr = *zend < top - ahead ? *zend : top - ahead;
  if (*zr < *zq) *zq = *zr = *zend;
}

/* One launch, T steps from a->t into a->t_next (2-D).  A block of BX
 * threads holds a tile of columns, T cells of halo on each side, and
 * streams it along y in a segment of rows.  Level 0 loads a row (rows
 * loaded ahead: the memory's latency); level l (1 .. T) updates the row l
 * behind from level l - 1's rows: its own column's three in a shift
 * register, the x neighbours in shared memory (written an iteration
 * earlier, two buffers a level); level T's tile interior is stored with
 * its face ghosts.  The halo's cells come out wrong by one more cell each
 * level and are never stored.  Ghosts at levels 1 .. T - 1 are not stored
 * either: a face cell takes hd_heat_ghost of its own value in place of the
 * neighbour it lacks, as the single step would have stored it.  The update
 * is hd_heat_update_2d/3d with the single step's arguments in its order. */
typedef struct hd_heat_tb_col {
  const hd_real *src; /* this thread's column, row 0 */
  hd_real *dst;
  hd_real *sh;   /* this thread's cell of level 0's first buffer: [T][2][BX] */
  hd_idx sy;
  int bx;        /* cells a shared row */
  int w, e;      /* x neighbours' offsets in a shared row (0 at the tile's edge) */
  int z0, zs, top, store, xlo, xhi, edge;
} hd_heat_tb_col;

/* Iteration z: level 0 takes row z, level l updates row z - l.  CHECK:
 * test each level's row against the block's and the grid's ends (the first
 * and last iterations; the others need no test). */
template <int T, int CHECK>
static __device__ __forceinline__ void hd_heat_tb_iter(const hd_heat_args *a, const hd_heat_tb_col *q, int z,
                                                       hd_real (*w)[3], hd_real *ahead) {
  const int top = q->top;
  int l, u;
#pragma unroll
  for (l = 0; l <= T; ++l) {
    const int p = z - l, par = p & 1;
    hd_real v;
    if (CHECK && (p < q->zs || p > top || (l == T && p < q->z0))) continue;
    if (l == 0) {
      v = ahead[0];
#pragma unroll
      for (u = 0; u + 1 < HD_HEAT_TB_AHEAD; ++u) ahead[u] = ahead[u + 1];
      if (!CHECK || p + HD_HEAT_TB_AHEAD <= top) ahead[HD_HEAT_TB_AHEAD - 1] = q->src[(hd_idx)(p + HD_HEAT_TB_AHEAD) * q->sy];
    } else if (CHECK && (p < 1 || p >= top)) {
      v = HD_R(0); /* a ghost row above level 0: never read */
    } else {
      const hd_real *in = q->sh + ((l - 1) * 2 + par) * q->bx;
      const hd_real c = w[l - 1][1];
      hd_real xm = in[q->w], xp = in[q->e], ym = w[l - 1][0], yp = w[l - 1][2];
      if (l > 1 && (q->edge || (CHECK && (p == 1 || p == top - 1)))) { /* level l - 1's ghosts: this cell's faces */
        if (q->xlo) xm = hd_heat_ghost(&a->bc[HD_XLO], c);
        if (q->xhi) xp = hd_heat_ghost(&a->bc[HD_XHI], c);
        if (p == 1) ym = hd_heat_ghost(&a->bc[HD_YLO], c);
        if (p == top - 1) yp = hd_heat_ghost(&a->bc[HD_YHI], c);
      }
      v = hd_heat_update_2d(c, xm, xp, ym, yp, a->c, a->dtq);
    }
    if (l == T) {
      if (q->store) {
        hd_real *o = q->dst + (hd_idx)p * q->sy;
        *o = v;
        if (q->edge || (CHECK && (p == 1 || p == top - 1))) {
          if (q->xlo) hd_heat_set_ghost(&a->bc[HD_XLO], o - 1, v);
          if (q->xhi) hd_heat_set_ghost(&a->bc[HD_XHI], o + 1, v);
          if (p == 1) hd_heat_set_ghost(&a->bc[HD_YLO], o - q->sy, v);
          if (p == top - 1) hd_heat_set_ghost(&a->bc[HD_YHI], o + q->sy, v);
        }
      }
    } else {
      const int k = l < T ? l : 0; /* l < T here */
      w[k][0] = w[k][1], w[k][1] = w[k][2], w[k][2] = v;
      q->sh[(k * 2 + par) * q->bx] = v;
    }
  }
  __syncthreads();
}

/* Register caps: single at 64 (four blocks of 256 threads), double at 85
 * (three: tighter caps spill its levels). */
#ifndef HD_HEAT_TB_MIN_BLOCKS
#if defined(HD_REAL_FLOAT)
#define HD_HEAT_TB_MIN_BLOCKS 4
#else
#define HD_HEAT_TB_MIN_BLOCKS 3
#endif
#endif

template <int T>
static __global__ void __launch_bounds__(256, HD_HEAT_TB_MIN_BLOCKS) hd_heat_tb_kernel(HD_KPARAM(hd_heat_args) a,
                                                                                      int segment) {
  extern __shared__ unsigned char hd_heat_tb_smem[];
  const int tx = (int)threadIdx.x, bx = (int)blockDim.x;
  const hd_idx nx = a.g.n[0], ny = a.g.n[1];
  const hd_idx i = (hd_idx)blockIdx.x * (bx - 2 * T) + tx - T + 1;
  const hd_idx ic = i < 0 ? 0 : i > nx + 1 ? nx + 1 : i;
  const int inside = i >= 1 && i <= nx;
  hd_heat_tb_col q;
  hd_real w[T][3]; /* level l's rows r - 2, r - 1, r, r its latest */
  hd_real ahead[HD_HEAT_TB_AHEAD]; /* level 0's next rows: loads in flight across iterations */
  int z, zq, zr, zend, l, u;
  q.sy = a.g.stride[1];
  q.src = a.t + ic, q.dst = a.t_next + ic;
  q.bx = bx;
  q.sh = (hd_real *)hd_heat_tb_smem + tx;
  q.w = tx > 0 ? -1 : 0, q.e = tx < bx - 1 ? 1 : 0;
  /* this block's rows [z0, z1), and the rows before them its levels need:
     level 0 loads from zs on */
  q.z0 = 1 + (int)blockIdx.z * segment, q.top = (int)ny + 1;
  q.zs = q.z0 - T > 0 ? q.z0 - T : 0;
  q.store = inside && tx >= T && tx < bx - T;
  q.xlo = inside && i == 1, q.xhi = inside && i == nx;
  /* warps holding a face cell take the face branches (a warp-uniform test) */
  q.edge = __any_sync(0xffffffffu, q.xlo || q.xhi);
#pragma unroll
  for (u = 0; u < HD_HEAT_TB_AHEAD; ++u) ahead[u] = q.zs + u <= q.top ? q.src[(hd_idx)(q.zs + u) * q.sy] : HD_R(0);
#pragma unroll
  for (l = 0; l < T; ++l) {
#pragma unroll
    for (u = 0; u < 3; ++u) w[l][u] = HD_R(0);
    q.sh[(2 * l) * bx] = q.sh[(2 * l + 1) * bx] = HD_R(0);
  }
  __syncthreads();
  hd_heat_tb_span(q.z0, q.top, segment, T, HD_HEAT_TB_AHEAD, &zq, &zr, &zend);
  for (z = q.zs; z < zq; ++z) hd_heat_tb_iter<T, 1>(&a, &q, z, w, ahead);
  for (; z < zr; ++z) hd_heat_tb_iter<T, 0>(&a, &q, z, w, ahead);
  for (; z < zend; ++z) hd_heat_tb_iter<T, 1>(&a, &q, z, w, ahead);
}

/* Threads of a block and planes a segment (measured best on an H200):
 * 2-D 128 threads and 128 rows, 3-D 32 x 8 threads (32 x 32 cells) and 64
 * planes, or ctx->block; the most steps a launch, which leave 2 cells or
 * more inside a tile's halos (0: a shape refused). */
HD_HOST_FN int hd_heat_tb_shape(const hd_ctx *ctx, int dim, unsigned *bx, unsigned *by, int *segment) {
  unsigned m;
  int t;
  if (dim == 3) { /* hd_heat_tb3_kernel: 32 x BY threads, 32 x BY R cells */
    *bx = 32u, *by = ctx->block[1] > 0 ? (unsigned)ctx->block[1] : 8u;
    *segment = ctx->block[2] > 0 ? ctx->block[2] : 64;
    m = *by * HD_HEAT_TB3_R < 32u ? *by * HD_HEAT_TB3_R : 32u;
    if (*by > 8u || (ctx->block[0] > 0 && ctx->block[0] != 32)) return 0;
  } else {
    *bx = ctx->block[0] > 0 ? (unsigned)ctx->block[0] : 128u, *by = 1u;
    *segment = ctx->block[2] > 0 ? ctx->block[2] : 128;
    m = *bx;
    if (*bx > 256u || *bx % 32u) return 0;
  }
  t = m >= 2 ? (int)(m - 2) / 2 : 0;
  return t < HD_HEAT_TB_MAX ? t : HD_HEAT_TB_MAX;
}

template <int T>
HD_HOST_FN hd_status hd_heat_tb_launch(hd_ctx *ctx, const hd_heat_args *a) {
  unsigned bx, by;
  int segment;
  const int most = hd_heat_tb_shape(ctx, 2, &bx, &by, &segment);
  const size_t smem = (size_t)T * 2 * bx * sizeof(hd_real);
  dim3 block(bx, 1, 1), grid;
  if (T > most) return hd_fail(ctx, HD_ERR_ARG, "heat: time blocks of %d steps need tiles wider than %d cells", T, 2 * T + 1);
  grid.x = hd_grid_extent(a->g.n[0], bx - 2 * T, 2147483647);
  grid.y = 1;
  grid.z = hd_grid_extent(a->g.n[1], (unsigned)segment, 65535);
  if ((hd_idx)grid.z * segment < a->g.n[1])
    return hd_fail(ctx, HD_ERR_ARG, "heat: grid too large for time blocks of %d rows", segment);
  hd_heat_tb_kernel<T><<<grid, block, smem, hd_stream(ctx)>>>(*a, segment);
  return hd_check_launch(ctx, "hd_heat_step_blocked", __FILE__, __LINE__);
}

/* 3-D: a warp a row of the tile along x, each thread R cells along y (a
 * tile of 32 x BY R cells): x neighbours by shuffles, y neighbours from the
 * thread's own cells but at its first and last, which come from the
 * threads below and above through shared memory (those two rows a level,
 * two buffers); the rest as hd_heat_tb_kernel. */

typedef struct hd_heat_tb3_col {
  const hd_real *src; /* the fields */
  hd_real *dst;
  hd_idx off[HD_HEAT_TB3_R]; /* this thread's cells in plane 0 (rows past the ghosts clamped) */
  hd_real *sh; /* this thread's edge rows of level 0's first buffer: [T][2][BY][2][32] */
  hd_idx sy, ss;
  int buf, below, above; /* shared: one buffer (a level has two); the thread below's top row, above's bottom */
  int z0, zs, top, xlo, xhi, edge;
  unsigned inside, store, ylo, yhi; /* per cell r, bit r */
} hd_heat_tb3_col;

template <int T, int CHECK>
static __device__ __forceinline__ void hd_heat_tb3_iter(const hd_heat_args *a, const hd_heat_tb3_col *q, int z,
                                                        hd_real (*w)[HD_HEAT_TB3_R][3],
                                                        hd_real (*ahead)[HD_HEAT_TB3_R]) {
  const int R = HD_HEAT_TB3_R, A = HD_HEAT_TB3_AHEAD, top = q->top;
  int l, r, u;
#pragma unroll
  for (l = 0; l <= T; ++l) {
    const int p = z - l, par = p & 1;
    hd_real v[HD_HEAT_TB3_R];
    if (CHECK && (p < q->zs || p > top || (l == T && p < q->z0))) continue;
    if (l == 0) {
#pragma unroll
      for (r = 0; r < R; ++r) {
        v[r] = ahead[0][r];
#pragma unroll
        for (u = 0; u + 1 < A; ++u) ahead[u][r] = ahead[u + 1][r];
        if (!CHECK || p + A <= top) ahead[A - 1][r] = q->src[q->off[r] + (hd_idx)(p + A) * q->ss];
      }
    } else if (CHECK && (p < 1 || p >= top)) {
#pragma unroll
      for (r = 0; r < R; ++r) v[r] = HD_R(0); /* a ghost plane above level 0: never read */
    } else {
      const hd_real *in = q->sh + ((l - 1) * 2 + par) * q->buf;
      const hd_real low = in[q->below], high = in[q->above + 32]; /* y neighbours of the first and last cells */
#pragma unroll
      for (r = 0; r < R; ++r) {
        const hd_real c = w[l - 1][r][1];
        hd_real xm = __shfl_up_sync(0xffffffffu, c, 1), xp = __shfl_down_sync(0xffffffffu, c, 1);
        hd_real ym = r > 0 ? w[l - 1][r > 0 ? r - 1 : 0][1] : low, yp = r < R - 1 ? w[l - 1][r < R - 1 ? r + 1 : 0][1] : high;
        hd_real zm = w[l - 1][r][0], zp = w[l - 1][r][2];
        if (l > 1 && (q->edge || (CHECK && (p == 1 || p == top - 1)))) { /* level l - 1's ghosts */
          if (q->xlo && (q->inside >> r & 1)) xm = hd_heat_ghost(&a->bc[HD_XLO], c);
          if (q->xhi && (q->inside >> r & 1)) xp = hd_heat_ghost(&a->bc[HD_XHI], c);
          if (q->ylo >> r & 1) ym = hd_heat_ghost(&a->bc[HD_YLO], c);
          if (q->yhi >> r & 1) yp = hd_heat_ghost(&a->bc[HD_YHI], c);
          if (p == 1) zm = hd_heat_ghost(&a->bc[HD_ZLO], c);
          if (p == top - 1) zp = hd_heat_ghost(&a->bc[HD_ZHI], c);
        }
        v[r] = hd_heat_update_3d(c, xm, xp, ym, yp, zm, zp, a->c, a->dtq);
      }
    }
    if (l == T) {
#pragma unroll
      for (r = 0; r < R; ++r)
        if (q->store >> r & 1) {
          hd_real *o = q->dst + q->off[r] + (hd_idx)p * q->ss;
          *o = v[r];
          if (q->edge || (CHECK && (p == 1 || p == top - 1))) {
            if (q->xlo) hd_heat_set_ghost(&a->bc[HD_XLO], o - 1, v[r]);
            if (q->xhi) hd_heat_set_ghost(&a->bc[HD_XHI], o + 1, v[r]);
            if (q->ylo >> r & 1) hd_heat_set_ghost(&a->bc[HD_YLO], o - q->sy, v[r]);
            if (q->yhi >> r & 1) hd_heat_set_ghost(&a->bc[HD_YHI], o + q->sy, v[r]);
            if (p == 1) hd_heat_set_ghost(&a->bc[HD_ZLO], o - q->ss, v[r]);
            if (p == top - 1) hd_heat_set_ghost(&a->bc[HD_ZHI], o + q->ss, v[r]);
          }
        }
    } else {
      const int k = l < T ? l : 0; /* l < T here */
      hd_real *out = q->sh + (k * 2 + par) * q->buf;
#pragma unroll
      for (r = 0; r < R; ++r) w[k][r][0] = w[k][r][1], w[k][r][1] = w[k][r][2], w[k][r][2] = v[r];
      out[0] = v[0], out[32] = v[R - 1];
    }
  }
  __syncthreads();
}

template <int T>
static __global__ void __launch_bounds__(256, 2) hd_heat_tb3_kernel(HD_KPARAM(hd_heat_args) a, int segment) {
  extern __shared__ unsigned char hd_heat_tb_smem[];
  const int R = HD_HEAT_TB3_R, A = HD_HEAT_TB3_AHEAD;
  const int tx = (int)threadIdx.x, ty = (int)threadIdx.y, by = (int)blockDim.y;
  const hd_idx nx = a.g.n[0], ny = a.g.n[1], nz = a.g.n[2];
  const hd_idx i = (hd_idx)blockIdx.x * (32 - 2 * T) + tx - T + 1;
  const hd_idx j0 = (hd_idx)blockIdx.y * (by * R - 2 * T) + (hd_idx)ty * R - T + 1;
  const hd_idx ic = i < 0 ? 0 : i > nx + 1 ? nx + 1 : i;
  const int xin = i >= 1 && i <= nx;
  hd_heat_tb3_col q;
  hd_real w[T][HD_HEAT_TB3_R][3], ahead[HD_HEAT_TB3_AHEAD][HD_HEAT_TB3_R];
  int z, zq, zr, zend, l, r, u;
  q.sy = a.g.stride[1], q.ss = a.g.stride[2];
  q.buf = by * 2 * 32;
  q.sh = (hd_real *)hd_heat_tb_smem + (ty * 2) * 32 + tx;
  q.below = ty > 0 ? -2 * 32 + 32 : 0;          /* thread ty - 1's top row (its second) */
  q.above = ty < by - 1 ? 2 * 32 - 32 : -32;    /* thread ty + 1's bottom row, read at +32 */
  q.z0 = 1 + (int)blockIdx.z * segment, q.top = (int)nz + 1;
  q.zs = q.z0 - T > 0 ? q.z0 - T : 0;
  q.xlo = xin && i == 1, q.xhi = xin && i == nx;
  q.inside = q.store = q.ylo = q.yhi = 0;
#pragma unroll
  for (r = 0; r < R; ++r) {
    const hd_idx j = j0 + r, jc = j < 0 ? 0 : j > ny + 1 ? ny + 1 : j;
    const int in = xin && j >= 1 && j <= ny, row = ty * R + r;
    q.off[r] = ic + jc * q.sy;
    if (in) q.inside |= 1u << r;
    if (in && tx >= T && tx < 32 - T && row >= T && row < by * R - T) q.store |= 1u << r;
    if (in && j == 1) q.ylo |= 1u << r;
    if (in && j == ny) q.yhi |= 1u << r;
  }
  q.src = a.t, q.dst = a.t_next;
  q.edge = __any_sync(0xffffffffu, q.xlo || q.xhi || q.ylo || q.yhi);
#pragma unroll
  for (u = 0; u < A; ++u)
#pragma unroll
    for (r = 0; r < R; ++r) ahead[u][r] = q.zs + u <= q.top ? q.src[q.off[r] + (hd_idx)(q.zs + u) * q.ss] : HD_R(0);
#pragma unroll
  for (l = 0; l < T; ++l) {
#pragma unroll
    for (r = 0; r < R; ++r)
#pragma unroll
      for (u = 0; u < 3; ++u) w[l][r][u] = HD_R(0);
    q.sh[(2 * l) * q.buf] = q.sh[(2 * l) * q.buf + 32] = HD_R(0);
    q.sh[(2 * l + 1) * q.buf] = q.sh[(2 * l + 1) * q.buf + 32] = HD_R(0);
  }
  __syncthreads();
  hd_heat_tb_span(q.z0, q.top, segment, T, A, &zq, &zr, &zend);
  for (z = q.zs; z < zq; ++z) hd_heat_tb3_iter<T, 1>(&a, &q, z, w, ahead);
  for (; z < zr; ++z) hd_heat_tb3_iter<T, 0>(&a, &q, z, w, ahead);
  for (; z < zend; ++z) hd_heat_tb3_iter<T, 1>(&a, &q, z, w, ahead);
}

/* 3-D: 32 x BY threads (ctx->block[1], default 8), BY R cells along y. */
template <int T>
HD_HOST_FN hd_status hd_heat_tb3_launch(hd_ctx *ctx, const hd_heat_args *a) {
  unsigned bx, by;
  int segment;
  const int most = hd_heat_tb_shape(ctx, 3, &bx, &by, &segment);
  const size_t smem = (size_t)T * 2 * by * 2 * 32 * sizeof(hd_real);
  dim3 block(bx, by, 1), grid;
  if (T > most) return hd_fail(ctx, HD_ERR_ARG, "heat: time blocks of %d steps need tiles wider than %d cells", T, 2 * T + 1);
  grid.x = hd_grid_extent(a->g.n[0], 32 - 2 * T, 2147483647);
  grid.y = hd_grid_extent(a->g.n[1], by * HD_HEAT_TB3_R - 2 * T, 65535);
  grid.z = hd_grid_extent(a->g.n[2], (unsigned)segment, 65535);
  if ((hd_idx)grid.z * segment < a->g.n[2] || (hd_idx)grid.y * (by * HD_HEAT_TB3_R - 2 * T) < a->g.n[1])
    return hd_fail(ctx, HD_ERR_ARG, "heat: grid too large for time blocks of %d planes", segment);
  if (smem > 48 * 1024)
    HD_CUDA_TRY(ctx, cudaFuncSetAttribute(hd_heat_tb3_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  hd_heat_tb3_kernel<T><<<grid, block, smem, hd_stream(ctx)>>>(*a, segment);
  return hd_check_launch(ctx, "hd_heat_step_blocked", __FILE__, __LINE__);
}

/* The launch of t steps (2 .. HD_HEAT_TB_MAX). */
HD_HOST_FN hd_status hd_heat_tb_dispatch(hd_ctx *ctx, const hd_heat_args *a, int t) {
  const int three = a->g.dim == 3;
  switch (t) {
    case 2: return three ? hd_heat_tb3_launch<2>(ctx, a) : hd_heat_tb_launch<2>(ctx, a);
    case 3: return three ? hd_heat_tb3_launch<3>(ctx, a) : hd_heat_tb_launch<3>(ctx, a);
    case 4: return three ? hd_heat_tb3_launch<4>(ctx, a) : hd_heat_tb_launch<4>(ctx, a);
    case 5: return three ? hd_heat_tb3_launch<5>(ctx, a) : hd_heat_tb_launch<5>(ctx, a);
    case 6: return three ? hd_heat_tb3_launch<6>(ctx, a) : hd_heat_tb_launch<6>(ctx, a);
    case 7: return three ? hd_heat_tb3_launch<7>(ctx, a) : hd_heat_tb_launch<7>(ctx, a);
    default: return three ? hd_heat_tb3_launch<8>(ctx, a) : hd_heat_tb_launch<8>(ctx, a);
  }
}

/* Launches of up to HD_HEAT_TB_MAX steps, each from t into t_next, the
 * fields swapped after each; a source array steps singly. */
HD_HOST_FN hd_status hd_heat_step_blocked(hd_ctx *ctx, const hd_heat_args *a, int steps, int *in_next) {
  hd_heat_args b = *a;
  int f;
  *in_next = 0;
  for (f = 0; f < HD_NFACES; ++f)
    if (a->bc[f].kind == HD_HEAT_HALO) return hd_fail(ctx, HD_ERR_UNSUPPORTED, "heat: time blocks take no halo faces");
  unsigned bx, by;
  int segment;
  const int most = b.q || b.g.dim == 1 ? 1 : hd_heat_tb_shape(ctx, b.g.dim, &bx, &by, &segment);
  if (most < 1)
    return hd_fail(ctx, HD_ERR_ARG, "heat: time blocks take blocks of 32 x 1 to 8 threads (3-D) or 32 to 256 (2-D, whole "
                   "warps)");
  while (steps > 0) {
    const int t = steps < most ? steps : most;
    hd_real *swap = b.t_next;
    hd_status st;
    if (t == 1) { /* the single step's own launch shape */
      int shape[3];
      memcpy(shape, ctx->block, sizeof shape);
      memset(ctx->block, 0, sizeof shape);
      st = hd_heat_step_tuned(ctx, &b);
      memcpy(ctx->block, shape, sizeof shape);
    } else {
      st = hd_heat_tb_dispatch(ctx, &b, t);
    }
    if (st != HD_OK) return st;
    b.t_next = (hd_real *)b.t, b.t = swap;
    *in_next ^= 1, steps -= t;
  }
  return HD_OK;
}

#elif !defined(HD_HEAT_HAS_TUNED)

HD_HOST_FN hd_status hd_heat_step_blocked(hd_ctx *ctx, const hd_heat_args *a, int steps, int *in_next) {
  (void)ctx, (void)a, (void)steps, (void)in_next;
  return hd_fail(ctx, HD_ERR_UNSUPPORTED, "heat: time blocks need the tuned step");
}

#else /* CPU backends */

HD_HOST_FN hd_status hd_heat_step_blocked(hd_ctx *ctx, const hd_heat_args *a, int steps, int *in_next) {
  const hd_grid *g = &a->g;
  const int three = g->dim == 3;
  const hd_range3 r = hd_grid_interior(g);
  const hd_idx units = three ? g->n[2] : g->n[1], rows = three ? g->n[1] : 1;
  void (*row)(const hd_heat_args *, hd_idx, hd_idx) =
      three ? (a->q ? hd_heat_cpu_row_3d_q : hd_heat_cpu_row_3d) : (a->q ? hd_heat_cpu_row_2d_q : hd_heat_cpu_row_2d);
  hd_heat_args by[2];
  hd_idx w, slab, nslab;
  int f;
  *in_next = steps > 0 && steps % 2;
  for (f = 0; f < HD_NFACES; ++f)
    if (a->bc[f].kind == HD_HEAT_HALO) return hd_fail(ctx, HD_ERR_UNSUPPORTED, "heat: time blocks take no halo faces");
  if (steps < 1 || units < 1) return HD_OK;
  slab = ctx->block[2] > 0 ? ctx->block[2] : hd_heat_block_slab(a, steps);
  nslab = (units + slab - 1) / slab;
  by[0] = *a; /* odd steps read t and write t_next, even ones the reverse */
  by[1] = *a, by[1].t = a->t_next, by[1].t_next = (hd_real *)a->t;
#if defined(HD_BACKEND_OPENMP)
#pragma omp parallel num_threads(hd_ctx_threads(ctx)) private(w)
#endif
  for (w = 0; w < nslab + steps - 1; ++w) {
    int s;
    for (s = 1; s <= steps; ++s) {
      const hd_idx sl = w - (s - 1), u0 = sl * slab, u1 = u0 + slab < units ? u0 + slab : units;
      const hd_heat_args *b = &by[(s - 1) % 2];
      hd_idx m;
      if (sl < 0 || sl >= nslab) continue;
      /* rows of the slab; the loop's end is the wave's barrier */
#if defined(HD_BACKEND_OPENMP)
#pragma omp for schedule(static)
#endif
      for (m = 0; m < (u1 - u0) * rows; ++m) {
        const hd_idx u = r.lo[three ? 2 : 1] + u0 + m / rows;
        row(b, three ? r.lo[1] + m % rows : u, three ? u : r.lo[2]);
      }
    }
  }
  return HD_OK;
}

#endif

#endif /* HD_HEAT_BLOCKED_H */
