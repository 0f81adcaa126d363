/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/nbody.h - all-pairs gravitational N-body, G = 1.
 *
 * Bodies are structure-of-arrays (x, y, z, vx, vy, vz, m; accelerations ax,
 * ay, az), which the CPU vectorises; the CUDA kernel repacks tiles into
 * (x, y, z, m) quadruples in shared memory, the CUDA Handbook's float4 layout.
 *
 * Two geometries:
 *   3-D free space, softened:  a_i = sum_j m_j d / (|d|^2 + eps^2)^(3/2),
 *                              d = x_j - x_i
 *   2-D periodic unit square (after a shared-memory N-body blog code): the same law with d taken as the
 *     minimum image, each component wrapped into [-1/2, 1/2).  This is the
 *     nearest-image approximation that code uses, not an Ewald sum.
 * With eps > 0 the self pair has d = 0 and adds nothing; with eps = 0 the
 * "guarded" variants skip pairs at zero distance.
 *
 * Integrators: kick-drift-kick leapfrog (second order, symplectic) and the
 * blog code's semi-implicit Euler (v += a dt, then x += v dt).  Diagnostics by
 * reduction, in double: kinetic and potential energy, momentum, angular
 * momentum, centre of mass. */
#ifndef HD_NBODY_H
#define HD_NBODY_H

#include <math.h>

#include "context.h"
#include "index.h"
#include "launch.h"
#include "memory.h"
#include "random.h"
#include "real.h"
#include "reduce.h"

/* ---- one pair ------------------------------------------------------------ */

/* Add body j's pull, separation d = x_j - x_i and mass mj, to (ax, ay, az).
 * eps2 is the squared softening; guard (a constant at every call) makes the
 * pair at zero distance contribute nothing when eps2 may be 0.  The sum is
 * ordered eps2 + dx^2 + dy^2 + dz^2 so that it contracts to three fused
 * multiply-adds: 12 floating-point instructions and one reciprocal square
 * root a pair, the usual 20 "flops". */
HD_FN void hd_nbody_pair(hd_real dx, hd_real dy, hd_real dz, hd_real mj, hd_real eps2,
                         int guard, hd_real *ax, hd_real *ay, hd_real *az) {
  const hd_real r2 = eps2 + dx * dx + dy * dy + dz * dz;
  const hd_real inv = guard && !(r2 > HD_R(0)) ? HD_R(0) : hd_rsqrt(r2);
  const hd_real s = mj * inv * inv * inv;
  *ax += dx * s;
  *ay += dy * s;
  *az += dz * s;
}

/* The CUDA Handbook's bodyBodyInteraction: body j at (xj, yj, zj) with mass mj on
 * body i at (xi, yi, zi), accumulated into (ax, ay, az). */
HD_FN void hd_nbody_interaction(hd_real xi, hd_real yi, hd_real zi, hd_real xj, hd_real yj,
                                hd_real zj, hd_real mj, hd_real eps2, hd_real *ax, hd_real *ay,
                                hd_real *az) {
  hd_nbody_pair(xj - xi, yj - yi, zj - zi, mj, eps2, 1, ax, ay, az);
}

/* Minimum image of a separation in a periodic box of unit length. */
HD_FN hd_real hd_nbody_min_image(hd_real d) { return d - hd_floor(d + HD_R(0.5)); }

/* Potential of body j at body i, in double (diagnostics): -m_j / |d|_eps. */
HD_FN double hd_nbody_pair_potential(double dx, double dy, double dz, double mj, double eps2) {
  return -mj / sqrt(eps2 + dx * dx + dy * dy + dz * dz);
}

/* ---- all pairs: the generic loop ----------------------------------------- */

typedef struct hd_nbody_args {
  const hd_real *x, *y, *z, *m; /* z unused when periodic */
  hd_real *ax, *ay, *az;
  hd_idx n;
  hd_real eps2;
  int periodic; /* 1: 2-D periodic unit square; 0: 3-D free space */
} hd_nbody_args;

