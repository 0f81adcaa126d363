/* SPDX-License-Identifier: BSD-3-Clause */
/* Core machinery on every backend of this build: the loop launcher covers
 * exactly its range, reductions agree with a long-double reference within
 * the association bound, serial and OpenMP reductions are bit-identical at
 * any thread count, non-finite values are found, errors come back as
 * statuses with messages. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels.h"
#include "tap.h"
#include "xsum.h"

static uint64_t rng = 88172645463325252ULL;
static double uniform(void) { /* xorshift64: fixed sequence on every machine */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

typedef struct backend {
  const hd_core_ops *core;
  const testk_ops *k;
  hd_ctx ctx;
} backend;

/* Poison a padded buffer, run a loop over r, and check every element: c + 1
 * inside the range, the poison outside. */
static void check_cover(backend *b, int dims, const hd_idx pad[3], hd_range3 r, const char *what) {
  const hd_idx total = pad[0] * pad[1] * pad[2];
  double *host = (double *)malloc((size_t)total * sizeof(double));
  void *dev = NULL;
  hd_idx i, j, k, bad = 0, first = -1;
  hd_status s;
  if (!host) bail("out of memory");
  for (i = 0; i < total; ++i) host[i] = -1.0;
  s = b->core->alloc(&b->ctx, &dev, (size_t)total * sizeof(double));
  if (s == HD_OK) s = b->core->upload(&b->ctx, dev, host, (size_t)total * sizeof(double));
  if (s == HD_OK) {
    if (dims == 3) s = b->k->mark3(&b->ctx, (double *)dev, pad[0], pad[0] * pad[1], r);
    else if (dims == 2) s = b->k->mark2(&b->ctx, (double *)dev, pad[0], r);
    else if (dims == 1) s = b->k->mark1(&b->ctx, (double *)dev, r.lo[0], r.hi[0]);
    else s = b->k->mark_rows(&b->ctx, (double *)dev, pad[0], (int)pad[1]); /* rows: the whole of pad */
  }
  if (s == HD_OK) s = b->core->download(&b->ctx, host, dev, (size_t)total * sizeof(double));
  if (s == HD_OK)
    for (k = 0; k < pad[2]; ++k)
      for (j = 0; j < pad[1]; ++j)
        for (i = 0; i < pad[0]; ++i) {
          hd_idx c = i + pad[0] * (j + pad[1] * k);
          int inside = dims == 0 ? 1 : dims == 1 ? c >= r.lo[0] && c < r.hi[0] /* 1-D: flat offsets */
                                 : i >= r.lo[0] && i < r.hi[0] && j >= r.lo[1] && j < r.hi[1] &&
                                       (dims < 3 || (k >= r.lo[2] && k < r.hi[2]));
          if (host[c] != (inside ? (double)(c + 1) : -1.0)) {
            if (first < 0) first = c;
            ++bad;
          }
        }
  ok(s == HD_OK && bad == 0, "%s: %s loop covers exactly %s (%lld wrong, first at %lld) %s",
     b->core->name, dims == 0 ? "rows" : dims == 1 ? "1-D" : dims == 2 ? "2-D" : "3-D", what, (long long)bad, (long long)first, s == HD_OK ? "" : b->ctx.msg);
  b->core->free(&b->ctx, dev);
  free(host);
}

