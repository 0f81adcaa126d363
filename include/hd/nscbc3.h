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

/* A face's waves at a node: its axis, side and type, L1 .. L5, and which
 * acoustic wave (0: L1, 4: L5, -1: none) the coupled edge and corner
 * solve sets, with what it is before the other faces' terms (R) and the
 * fraction of transverse terms kept. */
typedef struct hd_ns3_waves {
  int ax, side, type, unknown;
  hd_real L[5], R, keep;
} hd_ns3_waves;

/* The waves of face (ax, side) at the node P[0] (neighbours at strides s,
 * w2 the second node inwards) after the face type's rules; `boundary`:
 * bit b set when axis b is a face's normal at this node too, whose terms
 * then enter through its own waves (coupled, a->corners) instead of the
 * centred transverse differences. */
HD_FN void hd_ns3_face_waves(const hd_ns3_args *a, const hd_ns3_prim *P, const hd_idx s[3], const hd_ns3_prim *w2,
                             int ax, int side, int boundary, hd_ns3_waves *W) {
  const int f = 2 * ax + side, type = a->bc[f], t1 = ax == 0 ? 1 : 0, t2 = ax == 2 ? 1 : 2;
  const hd_real sgn = side ? HD_R(1) : HD_R(-1), rh = a->rh[ax];
  const hd_ns3_prim *w0 = P, *w1 = side ? &P[-s[ax]] : &P[s[ax]];
  const hd_real h2 = HD_R(0.5) * rh * sgn;
  const hd_real un = w0->u[ax], ut1 = w0->u[t1], ut2 = w0->u[t2];
  const hd_real dr = h2 * (HD_R(3) * w0->r - HD_R(4) * w1->r + w2->r);
  const hd_real dp = h2 * (HD_R(3) * w0->p - HD_R(4) * w1->p + w2->p);
  const hd_real dun = h2 * (HD_R(3) * w0->u[ax] - HD_R(4) * w1->u[ax] + w2->u[ax]);
  const hd_real dut1 = h2 * (HD_R(3) * w0->u[t1] - HD_R(4) * w1->u[t1] + w2->u[t1]);
  const hd_real dut2 = h2 * (HD_R(3) * w0->u[t2] - HD_R(4) * w1->u[t2] + w2->u[t2]);
  const hd_real c = hd_sqrt(w0->t), rc = w0->r * c;
  const int in1 = (un - c) * sgn < 0, in2 = un * sgn < 0, in5 = (un + c) * sgn < 0;
  hd_real *L = W->L;
  W->ax = ax, W->side = side, W->type = type, W->unknown = -1, W->R = HD_R(0), W->keep = HD_R(0);
  L[0] = (un - c) * (dp - rc * dun), L[1] = un * (c * c * dr - dp), L[2] = un * dut1, L[3] = un * dut2;
  L[4] = (un + c) * (dp + rc * dun);
  if (type == HD_NS_NONREFLECTING) {
    /* the acoustic wave entering: relaxed toward p_inf less the kept part
     * of its transverse terms, centred along the face's free tangents */
    const int ts[2] = {t1, t2};
    const hd_real relax = a->relax[f] * c * (w0->p - a->p_inf), keep = HD_R(1) - a->beta[f];
    hd_real common = HD_R(0), cross = HD_R(0);
    int m;
    for (m = 0; m < 2; ++m) {
      const int t = ts[m];
      const hd_ns3_prim *tp = &P[s[t]], *tm = &P[-s[t]];
      const hd_real rt = HD_R(0.5) * a->rh[t];
      if (a->corners && (boundary >> t & 1)) continue;
      common = common + w0->u[t] * ((tp->p - tm->p) * rt) + a->gamma * w0->p * ((tp->u[t] - tm->u[t]) * rt);
      cross = cross + rc * w0->u[t] * ((tp->u[ax] - tm->u[ax]) * rt);
    }
    if (in1) L[0] = relax - keep * (common - cross);
    if (in5) L[4] = relax - keep * (common + cross);
    if (a->corners && boundary != (1 << ax) && (in1 || in5)) /* the other faces' terms: the coupled solve */
      W->unknown = in1 ? 0 : 4, W->R = L[W->unknown], W->keep = keep;
    if (in2) {
      const hd_real eta = a->relax_in[f] * (un < 0 ? -un : un);
      L[1] = eta * (c * c * (w0->r - HD_R(1)) - (w0->p - a->p_inf));
      L[2] = eta * (ut1 - a->u_inf[t1]);
      L[3] = eta * (ut2 - a->u_inf[t2]);
    }
  } else if (type == HD_NS_SUBSONIC_IN || type == HD_NS_SLIP_WALL || type == HD_NS_NOSLIP_WALL) {
    if (side) L[0] = L[4]; /* the acoustic wave entering mirrors the leaving one */
    else L[4] = L[0];
    L[2] = L[3] = HD_R(0);
    L[1] = type == HD_NS_SUBSONIC_IN ? HD_R(0.5) * (a->gamma - HD_R(1)) * (L[0] + L[4]) : HD_R(0);
  }
}

/* Lodato, Domingo and Vervisch's edges and corners (J. Comput. Phys. 227,
 * 5105, 2008): where two or three faces meet, the terms of face a's
 * entering acoustic wave along another face's normal b are that face's
 * own waves, the corrected ones: u_b p_b + gamma p u_b,b -+ rho c u_b
 * u_a,b = (L1^b + L5^b)/2 -+ rho c L_a^b (L_a^b the tangential wave of
 * b's that carries u_a).  The entering waves of nonreflecting faces then
 * depend on each other: X_a + keep_a sum_b (X_b / 2) = R_a - keep_a
 * sum_b (the rest), solved here (up to three unknowns). */
