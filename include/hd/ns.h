/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/ns.h - 2-D compressible Navier-Stokes (after Degawa's CUDA Fortran study, first half).
 *
 * Conservative variables q = (rho, rho u, rho v, rho E) on the nodes of a
 * rectangle, one ghost layer, x fastest (hd_grid); an axis that is periodic
 * has n nodes of spacing L/n, otherwise n + 1 nodes including both faces.
 * Units: rho_inf = c_inf = 1, so p_inf = 1/gamma and T = gamma p / rho = c^2
 * (T_inf = 1); R = 1/gamma, c_p = 1/(gamma - 1).
 *
 *   dq/dt + dF/dx + dG/dy = dFv/dx + dGv/dy
 *   F = (rho u, rho u^2 + p, rho u v, u (rho E + p)),  G likewise in y,
 *   Fv = (0, txx, txy, u txx + v txy + k dT/dx),  Gv likewise,
 *   txx = mu (4/3 u_x - 2/3 v_y), txy = mu (u_y + v_x),  k = mu c_p / Pr,
 *   mu = mu_ref (1 + S) / (T + S) T^(3/2)   (Sutherland, as Degawa writes it, T_ref = 1).
 *
 * Second-order central differences: inviscid fluxes (F(i+1) - F(i-1))/2h;
 * viscous fluxes at the half points i +- 1/2 (compact normal derivatives,
 * cross derivatives averaged from the two nodes), so the whole right-hand
 * side of a node comes from its 3 x 3 neighbours.  At a non-periodic face
 * the ghost values are Degawa's cubic extrapolation g = 3 q0 - 3 q1 + q2,
 * which makes the centred differences at the face one-sided second order;
 * the face nodes then get their normal inviscid terms from the
 * characteristic boundary conditions of hd/nscbc.h.
 *
 * Time: the classical four-stage Runge-Kutta, the update fused into the
 * right-hand-side kernel: stage s reads its input q_s, writes
 * q_{s+1} = q0 + a_s dt k and accumulates acc (+)= b_s dt k; the last stage
 * writes q0 + ... = acc + dt/6 k over q0 (each node reads q0 only at
 * itself). */
#ifndef HD_NS_H
#define HD_NS_H

#include <math.h>

#include "context.h"
#include "index.h"
#include "launch.h"
#include "real.h"
#include "reduce.h"

enum { HD_NS_PERIODIC = 0, HD_NS_SUPERSONIC_IN, HD_NS_SUPERSONIC_OUT, HD_NS_NONREFLECTING, HD_NS_SUBSONIC_IN,
       HD_NS_SLIP_WALL, HD_NS_NOSLIP_WALL, HD_NS_ZERO_GRADIENT, HD_NS_NBC };
enum { HD_NS_XLO = 0, HD_NS_XHI, HD_NS_YLO, HD_NS_YHI };

typedef struct hd_ns_prim {
  hd_real r, u, v, p, t;
  hd_real mu; /* Sutherland's viscosity where the right-hand side needs it, else 0 */
} hd_ns_prim;

typedef struct hd_ns_args {
  const hd_real *q[4];  /* stage input, ghosts filled */
  hd_real *q0[4];       /* the state at the start of the step */
  hd_real *acc[4];      /* Runge-Kutta accumulator */
  hd_real *out[4];      /* stage output (q0 itself at the last stage) */
  hd_grid g;            /* nodes, ghost 1 */
  int bc[4];            /* HD_NS_* per face: x lo, x hi, y lo, y hi */
  int shared[4];        /* faces joined to a neighbouring block of a split grid:
                         * no condition there; the caller fills those ghosts */
  int stage;            /* 0..3 */
  int viscous;
  hd_real dt, rhx, rhy; /* time step, 1/hx, 1/hy */
  hd_real gamma, mu_ref, suth, kfac; /* kfac = c_p / Pr */
  hd_real p_inf;
  hd_real relax[4];     /* NSCBC pressure relaxation K / c per face: sigma (1 - M^2) / L */
  hd_real beta[4];      /* NSCBC per face: 1 - the fraction of the transverse terms kept in entering
                         * acoustic waves */
  hd_real relax_in[4];  /* NSCBC per face: entering entropy and vorticity waves relaxed toward the free
                         * stream at the rate relax_in |u_n| (0: L2 = L3 = 0) */
  hd_real u_inf, v_inf; /* the free stream */
  hd_ns_prim *prims;    /* CPU: scratch of g.total primitives, computed once a node and stage
                         * (NULL: each node recomputes its 3 x 3 neighbours') */
  int generic;          /* 1: the one-pass generic loop on every backend (the check) */
} hd_ns_args;

HD_FN hd_ns_prim hd_ns_primitive(hd_real gamma, hd_real r, hd_real mu, hd_real mv, hd_real e) {
  hd_ns_prim w;
  w.r = r;
  w.u = mu / r;
  w.v = mv / r;
  w.p = (gamma - HD_R(1)) * (e - HD_R(0.5) * (mu * w.u + mv * w.v));
  w.t = gamma * w.p / r;
  w.mu = HD_R(0);
  return w;
}

HD_FN hd_ns_prim hd_ns_load(const hd_ns_args *a, hd_idx n) {
  return hd_ns_primitive(a->gamma, a->q[0][n], a->q[1][n], a->q[2][n], a->q[3][n]);
}

/* Sutherland's law with T_ref = 1 (T in units of T_inf); suth < 0: a
 * constant viscosity mu_ref. */
HD_FN hd_real hd_ns_viscosity(hd_real mu_ref, hd_real suth, hd_real t) {
  return suth < 0 ? mu_ref : mu_ref * (HD_R(1) + suth) / (t + suth) * t * hd_sqrt(t);
}

HD_FN hd_real hd_ns_mu(const hd_ns_args *a, hd_real t) { return hd_ns_viscosity(a->mu_ref, a->suth, t); }

/* Inviscid flux along x (dir 0) or y (dir 1). */
HD_FN void hd_ns_flux(hd_real gamma, const hd_ns_prim *w, int dir, hd_real f[4]) {
  const hd_real un = dir == 0 ? w->u : w->v;
  const hd_real re = w->p / (gamma - HD_R(1)) + HD_R(0.5) * w->r * (w->u * w->u + w->v * w->v);
  f[0] = w->r * un;
  f[1] = w->r * w->u * un + (dir == 0 ? w->p : HD_R(0));
  f[2] = w->r * w->v * un + (dir == 1 ? w->p : HD_R(0));
  f[3] = un * (re + w->p);
}

/* Viscous flux across the half point between nodes c and d = c + 1 along
 * dir, from the 3 x 2 block: cm, cp, dm, dp are c and d shifted by -1/+1
 * across.  h_along = 1/spacing along dir, h_across = 1/spacing across. */
HD_FN void hd_ns_viscous_flux(const hd_ns_args *a, int dir, const hd_ns_prim *c, const hd_ns_prim *d,
                              const hd_ns_prim *cm, const hd_ns_prim *cp, const hd_ns_prim *dm,
                              const hd_ns_prim *dp, hd_real mu_c, hd_real mu_d, hd_real fv[4]) {
  const hd_real ra = dir == 0 ? a->rhx : a->rhy, rc = dir == 0 ? a->rhy : a->rhx;
  const hd_real q4 = HD_R(0.25) * rc;
  /* derivatives along (n) and across (s) at the half point */
  const hd_real un = (d->u - c->u) * ra, vn = (d->v - c->v) * ra, tn = (d->t - c->t) * ra;
  const hd_real us = (cp->u - cm->u + dp->u - dm->u) * q4, vs = (cp->v - cm->v + dp->v - dm->v) * q4;
  const hd_real mu = HD_R(0.5) * (mu_c + mu_d), uf = HD_R(0.5) * (c->u + d->u), vf = HD_R(0.5) * (c->v + d->v);
  hd_real tnn, tns; /* normal stress along dir, shear */
  if (dir == 0) {
    tnn = mu * (HD_R(4) / HD_R(3) * un - HD_R(2) / HD_R(3) * vs); /* txx: u_x, v_y */
    tns = mu * (us + vn);                                         /* txy: u_y + v_x */
    fv[1] = tnn, fv[2] = tns;
    fv[3] = uf * tnn + vf * tns + a->kfac * mu * tn;
  } else {
    tnn = mu * (HD_R(4) / HD_R(3) * vn - HD_R(2) / HD_R(3) * us); /* tyy: v_y, u_x */
    tns = mu * (un + vs);                                         /* txy: u_y + v_x */
    fv[1] = tns, fv[2] = tnn;
    fv[3] = uf * tns + vf * tnn + a->kfac * mu * tn;
  }
  fv[0] = HD_R(0);
}

/* Primitives of conserved values q with the viscosity the right-hand
 * side needs; of node n. */
HD_FN hd_ns_prim hd_ns_node_of(const hd_ns_args *a, const hd_real q[4]) {
  hd_ns_prim w = hd_ns_primitive(a->gamma, q[0], q[1], q[2], q[3]);
  if (a->viscous) w.mu = hd_ns_mu(a, w.t);
  return w;
}

HD_FN hd_ns_prim hd_ns_node(const hd_ns_args *a, hd_idx n) {
  hd_real q[4];
  int c;
  for (c = 0; c < 4; ++c) q[c] = a->q[c][n];
  return hd_ns_node_of(a, q);
}

/* The right-hand side of a node from its 3 x 3 neighbours' primitives:
 * s, c and n point at the node's column in the rows below, at and above
 * it (x neighbours at -1 and +1); the viscosity is read at the node and
 * its four edge neighbours only. */
HD_FN void hd_ns_rhs_rows(const hd_ns_args *a, const hd_ns_prim *s, const hd_ns_prim *c, const hd_ns_prim *n,
                          hd_real k[4]) {
  hd_real fe[4], fw[4], gn[4], gs[4];
  int q;
  hd_ns_flux(a->gamma, &c[1], 0, fe), hd_ns_flux(a->gamma, &c[-1], 0, fw);
  hd_ns_flux(a->gamma, &n[0], 1, gn), hd_ns_flux(a->gamma, &s[0], 1, gs);
  for (q = 0; q < 4; ++q) k[q] = -HD_R(0.5) * ((fe[q] - fw[q]) * a->rhx + (gn[q] - gs[q]) * a->rhy);
  if (a->viscous) {
    hd_ns_viscous_flux(a, 0, &c[0], &c[1], &s[0], &n[0], &s[1], &n[1], c[0].mu, c[1].mu, fe);
    hd_ns_viscous_flux(a, 0, &c[-1], &c[0], &s[-1], &n[-1], &s[0], &n[0], c[-1].mu, c[0].mu, fw);
    hd_ns_viscous_flux(a, 1, &c[0], &n[0], &c[-1], &c[1], &n[-1], &n[1], c[0].mu, n[0].mu, gn);
    hd_ns_viscous_flux(a, 1, &s[0], &c[0], &s[-1], &s[1], &c[-1], &c[1], s[0].mu, c[0].mu, gs);
    for (q = 1; q < 4; ++q) k[q] += (fe[q] - fw[q]) * a->rhx + (gn[q] - gs[q]) * a->rhy;
  }
}

/* The 3 x 3 neighbours' primitives of node offset n ([dj + 1][di + 1]),
 * with the viscosity where the right-hand side reads it. */
HD_FN void hd_ns_neighbours(const hd_ns_args *a, hd_idx n, hd_ns_prim w[3][3]) {
  const hd_idx sy = a->g.stride[1];
  int di, dj;
  for (dj = -1; dj <= 1; ++dj)
    for (di = -1; di <= 1; ++di)
      w[dj + 1][di + 1] = di == 0 || dj == 0 ? hd_ns_node(a, n + di + dj * sy) : hd_ns_load(a, n + di + dj * sy);
}

/* The right-hand side at node offset n, its neighbours' primitives
 * computed here (the one-pass form). */
HD_FN void hd_ns_rhs(const hd_ns_args *a, hd_idx n, hd_real k[4]) {
  hd_ns_prim w[3][3];
  hd_ns_neighbours(a, n, w);
  hd_ns_rhs_rows(a, &w[0][1], &w[1][1], &w[2][1], k);
}

/* The fused Runge-Kutta update of node n with right-hand side k, from the
 * node's old values (hd_ns_update_old: q0 and the accumulator, each where
 * the stage reads it). */
HD_FN void hd_ns_update_old(const hd_ns_args *a, hd_idx n, hd_real q0[4], hd_real acc[4]) {
  int c;
  for (c = 0; c < 4; ++c) {
    q0[c] = a->stage < 3 ? a->q0[c][n] : HD_R(0);
    acc[c] = a->stage > 0 ? a->acc[c][n] : HD_R(0);
  }
}

/* The classical RK4's stage s of variable value k at a node: the next
 * stage's input (out) and the accumulator, from the node's q0 and acc. */
HD_FN void hd_ns_rk4(int stage, hd_real dt, hd_real k, hd_real q0, hd_real acc, hd_real *out, hd_real *acc_out) {
  /* a = 1/2, 1/2, 1 (next stage input), b = 1/6, 1/3, 1/3, 1/6 (weights) */
  const hd_real ta = stage == 2 ? dt : HD_R(0.5) * dt;
  const hd_real tb = (stage == 0 || stage == 3 ? HD_R(1) / HD_R(6) : HD_R(1) / HD_R(3)) * dt;
  if (stage == 0) {
    *out = q0 + ta * k;
    *acc_out = q0 + tb * k;
  } else if (stage < 3) {
    *out = q0 + ta * k;
    *acc_out = acc + tb * k;
  } else {
    *out = acc + tb * k;
  }
}

HD_FN void hd_ns_update_from(const hd_ns_args *a, hd_idx n, const hd_real k[4], const hd_real q0[4],
                             const hd_real acc[4]) {
  int c;
  for (c = 0; c < 4; ++c) hd_ns_rk4(a->stage, a->dt, k[c], q0[c], acc[c], &a->out[c][n], &a->acc[c][n]);
}

HD_FN void hd_ns_update(const hd_ns_args *a, hd_idx n, const hd_real k[4]) {
  hd_real q0[4], acc[4];
  hd_ns_update_old(a, n, q0, acc);
  hd_ns_update_from(a, n, k, q0, acc);
}

HD_FN void hd_ns_interior_pt(const hd_ns_args *a, hd_idx i, hd_idx j) {
  const hd_idx n = hd_grid_at(&a->g, i, j, 0);
  hd_real k[4];
  hd_ns_rhs(a, n, k);
  hd_ns_update(a, n, k);
}

/* The two-pass form: every node's primitives into a->prims, then each
 * node's right-hand side from them (the same arithmetic as the one-pass
 * form, one primitive conversion and one viscosity a node instead of 9
 * and 5). */
HD_FN void hd_ns_prims_pt(const hd_ns_args *a, hd_idx i, hd_idx j) {
  const hd_idx n = hd_grid_at(&a->g, i, j, 0);
  a->prims[n] = hd_ns_node(a, n);
}

HD_FN void hd_ns_interior_prims_pt(const hd_ns_args *a, hd_idx i, hd_idx j) {
  const hd_idx n = hd_grid_at(&a->g, i, j, 0), sy = a->g.stride[1];
  hd_real k[4];
  hd_ns_rhs_rows(a, a->prims + n - sy, a->prims + n, a->prims + n + sy, k);
  hd_ns_update(a, n, k);
}

/* ---- ghosts ----------------------------------------------------------------- */

/* Ghosts of both axes in one launch: x ghosts for p < hd_ns_xghosts (the
 * ghost rows of shared y faces included: the neighbour filled those rows,
 * these are its own x ghosts), then y ghosts across every padded column.
 * A ghost is a periodic copy or the cubic extrapolation 3 q0 - 3 q1 + q2.
 * The y ghosts of the two x-ghost columns are those of the x ghosts,
 * which their threads compute from the rows instead of reading them:
 * nothing in the launch waits on another of its writes. */
typedef struct hd_ns_ghost_args {
  hd_real *q[4];
  hd_grid g;
  int periodic[2];
  int shared[4]; /* faces whose ghosts the caller filled (split grids) */
} hd_ns_ghost_args;

HD_FN hd_idx hd_ns_xghosts(const hd_ns_ghost_args *a) { return 2 * (a->g.n[1] + a->shared[2] + a->shared[3]); }

/* The x ghost on `side` (0: column 0, 1: column nx + 1) of the row
 * starting at r; px: x periodic. */
HD_FN hd_real hd_ns_xghost(const hd_grid *g, int px, const hd_real *q, hd_idx r, int side) {
  const hd_idx m = g->n[0];
  if (px) return q[r + (side == 0 ? m : 1)];
  return side == 0 ? HD_R(3) * q[r + 1] - HD_R(3) * q[r + 2] + q[r + 3]
                   : HD_R(3) * q[r + m] - HD_R(3) * q[r + m - 1] + q[r + m - 2];
}

/* Column t of the row starting at r, x ghosts computed. */
HD_FN hd_real hd_ns_ghost_src(const hd_grid *g, int px, const hd_real *q, hd_idx t, hd_idx r) {
  return t == 0 ? hd_ns_xghost(g, px, q, r, 0) : t == g->n[0] + 1 ? hd_ns_xghost(g, px, q, r, 1) : q[r + t];
}

/* The y ghost of column t on `side`, x ghosts computed; py: y periodic. */
HD_FN hd_real hd_ns_yghost(const hd_grid *g, int px, int py, const hd_real *q, hd_idx t, int side) {
  const hd_idx sy = g->stride[1], ny = g->n[1], face = side == 0 ? 1 : ny, in = side == 0 ? 1 : -1;
  if (py) return hd_ns_ghost_src(g, px, q, t, (side == 0 ? ny : 1) * sy);
  return HD_R(3) * hd_ns_ghost_src(g, px, q, t, face * sy) - HD_R(3) * hd_ns_ghost_src(g, px, q, t, (face + in) * sy) +
         hd_ns_ghost_src(g, px, q, t, (face + 2 * in) * sy);
}

HD_FN void hd_ns_ghost_pt(const hd_ns_ghost_args *a, hd_idx p) {
  const hd_idx sy = a->g.stride[1], nx = a->g.n[0], ny = a->g.n[1], xg = hd_ns_xghosts(a);
  int c;
  if (p < xg) { /* x ghost of row t */
    const hd_idx across = xg / 2, side = p / across, t = p % across + 1 - a->shared[2];
    for (c = 0; c < 4; ++c)
      a->q[c][t * sy + (side ? nx + 1 : 0)] = hd_ns_xghost(&a->g, a->periodic[0], a->q[c], t * sy, (int)side);
  } else { /* y ghost of column t */
    const hd_idx side = (p - xg) / (nx + 2), t = (p - xg) % (nx + 2);
    if (a->shared[2 + side]) return;
    for (c = 0; c < 4; ++c)
      a->q[c][(side == 0 ? 0 : ny + 1) * sy + t] =
          hd_ns_yghost(&a->g, a->periodic[0], a->periodic[1], a->q[c], t, (int)side);
  }
}

HD_DEFINE_FOR_2D(hd_ns_interior_loop, hd_ns_interior_pt, hd_ns_args)
HD_DEFINE_FOR_2D(hd_ns_prims_loop, hd_ns_prims_pt, hd_ns_args)
HD_DEFINE_FOR_2D(hd_ns_interior_prims_loop, hd_ns_interior_prims_pt, hd_ns_args)

#if defined(HD_BACKEND_CUDA)
/* The tuned CUDA stage: a block of HD_NS_TILE threads along x marches
 * HD_NS_MARCH rows up its strip, keeping three rows of primitives (and
 * the strip's two halo columns) in shared memory: each node's primitives
 * and viscosity are computed once, its q read once from memory, and the
 * right-hand side and update are the generic loops' functions.  The next
 * row's q and the node's old values are loaded a pass ahead, in flight
 * through the barrier and the right-hand side (the stage is otherwise
 * latency-bound: 24 % occupancy at 128 registers in double). */
#define HD_NS_HAS_TUNED 1
#ifndef HD_NS_TILE
#define HD_NS_TILE 128
#endif
#ifndef HD_NS_MARCH
#define HD_NS_MARCH 32
#endif
#ifndef HD_NS_RESERVE
#define HD_NS_RESERVE 8
#endif
#ifndef HD_NS_MIN_BLOCKS /* register caps measured on an H200 (doc/performance.md) */
#if defined(HD_REAL_FLOAT)
#define HD_NS_MIN_BLOCKS 8 /* 64 registers */
#else
#define HD_NS_MIN_BLOCKS 4 /* 128 registers: tighter caps spill */
#endif
#endif

/* One strip: tile (bx, by) of the range. */
static __device__ __forceinline__ void hd_ns_march_strip(const hd_ns_args *a, const hd_range3 *r, hd_idx bx, hd_idx by,
                                                         hd_ns_prim (*ring)[HD_NS_TILE + 2]) {
  const int tx = (int)threadIdx.x, halo = tx < 2, hs = tx == 0 ? 0 : HD_NS_TILE + 1;
  const hd_idx sy = a->g.stride[1], last = a->g.n[0] + 1, top = a->g.n[1] + 1; /* the last padded column, row */
  const hd_idx i0 = r->lo[0] + bx * HD_NS_TILE, i = i0 + tx;
  const hd_idx j0 = r->lo[1] + by * HD_NS_MARCH;
  const hd_idx j1 = j0 + HD_NS_MARCH < r->hi[1] ? j0 + HD_NS_MARCH : r->hi[1];
  /* threads past the range load the last column (valid memory, never used) */
  const hd_idx col = i < last ? i : last;
  const hd_idx hcol = tx == 0 ? i0 - 1 : i0 + HD_NS_TILE < last ? i0 + HD_NS_TILE : last;
  hd_real qn[4], hq[4], q0[4], acc[4]; /* row j + 1's q (own and halo column), node j's old values */
  int s = 0, c = 1, n = 2, v;
  hd_idx j;
  ring[0][tx + 1] = hd_ns_node(a, col + (j0 - 1) * sy);
  ring[1][tx + 1] = hd_ns_node(a, col + j0 * sy);
  if (halo) ring[0][hs] = hd_ns_node(a, hcol + (j0 - 1) * sy), ring[1][hs] = hd_ns_node(a, hcol + j0 * sy);
  for (v = 0; v < 4; ++v) qn[v] = a->q[v][col + (j0 + 1) * sy], hq[v] = halo ? a->q[v][hcol + (j0 + 1) * sy] : HD_R(0);
  for (j = j0; j < j1; ++j) {
    /* row j + 1's primitives from the loads of the last pass; then the
     * loads of row j + 2 and of node j's old values, in flight through
     * the barrier and the right-hand side */
    const hd_idx jn = j + 2 < top ? j + 2 : top;
    ring[n][tx + 1] = hd_ns_node_of(a, qn);
    if (halo) ring[n][hs] = hd_ns_node_of(a, hq);
    for (v = 0; v < 4; ++v) qn[v] = a->q[v][col + jn * sy];
    if (halo)
      for (v = 0; v < 4; ++v) hq[v] = a->q[v][hcol + jn * sy];
    hd_ns_update_old(a, col + j * sy, q0, acc);
    __syncthreads();
    if (i < r->hi[0]) {
      hd_real k[4];
      hd_ns_rhs_rows(a, &ring[s][tx + 1], &ring[c][tx + 1], &ring[n][tx + 1], k);
      hd_ns_update_from(a, i + j * sy, k, q0, acc);
    }
    __syncthreads();
    {
      const int t = s;
      s = c, c = n, n = t;
    }
  }
}

/* Blocks stay resident and take strips in turn (x fastest), as many as
 * fit on the device less HD_NS_RESERVE: those slots stay free for the
 * face nodes, which run beside on another stream and would otherwise wait
 * for a whole wave of strips to end (a full multiprocessor has no
 * registers left for them). */
HD_KERNEL void __launch_bounds__(HD_NS_TILE, HD_NS_MIN_BLOCKS) hd_ns_march(HD_KPARAM(hd_ns_args) a, hd_range3 r, hd_idx bx,
                                                                           hd_idx strips) {
  __shared__ hd_ns_prim ring[3][HD_NS_TILE + 2];
  hd_idx t;
  for (t = blockIdx.x; t < strips; t += gridDim.x) {
    hd_ns_march_strip(&a, &r, t % bx, t / bx, ring);
    __syncthreads(); /* the ring's next strip */
  }
}

HD_HOST_FN hd_status hd_ns_march_loop(hd_ctx *ctx, const hd_ns_args *a, hd_range3 r) {
  const hd_idx bx = (r.hi[0] - r.lo[0] + HD_NS_TILE - 1) / HD_NS_TILE;
  const hd_idx strips = bx * ((r.hi[1] - r.lo[1] + HD_NS_MARCH - 1) / HD_NS_MARCH);
  int per_sm = 0;
  hd_idx blocks;
  if (strips <= 0) return HD_OK;
  HD_CUDA_TRY(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, hd_ns_march, HD_NS_TILE, 0));
  blocks = (hd_idx)per_sm * ctx->sm_count - HD_NS_RESERVE;
  if (blocks < 1) blocks = 1;
  if (blocks > strips) blocks = strips;
  hd_ns_march<<<(unsigned)blocks, HD_NS_TILE, 0, hd_stream(ctx)>>>(*a, r, bx, strips);
  return hd_check_launch(ctx, "hd_ns_march", __FILE__, __LINE__);
}
#endif
HD_DEFINE_FOR_1D(hd_ns_ghost_loop, hd_ns_ghost_pt, hd_ns_ghost_args)

