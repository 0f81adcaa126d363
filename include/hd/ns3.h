/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/ns3.h - 3-D compressible Navier-Stokes: hd/ns.h's discretisation
 * with a third axis.
 *
 * Conservative variables q = (rho, rho u, rho v, rho w, rho E) on the nodes
 * of a box, one ghost layer, x fastest; units and gas as hd/ns.h (rho_inf
 * = c_inf = 1, p_inf = 1/gamma, T = gamma p / rho).  Inviscid fluxes by
 * centred differences (F(i+1) - F(i-1))/2h (the divergence form), or as
 * differences of the split form's half-point fluxes (hd_ns3_split_flux,
 * second order too); viscous fluxes at the half
 * points, normal derivatives compact and transverse ones averaged from
 * the two nodes, so that a node's right-hand side reads its 18 face and
 * edge neighbours; the classical RK4 fused into the right-hand side as in
 * 2-D (hd_ns_rk4).  A flow uniform in z with w = 0 gives the 2-D solver's
 * numbers bit for bit in the divergence form: every term the third axis adds is an exact zero
 * added last (tests/ns3.sh).
 *
 * Boundaries: every axis periodic (n nodes of spacing L/n); the
 * characteristic faces, edges and corners are issue 73's next part.
 *
 * Two forms of a stage: the two-pass form writes every node's primitives
 * (hd_ns3_prims_loop) and then each node's update from them; the
 * one-pass form (prims NULL) recomputes a node's neighbours' primitives
 * (the check: the same arithmetic, so the same bits). */
#ifndef HD_NS3_H
#define HD_NS3_H

#include "ns.h"

typedef struct hd_ns3_prim {
  hd_real r, u[3], p, t;
  hd_real mu; /* the viscosity where the right-hand side needs it, else 0 */
} hd_ns3_prim;

typedef struct hd_ns3_args {
  const hd_real *q[5]; /* stage input, ghosts filled */
  hd_real *q0[5];      /* the state at the start of the step */
  hd_real *acc[5];     /* Runge-Kutta accumulator */
  hd_real *out[5];     /* stage output (q0 itself at the last stage) */
  hd_grid g;           /* nodes, ghost 1, dim 3 */
  int stage;           /* 0..3 */
  int viscous;
  hd_real dt, rh[3];   /* time step, 1/h per axis */
  hd_real gamma, mu_ref, suth, kfac; /* suth < 0: constant viscosity; kfac = c_p / Pr */
  hd_real p_inf;
  int split;           /* inviscid fluxes: 0 the divergence form (as 2-D), 1 the split form */
  hd_ns3_prim *prims;  /* every node's primitives (the two-pass form), or NULL */
} hd_ns3_args;

HD_FN hd_ns3_prim hd_ns3_primitive(hd_real gamma, const hd_real q[5]) {
  hd_ns3_prim w;
  int d;
  w.r = q[0];
  for (d = 0; d < 3; ++d) w.u[d] = q[1 + d] / q[0];
  w.p = (gamma - HD_R(1)) * (q[4] - HD_R(0.5) * (q[1] * w.u[0] + q[2] * w.u[1] + q[3] * w.u[2]));
  w.t = gamma * w.p / q[0];
  w.mu = HD_R(0);
  return w;
}

HD_FN hd_ns3_prim hd_ns3_node_of(const hd_ns3_args *a, const hd_real q[5]) {
  hd_ns3_prim w = hd_ns3_primitive(a->gamma, q);
  if (a->viscous) w.mu = hd_ns_viscosity(a->mu_ref, a->suth, w.t);
  return w;
}

HD_FN hd_ns3_prim hd_ns3_node(const hd_ns3_args *a, hd_idx n) {
  hd_real q[5];
  int c;
  for (c = 0; c < 5; ++c) q[c] = a->q[c][n];
  return hd_ns3_node_of(a, q);
}