static void test_cover(backend *b) {
  hd_idx pad[3];
  pad[0] = 13, pad[1] = 7, pad[2] = 5;
  check_cover(b, 3, pad, hd_range3_make(2, 11, 1, 6, 1, 4), "an interior box");
  check_cover(b, 3, pad, hd_range3_make(0, 13, 0, 7, 0, 5), "the whole box");
  check_cover(b, 3, pad, hd_range3_make(4, 4, 0, 7, 0, 5), "an empty range");
  pad[2] = 1;
  check_cover(b, 2, pad, hd_range3_make(1, 12, 1, 6, 0, 1), "a 2-D interior");
  check_cover(b, 1, pad, hd_range3_make(3, 80, 0, 1, 0, 1), "a 1-D range");
  /* more rows than a CUDA grid has blocks in y: the grid-stride loop wraps */
  b->ctx.block[0] = 1, b->ctx.block[1] = 1, b->ctx.block[2] = 1;
  pad[0] = 2, pad[1] = 70001, pad[2] = 1;
  check_cover(b, 2, pad, hd_range3_make(1, 2, 0, 70001, 0, 1), "70001 rows with 1-thread blocks");
  pad[0] = 3, pad[1] = 2, pad[2] = 66000;
  check_cover(b, 3, pad, hd_range3_make(0, 3, 1, 2, 0, 66000), "66000 planes with 1-thread blocks");
  b->ctx.block[0] = b->ctx.block[1] = b->ctx.block[2] = 0;
  pad[0] = 80, pad[1] = 6, pad[2] = 1;
  check_cover(b, 0, pad, hd_range3_make(0, 80, 0, 6, 0, 1), "6 rows of 80");
  pad[0] = 3, pad[1] = 70000; /* more rows than a CUDA grid has blocks in y */
  check_cover(b, 0, pad, hd_range3_make(0, 3, 0, 70000, 0, 1), "70000 rows of 3");
}

/* Stats of random data on a padded grid; the sum must be within the
 * worst-case association bound of a long-double reference. */
static int run_stats(backend *b, const hd_grid *g, double *host, hd_stats *out) {
  void *dev = NULL;
  size_t bytes = (size_t)g->total * sizeof(double);
  hd_status s = b->core->alloc(&b->ctx, &dev, bytes);
  if (s == HD_OK) s = b->core->upload(&b->ctx, dev, host, bytes);
  if (s == HD_OK) s = b->k->stats(&b->ctx, (const double *)dev, g, hd_grid_interior(g), out);
  b->core->free(&b->ctx, dev);
  if (s != HD_OK) diag("%s: %s", b->core->name, b->ctx.msg);
  return s == HD_OK;
}

static void test_stats(backend *be, int nb) {
  static const hd_idx sizes[][4] = {{1, 5, 1, 1},   {1, 1000003, 1, 1}, {2, 37, 23, 1},
                                    {2, 512, 300, 1}, {3, 17, 9, 11},    {3, 64, 48, 40}};
  size_t c;
  for (c = 0; c < sizeof sizes / sizeof sizes[0]; ++c) {
    hd_grid g;
    double *host;
    long double ref = 0.0L, absum = 0.0L;
    double mn = DBL_MAX, mx = -DBL_MAX, bound;
    hd_range3 r;
    hd_idx i, j, k, n;
    int b;
    hd_stats base;
    hd_stats_init(&base);
    if (!hd_grid_init(&g, (int)sizes[c][0], sizes[c][1], sizes[c][2], sizes[c][3], 1)) bail("grid");
    host = (double *)malloc((size_t)g.total * sizeof(double));
    if (!host) bail("out of memory");
    for (i = 0; i < g.total; ++i) host[i] = 1e30; /* ghosts: must not be counted */
    r = hd_grid_interior(&g);
    n = hd_range3_count(&r);
    for (k = r.lo[2]; k < r.hi[2]; ++k)
      for (j = r.lo[1]; j < r.hi[1]; ++j)
        for (i = r.lo[0]; i < r.hi[0]; ++i) {
          double v = (uniform() - 0.3) * 1e3;
          host[hd_grid_at(&g, i, j, k)] = v;
          ref += v;
          absum += fabs(v);
          if (v < mn) mn = v;
          if (v > mx) mx = v;
        }
    bound = (double)n * DBL_EPSILON * (double)absum;
    for (b = 0; b < nb; ++b) {
      hd_stats s;
      if (!run_stats(&be[b], &g, host, &s)) {
        ok(0, "%s: stats on %lld cells", be[b].core->name, (long long)n);
        continue;
      }
      ok(s.count == n && s.nonfinite == 0 && s.min == mn && s.max == mx &&
             fabs(s.sum - (double)ref) <= bound,
         "%s: %d-D stats of %lld cells: count, min, max exact, sum within %.2g of long double "
         "(off by %.2g)",
         be[b].core->name, g.dim, (long long)n, bound, fabs(s.sum - (double)ref));
      if (be[b].core->id == HD_B_CUDA) {
        hd_stats again;
        ok(run_stats(&be[b], &g, host, &again) && memcmp(&s.sum, &again.sum, sizeof s.sum) == 0,
           "cuda: stats repeat bit for bit");
      }
      if (b == 0) base = s;
    }
    for (b = 0; b < nb; ++b) {
      int t, same = 1;
      if (be[b].core->id != HD_B_OPENMP) continue;
      for (t = 1; t <= 4; ++t) {
        hd_stats s;
        be[b].ctx.threads = t;
        same = same && run_stats(&be[b], &g, host, &s) &&
               memcmp(&s.sum, &base.sum, sizeof s.sum) == 0 && s.min == base.min &&
               s.max == base.max && s.count == base.count;
      }
      be[b].ctx.threads = 0;
      ok(same, "openmp: stats of %lld cells bit-identical to serial at 1, 2, 3, 4 threads",
         (long long)n);
    }
    free(host);
  }
}

