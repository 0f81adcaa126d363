/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/fdtd_tuned_cuda.h - the tuned CUDA half steps of hd/fdtd.h: threads
 * marching along z with the next node's loads in flight, pairs of x nodes
 * in single precision.  The same value functions as the generic loops.
 * On the CPU backends only the host's builder of the material segments. */
#ifndef HD_FDTD_TUNED_CUDA_H
#define HD_FDTD_TUNED_CUDA_H

#include "fdtd.h"

/* Where a half step's three components share one material over a segment
 * of HD_FDTD_SEG nodes of a padded row (from node pad), the marches take
 * it from one byte a segment instead of three a node: a run in vacuum
 * reads no material bytes.  Entry (segment t, row j of its plane, plane
 * k) at t useg + j urow + k, so that a thread marching along z reads
 * consecutive bytes: 1 + the material, or 0 where the components or nodes
 * differ (or share material 255). */
#define HD_FDTD_SEG 64

HD_HOST_FN void hd_fdtd_uniform_shape(const hd_grid *g, hd_idx *nseg, hd_idx *useg, hd_idx *urow) {
  const hd_idx sy = g->stride[1], sz = g->stride[2], planes = g->total / sz;
  *nseg = (sy - g->ghost + HD_FDTD_SEG - 1) / HD_FDTD_SEG;
  *urow = planes, *useg = sz / sy * planes;
}

/* out: nseg * useg bytes; m: the three components' material indices (host). */
HD_HOST_FN void hd_fdtd_uniform_build(const hd_grid *g, const unsigned char *const m[3], unsigned char *out) {
  const hd_idx sy = g->stride[1], sz = g->stride[2], rows = sz / sy, planes = g->total / sz;
  hd_idx nseg, useg, urow, t, j, k, x;
  hd_fdtd_uniform_shape(g, &nseg, &useg, &urow);
  for (k = 0; k < planes; ++k)
    for (j = 0; j < rows; ++j)
      for (t = 0; t < nseg; ++t) {
        const hd_idx n0 = k * sz + j * sy, x0 = g->ghost + t * HD_FDTD_SEG;
        const hd_idx x1 = x0 + HD_FDTD_SEG < sy ? x0 + HD_FDTD_SEG : sy;
        const unsigned u = m[0][n0 + x0];
        int same = u < 255;
        for (x = x0; x < x1 && same; ++x) same = m[0][n0 + x] == u && m[1][n0 + x] == u && m[2][n0 + x] == u;
        out[t * useg + j * urow + k] = (unsigned char)(same ? u + 1 : 0);
      }
}

#if defined(HD_BACKEND_CUDA)
/* Tuned CUDA half steps: each thread marches along z over `march` nodes of
 * one (i, j) column.  The kernels are latency-bound, so each keeps two
 * nodes' loads in flight: the values that stream along z (old E, H, the
 * three material indices) are loaded one node ahead, and the value the
 * next node needs from this one stays in a register (E: Hx, Hy of the node
 * below; H: Ex, Ey of the node above).  In-plane neighbours come from L1.
 * The node after the last of a segment is clamped to the last: no reads
 * beyond it.  Same value functions and range rules as the generic loops,
 * which stay as the check (tests compare the two).
 * Knobs measured on H200 (doc/performance.md): unrolling by 2, register
 * caps for 5 (single) or 4 (double) blocks of 256 threads a SM; blocks are
 * at most 256 threads. */
#define HD_FDTD_HAS_TUNED 1
#ifndef HD_FDTD_MAX_THREADS
#define HD_FDTD_MAX_THREADS 256
#endif
#ifndef HD_FDTD_UNROLL
#define HD_FDTD_UNROLL 2
#endif
#ifndef HD_FDTD_MIN_BLOCKS
#if defined(HD_REAL_FLOAT)
#define HD_FDTD_MIN_BLOCKS 5 /* 48 registers */
#else
#define HD_FDTD_MIN_BLOCKS 4 /* 64 registers */
#endif
#endif
#define HD_FDTD_BOUNDS __launch_bounds__(HD_FDTD_MAX_THREADS, HD_FDTD_MIN_BLOCKS)

