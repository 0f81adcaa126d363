/* hd/nbody_tree.h - Barnes-Hut tree forces for the 3-D softened N-body
 * problem of hd/nbody.h (G = 1).
 *
 * The bodies are sorted along a Morton (Z-order) curve of 21 bits an axis
 * over their bounding cube; the octree is cut from the sorted keys (a cell
 * of more than `leaf` bodies splits into its occupied octants) and stored in
 * depth-first order, each cell knowing the cell after its subtree, so the
 * walk needs no stack.  Cells carry the mass, centre of mass and traceless
 * quadrupole Q_jk = sum m (3 r_j r_k - r^2 delta_jk) about it, combined
 * bottom-up by the parallel-axis rule.
 *
 * A body i opens a cell when |d| < l / theta + delta (l the cell's side,
 * delta the distance from its geometric centre to its centre of mass: the
 * Salmon-Warren guard against a far centre of mass); otherwise the cell acts
 * through its multipoles, softened like the pair law (r^2 = |d|^2 + eps^2):
 *   a = M d / r^3 - Q d / r^5 + 5/2 (d.Q.d) d / r^7,   d = x_cell - x_i.
 * Leaves' bodies act by hd_nbody_pair.  theta = 0 opens every cell: the
 * direct sum in tree order.
 *
 * Building is host code (keys, sort, cut, moments, in double); the walk is
 * one HD_FN point a body, on every backend. */
#ifndef HD_NBODY_TREE_H
#define HD_NBODY_TREE_H

#include <stdint.h>

#include "nbody.h"

#define HD_NBODY_TREE_BITS 21 /* Morton key bits an axis */

typedef struct hd_nbody_cell {
  hd_real x, y, z, m;   /* centre of mass, mass */
  hd_real q[6];         /* Q xx yy zz xy xz yz */
  hd_real open2;        /* opened when |d|^2 < open2 */
  int32_t first, count; /* leaf: bodies [first, first + count) of the sorted order; internal: count 0 */
  int32_t next;         /* the cell after this one's subtree */
} hd_nbody_cell;