static void test_nonfinite(backend *be, int nb) {
  hd_grid g;
  double *host;
  hd_idx i, nan_at, inf_at;
  int b;
  if (!hd_grid_init(&g, 2, 100, 80, 1, 1)) bail("grid");
  host = (double *)malloc((size_t)g.total * sizeof(double));
  if (!host) bail("out of memory");
  for (i = 0; i < g.total; ++i) host[i] = 1.0;
  nan_at = hd_grid_at(&g, 40, 33, 0);
  inf_at = hd_grid_at(&g, 7, 70, 0);
  host[nan_at] = NAN;
  host[inf_at] = -INFINITY;
  for (b = 0; b < nb; ++b) {
    hd_stats s;
    ok(run_stats(&be[b], &g, host, &s) && s.nonfinite == 2 && s.first_bad == nan_at &&
           s.count == 100 * 80 - 2 && s.sum == 100.0 * 80.0 - 2.0 && s.max == 1.0,
       "%s: NaN and -Inf counted, first at %lld, excluded from sum/min/max", be[b].core->name,
       (long long)nan_at);
  }
  free(host);
}

/* Strided copies (halo planes): a 3 x 4 block from a host array of pitch
 * 4 into rows 1..3, columns 2..5 of a zeroed 5 x 8 device array, back out
 * into page-locked host memory with a pitch of 6, and within the device
 * into a packed 3 x 4 array; nothing else may change. */
static void test_copy_2d(backend *b) {
  double host[12], dev_image[40], packed[12], *back = NULL;
  void *dev = NULL, *dev2 = NULL;
  int k, bad = 0;
  hd_status s;
  for (k = 0; k < 12; ++k) host[k] = k + 1;
  for (k = 0; k < 40; ++k) dev_image[k] = 0.0;
  s = b->core->pinned_alloc(&b->ctx, (void **)&back, 18 * sizeof(double));
  for (k = 0; s == HD_OK && k < 18; ++k) back[k] = -1.0;
  if (s == HD_OK) s = b->core->alloc(&b->ctx, &dev, sizeof dev_image);
  if (s == HD_OK) s = b->core->alloc(&b->ctx, &dev2, sizeof packed);
  if (s == HD_OK) s = b->core->upload(&b->ctx, dev, dev_image, sizeof dev_image);
  if (s == HD_OK)
    s = b->core->copy_2d(&b->ctx, (double *)dev + 8 + 2, 8 * sizeof(double), host, 4 * sizeof(double),
                         4 * sizeof(double), 3, HD_COPY_TO_DEVICE);
  if (s == HD_OK) s = b->core->download(&b->ctx, dev_image, dev, sizeof dev_image);
  if (s == HD_OK)
    s = b->core->copy_2d(&b->ctx, back, 6 * sizeof(double), (double *)dev + 8 + 2, 8 * sizeof(double),
                         4 * sizeof(double), 3, HD_COPY_TO_HOST);
  if (s == HD_OK)
    s = b->core->copy_2d(&b->ctx, dev2, 4 * sizeof(double), (double *)dev + 8 + 2, 8 * sizeof(double),
                         4 * sizeof(double), 3, HD_COPY_ON_DEVICE);
  if (s == HD_OK) s = b->core->download(&b->ctx, packed, dev2, sizeof packed);
  for (k = 0; s == HD_OK && k < 40; ++k) {
    const int r = k / 8, c = k % 8, in = r >= 1 && r <= 3 && c >= 2 && c <= 5;
    bad += dev_image[k] != (in ? host[(r - 1) * 4 + c - 2] : 0.0);
  }
  for (k = 0; s == HD_OK && k < 18; ++k) bad += back[k] != (k % 6 < 4 ? host[k / 6 * 4 + k % 6] : -1.0);
  for (k = 0; s == HD_OK && k < 12; ++k) bad += packed[k] != host[k];
  ok(s == HD_OK && bad == 0,
     "%s: strided copies to, from and within the backend place a 3 x 4 block exactly (%d wrong)%s%s",
     b->core->name, bad, s == HD_OK ? "" : ": ", s == HD_OK ? "" : b->ctx.msg);
  b->core->free(&b->ctx, dev);
  b->core->free(&b->ctx, dev2);
  b->core->pinned_free(&b->ctx, back);
}