/* Acceleration of body i from every body, j in order. */
HD_FN void hd_nbody_accel_line(const hd_nbody_args *a, hd_idx i, int periodic, int guard) {
  const hd_real xi = a->x[i], yi = a->y[i], zi = periodic ? HD_R(0) : a->z[i];
  hd_real ax = HD_R(0), ay = HD_R(0), az = HD_R(0);
  hd_idx j;
  for (j = 0; j < a->n; ++j) {
    if (periodic)
      hd_nbody_pair(hd_nbody_min_image(a->x[j] - xi), hd_nbody_min_image(a->y[j] - yi), HD_R(0),
                    a->m[j], a->eps2, guard, &ax, &ay, &az);
    else
      hd_nbody_pair(a->x[j] - xi, a->y[j] - yi, a->z[j] - zi, a->m[j], a->eps2, guard, &ax, &ay,
                    &az);
  }
  a->ax[i] = ax;
  a->ay[i] = ay;
  a->az[i] = az;
}

/* The four specialisations, chosen once per body (uniform branches). */
HD_FN void hd_nbody_accel_pt(const hd_nbody_args *a, hd_idx i) {
  const int guard = !(a->eps2 > HD_R(0));
  if (a->periodic && guard) hd_nbody_accel_line(a, i, 1, 1);
  else if (a->periodic) hd_nbody_accel_line(a, i, 1, 0);
  else if (guard) hd_nbody_accel_line(a, i, 0, 1);
  else hd_nbody_accel_line(a, i, 0, 0);
}

HD_DEFINE_FOR_1D(hd_nbody_accel_generic, hd_nbody_accel_pt, hd_nbody_args)

/* ---- potential and diagnostics (double) ---------------------------------- */

typedef struct hd_nbody_pot_args {
  const hd_real *x, *y, *z, *m;
  double *phi;
  hd_idx n;
  double eps2;
  int periodic;
} hd_nbody_pot_args;

/* phi_i = sum over j != i of -m_j / |d|_eps, in double. */
HD_FN void hd_nbody_potential_pt(const hd_nbody_pot_args *a, hd_idx i) {
  const double xi = a->x[i], yi = a->y[i], zi = a->periodic ? 0.0 : (double)a->z[i];
  double phi = 0.0;
  hd_idx j;
  for (j = 0; j < a->n; ++j) {
    double dx = a->x[j] - xi, dy = a->y[j] - yi, dz = a->periodic ? 0.0 : a->z[j] - zi;
    if (j == i) continue;
    if (a->periodic) dx -= floor(dx + 0.5), dy -= floor(dy + 0.5);
    phi += hd_nbody_pair_potential(dx, dy, dz, a->m[j], a->eps2);
  }
  a->phi[i] = phi;
}

HD_DEFINE_FOR_1D(hd_nbody_potential, hd_nbody_potential_pt, hd_nbody_pot_args)

typedef struct hd_nbody_diag {
  double mass, kinetic, potential;
  double p[3];  /* momentum */
  double l[3];  /* angular momentum about the origin */
  double mx[3]; /* mass-weighted position: centre of mass times mass */
} hd_nbody_diag;

typedef struct hd_nbody_diag_args {
  const hd_real *x, *y, *z, *vx, *vy, *vz, *m;
  const double *phi;
} hd_nbody_diag_args;

HD_FN void hd_nbody_diag_init(hd_nbody_diag *d) {
  int c;
  d->mass = d->kinetic = d->potential = 0.0;
  for (c = 0; c < 3; ++c) d->p[c] = d->l[c] = d->mx[c] = 0.0;
}

HD_FN void hd_nbody_diag_merge(hd_nbody_diag *d, const hd_nbody_diag *o) {
  int c;
  d->mass += o->mass;
  d->kinetic += o->kinetic;
  d->potential += o->potential;
  for (c = 0; c < 3; ++c) d->p[c] += o->p[c], d->l[c] += o->l[c], d->mx[c] += o->mx[c];
}

