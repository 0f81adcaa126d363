/* SPDX-License-Identifier: BSD-3-Clause */
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
 * axis in segments, one level of registers (and in 3-D shared memory) a
 * step (2-D: hd_heat_tb_kernel, a warp a tile; 3-D: hd_heat_tb3_kernel,
 * HD_HEAT_TB3_ROWS x 2 cells a thread); ctx->block is their block shape
 * and segment length (single steps, for a source array or a last lone
 * step, keep their defaults).  hd_heat_step_blocked_part launches some of
 * a 3-D launch's rows of tiles and segments alone (a distributed block's
 * tiles next to its neighbours first, so that its exchange runs beside
 * the rest).
 * Measured in doc/performance.md. */
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

/* Steps one launch takes (its levels live in registers and, in 3-D,
 * shared memory). */
#define HD_HEAT_TB_MAX 8

/* 3-D: R, rows a thread (a tile of 64 x R BY cells): 3 in single precision
 * (fewer halo cells and shared rows a cell than 2; 4 spills at 128
 * registers), 2 in double (3 spills). */
#ifndef HD_HEAT_TB3_ROWS
#define HD_HEAT_TB3_ROWS (sizeof(hd_real) == 4 ? 3 : 2)
#endif
#define HD_TB3_R ((int)HD_HEAT_TB3_ROWS)

extern __shared__ __align__(16) unsigned char hd_heat_tb_smem[]; /* the blocked kernels' levels */

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

/* The faces' ghosts as linear maps (hd_heat_ghost_map), kernel parameters:
 * no registers, no branches on the kind. */
typedef struct hd_heat_tb_faces {
  hd_real g[HD_NFACES][2];
} hd_heat_tb_faces;
#define HD_TB_GHOST(m, f, inner) ((m).g[f][0] * (inner) + (m).g[f][1])

/* 3-D: a part of the whole launch's tiles, rows of tiles [row0, row1) and
 * segments [seg0, seg1) (hd_heat_tb3_tiling), launched alone. */
typedef struct hd_heat_tb_part {
  int row0, row1, seg0, seg1;
} hd_heat_tb_part;

/* One launch, T steps from a->t into a->t_next (2-D).  Each warp holds a
 * tile of 32 C columns, C consecutive cells a thread, T cells of halo on
 * each side, and streams it along y in a segment of rows.  Level 0 loads
 * a row (two rows ahead, for the memory's latency); level l (1 .. T)
 * updates the row l behind from level l - 1's rows: x neighbours from the
 * thread's cells or, at its ends, by shuffles; y neighbours from a window
 * of two rows a level indexed by the row's parity (the loop takes two rows
 * an iteration, so every index is known at compile time) and the row level
 * l - 1 has just computed.  No shared memory and no barrier: warps run
 * free.  Level T's tile interior is stored with its face ghosts.  The
 * halo's cells come out wrong by one more cell each level and are never
 * stored.  Ghosts at levels 1 .. T - 1 are not stored either: a face cell
 * takes its ghost (by a select from the face's linear map) in place of the
 * neighbour it lacks, as the single step would have stored it.  The update
 * is hd_heat_update_2d/3d with the single step's arguments in its order. */
#ifndef HD_HEAT_TB_CELLS
#define HD_HEAT_TB_CELLS 2 /* C: cells a thread along x (1 to 8) */
#endif

/* Per-thread flags: bit c of each kind for cell c, and more. */
enum {
  HD_TB_STORE = 0, HD_TB_XLO = 8, HD_TB_XHI = 16, HD_TB_DX = 24, /* cell c is one past cell c - 1 (not clamped) */
  HD_TB_EDGE = 1u << 31                                           /* the warp holds a face or clamped cell */
};

typedef struct hd_heat_tb_col {
  const hd_real *src; /* this thread's cell 0, row 0 (indices past the ghosts clamped) */
  hd_real *dst;
  hd_idx sy;
  unsigned flags;
  int z0, zs, top;
} hd_heat_tb_col;

/* Cell c's offset from cell 0 (clamped cells repeat). */
template <int FACES>
static __device__ __forceinline__ int hd_heat_tb_dx(unsigned flags, int c) {
  return FACES ? __popc(flags >> HD_TB_DX & ((2u << c) - 2u)) : c; /* DX bits 1 .. c */
}

/* Iteration z (parity P): level 0 takes row z, level l updates row z - l.
 * CHECK: test each level's row against the block's and the grid's ends
 * (the first and last iterations; the others need no test).  FACES: the
 * warp holds face cells, or a face row may be among the levels'. */