/* shared (NULL: none) as hd_ns_args.shared: ghosts left to the caller. */
HD_HOST_FN hd_status hd_ns_fill_ghosts(hd_ctx *ctx, hd_real *const q[4], const hd_grid *g, const int periodic[2],
                                       const int *shared) {
  hd_ns_ghost_args a;
  int c;
  for (c = 0; c < 4; ++c) a.q[c] = q[c], a.shared[c] = shared ? shared[c] : 0;
  a.g = *g, a.periodic[0] = periodic[0], a.periodic[1] = periodic[1];
  return hd_ns_ghost_loop(ctx, &a, 0, hd_ns_xghosts(&a) + 2 * (g->n[0] + 2));
}

/* ---- monitor: mass, energy, max |p - p_inf|, non-finite values -------------------- */

typedef struct hd_ns_sums {
  double mass, energy, dpmax;
  hd_idx nonfinite, first_bad;
} hd_ns_sums;

HD_FN void hd_ns_sums_init(hd_ns_sums *s) {
  s->mass = 0, s->energy = 0, s->dpmax = 0, s->nonfinite = 0, s->first_bad = -1;
}

HD_FN void hd_ns_sums_merge(hd_ns_sums *s, const hd_ns_sums *o) {
  s->mass += o->mass, s->energy += o->energy;
  if (o->dpmax > s->dpmax) s->dpmax = o->dpmax;
  if (o->nonfinite && (s->nonfinite == 0 || o->first_bad < s->first_bad)) s->first_bad = o->first_bad;
  s->nonfinite += o->nonfinite;
}

