/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/nbody_tree.h - Barnes-Hut tree forces for the 3-D softened N-body
 * problem of hd/nbody.h (G = 1).
 *
 * The bodies are sorted along a Morton (Z-order) curve of 21 bits an axis
 * over their bounding cube, and the octree is read off the sorted keys: a
 * cell of more than `leaf` bodies splits into its occupied octants.  Cells
 * are stored in depth-first order, each knowing the cell after its subtree,
 * so neither the walk nor the bottom-up pass needs a stack.  Cells carry the
 * mass, centre of mass and traceless quadrupole
 * Q_jk = sum m (3 r_j r_k - r^2 delta_jk) about it, combined bottom-up by the
 * parallel-axis rule in double.
 *
 * A body opens a cell when it comes nearer the cell's centre of mass than
 * l / theta + delta (l the cell's side, delta the distance from its geometric
 * centre to its centre of mass: Salmon-Warren's guard against a far centre
 * of mass).  Bodies walk in the sorted order, so a GPU warp's neighbouring
 * bodies take nearly the same path.  A cell not opened acts through its
 * multipoles, softened like the pair law (r^2 = |d|^2 + eps^2):
 *   a = M d / r^3 - Q d / r^5 + 5/2 (d.Q.d) d / r^7,   d = x_cell - x_i.
 * Leaves' bodies act by hd_nbody_pair.  theta = 0 opens every cell: the
 * direct sum in tree order.
 *
 * The build runs on the backend, as a sequence of loops (hd_nbody_tree_build):
 * the bounding cube (a reduction), keys, a stable sort (CUB's radix sort on
 * CUDA, an LSD radix sort on the CPU), the cells that start at each sorted
 * body (an exclusive scan numbers them depth first), moments (the leaves,
 * then one pass a level, deepest first).  The same
 * point functions on every backend: serial and OpenMP build the same tree
 * bit for bit. */
#ifndef HD_NBODY_TREE_H
#define HD_NBODY_TREE_H

#include <float.h>
#include <stdint.h>

#include "launch.h"
#include "memory.h"
#include "nbody.h"
#include "reduce.h"

#if defined(HD_BACKEND_CUDA)
#include <cub/cub.cuh>
#endif

#define HD_NBODY_TREE_BITS 21 /* Morton key bits an axis */
#define HD_NBODY_TREE_MAX 200000000 /* bodies: the cells' 32-bit indices */

typedef struct hd_nbody_cell {
  hd_real x, y, z, m;   /* centre of mass, mass */
  hd_real q[6];         /* Q xx yy zz xy xz yz */
  hd_real open2;        /* opened when a body comes nearer than sqrt(open2) */
  int32_t first, count; /* leaf: bodies [first, first + count) of the sorted order; internal: count 0 */
  int32_t next;         /* the cell after this one's subtree */
} hd_nbody_cell;

typedef struct hd_nbody_walk_args {
  const hd_nbody_cell *cell;
  const hd_real *x, *y, *z, *m; /* sorted */
  const hd_idx *order;          /* sorted position -> body (NULL: ax, ay, az by sorted position) */
  hd_real *ax, *ay, *az;        /* by body */
  hd_real eps2;
  hd_idx ncell;
} hd_nbody_walk_args;

/* The pull of a cell's multipoles at separation d = x_cell - x_i. */
HD_FN void hd_nbody_cell_pull(const hd_nbody_cell *c, hd_real dx, hd_real dy, hd_real dz, hd_real eps2, hd_real *ax,
                              hd_real *ay, hd_real *az) {
  const hd_real r2 = eps2 + dx * dx + dy * dy + dz * dz, inv = hd_rsqrt(r2), inv2 = inv * inv;
  const hd_real inv3 = inv * inv2, inv5 = inv3 * inv2;
  const hd_real qx = c->q[0] * dx + c->q[3] * dy + c->q[4] * dz;
  const hd_real qy = c->q[3] * dx + c->q[1] * dy + c->q[5] * dz;
  const hd_real qz = c->q[4] * dx + c->q[5] * dy + c->q[2] * dz;
  const hd_real s = c->m * inv3 + HD_R(2.5) * (qx * dx + qy * dy + qz * dz) * inv5 * inv2;
  *ax += s * dx - qx * inv5;
  *ay += s * dy - qy * inv5;
  *az += s * dz - qz * inv5;
}

/* The pull on a point (xi, yi, zi) of the ncell cells from the root, their
 * leaves' bodies at x, y, z, m (the tree's own, or a local essential
 * tree's, hd/nbody_let.h), added to *ax, *ay, *az. */