/* UNI: the materials from the segments where they are shared
 * (a.uni[0] or [1]); SAMPLE (H): the six components into a.vbuf. */
template <int UNI>
HD_KERNEL void HD_FDTD_BOUNDS hd_fdtd_e_march(HD_KPARAM(hd_fdtd_args) a, int march, hd_range3 r) {
  const hd_idx pad = a.g.ghost, sy = a.g.stride[1], sz = a.g.stride[2];
  const hd_idx i = pad + (hd_idx)blockIdx.x * blockDim.x + threadIdx.x;
  const hd_idx j = r.lo[1] + (hd_idx)blockIdx.y * blockDim.y + threadIdx.y;
  const hd_idx k0 = r.lo[2] + (hd_idx)blockIdx.z * march;
  const hd_idx k1 = k0 + march < r.hi[2] ? k0 + march : r.hi[2];
  const hd_idx pi = i - pad, pj = j - pad;
  const hd_real *HD_RESTRICT hx = a.f[HD_FDTD_HX], *HD_RESTRICT hy = a.f[HD_FDTD_HY],
                             *HD_RESTRICT hz = a.f[HD_FDTD_HZ];
  hd_real *HD_RESTRICT ex = a.f[HD_FDTD_EX], *HD_RESTRICT ey = a.f[HD_FDTD_EY], *HD_RESTRICT ez = a.f[HD_FDTD_EZ];
  const unsigned char *HD_RESTRICT mex = a.m[HD_FDTD_EX], *HD_RESTRICT mey = a.m[HD_FDTD_EY],
                                   *HD_RESTRICT mez = a.m[HD_FDTD_EZ];
  hd_idx n, k;
  hd_real hxb, hyb, hxc, hyc, hzc, exo, eyo, ezo;
  unsigned mx, my, mz;
  int tx, ty, dox, doy;
  const unsigned char *HD_RESTRICT us = UNI ? a.uni[0] + pi / HD_FDTD_SEG * a.useg + j * a.urow : NULL;
  unsigned u;
  if (pi > a.nc[0] || j >= r.hi[1]) return;
  tx = hd_fdtd_tangential(&a, 0, pi), ty = hd_fdtd_tangential(&a, 1, pj);
  dox = pi < a.nc[0] && ty, doy = pj < a.nc[1] && tx;
  n = hd_grid_at(&a.g, i, j, k0);
  hxb = hx[n - sz], hyb = hy[n - sz];
  hxc = hx[n], hyc = hy[n], hzc = hz[n], exo = ex[n], eyo = ey[n], ezo = ez[n];
  u = UNI ? us[k0] : 0u;
  mx = u ? u - 1 : mex[n], my = u ? u - 1 : mey[n], mz = u ? u - 1 : mez[n];
  HD_PRAGMA(unroll HD_FDTD_UNROLL)
  for (k = k0; k < k1; ++k, n += sz) {
    const hd_idx pk = k - pad, nn = k + 1 < k1 ? n + sz : n;
    const hd_real hxn = hx[nn], hyn = hy[nn], hzn = hz[nn], exn = ex[nn], eyn = ey[nn], ezn = ez[nn];
    const unsigned un = UNI ? us[k + 1 < k1 ? k + 1 : k] : 0u;
    const unsigned mxn = un ? un - 1 : mex[nn], myn = un ? un - 1 : mey[nn], mzn = un ? un - 1 : mez[nn];
    const int tz = hd_fdtd_tangential(&a, 2, pk);
    if (dox && tz)
      ex[n] = hd_fdtd_e_value(exo, a.c1[mx], a.c2[mx], a.rn[1][j], hzc - hz[n - sy], a.rn[2][k], hyc - hyb);
    if (doy && tz)
      ey[n] = hd_fdtd_e_value(eyo, a.c1[my], a.c2[my], a.rn[2][k], hxc - hxb, a.rn[0][i], hzc - hz[n - 1]);
    if (pk < a.nc[2] && tx && ty)
      ez[n] = hd_fdtd_e_value(ezo, a.c1[mz], a.c2[mz], a.rn[0][i], hyc - hy[n - 1], a.rn[1][j], hxc - hx[n - sy]);
    hxb = hxc, hyb = hyc, hxc = hxn, hyc = hyn, hzc = hzn, exo = exn, eyo = eyn, ezo = ezn;
    mx = mxn, my = myn, mz = mzn;
  }
}