HD_FN void hd_ns_sums_pt(const hd_ns_args *a, hd_idx i, hd_idx j, hd_idx k, hd_ns_sums *s) {
  const hd_idx n = hd_grid_at(&a->g, i, j, k);
  const hd_ns_prim w = hd_ns_load(a, n);
  const double dp = fabs((double)w.p - (double)a->p_inf);
  if (!hd_isfinite(w.p) || !hd_isfinite(w.r) || !(w.r > 0) || !(w.p > 0)) {
    if (s->nonfinite == 0 || n < s->first_bad) s->first_bad = n;
    s->nonfinite++;
    return;
  }
  s->mass += (double)a->q[0][n];
  s->energy += (double)a->q[3][n];
  if (dp > s->dpmax) s->dpmax = dp;
}

HD_DEFINE_REDUCE_3D(hd_ns_sums_reduce, hd_ns_args, hd_ns_sums, hd_ns_sums_pt, hd_ns_sums_init, hd_ns_sums_merge)

/* Primitive fields and vorticity (v_x - u_y, one-sided at faces) for output. */
typedef struct hd_ns_derive_args {
  hd_ns_args f;
  hd_real *r, *u, *v, *p, *w;
} hd_ns_derive_args;

HD_FN void hd_ns_derive_pt(const hd_ns_derive_args *a, hd_idx i, hd_idx j) {
  const hd_ns_args *f = &a->f;
  const hd_idx n = hd_grid_at(&f->g, i, j, 0), sy = f->g.stride[1];
  const hd_ns_prim c = hd_ns_load(f, n), e = hd_ns_load(f, n + 1), w = hd_ns_load(f, n - 1);
  const hd_ns_prim no = hd_ns_load(f, n + sy), so = hd_ns_load(f, n - sy);
  a->r[n] = c.r, a->u[n] = c.u, a->v[n] = c.v, a->p[n] = c.p;
  a->w[n] = HD_R(0.5) * ((e.v - w.v) * f->rhx - (no.u - so.u) * f->rhy);
}

