/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/heat_mg.h - geometric multigrid over the variable coefficients of an
 * implicit heat system (hd/heat_implicit.h): the kernels of a V-cycle that
 * hd/heat_solve.h runs as the preconditioner of CG.
 *
 * Each level stores its operator explicitly, per unit volume:
 *   (A x)_c = mass_c x_c + sum_d [a_d(c) (x_c - x_(c - s_d)) + a_d(c + s_d) (x_c - x_(c + s_d))],
 * a_d(c) the coefficient of the face below cell c along d (padded index
 * 1 .. n_d + 1: the last is the face above the last cell), ghosts of x zero,
 * so a face of the grid carries its ghost map's homogeneous part
 * (w K (1 - g0)) and an inner face w K.  A coarse level halves every axis
 * of more than one cell (cell I over fine cells 2I - 1, 2I; an odd axis's
 * last coarse cell over one): its mass is the mean of its children's, a
 * face's coefficient the mean of the fine faces it covers divided by the
 * square of the axis's coarsening (the operator rediscretised on cells
 * twice as wide, as AMReX's MLMG averages face coefficients down; exact
 * for uniform media, and across a jump the parallel faces' mean).
 * Restriction averages the residual over the children, prolongation
 * copies the correction to them (piecewise constant): R = P^T / 2^dim,
 * so with red-black Gauss-Seidel sweeps in one order before and the
 * reverse after, the V-cycle is a symmetric operator. */
#ifndef HD_HEAT_MG_H
#define HD_HEAT_MG_H

#include "heat_implicit.h"


typedef struct hd_heat_mg_args {
  hd_grid g;                   /* this level's padded grid (ghost 1) */
  hd_real *mass, *a[3];        /* the operator (set-up kernels write them) */
  hd_real mass0;               /* the mass of every cell where mass is NULL */
  hd_real *x, *b, *r;          /* correction, right side, residual */
  int color;                   /* the sweep's cells: (i + j + k) % 2 */
  int first;                   /* the cycle's first sweep: from x = 0 */
  /* the finer level (restriction, prolongation, coarsening) */
  hd_grid fg;
  hd_real *fmass, *fa[3], *fx, *fr;
  int cf[3];                   /* coarsening of each axis: 2, or 1 (an axis of one cell) */
} hd_heat_mg_args;

/* The diagonal of row c (into d) and the sum of its neighbours' terms
 * (into s) with X(n) the vector at cell n. */
#define HD_HEAT_MG_ROW(A, C, D, S, X)                                            \
  do {                                                                           \
    int e_;                                                                      \
    D = (A)->mass ? (A)->mass[C] : (A)->mass0, S = HD_R(0);                      \
    for (e_ = 0; e_ < (A)->g.dim; ++e_) {                                        \
      const hd_idx o_ = (A)->g.stride[e_];                                       \
      const hd_real lo_ = (A)->a[e_][C], hi_ = (A)->a[e_][(C) + o_];             \
      D += lo_ + hi_;                                                            \
      S += lo_ * X((C) - o_) + hi_ * X((C) + o_);                                \
    }                                                                            \
  } while (0)

HD_FN hd_real hd_heat_mg_row(const hd_heat_mg_args *a, hd_idx c, hd_real *diag) {
  hd_real d, s;
#define HD_HEAT_X_(n) a->x[n]
  HD_HEAT_MG_ROW(a, c, d, s, HD_HEAT_X_);
#undef HD_HEAT_X_
  *diag = d;
  return s;
}

/* One colour of a Gauss-Seidel sweep; the first of a cycle from x = 0
 * (first): the colour's cells b / d, the others 0, whatever x held. */
HD_FN void hd_heat_mg_smooth_pt(const hd_heat_mg_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_idx c = hd_grid_at(&a->g, i, j, k);
  hd_real d, s;
  if ((int)((i + j + k) & 1) != a->color) {
    if (a->first) a->x[c] = HD_R(0);
    return;
  }
  s = hd_heat_mg_row(a, c, &d);
  a->x[c] = (a->b[c] + (a->first ? HD_R(0) : s)) / d;
}
HD_DEFINE_FOR_3D(hd_heat_mg_smooth_loop, hd_heat_mg_smooth_pt, hd_heat_mg_args)