template <int UNI, int SAMPLE>
HD_KERNEL void HD_FDTD_BOUNDS hd_fdtd_h_march(HD_KPARAM(hd_fdtd_args) a, int march, hd_range3 r) {
  const hd_idx pad = a.g.ghost, sy = a.g.stride[1], sz = a.g.stride[2];
  const hd_idx i = pad + (hd_idx)blockIdx.x * blockDim.x + threadIdx.x;
  const hd_idx j = r.lo[1] + (hd_idx)blockIdx.y * blockDim.y + threadIdx.y;
  const hd_idx k0 = r.lo[2] + (hd_idx)blockIdx.z * march;
  const hd_idx k1 = k0 + march < r.hi[2] ? k0 + march : r.hi[2];
  const hd_idx pi = i - pad, pj = j - pad;
  const hd_real *HD_RESTRICT ex = a.f[HD_FDTD_EX], *HD_RESTRICT ey = a.f[HD_FDTD_EY],
                             *HD_RESTRICT ez = a.f[HD_FDTD_EZ];
  hd_real *HD_RESTRICT hx = a.f[HD_FDTD_HX], *HD_RESTRICT hy = a.f[HD_FDTD_HY], *HD_RESTRICT hz = a.f[HD_FDTD_HZ];
  const unsigned char *HD_RESTRICT mhx = a.m[HD_FDTD_HX], *HD_RESTRICT mhy = a.m[HD_FDTD_HY],
                                   *HD_RESTRICT mhz = a.m[HD_FDTD_HZ];
  hd_idx n, k;
  hd_real exc, eyc, exa, eya, ezc, hxo, hyo, hzo;
  unsigned mx, my, mz;
  int dox, doy, doz;
  const unsigned char *HD_RESTRICT us = UNI ? a.uni[1] + pi / HD_FDTD_SEG * a.useg + j * a.urow : NULL;
  unsigned u;
  if (pi > a.nc[0] || j >= r.hi[1]) return;
  dox = pj < a.nc[1], doy = pi < a.nc[0], doz = pi < a.nc[0] && pj < a.nc[1];
  n = hd_grid_at(&a.g, i, j, k0);
  exc = ex[n], eyc = ey[n], exa = ex[n + sz], eya = ey[n + sz], ezc = ez[n];
  u = UNI ? us[k0] : 0u;
  hxo = hx[n], hyo = hy[n], hzo = hz[n], mx = u ? u - 1 : mhx[n], my = u ? u - 1 : mhy[n], mz = u ? u - 1 : mhz[n];
  HD_PRAGMA(unroll HD_FDTD_UNROLL)
  for (k = k0; k < k1; ++k, n += sz) {
    const hd_idx pk = k - pad, nn = k + 1 < k1 ? n + sz : n;
    const hd_real exn = ex[nn + sz], eyn = ey[nn + sz], ezn = ez[nn], hxn = hx[nn], hyn = hy[nn], hzn = hz[nn];
    const unsigned un = UNI ? us[k + 1 < k1 ? k + 1 : k] : 0u;
    const unsigned mxn = un ? un - 1 : mhx[nn], myn = un ? un - 1 : mhy[nn], mzn = un ? un - 1 : mhz[nn];
    hd_real vx = hxo, vy = hyo, vz = hzo;
    if (dox && pk < a.nc[2])
      hx[n] = vx = hd_fdtd_h_value(hxo, a.d1[mx], a.d2[mx], a.rc[1][j], ez[n + sy] - ezc, a.rc[2][k], eya - eyc);
    if (doy && pk < a.nc[2])
      hy[n] = vy = hd_fdtd_h_value(hyo, a.d1[my], a.d2[my], a.rc[2][k], exa - exc, a.rc[0][i], ez[n + 1] - ezc);
    if (doz)
      hz[n] = vz = hd_fdtd_h_value(hzo, a.d1[mz], a.d2[mz], a.rc[0][i], ey[n + 1] - eyc, a.rc[1][j], ex[n + sy] - exc);
    if (SAMPLE) {
      hd_real *HD_RESTRICT b = a.vbuf + (n - a.vfirst);
      b[0] = exc, b[a.vspan] = eyc, b[2 * a.vspan] = ezc, b[3 * a.vspan] = vx, b[4 * a.vspan] = vy, b[5 * a.vspan] = vz;
    }
    exc = exa, eyc = eya, exa = exn, eya = eyn, ezc = ezn, hxo = hxn, hyo = hyn, hzo = hzn;
    mx = mxn, my = myn, mz = mzn;
  }
}