HD_DEFINE_FOR_2D(hd_ns_derive_loop, hd_ns_derive_pt, hd_ns_derive_args)

/* ---- initial states ------------------------------------------------------------- */

enum { HD_NS_IC_UNIFORM = 0, HD_NS_IC_VORTEX, HD_NS_IC_ISENTROPIC, HD_NS_IC_PULSE };

/* Uniform flow (u_inf, v_inf) at rho = 1, p = 1/gamma, plus
 *  VORTEX (Degawa's case, Poinsot & Lele): psi = G exp(-r^2 / (2 rc^2)),
 *    u = u_inf - G y / rc^2 e,  v = G x / rc^2 e,  e = exp(-r^2 / (2 rc^2)),
 *    p = p_inf - G^2 / (2 rc^2) exp(-r^2 / rc^2),  rho = 1;
 *  ISENTROPIC (an exact steady Euler solution carried by the flow):
 *    u_theta = G (r/rc) exp((1 - r^2/rc^2)/2),
 *    T = 1 - (gamma - 1) G^2 / 2 exp(1 - r^2/rc^2),  rho = T^(1/(gamma-1)),  p = rho T / gamma;
 *  PULSE: a plane acoustic wave running in +x, p' = G exp(-(x - x0)^2 / rc^2),
 *    u' = p' / c, rho' = p' (linear, c = 1). */