template <int T, int C, int CHECK, int P, int FACES>
static __device__ __forceinline__ void hd_heat_tb_iter(const hd_heat_args &a, const hd_heat_tb_faces &g,
                                                       const hd_heat_tb_col &q, int z, hd_real (*win)[C],
                                                       hd_real (*ahead)[C]) {
  const int top = q.top;
  hd_real low[C]; /* the level below's newest row (z - l + 1) */
  int l, c, lowhave = 0;
#pragma unroll
  for (l = 0; l <= T; ++l) {
    const int p = z - l, par = (P + l) & 1; /* p's parity, known at compile time */
    const int faces = FACES && (q.flags & HD_TB_EDGE || (CHECK && (p == 1 || p == top - 1)));
    const int have = !CHECK || !(p < q.zs || p > top || (l == T && p < q.z0));
    hd_real v[C];
    if (have && l == 0) {
      const hd_real *s = q.src + (hd_idx)(p + 2) * q.sy;
#pragma unroll
      for (c = 0; c < C; ++c) {
        v[c] = ahead[P][c];
        if (!CHECK || p + 2 <= top) ahead[P][c] = s[hd_heat_tb_dx<FACES>(q.flags, c)];
      }
    } else if (have && CHECK && (p < 1 || p >= top)) {
#pragma unroll
      for (c = 0; c < C; ++c) v[c] = HD_R(0); /* a ghost row above level 0: never read */
    } else if (have) {
      const hd_real *mid = win[(l - 1) * 2 + par], *old = win[(l - 1) * 2 + (par ^ 1)];
      const hd_real left = __shfl_up_sync(0xffffffffu, mid[C - 1], 1), right = __shfl_down_sync(0xffffffffu, mid[0], 1);
#pragma unroll
      for (c = 0; c < C; ++c) {
        const hd_real t = mid[c];
        hd_real xm = c ? mid[c - 1] : left, xp = c < C - 1 ? mid[c + 1] : right, ym = old[c], yp = low[c];
        if (l > 1 && faces) { /* level l - 1's ghosts: this cell's faces, by selects */
          xm = q.flags >> (HD_TB_XLO + c) & 1 ? HD_TB_GHOST(g, HD_XLO, t) : xm;
          xp = q.flags >> (HD_TB_XHI + c) & 1 ? HD_TB_GHOST(g, HD_XHI, t) : xp;
          if (CHECK) {
            ym = p == 1 ? HD_TB_GHOST(g, HD_YLO, t) : ym;
            yp = p == top - 1 ? HD_TB_GHOST(g, HD_YHI, t) : yp;
          }
        }
        v[c] = hd_heat_update_2d(t, xm, xp, ym, yp, a.c, a.dtq);
      }
    }
    /* level l - 1's row z - l + 1 takes the place of its row z - l - 1 (read above) */
    if (l > 0 && lowhave)
#pragma unroll
      for (c = 0; c < C; ++c) win[(l - 1) * 2 + (par ^ 1)][c] = low[c];
    lowhave = have;
    if (!have) continue;
    if (l == T) {
      hd_real *o = q.dst + (hd_idx)p * q.sy;
#pragma unroll
      for (c = 0; c < C; ++c) {
        hd_real *e = o + hd_heat_tb_dx<FACES>(q.flags, c);
        if (!(q.flags >> (HD_TB_STORE + c) & 1)) continue;
        *e = v[c];
        if (faces) {
          if (q.flags >> (HD_TB_XLO + c) & 1) e[-1] = HD_TB_GHOST(g, HD_XLO, v[c]);
          if (q.flags >> (HD_TB_XHI + c) & 1) e[1] = HD_TB_GHOST(g, HD_XHI, v[c]);
          if (p == 1) e[-q.sy] = HD_TB_GHOST(g, HD_YLO, v[c]);
          if (p == top - 1) e[q.sy] = HD_TB_GHOST(g, HD_YHI, v[c]);
        }
      }
    } else {
#pragma unroll
      for (c = 0; c < C; ++c) low[c] = v[c];
    }
  }
}

/* Blocks of 128 threads a multiprocessor: four (up to 128 registers)
 * where the levels' windows fill at most 48, else three (168; tighter
 * caps spill). */
#ifndef HD_HEAT_TB_MIN_BLOCKS
#define HD_HEAT_TB_MIN_BLOCKS(T, C) ((T) * (C) * (int)sizeof(hd_real) <= 96 ? 4 : 3)
#endif