HD_FN void hd_nbody_walk_from(const hd_nbody_cell *cells, hd_idx ncell, const hd_real *x, const hd_real *y,
                              const hd_real *z, const hd_real *m, hd_real eps2, hd_real xi, hd_real yi, hd_real zi,
                              hd_real *ax, hd_real *ay, hd_real *az) {
  const int guard = !(eps2 > HD_R(0));
  hd_idx c = 0;
  while (c < ncell) {
    const hd_nbody_cell *cell = &cells[c];
    const hd_real dx = cell->x - xi, dy = cell->y - yi, dz = cell->z - zi;
    if (dx * dx + dy * dy + dz * dz >= cell->open2) {
      hd_nbody_cell_pull(cell, dx, dy, dz, eps2, ax, ay, az);
      c = cell->next;
    } else if (cell->count > 0) {
      hd_idx j;
      for (j = cell->first; j < (hd_idx)cell->first + cell->count; ++j)
        hd_nbody_pair(x[j] - xi, y[j] - yi, z[j] - zi, m[j], eps2, guard, ax, ay, az);
      c = cell->next;
    } else {
      ++c;
    }
  }
}

/* Body at sorted position p: the walk from the root. */
HD_FN void hd_nbody_walk_pt(const hd_nbody_walk_args *a, hd_idx p) {
  hd_real ax = HD_R(0), ay = HD_R(0), az = HD_R(0);
  const hd_idx o = a->order ? a->order[p] : p;
  hd_nbody_walk_from(a->cell, a->ncell, a->x, a->y, a->z, a->m, a->eps2, a->x[p], a->y[p], a->z[p], &ax, &ay, &az);
  a->ax[o] = ax;
  a->ay[o] = ay;
  a->az[o] = az;
}
HD_DEFINE_FOR_1D(hd_nbody_walk, hd_nbody_walk_pt, hd_nbody_walk_args)

/* Values by sorted position back to the bodies: to[k][order[p]] =
 * from[k][p] (from[0] NULL: none), and the potential's (dfrom NULL: none). */
typedef struct hd_nbody_unsort_args {
  const hd_idx *order;
  const hd_real *from[3];
  hd_real *to[3];
  const double *dfrom;
  double *dto;
} hd_nbody_unsort_args;

HD_FN void hd_nbody_unsort_pt(const hd_nbody_unsort_args *a, hd_idx p) {
  const hd_idx o = a->order[p];
  if (a->from[0]) a->to[0][o] = a->from[0][p], a->to[1][o] = a->from[1][p], a->to[2][o] = a->from[2][p];
  if (a->dfrom) a->dto[o] = a->dfrom[p];
}
HD_DEFINE_FOR_1D(hd_nbody_unsort, hd_nbody_unsort_pt, hd_nbody_unsort_args)

/* The potential by the same walk, in double (diagnostics): a cell's
 * -M/r - (d.Q.d)/(2 r^5), the leaves' bodies but the body itself.  (A body
 * is never inside a cell it does not open for theta below 2/sqrt(3).) */
typedef struct hd_nbody_walk_pot_args {
  const hd_nbody_cell *cell;
  const hd_real *x, *y, *z, *m; /* sorted */
  const hd_idx *order;          /* NULL: phi by sorted position */
  double *phi;                  /* by body */
  double eps2;
  hd_idx ncell;
} hd_nbody_walk_pot_args;

HD_FN void hd_nbody_walk_potential_pt(const hd_nbody_walk_pot_args *a, hd_idx p) {
  const double xi = a->x[p], yi = a->y[p], zi = a->z[p];
  double phi = 0.0;
  hd_idx c = 0;
  while (c < a->ncell) {
    const hd_nbody_cell *cell = &a->cell[c];
    const double dx = cell->x - xi, dy = cell->y - yi, dz = cell->z - zi;
    if (dx * dx + dy * dy + dz * dz >= (double)cell->open2) {
      const double r2 = a->eps2 + dx * dx + dy * dy + dz * dz, r = sqrt(r2);
      const double dqd = cell->q[0] * dx * dx + cell->q[1] * dy * dy + cell->q[2] * dz * dz +
                         2.0 * (cell->q[3] * dx * dy + cell->q[4] * dx * dz + cell->q[5] * dy * dz);
      phi -= cell->m / r + 0.5 * dqd / (r2 * r2 * r);
      c = cell->next;
    } else if (cell->count > 0) {
      hd_idx j;
      for (j = cell->first; j < (hd_idx)cell->first + cell->count; ++j)
        if (j != p) phi += hd_nbody_pair_potential(a->x[j] - xi, a->y[j] - yi, a->z[j] - zi, a->m[j], a->eps2);
      c = cell->next;
    } else {
      ++c;
    }
  }
  a->phi[a->order ? a->order[p] : p] = phi;
}
HD_DEFINE_FOR_1D(hd_nbody_walk_potential, hd_nbody_walk_potential_pt, hd_nbody_walk_pot_args)

