/* SPDX-License-Identifier: BSD-3-Clause */
/* bench/fdtd_fused.cu - how far a fused, time-blocked Yee march can go on
 * this GPU: the bulk update alone (a PEC box with a dielectric block and a
 * conductor plate inside, a graded mesh), no other pass.  It measures the
 * ceiling the CUDA time blocks of issue 71 would have before any boundary,
 * source or sample is added, beside hd's tuned single steps on the same
 * arrays, and checks the blocked fields bit for bit against those steps.
 *
 * The march: two copies of the six fields (read one, write the other, so
 * that no tile reads what another has written); a block of 32 x BY
 * threads holds a tile of columns with T columns of halo on each side and
 * marches along z over a segment of planes.  Level 0 loads E of plane
 * p + 1 and H of plane p; level s (1 .. T) updates E of plane p - s + 1
 * and H of plane p - s from level s - 1, in-plane neighbours through
 * shared memory (each level's planes by parity: one barrier a level),
 * z neighbours in registers.  Ghost planes and columns pass through
 * every level unchanged; the halo's columns go wrong by one more column a
 * level and are never stored.  The updates are hd_fdtd_e_value and
 * hd_fdtd_h_value with the tuned marches' arguments in their order.
 * A block whose columns and planes are all of one material (a map built
 * on the host, as hd's material segments) reads no material bytes and
 * takes its coefficients from registers.
 * Measured on an H100 (doc/performance.md, runs 352-358): bit for bit the
 * single steps; T = 3, 32 x 32 with the map 1.71x hd's tuned steps at
 * 300^3 (segments of 32 planes) and 1.86x at 400^3; bound by instructions
 * (64 % of the SM's throughput, 30 % of DRAM's, without the map).
 *
 *   nvcc -O3 -arch=native -std=c++17 -I include bench/fdtd_fused.cu -o fdtd-fused
 *   ./fdtd-fused [cells a side (300)] [steps (120)] [rounds (5)] [variants
 *                whose names contain this (all)]
 * Prints one line a variant: Mcells*steps/s (median of the rounds, min and
 * max), its ratio to hd's tuned steps, bytes a cell-step at the copy rate
 * the program measures, and whether its fields equal the single steps'. */
#define HD_REAL_FLOAT 1
#include <algorithm>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

#include "hd/context.h"
#include "hd/fdtd_tuned_cuda.h"
#include "hd/memory.h"

#define FB_BX 32
#define FB_LEAD 31 /* node pad (1) of every row on 128 bytes, as the driver */