HD_FN void hd_ns3_couple(const hd_ns3_prim *P, hd_ns3_waves *W, int nw) {
  const hd_real rc = P->r * hd_sqrt(P->t);
  hd_real m[3][4];
  int i, j, r, col, map[3], n = 0;
  for (i = 0; i < nw; ++i)
    if (W[i].unknown >= 0) map[n++] = i;
  if (n == 0) return;
  for (r = 0; r < n; ++r) {
    const hd_ns3_waves *A = &W[map[r]];
    const hd_real sg = A->unknown == 0 ? HD_R(-1) : HD_R(1); /* L1: common - cross; L5: + */
    hd_real rhs = A->R;
    for (col = 0; col < n; ++col) m[r][col] = col == r ? HD_R(1) : HD_R(0);
    for (j = 0; j < nw; ++j) {
      const hd_ns3_waves *B = &W[j];
      const int t1 = B->ax == 0 ? 1 : 0, la = A->ax == t1 ? 2 : 3; /* B's tangential wave of u_a */
      if (j == map[r]) continue;
      if (B->unknown >= 0) { /* X_B / 2 on the left, the other acoustic wave on the right */
        for (col = 0; col < n; ++col)
          if (map[col] == j) m[r][col] = HD_R(0.5) * A->keep;
        rhs -= A->keep * (HD_R(0.5) * B->L[4 - B->unknown] + sg * rc * B->L[la]);
      } else {
        rhs -= A->keep * (HD_R(0.5) * (B->L[0] + B->L[4]) + sg * rc * B->L[la]);
      }
    }
    m[r][3] = rhs;
  }
  for (col = 0; col < n; ++col) /* no pivoting: the diagonal dominates (keep <= 1) */
    for (r = col + 1; r < n; ++r) {
      const hd_real q = m[r][col] / m[col][col];
      for (j = col; j < n; ++j) m[r][j] -= q * m[col][j];
      m[r][3] -= q * m[col][3];
    }
  for (r = n - 1; r >= 0; --r) {
    hd_real x = m[r][3];
    for (j = r + 1; j < n; ++j) x -= m[r][j] * W[map[j]].L[W[map[j]].unknown];
    W[map[r]].L[W[map[r]].unknown] = x / m[r][r];
  }
}

/* Replace the normal inviscid terms of the face's axis in k by its waves'. */
HD_FN void hd_ns3_apply_waves(const hd_ns3_args *a, const hd_ns3_prim *P, const hd_idx s[3], const hd_ns3_waves *W,
                              hd_real k[5]) {
  const int ax = W->ax, t1 = ax == 0 ? 1 : 0, t2 = ax == 2 ? 1 : 2;
  const hd_ns3_prim *w0 = P, *wp = &P[s[ax]], *wm = &P[-s[ax]];
  const hd_real *L = W->L, c = hd_sqrt(w0->t), rc = w0->r * c, rh = a->rh[ax];
  const hd_real un = w0->u[ax], ut1 = w0->u[t1], ut2 = w0->u[t2];
  const hd_real d1 = (L[1] + HD_R(0.5) * (L[4] + L[0])) / (c * c), d2 = HD_R(0.5) * (L[4] + L[0]);
  const hd_real d3 = (L[4] - L[0]) / (HD_R(2) * rc), d4 = L[2], d5 = L[3];
  hd_real fp[5], fm[5], dn[5];
  int q;
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
  hd_ns3_waves W[3];
  int ax, q, nw = 0, boundary = 0, hold_all = 0, hold_uvt = 0, hold[3] = {0, 0, 0};
  for (ax = 0; ax < 3; ++ax) {
    const hd_idx last = a->g.n[ax];
    int side, type;
    if (a->bc[2 * ax] == HD_NS_PERIODIC || (at[ax] != 1 && at[ax] != last)) continue;
    side = at[ax] == last;
    if (a->shared[2 * ax + side]) continue;
    type = a->bc[2 * ax + side];
    if (type == HD_NS_SUPERSONIC_IN) hold_all = 1;
    else boundary |= 1 << ax;
    if (type == HD_NS_NOSLIP_WALL) hold[0] = hold[1] = hold[2] = 1;
    if (type == HD_NS_SLIP_WALL) hold[ax] = 1;
    if (type == HD_NS_SUBSONIC_IN) hold_uvt = 1;
  }
  for (ax = 0; ax < 3; ++ax) {
    const int side = at[ax] == a->g.n[ax];
    const hd_idx m = n + (side ? -2 : 2) * a->g.stride[ax];
    hd_ns3_prim w2;
    if (!(boundary >> ax & 1)) continue;
    if (a->prims) {
      w2 = a->prims[m];
    } else {
      hd_real q2[5];
      for (q = 0; q < 5; ++q) q2[q] = a->q[q][m];
      w2 = hd_ns3_primitive(a->gamma, q2);
    }
    hd_ns3_face_waves(a, P, s, &w2, ax, side, boundary, &W[nw++]);
  }
  if (a->corners && nw > 1) hd_ns3_couple(P, W, nw);
  for (q = 0; q < nw; ++q) hd_ns3_apply_waves(a, P, s, &W[q], r);
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