/* The same marches with two nodes a thread along x (i and i + 1, i - pad
 * even): 2-element vector loads and stores, where node pad of every row
 * sits on a pair boundary in all twelve arrays (hd_fdtd_pair_ok; the
 * driver aligns it to 128 bytes).  The x neighbour across the pair comes
 * from the neighbouring lane.  Every update is the value function of the
 * scalar march on the same inputs; a node outside its component's range
 * keeps its old value, stored back.  Threads past the row work on the
 * row's last pair and store nothing, so warps stay whole for the
 * shuffles (blocks are whole warps along x).  Measured on the H200 at
 * 400^3: single +7 % over one node a thread; double -9 %, so double keeps
 * one node a thread (HD_FDTD_PAIRS). */
#ifndef HD_FDTD_PAIRS
#if defined(HD_REAL_FLOAT)
#define HD_FDTD_PAIRS 1
#else
#define HD_FDTD_PAIRS 0 /* measured: pairs 9 % slower in double (2 blocks, 128 registers) */
#endif
#endif
#ifndef HD_FDTD_PAIR_MIN_BLOCKS
#define HD_FDTD_PAIR_MIN_BLOCKS 4 /* single: 64 registers (3: 80, 7 % slower) */
#endif
#if HD_FDTD_PAIRS
typedef struct __align__(2 * sizeof(hd_real)) hd_fdtd_v2 {
  hd_real e[2];
} hd_fdtd_v2;
typedef struct __align__(2) hd_fdtd_m2 {
  unsigned char e[2];
} hd_fdtd_m2;

static __device__ __forceinline__ hd_fdtd_v2 hd_fdtd_ld2(const hd_real *p) { return *(const hd_fdtd_v2 *)p; }
static __device__ __forceinline__ hd_fdtd_m2 hd_fdtd_ldm2(const unsigned char *p) {
  return *(const hd_fdtd_m2 *)p;
}
/* The pair's materials: the segment's shared one (u = 1 + it) or loaded. */
static __device__ __forceinline__ hd_fdtd_m2 hd_fdtd_ldm2u(const unsigned char *p, unsigned u) {
  hd_fdtd_m2 m;
  if (!u) return hd_fdtd_ldm2(p);
  m.e[0] = m.e[1] = (unsigned char)(u - 1);
  return m;
}

/* First node i of this thread's pair (the row's last pair past the row),
 * whether it owns it, row j and the march [k0, k1). */
static __device__ __forceinline__ int hd_fdtd_pair_at(const hd_fdtd_args *a, int march, const hd_range3 *r, hd_idx *i,
                                                      hd_idx *j, hd_idx *k0, hd_idx *k1) {
  const hd_idx pad = a->g.ghost, ilast = pad + 2 * (a->nc[0] / 2);
  *i = pad + 2 * ((hd_idx)blockIdx.x * blockDim.x + threadIdx.x);
  *j = r->lo[1] + (hd_idx)blockIdx.y * blockDim.y + threadIdx.y;
  *k0 = r->lo[2] + (hd_idx)blockIdx.z * march;
  *k1 = *k0 + march < r->hi[2] ? *k0 + march : r->hi[2];
  if (*i <= ilast) return 1;
  *i = ilast;
  return 0;
}