template <int T, int C>
static __global__ void __launch_bounds__(128, HD_HEAT_TB_MIN_BLOCKS(T, C))
    hd_heat_tb_kernel(HD_KPARAM(hd_heat_args) a, HD_KPARAM(hd_heat_tb_faces) g, int segment) {
  const int lane = (int)threadIdx.x;
  const hd_idx nx = a.g.n[0], tile = (hd_idx)blockIdx.x * blockDim.y + threadIdx.y;
  const hd_idx i0 = tile * (32 * C - 2 * T) + (hd_idx)lane * C - T + 1;
  hd_heat_tb_col q;
  hd_real win[2 * T][C], ahead[2][C]; /* win[2 l + parity]: level l's latest row of that parity */
  hd_idx base = 0;
  int z, zq, zr, zend, l, c;
  if (tile * (32 * C - 2 * T) >= nx) return; /* a warp past the grid (the whole warp: no barrier) */
  q.flags = 0;
#pragma unroll
  for (c = 0; c < C; ++c) {
    const hd_idx i = i0 + c, ic = i < 0 ? 0 : i > nx + 1 ? nx + 1 : i;
    const int in = i >= 1 && i <= nx;
    if (c == 0) base = ic;
    else if (ic != (i - 1 < 0 ? 0 : i - 1 > nx + 1 ? nx + 1 : i - 1)) q.flags |= 1u << (HD_TB_DX + c);
    if (in && lane * C + c >= T && lane * C + c < 32 * C - T) q.flags |= 1u << (HD_TB_STORE + c);
    if (in && i == 1) q.flags |= 1u << (HD_TB_XLO + c);
    if (in && i == nx) q.flags |= 1u << (HD_TB_XHI + c);
    if (!in || i == 1 || i == nx) q.flags |= HD_TB_EDGE;
  }
  if (!__any_sync(0xffffffffu, q.flags & HD_TB_EDGE)) q.flags &= ~HD_TB_EDGE;
  else q.flags |= HD_TB_EDGE;
  q.sy = a.g.stride[1];
  q.src = a.t + base, q.dst = a.t_next + base;
  /* this block's rows [z0, z1), and the rows before them its levels need:
     level 0 loads from zs on */
  q.z0 = 1 + (int)blockIdx.z * segment, q.top = (int)a.g.n[1] + 1;
  q.zs = q.z0 - T > 0 ? q.z0 - T : 0;
#pragma unroll
  for (c = 0; c < C; ++c) { /* rows zs and zs + 1, each in its parity's place */
    const hd_real *s = q.src + (hd_idx)q.zs * q.sy + hd_heat_tb_dx<1>(q.flags, c);
    const hd_real r0 = s[0], r1 = q.zs + 1 <= q.top ? s[q.sy] : HD_R(0);
    ahead[0][c] = q.zs & 1 ? r1 : r0, ahead[1][c] = q.zs & 1 ? r0 : r1;
  }
#pragma unroll
  for (l = 0; l < 2 * T; ++l)
#pragma unroll
    for (c = 0; c < C; ++c) win[l][c] = HD_R(0);
  hd_heat_tb_span(q.z0, q.top, segment, T, 2, &zq, &zr, &zend);
  /* the unchecked loop takes two rows at a time from an even one */
  zq += zq & 1;
  if (zq > zr) zq = zr;
  zr = zq + ((zr - zq) & ~1);
  for (z = q.zs; z < zq; ++z) {
    if (z & 1) hd_heat_tb_iter<T, C, 1, 1, 1>(a, g, q, z, win, ahead);
    else hd_heat_tb_iter<T, C, 1, 0, 1>(a, g, q, z, win, ahead);
  }
  if (q.flags & HD_TB_EDGE)
    for (; z < zr; z += 2) {
      hd_heat_tb_iter<T, C, 0, 0, 1>(a, g, q, z, win, ahead);
      hd_heat_tb_iter<T, C, 0, 1, 1>(a, g, q, z + 1, win, ahead);
    }
  else
    for (; z < zr; z += 2) {
      hd_heat_tb_iter<T, C, 0, 0, 0>(a, g, q, z, win, ahead);
      hd_heat_tb_iter<T, C, 0, 1, 0>(a, g, q, z + 1, win, ahead);
    }
  for (; z < zend; ++z) {
    if (z & 1) hd_heat_tb_iter<T, C, 1, 1, 1>(a, g, q, z, win, ahead);
    else hd_heat_tb_iter<T, C, 1, 0, 1>(a, g, q, z, win, ahead);
  }
}

/* Threads of a block and planes a segment (measured best on an H200):
 * 2-D 128 threads (four warps, a tile each) and 128 rows (256 in double
 * past 6 steps, hd_heat_tb_launch), 3-D 32 x 16 threads (64 x 16 R
 * cells) and 64 planes (80 on large grids, hd_heat_tb3_launch), or
 * ctx->block; the most steps a launch, which leave 2 cells or more inside
 * a tile's halos (0: a shape refused). */
HD_HOST_FN int hd_heat_tb_shape(const hd_ctx *ctx, int dim, unsigned *bx, unsigned *by, int *segment) {
  unsigned m;
  int t;
  if (dim == 3) { /* hd_heat_tb3_kernel: 32 x BY threads, 64 x R BY cells */
    *bx = 32u, *by = ctx->block[1] > 0 ? (unsigned)ctx->block[1] : 16u;
    *segment = ctx->block[2] > 0 ? ctx->block[2] : 64;
    m = *by * HD_TB3_R < 64u ? *by * HD_TB3_R : 64u;
    if (*by > 16u || (ctx->block[0] > 0 && ctx->block[0] != 32)) return 0;
  } else { /* hd_heat_tb_kernel: a warp a tile of 32 C cells */
    *bx = ctx->block[0] > 0 ? (unsigned)ctx->block[0] : 128u, *by = 1u;
    *segment = ctx->block[2] > 0 ? ctx->block[2] : 128;
    m = 32u * HD_HEAT_TB_CELLS;
    if (*bx > 128u || *bx % 32u) return 0;
  }
  t = m >= 2 ? (int)(m - 2) / 2 : 0;
  t = t < HD_HEAT_TB_MAX ? t : HD_HEAT_TB_MAX;
  /* 3-D: a level's shared rows, 256 BY reals, within 200 KB a block */
  while (dim == 3 && t > 1 && (size_t)t * 256u * *by * sizeof(hd_real) > 200u * 1024u) --t;
  return t;
}

template <int T>
HD_HOST_FN hd_status hd_heat_tb_launch(hd_ctx *ctx, const hd_heat_args *a) {
  enum { C = HD_HEAT_TB_CELLS };
  unsigned bx, by;
  int segment, f;
  const int most = hd_heat_tb_shape(ctx, 2, &bx, &by, &segment);
  const hd_idx tiles = (a->g.n[0] + 32 * C - 2 * T - 1) / (32 * C - 2 * T);
  dim3 block(32, bx / 32, 1), grid;
  hd_heat_tb_faces g;
  if (T > most) return hd_fail(ctx, HD_ERR_ARG, "heat: time blocks of %d steps need tiles wider than %d cells", T, 2 * T + 1);
  if (ctx->block[2] <= 0 && sizeof(hd_real) == 8 && T > 6) segment = 256; /* measured: 3 blocks a multiprocessor */
  for (f = 0; f < HD_NFACES; ++f) hd_heat_ghost_map(&a->bc[f], g.g[f]);
  grid.x = hd_grid_extent(tiles, block.y, 2147483647);
  grid.y = 1;
  grid.z = hd_grid_extent(a->g.n[1], (unsigned)segment, 65535);
  if ((hd_idx)grid.z * segment < a->g.n[1])
    return hd_fail(ctx, HD_ERR_ARG, "heat: grid too large for time blocks of %d rows", segment);
  hd_heat_tb_kernel<T, C><<<grid, block, 0, hd_stream(ctx)>>>(*a, g, segment);
  return hd_check_launch(ctx, "hd_heat_step_blocked", __FILE__, __LINE__);
}

