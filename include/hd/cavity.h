/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/cavity.h - incompressible 2-D flow in vorticity-streamfunction form on
 * the lid-driven square cavity (after Degawa's CUDA Fortran study, second half).
 *
 * Nodes (i, j), 0 <= i, j <= n, spacing h = L/n, offset i + j (n + 1), the
 * layout of hd/poisson.h.  Walls are the boundary nodes; the lid (j = n)
 * moves with speed U in +x.  u = dpsi/dy, v = -dpsi/dx, omega = dv/dx - du/dy:
 *
 *   d(omega)/dt + d(u omega)/dx + d(v omega)/dy = nu lap(omega),
 *   lap(psi) = -omega,  psi = 0 on the walls.
 *
 * Conservative central differences: the fluxes u omega at the four
 * neighbours, with u and v there from psi at the diagonal points (the
 * Degawa's stencil: omega from the four axis neighbours, psi from the four
 * diagonal ones); explicit Euler in time.  Wall vorticity by Thom's formula,
 *   omega_wall = -2 psi_1 / h^2 - 2 U_wall / h,
 * psi_1 the streamfunction one node inside, U_wall the tangential wall
 * speed (U on the lid, counter-clockwise positive).
 *
 * Stability of Euler with central differences (forward-time centred-space):
 * nu dt / h^2 <= 1/4 and |u|^2 dt / nu <= 2, with |u| <= U.
 *
 * Local pseudo-time steps (steady problems only: `local` > 0): each node
 * steps with `local` times its own limit, min(h^2 / (4 nu), 2 nu / q), q
 * the largest u^2 of its east and west faces plus the largest v^2 of its
 * north and south faces.  The march is no longer time-accurate, but its
 * fixed point is the same discrete steady state, and most of the cavity
 * moves far slower than the lid.
 *
 * Selective frequency damping (Akervik et al. 2006, steady problems only:
 * `wbar` set): the transport gains a forcing -chi (omega - wbar) toward a
 * low-pass filtered vorticity, d(wbar)/dt = (omega - wbar) / Delta.  It
 * damps oscillations slower than 1/Delta's cut-off, and at a fixed point
 * omega = wbar: the steady state is the same discrete one, also where it is
 * unstable in time (the cavity past its Hopf bifurcation, Re > ~8000).
 *
 * A grid split over processes by rows: the arrays hold rows row0 .. (a
 * ghost row each side of the block), row indices stay global, and only the
 * rows [jlo, jhi) are updated (walls and lid where they lie in them). */
#ifndef HD_CAVITY_H
#define HD_CAVITY_H

#include <math.h>

#include "context.h"
#include "launch.h"
#include "real.h"
#include "reduce.h"

typedef struct hd_cav_args {
  const hd_real *psi, *w; /* streamfunction and vorticity at time n */
  hd_real *w_new;         /* vorticity at n + 1 (interior) */
  hd_real *u, *v;         /* velocities (hd_cav_velocity_loop) */
  hd_idx n;
  hd_idx row0, jlo, jhi;  /* global row of array row 0; rows updated (whole grid: 0, 0, n + 1) */
  hd_real dt, nu, lid;
  hd_real r2h, rh2;       /* 1/(2h), 1/h^2 */
  hd_real local, dt_visc; /* local pseudo-time steps: fraction of the node's limit (0: dt everywhere); h^2/(4 nu) */
  hd_real *wbar;          /* selective frequency damping: the filtered vorticity (NULL: off) */
  hd_real sfd_chi, sfd_rate; /* its forcing gain chi and filter rate 1/Delta */
} hd_cav_args;

/* The step at a node: dt, or its local pseudo-time step from the face
 * velocities. */
HD_FN hd_real hd_cav_step_at(const hd_cav_args *a, hd_real ue, hd_real uw, hd_real vn, hd_real vs) {
  hd_real q, lim;
  if (!(a->local > 0)) return a->dt;
  q = (ue * ue > uw * uw ? ue * ue : uw * uw) + (vn * vn > vs * vs ? vn * vn : vs * vs);
  lim = q * a->dt_visc > HD_R(2) * a->nu ? HD_R(2) * a->nu / q : a->dt_visc;
  return a->local * lim;
}

/* Interior vorticity at n + 1. */
HD_FN void hd_cav_vort_pt(const hd_cav_args *a, hd_idx i, hd_idx j) {
  const hd_idx sy = a->n + 1, o = i + (j - a->row0) * sy;
  const hd_real *HD_RESTRICT p = a->psi, *HD_RESTRICT w = a->w;
  const hd_real ue = (p[o + 1 + sy] - p[o + 1 - sy]) * a->r2h, uw = (p[o - 1 + sy] - p[o - 1 - sy]) * a->r2h;
  const hd_real vn = (p[o - 1 + sy] - p[o + 1 + sy]) * a->r2h, vs = (p[o - 1 - sy] - p[o + 1 - sy]) * a->r2h;
  const hd_real adv = (ue * w[o + 1] - uw * w[o - 1] + vn * w[o + sy] - vs * w[o - sy]) * a->r2h;
  const hd_real dif = a->nu * (w[o + 1] + w[o - 1] + w[o + sy] + w[o - sy] - HD_R(4) * w[o]) * a->rh2;
  const hd_real step = hd_cav_step_at(a, ue, uw, vn, vs);
  hd_real rhs = dif - adv;
  if (a->wbar) { /* the filter follows w at n; the forcing pulls w toward it */
    const hd_real d = w[o] - a->wbar[o];
    rhs -= a->sfd_chi * d;
    a->wbar[o] += step * a->sfd_rate * d;
  }
  a->w_new[o] = w[o] + step * rhs;
}

/* The local step of interior node (i, j) relative to dt (1 without local
 * steps): the monitor's change rate is per unit of the node's own step. */
HD_FN double hd_cav_step_ratio(const hd_cav_args *a, hd_idx i, hd_idx j) {
  const hd_idx sy = a->n + 1, o = i + (j - a->row0) * sy;
  const hd_real *p = a->psi;
  if (!(a->local > 0)) return 1.0;
  return (double)hd_cav_step_at(a, (p[o + 1 + sy] - p[o + 1 - sy]) * a->r2h, (p[o - 1 + sy] - p[o - 1 - sy]) * a->r2h,
                                (p[o - 1 + sy] - p[o + 1 + sy]) * a->r2h, (p[o - 1 - sy] - p[o + 1 - sy]) * a->r2h) /
         (double)a->dt;
}

/* Thom's wall vorticity at wall node p of 4 (n - 1) (corners excluded):
 * bottom, top (the lid), left, right; writes into w_new. */
HD_FN void hd_cav_wall_pt(const hd_cav_args *a, hd_idx p) {
  const hd_idx m = a->n - 1, side = p / m, q = p % m + 1, sy = a->n + 1;
  const hd_idx row = side == 0 ? 0 : side == 1 ? a->n : q, z = a->row0 * sy; /* z: offset of global row 0 */
  const hd_real *psi = a->psi;
  hd_real *w = a->w_new;
  const hd_real c = HD_R(-2) * a->rh2;
  if (row < a->jlo || row >= a->jhi) return;
  if (side == 0)
    w[q - z] = c * psi[q + sy - z];
  else if (side == 1)
    w[q + a->n * sy - z] = c * psi[q + (a->n - 1) * sy - z] - HD_R(4) * a->lid * a->r2h;
  else if (side == 2)
    w[q * sy - z] = c * psi[1 + q * sy - z];
  else
    w[a->n + q * sy - z] = c * psi[a->n - 1 + q * sy - z];
}

/* Velocities on every node: central differences inside, the wall speeds on
 * the walls (the lid's corners move with the lid). */
HD_FN void hd_cav_velocity_pt(const hd_cav_args *a, hd_idx i, hd_idx j) {
  const hd_idx sy = a->n + 1, o = i + (j - a->row0) * sy;
  const hd_real *p = a->psi;
  if (i == 0 || j == 0 || i == a->n || j == a->n) {
    a->u[o] = j == a->n ? a->lid : HD_R(0);
    a->v[o] = HD_R(0);
    return;
  }
  a->u[o] = (p[o + sy] - p[o - sy]) * a->r2h;
  a->v[o] = (p[o - 1] - p[o + 1]) * a->r2h;
}

/* Steady-state and blow-up monitor over the interior: max |w_new - w|,
 * max |w_new|, and the non-finite values of w_new. */
typedef struct hd_cav_change {
  double dmax, wmax;
  hd_idx nonfinite, first_bad;
} hd_cav_change;

HD_FN void hd_cav_change_init(hd_cav_change *c) {
  c->dmax = 0.0, c->wmax = 0.0, c->nonfinite = 0, c->first_bad = -1;
}

HD_FN void hd_cav_change_merge(hd_cav_change *c, const hd_cav_change *o) {
  if (o->dmax > c->dmax) c->dmax = o->dmax;
  if (o->wmax > c->wmax) c->wmax = o->wmax;
  if (o->nonfinite && (c->nonfinite == 0 || o->first_bad < c->first_bad)) c->first_bad = o->first_bad;
  c->nonfinite += o->nonfinite;
}

HD_FN void hd_cav_change_pt(const hd_cav_args *a, hd_idx i, hd_idx j, hd_idx k, hd_cav_change *acc) {
  const hd_idx g = i + j * (a->n + 1), o = g - a->row0 * (a->n + 1);
  const double wn = (double)a->w_new[o], d = fabs(wn - (double)a->w[o]) / hd_cav_step_ratio(a, i, j);
  (void)k;
  if (!hd_isfinite(wn)) {
    if (acc->nonfinite == 0 || g < acc->first_bad) acc->first_bad = g;
    acc->nonfinite++;
    return;
  }
  if (d > acc->dmax) acc->dmax = d;
  if (fabs(wn) > acc->wmax) acc->wmax = fabs(wn);
}

HD_DEFINE_FOR_2D(hd_cav_vort_loop, hd_cav_vort_pt, hd_cav_args)
HD_DEFINE_FOR_1D(hd_cav_wall_loop, hd_cav_wall_pt, hd_cav_args)
HD_DEFINE_FOR_2D(hd_cav_velocity_loop, hd_cav_velocity_pt, hd_cav_args)
HD_DEFINE_REDUCE_3D(hd_cav_change_reduce, hd_cav_args, hd_cav_change, hd_cav_change_pt, hd_cav_change_init,
                    hd_cav_change_merge)

/* Largest stable dt of Euler with central differences. */
HD_HOST_FN double hd_cav_dt_max(double h, double nu, double lid) {
  const double visc = 0.25 * h * h / nu;
  const double adv = lid > 0 ? 2.0 * nu / (lid * lid) : visc;
  return visc < adv ? visc : adv;
}

HD_HOST_FN hd_status hd_cav_setup(hd_ctx *ctx, hd_cav_args *a, hd_idx n, double length, double lid, double nu,
                                  double dt) {
  const double h = length / (double)n;
  double dtmax;
  if (n < 3) return hd_fail(ctx, HD_ERR_ARG, "cavity: need at least 3 x 3 cells, got n = %ld", (long)n);
  if (!(length > 0) || !(nu > 0) || !(lid >= 0) || !isfinite(lid))
    return hd_fail(ctx, HD_ERR_ARG, "cavity: length %g and viscosity %g must be positive, lid speed %g >= 0",
                   length, nu, lid);
  dtmax = hd_cav_dt_max(h, nu, lid);
  if (!(dt > 0)) return hd_fail(ctx, HD_ERR_ARG, "cavity: dt = %g must be positive", dt);
  if (dt > dtmax)
    return hd_fail(ctx, HD_ERR_UNSTABLE,
                   "cavity: dt = %g exceeds the stability limit %g (nu dt/h^2 <= 1/4, U^2 dt/nu <= 2)", dt, dtmax);
  a->n = n;
  a->row0 = 0, a->jlo = 0, a->jhi = n + 1;
  a->dt = (hd_real)dt, a->nu = (hd_real)nu, a->lid = (hd_real)lid;
  a->local = HD_R(0), a->dt_visc = (hd_real)(0.25 * h * h / nu);
  a->wbar = NULL, a->sfd_chi = HD_R(0), a->sfd_rate = HD_R(0);
  a->r2h = (hd_real)(0.5 / h), a->rh2 = (hd_real)(1.0 / (h * h));
  return HD_OK;
}

/* The interior nodes of the rows updated; all rows updated. */
HD_HOST_FN hd_range3 hd_cav_inner(const hd_cav_args *a) {
  return hd_range3_make(1, a->n, a->jlo > 1 ? a->jlo : 1, a->jhi < a->n ? a->jhi : a->n, 0, 1);
}
HD_HOST_FN hd_range3 hd_cav_rows(const hd_cav_args *a) { return hd_range3_make(0, a->n + 1, a->jlo, a->jhi, 0, 1); }

/* The three loops of a step after the Poisson solve are the caller's: the
 * interior update reads psi and w at n, writes w_new; the Poisson solve
 * gets psi at n + 1 from w_new; the walls then take Thom's values. */
HD_HOST_FN hd_status hd_cav_interior(hd_ctx *ctx, const hd_cav_args *a) {
  return hd_cav_vort_loop(ctx, a, hd_cav_inner(a));
}

HD_HOST_FN hd_status hd_cav_walls(hd_ctx *ctx, const hd_cav_args *a) {
  return hd_cav_wall_loop(ctx, a, 0, 4 * (a->n - 1));
}

#endif /* HD_CAVITY_H */
