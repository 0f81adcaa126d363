/* SPDX-License-Identifier: BSD-3-Clause */
/* Local essential trees (hd/nbody_let.h) against the trees they are cut from.
 * A Plummer sphere of 6000 bodies is split into P = 2, 3, 4 domains (equal
 * counts along the Morton curve of the bodies' bounding cube, as the tree
 * sorts them); each domain builds its tree (theta 0.5, leaf
 * 16) and a LET for every other domain's box.
 *   - every body's walk of the LET is bit for bit its walk of the whole
 *     tree;
 *   - brute force: every cell any of the domain's bodies opens in the whole
 *     tree is in the LET, open (not closed to its multipoles), with its
 *     children and bodies; the LET's surplus (cells kept open that no body
 *     opens: the box is larger than the bodies) is printed;
 *   - the walkers' boxes are their tree's groups (cells of at most 64
 *     bodies): the cells a LET keeps open that no walker opens are at most
 *     15 % of those opened, and it holds fewer bodies than the tree (at
 *     6000 bodies most leaves lie near another domain: the fractions are
 *     printed);
 *   - the forces summed over the domains (each body: its own domain's tree,
 *     then the others' LETs) against the direct sum: the relative RMS error
 *     within 10 % of one tree's over all bodies (issue 74's accuracy
 *     target; P trees of fewer bodies each open cells a little differently);
 *   - hd_nbody_let_walk on the backend (the test's build: OpenMP) adds a
 *     LET's pull to the walkers' accelerations bit for bit as the walk on
 *     the host does;
 *   - theta = 0: the LET is the whole tree (every cell open, every body). */
#include <math.h>

#include "decomp.h"
#include "hd/nbody_let.h"
#include "tap.h"

#define NB 6000
#define EPS 0.01
#define GROUP 64 /* bodies a group at most: the walkers' boxes */

typedef struct domain {
  hd_idx n;
  hd_real *x, *y, *z, *m; /* its bodies (unsorted) */
  hd_nbody_tree t;
} domain;

/* The cells a body at (xi, yi, zi) opens in the tree: mark[c] = 1. */
static void opened_cells(const hd_nbody_tree *t, hd_real xi, hd_real yi, hd_real zi, unsigned char *mark) {
  hd_idx c = 0;
  while (c < t->ncell) {
    const hd_nbody_cell *cell = &t->cell[c];
    const hd_real dx = cell->x - xi, dy = cell->y - yi, dz = cell->z - zi;
    if (dx * dx + dy * dy + dz * dz >= cell->open2) c = cell->next;
    else {
      mark[c] = 1;
      c = cell->count > 0 ? cell->next : c + 1;
    }
  }
}

static void build(hd_ctx *ctx, domain *d, double theta) {
  memset(&d->t, 0, sizeof d->t);
  d->t.n = d->n, d->t.x = d->x, d->t.y = d->y, d->t.z = d->z, d->t.m = d->m, d->t.theta = theta, d->t.leaf = 16;
  if (hd_nbody_tree_build(ctx, &d->t) != HD_OK) bail("%s", ctx->msg);
}

static void walk_tree(const hd_nbody_tree *t, hd_real xi, hd_real yi, hd_real zi, hd_real a[3]) {
  const hd_real *s = t->sorted;
  hd_nbody_walk_from(t->cell, t->ncell, s, s + t->n, s + 2 * t->n, s + 3 * t->n, (hd_real)(EPS * EPS), xi, yi, zi,
                     &a[0], &a[1], &a[2]);
}

static void walk_let(const hd_nbody_let *l, hd_real xi, hd_real yi, hd_real zi, hd_real a[3]) {
  hd_nbody_walk_from(l->cell, l->ncell, l->x, l->y, l->z, l->m, (hd_real)(EPS * EPS), xi, yi, zi, &a[0], &a[1], &a[2]);
}

static double rms_rel(const double *a, const double *ref, hd_idx n) {
  double num = 0, den = 0;
  hd_idx i;
  for (i = 0; i < 3 * n; ++i) num += (a[i] - ref[i]) * (a[i] - ref[i]), den += ref[i] * ref[i];
  return sqrt(num / den);
}

/* Bodies sorted along the Morton curve (the key in rec[4]), then cut into
 * P domains of equal counts. */
static int by_key(const void *a, const void *b) {
  const double u = ((const double *)a)[4], v = ((const double *)b)[4];
  return u < v ? -1 : u > v;
}

