/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/fdtd_fused_cuda.h - T steps of the Yee march in one CUDA launch
 * (time blocks), bit-identical to T single steps of hd/fdtd.h with E-side
 * Mur points, feeds and probes.
 *
 * Two copies of the fields: a launch reads one and writes the other, so no
 * tile reads what another has written.  A block of 32 x BY threads holds a
 * tile of columns with T columns of halo on each side and marches along z
 * over a segment of planes.  Level 0 loads E of plane p + 1 and H of plane
 * p (an iteration ahead); level s (1 .. T) updates E of plane p - s + 1 and
 * H of plane p - s from level s - 1: in-plane neighbours through shared
 * memory (each level's planes by parity: one barrier a level), z
 * neighbours in registers.  Ghost planes and columns pass through every
 * level unchanged; the halo's columns go wrong by one more column a level
 * and are never stored.  Each copy's six fields (and materials) lie in
 * one allocation, field c at c fs, so that every load is one base and a
 * 32-bit offset.  A block whose columns and planes are all of one material
 * (the host's map, hd_fdtd_fused_tiles) reads no material bytes.
 *
 * The points of the passes are taken inside the levels, in every tile
 * whose columns hold them (halos too), with the values the single steps
 * would read:
 *  - Mur on E (hd_fdtd_mur_value): on an x or y face from the value one
 *    node in, after a second barrier (its new value) and from the level
 *    before (shared memory; level 0: the source copy); on the low z face
 *    when the plane above is updated, on the high z face from the plane
 *    below kept a level (shared memory).  Each point's e[m1] for the next
 *    single step is kept after the launch (hd_fdtd_mur_keep_loop).
 *  - feeds (hd_fdtd_feed_value) after Mur, from H of the level before;
 *  - probes after the H update of their plane.
 * Blocks with no face, feed or probe take a path without these tests.
 * Measured (doc/performance.md): the bulk alone 1.71x / 1.86x hd's tuned
 * single steps at 300^3 / 400^3 on an H100 (bench/fdtd_fused.cu). */
#ifndef HD_FDTD_FUSED_CUDA_H
#define HD_FDTD_FUSED_CUDA_H

#include "fdtd.h"

#define HD_FDTD_FUSED_BX 32  /* threads of a tile's row */
#define HD_FDTD_FUSED_SEG 32 /* planes a block marches */
#define HD_FDTD_FUSED_MAX_T 3
/* rows of a tile: shared memory holds 14 T values a thread */
#define HD_FDTD_FUSED_BY(real_size) ((real_size) == 4 ? 32 : 16)

/* What the march takes besides the bulk. */
typedef struct hd_fdtd_fused_extras {
  int mur[6];                /* face 2 axis + side: Mur points on E */
  const hd_real *mur_g;      /* 6 x 256: the points' g by face and material */
  const hd_fdtd_feed *feed;
  int nfeed, nprobe;
  hd_fdtd_wave wave;
  hd_real *vi;               /* step q of the launch: feed p's V, I at vi + q vi_stride + 2 p */
  hd_idx vi_stride;
  const hd_fdtd_probe *probe;
  hd_real *prec;             /* step q: probe p's value at prec + q prec_stride + p (NULL: none) */
  hd_idx prec_stride;
  const unsigned char *flag; /* per block: 1 where a feed or probe lies in its columns */
  long step0;                /* the launch's first step (its E at (step0 + 1) dt) */
  double dt;
} hd_fdtd_fused_extras;

/* The launch's grid for an nc[0] x nc[1] x nc[2] mesh. */
HD_HOST_FN void hd_fdtd_fused_grid(const hd_fdtd_args *a, int T, int by, unsigned out[3]) {
  out[0] = (unsigned)((a->nc[0] + 1 + HD_FDTD_FUSED_BX - 2 * T - 1) / (HD_FDTD_FUSED_BX - 2 * T));
  out[1] = (unsigned)((a->nc[1] + 1 + by - 2 * T - 1) / (by - 2 * T));
  out[2] = (unsigned)((a->nc[2] + 1 + HD_FDTD_FUSED_SEG - 1) / HD_FDTD_FUSED_SEG);
}

/* Block b's padded columns [i0, i1) x [j0, j1) and planes [k0, k1), halos
 * and every level's planes included. */
HD_HOST_FN void hd_fdtd_fused_reach(const hd_fdtd_args *a, int T, int by, const unsigned grid[3], hd_idx b,
                                    hd_idx lo[3], hd_idx hi[3]) {
  const hd_idx pad = a->g.ghost, sy = a->g.stride[1], sz = a->g.stride[2];
  const hd_idx bx = b % grid[0], byi = b / grid[0] % grid[1], bz = b / ((hd_idx)grid[0] * grid[1]);
  const hd_idx z0 = pad + bz * HD_FDTD_FUSED_SEG, z1 = z0 + HD_FDTD_FUSED_SEG < pad + a->nc[2] + 1 ? z0 + HD_FDTD_FUSED_SEG : pad + a->nc[2] + 1;
  lo[0] = pad - T + bx * (HD_FDTD_FUSED_BX - 2 * T), hi[0] = lo[0] + HD_FDTD_FUSED_BX;
  lo[1] = pad - T + byi * (by - 2 * T), hi[1] = lo[1] + by;
  lo[2] = z0 - 2 * T - 2, hi[2] = z1 + T + 2;
  if (lo[0] < 0) lo[0] = 0;
  if (hi[0] > sy) hi[0] = sy;
  if (lo[1] < 0) lo[1] = 0;
  if (hi[1] > sz / sy) hi[1] = sz / sy;
  if (lo[2] < 0) lo[2] = 0;
  if (hi[2] > a->g.total / sz) hi[2] = a->g.total / sz;
}

/* The map of blocks of one material (host; m: the six components'
 * material indices, padded, as a.m): 1 + the material every component has
 * at every node a block reaches, else 0. */
HD_HOST_FN void hd_fdtd_fused_tiles(const hd_fdtd_args *a, int T, int by, const unsigned char *const m[6],
                                    unsigned char *map) {
  const hd_idx sy = a->g.stride[1], sz = a->g.stride[2];
  unsigned grid[3];
  hd_idx b, lo[3], hi[3], i, j, k;
  int c;
  hd_fdtd_fused_grid(a, T, by, grid);
  for (b = 0; b < (hd_idx)grid[0] * grid[1] * grid[2]; ++b) {
    unsigned u;
    int same;
    hd_fdtd_fused_reach(a, T, by, grid, b, lo, hi);
    u = m[0][lo[0] + lo[1] * sy + lo[2] * sz], same = u < 255;
    for (c = 0; c < 6 && same; ++c)
      for (k = lo[2]; k < hi[2] && same; ++k)
        for (j = lo[1]; j < hi[1] && same; ++j)
          for (i = lo[0]; i < hi[0] && same; ++i) same = m[c][i + j * sy + k * sz] == u;
    map[b] = (unsigned char)(same ? u + 1 : 0);
  }
}

/* The blocks whose reach holds one of n padded nodes (flag[b] |= 1). */
HD_HOST_FN void hd_fdtd_fused_mark(const hd_fdtd_args *a, int T, int by, const hd_idx *node, hd_idx n,
                                   unsigned char *flag) {
  const hd_idx sy = a->g.stride[1], sz = a->g.stride[2];
  unsigned grid[3];
  hd_idx b, p, lo[3], hi[3];
  hd_fdtd_fused_grid(a, T, by, grid);
  for (b = 0; b < (hd_idx)grid[0] * grid[1] * grid[2]; ++b) {
    hd_fdtd_fused_reach(a, T, by, grid, b, lo, hi);
    for (p = 0; p < n; ++p) {
      const hd_idx i = node[p] % sy, j = node[p] % sz / sy, k = node[p] / sz;
      if (i >= lo[0] && i < hi[0] && j >= lo[1] && j < hi[1] && k >= lo[2] && k < hi[2]) flag[b] |= 1;
    }
  }
}

#if defined(HD_BACKEND_CUDA)

/* Whether component c at the node of face (axis, side) is a Mur point:
 * cells along c, nodes along the third axis where tangential E is updated,
 * not a conductor (as the driver's list). */
static __device__ __forceinline__ int hd_fdtd_fused_mur_at(const hd_fdtd_args &a, int axis, int c, const int p[3],
                                                           unsigned mat) {
  const int b = 3 - axis - c;
  return mat != HD_FDTD_PEC && p[c] >= 0 && p[c] < (int)a.nc[c] && p[b] >= (int)a.elo[b] && p[b] <= (int)a.ehi[b];
}

/* The levels of one block (FACES: test each update against its
 * component's range and take the passes' points; UNI: every node and
 * component of the block is of material u). */
template <int T, bool FACES, bool UNI>
static __device__ __forceinline__ void hd_fdtd_fused_levels(const hd_fdtd_args &a, const hd_real *__restrict__ src,
                                                            hd_real *__restrict__ dst,
                                                            const unsigned char *__restrict__ mat, unsigned fs,
                                                            const hd_real (*coef)[256], hd_real *sm, unsigned u,
                                                            const hd_fdtd_fused_extras &x, int pts) {
  const int by = (int)blockDim.y, tx = (int)threadIdx.x, ty = (int)threadIdx.y, nt = HD_FDTD_FUSED_BX * by;
  const int t = ty * HD_FDTD_FUSED_BX + tx, seg = HD_FDTD_FUSED_SEG;
  const int pad = (int)a.g.ghost, sy = (int)a.g.stride[1], sz = (int)a.g.stride[2], rows = sz / sy;
  const int planes = (int)(a.g.total / sz), nc0 = (int)a.nc[0], nc1 = (int)a.nc[1], nc2 = (int)a.nc[2];
  const int i0 = pad - T + (int)blockIdx.x * (HD_FDTD_FUSED_BX - 2 * T), j0 = pad - T + (int)blockIdx.y * (by - 2 * T);
  const int i = i0 + tx, j = j0 + ty;
  const int z0 = pad + (int)blockIdx.z * seg, ztop = pad + nc2 + 1, z1 = z0 + seg < ztop ? z0 + seg : ztop;
  const int pi = i - pad, pj = j - pad;
  const int ic = i < 0 ? 0 : i >= sy ? sy - 1 : i, jc = j < 0 ? 0 : j >= rows ? rows - 1 : j;
  const unsigned col0 = (unsigned)(ic + jc * sy);
  const int col = !FACES || (pi >= 0 && pi <= nc0 && pj >= 0 && pj <= nc1);
  const int out = col && tx >= T && tx < HD_FDTD_FUSED_BX - T && ty >= T && ty < by - T;
  const int tgx = !FACES || hd_fdtd_tangential(&a, 0, pi), tgy = !FACES || hd_fdtd_tangential(&a, 1, pj);
  const int ex_ok = !FACES || (pi < nc0 && tgy), ey_ok = !FACES || (pj < nc1 && tgx), ez_ok = !FACES || (tgx && tgy);
  const int hx_ok = !FACES || pj < nc1, hy_ok = !FACES || pi < nc0, hz_ok = !FACES || (pi < nc0 && pj < nc1);
  const int left = tx > 0 ? t - 1 : t, right = tx < HD_FDTD_FUSED_BX - 1 ? t + 1 : t;
  const int down = ty > 0 ? t - HD_FDTD_FUSED_BX : t, up = ty < by - 1 ? t + HD_FDTD_FUSED_BX : t;
  /* Mur faces: this column's x and y face (the neighbour inwards, 0: none),
   * whether any column of the block is on one (uniform) */
  const int fx = !FACES ? 0 : x.mur[0] && pi == 0 ? 1 : x.mur[1] && pi == nc0 ? -1 : 0;
  const int fy = !FACES ? 0 : x.mur[2] && pj == 0 ? 1 : x.mur[3] && pj == nc1 ? -1 : 0;
  const int murxy = FACES && ((x.mur[0] && i0 <= pad && pad < i0 + HD_FDTD_FUSED_BX) ||
                              (x.mur[1] && i0 <= pad + nc0 && pad + nc0 < i0 + HD_FDTD_FUSED_BX) ||
                              (x.mur[2] && j0 <= pad && pad < j0 + by) || (x.mur[3] && j0 <= pad + nc1 && pad + nc1 < j0 + by));
  const hd_real rni = a.rn[0][ic], rnj = a.rn[1][jc], rci = a.rc[0][ic], rcj = a.rc[1][jc];
  hd_real ec[T + 1][3], ep[T + 1][3], hc[T + 1][3], hp[T + 1][3], rnk[T + 1], rck[T + 1];
  unsigned me[T + 1], mh[T + 1];
  hd_real nxe[3], nxh[3], nrn, nrc;
  unsigned nme = 0u, nmh = 0u;
  const hd_real ue1 = coef[0][u], ue2 = coef[1][u], uh1 = coef[2][u], uh2 = coef[3][u]; /* UNI: the tile's */
  int p, s, c;
#define HD_FF_SH(s, par, c) (sm + ((s)*6 + (par)*3 + (c)) * nt)
#define HD_FF_SE(s, par, c) (sm + (6 * T + ((s)-1) * 6 + (par)*3 + (c)) * nt)
#define HD_FF_KEEP(s, c) (sm + (12 * T + ((s)-1) * 2 + (c)) * nt)
#define HD_FF_FETCH(pp)                                                                                                \
  {                                                                                                                    \
    const int qe_ = (pp) + 1 < 0 ? 0 : (pp) + 1 >= planes ? planes - 1 : (pp) + 1;                                     \
    const int qh_ = (pp) < 0 ? 0 : (pp) >= planes ? planes - 1 : (pp);                                                 \
    const unsigned ne_ = col0 + (unsigned)qe_ * (unsigned)sz, nh_ = col0 + (unsigned)qh_ * (unsigned)sz;               \
    _Pragma("unroll") for (c = 0; c < 3; ++c) nxe[c] = __ldg(src + ne_ + c * fs),                                      \
                                              nxh[c] = __ldg(src + nh_ + (3 + c) * fs);                                \
    if (!UNI) {                                                                                                        \
      nme = __ldg(mat + ne_) | (unsigned)__ldg(mat + ne_ + fs) << 8 | (unsigned)__ldg(mat + ne_ + 2 * fs) << 16;       \
      nmh = __ldg(mat + nh_ + 3 * fs) | (unsigned)__ldg(mat + nh_ + 4 * fs) << 8 |                                     \
            (unsigned)__ldg(mat + nh_ + 5 * fs) << 16;                                                                 \
    }                                                                                                                  \
    nrn = __ldg(a.rn[2] + qe_), nrc = __ldg(a.rc[2] + qh_);                                                            \
  }
#pragma unroll
  for (s = 0; s <= T; ++s) {
#pragma unroll
    for (c = 0; c < 3; ++c)
      ec[s][c] = ep[s][c] = hc[s][c] = hp[s][c] = HD_R(0);
    rnk[s] = rck[s] = HD_R(0), me[s] = mh[s] = 0u;
  }
  HD_FF_FETCH(z0 - T - 1)
#pragma unroll 1 /* unrolled by 2 (the levels' registers alternating): spills */
  for (p = z0 - T - 1; p <= z1 + T - 1; ++p) {
    const int par = p & 1;
#pragma unroll
    for (c = 0; c < 3; ++c)
      ec[0][c] = nxe[c], hc[0][c] = nxh[c];
    me[0] = nme, mh[0] = nmh, rnk[0] = nrn, rck[0] = nrc;
    HD_FF_FETCH(p + 1)
#pragma unroll
    for (c = 0; c < 3; ++c)
      HD_FF_SH(0, par, c)[t] = hc[0][c];
    __syncthreads();
#pragma unroll
    for (s = 1; s <= T; ++s) {
      const int qe = p - s + 1, qh = p - s, pke = qe - pad, pkh = qh - pad;
      const int phe = !FACES || (col && pke >= 0 && pke <= nc2), phh = !FACES || (col && pkh >= 0 && pkh <= nc2);
      const hd_real *shx = HD_FF_SH(s - 1, par, 0), *shy = HD_FF_SH(s - 1, par, 1), *shz = HD_FF_SH(s - 1, par, 2);
      const hd_real *sex = HD_FF_SE(s, par ^ 1, 0), *sey = HD_FF_SE(s, par ^ 1, 1), *sez = HD_FF_SE(s, par ^ 1, 2);
      const unsigned mx = UNI ? u : me[s] & 255u, my = UNI ? u : me[s] >> 8 & 255u, mz = UNI ? u : me[s] >> 16;
#pragma unroll
      for (c = 0; c < 3; ++c)
        ec[s][c] = ep[s - 1][c], hc[s][c] = hp[s - 1][c];
      if (phe) {
        const int tz = !FACES || hd_fdtd_tangential(&a, 2, pke);
        if (ex_ok && tz)
          ec[s][0] = hd_fdtd_e_value(ep[s - 1][0], UNI ? ue1 : coef[0][mx], UNI ? ue2 : coef[1][mx], rnj,
                                     hc[s - 1][2] - shz[down], rnk[s], hc[s - 1][1] - hp[s - 1][1]);
        if (ey_ok && tz)
          ec[s][1] = hd_fdtd_e_value(ep[s - 1][1], UNI ? ue1 : coef[0][my], UNI ? ue2 : coef[1][my], rnk[s],
                                     hc[s - 1][0] - hp[s - 1][0], rni, hc[s - 1][2] - shz[left]);
        if (ez_ok && (!FACES || pke < nc2))
          ec[s][2] = hd_fdtd_e_value(ep[s - 1][2], UNI ? ue1 : coef[0][mz], UNI ? ue2 : coef[1][mz], rni,
                                     hc[s - 1][1] - shy[left], rnj, hc[s - 1][0] - shx[down]);
      }
      if (FACES) { /* the passes' points on plane qe (the low z face's on qe - 1), in fd_step's order */
        const int pq[3] = {pi, pj, pke}, pb[3] = {pi, pj, pke - 1};
        const int zlo = x.mur[4] && pke == 1, zkeep = x.mur[5] && pke == nc2 - 1, zhi = x.mur[5] && pke == nc2;
        if (zkeep) /* the plane below the high face: its value before this level */
          HD_FF_KEEP(s, 0)[t] = ep[s - 1][0], HD_FF_KEEP(s, 1)[t] = ep[s - 1][1];
        if (zhi && col) {
          if (hd_fdtd_fused_mur_at(a, 2, 0, pq, mx))
            ec[s][0] = hd_fdtd_mur_value(HD_FF_KEEP(s, 0)[t], x.mur_g[5 * 256 + mx], ep[s][0], ec[s][0]);
          if (hd_fdtd_fused_mur_at(a, 2, 1, pq, my))
            ec[s][1] = hd_fdtd_mur_value(HD_FF_KEEP(s, 1)[t], x.mur_g[5 * 256 + my], ep[s][1], ec[s][1]);
        }
        if (murxy) { /* x and y faces: the new value one node in, after a barrier */
#pragma unroll
          for (c = 0; c < 3; ++c)
            HD_FF_SE(s, par, c)[t] = ec[s][c];
          __syncthreads();
          if (col && phe && (fx || fy)) {
            const unsigned mm[3] = {mx, my, mz};
#pragma unroll
            for (c = 0; c < 3; ++c) {
              const int axis = fx && c != 0 ? 0 : fy && c != 1 ? 1 : -1;
              if (axis < 0 || (axis == 0 && !fx) || !hd_fdtd_fused_mur_at(a, axis, c, pq, mm[c])) continue;
              {
                const int nb = axis == 0 ? t + fx : t + fy * HD_FDTD_FUSED_BX;
                const int side = axis == 0 ? fx < 0 : fy < 0;
                const hd_real old1 = s == 1 ? __ldg(src + (axis == 0 ? col0 + fx : col0 + fy * sy) + (unsigned)qe * (unsigned)sz + c * fs)
                                            : HD_FF_SE(s > 1 ? s - 1 : 1, par ^ 1, c)[nb];
                ec[s][c] = hd_fdtd_mur_value(old1, x.mur_g[(unsigned)(2 * axis + side) * 256u + mm[c]], HD_FF_SE(s, par, c)[nb],
                                             ec[s][c]);
              }
            }
          }
        }
        if (zlo) { /* the low z face (plane qe - 1) from this plane's new value */
          if (col) { /* the face's materials: plane qe - 1's, no longer in registers */
            const unsigned bmx = UNI ? u : __ldg(mat + col0 + (unsigned)(qe - 1) * (unsigned)sz);
            const unsigned bmy = UNI ? u : __ldg(mat + col0 + (unsigned)(qe - 1) * (unsigned)sz + fs);
            if (hd_fdtd_fused_mur_at(a, 2, 0, pb, bmx))
              ep[s][0] = hd_fdtd_mur_value(ep[s - 1][0], x.mur_g[4 * 256 + bmx], ec[s][0], ep[s][0]);
            if (hd_fdtd_fused_mur_at(a, 2, 1, pb, bmy))
              ep[s][1] = hd_fdtd_mur_value(ep[s - 1][1], x.mur_g[4 * 256 + bmy], ec[s][1], ep[s][1]);
          }
#pragma unroll
          for (c = 0; c < 2; ++c)
            HD_FF_SE(s, par ^ 1, c)[t] = ep[s][c];
          if (s == T && out && qe - 1 >= z0 && qe - 1 < z1) { /* the face's plane went out an iteration ago */
            const unsigned n = col0 + (unsigned)(qe - 1) * (unsigned)sz;
            dst[n] = ep[s][0], dst[n + fs] = ep[s][1];
          }
        }
        if (pts && col && phe) /* feeds: from H of the level before */
          for (int f = 0; f < x.nfeed; ++f) {
            const hd_fdtd_feed q = x.feed[f];
            if (q.i != i || q.j != j || q.k != qe) continue;
            {
              const double wd = hd_fdtd_waveform(&x.wave, (double)(x.step0 + s) * x.dt - q.delay);
              const unsigned mc = q.comp == 0 ? mx : q.comp == 1 ? my : mz;
              const hd_real c2 = UNI ? ue2 : coef[1][mc];
              hd_real volt, cur, e;
              if (q.comp == 0)
                e = hd_fdtd_feed_value(&q, ec[s][0], hc[s - 1][2] - shz[down], hc[s - 1][1] - hp[s - 1][1], rnj, rnk[s],
                                       rci, c2, wd, &volt, &cur);
              else if (q.comp == 1)
                e = hd_fdtd_feed_value(&q, ec[s][1], hc[s - 1][0] - hp[s - 1][0], hc[s - 1][2] - shz[left], rnk[s], rni,
                                       rcj, c2, wd, &volt, &cur);
              else
                e = hd_fdtd_feed_value(&q, ec[s][2], hc[s - 1][1] - shy[left], hc[s - 1][0] - shx[down], rni, rnj,
                                       __ldg(a.rc[2] + qe), c2, wd, &volt, &cur);
              ec[s][q.comp] = e;
              if (out && qe >= z0 && qe < z1 && x.vi) {
                hd_real *v = x.vi + (hd_idx)(s - 1) * x.vi_stride + 2 * f;
                v[0] = volt, v[1] = cur;
              }
            }
          }
        if (zlo) __syncthreads(); /* the low face's values before the H update reads them */
      }
      if (phh) {
        const int zk = !FACES || pkh < nc2;
        const unsigned hx = UNI ? u : mh[s] & 255u, hy = UNI ? u : mh[s] >> 8 & 255u, hz = UNI ? u : mh[s] >> 16;
        if (hx_ok && zk)
          hc[s][0] = hd_fdtd_h_value(hp[s - 1][0], UNI ? uh1 : coef[2][hx], UNI ? uh2 : coef[3][hx], rcj,
                                     sez[up] - ep[s][2], rck[s], ec[s][1] - ep[s][1]);
        if (hy_ok && zk)
          hc[s][1] = hd_fdtd_h_value(hp[s - 1][1], UNI ? uh1 : coef[2][hy], UNI ? uh2 : coef[3][hy], rck[s],
                                     ec[s][0] - ep[s][0], rci, sez[right] - ep[s][2]);
        if (hz_ok)
          hc[s][2] = hd_fdtd_h_value(hp[s - 1][2], UNI ? uh1 : coef[2][hz], UNI ? uh2 : coef[3][hz], rci,
                                     sey[right] - ep[s][1], rcj, sex[up] - ep[s][0]);
      }
      if (FACES && pts && out && phh && x.prec && qh >= z0 && qh < z1) /* probes after the step */
        for (int q = 0; q < x.nprobe; ++q) {
          const hd_fdtd_probe pr = x.probe[q];
          if ((unsigned)(pr.n % sz) != col0 || (int)(pr.n / sz) != qh) continue;
          x.prec[(hd_idx)(s - 1) * x.prec_stride + q] = pr.comp < 3 ? ep[s][pr.comp] : hc[s][pr.comp - 3];
        }
      if (s == T) {
        if (out && phe && qe >= z0 && qe < z1) {
          const unsigned n = col0 + (unsigned)qe * (unsigned)sz;
#pragma unroll
          for (c = 0; c < 3; ++c)
            dst[n + c * fs] = ec[s][c];
        }
        if (out && phh && qh >= z0 && qh < z1) {
          const unsigned n = col0 + (unsigned)qh * (unsigned)sz;
#pragma unroll
          for (c = 0; c < 3; ++c)
            dst[n + (3 + c) * fs] = hc[s][c];
        }
      }
#pragma unroll
      for (c = 0; c < 3; ++c)
        HD_FF_SE(s, par, c)[t] = ec[s][c];
      if (s < T) {
#pragma unroll
        for (c = 0; c < 3; ++c)
          HD_FF_SH(s, par, c)[t] = hc[s][c];
        __syncthreads();
      }
    }
#pragma unroll
    for (s = T; s >= 0; --s) {
#pragma unroll
      for (c = 0; c < 3; ++c)
        ep[s][c] = ec[s][c], hp[s][c] = hc[s][c];
      if (s > 0)
        me[s] = me[s - 1], mh[s] = mh[s - 1], rnk[s] = rnk[s - 1], rck[s] = rck[s - 1];
    }
  }
#undef HD_FF_FETCH
#undef HD_FF_SH
#undef HD_FF_SE
#undef HD_FF_KEEP
}

/* Whether every update of the block's tile and planes (halos included,
 * every level) is in its component's range: the path without tests. */
static __device__ __forceinline__ int hd_fdtd_fused_inside(const hd_fdtd_args &a, int T) {
  const int by = (int)blockDim.y;
  const int pi0 = -T + (int)blockIdx.x * (HD_FDTD_FUSED_BX - 2 * T), pj0 = -T + (int)blockIdx.y * (by - 2 * T);
  const int pk0 = (int)blockIdx.z * HD_FDTD_FUSED_SEG - 2 * T - 1, pk1 = (int)blockIdx.z * HD_FDTD_FUSED_SEG + HD_FDTD_FUSED_SEG + T;
  const int lo[3] = {pi0, pj0, pk0}, hi[3] = {pi0 + HD_FDTD_FUSED_BX - 1, pj0 + by - 1, pk1};
  for (int ax = 0; ax < 3; ++ax) {
    const int l = a.elo[ax] > 0 ? (int)a.elo[ax] : 0, h = (int)(a.ehi[ax] < a.nc[ax] - 1 ? a.ehi[ax] : a.nc[ax] - 1);
    if (lo[ax] < l || hi[ax] > h)
      return 0;
  }
  return 1;
}

/* One launch: T steps from a (copy read) into dst (copy written: field c
 * at dst + c fs), tiles the map of blocks of one material (NULL: none). */
template <int T, int THREADS>
__global__ void __launch_bounds__(THREADS, 1)
    hd_fdtd_fused_kernel(hd_fdtd_args a, hd_real *dst, unsigned fs, const unsigned char *__restrict__ tiles,
                         hd_fdtd_fused_extras x) {
  extern __shared__ hd_real hd_fdtd_fused_shared[];
  __shared__ hd_real coef[4][256];
  const int nt = HD_FDTD_FUSED_BX * (int)blockDim.y, t = (int)threadIdx.y * HD_FDTD_FUSED_BX + (int)threadIdx.x;
  const unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  for (int c = t; c < 256; c += nt)
    coef[0][c] = a.c1[c], coef[1][c] = a.c2[c], coef[2][c] = a.d1[c], coef[3][c] = a.d2[c];
  const unsigned u = tiles ? tiles[b] : 0u;
  const int pts = x.flag ? x.flag[b] & 1 : 0;
  __syncthreads(); /* the table */
  if (!pts && hd_fdtd_fused_inside(a, T)) {
    if (u)
      hd_fdtd_fused_levels<T, false, true>(a, a.f[0], dst, a.m[0], fs, coef, hd_fdtd_fused_shared, u - 1, x, 0);
    else
      hd_fdtd_fused_levels<T, false, false>(a, a.f[0], dst, a.m[0], fs, coef, hd_fdtd_fused_shared, 0, x, 0);
  } else if (u)
    hd_fdtd_fused_levels<T, true, true>(a, a.f[0], dst, a.m[0], fs, coef, hd_fdtd_fused_shared, u - 1, x, pts);
  else
    hd_fdtd_fused_levels<T, true, false>(a, a.f[0], dst, a.m[0], fs, coef, hd_fdtd_fused_shared, 0, x, pts);
}

/* Dynamic shared memory of a launch: the levels' H and E by parity, the
 * high z face's kept values. */
HD_HOST_FN size_t hd_fdtd_fused_smem(int T, int by) { return (size_t)(14 * T) * HD_FDTD_FUSED_BX * by * sizeof(hd_real); }

/* T (2 or 3) steps from a (its six fields at a->f[0] + c fs, materials
 * likewise) into dst, on ctx's stream. */
HD_HOST_FN hd_status hd_fdtd_fused_launch(hd_ctx *ctx, const hd_fdtd_args *a, hd_real *dst, hd_idx fs, int T,
                                          const unsigned char *tiles, const hd_fdtd_fused_extras *x) {
  const int by = HD_FDTD_FUSED_BY(sizeof(hd_real));
  const size_t smem = hd_fdtd_fused_smem(T, by);
  unsigned g[3];
  hd_fdtd_fused_grid(a, T, by, g);
  if (6 * fs >= ((hd_idx)1 << 31) || g[1] > 65535u || g[2] > 65535u)
    return hd_fail(ctx, HD_ERR_ARG, "fdtd: the fused march's 32-bit offsets do not reach this grid");
  {
    const dim3 grid(g[0], g[1], g[2]), block(HD_FDTD_FUSED_BX, (unsigned)by);
#define HD_FF_LAUNCH(TT)                                                                                               \
  HD_CUDA_TRY(ctx, cudaFuncSetAttribute(hd_fdtd_fused_kernel<TT, HD_FDTD_FUSED_BX * HD_FDTD_FUSED_BY(sizeof(hd_real))>,  \
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));                       \
  hd_fdtd_fused_kernel<TT, HD_FDTD_FUSED_BX * HD_FDTD_FUSED_BY(sizeof(hd_real))>                                        \
      <<<grid, block, smem, hd_stream(ctx)>>>(*a, dst, (unsigned)fs, tiles, *x);
    if (T == 2) {
      HD_FF_LAUNCH(2)
    } else if (T == 3) {
      HD_FF_LAUNCH(3)
    } else
      return hd_fail(ctx, HD_ERR_ARG, "fdtd: the fused march takes 2 or 3 steps a launch, not %d", T);
#undef HD_FF_LAUNCH
  }
  return hd_check_launch(ctx, "hd_fdtd_fused_kernel", __FILE__, __LINE__);
}

#endif /* HD_BACKEND_CUDA */
#endif /* HD_FDTD_FUSED_CUDA_H */