/* r = b - A x. */
HD_FN void hd_heat_mg_residual_pt(const hd_heat_mg_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_idx c = hd_grid_at(&a->g, i, j, k);
  hd_real d, s;
  s = hd_heat_mg_row(a, c, &d);
  a->r[c] = a->b[c] - d * a->x[c] + s;
}
HD_DEFINE_FOR_3D(hd_heat_mg_residual_loop, hd_heat_mg_residual_pt, hd_heat_mg_args)

/* The solvers' products with A from the finest level's stored faces (the
 * same terms as hd_heat_sys_row; x's ghosts zero on the grid's own faces,
 * as the solvers' vectors are): m.x the vector. */
typedef struct hd_heat_fvec_args {
  hd_heat_mg_args m;
  hd_real *y, *u, *v;
  double beta;
} hd_heat_fvec_args;

/* y = A x; s0: x . y. */
HD_FN hd_sum2 hd_heat_fapply_dot_pt(const hd_heat_fvec_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_idx c = hd_grid_at(&a->m.g, i, j, k);
  hd_real d, s, y;
  hd_sum2 v;
  s = hd_heat_mg_row(&a->m, c, &d);
  y = d * a->m.x[c] - s;
  a->y[c] = y;
  v.s0 = (double)a->m.x[c] * (double)y, v.s1 = 0.0;
  return v;
}

/* A Chebyshev step: u += x, v -= A x; s0: v . v. */
HD_FN hd_sum2 hd_heat_fcheby_step_pt(const hd_heat_fvec_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_idx c = hd_grid_at(&a->m.g, i, j, k);
  hd_real d, s, r;
  hd_sum2 v;
  s = hd_heat_mg_row(&a->m, c, &d);
  r = a->v[c] - (d * a->m.x[c] - s);
  a->u[c] += a->m.x[c];
  a->v[c] = r;
  v.s0 = (double)r * (double)r, v.s1 = 0.0;
  return v;
}

/* CG's next direction and its product in one pass: p = z + beta u (z the
 * residual, preconditioned or not: m.x; u the last direction) at the cell
 * and at its neighbours, v = p, y = A p; s0: p . y.  The same bits as
 * hd_heat_direction_pt, then hd_heat_fapply_dot_pt on v, with one pass
 * fewer over the vectors (v apart from u: its neighbours read u).  A GPU
 * kernel (HD_HEAT_FUSED_DIRECTION): the GPU's sweeps are bound by memory;
 * the CPU's, over vectors in its caches, by the arithmetic this repeats
 * (each p made at the cell and its 2 dim neighbours). */
HD_FN hd_real hd_heat_fdir(const hd_heat_fvec_args *a, hd_idx c) {
  return a->m.x[c] + (hd_real)a->beta * a->u[c];
}
HD_FN hd_sum2 hd_heat_fdir_apply_dot_pt(const hd_heat_fvec_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_idx c = hd_grid_at(&a->m.g, i, j, k);
  const hd_real p = hd_heat_fdir(a, c);
  hd_real d, s, y;
  hd_sum2 v;
#define HD_HEAT_P_(n) hd_heat_fdir(a, n)
  HD_HEAT_MG_ROW(&a->m, c, d, s, HD_HEAT_P_);
#undef HD_HEAT_P_
  y = d * p - s;
  a->v[c] = p, a->y[c] = y;
  v.s0 = (double)p * (double)y, v.s1 = 0.0;
  return v;
}

#if defined(HD_BACKEND_CUDA)
HD_DEFINE_ROWS1_3D(hd_heat_fapply_dot, hd_heat_fvec_args, hd_heat_fapply_dot_pt)
HD_DEFINE_ROWS1_3D(hd_heat_fcheby_step, hd_heat_fvec_args, hd_heat_fcheby_step_pt)
HD_DEFINE_ROWS1_3D(hd_heat_fdir_apply_dot, hd_heat_fvec_args, hd_heat_fdir_apply_dot_pt)
#define HD_HEAT_FUSED_DIRECTION 1
#else
#define HD_HEAT_FUSED_DIRECTION 0
/* On the CPU the products of a row come first, in loops that vectorise
 * (restrict pointers, the axes and a uniform mass known outside the loop;
 * hd_heat_mg_row's terms in its order; no `omp simd`: clang 14 cannot
 * vectorise the reuse of x along the row and warns where asked), then the
 * kernel's own part, then the chains of HD_DEFINE_ROWS2_3D: the same bits
 * as the point functions in that macro. */