typedef struct hd_ns_ic {
  int kind;
  double gamma, u_inf, v_inf, strength, rc, x0, y0;
  double clip; /* > 0: the free stream wherever |x - x0| or |y - y0| exceeds it (validation: a
                * large box that lacks the far field a small one lacks) */
} hd_ns_ic;

HD_FN void hd_ns_ic_state(const hd_ns_ic *ic, double x, double y, double q[4]) {
  const double dx = x - ic->x0, dy = y - ic->y0, r2 = (dx * dx + dy * dy) / (ic->rc * ic->rc);
  const int kind = ic->clip > 0 && (fabs(dx) > ic->clip || fabs(dy) > ic->clip) ? HD_NS_IC_UNIFORM : ic->kind;
  double r = 1.0, u = ic->u_inf, v = ic->v_inf, p = 1.0 / ic->gamma;
  if (kind == HD_NS_IC_VORTEX) {
    const double e = exp(-0.5 * r2), s = ic->strength / (ic->rc * ic->rc);
    u -= s * dy * e, v += s * dx * e;
    p -= ic->strength * ic->strength / (2.0 * ic->rc * ic->rc) * e * e;
  } else if (kind == HD_NS_IC_ISENTROPIC) {
    const double e = exp(0.5 * (1.0 - r2)), s = ic->strength / ic->rc;
    const double t = 1.0 - 0.5 * (ic->gamma - 1.0) * ic->strength * ic->strength * e * e;
    u -= s * dy * e, v += s * dx * e;
    r = pow(t, 1.0 / (ic->gamma - 1.0));
    p = r * t / ic->gamma;
  } else if (kind == HD_NS_IC_PULSE) {
    const double e = ic->strength * exp(-dx * dx / (ic->rc * ic->rc));
    p += e, u += e, r += e;
  }
  q[0] = r, q[1] = r * u, q[2] = r * v, q[3] = p / (ic->gamma - 1.0) + 0.5 * r * (u * u + v * v);
}