/* Inviscid flux along axis dir. */
HD_FN void hd_ns3_flux(hd_real gamma, const hd_ns3_prim *w, int dir, hd_real f[5]) {
  const hd_real un = w->u[dir];
  const hd_real re =
      w->p / (gamma - HD_R(1)) + HD_R(0.5) * w->r * (w->u[0] * w->u[0] + w->u[1] * w->u[1] + w->u[2] * w->u[2]);
  int d;
  f[0] = w->r * un;
  for (d = 0; d < 3; ++d) f[1 + d] = w->r * w->u[d] * un + (d == dir ? w->p : HD_R(0));
  f[4] = un * (re + w->p);
}

/* The split (kinetic-energy preserving) inviscid flux across the half
 * point between nodes l and r along dir, Kennedy and Gruber's form as
 * Pirozzoli (J. Comput. Phys. 229, 7180, 2010) writes it: products of
 * the two nodes' means, rho u_n for mass, rho u_n u_j + p for momentum,
 * rho u_n H (H = c^2 / (gamma - 1) + |u|^2 / 2) for energy.  The
 * convective terms then neither make nor destroy kinetic energy, which
 * keeps the centred scheme stable where the flow is under-resolved (the
 * divergence form blows up the Taylor-Green vortex at 64^3). */
HD_FN void hd_ns3_split_flux(hd_real gamma, const hd_ns3_prim *l, const hd_ns3_prim *r, int dir, hd_real f[5]) {
  const hd_real h = HD_R(0.5), g1 = HD_R(1) / (gamma - HD_R(1));
  const hd_real hl = l->t * g1 + h * (l->u[0] * l->u[0] + l->u[1] * l->u[1] + l->u[2] * l->u[2]);
  const hd_real hr = r->t * g1 + h * (r->u[0] * r->u[0] + r->u[1] * r->u[1] + r->u[2] * r->u[2]);
  const hd_real m = h * (l->r + r->r) * h * (l->u[dir] + r->u[dir]); /* mean rho times mean u_n */
  int d;
  f[0] = m;
  for (d = 0; d < 3; ++d) f[1 + d] = m * h * (l->u[d] + r->u[d]) + (d == dir ? h * (l->p + r->p) : HD_R(0));
  f[4] = m * h * (hl + hr);
}

/* Viscous flux across the half point between the node at P[c] and its
 * neighbour P[c + s[dir]] along dir (P: primitives with strides s). */
HD_FN void hd_ns3_viscous_flux(const hd_ns3_args *a, int dir, const hd_ns3_prim *P, hd_idx c, const hd_idx s[3],
                               hd_real fv[5]) {
  const hd_idx d = c + s[dir];
  const hd_ns3_prim *pc = &P[c], *pd = &P[d];
  const hd_real ra = a->rh[dir], mu = HD_R(0.5) * (pc->mu + pd->mu);
  hd_real g[3][3]; /* g[b][i] = d u_i / d x_b at the half point, where the flux needs it */
  hd_real tau[3], tn, work = HD_R(0);
  int b, i;
  for (i = 0; i < 3; ++i) g[dir][i] = (pd->u[i] - pc->u[i]) * ra;
  for (b = 0; b < 3; ++b) {
    const hd_real q4 = HD_R(0.25) * a->rh[b];
    const hd_idx e = s[b];
    if (b == dir) continue;
    /* across b: u_dir and u_b */
    g[b][dir] = (P[c + e].u[dir] - P[c - e].u[dir] + P[d + e].u[dir] - P[d - e].u[dir]) * q4;
    g[b][b] = (P[c + e].u[b] - P[c - e].u[b] + P[d + e].u[b] - P[d - e].u[b]) * q4;
  }
  tn = (pd->t - pc->t) * ra;
  for (i = 0; i < 3; ++i) {
    if (i == dir) {
      const int e1 = dir == 0 ? 1 : 0, e2 = dir == 2 ? 1 : 2;
      tau[i] = mu * (HD_R(4) / HD_R(3) * g[dir][dir] - HD_R(2) / HD_R(3) * (g[e1][e1] + g[e2][e2]));
    } else {
      tau[i] = mu * (g[i][dir] + g[dir][i]);
    }
  }
  fv[0] = HD_R(0);
  for (i = 0; i < 3; ++i) {
    fv[1 + i] = tau[i];
    work = i == 0 ? HD_R(0.5) * (pc->u[0] + pd->u[0]) * tau[0] : work + HD_R(0.5) * (pc->u[i] + pd->u[i]) * tau[i];
  }
  fv[4] = work + a->kfac * mu * tn;
}