HD_FN void hd_nbody_diag_pt(const hd_nbody_diag_args *a, hd_idx i, hd_nbody_diag *d) {
  const double m = a->m[i], x = a->x[i], y = a->y[i], z = a->z[i];
  const double vx = a->vx[i], vy = a->vy[i], vz = a->vz[i];
  d->mass += m;
  d->kinetic += 0.5 * m * (vx * vx + vy * vy + vz * vz);
  d->potential += 0.5 * m * a->phi[i];
  d->p[0] += m * vx, d->p[1] += m * vy, d->p[2] += m * vz;
  d->l[0] += m * (y * vz - z * vy), d->l[1] += m * (z * vx - x * vz), d->l[2] += m * (x * vy - y * vx);
  d->mx[0] += m * x, d->mx[1] += m * y, d->mx[2] += m * z;
}

HD_DEFINE_REDUCE_1D(hd_nbody_diag_reduce, hd_nbody_diag_args, hd_nbody_diag, hd_nbody_diag_pt,
                    hd_nbody_diag_init, hd_nbody_diag_merge)

/* ---- integrators ---------------------------------------------------------- */

typedef struct hd_nbody_move_args {
  hd_real *x, *y, *z, *vx, *vy, *vz;
  const hd_real *ax, *ay, *az;
  hd_real kick, drift; /* time spans of the velocity and position updates */
  int periodic;        /* wrap positions into [0, 1) */
} hd_nbody_move_args;

/* v += a kick, then x += v drift: half a leapfrog step (kick = dt/2,
 * drift = dt) or the blog code's whole semi-implicit Euler step (both dt). */
HD_FN void hd_nbody_kick_drift_pt(const hd_nbody_move_args *a, hd_idx i) {
  const hd_real vx = a->vx[i] + a->ax[i] * a->kick, vy = a->vy[i] + a->ay[i] * a->kick,
                vz = a->vz[i] + a->az[i] * a->kick;
  hd_real x = a->x[i] + vx * a->drift, y = a->y[i] + vy * a->drift;
  a->vx[i] = vx, a->vy[i] = vy, a->vz[i] = vz;
  if (a->periodic) x -= hd_floor(x), y -= hd_floor(y);
  a->x[i] = x, a->y[i] = y;
  if (!a->periodic) a->z[i] += vz * a->drift;
}

HD_FN void hd_nbody_kick_pt(const hd_nbody_move_args *a, hd_idx i) {
  a->vx[i] += a->ax[i] * a->kick;
  a->vy[i] += a->ay[i] * a->kick;
  a->vz[i] += a->az[i] * a->kick;
}

HD_DEFINE_FOR_1D(hd_nbody_kick_drift, hd_nbody_kick_drift_pt, hd_nbody_move_args)
HD_DEFINE_FOR_1D(hd_nbody_kick, hd_nbody_kick_pt, hd_nbody_move_args)

/* ---- tuned all-pairs kernels ---------------------------------------------- */

#if defined(HD_BACKEND_CUDA)
/* CUDA: each block of HD_NBODY_THREADS threads owns HD_NBODY_PER_THREAD
 * bodies per thread (register blocking: one shared-memory body feeds that
 * many pairs) and loops over tiles of HD_NBODY_THREADS bodies staged in
 * shared memory as (x, y, z, m).  When there are too few blocks to fill the
 * device, the j range is split over blockIdx.y and the partial sums are
 * added in a fixed order by a second kernel, so results do not depend on
 * timing.  With one split, each body's sum runs over j in order, as in the
 * generic loop. */
#define HD_NBODY_HAS_TUNED 1
#ifndef HD_NBODY_THREADS
#define HD_NBODY_THREADS 256
#endif
/* Measured on an H200 (doc/performance.md): 8 bodies a thread in single
 * precision (80 registers, 3 blocks a multiprocessor; each shared-memory
 * body then feeds 8 pairs), 2 in double (more ran out of registers), tiles
 * unrolled 16; capping registers for more resident warps was slower. */
#ifndef HD_NBODY_PER_THREAD
#define HD_NBODY_PER_THREAD (sizeof(hd_real) == 4 ? 8 : 2)
#endif
#ifndef HD_NBODY_UNROLL
#define HD_NBODY_UNROLL 16
#endif
#define HD_NBODY_KERNEL HD_KERNEL

typedef struct hd_nbody_body4 {
  hd_real x, y, z, m;
} hd_nbody_body4;