/* ---- building ------------------------------------------------------------- */

/* 21 bits spread to every third bit, and back. */
HD_FN uint64_t hd_nbody_spread3(uint64_t v) {
  v &= 0x1fffff;
  v = (v | v << 32) & 0x1f00000000ffffULL;
  v = (v | v << 16) & 0x1f0000ff0000ffULL;
  v = (v | v << 8) & 0x100f00f00f00f00fULL;
  v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
  v = (v | v << 2) & 0x1249249249249249ULL;
  return v;
}

HD_FN uint64_t hd_nbody_compact3(uint64_t v) {
  v &= 0x1249249249249249ULL;
  v = (v ^ v >> 2) & 0x10c30c30c30c30c3ULL;
  v = (v ^ v >> 4) & 0x100f00f00f00f00fULL;
  v = (v ^ v >> 8) & 0x1f0000ff0000ffULL;
  v = (v ^ v >> 16) & 0x1f00000000ffffULL;
  v = (v ^ v >> 32) & 0x1fffffULL;
  return v;
}

/* The Morton key of a point in the cube [lo, lo + size)^3 (x in the
 * highest bit of each octant digit; outside or NaN: clamped). */
HD_FN uint64_t hd_nbody_morton(double x, double y, double z, const double lo[3], double size) {
  const double scale = (double)(1u << HD_NBODY_TREE_BITS) / size, top = (double)((1u << HD_NBODY_TREE_BITS) - 1);
  const double u[3] = {(x - lo[0]) * scale, (y - lo[1]) * scale, (z - lo[2]) * scale};
  uint64_t k[3];
  int a;
  for (a = 0; a < 3; ++a) k[a] = (uint64_t)(u[a] > 0 ? (u[a] < top ? u[a] : top) : 0);
  return hd_nbody_spread3(k[0]) << 2 | hd_nbody_spread3(k[1]) << 1 | hd_nbody_spread3(k[2]);
}

/* Leading octant digits two keys share (21 when equal). */
HD_FN int hd_nbody_common_levels(uint64_t a, uint64_t b) {
  const uint64_t x = a ^ b;
  int lz;
  if (!x) return HD_NBODY_TREE_BITS;
#if HD_ON_DEVICE
  lz = __clzll((long long)x);
#elif defined(__GNUC__) || defined(__clang__)
  lz = __builtin_clzll(x);
#else
  for (lz = 0; !(x >> (63 - lz) & 1); ++lz) {
  }
#endif
  return (lz - 1) / 3; /* bit 63 is never used */
}

/* The first sorted body of the level-`level` cell holding body i, and the
 * body after its last (keys sorted: a gallop, then bisection). */
HD_FN hd_idx hd_nbody_cell_start(const uint64_t *key, hd_idx i, int level) {
  hd_idx in = i, out, step = 1;
  while (in - step >= 0 && hd_nbody_common_levels(key[in - step], key[i]) >= level) in -= step, step *= 2;
  out = in - step >= 0 ? in - step : -1;
  while (in - out > 1) {
    const hd_idx mid = out + (in - out) / 2;
    if (hd_nbody_common_levels(key[mid], key[i]) >= level) in = mid;
    else out = mid;
  }
  return in;
}

HD_FN hd_idx hd_nbody_cell_end(const uint64_t *key, hd_idx n, hd_idx i, int level) {
  hd_idx in = i, out, step = 1;
  while (in + step < n && hd_nbody_common_levels(key[in + step], key[i]) >= level) in += step, step *= 2;
  out = in + step < n ? in + step : n;
  while (out - in > 1) {
    const hd_idx mid = in + (out - in) / 2;
    if (hd_nbody_common_levels(key[mid], key[i]) >= level) in = mid;
    else out = mid;
  }
  return out;
}

/* The cells that start at sorted body i: levels [*lo, *hi], the last a
 * leaf; 0 when none does.  A cell of level L starting at i holds more than
 * `leaf` bodies exactly when body i + leaf shares its first L digits, so
 * only the parent's start needs a search. */