/* 3-D: a warp a row of the tile along x, each thread a patch of R x 2
 * cells (R rows along y, 2 cells along x; a tile of 64 x R BY cells).  x
 * neighbours come from the patch or by shuffles, y neighbours from the
 * patch or, for its first and last rows, from the threads below and above
 * through shared memory (those rows a level, two buffers by the plane's
 * parity).  A level's window along z is two registers a cell, indexed by
 * the plane's parity, and the loop takes two planes an iteration, so every
 * index is known at compile time.  Level 0 loads one plane ahead.  Face
 * cells take their ghosts by selects from linear maps (no branch on the
 * face kind).  The rest as hd_heat_tb_kernel. */
template <typename V> struct hd_heat_tb3_pair;
template <> struct hd_heat_tb3_pair<float> { typedef float2 type; };
template <> struct hd_heat_tb3_pair<double> { typedef double2 type; };
typedef hd_heat_tb3_pair<hd_real>::type hd_heat_tb3_row; /* a thread's row of two cells */

/* Per-thread flags: cell (r, c)'s store bit r 2 + c, column c's x faces,
 * row r's y faces, and more.  A face bit stands for the whole column or
 * row: the cells of it outside the grid are never stored, and no cell
 * inside reads them (it takes the face's ghost instead). */
enum {
  HD_TB3_STORE = 0, HD_TB3_XLO = 8, HD_TB3_XHI = 10, HD_TB3_YLO = 12, HD_TB3_YHI = 16,
  HD_TB3_FACES = (1u << 20) - (1u << 8), /* the face bits */
  HD_TB3_EDGE = 1u << 21,                /* the warp holds a face cell */
  HD_TB3_LIVE = 22        /* bit 22 + l: the warp's rows reach level l's valid rows */
};

/* HD_HEAT_TB3_LEAN(T) (single precision, and double up to 3 steps): warps
 * without a face cell run a copy of the unchecked iterations without the
 * face selects, and warps skip the levels where none of their rows is
 * valid (+3 % and +4 to 13 % on the H100; in double +4 to 5 % at T = 3 on
 * the H200 with 32-bit offsets, though it spills a little, and -10 % at
 * T = 4). */
#ifndef HD_HEAT_TB3_LEAN
#define HD_HEAT_TB3_LEAN(T) (sizeof(hd_real) == 4 || (T) <= 3)
#endif

typedef struct hd_heat_tb3_col {
  unsigned off;          /* this thread's cell (0, 0) in plane 0 (32 bits: hd_heat_tb3_fits) */
  unsigned dy[HD_TB3_R]; /* row r's cell c = 0 from it; c = 1 is the next (hd_heat_tb3_kernel) */
  int sh;            /* this thread's first row in shared memory (rows) */
  int below, above;  /* the rows read for the y neighbours of the first and last rows, from sh */
  unsigned flags;
  int z0, zs;
} hd_heat_tb3_col;

/* Shared rows: [BY][2 (first, last)][T][2 (parity)][32 threads]. */
#define HD_TB3_SH(l, par) (((l) * 2 + (par)) * 32)
#define HD_TB3_SIDE(T) ((T) * 2 * 32)
#define HD_TB3_BIT(f, kind, k) ((f) >> (HD_TB3_##kind + (k)) & 1u)

/* Row r's cell c = 0 in plane k (k_ss: k times the plane's stride) of a
 * field.  32-bit offsets (hd_heat_tb3_fits) take fewer instructions to
 * form an address than 64-bit ones (about five an access).  The row's
 * offset is opaque to the compiler, so that it forms the address at
 * each use rather than holding a 64-bit pointer a row through the loop
 * (registers the windows need); cell c = 1 is an immediate offset. */
template <typename P>
static __device__ __forceinline__ P *hd_heat_tb3_at(P *field, const hd_heat_tb3_col &q, int r, unsigned k_ss) {
  unsigned d;
  asm volatile("mov.b32 %0, %1;" : "=r"(d) : "r"(q.dy[r]));
  return field + (q.off + k_ss + d);
}

