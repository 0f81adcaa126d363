/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/nbody_let.h - local essential trees (Salmon & Warren; Bonsai's LETs):
 * the part of one domain's Barnes-Hut tree (hd/nbody_tree.h) that the
 * walks of bodies inside a set of boxes, another domain's, can open.
 *
 * A cell is opened by a body nearer its centre of mass than sqrt(open2).
 * A body inside a box comes no nearer than the box's distance to that
 * centre, so a cell farther than sqrt(open2) from every box (by a margin
 * for the walk's rounding) is opened by none of them: the LET keeps it
 * as a closed cell (open2 = 0, no children: every walk pulls it by its
 * multipoles), and keeps the others, with their children and their
 * leaves' bodies.  The LET is stored as a tree (depth first, `next`
 * links) of its own, so hd_nbody_walk_from walks it as it walks the
 * tree: for a body inside a box it visits the same cells in the same order
 * and makes the same decisions, and its pull is bit for bit the pull of
 * the whole tree.  The domains' trees and their LETs then give a body
 * the sum, over the domains, of its walk of each domain's tree.  The boxes
 * are best the walkers' groups (hd_nbody_groups), as Bonsai's.
 *
 * Built on the host from the tree's cells and sorted bodies (download
 * them from a device first); sending it is the caller's (a few arrays of
 * plain numbers). */
#ifndef HD_NBODY_LET_H
#define HD_NBODY_LET_H

#include <stdlib.h>

#include "nbody_tree.h"

/* An axis-aligned box: the bounds of a domain's bodies. */
typedef struct hd_nbody_box {
  double lo[3], hi[3];
} hd_nbody_box;

/* A local essential tree: cells (depth first, as the tree's) and the
 * bodies of its open leaves (cell first/count index them); from[c] is the
 * tree's cell that LET cell c copies. */
typedef struct hd_nbody_let {
  hd_nbody_cell *cell;
  int32_t *from;
  hd_idx ncell;
  hd_real *x, *y, *z, *m;
  hd_idx n;
} hd_nbody_let;

/* The box around n bodies at x, y, z. */
HD_HOST_FN hd_nbody_box hd_nbody_box_of(const hd_real *x, const hd_real *y, const hd_real *z, hd_idx n) {
  hd_nbody_box b;
  hd_idx i;
  int a;
  for (a = 0; a < 3; ++a) b.lo[a] = HUGE_VAL, b.hi[a] = -HUGE_VAL;
  for (i = 0; i < n; ++i) {
    const double p[3] = {x[i], y[i], z[i]};
    for (a = 0; a < 3; ++a) b.lo[a] = p[a] < b.lo[a] ? p[a] : b.lo[a], b.hi[a] = p[a] > b.hi[a] ? p[a] : b.hi[a];
  }
  return b;
}

/* The groups of a tree of n bodies (sorted x, y, z): the highest cells of
 * at most g bodies (a leaf at least; a cell's bodies are those from its
 * first to its next cell's first), as the boxes of their bodies; out NULL:
 * count them.  Another domain's LET for the groups' boxes is much smaller
 * than for the box of all its bodies, which a few far bodies stretch. */
HD_HOST_FN hd_idx hd_nbody_groups(const hd_nbody_cell *cell, hd_idx ncell, const hd_real *x, const hd_real *y,
                                  const hd_real *z, hd_idx n, hd_idx g, hd_nbody_box *out) {
  hd_idx c = 0, count = 0;
  while (c < ncell) {
    const hd_idx first = cell[c].first, end = cell[c].next < ncell ? cell[cell[c].next].first : n;
    if (cell[c].count == 0 && end - first > g) {
      ++c;
      continue;
    }
    if (out) out[count] = hd_nbody_box_of(x + first, y + first, z + first, end - first);
    ++count;
    c = cell[c].next;
  }
  return count;
}

/* Whether a body inside one of the nbox boxes b can open cell c.  The walk
 * compares |x_c - x_i|^2, rounded in hd_real, with open2: each box's
 * distance is shrunk by a margin of 16 rounding units of the largest
 * magnitude in play, so that no rounding turns a closed cell open. */
HD_HOST_FN int hd_nbody_box_opens(const hd_nbody_box *b, hd_idx nbox, const hd_nbody_cell *c) {
  const double p[3] = {c->x, c->y, c->z};
  hd_idx k;
  if (!(c->open2 > 0)) return 0;
  if (!(c->open2 < HUGE_VAL)) return 1; /* theta = 0: every cell opens */
  for (k = 0; k < nbox; ++k) {
    double d2 = 0.0, scale = sqrt((double)c->open2), d;
    int a;
    for (a = 0; a < 3; ++a) {
      const double lo = b[k].lo[a], hi = b[k].hi[a], g = p[a] < lo ? lo - p[a] : p[a] > hi ? p[a] - hi : 0.0;
      const double big = fabs(lo) > fabs(hi) ? fabs(lo) : fabs(hi);
      d2 += g * g;
      scale = big > scale ? big : scale, scale = fabs(p[a]) > scale ? fabs(p[a]) : scale;
    }
    d = sqrt(d2) - 16.0 * HD_REAL_EPS * scale;
    if (d <= 0 || d * d < (double)c->open2) return 1;
  }
  return 0;
}