HD_FN int hd_nbody_chain(const uint64_t *key, hd_idx n, int leaf, hd_idx i, int *lo, int *hi) {
  int a = 0, d;
  if (i > 0) {
    const int p = hd_nbody_common_levels(key[i - 1], key[i]); /* the parent's level */
    hd_idx s;
    if (p >= HD_NBODY_TREE_BITS) return 0; /* the key of body i - 1 */
    s = hd_nbody_cell_start(key, i - 1, p);
    if (s + leaf >= n || hd_nbody_common_levels(key[s], key[s + leaf]) < p) return 0; /* the parent is a leaf */
    a = p + 1;
  }
  d = i + leaf < n ? hd_nbody_common_levels(key[i], key[i + leaf]) : -1;
  *lo = a;
  *hi = d + 1 > a ? (d + 1 < HD_NBODY_TREE_BITS ? d + 1 : HD_NBODY_TREE_BITS) : a;
  return 1;
}

typedef struct hd_nbody_bounds {
  double lo[3], hi[3];
} hd_nbody_bounds;

typedef struct hd_nbody_key_args {
  const hd_real *x, *y, *z;
  uint64_t *key;
  hd_idx *idx;
  double lo[3], size;
} hd_nbody_key_args;

HD_FN void hd_nbody_bounds_init(hd_nbody_bounds *b) {
  int a;
  for (a = 0; a < 3; ++a) b->lo[a] = DBL_MAX, b->hi[a] = -DBL_MAX;
}

HD_FN void hd_nbody_bounds_merge(hd_nbody_bounds *b, const hd_nbody_bounds *o) {
  int a;
  for (a = 0; a < 3; ++a) {
    b->lo[a] = o->lo[a] < b->lo[a] ? o->lo[a] : b->lo[a];
    b->hi[a] = o->hi[a] > b->hi[a] ? o->hi[a] : b->hi[a];
  }
}

/* Non-finite coordinates make the box non-finite (caught by the caller). */
HD_FN void hd_nbody_bounds_pt(const hd_nbody_key_args *k, hd_idx i, hd_nbody_bounds *b) {
  const double p[3] = {k->x[i], k->y[i], k->z[i]};
  int a;
  for (a = 0; a < 3; ++a) {
    b->lo[a] = !(p[a] >= b->lo[a]) ? p[a] : b->lo[a];
    b->hi[a] = !(p[a] <= b->hi[a]) ? p[a] : b->hi[a];
  }
}
HD_DEFINE_REDUCE_1D(hd_nbody_bounds_of, hd_nbody_key_args, hd_nbody_bounds, hd_nbody_bounds_pt, hd_nbody_bounds_init,
                    hd_nbody_bounds_merge)

HD_FN void hd_nbody_key_pt(const hd_nbody_key_args *k, hd_idx i) {
  k->key[i] = hd_nbody_morton(k->x[i], k->y[i], k->z[i], k->lo, k->size);
  k->idx[i] = i;
}
HD_DEFINE_FOR_1D(hd_nbody_keys, hd_nbody_key_pt, hd_nbody_key_args)

typedef struct hd_nbody_cells_args {
  const hd_real *x, *y, *z, *m; /* by body, then (moments) sorted */
  const hd_idx *idx;
  hd_real *sorted;              /* x, y, z, m: 4 n */
  const uint64_t *key;          /* sorted */
  hd_idx *start;                /* n + 1: cells starting at each body, then the first of them */
  hd_nbody_cell *cell;
  unsigned char *level;
  double *mom;                  /* per cell: m, x, y, z, q[6] in double */
  hd_idx n;
  double lo[3], size, theta;
  int leaf, pass;
} hd_nbody_cells_args;

HD_FN void hd_nbody_gather_pt(const hd_nbody_cells_args *a, hd_idx i) {
  const hd_idx b = a->idx[i];
  a->sorted[i] = a->x[b], a->sorted[a->n + i] = a->y[b], a->sorted[2 * a->n + i] = a->z[b];
  a->sorted[3 * a->n + i] = a->m[b];
}
HD_DEFINE_FOR_1D(hd_nbody_gather, hd_nbody_gather_pt, hd_nbody_cells_args)

HD_FN void hd_nbody_count_pt(const hd_nbody_cells_args *a, hd_idx i) {
  int lo, hi;
  a->start[i] = i < a->n && hd_nbody_chain(a->key, a->n, a->leaf, i, &lo, &hi) ? hi - lo + 1 : 0;
}
HD_DEFINE_FOR_1D(hd_nbody_count_cells, hd_nbody_count_pt, hd_nbody_cells_args)