template <int T, int CHECK, int P, int FACES>
static __device__ __forceinline__ void hd_heat_tb3_iter(const hd_heat_args &a, const hd_heat_tb_faces &g,
                                                        const hd_heat_tb3_col &q, int z, hd_real (*win)[HD_TB3_R][2],
                                                        hd_real (&ahead)[HD_TB3_R][2]) {
  enum { R = HD_TB3_R };
  hd_heat_tb3_row *const sh = (hd_heat_tb3_row *)hd_heat_tb_smem;
  const int top = (int)a.g.n[2] + 1;
  const hd_idx ss = a.g.stride[2];
  hd_real low[R][2]; /* the level below's newest plane (z - l + 1) */
  int l, r, c, lowhave = 0;
#pragma unroll
  for (l = 0; l <= T; ++l) {
    const int p = z - l, par = (P + l) & 1; /* p's parity, known at compile time */
    const int faces = FACES && (q.flags & HD_TB3_EDGE || (CHECK && (p == 1 || p == top - 1)));
    const int have = !CHECK || !(p < q.zs || p > top || (l == T && p < q.z0));
    hd_real v[R][2];
    if (HD_HEAT_TB3_LEAN(T) && !(q.flags >> (HD_TB3_LIVE + l) & 1)) break; /* rows no valid cell needs */
    if (have && l == 0) {
      const unsigned k_ss = (unsigned)(p + 1) * (unsigned)ss;
#pragma unroll
      for (r = 0; r < R; ++r)
#pragma unroll
        for (c = 0; c < 2; ++c) {
          v[r][c] = ahead[r][c];
          if (!CHECK || p + 1 <= top) ahead[r][c] = hd_heat_tb3_at(a.t, q, r, k_ss)[c];
        }
    } else if (have && CHECK && (p < 1 || p >= top)) {
#pragma unroll
      for (r = 0; r < R; ++r)
#pragma unroll
        for (c = 0; c < 2; ++c) v[r][c] = HD_R(0); /* a ghost plane above level 0: never read */
    } else if (have) {
      const hd_heat_tb3_row yl = sh[q.sh + q.below + HD_TB3_SH(l - 1, par)], yh = sh[q.sh + q.above + HD_TB3_SH(l - 1, par)];
      const hd_real(&mid)[R][2] = win[(l - 1) * 2 + par], (&old)[R][2] = win[(l - 1) * 2 + (par ^ 1)];
#pragma unroll
      for (r = 0; r < R; ++r) {
        const hd_real left = __shfl_up_sync(0xffffffffu, mid[r][1], 1), right = __shfl_down_sync(0xffffffffu, mid[r][0], 1);
#pragma unroll
        for (c = 0; c < 2; ++c) {
          const hd_real t = mid[r][c];
          hd_real xm = c ? mid[r][0] : left, xp = c ? right : mid[r][1];
          hd_real ym = r ? mid[r - 1][c] : c ? yl.y : yl.x, yp = r < R - 1 ? mid[r + 1][c] : c ? yh.y : yh.x;
          hd_real zm = old[r][c], zp = low[r][c];
          if (l > 1 && faces) { /* level l - 1's ghosts: this cell's faces, by selects */
            xm = HD_TB3_BIT(q.flags, XLO, c) ? HD_TB_GHOST(g, HD_XLO, t) : xm;
            xp = HD_TB3_BIT(q.flags, XHI, c) ? HD_TB_GHOST(g, HD_XHI, t) : xp;
            ym = HD_TB3_BIT(q.flags, YLO, r) ? HD_TB_GHOST(g, HD_YLO, t) : ym;
            yp = HD_TB3_BIT(q.flags, YHI, r) ? HD_TB_GHOST(g, HD_YHI, t) : yp;
            if (CHECK) {
              zm = p == 1 ? HD_TB_GHOST(g, HD_ZLO, t) : zm;
              zp = p == top - 1 ? HD_TB_GHOST(g, HD_ZHI, t) : zp;
            }
          }
          v[r][c] = hd_heat_update_3d(t, xm, xp, ym, yp, zm, zp, a.c, a.dtq);
        }
      }
    }
    /* level l - 1's plane z - l + 1 takes the place of its plane z - l - 1 (read above) */
    if (l > 0 && lowhave)
#pragma unroll
      for (r = 0; r < R; ++r)
#pragma unroll
        for (c = 0; c < 2; ++c) win[(l - 1) * 2 + (par ^ 1)][r][c] = low[r][c];
    lowhave = have;
    if (!have) continue;
    if (l == T) {
      const unsigned k_ss = (unsigned)p * (unsigned)ss;
#pragma unroll
      for (r = 0; r < R; ++r)
#pragma unroll
        for (c = 0; c < 2; ++c) {
          hd_real *e = hd_heat_tb3_at(a.t_next, q, r, k_ss) + c;
          if (!HD_TB3_BIT(q.flags, STORE, r * 2 + c)) continue;
          *e = v[r][c];
          if (faces) {
            const hd_idx sy = a.g.stride[1];
            if (HD_TB3_BIT(q.flags, XLO, c)) e[-1] = HD_TB_GHOST(g, HD_XLO, v[r][c]);
            if (HD_TB3_BIT(q.flags, XHI, c)) e[1] = HD_TB_GHOST(g, HD_XHI, v[r][c]);
            if (HD_TB3_BIT(q.flags, YLO, r)) e[-sy] = HD_TB_GHOST(g, HD_YLO, v[r][c]);
            if (HD_TB3_BIT(q.flags, YHI, r)) e[sy] = HD_TB_GHOST(g, HD_YHI, v[r][c]);
            if (p == 1) e[-ss] = HD_TB_GHOST(g, HD_ZLO, v[r][c]);
            if (p == top - 1) e[ss] = HD_TB_GHOST(g, HD_ZHI, v[r][c]);
          }
        }
    } else {
      hd_heat_tb3_row first, last;
      first.x = v[0][0], first.y = v[0][1], last.x = v[R - 1][0], last.y = v[R - 1][1];
      sh[q.sh + HD_TB3_SH(l, par)] = first;
      sh[q.sh + HD_TB3_SIDE(T) + HD_TB3_SH(l, par)] = last;
#pragma unroll
      for (r = 0; r < R; ++r)
#pragma unroll
        for (c = 0; c < 2; ++c) low[r][c] = v[r][c];
    }
  }
}