#define FB_CHECK(x)                                                                                                    \
  do {                                                                                                                 \
    cudaError_t e_ = (x);                                                                                              \
    if (e_ != cudaSuccess) {                                                                                           \
      fprintf(stderr, "fdtd-fused: %s: %s (line %d)\n", #x, cudaGetErrorString(e_), __LINE__);                         \
      exit(1);                                                                                                         \
    }                                                                                                                  \
  } while (0)

/* The march's levels for one block (FACES: test each update against its
 * component's range; without, every update of the tile is inside them;
 * UNI: every node and component of the block is of material u).
 * All fields of a copy lie in one allocation, field c at c fs (materials
 * likewise), so that every load is one base and a 32-bit offset.  Level 0's
 * loads are issued an iteration ahead; level s takes the materials and z
 * widths level 0 loaded s iterations before. */
template <int T, bool FACES, bool UNI>
static __device__ __forceinline__ void fb_levels(const hd_fdtd_args &a, const hd_real *__restrict__ src,
                                                 hd_real *__restrict__ dst, const unsigned char *__restrict__ mat,
                                                 unsigned fs, int seg, const hd_real (*coef)[256], hd_real *sm,
                                                 unsigned u) {
  const int by = (int)blockDim.y, tx = (int)threadIdx.x, ty = (int)threadIdx.y, nt = FB_BX * by, t = ty * FB_BX + tx;
  const int pad = (int)a.g.ghost, sy = (int)a.g.stride[1], sz = (int)a.g.stride[2], rows = sz / sy;
  const int planes = (int)(a.g.total / sz), nc0 = (int)a.nc[0], nc1 = (int)a.nc[1], nc2 = (int)a.nc[2];
  const int i = pad - T + (int)blockIdx.x * (FB_BX - 2 * T) + tx, j = pad - T + (int)blockIdx.y * (by - 2 * T) + ty;
  const int z0 = pad + (int)blockIdx.z * seg, ztop = pad + nc2 + 1, z1 = z0 + seg < ztop ? z0 + seg : ztop;
  const int pi = i - pad, pj = j - pad;
  const int ic = i < 0 ? 0 : i >= sy ? sy - 1 : i, jc = j < 0 ? 0 : j >= rows ? rows - 1 : j;
  const unsigned col0 = (unsigned)(ic + jc * sy);
  const int col = !FACES || (pi >= 0 && pi <= nc0 && pj >= 0 && pj <= nc1);
  const int out = col && tx >= T && tx < FB_BX - T && ty >= T && ty < by - T;
  const int tgx = !FACES || hd_fdtd_tangential(&a, 0, pi), tgy = !FACES || hd_fdtd_tangential(&a, 1, pj);
  const int ex_ok = !FACES || (pi < nc0 && tgy), ey_ok = !FACES || (pj < nc1 && tgx), ez_ok = !FACES || (tgx && tgy);
  const int hx_ok = !FACES || pj < nc1, hy_ok = !FACES || pi < nc0, hz_ok = !FACES || (pi < nc0 && pj < nc1);
  const int left = tx > 0 ? t - 1 : t, right = tx < FB_BX - 1 ? t + 1 : t;
  const int down = ty > 0 ? t - FB_BX : t, up = ty < by - 1 ? t + FB_BX : t;
  const hd_real rni = a.rn[0][ic], rnj = a.rn[1][jc], rci = a.rc[0][ic], rcj = a.rc[1][jc];
  hd_real ec[T + 1][3], ep[T + 1][3], hc[T + 1][3], hp[T + 1][3], rnk[T + 1], rck[T + 1];
  unsigned me[T + 1], mh[T + 1];
  hd_real nxe[3], nxh[3], nrn, nrc;
  unsigned nme = 0u, nmh = 0u;
  const hd_real ue1 = coef[0][u], ue2 = coef[1][u], uh1 = coef[2][u], uh2 = coef[3][u]; /* UNI: the tile's */
  int p, s, c;
#define FB_SH(s, par, c) (sm + ((s)*6 + (par)*3 + (c)) * nt)
#define FB_SE(s, par, c) (sm + (6 * T + ((s)-1) * 6 + (par)*3 + (c)) * nt)
#define FB_FETCH(pp)                                                                                                   \
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
  FB_FETCH(z0 - T - 1)
#pragma unroll 1 /* unrolled by 2 (the levels' registers alternating): spills, 10-50 % slower */
  for (p = z0 - T - 1; p <= z1 + T - 1; ++p) {
    const int par = p & 1;
#pragma unroll
    for (c = 0; c < 3; ++c)
      ec[0][c] = nxe[c], hc[0][c] = nxh[c];
    me[0] = nme, mh[0] = nmh, rnk[0] = nrn, rck[0] = nrc;
    FB_FETCH(p + 1)
#pragma unroll
    for (c = 0; c < 3; ++c)
      FB_SH(0, par, c)[t] = hc[0][c];
    __syncthreads();
#pragma unroll
    for (s = 1; s <= T; ++s) {
      const int qe = p - s + 1, qh = p - s, pke = qe - pad, pkh = qh - pad;
      const int phe = !FACES || (col && pke >= 0 && pke <= nc2), phh = !FACES || (col && pkh >= 0 && pkh <= nc2);
      const hd_real *shx = FB_SH(s - 1, par, 0), *shy = FB_SH(s - 1, par, 1), *shz = FB_SH(s - 1, par, 2);
      const hd_real *sex = FB_SE(s, par ^ 1, 0), *sey = FB_SE(s, par ^ 1, 1), *sez = FB_SE(s, par ^ 1, 2);
#pragma unroll
      for (c = 0; c < 3; ++c)
        ec[s][c] = ep[s - 1][c], hc[s][c] = hp[s - 1][c];
      if (phe) {
        const int tz = !FACES || hd_fdtd_tangential(&a, 2, pke);
        const unsigned mx = me[s] & 255u, my = me[s] >> 8 & 255u, mz = me[s] >> 16;
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
      if (phh) {
        const int zk = !FACES || pkh < nc2;
        const unsigned mx = mh[s] & 255u, my = mh[s] >> 8 & 255u, mz = mh[s] >> 16;
        if (hx_ok && zk)
          hc[s][0] = hd_fdtd_h_value(hp[s - 1][0], UNI ? uh1 : coef[2][mx], UNI ? uh2 : coef[3][mx], rcj,
                                     sez[up] - ep[s][2], rck[s], ec[s][1] - ep[s][1]);
        if (hy_ok && zk)
          hc[s][1] = hd_fdtd_h_value(hp[s - 1][1], UNI ? uh1 : coef[2][my], UNI ? uh2 : coef[3][my], rck[s],
                                     ec[s][0] - ep[s][0], rci, sez[right] - ep[s][2]);
        if (hz_ok)
          hc[s][2] = hd_fdtd_h_value(hp[s - 1][2], UNI ? uh1 : coef[2][mz], UNI ? uh2 : coef[3][mz], rci,
                                     sey[right] - ep[s][1], rcj, sex[up] - ep[s][0]);
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
        FB_SE(s, par, c)[t] = ec[s][c];
      if (s < T) {
#pragma unroll
        for (c = 0; c < 3; ++c)
          FB_SH(s, par, c)[t] = hc[s][c];
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
#undef FB_FETCH
#undef FB_SH
#undef FB_SE
}

/* Whether every update of the block's tile and planes (halos included,
 * every level) is in its component's range: the path without masks. */
static __device__ __forceinline__ int fb_inside(const hd_fdtd_args &a, int T, int seg) {
  const int by = (int)blockDim.y;
  const int pi0 = -T + (int)blockIdx.x * (FB_BX - 2 * T), pj0 = -T + (int)blockIdx.y * (by - 2 * T);
  const int pk0 = (int)blockIdx.z * seg - 2 * T - 1, pk1 = (int)blockIdx.z * seg + seg + T;
  const int lo[3] = {pi0, pj0, pk0}, hi[3] = {pi0 + FB_BX - 1, pj0 + by - 1, pk1};
  for (int ax = 0; ax < 3; ++ax) {
    const int l = a.elo[ax] > 0 ? (int)a.elo[ax] : 0, h = (int)(a.ehi[ax] < a.nc[ax] - 1 ? a.ehi[ax] : a.nc[ax] - 1);
    if (lo[ax] < l || hi[ax] > h)
      return 0;
  }
  return 1;
}

template <int T, int THREADS, int MINB>
__global__ void __launch_bounds__(THREADS, MINB)
    fb_march(hd_fdtd_args a, hd_real *dst, int seg, const unsigned char *__restrict__ tiles) {
  extern __shared__ hd_real fb_smem[];
  __shared__ hd_real coef[4][256];
  const int nt = FB_BX * (int)blockDim.y, t = (int)threadIdx.y * FB_BX + (int)threadIdx.x;
  const unsigned fs = (unsigned)(a.f[1] - a.f[0]);
  for (int c = t; c < 256; c += nt)
    coef[0][c] = a.c1[c], coef[1][c] = a.c2[c], coef[2][c] = a.d1[c], coef[3][c] = a.d2[c];
  const unsigned u = tiles ? tiles[blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)] : 0u;
  __syncthreads(); /* the table */
  if (u && fb_inside(a, T, seg))
    fb_levels<T, false, true>(a, a.f[0], dst, a.m[0], fs, seg, coef, fb_smem, u - 1);
  else if (u)
    fb_levels<T, true, true>(a, a.f[0], dst, a.m[0], fs, seg, coef, fb_smem, u - 1);
  else if (fb_inside(a, T, seg))
    fb_levels<T, false, false>(a, a.f[0], dst, a.m[0], fs, seg, coef, fb_smem, 0);
  else
    fb_levels<T, true, false>(a, a.f[0], dst, a.m[0], fs, seg, coef, fb_smem, 0);
}

typedef struct fb_grid {
  hd_fdtd_args a;                  /* copy 0 */
  hd_real *block[2], *field[2][6]; /* the two copies, field c at block + c fs */
  unsigned char *matblock, *mat[6];
  hd_idx fs;
  hd_real *coef, *mesh;
  unsigned char *uni[2];
  size_t bytes;
} fb_grid;

static void fb_build(fb_grid *G, hd_idx nc) {
  hd_fdtd_args *a = &G->a;
  const hd_idx pad = 1;
  hd_idx n, ax, p, len;
  std::vector<hd_real> mesh, coef(4 * 256, HD_R(0));
  std::vector<unsigned char> mat[6];
  int c, w;
  memset(G, 0, sizeof *G);
  if (!hd_grid_init(&a->g, 3, nc + 1, nc + 1, nc + 1, pad) || !hd_grid_align_rows(&a->g, 32))
    exit(1);
  for (ax = 0; ax < 3; ++ax)
    a->nc[ax] = nc, a->elo[ax] = 1, a->ehi[ax] = nc - 1; /* a PEC box */
  G->fs = (a->g.total + FB_LEAD + 31) / 32 * 32;         /* one allocation a copy: field c at c fs */
  G->bytes = (size_t)G->fs * sizeof(hd_real);
  if (6 * G->fs >= ((hd_idx)1 << 31)) {
    fprintf(stderr, "fdtd-fused: %ld cells a side is past 32-bit offsets\n", (long)nc);
    exit(1);
  }
  for (w = 0; w < 2; ++w)
    FB_CHECK(cudaMalloc(&G->block[w], 6 * G->bytes));
  FB_CHECK(cudaMalloc(&G->matblock, (size_t)(6 * G->fs)));
  /* fields: a deterministic pattern inside, zero ghosts (both copies equal) */
  std::vector<hd_real> init(a->g.total);
  for (c = 0; c < 6; ++c) {
    uint64_t x = 0x9E3779B97F4A7C15ull * (c + 1);
    for (n = 0; n < a->g.total; ++n)
      x = x * 6364136223846793005ull + 1442695040888963407ull, init[n] = HD_R((double)(x >> 40) / (1 << 24) - 0.5);
    for (w = 0; w < 2; ++w) {
      G->field[w][c] = G->block[w] + c * G->fs;
      FB_CHECK(cudaMemcpy(G->field[w][c] + FB_LEAD, init.data(), (size_t)a->g.total * sizeof(hd_real),
                          cudaMemcpyHostToDevice));
    }
    a->f[c] = G->field[0][c] + FB_LEAD;
  }
  /* materials: vacuum (0), a dielectric block (1), a conductor plate (2): benchmark300's shapes */
  for (c = 0; c < 6; ++c) {
    mat[c].assign((size_t)a->g.total, 0);
    for (hd_idx k = 0; k < nc + 2; ++k)
      for (hd_idx j = 0; j < nc + 2; ++j)
        for (hd_idx i = 0; i < nc + 2; ++i) {
          const double x = (double)i / nc - 0.5, y = (double)j / nc - 0.5, z = (double)k / nc - 0.5;
          unsigned char m = 0;
          if (fabs(x) < 0.4 && fabs(y) < 0.4 && z > -0.25 && z < 0.0)
            m = 1;
          if (c < 3 && fabs(x) < 0.25 && fabs(y) < 0.25 && fabs(z) < 0.5 / nc)
            m = 2;
          mat[c][(size_t)hd_grid_at(&a->g, i, j, k)] = m;
        }
    G->mat[c] = G->matblock + c * G->fs;
    FB_CHECK(cudaMemcpy(G->mat[c] + FB_LEAD, mat[c].data(), (size_t)a->g.total, cudaMemcpyHostToDevice));
    a->m[c] = G->mat[c] + FB_LEAD;
  }
  coef[0] = HD_R(1), coef[256] = HD_R(0.5), coef[1] = HD_R(0.98), coef[256 + 1] = HD_R(0.24); /* c1, c2; PEC: 0, 0 */
  coef[512] = coef[512 + 1] = coef[512 + 2] = HD_R(1), coef[768] = coef[768 + 1] = coef[768 + 2] = HD_R(0.5);
  FB_CHECK(cudaMalloc(&G->coef, coef.size() * sizeof(hd_real)));
  FB_CHECK(cudaMemcpy(G->coef, coef.data(), coef.size() * sizeof(hd_real), cudaMemcpyHostToDevice));
  a->c1 = G->coef, a->c2 = G->coef + 256, a->d1 = G->coef + 512, a->d2 = G->coef + 768;
  len = nc + 1 + 2 * pad; /* a graded mesh: widths 0.9 .. 1.1 */
  for (ax = 0; ax < 3; ++ax)
    for (w = 0; w < 2; ++w)
      for (p = 0; p < len; ++p)
        mesh.push_back(HD_R(1.0 / (1.0 + 0.1 * sin(0.05 * (double)(p + ax) + w))));
  FB_CHECK(cudaMalloc(&G->mesh, mesh.size() * sizeof(hd_real)));
  FB_CHECK(cudaMemcpy(G->mesh, mesh.data(), mesh.size() * sizeof(hd_real), cudaMemcpyHostToDevice));
  for (ax = 0; ax < 3; ++ax)
    a->rn[ax] = G->mesh + 2 * ax * len, a->rc[ax] = G->mesh + (2 * ax + 1) * len;
  for (w = 0; w < 2; ++w) { /* hd's shared-material segments (its production path) */
    const unsigned char *m3[3] = {mat[3 * w].data(), mat[3 * w + 1].data(), mat[3 * w + 2].data()};
    hd_idx nseg, useg, urow;
    hd_fdtd_uniform_shape(&a->g, &nseg, &useg, &urow);
    std::vector<unsigned char> u((size_t)(nseg * useg));
    hd_fdtd_uniform_build(&a->g, m3, u.data());
    FB_CHECK(cudaMalloc(&G->uni[w], u.size()));
    FB_CHECK(cudaMemcpy(G->uni[w], u.data(), u.size(), cudaMemcpyHostToDevice));
    a->useg = useg, a->urow = urow;
  }
}

static hd_fdtd_args fb_copy(const fb_grid *G, int w) {
  hd_fdtd_args a = G->a;
  for (int c = 0; c < 6; ++c)
    a.f[c] = G->field[w][c] + FB_LEAD;
  return a;
}

static void fb_reset(const fb_grid *G, const std::vector<std::vector<hd_real>> &init) {
  for (int w = 0; w < 2; ++w)
    for (int c = 0; c < 6; ++c)
      FB_CHECK(cudaMemcpy(G->field[w][c] + FB_LEAD, init[c].data(), init[c].size() * sizeof(hd_real),
                          cudaMemcpyHostToDevice));
}

/* A variant: hd's tuned steps (T = 0; uni: its material segments) or the
 * fused march with T levels and blocks of 32 x by. */
typedef struct fb_variant {
  const char *name;
  int T, by, seg, uni, minb, tiled;
  unsigned char *tiles; /* tiled: 1 + the material a tile's every node and component has, else 0 (device) */
} fb_variant;

/* The kernels compiled: T, rows of 32 threads, blocks a multiprocessor. */
#define FB_KERNELS(X) X(1, 16, 2) X(2, 16, 2) X(2, 32, 1) X(3, 16, 1) X(3, 32, 1) X(4, 32, 1)

static dim3 fb_grid_of(const fb_grid *G, const fb_variant *v) {
  const hd_idx nc = G->a.nc[0];
  return dim3((unsigned)((nc + 1 + FB_BX - 2 * v->T - 1) / (FB_BX - 2 * v->T)),
              (unsigned)((nc + 1 + v->by - 2 * v->T - 1) / (v->by - 2 * v->T)),
              (unsigned)((nc + 1 + v->seg - 1) / v->seg));
}

/* The variant's tile map: 1 + the material every component has at every
 * node of a block's columns and planes (halos and every level's planes
 * included), else 0. */
static void fb_tiles(const fb_grid *G, fb_variant *v) {
  const hd_fdtd_args *a = &G->a;
  const hd_idx pad = a->g.ghost, sy = a->g.stride[1], sz = a->g.stride[2], rows = sz / sy, planes = a->g.total / sz;
  const dim3 grid = fb_grid_of(G, v);
  std::vector<unsigned char> m((size_t)(6 * G->fs)), map((size_t)grid.x * grid.y * grid.z);
  FB_CHECK(cudaMemcpy(m.data(), G->matblock, m.size(), cudaMemcpyDeviceToHost));
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        const hd_idx i0 = std::max<hd_idx>(pad - v->T + bx * (FB_BX - 2 * v->T), 0), i1 = std::min(i0 + FB_BX, sy);
        const hd_idx j0 = std::max<hd_idx>(pad - v->T + by * (v->by - 2 * v->T), 0), j1 = std::min(j0 + v->by, rows);
        const hd_idx z0 = pad + (hd_idx)bz * v->seg, z1 = std::min(z0 + v->seg, pad + a->nc[2] + 1);
        const hd_idx k0 = std::max<hd_idx>(z0 - 2 * v->T - 2, 0), k1 = std::min(z1 + v->T + 2, planes);
        const unsigned u = m[(size_t)(FB_LEAD + i0 + j0 * sy + k0 * sz)];
        int same = u < 255;
        for (int c = 0; c < 6 && same; ++c)
          for (hd_idx k = k0; k < k1 && same; ++k)
            for (hd_idx j = j0; j < j1 && same; ++j)
              for (hd_idx i = i0; i < i1 && same; ++i)
                same = m[(size_t)(c * G->fs + FB_LEAD + i + j * sy + k * sz)] == u;
        map[bx + grid.x * (by + grid.y * bz)] = (unsigned char)(same ? u + 1 : 0);
      }
  FB_CHECK(cudaMalloc(&v->tiles, map.size()));
  FB_CHECK(cudaMemcpy(v->tiles, map.data(), map.size(), cudaMemcpyHostToDevice));
  size_t uniform = 0;
  for (size_t b = 0; b < map.size(); ++b)
    uniform += map[b] != 0;
  printf("# %s: %zu of %zu blocks of one material\n", v->name, uniform, map.size());
}

/* Runs `steps` steps; returns the copy holding the result. */
static int fb_run(hd_ctx *ctx, const fb_grid *G, const fb_variant *v, long steps) {
  if (v->T == 0) {
    hd_fdtd_args a = fb_copy(G, 0);
    if (v->uni)
      a.uni[0] = G->uni[0], a.uni[1] = G->uni[1];
    for (long s = 0; s < steps; ++s)
      if (hd_fdtd_half_step_tuned(ctx, &a, 1) != HD_OK || hd_fdtd_half_step_tuned(ctx, &a, 0) != HD_OK) {
        fprintf(stderr, "fdtd-fused: %s\n", ctx->msg);
        exit(1);
      }
    return 0;
  }
  const dim3 block(FB_BX, (unsigned)v->by), grid = fb_grid_of(G, v);
  const size_t smem = (size_t)(12 * v->T) * FB_BX * v->by * sizeof(hd_real);
  int w = 0;
  for (long s = 0; s < steps; s += v->T, w ^= 1) {
    const hd_fdtd_args a = fb_copy(G, w), b = fb_copy(G, w ^ 1);
    switch (v->T * 1000 + v->by * 10 + v->minb) {
#define FB_CASE(T, BY, MINB)                                                                                           \
  case T * 1000 + BY * 10 + MINB:                                                                                      \
    fb_march<T, 32 * BY, MINB><<<grid, block, smem>>>(a, b.f[0], v->seg, v->tiles);                                    \
    break;
      FB_KERNELS(FB_CASE)
#undef FB_CASE
    default:
      fprintf(stderr, "fdtd-fused: no kernel for T %d, 32 x %d, %d blocks\n", v->T, v->by, v->minb);
      exit(1);
    }
    FB_CHECK(cudaGetLastError());
  }
  return w;
}

static void fb_download(const fb_grid *G, int w, std::vector<std::vector<hd_real>> &out) {
  out.resize(6);
  for (int c = 0; c < 6; ++c) {
    out[c].resize((size_t)G->a.g.total);
    FB_CHECK(
        cudaMemcpy(out[c].data(), G->field[w][c] + FB_LEAD, out[c].size() * sizeof(hd_real), cudaMemcpyDeviceToHost));
  }
}

int main(int argc, char **argv) {
  const hd_idx nc = argc > 1 ? atol(argv[1]) : 300;
  const long steps = argc > 2 ? atol(argv[2]) : 120, check = 12;
  const int rounds = argc > 3 ? atoi(argv[3]) : 5;
  const char *only = argc > 4 ? argv[4] : "";
  fb_variant vs[] = {{"hd tuned steps, segments", 0, 0, 0, 1, 0, 0, NULL},
                     {"hd tuned steps", 0, 0, 0, 0, 0, 0, NULL},
                     {"fused T=1 32x16", 1, 16, 64, 0, 2, 0, NULL},
                     {"fused T=2 32x16", 2, 16, 64, 0, 2, 0, NULL},
                     {"fused T=2 32x16 tiles", 2, 16, 64, 0, 2, 1, NULL},
                     {"fused T=2 32x32", 2, 32, 64, 0, 1, 0, NULL},
                     {"fused T=3 32x16", 3, 16, 64, 0, 1, 0, NULL},
                     {"fused T=3 32x32", 3, 32, 64, 0, 1, 0, NULL},
                     {"fused T=3 32x32 tiles", 3, 32, 64, 0, 1, 1, NULL},
                     {"fused T=3 32x32 seg 32", 3, 32, 32, 0, 1, 0, NULL},
                     {"fused T=3 32x32 seg 32 tiles", 3, 32, 32, 0, 1, 1, NULL},
                     {"fused T=3 32x32 seg 128", 3, 32, 128, 0, 1, 0, NULL},
                     {"fused T=4 32x32", 4, 32, 64, 0, 1, 0, NULL},
                     {"fused T=4 32x32 tiles", 4, 32, 64, 0, 1, 1, NULL}};
  const int nv = (int)(sizeof vs / sizeof vs[0]);
  hd_ctx ctx;
  fb_grid G;
  std::vector<std::vector<hd_real>> init, ref, got;
  std::vector<std::vector<double>> rate(nv);
  cudaEvent_t e0, e1;
  double copy_rate;
  if (nc < 8 || steps < 12 || steps % 12 || rounds < 1) {
    fprintf(stderr, "fdtd-fused: cells >= 8, steps a positive multiple of 12, rounds >= 1\n");
    return 1;
  }
  if (hd_ctx_init(&ctx, 0) != HD_OK) {
    fprintf(stderr, "fdtd-fused: %s\n", ctx.msg);
    return 1;
  }
  fb_build(&G, nc);
  fb_download(&G, 0, init);
#define FB_ATTR(T, BY, MINB)                                                                                           \
  FB_CHECK(cudaFuncSetAttribute((const void *)fb_march<T, 32 * BY, MINB>, cudaFuncAttributeMaxDynamicSharedMemorySize, \
                                12 * T * 32 * BY * (int)sizeof(hd_real)));
  FB_KERNELS(FB_ATTR)
#undef FB_ATTR
  FB_CHECK(cudaEventCreate(&e0));
  FB_CHECK(cudaEventCreate(&e1));
  { /* the copy rate: one field to another, read + write */
    float ms;
    FB_CHECK(cudaMemcpy(G.field[1][0], G.field[0][0], G.bytes, cudaMemcpyDeviceToDevice));
    FB_CHECK(cudaEventRecord(e0));
    for (int r = 0; r < 20; ++r)
      FB_CHECK(cudaMemcpy(G.field[1][r % 6], G.field[0][r % 6], G.bytes, cudaMemcpyDeviceToDevice));
    FB_CHECK(cudaEventRecord(e1));
    FB_CHECK(cudaEventSynchronize(e1));
    FB_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    copy_rate = 20.0 * 2.0 * (double)G.bytes / (ms * 1e-3);
  }
  /* the reference: hd's tuned steps */
  fb_reset(&G, init);
  fb_download(&G, fb_run(&ctx, &G, &vs[1], check), ref);
  printf("# %s, %ld^3 cells, single, copy rate %.0f GB/s, %ld steps a timing, %d rounds interleaved\n", ctx.device_name,
         (long)nc, copy_rate / 1e9, steps, rounds);
  std::vector<int> same(nv), run(nv);
  for (int v = 0; v < nv; ++v)
    run[v] = v == 0 || strstr(vs[v].name, only) != NULL;
  for (int v = 0; v < nv; ++v)
    if (run[v] && vs[v].tiled)
      fb_tiles(&G, &vs[v]);
  for (int v = 0; v < nv; ++v) {
    if (!run[v])
      continue;
    size_t diff = 0;
    fb_reset(&G, init);
    fb_download(&G, fb_run(&ctx, &G, &vs[v], check), got);
    for (int c = 0; c < 6; ++c)
      for (size_t n = 0; n < got[c].size(); ++n)
        diff += memcmp(&got[c][n], &ref[c][n], sizeof(hd_real)) != 0;
    same[v] = diff == 0;
    if (diff)
      printf("# %s: %zu values differ from the single steps after %ld steps\n", vs[v].name, diff, check);
  }
  for (int r = 0; r < rounds; ++r)
    for (int v = 0; v < nv; ++v) {
      float ms;
      if (!run[v])
        continue;
      fb_reset(&G, init);
      fb_run(&ctx, &G, &vs[v], 12); /* warm */
      FB_CHECK(cudaEventRecord(e0));
      fb_run(&ctx, &G, &vs[v], steps);
      FB_CHECK(cudaEventRecord(e1));
      FB_CHECK(cudaEventSynchronize(e1));
      FB_CHECK(cudaEventElapsedTime(&ms, e0, e1));
      rate[v].push_back((double)nc * nc * nc * steps / (ms * 1e-3));
    }
  printf("%-26s %12s %12s %12s %8s %14s %s\n", "variant", "Mcells*st/s", "min", "max", "x hd", "B/cell-step",
         "bitwise");
  std::vector<double> med(nv);
  for (int v = 0; v < nv; ++v) {
    if (!run[v])
      continue;
    std::sort(rate[v].begin(), rate[v].end());
    med[v] = rate[v][rate[v].size() / 2];
  }
  for (int v = 0; v < nv; ++v)
    if (run[v])
      printf("%-26s %12.0f %12.0f %12.0f %8.2f %14.1f %s\n", vs[v].name, med[v] / 1e6, rate[v].front() / 1e6,
             rate[v].back() / 1e6, med[v] / med[0], copy_rate / med[v], same[v] ? "yes" : "NO");
  return 0;
}