/* Ghosts the steps must leave alone: the faces in `halo` (HD_HEAT_HALO)
 * keep the sentinel -7 of the output buffer, the other faces get written. */
static int heat_halo_kept(const double *f, const hd_grid *g, int halo) {
  const hd_range3 in = hd_grid_interior(g);
  hd_idx i, j, k;
  int face, bad = 0;
  for (k = in.lo[2]; k < in.hi[2]; ++k)
    for (j = in.lo[1]; j < in.hi[1]; ++j)
      for (i = in.lo[0]; i < in.hi[0]; ++i)
        for (face = 0; face < 2 * g->dim; ++face) {
          const int axis = face / 2;
          const hd_idx at[3] = {i, j, k}, edge = face % 2 ? in.hi[axis] - 1 : in.lo[axis];
          if (at[axis] == edge) {
            const hd_idx c = hd_grid_at(g, i, j, k) + (face % 2 ? 1 : -1) * g->stride[axis];
            bad += (f[c] == -7.0) != (halo >> face & 1);
          }
        }
  return bad == 0;
}

/* The tuned heat step against the generic one, whole and box by box (the
 * overlapped halo step), with a per-cell source array (the drivers never
 * pass one), every element including ghosts: uneven grids and launch
 * shapes, and with some faces halos, whose ghosts no step may write. */