static __device__ __forceinline__ void hd_nbody_tile_pairs(const hd_nbody_body4 *sh, int count,
                                                           const hd_real *xi, const hd_real *yi,
                                                           const hd_real *zi, hd_real eps2,
                                                           int periodic, int guard, hd_real *ax,
                                                           hd_real *ay, hd_real *az) {
  int k, r;
  HD_PRAGMA(unroll HD_NBODY_UNROLL)
  for (k = 0; k < count; ++k) {
    const hd_nbody_body4 b = sh[k];
#pragma unroll
    for (r = 0; r < HD_NBODY_PER_THREAD; ++r) {
      if (periodic)
        hd_nbody_pair(hd_nbody_min_image(b.x - xi[r]), hd_nbody_min_image(b.y - yi[r]), HD_R(0),
                      b.m, eps2, guard, &ax[r], &ay[r], &az[r]);
      else
        hd_nbody_pair(b.x - xi[r], b.y - yi[r], b.z - zi[r], b.m, eps2, guard, &ax[r], &ay[r],
                      &az[r]);
    }
  }
}

static __device__ __forceinline__ void hd_nbody_tiled(const hd_nbody_args *a, hd_idx lo, hd_idx hi,
                                                      hd_idx jchunk, hd_real *part, int periodic,
                                                      int guard) {
  __shared__ hd_nbody_body4 sh[HD_NBODY_THREADS];
  const int t = (int)threadIdx.x;
  const hd_idx n = a->n;
  const hd_idx ib = lo + (hd_idx)blockIdx.x * (HD_NBODY_THREADS * HD_NBODY_PER_THREAD) + t;
  const hd_idx jb = (hd_idx)blockIdx.y * jchunk;
  const hd_idx je = jb + jchunk < n ? jb + jchunk : n;
  hd_real xi[HD_NBODY_PER_THREAD], yi[HD_NBODY_PER_THREAD], zi[HD_NBODY_PER_THREAD];
  hd_real ax[HD_NBODY_PER_THREAD], ay[HD_NBODY_PER_THREAD], az[HD_NBODY_PER_THREAD];
  hd_idx j0;
  int r;
#pragma unroll
  for (r = 0; r < HD_NBODY_PER_THREAD; ++r) {
    const hd_idx i = ib + (hd_idx)r * HD_NBODY_THREADS;
    xi[r] = i < hi ? a->x[i] : HD_R(0);
    yi[r] = i < hi ? a->y[i] : HD_R(0);
    zi[r] = i < hi && !periodic ? a->z[i] : HD_R(0);
    ax[r] = ay[r] = az[r] = HD_R(0);
  }
  for (j0 = jb; j0 < je; j0 += HD_NBODY_THREADS) {
    const hd_idx j = j0 + t;
    const int count = je - j0 < HD_NBODY_THREADS ? (int)(je - j0) : HD_NBODY_THREADS;
    __syncthreads(); /* the previous tile is no longer read */
    if (j < je) {
      sh[t].x = a->x[j], sh[t].y = a->y[j], sh[t].z = periodic ? HD_R(0) : a->z[j];
      sh[t].m = a->m[j];
    }
    __syncthreads();
    if (count == HD_NBODY_THREADS)
      hd_nbody_tile_pairs(sh, HD_NBODY_THREADS, xi, yi, zi, a->eps2, periodic, guard, ax, ay, az);
    else
      hd_nbody_tile_pairs(sh, count, xi, yi, zi, a->eps2, periodic, guard, ax, ay, az);
  }
#pragma unroll
  for (r = 0; r < HD_NBODY_PER_THREAD; ++r) {
    const hd_idx i = ib + (hd_idx)r * HD_NBODY_THREADS;
    if (i >= hi) continue;
    if (part) {
      hd_real *p = part + (hd_idx)blockIdx.y * 3 * n;
      p[i] = ax[r], p[n + i] = ay[r], p[2 * n + i] = az[r];
    } else {
      a->ax[i] = ax[r], a->ay[i] = ay[r], a->az[i] = az[r];
    }
  }
}