/* Between planes a warp waits only for the warps whose rows it reads (the
 * rows above and below) to finish the plane before, not for the whole
 * block: their rows of that plane are then written, and they are done
 * reading the buffer it writes next (the other parity's).  Two rounds of
 * named barriers of two warps each, the pairs (2i, 2i + 1) then
 * (2i + 1, 2i + 2) (barrier k + 1 for the pair (k, k + 1)), so no chain of
 * waits runs through the block. */
#ifndef HD_HEAT_TB3_NEIGHBOURS /* single: +1.4 to 2.6 % on the H200; double spills at 128 registers (-28 %) */
#define HD_HEAT_TB3_NEIGHBOURS (sizeof(hd_real) == 4)
#endif
/* One round's barrier, k from t = ty by k_of_t (PTX), skipped where warp
 * k + 1 is past the block.  Computed in PTX from the special registers at
 * each use: a barrier number kept in a register made double spill. */
#define HD_TB3_PAIR_SYNC(k_of_t)                                                                                   \
  asm volatile("{\n\t.reg .u32 t, k, n;\n\t.reg .pred p;\n\tmov.u32 t, %tid.y;\n\t" k_of_t                  \
               "add.u32 k, k, 1;\n\tmov.u32 n, %ntid.y;\n\tsub.u32 n, n, 1;\n\tsub.u32 t, k, 1;\n\t"            \
               "setp.lt.u32 p, t, n;\n\t@p bar.sync k, 64;\n\t}" ::                                              \
                   : "memory")
static __device__ __forceinline__ void hd_heat_tb3_wait() {
  if (!HD_HEAT_TB3_NEIGHBOURS) {
    __syncthreads();
    return;
  }
  HD_TB3_PAIR_SYNC("and.b32 k, t, 0xfffffffe;\n\t");
  HD_TB3_PAIR_SYNC("sub.u32 k, t, 1;\n\tor.b32 k, k, 1;\n\t");
}

/* Up to 128 registers (one block of 512 threads a multiprocessor; tighter
 * caps spill). */