typedef struct hd_ns_init_args {
  hd_real *q[4];
  hd_grid g;
  hd_ns_ic ic;
  double x0, y0, hx, hy; /* coordinates of physical node 0 of the whole grid and spacings */
  hd_idx i0, j0;         /* the block's first node in the whole grid (0, 0 unless split) */
} hd_ns_init_args;

HD_FN void hd_ns_init_pt(const hd_ns_init_args *a, hd_idx i, hd_idx j) {
  const hd_idx n = hd_grid_at(&a->g, i, j, 0);
  double q[4];
  int c;
  hd_ns_ic_state(&a->ic, a->x0 + (double)(i - 1 + a->i0) * a->hx, a->y0 + (double)(j - 1 + a->j0) * a->hy, q);
  for (c = 0; c < 4; ++c) a->q[c][n] = (hd_real)q[c];
}

HD_DEFINE_FOR_2D(hd_ns_init_loop, hd_ns_init_pt, hd_ns_init_args)

/* ---- time step ---------------------------------------------------------------- */

/* RK4 with centred differences: the imaginary-axis limit 2.83 for
 * dt ((|u| + c)/hx + (|v| + c)/hy), the real-axis limit 2.78 for
 * dt 4 (4/3) nu_max (1/hx^2 + 1/hy^2) (a gas also diffuses heat: nu
 * stands for max(4/3, gamma/Pr) mu/rho). */
#define HD_NS_CFL_MAX 2.8
#define HD_NS_VISC_MAX 2.78

HD_HOST_FN double hd_ns_dt_max(double speed_x, double speed_y, double hx, double hy, double nu_eff) {
  const double conv = HD_NS_CFL_MAX / (speed_x / hx + speed_y / hy);
  const double visc = nu_eff > 0 ? HD_NS_VISC_MAX / (4.0 * nu_eff * (1.0 / (hx * hx) + 1.0 / (hy * hy))) : conv;
  return conv < visc ? conv : visc;
}

#endif /* HD_NS_H */