HD_NBODY_KERNEL void hd_nbody_tiled_free(HD_KPARAM(hd_nbody_args) a, hd_idx lo, hd_idx hi, hd_idx jchunk,
                                         hd_real *part) {
  hd_nbody_tiled(&a, lo, hi, jchunk, part, 0, 0);
}
HD_NBODY_KERNEL void hd_nbody_tiled_free_guard(HD_KPARAM(hd_nbody_args) a, hd_idx lo, hd_idx hi, hd_idx jchunk,
                                               hd_real *part) {
  hd_nbody_tiled(&a, lo, hi, jchunk, part, 0, 1);
}
HD_NBODY_KERNEL void hd_nbody_tiled_periodic(HD_KPARAM(hd_nbody_args) a, hd_idx lo, hd_idx hi, hd_idx jchunk,
                                             hd_real *part) {
  hd_nbody_tiled(&a, lo, hi, jchunk, part, 1, 0);
}
HD_NBODY_KERNEL void hd_nbody_tiled_periodic_guard(HD_KPARAM(hd_nbody_args) a, hd_idx lo, hd_idx hi,
                                                   hd_idx jchunk, hd_real *part) {
  hd_nbody_tiled(&a, lo, hi, jchunk, part, 1, 1);
}

typedef struct hd_nbody_combine_args {
  const hd_real *part;
  hd_real *ax, *ay, *az;
  hd_idx n;
  int splits;
} hd_nbody_combine_args;

/* Partial sums of the split j ranges, added in split order. */
HD_FN void hd_nbody_combine_pt(const hd_nbody_combine_args *a, hd_idx i) {
  hd_real sx = HD_R(0), sy = HD_R(0), sz = HD_R(0);
  int s;
  for (s = 0; s < a->splits; ++s) {
    const hd_real *p = a->part + (hd_idx)s * 3 * a->n;
    sx += p[i], sy += p[a->n + i], sz += p[2 * a->n + i];
  }
  a->ax[i] = sx, a->ay[i] = sy, a->az[i] = sz;
}
HD_DEFINE_FOR_1D(hd_nbody_combine, hd_nbody_combine_pt, hd_nbody_combine_args)

/* Scratch for the partial sums of split j ranges stays below this. */
#ifndef HD_NBODY_SCRATCH_MAX
#define HD_NBODY_SCRATCH_MAX ((size_t)256 << 20)
#endif

/* Accelerations of bodies [lo, hi) from all n bodies (a distributed run
 * computes its block).  Splits of the j range: enough blocks for about
 * sixteen waves at the kernel's occupancy, so that the last, partial wave
 * costs little (few resident blocks make the tail expensive: +5 % measured
 * over four waves), j chunks of whole tiles.  ctx->block[0] > 0 forces that
 * many splits (1: each body's sum in j order, whatever the range). */
HD_HOST_FN hd_status hd_nbody_accel_tuned_range(hd_ctx *ctx, const hd_nbody_args *a, hd_idx lo, hd_idx hi) {
  typedef void (*tiled_fn)(hd_nbody_args, hd_idx, hd_idx, hd_idx, hd_real *);
  const hd_idx per_block = HD_NBODY_THREADS * HD_NBODY_PER_THREAD;
  const hd_idx iblocks = (hi - lo + per_block - 1) / per_block;
  const int guard = !(a->eps2 > HD_R(0));
  const tiled_fn kernel = a->periodic ? (guard ? hd_nbody_tiled_periodic_guard : hd_nbody_tiled_periodic)
                                      : (guard ? hd_nbody_tiled_free_guard : hd_nbody_tiled_free);
  hd_idx splits, jchunk, tiles, cap;
  hd_real *part = NULL;
  int resident = 1;
  hd_status s;
  if (lo < 0 || hi > a->n || lo > hi)
    return hd_fail(ctx, HD_ERR_ARG, "nbody: bodies [%ld, %ld) are not within [0, %ld)", (long)lo, (long)hi,
                   (long)a->n);
  if (hi == lo) return HD_OK;
  HD_CUDA_TRY(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, HD_NBODY_THREADS, 0));
  {
    const hd_idx want = 16 * (hd_idx)(resident > 0 ? resident : 1) * (ctx->sm_count > 0 ? ctx->sm_count : 132);
    splits = ctx->block[0] > 0 ? ctx->block[0] : (want + iblocks - 1) / iblocks;
  }
  tiles = (a->n + HD_NBODY_THREADS - 1) / HD_NBODY_THREADS;
  cap = (hd_idx)(HD_NBODY_SCRATCH_MAX / (3 * (size_t)a->n * sizeof(hd_real)));
  if (ctx->block[0] <= 0 && splits > cap) splits = cap;
  if (splits > tiles) splits = tiles;
  if (splits > 65535) splits = 65535;
  if (splits < 1) splits = 1;
  jchunk = (tiles + splits - 1) / splits * HD_NBODY_THREADS;
  splits = (a->n + jchunk - 1) / jchunk;
  if (splits > 1) {
    void *p;
    s = hd_ctx_scratch(ctx, (size_t)splits * 3 * (size_t)a->n * sizeof(hd_real), &p);
    if (s != HD_OK) return s;
    part = (hd_real *)p;
  }
  kernel<<<dim3((unsigned)iblocks, (unsigned)splits, 1), HD_NBODY_THREADS, 0, hd_stream(ctx)>>>(*a, lo, hi, jchunk,
                                                                                             part);
  s = hd_check_launch(ctx, "hd_nbody_tiled", __FILE__, __LINE__);
  if (s == HD_OK && part) {
    hd_nbody_combine_args c;
    c.part = part, c.ax = a->ax, c.ay = a->ay, c.az = a->az, c.n = a->n, c.splits = (int)splits;
    s = hd_nbody_combine(ctx, &c, lo, hi);
  }
  return s;
}