template <int T>
static __global__ void __launch_bounds__(512, 1)
    hd_heat_tb3_kernel(HD_KPARAM(hd_heat_args) a, HD_KPARAM(hd_heat_tb_faces) g, int segment, int row0, int seg0) {
  enum { R = HD_TB3_R };
  static_assert(R >= 1 && R <= 4, "HD_HEAT_TB3_ROWS: 1 to 4 (the flags' bits)");
  const int tx = (int)threadIdx.x, ty = (int)threadIdx.y, by = (int)blockDim.y;
  const hd_idx nx = a.g.n[0], ny = a.g.n[1], sy = a.g.stride[1];
  /* a thread's cells start at an even x (-T + 1 for odd T, -T for even) */
  const hd_idx i0 = (hd_idx)blockIdx.x * (64 - 2 * T) + (hd_idx)tx * 2 - (T & ~1);
  const hd_idx j0 = (hd_idx)(blockIdx.y + row0) * (by * R - 2 * T) + (hd_idx)ty * R - T + 1;
  hd_heat_tb3_row *const sh = (hd_heat_tb3_row *)hd_heat_tb_smem;
  hd_heat_tb3_col q;
  hd_real win[2 * T][R][2], ahead[R][2]; /* win[2 l + parity]: level l's latest plane of that parity */
  hd_idx xin, xout;
  int z, zq, zr, zend, l, r, c, u;
  q.sh = ty * 2 * HD_TB3_SIDE(T) + tx;
  q.below = ty > 0 ? -HD_TB3_SIDE(T) : 0;                /* thread ty - 1's last row */
  q.above = ty < by - 1 ? 2 * HD_TB3_SIDE(T) : HD_TB3_SIDE(T); /* thread ty + 1's first row */
  q.z0 = 1 + ((int)blockIdx.z + seg0) * segment;
  q.zs = q.z0 - T > 0 ? q.z0 - T : 0;
  q.flags = 0;
#pragma unroll
  for (c = 0; c < 2; ++c) {
    if (i0 + c == 1) q.flags |= 1u << (HD_TB3_XLO + c);
    if (i0 + c == nx) q.flags |= 1u << (HD_TB3_XHI + c);
  }
  /* The pair at i0 reads cells i0 and i0 + 1 where the grid needs them (x
     = 0 to nx + 1; i0 is even, so x = 0 starts a pair).  Pairs wholly
     outside read a pair of the row, and a pair at nx + 1 reads nx + 1 and
     nx + 2 (row padding or the next row's first ghost) in the rows inside
     and nx, nx + 1 in the ghost rows (whose corner ghosts no cell reads):
     no read passes the field's last row. */
  xin = i0 < 0 ? 0 : i0 > nx + 1 ? nx + 1 : i0, xout = xin > nx ? nx : xin;
#pragma unroll
  for (r = 0; r < R; ++r) {
    const hd_idx j = j0 + r, jc = j < 0 ? 0 : j > ny + 1 ? ny + 1 : j;
    q.dy[r] = (unsigned)((j >= 1 && j <= ny ? xin : xout) + jc * sy);
    if (j == 1) q.flags |= 1u << (HD_TB3_YLO + r);
    if (j == ny) q.flags |= 1u << (HD_TB3_YHI + r);
#pragma unroll
    for (c = 0; c < 2; ++c) {
      const hd_idx i = i0 + c;
      if (i >= 1 && i <= nx && j >= 1 && j <= ny && tx * 2 + c >= T && tx * 2 + c < 64 - T && ty * R + r >= T &&
          ty * R + r < by * R - T)
        q.flags |= 1u << (HD_TB3_STORE + r * 2 + c);
    }
  }
  q.off = q.dy[0];
#pragma unroll
  for (r = 0; r < R; ++r) q.dy[r] -= q.off;
  if (__any_sync(0xffffffffu, (q.flags & HD_TB3_FACES) != 0)) q.flags |= HD_TB3_EDGE;
  /* level l's values are right in rows l .. R BY - 1 - l of the tile, and
     only those feed level l + 1's; rows past the ghost rows (the last
     tile's, mostly) feed none that the grid needs */
  for (l = 0; l <= T; ++l)
    if (ty * R + R - 1 >= l && ty * R < by * R - l && j0 + R - 1 >= 0 && j0 <= ny + 1)
      q.flags |= 1u << (HD_TB3_LIVE + l);
#pragma unroll
  for (r = 0; r < R; ++r)
#pragma unroll
    for (c = 0; c < 2; ++c)
      ahead[r][c] = a.t[q.off + q.dy[r] + (unsigned)q.zs * (unsigned)a.g.stride[2] + c];
#pragma unroll
  for (l = 0; l < 2 * T; ++l)
#pragma unroll
    for (r = 0; r < R; ++r)
#pragma unroll
      for (c = 0; c < 2; ++c) win[l][r][c] = HD_R(0);
  for (u = 0; u < T * 2; ++u) sh[q.sh + u * 32].x = sh[q.sh + u * 32].y = sh[q.sh + HD_TB3_SIDE(T) + u * 32].x =
                                  sh[q.sh + HD_TB3_SIDE(T) + u * 32].y = HD_R(0);
  __syncthreads();
  hd_heat_tb_span(q.z0, (int)a.g.n[2] + 1, segment, T, 1, &zq, &zr, &zend);
  /* the unchecked loop takes two planes at a time from an even one */
  zq += zq & 1;
  if (zq > zr) zq = zr;
  zr = zq + ((zr - zq) & ~1);
  for (z = q.zs; z < zq; ++z) {
    if (z & 1) hd_heat_tb3_iter<T, 1, 1, 1>(a, g, q, z, win, ahead);
    else hd_heat_tb3_iter<T, 1, 0, 1>(a, g, q, z, win, ahead);
    hd_heat_tb3_wait();
  }
  for (; z < zr; z += 2) {
    if (!HD_HEAT_TB3_LEAN(T) || q.flags & HD_TB3_EDGE) hd_heat_tb3_iter<T, 0, 0, 1>(a, g, q, z, win, ahead);
    else hd_heat_tb3_iter<T, 0, 0, 0>(a, g, q, z, win, ahead);
    hd_heat_tb3_wait();
    if (!HD_HEAT_TB3_LEAN(T) || q.flags & HD_TB3_EDGE) hd_heat_tb3_iter<T, 0, 1, 1>(a, g, q, z + 1, win, ahead);
    else hd_heat_tb3_iter<T, 0, 1, 0>(a, g, q, z + 1, win, ahead);
    hd_heat_tb3_wait();
  }
  for (; z < zend; ++z) {
    if (z & 1) hd_heat_tb3_iter<T, 1, 1, 1>(a, g, q, z, win, ahead);
    else hd_heat_tb3_iter<T, 1, 0, 1>(a, g, q, z, win, ahead);
    hd_heat_tb3_wait();
  }
}

/* 3-D: whether the kernel's 32-bit cell offsets reach the whole field
 * (else single steps, hd_heat_step_blocked). */
HD_HOST_FN int hd_heat_tb3_fits(const hd_grid *g) {
  return g->total <= (hd_idx)UINT32_MAX + 1;
}

/* 3-D: the whole launch of T steps' tiling: rows a tile stores, planes a
 * segment, and how many of each cover the grid (0: it cannot). */
HD_HOST_FN int hd_heat_tb3_tiling(const hd_ctx *ctx, const hd_heat_args *a, int T, int *rows, int *planes,
                                  int *nrows, int *nsegs) {
  unsigned bx, by, gx;
  int segment;
  if (a->g.dim != 3 || T > hd_heat_tb_shape(ctx, 3, &bx, &by, &segment)) return 0;
  *rows = (int)by * HD_TB3_R - 2 * T;
  gx = hd_grid_extent(a->g.n[0] + (T % 2 ? 0 : 1), 64 - 2 * T, 2147483647); /* x from -T for even T */
  *nrows = (int)hd_grid_extent(a->g.n[1], (unsigned)*rows, 65535);
  /* measured (H200): 80-plane segments beat 64 by 2-5 % at 512^3; at
     384^3, under five blocks a multiprocessor, longer ones lost 5-8 % */
  if (ctx->block[2] <= 0 && (hd_idx)gx * *nrows * ((a->g.n[2] + 79) / 80) >= 5 * (hd_idx)ctx->sm_count) segment = 80;
  *planes = segment;
  *nsegs = (int)hd_grid_extent(a->g.n[2], (unsigned)segment, 65535);
  return (hd_idx)*nsegs * segment >= a->g.n[2] && (hd_idx)*nrows * *rows >= a->g.n[1];
}

/* 3-D: 32 x BY threads (ctx->block[1], default 16), a tile of 64 x R BY
 * cells; the tiles of `part` (NULL: all). */