/* After the scan: the cells starting at body i, ends and links. */
HD_FN void hd_nbody_link_pt(const hd_nbody_cells_args *a, hd_idx i) {
  int lo, hi, l;
  hd_idx c = a->start[i];
  if (!hd_nbody_chain(a->key, a->n, a->leaf, i, &lo, &hi)) return;
  for (l = lo; l <= hi; ++l, ++c) {
    const hd_idx e = l == 0 ? a->n : hd_nbody_cell_end(a->key, a->n, i, l);
    a->cell[c].first = (int32_t)i;
    a->cell[c].count = l == hi ? (int32_t)(e - i) : 0;
    a->cell[c].next = (int32_t)a->start[e];
    a->level[c] = (unsigned char)l;
  }
}
HD_DEFINE_FOR_1D(hd_nbody_link_cells, hd_nbody_link_pt, hd_nbody_cells_args)

/* Moments of cell c: leaves from their bodies (pass -1), internal cells of
 * level `pass` from their children (the cells from c + 1, by next links). */
HD_FN void hd_nbody_moment_pt(const hd_nbody_cells_args *a, hd_idx c) {
  hd_nbody_cell *cell = &a->cell[c];
  const int level = a->level[c];
  double mo[10], ix[3], side;
  int k;
  if (a->pass < 0 ? cell->count == 0 : cell->count > 0 || level != a->pass) return;
  for (k = 0; k < 10; ++k) mo[k] = 0.0;
  if (cell->count > 0) {
    const hd_real *x = a->sorted, *y = x + a->n, *z = y + a->n, *m = z + a->n;
    const hd_idx first = cell->first, end = first + cell->count;
    hd_idx j;
    for (j = first; j < end; ++j)
      mo[0] += m[j], mo[1] += (double)m[j] * x[j], mo[2] += (double)m[j] * y[j], mo[3] += (double)m[j] * z[j];
    if (mo[0] > 0) mo[1] /= mo[0], mo[2] /= mo[0], mo[3] /= mo[0];
    for (j = first; j < end; ++j) {
      const double r[3] = {x[j] - mo[1], y[j] - mo[2], z[j] - mo[3]}, r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
      const double mj = m[j];
      mo[4] += mj * (3 * r[0] * r[0] - r2), mo[5] += mj * (3 * r[1] * r[1] - r2);
      mo[6] += mj * (3 * r[2] * r[2] - r2), mo[7] += mj * 3 * r[0] * r[1];
      mo[8] += mj * 3 * r[0] * r[2], mo[9] += mj * 3 * r[1] * r[2];
    }
  } else { /* the mass and centre, then Q by the parallel-axis rule */
    hd_idx kid;
    for (kid = c + 1; kid < cell->next; kid = a->cell[kid].next) {
      const double *km = &a->mom[10 * kid];
      mo[0] += km[0], mo[1] += km[0] * km[1], mo[2] += km[0] * km[2], mo[3] += km[0] * km[3];
    }
    if (mo[0] > 0) mo[1] /= mo[0], mo[2] /= mo[0], mo[3] /= mo[0];
    for (kid = c + 1; kid < cell->next; kid = a->cell[kid].next) {
      const double *km = &a->mom[10 * kid];
      const double s[3] = {km[1] - mo[1], km[2] - mo[2], km[3] - mo[3]}, s2 = s[0] * s[0] + s[1] * s[1] + s[2] * s[2];
      mo[4] += km[4] + km[0] * (3 * s[0] * s[0] - s2), mo[5] += km[5] + km[0] * (3 * s[1] * s[1] - s2);
      mo[6] += km[6] + km[0] * (3 * s[2] * s[2] - s2), mo[7] += km[7] + km[0] * 3 * s[0] * s[1];
      mo[8] += km[8] + km[0] * 3 * s[0] * s[2], mo[9] += km[9] + km[0] * 3 * s[1] * s[2];
    }
  }
  for (k = 0; k < 10; ++k) a->mom[10 * c + k] = mo[k];
  cell->x = (hd_real)mo[1], cell->y = (hd_real)mo[2], cell->z = (hd_real)mo[3], cell->m = (hd_real)mo[0];
  for (k = 0; k < 6; ++k) cell->q[k] = (hd_real)mo[4 + k];
  { /* the cell's cube from the digits it is named by */
    const uint64_t prefix = a->key[cell->first] >> 3 * (HD_NBODY_TREE_BITS - level);
    double g2 = 0, reach;
    side = a->size / (double)((uint64_t)1 << level);
    ix[0] = (double)hd_nbody_compact3(prefix >> 2), ix[1] = (double)hd_nbody_compact3(prefix >> 1);
    ix[2] = (double)hd_nbody_compact3(prefix);
    for (k = 0; k < 3; ++k) {
      const double g = a->lo[k] + (ix[k] + 0.5) * side - mo[1 + k];
      g2 += g * g;
    }
    reach = a->theta > 0 ? side / a->theta + sqrt(g2) : HUGE_VAL;
    cell->open2 = (hd_real)(reach < 1e150 ? reach * reach : HUGE_VAL);
  }
}
HD_DEFINE_FOR_1D(hd_nbody_moments, hd_nbody_moment_pt, hd_nbody_cells_args)