/* The right-hand side of the node at P[0] from its neighbours' primitives
 * (strides s). */
HD_FN void hd_ns3_rhs_at(const hd_ns3_args *a, const hd_ns3_prim *P, const hd_idx s[3], hd_real k[5]) {
  hd_real fp[3][5], fm[3][5];
  int d, q;
  if (a->split) { /* fluxes at the half points */
    for (d = 0; d < 3; ++d)
      hd_ns3_split_flux(a->gamma, P, &P[s[d]], d, fp[d]), hd_ns3_split_flux(a->gamma, &P[-s[d]], P, d, fm[d]);
    for (q = 0; q < 5; ++q)
      k[q] = -((fp[0][q] - fm[0][q]) * a->rh[0] + (fp[1][q] - fm[1][q]) * a->rh[1] + (fp[2][q] - fm[2][q]) * a->rh[2]);
  } else { /* the nodes' fluxes, centred */
    for (d = 0; d < 3; ++d) hd_ns3_flux(a->gamma, &P[s[d]], d, fp[d]), hd_ns3_flux(a->gamma, &P[-s[d]], d, fm[d]);
    for (q = 0; q < 5; ++q)
      k[q] = -HD_R(0.5) * ((fp[0][q] - fm[0][q]) * a->rh[0] + (fp[1][q] - fm[1][q]) * a->rh[1] +
                           (fp[2][q] - fm[2][q]) * a->rh[2]);
  }
  if (a->viscous) {
    for (d = 0; d < 3; ++d) hd_ns3_viscous_flux(a, d, P, 0, s, fp[d]), hd_ns3_viscous_flux(a, d, P, -s[d], s, fm[d]);
    for (q = 1; q < 5; ++q)
      k[q] += (fp[0][q] - fm[0][q]) * a->rh[0] + (fp[1][q] - fm[1][q]) * a->rh[1] + (fp[2][q] - fm[2][q]) * a->rh[2];
  }
}

/* The 3 x 3 x 3 neighbours' primitives of node offset n (w[13] the node;
 * strides 1, 3, 9), those the right-hand side reads: the corners are
 * left unset, the viscosity only at the node and its face neighbours. */
HD_FN void hd_ns3_neighbours(const hd_ns3_args *a, hd_idx n, hd_ns3_prim w[27]) {
  int di, dj, dk;
  for (dk = -1; dk <= 1; ++dk)
    for (dj = -1; dj <= 1; ++dj)
      for (di = -1; di <= 1; ++di) {
        const int zeros = (di == 0) + (dj == 0) + (dk == 0);
        const hd_idx m = n + di + dj * a->g.stride[1] + dk * a->g.stride[2];
        hd_ns3_prim *o = &w[13 + di + 3 * dj + 9 * dk];
        if (zeros >= 2) {
          *o = hd_ns3_node(a, m);
        } else if (zeros == 1) {
          hd_real q[5];
          int c;
          for (c = 0; c < 5; ++c) q[c] = a->q[c][m];
          *o = hd_ns3_primitive(a->gamma, q);
        }
      }
}

/* The right-hand side at node offset n in either form. */
HD_FN void hd_ns3_rhs(const hd_ns3_args *a, hd_idx n, hd_real k[5]) {
  if (a->prims) {
    hd_ns3_rhs_at(a, a->prims + n, a->g.stride, k);
  } else {
    const hd_idx s[3] = {1, 3, 9};
    hd_ns3_prim w[27];
    hd_ns3_neighbours(a, n, w);
    hd_ns3_rhs_at(a, w + 13, s, k);
  }
}