HD_HOST_FN hd_status hd_nbody_accel_tuned(hd_ctx *ctx, const hd_nbody_args *a) {
  return hd_nbody_accel_tuned_range(ctx, a, 0, a->n);
}

#else /* CPU backends */

/* CPU: vectorised across bodies i.  A block of HD_NBODY_CPU_BLOCK bodies
 * keeps its positions and accelerations in vector registers while every
 * body j is broadcast to it: one load feeds a whole vector of pairs, no
 * horizontal sums, and each body's sum still runs over j in order, as in the
 * generic loop.  OpenMP threads take blocks.  On x86-64 the block routine is
 * compiled for AVX-512 and AVX2 too and picked at run time. */
#define HD_NBODY_HAS_TUNED 1
#define HD_NBODY_CPU_BLOCK (256 / (int)sizeof(hd_real))

/* The block, with periodic and guard as constants of each caller. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline void hd_nbody_cpu_block(const hd_nbody_args *a, hd_idx i0, hd_idx hi, int periodic, int guard) {
  hd_real xi[HD_NBODY_CPU_BLOCK], yi[HD_NBODY_CPU_BLOCK], zi[HD_NBODY_CPU_BLOCK];
  hd_real ax[HD_NBODY_CPU_BLOCK], ay[HD_NBODY_CPU_BLOCK], az[HD_NBODY_CPU_BLOCK];
  const hd_real *HD_RESTRICT x = a->x, *HD_RESTRICT y = a->y, *HD_RESTRICT z = a->z,
                             *HD_RESTRICT m = a->m;
  const hd_real eps2 = a->eps2;
  const hd_idx n = a->n, ni = hi - i0 < HD_NBODY_CPU_BLOCK ? hi - i0 : HD_NBODY_CPU_BLOCK;
  hd_idx j;
  int r;
  for (r = 0; r < HD_NBODY_CPU_BLOCK; ++r) { /* padding lanes: far away, never stored */
    xi[r] = r < ni ? x[i0 + r] : HD_R(0);
    yi[r] = r < ni ? y[i0 + r] : HD_R(0);
    zi[r] = r < ni && !periodic ? z[i0 + r] : HD_R(0);
    ax[r] = ay[r] = az[r] = HD_R(0);
  }
  for (j = 0; j < n; ++j) {
    const hd_real xj = x[j], yj = y[j], zj = periodic ? HD_R(0) : z[j], mj = m[j];
    HD_OMP_SIMD
    for (r = 0; r < HD_NBODY_CPU_BLOCK; ++r) {
      if (periodic)
        hd_nbody_pair(hd_nbody_min_image(xj - xi[r]), hd_nbody_min_image(yj - yi[r]), HD_R(0), mj,
                      eps2, guard, &ax[r], &ay[r], &az[r]);
      else
        hd_nbody_pair(xj - xi[r], yj - yi[r], zj - zi[r], mj, eps2, guard, &ax[r], &ay[r], &az[r]);
    }
  }
  for (r = 0; r < ni; ++r) a->ax[i0 + r] = ax[r], a->ay[i0 + r] = ay[r], a->az[i0 + r] = az[r];
}