HD_HOST_FN void hd_nbody_let_free(hd_nbody_let *l) {
  free(l->cell), free(l->from), free(l->x);
  memset(l, 0, sizeof *l);
}

/* One pass over the tree's ncell cells (bodies x, y, z, m in the sorted
 * order): counts the LET's cells and bodies, and fills l when its arrays
 * are there. */
HD_HOST_FN void hd_nbody_let_pass(const hd_nbody_cell *cell, hd_idx ncell, const hd_real *x, const hd_real *y,
                                  const hd_real *z, const hd_real *m, const hd_nbody_box *b, hd_idx nbox,
                                  hd_nbody_let *l) {
  hd_idx open[HD_NBODY_TREE_BITS + 2], end[HD_NBODY_TREE_BITS + 2]; /* the open cells above: LET index, tree's next */
  hd_idx c = 0, nc = 0, nb = 0;
  int depth = 0;
  while (c < ncell) {
    const hd_nbody_cell *t = &cell[c];
    const int opens = hd_nbody_box_opens(b, nbox, t);
    for (; depth > 0 && end[depth - 1] <= c; --depth)
      if (l->cell) l->cell[open[depth - 1]].next = (int32_t)nc;
    if (l->cell) {
      hd_nbody_cell *o = &l->cell[nc];
      *o = *t;
      l->from[nc] = (int32_t)c;
      o->next = (int32_t)(nc + 1);
      if (!opens) o->open2 = 0, o->count = 0, o->first = 0;
      else if (t->count > 0) {
        hd_idx j;
        o->first = (int32_t)nb;
        for (j = 0; j < t->count; ++j)
          l->x[nb + j] = x[t->first + j], l->y[nb + j] = y[t->first + j], l->z[nb + j] = z[t->first + j],
                  l->m[nb + j] = m[t->first + j];
      }
    }
    if (opens && t->count == 0) { /* descend (a tree is at most 22 cells deep); its next comes after its subtree */
      open[depth] = nc, end[depth] = t->next, ++depth;
      ++c;
    } else {
      if (opens) nb += t->count;
      c = t->next;
    }
    ++nc;
  }
  for (; depth > 0; --depth)
    if (l->cell) l->cell[open[depth - 1]].next = (int32_t)nc;
  l->ncell = nc, l->n = nb;
}

/* The LET of the tree's ncell cells and sorted bodies for the bodies
 * inside the nbox boxes b, into l (allocated here; hd_nbody_let_free). */
HD_HOST_FN hd_status hd_nbody_let_build(hd_ctx *ctx, const hd_nbody_cell *cell, hd_idx ncell, const hd_real *x,
                                        const hd_real *y, const hd_real *z, const hd_real *m, const hd_nbody_box *b,
                                        hd_idx nbox, hd_nbody_let *l) {
  memset(l, 0, sizeof *l);
  hd_nbody_let_pass(cell, ncell, x, y, z, m, b, nbox, l); /* sizes */
  l->cell = (hd_nbody_cell *)malloc((size_t)(l->ncell ? l->ncell : 1) * sizeof *l->cell);
  l->from = (int32_t *)malloc((size_t)(l->ncell ? l->ncell : 1) * sizeof *l->from);
  l->x = (hd_real *)malloc((size_t)(4 * l->n + 1) * sizeof *l->x);
  if (!l->cell || !l->from || !l->x) {
    hd_nbody_let_free(l);
    return hd_fail(ctx, HD_ERR_NOMEM, "nbody: out of host memory for a local essential tree");
  }
  l->y = l->x + l->n, l->z = l->y + l->n, l->m = l->z + l->n;
  hd_nbody_let_pass(cell, ncell, x, y, z, m, b, nbox, l);
  return HD_OK;
}

/* A LET's pull added to the walkers at sorted positions p of a range:
 * a[p] += the walk of the LET from (x[p], y[p], z[p]); on the backend,
 * the LET's arrays there (uploaded). */
typedef struct hd_nbody_let_walk_args {
  const hd_nbody_cell *cell;
  hd_idx ncell;
  const hd_real *lx, *ly, *lz, *lm; /* the LET's bodies */
  const hd_real *x, *y, *z;         /* the walkers */
  hd_real *ax, *ay, *az;            /* by walker, added to */
  hd_real eps2;
} hd_nbody_let_walk_args;

HD_FN void hd_nbody_let_walk_pt(const hd_nbody_let_walk_args *a, hd_idx p) {
  hd_real ax = a->ax[p], ay = a->ay[p], az = a->az[p];
  hd_nbody_walk_from(a->cell, a->ncell, a->lx, a->ly, a->lz, a->lm, a->eps2, a->x[p], a->y[p], a->z[p], &ax, &ay, &az);
  a->ax[p] = ax, a->ay[p] = ay, a->az[p] = az;
}
HD_DEFINE_FOR_1D(hd_nbody_let_walk, hd_nbody_let_walk_pt, hd_nbody_let_walk_args)

#endif /* HD_NBODY_LET_H */