#define HD_HEAT_FROW(mass, zaxis)                                                \
  do {                                                                           \
    hd_idx i;                                                                    \
    for (i = 0; i < n; ++i) {                                                    \
      hd_real d = mass, t;                                                       \
      d += ax[i] + ax[i + 1], t = ax[i] * x[i - 1] + ax[i + 1] * x[i + 1];       \
      d += ay[i] + ay[i + sy], t += ay[i] * x[i - sy] + ay[i + sy] * x[i + sy];  \
      zaxis;                                                                     \
      y[i] = d * x[i] - t;                                                       \
    }                                                                            \
  } while (0)
#define HD_HEAT_FROW_Z d += az[i] + az[i + sz], t += az[i] * x[i - sz] + az[i + sz] * x[i + sz]

/* y[0 .. n) = (A x) at the n cells from padded cell c of a row. */
HD_HOST_FN void hd_heat_frow(const hd_heat_mg_args *m, hd_idx c, hd_idx n, hd_real *HD_RESTRICT y) {
  const hd_idx sy = m->g.stride[1], sz = m->g.stride[2];
  const hd_real *HD_RESTRICT x = m->x + c, *HD_RESTRICT ax = m->a[0] + c, *HD_RESTRICT ay = m->a[1] + c;
  const hd_real *HD_RESTRICT az = m->g.dim == 3 ? m->a[2] + c : ay;
  const hd_real *HD_RESTRICT ms = m->mass ? m->mass + c : NULL, m0 = m->mass0;
  if (m->g.dim == 3 && ms) HD_HEAT_FROW(ms[i], HD_HEAT_FROW_Z);
  else if (m->g.dim == 3) HD_HEAT_FROW(m0, HD_HEAT_FROW_Z);
  else if (ms) HD_HEAT_FROW(ms[i], (void)sz);
  else HD_HEAT_FROW(m0, (void)az);
}

/* The CPU kernels of the stored-face products: each chunk of a row's
 * products into ax[], then `tail` on them (t the cell of the chunk, p its
 * padded index) writing the cell's term into b[t]. */
#define HD_HEAT_FROWS(name, tail)                                                \
  HD_HOST_FN hd_status name(hd_ctx *ctx, const hd_heat_fvec_args *a, hd_range3 r, double *out) { \
    const hd_heat_fvec_args la = *a;                                             \
    const hd_idx ny = r.hi[1] - r.lo[1], nrows = ny * (r.hi[2] - r.lo[2]);      \
    hd_idx row;                                                                  \
    (void)ctx;                                                                   \
    HD_OMP_FOR(schedule(static) num_threads(hd_ctx_threads(ctx)))                \
    for (row = 0; row < nrows; ++row) {                                          \
      const hd_idx c0 = hd_grid_at(&la.m.g, 0, r.lo[1] + row % ny, r.lo[2] + row / ny); \
      double s[4] = {0.0, 0.0, 0.0, 0.0};                                        \
      hd_idx i0;                                                                 \
      for (i0 = r.lo[0]; i0 < r.hi[0]; i0 += HD_ROWS2_CHUNK) {                   \
        const hd_idx n = r.hi[0] - i0 < HD_ROWS2_CHUNK ? r.hi[0] - i0 : HD_ROWS2_CHUNK; \
        hd_real ax[HD_ROWS2_CHUNK];                                              \
        double b[HD_ROWS2_CHUNK];                                                \
        hd_idx t;                                                                \
        hd_heat_frow(&la.m, c0 + i0, n, ax);                                     \
        HD_OMP_SIMD                                                              \
        for (t = 0; t < n; ++t) {                                                \
          const hd_idx p = c0 + i0 + t;                                          \
          tail;                                                                  \
        }                                                                        \
        hd_rows2_chains(s, b, n);                                                \
      }                                                                          \
      out[2 * row] = (s[0] + s[1]) + (s[2] + s[3]), out[2 * row + 1] = 0.0;      \
    }                                                                            \
    return HD_OK;                                                                \
  }