template <int UNI>
HD_KERNEL void __launch_bounds__(HD_FDTD_MAX_THREADS, HD_FDTD_PAIR_MIN_BLOCKS)
    hd_fdtd_e_march2(HD_KPARAM(hd_fdtd_args) a, int march, hd_range3 r) {
  const hd_idx pad = a.g.ghost, sy = a.g.stride[1], sz = a.g.stride[2];
  const unsigned lane = threadIdx.x & 31u;
  const hd_real *HD_RESTRICT hx = a.f[HD_FDTD_HX], *HD_RESTRICT hy = a.f[HD_FDTD_HY],
                             *HD_RESTRICT hz = a.f[HD_FDTD_HZ];
  hd_real *HD_RESTRICT ex = a.f[HD_FDTD_EX], *HD_RESTRICT ey = a.f[HD_FDTD_EY], *HD_RESTRICT ez = a.f[HD_FDTD_EZ];
  const unsigned char *HD_RESTRICT mex = a.m[HD_FDTD_EX], *HD_RESTRICT mey = a.m[HD_FDTD_EY],
                                   *HD_RESTRICT mez = a.m[HD_FDTD_EZ];
  hd_idx i, j, k0, k1, n, k;
  hd_fdtd_v2 hxb, hyb, hxc, hyc, hzc, exo, eyo, ezo;
  hd_fdtd_m2 mx, my, mz;
  int dox[2], doy[2], doz[2], q;
  const int own = hd_fdtd_pair_at(&a, march, &r, &i, &j, &k0, &k1);
  const unsigned char *HD_RESTRICT us = UNI ? a.uni[0] + (i - pad) / HD_FDTD_SEG * a.useg + j * a.urow : NULL;
  unsigned u;
  if (j >= r.hi[1]) return; /* whole warps: a warp lies in one row */
  for (q = 0; q < 2; ++q) {
    const hd_idx pi = i + q - pad, pj = j - pad;
    const int tx = hd_fdtd_tangential(&a, 0, pi), ty = hd_fdtd_tangential(&a, 1, pj);
    dox[q] = pi < a.nc[0] && ty, doy[q] = pi <= a.nc[0] && pj < a.nc[1] && tx, doz[q] = pi <= a.nc[0] && tx && ty;
  }
  n = hd_grid_at(&a.g, i, j, k0);
  hxb = hd_fdtd_ld2(hx + n - sz), hyb = hd_fdtd_ld2(hy + n - sz);
  hxc = hd_fdtd_ld2(hx + n), hyc = hd_fdtd_ld2(hy + n), hzc = hd_fdtd_ld2(hz + n);
  exo = hd_fdtd_ld2(ex + n), eyo = hd_fdtd_ld2(ey + n), ezo = hd_fdtd_ld2(ez + n);
  u = UNI ? us[k0] : 0u;
  mx = hd_fdtd_ldm2u(mex + n, u), my = hd_fdtd_ldm2u(mey + n, u), mz = hd_fdtd_ldm2u(mez + n, u);
  for (k = k0; k < k1; ++k, n += sz) {
    const hd_idx pk = k - pad, nn = k + 1 < k1 ? n + sz : n;
    const hd_fdtd_v2 hxn = hd_fdtd_ld2(hx + nn), hyn = hd_fdtd_ld2(hy + nn), hzn = hd_fdtd_ld2(hz + nn),
                     exn = hd_fdtd_ld2(ex + nn), eyn = hd_fdtd_ld2(ey + nn), ezn = hd_fdtd_ld2(ez + nn);
    const unsigned un = UNI ? us[k + 1 < k1 ? k + 1 : k] : 0u;
    const hd_fdtd_m2 mxn = hd_fdtd_ldm2u(mex + nn, un), myn = hd_fdtd_ldm2u(mey + nn, un), mzn = hd_fdtd_ldm2u(mez + nn, un);
    const int tz = hd_fdtd_tangential(&a, 2, pk);
    const hd_fdtd_v2 hzs = hd_fdtd_ld2(hz + n - sy), hxs = hd_fdtd_ld2(hx + n - sy);
    hd_real hzm = __shfl_up_sync(0xffffffffu, hzc.e[1], 1), hym = __shfl_up_sync(0xffffffffu, hyc.e[1], 1);
    hd_fdtd_v2 vx = exo, vy = eyo, vz = ezo;
    if (lane == 0) hzm = hz[n - 1], hym = hy[n - 1];
#pragma unroll
    for (q = 0; q < 2; ++q) {
      const hd_real hzw = q ? hzc.e[0] : hzm, hyw = q ? hyc.e[0] : hym;
      if (dox[q] && tz)
        vx.e[q] = hd_fdtd_e_value(exo.e[q], a.c1[mx.e[q]], a.c2[mx.e[q]], a.rn[1][j], hzc.e[q] - hzs.e[q], a.rn[2][k],
                                  hyc.e[q] - hyb.e[q]);
      if (doy[q] && tz)
        vy.e[q] = hd_fdtd_e_value(eyo.e[q], a.c1[my.e[q]], a.c2[my.e[q]], a.rn[2][k], hxc.e[q] - hxb.e[q],
                                  a.rn[0][i + q], hzc.e[q] - hzw);
      if (doz[q] && pk < a.nc[2])
        vz.e[q] = hd_fdtd_e_value(ezo.e[q], a.c1[mz.e[q]], a.c2[mz.e[q]], a.rn[0][i + q], hyc.e[q] - hyw, a.rn[1][j],
                                  hxc.e[q] - hxs.e[q]);
    }
    if (own) *(hd_fdtd_v2 *)(ex + n) = vx, *(hd_fdtd_v2 *)(ey + n) = vy, *(hd_fdtd_v2 *)(ez + n) = vz;
    hxb = hxc, hyb = hyc, hxc = hxn, hyc = hyn, hzc = hzn, exo = exn, eyo = eyn, ezo = ezn;
    mx = mxn, my = myn, mz = mzn;
  }
}