HD_FN void hd_ns3_interior_pt(const hd_ns3_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_idx n = hd_grid_at(&a->g, i, j, k);
  hd_real r[5];
  int c;
  hd_ns3_rhs(a, n, r);
  for (c = 0; c < 5; ++c)
    hd_ns_rk4(a->stage, a->dt, r[c], a->stage < 3 ? a->q0[c][n] : HD_R(0), a->stage > 0 ? a->acc[c][n] : HD_R(0),
              &a->out[c][n], &a->acc[c][n]);
}

HD_FN void hd_ns3_prims_pt(const hd_ns3_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_idx n = hd_grid_at(&a->g, i, j, k);
  a->prims[n] = hd_ns3_node(a, n);
}

HD_DEFINE_FOR_3D(hd_ns3_interior_loop, hd_ns3_interior_pt, hd_ns3_args)
HD_DEFINE_FOR_3D(hd_ns3_prims_loop, hd_ns3_prims_pt, hd_ns3_args)

/* ---- periodic ghosts -------------------------------------------------------------- */

/* The ghost layers across `axis`, copies of the nodes they wrap to along
 * it, over the whole padded extent of the axes before it and the interior
 * of those after: filled x, then y, then z (each launch reads what the one
 * before wrote), edges and corners come out right, and an axis split over
 * ranks takes its ghosts from the halo exchange in its turn instead. */
typedef struct hd_ns3_ghost_args {
  hd_real *q[5];
  hd_grid g;
  int axis;
} hd_ns3_ghost_args;

/* (u, v, side): the face's two other coordinates (padded) and 0 / 1 for
 * its low / high layer. */
HD_FN void hd_ns3_ghost_pt(const hd_ns3_ghost_args *a, hd_idx u, hd_idx v, hd_idx side) {
  const hd_grid *g = &a->g;
  const int b = a->axis, e1 = b == 0 ? 1 : 0, e2 = b == 2 ? 1 : 2;
  const hd_idx n = hd_grid_at(g, 0, 0, 0) + u * g->stride[e1] + v * g->stride[e2] + (side ? g->n[b] + 1 : 0) * g->stride[b];
  const hd_idx m = n + (side ? -g->n[b] : g->n[b]) * g->stride[b];
  int c;
  for (c = 0; c < 5; ++c) a->q[c][n] = a->q[c][m];
}

HD_DEFINE_FOR_3D(hd_ns3_ghost_loop, hd_ns3_ghost_pt, hd_ns3_ghost_args)

/* The ghosts across one axis (0, 1, 2), in the order above. */
HD_HOST_FN hd_status hd_ns3_fill_ghosts(hd_ctx *ctx, hd_real *const q[5], const hd_grid *g, int axis) {
  hd_ns3_ghost_args a;
  const int e1 = axis == 0 ? 1 : 0, e2 = axis == 2 ? 1 : 2;
  int c;
  for (c = 0; c < 5; ++c) a.q[c] = q[c];
  a.g = *g, a.axis = axis;
  /* the axes before `axis` padded, those after it interior */
  return hd_ns3_ghost_loop(ctx, &a,
                           hd_range3_make(e1 < axis ? 0 : 1, g->n[e1] + (e1 < axis ? 2 : 1), e2 < axis ? 0 : 1,
                                          g->n[e2] + (e2 < axis ? 2 : 1), 0, 2));
}

/* ---- monitor ---------------------------------------------------------------------- */

/* Per row (j, k) of nodes, folded in x order: mass, momentum (3), total
 * energy, kinetic energy rho |u|^2 / 2, enstrophy rho |omega|^2 / 2, the
 * kinetic energy's rate of change u . k_m - |u|^2 / 2 k_rho from the
 * right-hand side (the semi-discrete -dE_k/dt, negated), max |p - p_inf|,
 * bad nodes and the x index of the first.  Needs the ghosts and prims. */
#define HD_NS3_ROW 11