template <int T>
HD_HOST_FN hd_status hd_heat_tb3_launch(hd_ctx *ctx, const hd_heat_args *a, const hd_heat_tb_part *part) {
  unsigned bx, by;
  int segment, rows, nrows, nsegs, f;
  const int most = hd_heat_tb_shape(ctx, 3, &bx, &by, &segment);
  const size_t smem = (size_t)T * 2 * by * 2 * 32 * sizeof(hd_heat_tb3_row);
  hd_heat_tb_part all;
  dim3 block(bx, by, 1), grid;
  hd_heat_tb_faces g;
  if (T > most) return hd_fail(ctx, HD_ERR_ARG, "heat: time blocks of %d steps need tiles wider than %d cells", T, 2 * T + 1);
  if (!hd_heat_tb3_tiling(ctx, a, T, &rows, &segment, &nrows, &nsegs))
    return hd_fail(ctx, HD_ERR_ARG, "heat: grid too large for time blocks of %d planes", segment);
  all.row0 = 0, all.row1 = nrows, all.seg0 = 0, all.seg1 = nsegs;
  if (!part) part = &all;
  if (part->row0 < 0 || part->row1 > nrows || part->seg0 < 0 || part->seg1 > nsegs)
    return hd_fail(ctx, HD_ERR_ARG, "heat: tiles %d..%d, segments %d..%d of %d and %d", part->row0, part->row1 - 1,
                   part->seg0, part->seg1 - 1, nrows, nsegs);
  if (part->row0 >= part->row1 || part->seg0 >= part->seg1) return HD_OK;
  for (f = 0; f < HD_NFACES; ++f) hd_heat_ghost_map(&a->bc[f], g.g[f]);
  grid.x = hd_grid_extent(a->g.n[0] + (T % 2 ? 0 : 1), 64 - 2 * T, 2147483647); /* x from -T for even T */
  grid.y = (unsigned)(part->row1 - part->row0), grid.z = (unsigned)(part->seg1 - part->seg0);
  if (smem > 48 * 1024)
    HD_CUDA_TRY(ctx, cudaFuncSetAttribute(hd_heat_tb3_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  hd_heat_tb3_kernel<T><<<grid, block, smem, hd_stream(ctx)>>>(*a, g, segment, part->row0, part->seg0);
  return hd_check_launch(ctx, "hd_heat_step_blocked", __FILE__, __LINE__);
}

/* The launch of t steps (2 .. HD_HEAT_TB_MAX); 3-D: the tiles of `part`
 * (NULL: all). */
HD_HOST_FN hd_status hd_heat_tb_dispatch(hd_ctx *ctx, const hd_heat_args *a, int t, const hd_heat_tb_part *part) {
  const int three = a->g.dim == 3;
  switch (t) {
    case 2: return three ? hd_heat_tb3_launch<2>(ctx, a, part) : hd_heat_tb_launch<2>(ctx, a);
    case 3: return three ? hd_heat_tb3_launch<3>(ctx, a, part) : hd_heat_tb_launch<3>(ctx, a);
    case 4: return three ? hd_heat_tb3_launch<4>(ctx, a, part) : hd_heat_tb_launch<4>(ctx, a);
    case 5: return three ? hd_heat_tb3_launch<5>(ctx, a, part) : hd_heat_tb_launch<5>(ctx, a);
    case 6: return three ? hd_heat_tb3_launch<6>(ctx, a, part) : hd_heat_tb_launch<6>(ctx, a);
    case 7: return three ? hd_heat_tb3_launch<7>(ctx, a, part) : hd_heat_tb_launch<7>(ctx, a);
    default: return three ? hd_heat_tb3_launch<8>(ctx, a, part) : hd_heat_tb_launch<8>(ctx, a);
  }
}

/* 3-D: `steps` steps (2 .. the tiling's most) from a->t into a->t_next by
 * the tiles of `part` alone: the cells they store come out as from
 * hd_heat_step_blocked, the rest of t_next is not written, so launches of
 * parts that share no tile, from the same fields, give the whole launch's
 * result in any order (a distributed block's tiles next to its neighbours
 * first, its exchange beside the rest). */
HD_HOST_FN hd_status hd_heat_step_blocked_part(hd_ctx *ctx, const hd_heat_args *a, int steps, hd_heat_tb_part part) {
  int f;
  for (f = 0; f < HD_NFACES; ++f)
    if (a->bc[f].kind == HD_HEAT_HALO) return hd_fail(ctx, HD_ERR_UNSUPPORTED, "heat: time blocks take no halo faces");
  if (a->g.dim != 3 || a->q || !hd_heat_tb3_fits(&a->g) || steps < 2 || steps > HD_HEAT_TB_MAX)
    return hd_fail(ctx, HD_ERR_UNSUPPORTED, "heat: %d steps by parts of a launch (3-D, no source, 2 to %d steps)",
                   steps, HD_HEAT_TB_MAX);
  return hd_heat_tb_dispatch(ctx, a, steps, &part);
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
  int most = b.q || b.g.dim == 1 ? 1 : hd_heat_tb_shape(ctx, b.g.dim, &bx, &by, &segment);
  if (most < 1)
    return hd_fail(ctx, HD_ERR_ARG, "heat: time blocks take blocks of 32 x 1 to 16 threads (3-D) or 32 to 128 (2-D, whole "
                   "warps)");
  if (b.g.dim == 3 && !hd_heat_tb3_fits(&b.g)) most = 1; /* fields past 2^32 cells */
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
      st = hd_heat_tb_dispatch(ctx, &b, t, NULL);
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
