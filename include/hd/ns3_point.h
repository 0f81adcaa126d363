/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/ns3_point.h - 3-D compressible Navier-Stokes, a node's physics:
 * hd/ns.h's discretisation with a third axis (hd/ns3.h has the stage).
 *
 * Conservative variables q = (rho, rho u, rho v, rho w, rho E) on the nodes
 * of a box, one ghost layer, x fastest; units and gas as hd/ns.h (rho_inf
 * = c_inf = 1, p_inf = 1/gamma, T = gamma p / rho).  Inviscid fluxes by
 * centred differences (F(i+1) - F(i-1))/2h (the divergence form), or as
 * differences of the split form's half-point fluxes (hd_ns3_split_flux,
 * second order too); viscous fluxes at the half points, normal
 * derivatives compact and transverse ones averaged from the two nodes, so
 * that a node's right-hand side reads its 6 face and 12 edge neighbours.
 * A flow uniform in z with w = 0 gives the 2-D solver's numbers bit for
 * bit in the divergence form: every term the third axis adds is an exact
 * zero added last (tests/ns3_flow). */
#ifndef HD_NS3_POINT_H
#define HD_NS3_POINT_H

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
  int bc[6];           /* HD_NS_* per face: x lo, x hi, y lo, y hi, z lo, z hi (hd/nscbc3.h) */
  int shared[6];       /* faces joined to a neighbouring block: no condition; the halo fills their ghosts */
  int faces;           /* some face has a condition (not periodic, not shared) */
  int corners;         /* edges and corners: 1 coupled (Lodato et al.), 0 each face alone (as 2-D) */
  hd_real relax[6], beta[6], relax_in[6]; /* NSCBC per face, as hd_ns_args */
  hd_real u_inf[3];    /* the free stream */
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

#endif /* HD_NS3_POINT_H */