HD_FN void hd_ns3_row_pt(const hd_ns3_args *a, hd_idx j, hd_idx k, double *row) {
  const hd_idx *s = a->g.stride;
  double v[HD_NS3_ROW];
  hd_idx i;
  int c;
  for (c = 0; c < HD_NS3_ROW; ++c) v[c] = 0.0;
  v[10] = -1.0;
  for (i = 1; i <= a->g.n[0]; ++i) {
    const hd_idx n = hd_grid_at(&a->g, i, j, k);
    const hd_ns3_prim *P = a->prims + n;
    const double dp = fabs((double)P->p - (double)a->p_inf);
    double om[3], u2, w2;
    hd_real r[5];
    if (!hd_isfinite(P->p) || !hd_isfinite(P->r) || !(P->r > 0) || !(P->p > 0)) {
      if (v[9] == 0.0) v[10] = (double)(i - 1);
      v[9] += 1.0;
      continue;
    }
    /* vorticity by centred differences: w_y - v_z, u_z - w_x, v_x - u_y */
    om[0] = 0.5 * ((double)(P[s[1]].u[2] - P[-s[1]].u[2]) * a->rh[1] - (double)(P[s[2]].u[1] - P[-s[2]].u[1]) * a->rh[2]);
    om[1] = 0.5 * ((double)(P[s[2]].u[0] - P[-s[2]].u[0]) * a->rh[2] - (double)(P[s[0]].u[2] - P[-s[0]].u[2]) * a->rh[0]);
    om[2] = 0.5 * ((double)(P[s[0]].u[1] - P[-s[0]].u[1]) * a->rh[0] - (double)(P[s[1]].u[0] - P[-s[1]].u[0]) * a->rh[1]);
    u2 = (double)P->u[0] * P->u[0] + (double)P->u[1] * P->u[1] + (double)P->u[2] * P->u[2];
    w2 = om[0] * om[0] + om[1] * om[1] + om[2] * om[2];
    hd_ns3_rhs_at(a, P, s, r);
    v[0] += (double)a->q[0][n];
    for (c = 0; c < 3; ++c) v[1 + c] += (double)a->q[1 + c][n];
    v[4] += (double)a->q[4][n];
    v[5] += 0.5 * (double)P->r * u2;
    v[6] += 0.5 * (double)P->r * w2;
    v[7] += (double)P->u[0] * r[1] + (double)P->u[1] * r[2] + (double)P->u[2] * r[3] - 0.5 * u2 * r[0];
    if (dp > v[8]) v[8] = dp;
  }
  for (c = 0; c < HD_NS3_ROW; ++c) row[c] = v[c];
}

/* ---- initial states ------------------------------------------------------------- */

enum { HD_NS3_IC_UNIFORM = 0, HD_NS3_IC_TAYLOR_GREEN, HD_NS3_IC_VORTEX_TUBE };

/* Uniform flow (u_inf, 0, 0) at rho = 1, p = 1/gamma, or
 *  TAYLOR_GREEN (the workshop's case, length L = 1, speed V = u0):
 *    u = V sin x cos y cos z,  v = -V cos x sin y cos z,  w = 0,
 *    p = p_inf + V^2 / 16 (cos 2x + cos 2y)(cos 2z + 2),  T = 1 (rho = gamma p);
 *  VORTEX_TUBE: hd/ns.h's 2-D initial state (plane.kind) at (x, y), the
 *    same in every z plane. */
typedef struct hd_ns3_ic {
  int kind;
  double gamma, u0;
  hd_ns_ic plane;
} hd_ns3_ic;

HD_FN void hd_ns3_ic_state(const hd_ns3_ic *ic, double x, double y, double z, double q[5]) {
  double r = 1.0, u = 0.0, v = 0.0, w = 0.0, p = 1.0 / ic->gamma;
  if (ic->kind == HD_NS3_IC_VORTEX_TUBE) {
    double q2[4];
    hd_ns_ic_state(&ic->plane, x, y, q2);
    q[0] = q2[0], q[1] = q2[1], q[2] = q2[2], q[3] = 0.0, q[4] = q2[3];
    return;
  }
  if (ic->kind == HD_NS3_IC_TAYLOR_GREEN) {
    const double V = ic->u0;
    u = V * sin(x) * cos(y) * cos(z), v = -V * cos(x) * sin(y) * cos(z);
    p += V * V / 16.0 * (cos(2 * x) + cos(2 * y)) * (cos(2 * z) + 2.0);
    r = ic->gamma * p;
  } else {
    u = ic->u0;
  }
  q[0] = r, q[1] = r * u, q[2] = r * v, q[3] = r * w, q[4] = p / (ic->gamma - 1.0) + 0.5 * r * (u * u + v * v + w * w);
}