typedef struct hd_nbody_walk_args {
  const hd_nbody_cell *cell;
  const hd_real *x, *y, *z, *m; /* sorted */
  const hd_idx *order;          /* sorted position -> body */
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

/* Body at sorted position p: the walk from the root. */
HD_FN void hd_nbody_walk_pt(const hd_nbody_walk_args *a, hd_idx p) {
  const hd_real xi = a->x[p], yi = a->y[p], zi = a->z[p];
  const int guard = !(a->eps2 > HD_R(0));
  hd_real ax = HD_R(0), ay = HD_R(0), az = HD_R(0);
  hd_idx c = 0;
  while (c < a->ncell) {
    const hd_nbody_cell *cell = &a->cell[c];
    const hd_real dx = cell->x - xi, dy = cell->y - yi, dz = cell->z - zi;
    if (dx * dx + dy * dy + dz * dz >= cell->open2) {
      hd_nbody_cell_pull(cell, dx, dy, dz, a->eps2, &ax, &ay, &az);
      c = cell->next;
    } else if (cell->count > 0) {
      hd_idx j;
      for (j = cell->first; j < (hd_idx)cell->first + cell->count; ++j)
        hd_nbody_pair(a->x[j] - xi, a->y[j] - yi, a->z[j] - zi, a->m[j], a->eps2, guard, &ax, &ay, &az);
      c = cell->next;
    } else {
      ++c;
    }
  }
  a->ax[a->order[p]] = ax;
  a->ay[a->order[p]] = ay;
  a->az[a->order[p]] = az;
}
HD_DEFINE_FOR_1D(hd_nbody_walk, hd_nbody_walk_pt, hd_nbody_walk_args)

/* The potential by the same walk, in double (diagnostics): a cell's
 * -M/r - (d.Q.d)/(2 r^5), the leaves' bodies but the body itself.  (A body
 * is never inside a cell it does not open for theta below 2/sqrt(3).) */
typedef struct hd_nbody_walk_pot_args {
  const hd_nbody_cell *cell;
  const hd_real *x, *y, *z, *m; /* sorted */
  const hd_idx *order;
  double *phi; /* by body */
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
  a->phi[a->order[p]] = phi;
}
HD_DEFINE_FOR_1D(hd_nbody_walk_potential, hd_nbody_walk_potential_pt, hd_nbody_walk_pot_args)

/* ---- building (host) ------------------------------------------------------ */

/* 21 bits spread to every third bit. */
HD_HOST_FN uint64_t hd_nbody_spread3(uint64_t v) {
  v &= 0x1fffff;
  v = (v | v << 32) & 0x1f00000000ffffULL;
  v = (v | v << 16) & 0x1f0000ff0000ffULL;
  v = (v | v << 8) & 0x100f00f00f00f00fULL;
  v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
  v = (v | v << 2) & 0x1249249249249249ULL;
  return v;
}

/* The Morton key of a point in the cube [lo, lo + size)^3. */
HD_HOST_FN uint64_t hd_nbody_morton(double x, double y, double z, const double lo[3], double size) {
  const double scale = (double)(1u << HD_NBODY_TREE_BITS) / size, top = (double)((1u << HD_NBODY_TREE_BITS) - 1);
  const double u[3] = {(x - lo[0]) * scale, (y - lo[1]) * scale, (z - lo[2]) * scale};
  uint64_t k[3];
  int a;
  for (a = 0; a < 3; ++a) k[a] = (uint64_t)(u[a] < 0 ? 0 : u[a] > top ? top : u[a]);
  return hd_nbody_spread3(k[0]) << 2 | hd_nbody_spread3(k[1]) << 1 | hd_nbody_spread3(k[2]);
}

typedef struct hd_nbody_keyed {
  uint64_t key;
  hd_idx body;
} hd_nbody_keyed;

/* Sort by key, equal keys in index order (the input's): a least
 * significant digit radix sort of 11-bit digits over the 63 key bits,
 * stable, through tmp. */
HD_HOST_FN void hd_nbody_radix_sort(hd_nbody_keyed *a, hd_nbody_keyed *tmp, hd_idx n) {
  hd_idx count[2048], i;
  int pass, d;
  for (pass = 0; pass < 6; ++pass) {
    const int shift = 11 * pass;
    hd_nbody_keyed *src = pass % 2 ? tmp : a, *dst = pass % 2 ? a : tmp;
    hd_idx sum = 0;
    for (d = 0; d < 2048; ++d) count[d] = 0;
    for (i = 0; i < n; ++i) ++count[src[i].key >> shift & 2047];
    for (d = 0; d < 2048; ++d) {
      const hd_idx c = count[d];
      count[d] = sum, sum += c;
    }
    for (i = 0; i < n; ++i) dst[count[src[i].key >> shift & 2047]++] = src[i];
  }
}

typedef struct hd_nbody_tree {
  /* input */
  hd_idx n;
  const double *x, *y, *z, *m;
  double theta;
  int leaf;
  /* work and output, caller-allocated: keyed (2 n: the sort's buffer
   * after the keys), order n, sorted 4 n, cells and 10 doubles a cell of
   * moments for cap = hd_nbody_tree_cells(n, leaf) */
  hd_nbody_keyed *keyed;
  hd_nbody_cell *cell;
  double *mom;    /* per cell: m, x, y, z, q[6] in double */
  hd_idx *order;  /* sorted position -> body */
  double *sorted; /* 4 n: x, y, z, m in the sorted order */
  hd_idx ncell, cap;
  double lo[3], size;
} hd_nbody_tree;

/* Cells a tree of n bodies can need: at most n leaves, n - 1 cells that
 * branch, and on each of the 21 levels at most n / (leaf + 1) cells of one
 * child (each holds more than leaf bodies). */
HD_HOST_FN hd_idx hd_nbody_tree_cells(hd_idx n, int leaf) { return 2 * n + HD_NBODY_TREE_BITS * (n / (leaf + 1)) + 64; }

/* Cut the sorted bodies [first, first + count), whose keys share their
 * top `level` octant digits, into cell number t->ncell and its subtree. */
static void hd_nbody_cut(hd_nbody_tree *t, hd_idx first, hd_idx count, int level, const double corner[3]) {
  const hd_idx me = t->ncell++;
  const double side = t->size / (double)(1u << level);
  double *mo = &t->mom[10 * me];
  hd_nbody_cell *c = &t->cell[me];
  int k;
  for (k = 0; k < 10; ++k) mo[k] = 0.0;
  if (count <= t->leaf || level == HD_NBODY_TREE_BITS) {
    const double *x = t->sorted, *y = x + t->n, *z = y + t->n, *m = z + t->n;
    hd_idx j;
    for (j = first; j < first + count; ++j) /* moments from the bodies */
      mo[0] += m[j], mo[1] += m[j] * x[j], mo[2] += m[j] * y[j], mo[3] += m[j] * z[j];
    if (mo[0] > 0) mo[1] /= mo[0], mo[2] /= mo[0], mo[3] /= mo[0];
    for (j = first; j < first + count; ++j) {
      const double r[3] = {x[j] - mo[1], y[j] - mo[2], z[j] - mo[3]}, r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
      mo[4] += m[j] * (3 * r[0] * r[0] - r2), mo[5] += m[j] * (3 * r[1] * r[1] - r2);
      mo[6] += m[j] * (3 * r[2] * r[2] - r2), mo[7] += m[j] * 3 * r[0] * r[1];
      mo[8] += m[j] * 3 * r[0] * r[2], mo[9] += m[j] * 3 * r[1] * r[2];
    }
    c->first = (int32_t)first, c->count = (int32_t)count;
  } else {
    const int shift = 3 * (HD_NBODY_TREE_BITS - 1 - level);
    hd_idx j = first, kids[8], nk = 0;
    int o;
    c->first = (int32_t)first, c->count = 0;
    while (j < first + count) { /* each occupied octant in key order */
      const int oct = (int)(t->keyed[j].key >> shift & 7);
      hd_idx e = j;
      double sub[3];
      while (e < first + count && (int)(t->keyed[e].key >> shift & 7) == oct) ++e;
      sub[0] = corner[0] + (oct >> 2 & 1) * 0.5 * side, sub[1] = corner[1] + (oct >> 1 & 1) * 0.5 * side;
      sub[2] = corner[2] + (oct & 1) * 0.5 * side;
      kids[nk++] = t->ncell;
      hd_nbody_cut(t, j, e - j, level + 1, sub);
      j = e;
    }
    for (o = 0; o < nk; ++o) { /* the mass and centre, then Q by the parallel-axis rule */
      const double *km = &t->mom[10 * kids[o]];
      mo[0] += km[0], mo[1] += km[0] * km[1], mo[2] += km[0] * km[2], mo[3] += km[0] * km[3];
    }
    if (mo[0] > 0) mo[1] /= mo[0], mo[2] /= mo[0], mo[3] /= mo[0];
    for (o = 0; o < nk; ++o) {
      const double *km = &t->mom[10 * kids[o]];
      const double s[3] = {km[1] - mo[1], km[2] - mo[2], km[3] - mo[3]}, s2 = s[0] * s[0] + s[1] * s[1] + s[2] * s[2];
      mo[4] += km[4] + km[0] * (3 * s[0] * s[0] - s2), mo[5] += km[5] + km[0] * (3 * s[1] * s[1] - s2);
      mo[6] += km[6] + km[0] * (3 * s[2] * s[2] - s2), mo[7] += km[7] + km[0] * 3 * s[0] * s[1];
      mo[8] += km[8] + km[0] * 3 * s[0] * s[2], mo[9] += km[9] + km[0] * 3 * s[1] * s[2];
    }
  }
  c = &t->cell[me];
  c->x = (hd_real)mo[1], c->y = (hd_real)mo[2], c->z = (hd_real)mo[3], c->m = (hd_real)mo[0];
  for (k = 0; k < 6; ++k) c->q[k] = (hd_real)mo[4 + k];
  {
    const double g[3] = {corner[0] + 0.5 * side - mo[1], corner[1] + 0.5 * side - mo[2], corner[2] + 0.5 * side - mo[3]};
    const double delta = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    const double reach = t->theta > 0 ? side / t->theta + delta : HUGE_VAL;
    c->open2 = (hd_real)(reach < 1e150 ? reach * reach : HUGE_VAL);
  }
  c->next = (int32_t)t->ncell;
}

/* Keys, sort, cut and moments.  0, or -1 for more than 2e8 bodies (the
 * cells' 32-bit indices), a leaf size below 1 or too few cells. */
HD_HOST_FN int hd_nbody_tree_build(hd_nbody_tree *t) {
  double hi[3];
  hd_idx i;
  int a;
  if (t->n <= 0 || t->n > 200000000 || t->leaf < 1 || t->cap < hd_nbody_tree_cells(t->n, t->leaf)) return -1;
  t->lo[0] = hi[0] = t->x[0], t->lo[1] = hi[1] = t->y[0], t->lo[2] = hi[2] = t->z[0];
  for (i = 1; i < t->n; ++i) {
    const double p[3] = {t->x[i], t->y[i], t->z[i]};
    for (a = 0; a < 3; ++a) t->lo[a] = p[a] < t->lo[a] ? p[a] : t->lo[a], hi[a] = p[a] > hi[a] ? p[a] : hi[a];
  }
  t->size = 0;
  for (a = 0; a < 3; ++a) t->size = hi[a] - t->lo[a] > t->size ? hi[a] - t->lo[a] : t->size;
  t->size = t->size > 0 ? t->size * (1 + 1e-9) : 1.0; /* the farthest body inside the cube */
  for (i = 0; i < t->n; ++i) t->keyed[i].key = hd_nbody_morton(t->x[i], t->y[i], t->z[i], t->lo, t->size), t->keyed[i].body = i;
  hd_nbody_radix_sort(t->keyed, t->keyed + t->n, t->n);
  for (i = 0; i < t->n; ++i) {
    const hd_idx b = t->keyed[i].body;
    t->order[i] = b;
    t->sorted[i] = t->x[b], t->sorted[t->n + i] = t->y[b], t->sorted[2 * t->n + i] = t->z[b], t->sorted[3 * t->n + i] = t->m[b];
  }
  t->ncell = 0;
  hd_nbody_cut(t, 0, t->n, 0, t->lo);
  return 0;
}

#endif /* HD_NBODY_TREE_H */