static void test_heat_source(backend *b) {
  static const int shapes[3][3] = {{0, 0, 0}, {64, 2, 5}, {32, 1, 3}};
  static const hd_idx sizes[2][3] = {{70, 37, 1}, {40, 21, 19}};
  static const char *const how[3] = {"", "whole", "box by box"};
  static const int halos[2] = {0, 1 << HD_XHI | 1 << HD_YLO | 1 << HD_ZHI};
  int dim, sh, mode, h, has_tuned = 1;
  for (dim = 2; dim <= 3; ++dim)
    for (sh = 0; sh < 3; ++sh)
      for (h = 0; h < 2; ++h) {
        const hd_idx *n = sizes[dim - 2];
        hd_grid g;
        size_t bytes, i;
        double *host, *gen, *tun;
        void *t = NULL, *q = NULL, *tn = NULL;
        hd_status s;
        if (!hd_grid_init(&g, dim, n[0], n[1], n[2], 1)) bail("grid");
        bytes = (size_t)g.total * sizeof(double);
        host = (double *)malloc(bytes), gen = (double *)malloc(bytes), tun = (double *)malloc(bytes);
        if (!host || !gen || !tun) bail("out of memory");
        memcpy(b->ctx.block, shapes[sh], sizeof shapes[sh]);
        s = b->core->alloc(&b->ctx, &t, bytes);
        if (s == HD_OK) s = b->core->alloc(&b->ctx, &q, bytes);
        if (s == HD_OK) s = b->core->alloc(&b->ctx, &tn, bytes);
        for (i = 0; i < (size_t)g.total; ++i) host[i] = 2.0 * uniform() - 1.0;
        if (s == HD_OK) s = b->core->upload(&b->ctx, q, host, bytes);
        for (i = 0; i < (size_t)g.total; ++i) host[i] = uniform();
        if (s == HD_OK) s = b->core->upload(&b->ctx, t, host, bytes);
        for (i = 0; i < (size_t)g.total; ++i) host[i] = -7.0; /* never written: edges, corners, halos */
        if (s == HD_OK) s = b->core->upload(&b->ctx, tn, host, bytes);
        if (s == HD_OK) s = b->k->heat_q(&b->ctx, 0, halos[h], (const double *)t, (double *)tn, (const double *)q, &g);
        if (s == HD_OK) s = b->core->download(&b->ctx, gen, tn, bytes);
        if (sh == 0)
          ok(s == HD_OK && heat_halo_kept(gen, &g, halos[h]),
             "%s: generic %d-D heat step writes the ghosts of every face but the halos (%d halo faces)",
             b->core->name, dim, h ? 3 : 0);
        for (mode = 1; mode <= 2 && s == HD_OK && has_tuned; ++mode) {
          double err = 0.0, vmax = 0.0;
          s = b->core->upload(&b->ctx, tn, host, bytes);
          if (s == HD_OK)
            s = b->k->heat_q(&b->ctx, mode, halos[h], (const double *)t, (double *)tn, (const double *)q, &g);
          if (s == HD_ERR_UNSUPPORTED) { /* box by box: CUDA's only */
            if (mode == 1) skip("%s: no tuned heat kernel", b->core->name), has_tuned = 0;
            s = HD_OK;
            break;
          }
          if (s == HD_OK) s = b->core->download(&b->ctx, tun, tn, bytes);
          for (i = 0; s == HD_OK && i < (size_t)g.total; ++i)
            err = fmax(err, fabs(tun[i] - gen[i])), vmax = fmax(vmax, fabs(gen[i]));
          /* CPU: the same functions, vectorised: bit for bit */
          ok(s == HD_OK && err <= (b->core->id == HD_B_CUDA ? 4.0 * DBL_EPSILON * vmax : 0.0),
             "%s: tuned %d-D heat step %s with a source array (block %d,%d, march %d%s) matches the "
             "generic one: max |difference| %.3g%s%s",
             b->core->name, dim, how[mode], shapes[sh][0], shapes[sh][1], shapes[sh][2], h ? ", 3 halo faces" : "",
             err, s == HD_OK ? "" : ": ", s == HD_OK ? "" : b->ctx.msg);
        }
        memset(b->ctx.block, 0, sizeof b->ctx.block);
        b->core->free(&b->ctx, t);
        b->core->free(&b->ctx, q);
        b->core->free(&b->ctx, tn);
        free(host), free(gen), free(tun);
      }
}

/* The CUDA vector heat kernel (rows aligned for 16-byte access, no source
 * array) against the generic step, every element but the row padding
 * (which takes copies of the x ghosts): rows with a partial last warp,
 * uneven launch shapes, x ghosts stored as whole sectors (nx = 40, cell 1
 * on 32 bytes) and not (nx = 130), and halo faces, none (the kernel takes
 * the x ghosts from the face conditions), y and z (it leaves them), x (the
 * scalar kernel takes over); over the whole interior, and box by box as a
 * distributed block steps (slabs beside the y and z faces, then the
 * inside).  The input is the output of a generic step, so its ghosts hold,
 * as they do between steps. */