typedef struct hd_ns3_init_args {
  hd_real *q[5];
  hd_grid g;
  hd_ns3_ic ic;
  double x0[3], h[3]; /* coordinates of physical node 0 of the whole grid and spacings */
  hd_idx off[3];      /* the block's first node in the whole grid (0 unless split) */
} hd_ns3_init_args;

HD_FN void hd_ns3_init_pt(const hd_ns3_init_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_idx n = hd_grid_at(&a->g, i, j, k);
  double q[5];
  int c;
  hd_ns3_ic_state(&a->ic, a->x0[0] + (double)(i - 1 + a->off[0]) * a->h[0],
                  a->x0[1] + (double)(j - 1 + a->off[1]) * a->h[1], a->x0[2] + (double)(k - 1 + a->off[2]) * a->h[2], q);
  for (c = 0; c < 5; ++c) a->q[c][n] = (hd_real)q[c];
}

HD_DEFINE_FOR_3D(hd_ns3_init_loop, hd_ns3_init_pt, hd_ns3_init_args)

/* ---- output fields ---------------------------------------------------------------- */

/* rho, u, v, w, p and the vorticity's three components at the nodes
 * (centred differences; ghosts filled), into eight arrays laid out as q. */
typedef struct hd_ns3_derive_args {
  hd_ns3_args f;
  hd_real *out[8];
} hd_ns3_derive_args;

HD_FN void hd_ns3_derive_pt(const hd_ns3_derive_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_ns3_args *f = &a->f;
  const hd_idx n = hd_grid_at(&f->g, i, j, k), *s = f->g.stride;
  const hd_ns3_prim *P = f->prims + n;
  const hd_real h2 = HD_R(0.5);
  a->out[0][n] = P->r, a->out[1][n] = P->u[0], a->out[2][n] = P->u[1], a->out[3][n] = P->u[2], a->out[4][n] = P->p;
  a->out[5][n] = h2 * ((P[s[1]].u[2] - P[-s[1]].u[2]) * f->rh[1] - (P[s[2]].u[1] - P[-s[2]].u[1]) * f->rh[2]);
  a->out[6][n] = h2 * ((P[s[2]].u[0] - P[-s[2]].u[0]) * f->rh[2] - (P[s[0]].u[2] - P[-s[0]].u[2]) * f->rh[0]);
  a->out[7][n] = h2 * ((P[s[0]].u[1] - P[-s[0]].u[1]) * f->rh[0] - (P[s[1]].u[0] - P[-s[1]].u[0]) * f->rh[1]);
}

HD_DEFINE_FOR_3D(hd_ns3_derive_loop, hd_ns3_derive_pt, hd_ns3_derive_args)

/* ---- time step ---------------------------------------------------------------- */

/* RK4's limits (hd/ns.h) for dt sum_d (|u_d| + c)/h_d and for
 * dt 4 nu_eff sum_d 1/h_d^2. */
HD_HOST_FN double hd_ns3_dt_max(const double speed[3], const double h[3], double nu_eff) {
  double conv = 0.0, visc = 0.0;
  int d;
  for (d = 0; d < 3; ++d) conv += speed[d] / h[d], visc += 1.0 / (h[d] * h[d]);
  conv = HD_NS_CFL_MAX / conv;
  visc = nu_eff > 0 ? HD_NS_VISC_MAX / (4.0 * nu_eff * visc) : conv;
  return conv < visc ? conv : visc;
}

#endif /* HD_NS3_H */