/* One (multiversioned) entry per specialisation: inside it periodic and
 * guard are constants, so the inner loop has no branches and vectorises. */
#define HD_NBODY_CPU_ENTRY(name, periodic, guard)                                  \
  HD_CPU_CLONES static HD_UNUSED void name(const hd_nbody_args *a, hd_idx i0, hd_idx hi) { \
    hd_nbody_cpu_block(a, i0, hi, periodic, guard);                                  \
  }
HD_NBODY_CPU_ENTRY(hd_nbody_cpu_free, 0, 0)
HD_NBODY_CPU_ENTRY(hd_nbody_cpu_free_guard, 0, 1)
HD_NBODY_CPU_ENTRY(hd_nbody_cpu_periodic, 1, 0)
HD_NBODY_CPU_ENTRY(hd_nbody_cpu_periodic_guard, 1, 1)

/* Accelerations of bodies [lo, hi) from all n (a body's sum does not depend
 * on the block it lands in, so a distributed run matches one rank). */
HD_HOST_FN hd_status hd_nbody_accel_tuned_range(hd_ctx *ctx, const hd_nbody_args *a, hd_idx lo, hd_idx hi) {
  const hd_idx blocks = hi > lo ? (hi - lo + HD_NBODY_CPU_BLOCK - 1) / HD_NBODY_CPU_BLOCK : 0;
  const int guard = !(a->eps2 > HD_R(0)), periodic = a->periodic;
  hd_idx b;
  (void)ctx;
  HD_OMP_FOR(schedule(static) num_threads(hd_ctx_threads(ctx)))
  for (b = 0; b < blocks; ++b) {
    const hd_idx i0 = lo + b * HD_NBODY_CPU_BLOCK;
    if (periodic && guard) hd_nbody_cpu_periodic_guard(a, i0, hi);
    else if (periodic) hd_nbody_cpu_periodic(a, i0, hi);
    else if (guard) hd_nbody_cpu_free_guard(a, i0, hi);
    else hd_nbody_cpu_free(a, i0, hi);
  }
  return HD_OK;
}

HD_HOST_FN hd_status hd_nbody_accel_tuned(hd_ctx *ctx, const hd_nbody_args *a) {
  return hd_nbody_accel_tuned_range(ctx, a, 0, a->n);
}
#endif

/* ---- initial conditions (host, double precision) ---------------------------
 * Drawn from hd/random.h streams, so a (seed, n) pair gives the same bodies
 * on every machine and backend.  Arrays have n entries; z may be NULL for
 * the 2-D square. */

/* Uniform in the unit square [0,1)^2 (2-D) or the cube [-1/2,1/2)^3, at rest,
 * equal masses summing to 1. */
HD_HOST_FN void hd_nbody_ic_uniform(hd_idx n, int dim, uint64_t seed, double *x, double *y,
                                    double *z, double *vx, double *vy, double *vz, double *m) {
  hd_idx i;
  for (i = 0; i < n; ++i) {
    const double off = dim == 2 ? 0.0 : 0.5;
    x[i] = hd_rand_unit(seed, 0, (uint64_t)i) - off;
    y[i] = hd_rand_unit(seed, 1, (uint64_t)i) - off;
    if (z) z[i] = dim == 2 ? 0.0 : hd_rand_unit(seed, 2, (uint64_t)i) - off;
    vx[i] = vy[i] = vz[i] = 0.0;
    m[i] = 1.0 / (double)n;
  }
}