static void test_heat_vec(backend *b) {
  static const int shapes[3][3] = {{0, 0, 0}, {64, 2, 5}, {32, 1, 3}};
  static const hd_idx sizes[2][3] = {{40, 21, 19}, {130, 9, 17}};
  static const int halos[3] = {0, 1 << HD_YHI | 1 << HD_ZLO, 1 << HD_XLO};
  const size_t lead = 3; /* cell 1 of each row on 32 bytes */
  int k, sh, h, mode;
  for (k = 0; k < 2; ++k)
    for (sh = 0; sh < 3; ++sh)
      for (h = 0; h < 3; ++h) {
        const hd_idx *n = sizes[k];
        hd_grid g;
        size_t bytes, i, count;
        double *host, *gen, *tun, err = 0.0, vmax = 0.0;
        void *t = NULL, *tn = NULL, *u = NULL;
        hd_status s;
        if (!hd_grid_init(&g, 3, n[0], n[1], n[2], 1) || !hd_grid_align_rows(&g, 16)) bail("grid");
        count = (size_t)g.total + lead;
        bytes = count * sizeof(double);
        host = (double *)malloc(bytes), gen = (double *)malloc(bytes), tun = (double *)malloc(bytes);
        if (!host || !gen || !tun) bail("out of memory");
        memcpy(b->ctx.block, shapes[sh], sizeof shapes[sh]);
        s = b->core->alloc(&b->ctx, &t, bytes);
        if (s == HD_OK) s = b->core->alloc(&b->ctx, &tn, bytes);
        if (s == HD_OK) s = b->core->alloc(&b->ctx, &u, bytes);
        for (i = 0; i < count; ++i) host[i] = uniform();
        if (s == HD_OK) s = b->core->upload(&b->ctx, t, host, bytes);
        for (i = 0; i < count; ++i) host[i] = -7.0; /* never written: corners, halos */
        if (s == HD_OK) s = b->core->upload(&b->ctx, u, host, bytes);
        if (s == HD_OK) s = b->k->heat_q(&b->ctx, 0, 0, (const double *)t + lead, (double *)u + lead, NULL, &g);
        if (s == HD_OK) s = b->core->upload(&b->ctx, tn, host, bytes);
        if (s == HD_OK) s = b->k->heat_q(&b->ctx, 0, halos[h], (const double *)u + lead, (double *)tn + lead, NULL, &g);
        if (s == HD_OK) s = b->core->download(&b->ctx, gen, tn, bytes);
        for (mode = 3; mode <= 4 && s == HD_OK; ++mode) { /* the whole interior, then box by box */
          if (s == HD_OK) s = b->core->upload(&b->ctx, tn, host, bytes);
          if (s == HD_OK) s = b->k->heat_q(&b->ctx, mode, halos[h], (const double *)u + lead, (double *)tn + lead, NULL, &g);
          if (s == HD_ERR_UNSUPPORTED) {
            if (k == 0 && sh == 0 && h == 0 && mode == 3) skip("%s: no vector heat kernel", b->core->name);
            break;
          }
          if (s == HD_OK) s = b->core->download(&b->ctx, tun, tn, bytes);
          err = vmax = 0.0;
          for (i = lead; s == HD_OK && i < count; ++i)
            if ((hd_idx)((i - lead) % (size_t)g.stride[1]) <= n[0] + 1)
              err = fmax(err, fabs(tun[i] - gen[i])), vmax = fmax(vmax, fabs(gen[i]));
          ok(s == HD_OK && err <= 4.0 * DBL_EPSILON * vmax,
             "%s: vector 3-D heat step on aligned rows%s, %ld x %ld x %ld (block %d,%d, march %d, halo faces %#x), "
             "matches the generic one: max |difference| %.3g%s%s",
             b->core->name, mode == 4 ? ", slabs and inside as separate boxes" : "", (long)n[0], (long)n[1],
             (long)n[2], shapes[sh][0], shapes[sh][1], shapes[sh][2], (unsigned)halos[h], err, s == HD_OK ? "" : ": ",
             s == HD_OK ? "" : b->ctx.msg);
        }
        memset(b->ctx.block, 0, sizeof b->ctx.block);
        b->core->free(&b->ctx, t);
        b->core->free(&b->ctx, tn);
        b->core->free(&b->ctx, u);
        free(host), free(gen), free(tun);
        if (s == HD_ERR_UNSUPPORTED) return;
      }
}

/* The tuned SOR colour pass against the generic loop: a few sweeps from a
 * random field, every node (odd and even n, so both row parities end the
 * rows).  One sweep of the generic loop changes a node by far more than
 * the tolerance, so a skipped or misplaced node fails. */