int main(void) {
  hd_ctx ctx;
  double *x = malloc(NB * sizeof(double)), *y = malloc(NB * sizeof(double)), *z = malloc(NB * sizeof(double));
  double *vx = malloc(NB * sizeof(double)), *vy = malloc(NB * sizeof(double)), *vz = malloc(NB * sizeof(double));
  double *m = malloc(NB * sizeof(double)), *rec = malloc(NB * 5 * sizeof(double));
  double *direct = malloc(3 * NB * sizeof(double)), *got = malloc(3 * NB * sizeof(double)), err1 = 0;
  hd_idx i, j;
  int P;
  if (!x || !y || !z || !vx || !vy || !vz || !m || !rec || !direct || !got) bail("out of memory");
  if (hd_ctx_init(&ctx, 0) != HD_OK) bail("%s", ctx.msg);
  hd_nbody_ic_plummer(NB, 11, x, y, z, vx, vy, vz, m);
  {
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, size = 0;
    int a;
    for (i = 0; i < NB; ++i)
      for (a = 0; a < 3; ++a) {
        const double v = a == 0 ? x[i] : a == 1 ? y[i] : z[i];
        lo[a] = v < lo[a] ? v : lo[a];
      }
    for (i = 0; i < NB; ++i)
      for (a = 0; a < 3; ++a) {
        const double w = (a == 0 ? x[i] : a == 1 ? y[i] : z[i]) - lo[a];
        size = w > size ? w : size;
      }
    size *= 1 + 1e-9;
    for (i = 0; i < NB; ++i)
      rec[5 * i] = x[i], rec[5 * i + 1] = y[i], rec[5 * i + 2] = z[i], rec[5 * i + 3] = m[i],
      rec[5 * i + 4] = (double)hd_nbody_morton(x[i], y[i], z[i], lo, size); /* 63 bits: ties rounded, harmless */
  }
  qsort(rec, NB, 5 * sizeof(double), by_key);
  for (i = 0; i < NB; ++i) { /* rounded as the bodies are stored */
    x[i] = (hd_real)rec[5 * i], y[i] = (hd_real)rec[5 * i + 1], z[i] = (hd_real)rec[5 * i + 2];
    m[i] = (hd_real)rec[5 * i + 3];
  }
  for (i = 0; i < NB; ++i) { /* the direct sum, in double */
    double a[3] = {0, 0, 0};
    for (j = 0; j < NB; ++j) {
      const double d[3] = {x[j] - x[i], y[j] - y[i], z[j] - z[i]}, r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + EPS * EPS;
      const double s = j == i ? 0.0 : m[j] / (r2 * sqrt(r2));
      a[0] += s * d[0], a[1] += s * d[1], a[2] += s * d[2];
    }
    direct[3 * i] = a[0], direct[3 * i + 1] = a[1], direct[3 * i + 2] = a[2];
  }
  for (P = 1; P <= 4; ++P) {
    domain dom[4];
    hd_idx cells = 0, let_cells = 0, let_bodies = 0, differ = 0, missing = 0, surplus = 0, opened = 0, groups = 0;
    int d, e;
    for (d = 0; d < P; ++d) {
      hd_idx lo = NB * d / P, hi = NB * (d + 1) / P;
      dom[d].n = hi - lo;
      dom[d].x = malloc((size_t)(4 * dom[d].n) * sizeof(hd_real));
      if (!dom[d].x) bail("out of memory");
      dom[d].y = dom[d].x + dom[d].n, dom[d].z = dom[d].y + dom[d].n, dom[d].m = dom[d].z + dom[d].n;
      for (i = lo; i < hi; ++i)
        dom[d].x[i - lo] = (hd_real)x[i], dom[d].y[i - lo] = (hd_real)y[i], dom[d].z[i - lo] = (hd_real)z[i],
                 dom[d].m[i - lo] = (hd_real)m[i];
      build(&ctx, &dom[d], 0.5);
      cells += dom[d].t.ncell;
    }
    for (i = 0; i < 3 * NB; ++i) got[i] = 0;
    for (e = 0; e < P; ++e) { /* the walkers: domain e's bodies */
      const hd_idx off = NB * e / P, s3 = dom[e].n;
      const hd_real *sx = dom[e].t.sorted, *sy = sx + s3, *sz = sy + s3;
      const hd_idx ngroup = hd_nbody_groups(dom[e].t.cell, dom[e].t.ncell, sx, sy, sz, s3, GROUP, NULL);
      hd_nbody_box *box = malloc((size_t)ngroup * sizeof *box);
      if (!box) bail("out of memory");
      hd_nbody_groups(dom[e].t.cell, dom[e].t.ncell, sx, sy, sz, s3, GROUP, box);
      groups += ngroup;
      for (d = 0; d < P; ++d) {
        hd_nbody_let l;
        unsigned char *mark;
        hd_idx c;
        if (d == e) { /* its own tree */
          for (i = 0; i < dom[e].n; ++i) {
            hd_real a[3] = {0, 0, 0};
            walk_tree(&dom[d].t, dom[e].x[i], dom[e].y[i], dom[e].z[i], a);
            for (j = 0; j < 3; ++j) got[3 * (off + i) + j] += a[j];
          }
          continue;
        }
        if (hd_nbody_let_build(&ctx, dom[d].t.cell, dom[d].t.ncell, dom[d].t.sorted, dom[d].t.sorted + dom[d].n,
                               dom[d].t.sorted + 2 * dom[d].n, dom[d].t.sorted + 3 * dom[d].n, box, ngroup, &l) != HD_OK)
          bail("%s", ctx.msg);
        let_cells += l.ncell, let_bodies += l.n;
        mark = calloc((size_t)dom[d].t.ncell, 1);
        if (!mark) bail("out of memory");
        for (i = 0; i < dom[e].n; ++i) {
          hd_real a[3] = {0, 0, 0}, b[3] = {0, 0, 0};
          walk_tree(&dom[d].t, dom[e].x[i], dom[e].y[i], dom[e].z[i], a);
          walk_let(&l, dom[e].x[i], dom[e].y[i], dom[e].z[i], b);
          differ += memcmp(a, b, sizeof a) != 0;
          for (j = 0; j < 3; ++j) got[3 * (off + i) + j] += b[j];
          opened_cells(&dom[d].t, dom[e].x[i], dom[e].y[i], dom[e].z[i], mark);
        }
        { /* every cell opened is in the LET, open; count the LET's open cells no body opened */
          unsigned char *in = calloc((size_t)dom[d].t.ncell, 1);
          if (!in) bail("out of memory");
          for (c = 0; c < l.ncell; ++c)
            if (l.cell[c].open2 > 0) in[l.from[c]] = 1;
          for (c = 0; c < dom[d].t.ncell; ++c) missing += mark[c] && !in[c], surplus += in[c] && !mark[c], opened += mark[c];
          free(in);
        }
        free(mark);
        if (P == 2) { /* the LET walked on the backend, added to the own tree's pull */
          const hd_idx nw = dom[e].n;
          hd_real *acc = malloc((size_t)(6 * nw) * sizeof(hd_real));
          hd_nbody_let_walk_args wa;
          hd_idx bad = 0;
          if (!acc) bail("out of memory");
          for (i = 0; i < nw; ++i) {
            hd_real a[3] = {0, 0, 0};
            walk_tree(&dom[e].t, sx[i], sy[i], sz[i], a);
            for (j = 0; j < 3; ++j) acc[j * nw + i] = acc[(3 + j) * nw + i] = a[j];
            walk_let(&l, sx[i], sy[i], sz[i], a);
            for (j = 0; j < 3; ++j) acc[(3 + j) * nw + i] = a[j];
          }
          wa.cell = l.cell, wa.ncell = l.ncell, wa.lx = l.x, wa.ly = l.y, wa.lz = l.z, wa.lm = l.m;
          wa.x = sx, wa.y = sy, wa.z = sz, wa.ax = acc, wa.ay = acc + nw, wa.az = acc + 2 * nw;
          wa.eps2 = (hd_real)(EPS * EPS);
          if (hd_nbody_let_walk(&ctx, &wa, 0, nw) != HD_OK) bail("%s", ctx.msg);
          bad = memcmp(acc, acc + 3 * nw, (size_t)(3 * nw) * sizeof(hd_real)) != 0;
          ok(!bad, "P = 2: domain %d's walkers: hd_nbody_let_walk on the %s backend adds the LET's pull to the own "
                   "tree's bit for bit as the host's walk", e, HD_BACKEND_NAME);
          free(acc);
        }
        hd_nbody_let_free(&l);
      }
      free(box);
    }
    if (P == 1) {
      err1 = rms_rel(got, direct, NB);
      ok(err1 > 0 && err1 < 1e-3, "one tree of %d bodies (theta 0.5): relative RMS error %.3e against the direct sum", NB,
         err1);
    } else {
      const double err = rms_rel(got, direct, NB);
      ok(differ == 0, "P = %d: every body's walk of each other domain's LET is its walk of the whole tree, bit for bit "
                      "(%ld differ)", P, (long)differ);
      ok(missing == 0, "P = %d: the %ld cells the domains' bodies open are all in the LETs, open (%ld missing; "
                       "%ld kept open that no body opened)", P, (long)opened, (long)missing, (long)surplus);
      ok(let_bodies < (hd_idx)(P - 1) * NB && 100 * surplus <= 15 * opened,
         "P = %d: the LETs for the walkers' %ld groups (of at most %d bodies) hold %ld cells (%ld kept open that no "
         "body opened: at most 15 %% of the %ld opened) and %ld bodies, against %ld cells and %ld bodies sent whole",
         P, (long)groups, GROUP, (long)let_cells, (long)surplus, (long)opened, (long)let_bodies,
         (long)((P - 1) * cells), (long)((P - 1) * NB));
      ok(err <= 1.1 * err1, "P = %d: forces summed over the domains' trees and LETs: relative RMS error %.3e, %.3f of "
                            "one tree's (bound 1.1)", P, err, err / err1);
    }
    for (d = 0; d < P; ++d) hd_nbody_tree_free(&ctx, &dom[d].t), free(dom[d].x);
  }
  { /* theta = 0: every cell opens */
    domain a, b;
    hd_nbody_let l;
    hd_nbody_box box;
    a.n = b.n = NB / 2;
    a.x = malloc((size_t)(4 * NB) * sizeof(hd_real));
    if (!a.x) bail("out of memory");
    a.y = a.x + a.n, a.z = a.y + a.n, a.m = a.z + a.n, b.x = a.m + a.n, b.y = b.x + b.n, b.z = b.y + b.n;
    for (i = 0; i < a.n; ++i)
      a.x[i] = (hd_real)x[i], a.y[i] = (hd_real)y[i], a.z[i] = (hd_real)z[i], a.m[i] = (hd_real)m[i],
      b.x[i] = (hd_real)x[a.n + i], b.y[i] = (hd_real)y[a.n + i], b.z[i] = (hd_real)z[a.n + i];
    build(&ctx, &a, 0.0);
    box = hd_nbody_box_of(b.x, b.y, b.z, b.n);
    if (hd_nbody_let_build(&ctx, a.t.cell, a.t.ncell, a.t.sorted, a.t.sorted + a.n, a.t.sorted + 2 * a.n,
                           a.t.sorted + 3 * a.n, &box, 1, &l) != HD_OK)
      bail("%s", ctx.msg);
    ok(l.ncell == a.t.ncell && l.n == a.n, "theta = 0: the LET is the whole tree (%ld of %ld cells, %ld of %ld bodies)",
       (long)l.ncell, (long)a.t.ncell, (long)l.n, (long)a.n);
    hd_nbody_let_free(&l);
    hd_nbody_tree_free(&ctx, &a.t);
    free(a.x);
  }
  { /* the tree's blocks on ranks, moved to even the walks' measured seconds (hd_par_rebalance) */
    const long b2[3] = {0, 100, 200}, b4[5] = {0, 10, 20, 30, 40};
    const double c2[2] = {3, 1}, c4[4] = {1, 1, 1, 5}, even[4] = {2, 2, 2, 2}, none[4] = {0, 0, 0, 0};
    long o[5];
    hd_par_rebalance(b2, c2, 2, 0.0, o);
    ok(o[0] == 0 && o[1] == 67 && o[2] == 200, "rebalance: 2 blocks costing 3 and 1 split at 67 of 200 (got %ld)", o[1]);
    hd_par_rebalance(b2, c2, 2, 0.5, o);
    ok(o[1] == 84, "rebalance: half the way from 100 to 67 is 84 (got %ld)", o[1]);
    hd_par_rebalance(b4, c4, 4, 0.0, o);
    ok(o[0] == 0 && o[1] == 20 && o[2] == 32 && o[3] == 36 && o[4] == 40,
       "rebalance: 4 blocks costing 1, 1, 1, 5 give 0 20 32 36 40, each costing 2 (got %ld %ld %ld %ld %ld)", o[0], o[1],
       o[2], o[3], o[4]);
    hd_par_rebalance(b4, even, 4, 0.0, o);
    ok(o[1] == 10 && o[2] == 20 && o[3] == 30, "rebalance: even costs keep the blocks");
    hd_par_rebalance(b4, none, 4, 0.0, o);
    ok(o[1] == 10 && o[2] == 20 && o[3] == 30 && o[4] == 40, "rebalance: no cost measured keeps the blocks");
  }
  free(x), free(y), free(z), free(vx), free(vy), free(vz), free(m), free(rec), free(direct), free(got);
  return done_testing();
}