/* ---- the build's sort and scan, per backend ------------------------------- */

typedef struct hd_nbody_tree {
  /* input: bodies on the backend */
  hd_idx n;
  const hd_real *x, *y, *z, *m;
  double theta;
  int leaf;
  /* called after each phase of a build when set (timing: it may synchronise) */
  void (*mark)(void *user, int phase);
  void *user;
  /* output on the backend, owned by the tree (hd_nbody_tree_free) */
  hd_nbody_cell *cell;
  hd_real *sorted; /* x, y, z, m in the sorted order: 4 n */
  hd_idx *order;   /* sorted position -> body */
  hd_idx ncell;
  double lo[3], size;
  /* work */
  uint64_t *key, *key2;
  hd_idx *idx2, *start;
  unsigned char *level;
  double *mom;
  void *temp;
  size_t temp_bytes;
  hd_idx cap, alloc_n;
} hd_nbody_tree;

enum { HD_NBODY_TREE_KEYS, HD_NBODY_TREE_SORT, HD_NBODY_TREE_CELLS, HD_NBODY_TREE_MOMENTS, HD_NBODY_TREE_PHASES };

HD_HOST_FN void hd_nbody_tree_free(hd_ctx *ctx, hd_nbody_tree *t) {
  hd_dev_free(ctx, t->cell), hd_dev_free(ctx, t->sorted), hd_dev_free(ctx, t->order);
  hd_dev_free(ctx, t->key), hd_dev_free(ctx, t->key2), hd_dev_free(ctx, t->idx2), hd_dev_free(ctx, t->start);
  hd_dev_free(ctx, t->level), hd_dev_free(ctx, t->mom), hd_dev_free(ctx, t->temp);
  t->cell = NULL, t->sorted = NULL, t->order = t->idx2 = t->start = NULL, t->key = t->key2 = NULL;
  t->level = NULL, t->mom = NULL, t->temp = NULL, t->temp_bytes = 0, t->cap = t->alloc_n = 0;
}

/* Backend scratch of at least `bytes` (CUB's temporary storage). */
HD_HOST_FN hd_status hd_nbody_tree_temp(hd_ctx *ctx, hd_nbody_tree *t, size_t bytes) {
  if (bytes <= t->temp_bytes) return HD_OK;
  hd_dev_free(ctx, t->temp);
  t->temp = NULL, t->temp_bytes = 0;
  {
    const hd_status s = hd_dev_alloc(ctx, &t->temp, bytes);
    if (s != HD_OK) return s;
  }
  t->temp_bytes = bytes;
  return HD_OK;
}

#if defined(HD_BACKEND_CUDA)

/* Keys with the bodies' indices, stable, into t->key and t->order. */
HD_HOST_FN hd_status hd_nbody_tree_sort(hd_ctx *ctx, hd_nbody_tree *t) {
  cub::DoubleBuffer<uint64_t> k(t->key, t->key2);
  cub::DoubleBuffer<hd_idx> v(t->order, t->idx2);
  size_t bytes = 0;
  hd_status s;
  HD_CUDA_TRY(ctx, cub::DeviceRadixSort::SortPairs(NULL, bytes, k, v, (int)t->n, 0, 3 * HD_NBODY_TREE_BITS,
                                                   hd_stream(ctx)));
  if ((s = hd_nbody_tree_temp(ctx, t, bytes)) != HD_OK) return s;
  bytes = t->temp_bytes;
  HD_CUDA_TRY(ctx, cub::DeviceRadixSort::SortPairs(t->temp, bytes, k, v, (int)t->n, 0, 3 * HD_NBODY_TREE_BITS,
                                                   hd_stream(ctx)));
  if (k.Current() != t->key) t->key2 = t->key, t->key = k.Current();
  if (v.Current() != t->order) t->idx2 = t->order, t->order = v.Current();
  return HD_OK;
}