static void test_sor_tuned(backend *b) {
  static const hd_idx sizes[3] = {6, 301, 512};
  int k;
  for (k = 0; k < 3; ++k) {
    const hd_idx n = sizes[k];
    const size_t count = (size_t)((n + 1) * (n + 1));
    double *f = (double *)malloc(count * sizeof(double)), *u0 = (double *)malloc(count * sizeof(double));
    double *ug = (double *)malloc(count * sizeof(double)), *ut = (double *)malloc(count * sizeof(double));
    double err = 0.0, vmax = 0.0, moved = 0.0;
    size_t i;
    hd_status s;
    if (!f || !u0 || !ug || !ut) bail("out of memory");
    for (i = 0; i < count; ++i) f[i] = 2.0 * uniform() - 1.0, u0[i] = uniform();
    memcpy(ug, u0, count * sizeof(double));
    memcpy(ut, u0, count * sizeof(double));
    s = b->k->sor(&b->ctx, 1, n, ut, f, 3);
    if (s == HD_ERR_UNSUPPORTED) {
      if (k == 0) skip("%s: no tuned SOR kernel", b->core->name);
    } else {
      if (s == HD_OK) s = b->k->sor(&b->ctx, 0, n, ug, f, 3);
      for (i = 0; s == HD_OK && i < count; ++i)
        err = fmax(err, fabs(ut[i] - ug[i])), vmax = fmax(vmax, fabs(ug[i])), moved = fmax(moved, fabs(ug[i] - u0[i]));
      ok(s == HD_OK && err <= 4.0 * DBL_EPSILON * vmax && moved > 1e-3,
         "%s: tuned SOR colour passes match the generic loop on n = %ld: max |difference| %.3g (sweeps moved "
         "nodes by up to %.3g)%s%s",
         b->core->name, (long)n, err, moved, s == HD_OK ? "" : ": ", s == HD_OK ? "" : b->ctx.msg);
    }
    free(f), free(u0), free(ug), free(ut);
  }
}

/* Exact sums (the statistics of distributed grids): the same bits in any
 * order and grouping, and the exact value where it is known. */
static void test_xsum(void) {
  enum { N = 4000 };
  static double v[N];
  long long exact = 0;
  hd_xsum fwd, rev, a, b;
  double r_fwd, r_rev, r_grp;
  int i;
  hd_xsum_init(&fwd);
  hd_xsum_add(&fwd, 1e16), hd_xsum_add(&fwd, 1.0), hd_xsum_add(&fwd, -1e16);
  ok(hd_xsum_value(&fwd) == 1.0, "exact sum: 1e16 + 1 - 1e16 = %.17g (plain doubles give 0)", hd_xsum_value(&fwd));
  hd_xsum_init(&fwd);
  hd_xsum_add(&fwd, DBL_MAX), hd_xsum_add(&fwd, DBL_MAX), hd_xsum_add(&fwd, -DBL_MAX);
  hd_xsum_add(&fwd, 4.9e-324), hd_xsum_add(&fwd, -4.9e-324);
  ok(hd_xsum_value(&fwd) == DBL_MAX, "exact sum: DBL_MAX + DBL_MAX - DBL_MAX = DBL_MAX, subnormals cancel");
  /* integers times 2^-20: the exact sum is known; negative total */
  for (i = 0; i < N; ++i) { /* |k| < 2^40 units of 2^-20: the total stays below 2^53 units */
    const int big = i % 7 == 0;
    const long long k = (long long)((uniform() - 0.55) * (big ? 1073741824.0 : 1099511627776.0));
    v[i] = ldexp((double)k, big ? -10 : -20);
    exact += big ? k * 1024 : k;
  }
  hd_xsum_init(&fwd), hd_xsum_init(&rev), hd_xsum_init(&a), hd_xsum_init(&b);
  for (i = 0; i < N; ++i) hd_xsum_add(&fwd, v[i]), hd_xsum_add(&rev, v[N - 1 - i]);
  for (i = 0; i < N; ++i) hd_xsum_add(i % 3 ? &a : &b, v[i]);
  hd_xsum_merge(&b, &a);
  r_fwd = hd_xsum_value(&fwd), r_rev = hd_xsum_value(&rev), r_grp = hd_xsum_value(&b);
  ok(r_fwd == r_rev && r_fwd == r_grp && r_fwd == ldexp((double)exact, -20) && r_fwd < 0,
     "exact sum of %d values: forward, reverse and grouped give %.17g, the exact %.17g", N, r_fwd,
     ldexp((double)exact, -20));
}