/* Remove the centre-of-mass position and velocity. */
HD_HOST_FN void hd_nbody_ic_centre(hd_idx n, double *x, double *y, double *z, double *vx,
                                   double *vy, double *vz, const double *m) {
  double c[6] = {0, 0, 0, 0, 0, 0}, mt = 0.0;
  hd_idx i;
  for (i = 0; i < n; ++i) {
    c[0] += m[i] * x[i], c[1] += m[i] * y[i], c[2] += m[i] * z[i];
    c[3] += m[i] * vx[i], c[4] += m[i] * vy[i], c[5] += m[i] * vz[i];
    mt += m[i];
  }
  for (i = 0; i < n; ++i) {
    x[i] -= c[0] / mt, y[i] -= c[1] / mt, z[i] -= c[2] / mt;
    vx[i] -= c[3] / mt, vy[i] -= c[4] / mt, vz[i] -= c[5] / mt;
  }
}

/* Plummer sphere in virial equilibrium (Aarseth, Henon & Wielen 1974), in
 * Henon units: G = M = 1, total energy -1/4 (without softening), so the
 * scale radius is 3 pi / 16 and the virial ratio 2K/|W| is 1.  Radii beyond
 * 10 scale radii are redrawn (as is customary), centre of mass at rest. */
HD_HOST_FN void hd_nbody_ic_plummer(hd_idx n, uint64_t seed, double *x, double *y, double *z,
                                    double *vx, double *vy, double *vz, double *m) {
  const double pi = 3.14159265358979323846;
  const double rs = 3.0 * pi / 16.0, vs = 1.0 / sqrt(rs); /* length, velocity scales */
  hd_idx i;
  for (i = 0; i < n; ++i) {
    uint64_t k = 0;
    double r, ct, ph, q, g, ve, v;
    do {
      double u = hd_rand_unit(seed, 0, (uint64_t)i * 64 + k++);
      r = u > 0.0 ? 1.0 / sqrt(pow(u, -2.0 / 3.0) - 1.0) : 0.0;
    } while (r > 10.0 && k < 64);
    ct = 2.0 * hd_rand_unit(seed, 1, (uint64_t)i) - 1.0;
    ph = 2.0 * pi * hd_rand_unit(seed, 2, (uint64_t)i);
    x[i] = rs * r * sqrt(1.0 - ct * ct) * cos(ph);
    y[i] = rs * r * sqrt(1.0 - ct * ct) * sin(ph);
    z[i] = rs * r * ct;
    /* speed: q = v / v_escape from g(q) = q^2 (1 - q^2)^(7/2) by rejection */
    k = 0;
    do {
      q = hd_rand_unit(seed, 3, (uint64_t)i * 256 + k);
      g = 0.1 * hd_rand_unit(seed, 4, (uint64_t)i * 256 + k);
      ++k;
    } while (g > q * q * pow(1.0 - q * q, 3.5) && k < 256);
    ve = sqrt(2.0) * pow(1.0 + r * r, -0.25);
    v = q * ve * vs;
    ct = 2.0 * hd_rand_unit(seed, 5, (uint64_t)i) - 1.0;
    ph = 2.0 * pi * hd_rand_unit(seed, 6, (uint64_t)i);
    vx[i] = v * sqrt(1.0 - ct * ct) * cos(ph);
    vy[i] = v * sqrt(1.0 - ct * ct) * sin(ph);
    vz[i] = v * ct;
    m[i] = 1.0 / (double)n;
  }
  hd_nbody_ic_centre(n, x, y, z, vx, vy, vz, m);
}

/* Two bodies of masses m1, m2 on a Kepler orbit of semi-major axis 1 and
 * eccentricity e in the x-y plane, starting at apocentre, centre of mass at
 * rest at the origin.  Period 2 pi / sqrt(m1 + m2). */
HD_HOST_FN void hd_nbody_ic_kepler(double e, double m1, double m2, double *x, double *y, double *z,
                                   double *vx, double *vy, double *vz, double *m) {
  const double mt = m1 + m2, r = 1.0 + e, v = sqrt(mt * (1.0 - e) / (1.0 + e));
  x[0] = -m2 / mt * r, x[1] = m1 / mt * r;
  vy[0] = -m2 / mt * v, vy[1] = m1 / mt * v;
  y[0] = y[1] = z[0] = z[1] = vx[0] = vx[1] = vz[0] = vz[1] = 0.0;
  m[0] = m1, m[1] = m2;
}

#endif /* HD_NBODY_H */