HD_HEAT_FROWS(hd_heat_fapply_dot, (la.y[p] = ax[t], b[t] = (double)la.m.x[p] * (double)ax[t]))
HD_HEAT_FROWS(hd_heat_fcheby_step, {
  const hd_real v = la.v[p] - ax[t];
  la.u[p] += la.m.x[p];
  la.v[p] = v;
  b[t] = (double)v * (double)v;
})
#undef HD_HEAT_FROWS
#undef HD_HEAT_FROW
#undef HD_HEAT_FROW_Z
#endif

/* The children of coarse cell (i, j, k) along axis d: fine lo .. hi. */
HD_FN void hd_heat_mg_children(const hd_heat_mg_args *a, int d, hd_idx ic, hd_idx *lo, hd_idx *hi) {
  if (d >= a->g.dim) {
    *lo = *hi = 0;
    return;
  }
  *lo = a->cf[d] * (ic - 1) + 1;
  *hi = *lo + a->cf[d] - 1 < a->fg.n[d] ? *lo + a->cf[d] - 1 : a->fg.n[d];
}

/* Coarse b = the mean of the fine residual over the children. */
HD_FN void hd_heat_mg_restrict_pt(const hd_heat_mg_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_idx c = hd_grid_at(&a->g, i, j, k);
  hd_idx lo[3], hi[3], p, q, u;
  hd_real s = HD_R(0);
  int n = 0;
  hd_heat_mg_children(a, 0, i, &lo[0], &hi[0]), hd_heat_mg_children(a, 1, j, &lo[1], &hi[1]);
  hd_heat_mg_children(a, 2, k, &lo[2], &hi[2]);
  for (u = lo[2]; u <= hi[2]; ++u)
    for (q = lo[1]; q <= hi[1]; ++q)
      for (p = lo[0]; p <= hi[0]; ++p, ++n) s += a->fr[hd_grid_at(&a->fg, p, q, u)];
  a->b[c] = s / (hd_real)n;
}
HD_DEFINE_FOR_3D(hd_heat_mg_restrict_loop, hd_heat_mg_restrict_pt, hd_heat_mg_args)

/* Fine x += the coarse correction of its parent (a point of the fine
 * level: (i, j, k) fine). */
HD_FN void hd_heat_mg_prolong_pt(const hd_heat_mg_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_idx ic = (i - 1) / a->cf[0] + 1, jc = a->g.dim >= 2 ? (j - 1) / a->cf[1] + 1 : j;
  const hd_idx kc = a->g.dim == 3 ? (k - 1) / a->cf[2] + 1 : k;
  a->fx[hd_grid_at(&a->fg, i, j, k)] += a->x[hd_grid_at(&a->g, ic, jc, kc)];
}
HD_DEFINE_FOR_3D(hd_heat_mg_prolong_loop, hd_heat_mg_prolong_pt, hd_heat_mg_args)

/* A block's cells from the whole level (multigrid on ranks): x at (i, j,
 * k) of the block = wx at (i, j, k) + o of the whole. */
typedef struct hd_heat_mg_take_args {
  hd_grid g, wg;
  hd_real *x;
  const hd_real *wx;
  hd_idx o[3];
} hd_heat_mg_take_args;

HD_FN void hd_heat_mg_take_pt(const hd_heat_mg_take_args *a, hd_idx i, hd_idx j, hd_idx k) {
  a->x[hd_grid_at(&a->g, i, j, k)] = a->wx[hd_grid_at(&a->wg, i + a->o[0], j + a->o[1], k + a->o[2])];
}
HD_DEFINE_FOR_3D(hd_heat_mg_take_loop, hd_heat_mg_take_pt, hd_heat_mg_take_args)

/* The coarse operator at (i, j, k) of the box 1 .. n + 1: the mass of an
 * interior cell and the faces below it along each axis whose other
 * coordinates are interior. */