/* Padded rows: pitch, plane stride and total follow; cells keep their
 * coordinates; overflow and a zero multiple are refused. */
static void test_align_rows(void) {
  hd_grid g, h;
  int fine = hd_grid_init(&g, 3, 130, 9, 17, 1);
  h = g;
  fine = fine && hd_grid_align_rows(&h, 32) && h.stride[1] == 160 && h.stride[2] == 160 * 11 &&
         h.total == 160 * 11 * 19 && hd_grid_at(&h, 131, 10, 18) == 131 + 10 * 160 + 18 * 160 * 11 &&
         h.n[0] == 130 && hd_grid_interior(&h).hi[0] == hd_grid_interior(&g).hi[0];
  h = g;
  fine = fine && !hd_grid_align_rows(&h, 0);
  fine = fine && hd_grid_init(&g, 3, (hd_idx)1 << 41, 1024, 2048, 1) && !hd_grid_align_rows(&g, (hd_idx)1 << 42);
  ok(fine, "hd_grid_align_rows pads rows to the multiple, keeps cells addressable, refuses 0 and overflow");
}

/* The headers' version is configure's (configure reads it from them) and
 * the three forms agree. */
static void test_version(void) {
  char parts[32];
  snprintf(parts, sizeof parts, "%d.%d.%d", HD_VERSION_MAJOR, HD_VERSION_MINOR, HD_VERSION_PATCH);
  ok(strcmp(HD_VERSION_STRING, PACKAGE_VERSION) == 0 && strcmp(parts, PACKAGE_VERSION) == 0 &&
         HD_VERSION == HD_VERSION_MAJOR * 10000 + HD_VERSION_MINOR * 100 + HD_VERSION_PATCH,
     "hd/hd.h says version %s (%d), configure %s", HD_VERSION_STRING, HD_VERSION, PACKAGE_VERSION);
}

static void test_errors(backend *be, int nb) {
  int b;
  hd_ctx ctx;
  const hd_core_ops *core;
  for (b = 0; b < nb; ++b) {
    void *p = (void *)&b;
    hd_status s = be[b].core->alloc(&be[b].ctx, &p, (size_t)1 << 62);
    ok(s == HD_ERR_NOMEM && p == NULL && strstr(be[b].ctx.msg, "cannot allocate") != NULL,
       "%s: a 4.6 EB allocation fails cleanly: %s", be[b].core->name, be[b].ctx.msg);
  }
  ok(hd_backend_open(HD_B_COUNT + 1, 0, &ctx, &core, NULL, 0) == HD_ERR_UNSUPPORTED,
     "an unknown backend is refused: %s", ctx.msg);
#if !defined(HD_HAVE_CUDA)
  ok(hd_backend_open(HD_B_CUDA, 0, &ctx, &core, NULL, 0) == HD_ERR_UNSUPPORTED &&
         strstr(ctx.msg, "not in this build") != NULL,
     "cuda is refused by a build without it: %s", ctx.msg);
#endif
}

int main(void) {
  backend be[HD_B_COUNT];
  int id, nb = 0;
  for (id = 0; id < HD_B_COUNT; ++id) {
    const hd_core_ops *core = hd_core_get(id);
    if (!core) continue;
    if (core->init(&be[nb].ctx, 0) != HD_OK) {
      skip("%s backend: %s", core->name, be[nb].ctx.msg);
      continue;
    }
    be[nb].core = core;
    be[nb].k = testk_get(id);
    if (!be[nb].k) bail("no test kernels for %s", core->name);
    ++nb;
  }
  for (id = 0; id < nb; ++id) {
    test_cover(&be[id]), test_copy_2d(&be[id]), test_heat_source(&be[id]);
    test_heat_vec(&be[id]), test_sor_tuned(&be[id]);
  }
  test_stats(be, nb);
  test_xsum();
  test_align_rows();
  test_version();
  test_nonfinite(be, nb);
  test_errors(be, nb);
  for (id = 0; id < nb; ++id) be[id].core->destroy(&be[id].ctx);
  return done_testing();
}