/* start[0..n] to its exclusive prefix sums, through idx2. */
HD_HOST_FN hd_status hd_nbody_tree_scan(hd_ctx *ctx, hd_nbody_tree *t) {
  size_t bytes = 0;
  hd_status s;
  HD_CUDA_TRY(ctx, cub::DeviceScan::ExclusiveSum(NULL, bytes, t->start, t->idx2, (int)(t->n + 1), hd_stream(ctx)));
  if ((s = hd_nbody_tree_temp(ctx, t, bytes)) != HD_OK) return s;
  bytes = t->temp_bytes;
  HD_CUDA_TRY(ctx, cub::DeviceScan::ExclusiveSum(t->temp, bytes, t->start, t->idx2, (int)(t->n + 1), hd_stream(ctx)));
  {
    hd_idx *swap = t->start;
    t->start = t->idx2, t->idx2 = swap;
  }
  return HD_OK;
}

#else

/* A least significant digit radix sort of 11-bit digits over the 63 key
 * bits: six stable passes, ending where it began. */
HD_HOST_FN hd_status hd_nbody_tree_sort(hd_ctx *ctx, hd_nbody_tree *t) {
  hd_idx count[2048], i;
  int pass, d;
  (void)ctx;
  for (pass = 0; pass < 6; ++pass) {
    const int shift = 11 * pass;
    const uint64_t *ks = pass % 2 ? t->key2 : t->key;
    const hd_idx *vs = pass % 2 ? t->idx2 : t->order;
    uint64_t *kd = pass % 2 ? t->key : t->key2;
    hd_idx *vd = pass % 2 ? t->order : t->idx2, sum = 0;
    for (d = 0; d < 2048; ++d) count[d] = 0;
    for (i = 0; i < t->n; ++i) ++count[ks[i] >> shift & 2047];
    for (d = 0; d < 2048; ++d) {
      const hd_idx c = count[d];
      count[d] = sum, sum += c;
    }
    for (i = 0; i < t->n; ++i) {
      const hd_idx to = count[ks[i] >> shift & 2047]++;
      kd[to] = ks[i], vd[to] = vs[i];
    }
  }
  return HD_OK;
}

HD_HOST_FN hd_status hd_nbody_tree_scan(hd_ctx *ctx, hd_nbody_tree *t) {
  hd_idx i, sum = 0;
  (void)ctx;
  for (i = 0; i <= t->n; ++i) {
    const hd_idx c = t->start[i];
    t->start[i] = sum, sum += c;
  }
  return HD_OK;
}

#endif

/* ---- the build ------------------------------------------------------------ */

/* Room for n bodies and `cells` cells. */
HD_HOST_FN hd_status hd_nbody_tree_room(hd_ctx *ctx, hd_nbody_tree *t, hd_idx cells) {
  const hd_idx n = t->n;
  hd_status s = HD_OK;
  if (t->alloc_n != n) {
    hd_nbody_tree_free(ctx, t);
    if ((s = hd_dev_alloc(ctx, (void **)&t->key, (size_t)n * sizeof *t->key)) != HD_OK ||
        (s = hd_dev_alloc(ctx, (void **)&t->key2, (size_t)n * sizeof *t->key2)) != HD_OK ||
        /* order and idx2 trade places in the sort, idx2 and start in the scan */
        (s = hd_dev_alloc(ctx, (void **)&t->order, (size_t)(n + 1) * sizeof *t->order)) != HD_OK ||
        (s = hd_dev_alloc(ctx, (void **)&t->idx2, (size_t)(n + 1) * sizeof *t->idx2)) != HD_OK ||
        (s = hd_dev_alloc(ctx, (void **)&t->start, (size_t)(n + 1) * sizeof *t->start)) != HD_OK ||
        (s = hd_dev_alloc(ctx, (void **)&t->sorted, (size_t)(4 * n) * sizeof *t->sorted)) != HD_OK)
      return s;
    t->alloc_n = n;
  }
  if (cells > t->cap) {
    const hd_idx cap = cells + cells / 4;
    hd_dev_free(ctx, t->cell), hd_dev_free(ctx, t->level), hd_dev_free(ctx, t->mom);
    t->cell = NULL, t->level = NULL, t->mom = NULL, t->cap = 0;
    if ((s = hd_dev_alloc(ctx, (void **)&t->cell, (size_t)cap * sizeof *t->cell)) != HD_OK ||
        (s = hd_dev_alloc(ctx, (void **)&t->level, (size_t)cap)) != HD_OK ||
        (s = hd_dev_alloc(ctx, (void **)&t->mom, (size_t)cap * 10 * sizeof *t->mom)) != HD_OK)
      return s;
    t->cap = cap;
  }
  return HD_OK;
}

