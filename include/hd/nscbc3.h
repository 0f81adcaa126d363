/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/nscbc3.h - characteristic boundary conditions for hd/ns3_point.h: the
 * 2-D conditions of hd/nscbc.h (Poinsot & Lele 1992 with transverse terms
 * and the driver's relaxations; its comment has the face types) with the
 * third velocity.
 *
 * At a node on a face normal to axis a, tangential axes t1 < t2, the wave
 * amplitudes from one-sided second-order derivatives along a are
 *   L1 = (u_n - c)(p_n - rho c u_n,n)   L2 = u_n (c^2 rho_n - p_n)
 *   L3 = u_n u_t1,n    L4 = u_n u_t2,n  L5 = (u_n + c)(p_n + rho c u_n,n);
 * an entering acoustic wave of a nonreflecting face is relaxed toward
 * p_inf less (1 - beta) of its transverse terms
 *   sum_t (u_t p_t + gamma p u_t,t) -+ rho c sum_t u_t u_n,t
 * (Yoo & Im 2007, Lodato et al. 2008), centred along the face, one-sided
 * through the extrapolated ghosts at edges and corners; L2, L3, L4
 * entering a supersonic inflow relax toward the free stream.  The d's,
 *   d1 = (L2 + (L5 + L1)/2)/c^2, d2 = (L5 + L1)/2, d3 = (L5 - L1)/(2 rho c),
 *   d4 = L3, d5 = L4,
 * give the normal inviscid terms (d1, u_n d1 + rho d3, u_t1 d1 + rho d4,
 * u_t2 d1 + rho d5, |u|^2/2 d1 + d2/(gamma - 1) + rho (u_n d3 + u_t1 d4 +
 * u_t2 d5)), which replace what the interior formula computed for that
 * axis.  Edges and corners: each face replaces its own axis's terms (x,
 * y, then z), then the holds apply (supersonic inflow everything, walls
 * their velocities, subsonic inflow u, v, w and T).  Lodato et al.'s
 * coupled treatment of the waves entering at edges and corners is not
 * used yet.  With w = 0 and nothing varying along z, every added term is
 * an exact zero added last: the 2-D conditions' bits (tests/ns3_flow). */
#ifndef HD_NSCBC3_H
#define HD_NSCBC3_H

#include "ns3_point.h"

/* Replace the normal inviscid terms of axis ax at face side (0 low, 1
 * high) in k: P the node's primitives (its neighbours at strides s), w2
 * the second node inwards. */
