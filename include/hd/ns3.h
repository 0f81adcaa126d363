/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/ns3.h - 3-D compressible Navier-Stokes: the stage, ghosts, monitor,
 * initial states and output fields around hd/ns3_point.h's node physics
 * and hd/nscbc3.h's characteristic faces.
 *
 * The classical RK4 fused into the right-hand side as in 2-D
 * (hd_ns_rk4).  Two forms of a stage: the two-pass form writes every
 * node's primitives (hd_ns3_prims_loop) and then each node's update from
 * them; the one-pass form (prims NULL) recomputes a node's neighbours'
 * primitives (the check: the same arithmetic, so the same bits).  Face
 * nodes of non-periodic axes take their conditions inside the same loop
 * (a branch on the node's coordinates). */
#ifndef HD_NS3_H
#define HD_NS3_H

#include "nscbc3.h"

/* The right-hand side of node (i, j, k) in either form, with its face
 * conditions (hd/nscbc3.h) where it lies on a face that has some. */
HD_FN void hd_ns3_rhs_from(const hd_ns3_args *a, hd_idx i, hd_idx j, hd_idx k, const hd_ns3_prim *P, const hd_idx s[3],
                           hd_real r[5]) {
  hd_ns3_rhs_at(a, P, s, r);
  if (a->faces) {
    const hd_idx at[3] = {i, j, k};
    hd_ns3_faces(a, at, hd_grid_at(&a->g, i, j, k), P, s, r);
  }
}

HD_FN void hd_ns3_rhs(const hd_ns3_args *a, hd_idx i, hd_idx j, hd_idx k, hd_real r[5]) {
  const hd_idx n = hd_grid_at(&a->g, i, j, k);
  if (a->prims) {
    hd_ns3_rhs_from(a, i, j, k, a->prims + n, a->g.stride, r);
  } else {
    const hd_idx s[3] = {1, 3, 9};
    hd_ns3_prim w[27];
    hd_ns3_neighbours(a, n, w);
    hd_ns3_rhs_from(a, i, j, k, w + 13, s, r);
  }
}

HD_FN void hd_ns3_interior_pt(const hd_ns3_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_idx n = hd_grid_at(&a->g, i, j, k);
  hd_real r[5];
  int c;
  hd_ns3_rhs(a, i, j, k, r);
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

/* ---- ghosts --------------------------------------------------------------------- */

/* The ghost layers across `axis`: on a periodic axis copies of the nodes
 * they wrap to, else hd/ns.h's cubic extrapolation 3 q0 - 3 q1 + q2 (the
 * centred differences at the face one-sided second order); over the whole
 * padded extent of the axes before it and the interior of those after:
 * filled x, then y, then z (each launch reads what the one before wrote),
 * edges and corners come out right, and a face shared with a neighbouring
 * block takes its ghosts from the halo exchange in its turn instead. */
typedef struct hd_ns3_ghost_args {
  hd_real *q[5];
  hd_grid g;
  int axis, periodic, skip[2]; /* skip: the low and high faces whose ghosts the halo fills */
} hd_ns3_ghost_args;

/* (u, v, side): the face's two other coordinates (padded) and 0 / 1 for
 * its low / high layer. */
HD_FN void hd_ns3_ghost_pt(const hd_ns3_ghost_args *a, hd_idx u, hd_idx v, hd_idx side) {
  const hd_grid *g = &a->g;
  const int b = a->axis, e1 = b == 0 ? 1 : 0, e2 = b == 2 ? 1 : 2;
  const hd_idx st = g->stride[b], in = side ? -st : st; /* one node inwards */
  const hd_idx n = u * g->stride[e1] + v * g->stride[e2] + (side ? g->n[b] + 1 : 0) * st;
  int c;
  if (a->skip[side]) return;
  if (a->periodic) {
    const hd_idx m = n + g->n[b] * in;
    for (c = 0; c < 5; ++c) a->q[c][n] = a->q[c][m];
  } else {
    for (c = 0; c < 5; ++c)
      a->q[c][n] = HD_R(3) * a->q[c][n + in] - HD_R(3) * a->q[c][n + 2 * in] + a->q[c][n + 3 * in];
  }
}

HD_DEFINE_FOR_3D(hd_ns3_ghost_loop, hd_ns3_ghost_pt, hd_ns3_ghost_args)

/* The ghosts across one axis (0, 1, 2), in the order above, but those of
 * shared faces. */
HD_HOST_FN hd_status hd_ns3_fill_ghosts(hd_ctx *ctx, const hd_ns3_args *f, hd_real *const q[5], int axis) {
  const hd_grid *g = &f->g;
  const int e1 = axis == 0 ? 1 : 0, e2 = axis == 2 ? 1 : 2;
  hd_ns3_ghost_args a;
  int c;
  for (c = 0; c < 5; ++c) a.q[c] = q[c];
  a.g = *g, a.axis = axis, a.periodic = f->bc[2 * axis] == HD_NS_PERIODIC;
  a.skip[0] = f->shared[2 * axis], a.skip[1] = f->shared[2 * axis + 1];
  if (a.skip[0] && a.skip[1]) return HD_OK;
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
    hd_ns3_rhs_from(a, i, j, k, P, s, r);
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

enum { HD_NS3_IC_UNIFORM = 0, HD_NS3_IC_TAYLOR_GREEN, HD_NS3_IC_VORTEX_TUBE, HD_NS3_IC_PULSE, HD_NS3_IC_VORTEX_RING };

/* Uniform flow (u0, 0, 0) at rho = 1, p = 1/gamma, or
 *  TAYLOR_GREEN (the workshop's case, length L = 1, speed V = u0, at rest
 *    on average):
 *    u = V sin x cos y cos z,  v = -V cos x sin y cos z,  w = 0,
 *    p = p_inf + V^2 / 16 (cos 2x + cos 2y)(cos 2z + 2),  T = 1 (rho = gamma p);
 *  VORTEX_TUBE: hd/ns.h's 2-D initial state (plane) at (x, y), the same
 *    in every z plane;
 *  PULSE: a spherical acoustic pulse in the stream, p' = A exp(-r^2/rc^2)
 *    about x0, rho' = p' (c = 1), at rest in the stream: it leaves as a
 *    spherical shell through faces, edges and corners;
 *  VORTEX_RING: a ring of radius R about x0 normal to the unit axis n,
 *    the curl of the vector potential A_phi = psi(d) rho_c / R (rho_c the
 *    distance from the axis, d from the ring's core circle,
 *    psi = G rc e^(1/2) exp(-d^2 / 2 rc^2): a swirl of peak speed about G
 *    around the core, divergence-free, regular on the axis), added to the
 *    stream at rho = 1, p = p_inf (not in balance: a weak O(G^2)
 *    acoustic start).
 * clip > 0: the uniform stream wherever a coordinate is farther than clip
 * from x0 (validation: a large box holds what a small one holds). */
typedef struct hd_ns3_ic {
  int kind;
  double gamma, u0, strength, rc, x0[3], clip;
  double ring, axis[3]; /* VORTEX_RING: R and n */
  hd_ns_ic plane;
} hd_ns3_ic;

HD_FN void hd_ns3_ic_state(const hd_ns3_ic *ic, double x, double y, double z, double q[5]) {
  const double dx = x - ic->x0[0], dy = y - ic->x0[1], dz = z - ic->x0[2];
  const int clipped = ic->clip > 0 && (fabs(dx) > ic->clip || fabs(dy) > ic->clip || fabs(dz) > ic->clip);
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
    if (ic->kind == HD_NS3_IC_VORTEX_RING && !clipped) {
      const double *n = ic->axis, a2 = ic->rc * ic->rc, sx = dx * n[0] + dy * n[1] + dz * n[2];
      const double px = dx - sx * n[0], py = dy - sx * n[1], pz = dz - sx * n[2]; /* from the axis */
      const double rho = sqrt(px * px + py * py + pz * pz), d2 = sx * sx + (rho - ic->ring) * (rho - ic->ring);
      const double psi = ic->strength * ic->rc * exp(0.5 - 0.5 * d2 / a2);
      const double along = (2.0 - rho * (rho - ic->ring) / a2) * psi / ic->ring, out = psi * sx / (a2 * ic->ring);
      u += along * n[0] + out * px, v += along * n[1] + out * py, w += along * n[2] + out * pz;
    }
    if (ic->kind == HD_NS3_IC_PULSE && !clipped) {
      const double e = ic->strength * exp(-(dx * dx + dy * dy + dz * dz) / (ic->rc * ic->rc));
      p += e, r += e;
    }
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
