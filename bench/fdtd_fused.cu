/* SPDX-License-Identifier: BSD-3-Clause */
/* bench/fdtd_fused.cu - how far a fused, time-blocked Yee march can go on
 * this GPU: the bulk update alone (a PEC box with a dielectric block and a
 * conductor plate inside, a graded mesh), no other pass.  It measures the
 * ceiling the CUDA time blocks of issue 71 would have before any boundary,
 * source or sample is added, beside hd's tuned single steps on the same
 * arrays, and checks the blocked fields bit for bit against those steps.
 *
 * The march is hd/fdtd_fused_cuda.h's (hd-fdtd --time-block on CUDA), here
 * with no pass besides the bulk: its path without tests inside, with
 * tests at the faces, and over blocks of one material (the host's map).
 * Measured on an H100 (doc/performance.md, runs 352-358, the kernel then
 * in this file): bit for bit the single steps; T = 3, 32 x 32 with the
 * map 1.71x hd's tuned steps at 300^3 and 1.86x at 400^3; bound by
 * instructions (64 % of the SM's throughput, 30 % of DRAM's).
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
#include "hd/fdtd_fused_cuda.h"
#include "hd/fdtd_tuned_cuda.h"
#include "hd/memory.h"

#define FB_LEAD 31 /* node pad (1) of every row on 128 bytes, as the driver */

#define FB_CHECK(x)                                                                                                    \
  do {                                                                                                                 \
    cudaError_t e_ = (x);                                                                                              \
    if (e_ != cudaSuccess) {                                                                                           \
      fprintf(stderr, "fdtd-fused: %s: %s (line %d)\n", #x, cudaGetErrorString(e_), __LINE__);                         \
      exit(1);                                                                                                         \
    }                                                                                                                  \
  } while (0)

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
 * fused march with T levels (tiled: with the map of blocks of one
 * material). */
typedef struct fb_variant {
  const char *name;
  int T, uni, tiled;
  unsigned char *tiles; /* the map (device) or NULL */
} fb_variant;

static void fb_tiles(const fb_grid *G, fb_variant *v) {
  const int by = HD_FDTD_FUSED_BY(sizeof(hd_real));
  unsigned grid[3];
  std::vector<unsigned char> m((size_t)(6 * G->fs));
  FB_CHECK(cudaMemcpy(m.data(), G->matblock, m.size(), cudaMemcpyDeviceToHost));
  const unsigned char *mc[6];
  for (int c = 0; c < 6; ++c)
    mc[c] = m.data() + c * G->fs + FB_LEAD;
  hd_fdtd_fused_grid(&G->a, v->T, by, grid);
  std::vector<unsigned char> map((size_t)grid[0] * grid[1] * grid[2]);
  hd_fdtd_fused_tiles(&G->a, v->T, by, mc, map.data());
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
  hd_fdtd_fused_extras x;
  memset(&x, 0, sizeof x); /* the bulk alone: no Mur face, feed or probe */
  int w = 0;
  for (long s = 0; s < steps; s += v->T, w ^= 1) {
    const hd_fdtd_args a = fb_copy(G, w), b = fb_copy(G, w ^ 1);
    if (hd_fdtd_fused_launch(ctx, &a, b.f[0], G->fs, v->T, v->tiles, &x) != HD_OK) {
      fprintf(stderr, "fdtd-fused: %s\n", ctx->msg);
      exit(1);
    }
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
  fb_variant vs[] = {{"hd tuned steps, segments", 0, 1, 0, NULL}, {"hd tuned steps", 0, 0, 0, NULL},
                     {"fused T=2", 2, 0, 0, NULL},   {"fused T=2 tiles", 2, 0, 1, NULL},
                     {"fused T=3", 3, 0, 0, NULL},   {"fused T=3 tiles", 3, 0, 1, NULL}};
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