HD_FN void hd_ns3_characteristic(const hd_ns3_args *a, const hd_ns3_prim *P, const hd_idx s[3],
                                 const hd_ns3_prim *w2, int ax, int side, hd_real k[5]) {
  const int f = 2 * ax + side, type = a->bc[f], t1 = ax == 0 ? 1 : 0, t2 = ax == 2 ? 1 : 2;
  const hd_real sgn = side ? HD_R(1) : HD_R(-1), rh = a->rh[ax];
  const hd_ns3_prim *w0 = P, *wp = &P[s[ax]], *wm = &P[-s[ax]], *w1 = side ? wm : wp;
  const hd_real h2 = HD_R(0.5) * rh * sgn;
  const hd_real un = w0->u[ax], ut1 = w0->u[t1], ut2 = w0->u[t2];
  const hd_real dr = h2 * (HD_R(3) * w0->r - HD_R(4) * w1->r + w2->r);
  const hd_real dp = h2 * (HD_R(3) * w0->p - HD_R(4) * w1->p + w2->p);
  const hd_real dun = h2 * (HD_R(3) * w0->u[ax] - HD_R(4) * w1->u[ax] + w2->u[ax]);
  const hd_real dut1 = h2 * (HD_R(3) * w0->u[t1] - HD_R(4) * w1->u[t1] + w2->u[t1]);
  const hd_real dut2 = h2 * (HD_R(3) * w0->u[t2] - HD_R(4) * w1->u[t2] + w2->u[t2]);
  const hd_real c = hd_sqrt(w0->t), rc = w0->r * c;
  hd_real L1 = (un - c) * (dp - rc * dun), L2 = un * (c * c * dr - dp), L3 = un * dut1, L4 = un * dut2;
  hd_real L5 = (un + c) * (dp + rc * dun);
  const int in1 = (un - c) * sgn < 0, in2 = un * sgn < 0, in5 = (un + c) * sgn < 0;
  hd_real fp[5], fm[5], d1, d2, d3, d4, d5, dn[5];
  int q;
  if (type == HD_NS_NONREFLECTING) {
    const hd_ns3_prim *tp1 = &P[s[t1]], *tm1 = &P[-s[t1]], *tp2 = &P[s[t2]], *tm2 = &P[-s[t2]];
    const hd_real r1 = HD_R(0.5) * a->rh[t1], r2 = HD_R(0.5) * a->rh[t2];
    const hd_real pt1 = (tp1->p - tm1->p) * r1, ut1t = (tp1->u[t1] - tm1->u[t1]) * r1, unt1 = (tp1->u[ax] - tm1->u[ax]) * r1;
    const hd_real pt2 = (tp2->p - tm2->p) * r2, ut2t = (tp2->u[t2] - tm2->u[t2]) * r2, unt2 = (tp2->u[ax] - tm2->u[ax]) * r2;
    const hd_real common = ut1 * pt1 + a->gamma * w0->p * ut1t + ut2 * pt2 + a->gamma * w0->p * ut2t;
    const hd_real cross = rc * ut1 * unt1 + rc * ut2 * unt2;
    const hd_real relax = a->relax[f] * c * (w0->p - a->p_inf), keep = HD_R(1) - a->beta[f];
    if (in1) L1 = relax - keep * (common - cross);
    if (in5) L5 = relax - keep * (common + cross);
    if (in2) {
      const hd_real eta = a->relax_in[f] * (un < 0 ? -un : un);
      L2 = eta * (c * c * (w0->r - HD_R(1)) - (w0->p - a->p_inf));
      L3 = eta * (ut1 - a->u_inf[t1]);
      L4 = eta * (ut2 - a->u_inf[t2]);
    }
  } else if (type == HD_NS_SUBSONIC_IN || type == HD_NS_SLIP_WALL || type == HD_NS_NOSLIP_WALL) {
    if (side) L1 = L5; /* the acoustic wave entering mirrors the leaving one */
    else L5 = L1;
    L3 = L4 = HD_R(0);
    L2 = type == HD_NS_SUBSONIC_IN ? HD_R(0.5) * (a->gamma - HD_R(1)) * (L1 + L5) : HD_R(0);
  }
  d1 = (L2 + HD_R(0.5) * (L5 + L1)) / (c * c);
  d2 = HD_R(0.5) * (L5 + L1);
  d3 = (L5 - L1) / (HD_R(2) * rc);
  d4 = L3, d5 = L4;
  dn[0] = d1;
  dn[4] = HD_R(0.5) * (w0->u[0] * w0->u[0] + w0->u[1] * w0->u[1] + w0->u[2] * w0->u[2]) * d1 + d2 / (a->gamma - HD_R(1)) +
          w0->r * (un * d3 + ut1 * d4 + ut2 * d5);
  dn[1 + ax] = un * d1 + w0->r * d3;
  dn[1 + t1] = ut1 * d1 + w0->r * d4;
  dn[1 + t2] = ut2 * d1 + w0->r * d5;
  if (a->split) { /* the interior formula's half-point fluxes */
    hd_ns3_split_flux(a->gamma, w0, wp, ax, fp), hd_ns3_split_flux(a->gamma, wm, w0, ax, fm);
    for (q = 0; q < 5; ++q) k[q] += (fp[q] - fm[q]) * rh - dn[q];
  } else {
    hd_ns3_flux(a->gamma, wp, ax, fp), hd_ns3_flux(a->gamma, wm, ax, fm);
    for (q = 0; q < 5; ++q) k[q] += HD_R(0.5) * (fp[q] - fm[q]) * rh - dn[q];
  }
}

/* The face conditions of node (i, j, k) on the right-hand side r the
 * interior formula gave: P its primitives (strides s), n its offset (for
 * the second nodes inwards: from the primitives array, or computed). */
HD_FN void hd_ns3_faces(const hd_ns3_args *a, const hd_idx at[3], hd_idx n, const hd_ns3_prim *P, const hd_idx s[3],
                        hd_real r[5]) {
  int ax, q, hold_all = 0, hold_uvt = 0, hold[3] = {0, 0, 0};
  for (ax = 0; ax < 3; ++ax) {
    const hd_idx last = a->g.n[ax];
    int side, type;
    if (a->bc[2 * ax] == HD_NS_PERIODIC || (at[ax] != 1 && at[ax] != last)) continue;
    side = at[ax] == last;
    if (a->shared[2 * ax + side]) continue;
    type = a->bc[2 * ax + side];
    if (type == HD_NS_SUPERSONIC_IN) {
      hold_all = 1;
    } else {
      const hd_idx m = n + (side ? -2 : 2) * a->g.stride[ax];
      hd_ns3_prim w2;
      if (a->prims) {
        w2 = a->prims[m];
      } else {
        hd_real q2[5];
        for (q = 0; q < 5; ++q) q2[q] = a->q[q][m];
        w2 = hd_ns3_primitive(a->gamma, q2);
      }
      hd_ns3_characteristic(a, P, s, &w2, ax, side, r);
    }
    if (type == HD_NS_NOSLIP_WALL) hold[0] = hold[1] = hold[2] = 1;
    if (type == HD_NS_SLIP_WALL) hold[ax] = 1;
    if (type == HD_NS_SUBSONIC_IN) hold_uvt = 1;
  }
  if (hold_uvt) { /* u, v, w, T fixed: momentum and energy follow rho */
    for (q = 0; q < 3; ++q) r[1 + q] = P->u[q] * r[0];
    r[4] = (P->t / (a->gamma * (a->gamma - HD_R(1))) +
            HD_R(0.5) * (P->u[0] * P->u[0] + P->u[1] * P->u[1] + P->u[2] * P->u[2])) *
           r[0];
  }
  for (q = 0; q < 3; ++q)
    if (hold[q]) r[1 + q] = HD_R(0);
  if (hold_all)
    for (q = 0; q < 5; ++q) r[q] = HD_R(0);
}

#endif /* HD_NSCBC3_H */