template <int UNI, int SAMPLE>
HD_KERNEL void __launch_bounds__(HD_FDTD_MAX_THREADS, HD_FDTD_PAIR_MIN_BLOCKS)
    hd_fdtd_h_march2(HD_KPARAM(hd_fdtd_args) a, int march, hd_range3 r) {
  const hd_idx pad = a.g.ghost, sy = a.g.stride[1], sz = a.g.stride[2];
  const unsigned lane = threadIdx.x & 31u;
  const hd_real *HD_RESTRICT ex = a.f[HD_FDTD_EX], *HD_RESTRICT ey = a.f[HD_FDTD_EY],
                             *HD_RESTRICT ez = a.f[HD_FDTD_EZ];
  hd_real *HD_RESTRICT hx = a.f[HD_FDTD_HX], *HD_RESTRICT hy = a.f[HD_FDTD_HY], *HD_RESTRICT hz = a.f[HD_FDTD_HZ];
  const unsigned char *HD_RESTRICT mhx = a.m[HD_FDTD_HX], *HD_RESTRICT mhy = a.m[HD_FDTD_HY],
                                   *HD_RESTRICT mhz = a.m[HD_FDTD_HZ];
  hd_idx i, j, k0, k1, n, k;
  hd_fdtd_v2 exc, eyc, exa, eya, ezc, hxo, hyo, hzo;
  hd_fdtd_m2 mx, my, mz;
  int dox[2], doy[2], doz[2], q, far;
  const int own = hd_fdtd_pair_at(&a, march, &r, &i, &j, &k0, &k1);
  const unsigned char *HD_RESTRICT us = UNI ? a.uni[1] + (i - pad) / HD_FDTD_SEG * a.useg + j * a.urow : NULL;
  unsigned u;
  if (j >= r.hi[1]) return; /* whole warps: a warp lies in one row */
  for (q = 0; q < 2; ++q) {
    const hd_idx pi = i + q - pad, pj = j - pad;
    dox[q] = pi <= a.nc[0] && pj < a.nc[1], doy[q] = pi < a.nc[0], doz[q] = pi < a.nc[0] && pj < a.nc[1];
  }
  far = i + 2 <= pad + a.nc[0]; /* the node after the pair is needed (and inside the row) */
  n = hd_grid_at(&a.g, i, j, k0);
  exc = hd_fdtd_ld2(ex + n), eyc = hd_fdtd_ld2(ey + n), ezc = hd_fdtd_ld2(ez + n);
  exa = hd_fdtd_ld2(ex + n + sz), eya = hd_fdtd_ld2(ey + n + sz);
  hxo = hd_fdtd_ld2(hx + n), hyo = hd_fdtd_ld2(hy + n), hzo = hd_fdtd_ld2(hz + n);
  u = UNI ? us[k0] : 0u;
  mx = hd_fdtd_ldm2u(mhx + n, u), my = hd_fdtd_ldm2u(mhy + n, u), mz = hd_fdtd_ldm2u(mhz + n, u);
  for (k = k0; k < k1; ++k, n += sz) {
    const hd_idx pk = k - pad, nn = k + 1 < k1 ? n + sz : n;
    const hd_fdtd_v2 exn = hd_fdtd_ld2(ex + nn + sz), eyn = hd_fdtd_ld2(ey + nn + sz), ezn = hd_fdtd_ld2(ez + nn),
                     hxn = hd_fdtd_ld2(hx + nn), hyn = hd_fdtd_ld2(hy + nn), hzn = hd_fdtd_ld2(hz + nn);
    const unsigned un = UNI ? us[k + 1 < k1 ? k + 1 : k] : 0u;
    const hd_fdtd_m2 mxn = hd_fdtd_ldm2u(mhx + nn, un), myn = hd_fdtd_ldm2u(mhy + nn, un), mzn = hd_fdtd_ldm2u(mhz + nn, un);
    const hd_fdtd_v2 ezs = hd_fdtd_ld2(ez + n + sy), exs = hd_fdtd_ld2(ex + n + sy);
    hd_real ezp = __shfl_down_sync(0xffffffffu, ezc.e[0], 1), eyp = __shfl_down_sync(0xffffffffu, eyc.e[0], 1);
    hd_fdtd_v2 vx = hxo, vy = hyo, vz = hzo;
    if (lane == 31 && far) ezp = ez[n + 2], eyp = ey[n + 2];
#pragma unroll
    for (q = 0; q < 2; ++q) {
      const hd_real ezw = q ? ezp : ezc.e[1], eyw = q ? eyp : eyc.e[1];
      if (dox[q] && pk < a.nc[2])
        vx.e[q] = hd_fdtd_h_value(hxo.e[q], a.d1[mx.e[q]], a.d2[mx.e[q]], a.rc[1][j], ezs.e[q] - ezc.e[q], a.rc[2][k],
                                  eya.e[q] - eyc.e[q]);
      if (doy[q] && pk < a.nc[2])
        vy.e[q] = hd_fdtd_h_value(hyo.e[q], a.d1[my.e[q]], a.d2[my.e[q]], a.rc[2][k], exa.e[q] - exc.e[q],
                                  a.rc[0][i + q], ezw - ezc.e[q]);
      if (doz[q])
        vz.e[q] = hd_fdtd_h_value(hzo.e[q], a.d1[mz.e[q]], a.d2[mz.e[q]], a.rc[0][i + q], eyw - eyc.e[q], a.rc[1][j],
                                  exs.e[q] - exc.e[q]);
    }
    if (own) *(hd_fdtd_v2 *)(hx + n) = vx, *(hd_fdtd_v2 *)(hy + n) = vy, *(hd_fdtd_v2 *)(hz + n) = vz;
    if (SAMPLE && own) {
#pragma unroll
      for (q = 0; q < 2; ++q)
        if (q == 0 || i + 1 - pad <= a.nc[0]) {
          hd_real *HD_RESTRICT b = a.vbuf + (n + q - a.vfirst);
          b[0] = exc.e[q], b[a.vspan] = eyc.e[q], b[2 * a.vspan] = ezc.e[q];
          b[3 * a.vspan] = vx.e[q], b[4 * a.vspan] = vy.e[q], b[5 * a.vspan] = vz.e[q];
        }
    }
    exc = exa, eyc = eya, exa = exn, eya = eyn, ezc = ezn, hxo = hxn, hyo = hyn, hzo = hzn;
    mx = mxn, my = myn, mz = mzn;
  }
}