HD_FN void hd_heat_mg_coarsen_pt(const hd_heat_mg_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_idx ijk[3] = {i, j, k}, c = hd_grid_at(&a->g, i, j, k);
  hd_idx lo[3], hi[3], p, q, u;
  int d, out = 0, outs[3];
  for (d = 0; d < 3; ++d) {
    outs[d] = d < a->g.dim && ijk[d] > a->g.n[d];
    out += outs[d];
    hd_heat_mg_children(a, d, ijk[d], &lo[d], &hi[d]);
  }
  if (!out) {
    hd_real s = HD_R(0);
    int n = 0;
    for (u = lo[2]; u <= hi[2]; ++u)
      for (q = lo[1]; q <= hi[1]; ++q)
        for (p = lo[0]; p <= hi[0]; ++p, ++n) s += a->fmass[hd_grid_at(&a->fg, p, q, u)];
    a->mass[c] = s / (hd_real)n;
  }
  for (d = 0; d < a->g.dim; ++d) {
    hd_idx flo[3], fhi[3];
    hd_real s = HD_R(0);
    int n = 0, e;
    if (out - outs[d]) continue; /* another coordinate outside */
    for (e = 0; e < 3; ++e) flo[e] = lo[e], fhi[e] = hi[e];
    /* the fine face below the first child (the last face: after the last fine cell) */
    flo[d] = a->cf[d] * (ijk[d] - 1) + 1;
    if (flo[d] > a->fg.n[d] + 1) flo[d] = a->fg.n[d] + 1;
    fhi[d] = flo[d];
    for (u = flo[2]; u <= fhi[2]; ++u)
      for (q = flo[1]; q <= fhi[1]; ++q)
        for (p = flo[0]; p <= fhi[0]; ++p, ++n) s += a->fa[d][hd_grid_at(&a->fg, p, q, u)];
    a->a[d][c] = s / ((hd_real)n * (hd_real)(a->cf[d] * a->cf[d]));
  }
}
HD_DEFINE_FOR_3D(hd_heat_mg_coarsen_loop, hd_heat_mg_coarsen_pt, hd_heat_mg_args)

/* The finest level's operator from the system (hd_heat_sys_row's, the
 * same terms): over the box 1 .. n + 1 as hd_heat_mg_coarsen_pt. */
typedef struct hd_heat_mg_top_args {
  hd_heat_sys s;
  hd_real *mass, *a[3];
} hd_heat_mg_top_args;

HD_FN void hd_heat_mg_top_pt(const hd_heat_mg_top_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_heat_sys *s = &a->s;
  const hd_idx ijk[3] = {i, j, k}, c = hd_grid_at(&s->g, i, j, k);
  int d, out = 0, outs[3];
  for (d = 0; d < 3; ++d) {
    outs[d] = d < s->g.dim && ijk[d] > s->g.n[d];
    out += outs[d];
  }
  if (!out) a->mass[c] = s->cap[hd_heat_mat(s->m[c])];
  for (d = 0; d < s->g.dim; ++d) {
    const hd_idx o = s->g.stride[d];
    if (out - outs[d]) continue;
    if (ijk[d] == 1 && s->mapped[2 * d]) { /* the low face: its ghost map */
      const unsigned m = hd_heat_mat(s->m[c]);
      a->a[d][c] = s->w[d] * s->kf[m * (unsigned)s->nm + hd_heat_mat(s->m[c - o])] *
                   (HD_R(1) - s->gmap[2 * (2 * d * s->nm + (int)m)]);
    } else if (outs[d] && s->mapped[2 * d + 1]) { /* the high face, below the ghost c */
      const unsigned m = hd_heat_mat(s->m[c - o]);
      a->a[d][c] = s->w[d] * s->kf[m * (unsigned)s->nm + hd_heat_mat(s->m[c])] *
                   (HD_R(1) - s->gmap[2 * ((2 * d + 1) * s->nm + (int)m)]);
    } else {
      a->a[d][c] = s->w[d] * s->kf[hd_heat_mat(s->m[c - o]) * (unsigned)s->nm + hd_heat_mat(s->m[c])];
    }
  }
}
HD_DEFINE_FOR_3D(hd_heat_mg_top_loop, hd_heat_mg_top_pt, hd_heat_mg_top_args)

#endif /* HD_HEAT_MG_H */