#define HD_NBODY_TREE_TRY(call)                                                    \
  do {                                                                             \
    const hd_status hd_s_ = (call);                                                \
    if (hd_s_ != HD_OK) return hd_s_;                                              \
  } while (0)

/* The tree of t->n bodies at x, y, z, m (backend arrays), on the backend. */
HD_HOST_FN hd_status hd_nbody_tree_build(hd_ctx *ctx, hd_nbody_tree *t) {
  hd_nbody_key_args k;
  hd_nbody_cells_args c;
  hd_nbody_bounds bounds;
  hd_idx total;
  int a, level;
  if (t->n <= 0 || t->n > HD_NBODY_TREE_MAX) return hd_fail(ctx, HD_ERR_ARG, "nbody tree: 1 to %d bodies, not %lld", HD_NBODY_TREE_MAX, (long long)t->n);
  if (t->leaf < 1) return hd_fail(ctx, HD_ERR_ARG, "nbody tree: the leaf size starts at 1");
  HD_NBODY_TREE_TRY(hd_nbody_tree_room(ctx, t, 0));
  k.x = t->x, k.y = t->y, k.z = t->z, k.key = t->key, k.idx = t->order;
  HD_NBODY_TREE_TRY(hd_nbody_bounds_of(ctx, &k, 0, t->n, &bounds));
  t->size = 0;
  for (a = 0; a < 3; ++a) {
    const double w = bounds.hi[a] - bounds.lo[a];
    if (!(w >= 0 && w <= DBL_MAX)) return hd_fail(ctx, HD_ERR_NONFINITE, "nbody tree: a body's position is not finite");
    t->lo[a] = k.lo[a] = bounds.lo[a], t->size = w > t->size ? w : t->size;
  }
  t->size = k.size = t->size > 0 ? t->size * (1 + 1e-9) : 1.0; /* the farthest body inside the cube */
  HD_NBODY_TREE_TRY(hd_nbody_keys(ctx, &k, 0, t->n));
  if (t->mark) t->mark(t->user, HD_NBODY_TREE_KEYS);
  HD_NBODY_TREE_TRY(hd_nbody_tree_sort(ctx, t));
  if (t->mark) t->mark(t->user, HD_NBODY_TREE_SORT);
  c.x = t->x, c.y = t->y, c.z = t->z, c.m = t->m, c.idx = t->order, c.sorted = t->sorted, c.key = t->key;
  c.start = t->start, c.n = t->n, c.leaf = t->leaf, c.theta = t->theta, c.size = t->size;
  for (a = 0; a < 3; ++a) c.lo[a] = t->lo[a];
  HD_NBODY_TREE_TRY(hd_nbody_gather(ctx, &c, 0, t->n));
  HD_NBODY_TREE_TRY(hd_nbody_count_cells(ctx, &c, 0, t->n + 1));
  HD_NBODY_TREE_TRY(hd_nbody_tree_scan(ctx, t));
  HD_NBODY_TREE_TRY(hd_dev_download(ctx, &total, t->start + t->n, sizeof total));
  if (total > INT32_MAX) return hd_fail(ctx, HD_ERR_ARG, "nbody tree: %lld cells pass 32-bit indices", (long long)total);
  HD_NBODY_TREE_TRY(hd_nbody_tree_room(ctx, t, total));
  t->ncell = total;
  c.start = t->start, c.cell = t->cell, c.level = t->level, c.mom = t->mom;
  HD_NBODY_TREE_TRY(hd_nbody_link_cells(ctx, &c, 0, t->n));
  if (t->mark) t->mark(t->user, HD_NBODY_TREE_CELLS);
  c.x = t->sorted, c.y = t->sorted + t->n, c.z = t->sorted + 2 * t->n, c.m = t->sorted + 3 * t->n;
  for (level = -1; level < HD_NBODY_TREE_BITS; ++level) { /* leaves, then internal cells deepest first */
    c.pass = level < 0 ? -1 : HD_NBODY_TREE_BITS - 1 - level;
    HD_NBODY_TREE_TRY(hd_nbody_moments(ctx, &c, 0, total));
  }
  if (t->mark) t->mark(t->user, HD_NBODY_TREE_MOMENTS);
  return HD_OK;
}

#endif /* HD_NBODY_TREE_H */