/* The pair marches apply where node pad of every row is on a pair boundary
 * in the six fields and the six material arrays. */
HD_HOST_FN int hd_fdtd_pair_ok(const hd_fdtd_args *a) {
  const hd_idx pad = a->g.ghost;
  int c;
  if (a->g.stride[1] % 2 || a->g.stride[2] % 2) return 0;
  for (c = 0; c < 6; ++c)
    if ((uintptr_t)(a->f[c] + pad) % (2 * sizeof(hd_real)) || (uintptr_t)(a->m[c] + pad) % 2) return 0;
  return 1;
}
#endif

/* The half step over the rows (j, k) of r (padded nodes, within
 * hd_fdtd_nodes; every row whole along x).  Launch shape: ctx->block =
 * {x, y, march} overrides 32 x 4 threads, 8 nodes a thread; x * y at most
 * HD_FDTD_MAX_THREADS. */
HD_HOST_FN hd_status hd_fdtd_half_step_tuned_box(hd_ctx *ctx, const hd_fdtd_args *a, int efield, hd_range3 r) {
  const unsigned bx = ctx->block[0] > 0 ? (unsigned)ctx->block[0] : 32u;
  const unsigned by = ctx->block[1] > 0 ? (unsigned)ctx->block[1] : 4u;
  const int march = ctx->block[2] > 0 ? ctx->block[2] : 8;
  const hd_idx ny = r.hi[1] - r.lo[1], nz = r.hi[2] - r.lo[2];
  dim3 grid, block(bx, by, 1);
  if (ny <= 0 || nz <= 0) return HD_OK;
  grid.x = hd_grid_extent(a->nc[0] + 1, bx, 2147483647);
  grid.y = hd_grid_extent(ny, by, 65535);
  grid.z = hd_grid_extent(nz, (unsigned)march, 65535);
  if (bx * by > HD_FDTD_MAX_THREADS)
    return hd_fail(ctx, HD_ERR_ARG, "fdtd: block %u x %u exceeds %d threads", bx, by, HD_FDTD_MAX_THREADS);
  if ((hd_idx)grid.y * by < ny || (hd_idx)grid.z * march < nz)
    return hd_fail(ctx, HD_ERR_ARG, "fdtd: grid too large for the tuned kernels; use the generic ones");
  const int uni = a->uni[efield ? 0 : 1] != NULL, sample = !efield && a->vbuf;
#define HD_FDTD_LAUNCH(K, ...) K<__VA_ARGS__><<<grid, block, 0, hd_stream(ctx)>>>(*a, march, r)
#define HD_FDTD_LAUNCH_ALL(E, H)                                                                             \
  if (efield) {                                                                                               \
    if (uni) HD_FDTD_LAUNCH(E, 1);                                                                            \
    else HD_FDTD_LAUNCH(E, 0);                                                                                \
  } else if (sample) {                                                                                        \
    if (uni) HD_FDTD_LAUNCH(H, 1, 1);                                                                         \
    else HD_FDTD_LAUNCH(H, 0, 1);                                                                             \
  } else if (uni) HD_FDTD_LAUNCH(H, 1, 0);                                                                    \
  else HD_FDTD_LAUNCH(H, 0, 0);
#if HD_FDTD_PAIRS
  if (bx % 32u == 0 && hd_fdtd_pair_ok(a)) {
    grid.x = hd_grid_extent(a->nc[0] / 2 + 1, bx, 2147483647);
    HD_FDTD_LAUNCH_ALL(hd_fdtd_e_march2, hd_fdtd_h_march2)
    return hd_check_launch(ctx, efield ? "hd_fdtd_e_march2" : "hd_fdtd_h_march2", __FILE__, __LINE__);
  }
#endif
  HD_FDTD_LAUNCH_ALL(hd_fdtd_e_march, hd_fdtd_h_march)
#undef HD_FDTD_LAUNCH_ALL
#undef HD_FDTD_LAUNCH
  return hd_check_launch(ctx, efield ? "hd_fdtd_e_march" : "hd_fdtd_h_march", __FILE__, __LINE__);
}

/* The tuned E (efield) or H half step over every physical node. */
HD_HOST_FN hd_status hd_fdtd_half_step_tuned(hd_ctx *ctx, const hd_fdtd_args *a, int efield) {
  return hd_fdtd_half_step_tuned_box(ctx, a, efield, hd_fdtd_nodes(a));
}
#endif

#endif /* HD_FDTD_TUNED_CUDA_H */
