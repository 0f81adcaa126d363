/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/heat_implicit.h - implicit heat steps and steady states on the media of
 * hd/heat_media.h: the linear system of a theta step, its right-hand side,
 * and the vector kernels the solvers of hd/heat_solve.h are made of.
 *
 * Per unit volume, with C = (rho c) of each cell's material and L the
 * conductance operator of hd/heat_media.h,
 *   (L x)_c = sum_d dx_d^-2 sum_(+-) K(c, c+-) (x_c - x_(c+-)),
 * a theta step from T to T' solves
 *   A T' = b,   A = C + theta dt L,
 *   b = C T - (1 - theta) dt L T + dt (Q + C q) + the faces' terms,
 * theta = 1 backward Euler, 1/2 Crank-Nicolson; a steady state solves
 * L T = Q + C q + the faces' terms (A = L: C = 0, dt = 1, theta = 1).
 * The faces act through the ghost maps of hd/heat_media.h, ghost =
 * g0 x_c + g1: the homogeneous part g0 x_c belongs to A (a term on its
 * diagonal, so A stays symmetric: positive definite while C > 0 or a fixed
 * or convective face holds T), g1 to b.  Shared faces (HD_HEAT_HALO) read
 * the exchanged ghosts as any neighbour.  TeaLeaf's system is this one with
 * C = 1 and its face conductances (materials of k = 1 / w and arithmetic
 * means, hd_heat_media_tables' `mean`).
 *
 * The vectors live in the field's padded layout; only interior cells are
 * read and written (ghosts unread but across shared faces).  Dot products
 * fold in double in the fixed order of hd/reduce.h: serial and OpenMP give
 * the same bits. */
#ifndef HD_HEAT_IMPLICIT_H
#define HD_HEAT_IMPLICIT_H

#include "heat_media.h"
#include "reduce.h"

/* The solvers of hd/heat_solve.h. */
enum { HD_HEAT_SOLVER_CG = 0, HD_HEAT_SOLVER_CHEBYSHEV = 1, HD_HEAT_SOLVER_PPCG = 2, HD_HEAT_SOLVER_MG = 3 };

/* The operator A on a block of the grid. */
typedef struct hd_heat_sys {
  hd_grid g;               /* the field's padded grid (ghost 1) */
  const unsigned char *m;  /* material map, ghosts included (hd/heat_media.h) */
  const hd_real *kf;       /* nm x nm face conductances */
  const hd_real *cap;      /* per material: C (0 for a steady state) */
  const hd_real *gmap;     /* 6 x nm pairs: face f's ghost map (g0, g1) for material m at 2 (f nm + m) */
  hd_real w[3];            /* theta dt / dx_d^2 (0: inactive axis) */
  int mapped[HD_NFACES];   /* 1: a face of the grid whose ghost is the map (not a shared face) */
  int nm;
} hd_heat_sys;

/* The neighbours of interior cell c at padded (i, j, k) along each axis,
 * x the vector: nb[2 d], nb[2 d + 1] below and above, kn their face
 * conductances, at[] whether the neighbour is a mapped ghost (its value
 * then g0 x_c, the homogeneous part). */
HD_FN void hd_heat_sys_nbrs(const hd_heat_sys *s, const hd_real *x, hd_idx c, hd_idx i, hd_idx j, hd_idx k,
                            hd_real nb[6], hd_real kn[6], int at[6]) {
  const unsigned m = hd_heat_mat(s->m[c]);
  const hd_idx ijk[3] = {i, j, k};
  int d, e;
  for (d = 0; d < s->g.dim; ++d)
    for (e = 0; e < 2; ++e) {
      const int f = 2 * d + e;
      const hd_idx o = e ? s->g.stride[d] : -s->g.stride[d];
      at[f] = s->mapped[f] && ijk[d] == (e ? s->g.n[d] : 1);
      kn[f] = s->kf[m * (unsigned)s->nm + hd_heat_mat(s->m[c + o])];
      nb[f] = at[f] ? s->gmap[2 * (f * s->nm + (int)m)] * x[c] : x[c + o];
    }
}

/* Whether cell (i, j, k) lies on a mapped face of the grid. */
HD_FN int hd_heat_sys_at_face(const hd_heat_sys *s, hd_idx i, hd_idx j, hd_idx k) {
  const hd_idx ijk[3] = {i, j, k};
  int d, at = 0;
  for (d = 0; d < s->g.dim; ++d) at |= (s->mapped[2 * d] && ijk[d] == 1) || (s->mapped[2 * d + 1] && ijk[d] == s->g.n[d]);
  return at;
}

/* (A x)_c.  A cell whose neighbours are all of its material (no
 * HD_HEAT_IFACE flag) away from the grid's faces takes one conductance,
 * K_mm, and reads no neighbour's material: the same terms, fewer loads. */
HD_FN hd_real hd_heat_sys_row(const hd_heat_sys *s, const hd_real *x, hd_idx c, hd_idx i, hd_idx j, hd_idx k) {
  hd_real nb[6], kn[6], y;
  int at[6], d;
  const hd_real xc = x[c];
  const unsigned char mb = s->m[c];
  if (!(mb & HD_HEAT_IFACE) && !hd_heat_sys_at_face(s, i, j, k)) {
    const unsigned m = hd_heat_mat(mb);
    const hd_real kk = s->kf[m * (unsigned)s->nm + m];
    y = s->cap[m] * xc;
    for (d = 0; d < s->g.dim; ++d) {
      const hd_idx o = s->g.stride[d];
      y += s->w[d] * (kk * (xc - x[c - o]) + kk * (xc - x[c + o]));
    }
    return y;
  }
  hd_heat_sys_nbrs(s, x, c, i, j, k, nb, kn, at);
  y = s->cap[hd_heat_mat(s->m[c])] * xc;
  for (d = 0; d < s->g.dim; ++d) y += s->w[d] * (kn[2 * d] * (xc - nb[2 * d]) + kn[2 * d + 1] * (xc - nb[2 * d + 1]));
  return y;
}

/* The right-hand side of a theta step (or a steady state) from the field t. */
typedef struct hd_heat_rhs_args {
  hd_heat_sys s;
  const hd_real *t;   /* the field now; ghosts of shared faces exchanged */
  hd_real *b;
  const hd_real *q;   /* per-cell source rate (hd_heat_args' q) or NULL */
  const hd_real *qd;  /* per material: dt Q (steady: Q) */
  const hd_real *rc;  /* per material: rho c (the rates' weight) */
  hd_real e[3];       /* (1 - theta) dt / dx_d^2: the explicit part */
  hd_real dtq, dt;    /* dt times the uniform rate; dt (steady: 1) */
} hd_heat_rhs_args;

HD_FN void hd_heat_rhs_pt(const hd_heat_rhs_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_heat_sys *s = &a->s;
  const hd_idx c = hd_grid_at(&s->g, i, j, k);
  const unsigned m = hd_heat_mat(s->m[c]);
  const hd_real tc = a->t[c];
  hd_real nb[6], kn[6], v;
  int at[6], d, f;
  hd_heat_sys_nbrs(s, a->t, c, i, j, k, nb, kn, at);
  v = s->cap[m] * tc + a->qd[m] + a->rc[m] * (a->q ? a->dtq + a->dt * a->q[c] : a->dtq);
  for (d = 0; d < s->g.dim; ++d)
    for (f = 2 * d; f < 2 * d + 2; ++f) {
      const hd_real g1 = at[f] ? s->gmap[2 * (f * s->nm + (int)m) + 1] : HD_R(0);
      v += kn[f] * (a->e[d] * (nb[f] + g1 - tc) + s->w[d] * g1);
    }
  a->b[c] = v;
}
HD_DEFINE_FOR_3D(hd_heat_rhs_loop, hd_heat_rhs_pt, hd_heat_rhs_args)

/* ---- the solvers' vector kernels (interior cells) ------------------------ */
/* Those with dots give each cell's two terms (HD_DEFINE_ROWS2_3D): s0, s1. */

/* The vectors of a kernel: y = A x, and the others each kernel names. */
typedef struct hd_heat_vec_args {
  hd_heat_sys s;
  const hd_real *x;
  hd_real *y, *u, *v, *z;
  double alpha, beta;
} hd_heat_vec_args;

/* The residual y = z - A x (z the right side); s0: y . y. */
HD_FN hd_sum2 hd_heat_residual_pt(const hd_heat_vec_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_idx c = hd_grid_at(&a->s.g, i, j, k);
  const hd_real r = a->z[c] - hd_heat_sys_row(&a->s, a->x, c, i, j, k);
  const hd_sum2 v = {(double)r * (double)r, 0.0};
  a->y[c] = r;
  return v;
}
HD_DEFINE_ROWS1_3D_PLAIN(hd_heat_residual, hd_heat_vec_args, hd_heat_residual_pt)

/* The CG update: u += alpha x, v -= alpha y (x the direction, y = A x, u the
 * solution, v the residual); s0: v . v. */
HD_FN hd_sum2 hd_heat_cg_update_pt(const hd_heat_vec_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_idx c = hd_grid_at(&a->s.g, i, j, k);
  const hd_real al = (hd_real)a->alpha, r = a->v[c] - al * a->y[c];
  const hd_sum2 v = {(double)r * (double)r, 0.0};
  a->u[c] += al * a->x[c];
  a->v[c] = r;
  return v;
}
HD_DEFINE_ROWS1_3D(hd_heat_cg_update, hd_heat_vec_args, hd_heat_cg_update_pt)

/* The next direction: u = z + beta u (u the direction, z the preconditioned
 * residual). */
HD_FN void hd_heat_direction_pt(const hd_heat_vec_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_idx c = hd_grid_at(&a->s.g, i, j, k);
  a->u[c] = a->z[c] + (hd_real)a->beta * a->u[c];
}
HD_DEFINE_FOR_3D(hd_heat_direction_loop, hd_heat_direction_pt, hd_heat_vec_args)

/* Two dots of the residual v with the preconditioned residual z and with
 * the one before it (u): s0 v . z, s1 v . u (the flexible CG's beta; u
 * NULL: 0). */
HD_FN hd_sum2 hd_heat_dots_pt(const hd_heat_vec_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_idx c = hd_grid_at(&a->s.g, i, j, k);
  const hd_sum2 v = {(double)a->v[c] * (double)a->z[c], a->u ? (double)a->v[c] * (double)a->u[c] : 0.0};
  return v;
}
HD_DEFINE_ROWS2_3D(hd_heat_dots, hd_heat_vec_args, hd_heat_dots_pt)

/* The Chebyshev direction (Saad's recurrence as TeaLeaf runs it, after
 * hd_heat_fcheby_step): y = alpha y + beta v. */
HD_FN void hd_heat_cheby_dir_pt(const hd_heat_vec_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_idx c = hd_grid_at(&a->s.g, i, j, k);
  a->y[c] = (hd_real)a->alpha * a->y[c] + (hd_real)a->beta * a->v[c];
}
HD_DEFINE_FOR_3D(hd_heat_cheby_dir_loop, hd_heat_cheby_dir_pt, hd_heat_vec_args)

/* y = alpha z, u = z (the Chebyshev polynomial's start: its direction and
 * its residual); u NULL: only y. */
HD_FN void hd_heat_scale_pt(const hd_heat_vec_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_idx c = hd_grid_at(&a->s.g, i, j, k);
  const hd_real z = a->z[c];
  a->y[c] = (hd_real)a->alpha * z;
  if (a->u) a->u[c] = z;
}
HD_DEFINE_FOR_3D(hd_heat_scale_loop, hd_heat_scale_pt, hd_heat_vec_args)

/* u = 0 (interior). */
HD_FN void hd_heat_zero_pt(const hd_heat_vec_args *a, hd_idx i, hd_idx j, hd_idx k) {
  a->u[hd_grid_at(&a->s.g, i, j, k)] = HD_R(0);
}
HD_DEFINE_FOR_3D(hd_heat_zero_loop, hd_heat_zero_pt, hd_heat_vec_args)

/* A deterministic vector of the cell's global index (the eigenvalue
 * estimate's right side: every mode, the same on any ranks). */
typedef struct hd_heat_noise_args {
  hd_grid g;
  hd_real *u;
  hd_idx origin[3], cells[3];
} hd_heat_noise_args;

HD_FN void hd_heat_noise_pt(const hd_heat_noise_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_idx gi = ((a->origin[2] + k - (a->g.dim == 3)) * a->cells[1] + a->origin[1] + j - (a->g.dim >= 2)) * a->cells[0] +
                    a->origin[0] + i - 1;
  uint64_t h = (uint64_t)gi * 0x9E3779B97F4A7C15ull;
  h ^= h >> 31, h *= 0xBF58476D1CE4E5B9ull, h ^= h >> 29;
  a->u[hd_grid_at(&a->g, i, j, k)] = (hd_real)((double)(h >> 11) * (1.0 / 9007199254740992.0) - 0.5);
}
HD_DEFINE_FOR_3D(hd_heat_noise_loop, hd_heat_noise_pt, hd_heat_noise_args)

/* ---- host set-up ---------------------------------------------------------- */

/* The per-material tables of A and b (host, nm each, and 12 nm ghost maps)
 * for nm materials of conductivity k and rho c, sources Q, faces bc (the
 * state's; shared faces unused), theta and dt (steady: C = 0, dt 1). */
HD_HOST_FN void hd_heat_sys_tables(int nm, const double *k, const double *rhoc, const double *q, const hd_heat_bc bc[HD_NFACES],
                                   int steady, double dt, hd_real *cap, hd_real *qd, hd_real *rc, hd_real *gmap) {
  int m, f;
  for (m = 0; m < nm; ++m) {
    cap[m] = steady ? HD_R(0) : (hd_real)rhoc[m];
    qd[m] = (hd_real)((steady ? 1.0 : dt) * q[m]);
    rc[m] = (hd_real)rhoc[m];
    for (f = 0; f < HD_NFACES; ++f) hd_heat_media_ghost_map(&bc[f], (hd_real)k[m], gmap + 2 * (f * nm + m));
  }
}

#endif /* HD_HEAT_IMPLICIT_H */
