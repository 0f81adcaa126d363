/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/fdtd_tfsf.h - plane-wave incidence by the total-field/scattered-field
 * split (Taflove & Hagness, ch. 5).
 *
 * Inside a box of nodes the grid holds the total field, outside it the
 * scattered field alone.  Each curl term that reaches across the box's
 * faces mixes the two; adding the incident field there (after the update,
 * since the update is linear) makes both regions consistent, and the wave
 * appears inside the box only.
 *
 * The incident field comes from a 1-D Yee line along the propagation
 * direction k^ (E along e^, H along h^ = k^ x e^), marched with the 3-D
 * grid's dt: a hard source at node 0, graded absorbing cells at the far
 * end.  Its cell is chosen so that the line's numerical phase velocity at
 * a chosen frequency equals the 3-D grid's in direction k^ (Taflove 5.9);
 * along an axis it is that axis' cell and the match is exact at every
 * frequency.  A Yee position r reads the line at
 *     d = k^.(r - r0) / cell + HD_FDTD_INC_LEAD,
 * r0 the box corner the wave reaches first, by linear interpolation. */
#ifndef HD_FDTD_TFSF_H
#define HD_FDTD_TFSF_H

#include <math.h>

#include "fdtd.h"

#define HD_FDTD_INC_LEAD 2.0 /* line cells between the source node and the first corner */
#define HD_FDTD_INC_PML 40   /* absorbing cells at the line's far end */

/* ---- the 1-D incident line ------------------------------------------------------ */

typedef struct hd_fdtd_inc_args {
  hd_real *e, *h;         /* E at node i, H at i + 1/2; n nodes, E[n - 1] stays 0 */
  hd_real *e0, *h0;       /* where kept (else NULL): E and H before their last update */
  const hd_real *ce, *ch; /* (c1, c2) of each E node and (d1, d2) of each H node, widths included */
  hd_idx n;
  hd_real src;            /* E of node 0 at this step's E time */
  /* A Bloch-periodic cell's line (hd/fdtd_sf.h): the component normal to
   * the line, N (NULL: none), an H at node i (n_h: s-polarised) or an E at
   * i + 1/2 (p), and N before its last update; N' = cn[3i] N + cn[3i+1] F
   * with F the line's field of the other kind at N's position, and that
   * field's update adds cn[3i+2] N.  The absorbing cells damp only the
   * terms along the line (a split-field PML, Berenger's: a graded loss on
   * the whole field would reflect the oblique wave): aux holds the part of
   * that field N gives, undamped, and N is undamped too. */
  hd_real *nrm, *nrm0, *aux;
  const hd_real *cn;
  int n_h;
} hd_fdtd_inc_args;

HD_FN void hd_fdtd_inc_e_pt(const hd_fdtd_inc_args *a, hd_idx i) {
  if (a->e0) a->e0[i] = a->e[i];
  if (a->nrm && !a->n_h) {
    if (a->nrm0) a->nrm0[i] = a->nrm[i];
    a->nrm[i] = a->cn[3 * i] * a->nrm[i] + a->cn[3 * i + 1] * a->h[i];
  }
  if (i == 0) {
    a->e[0] = a->src;
  } else if (a->nrm && a->n_h) {
    const hd_real part = a->aux[i] + a->cn[3 * i + 2] * a->nrm[i];
    a->e[i] = a->ce[2 * i] * (a->e[i] - a->aux[i]) - a->ce[2 * i + 1] * (a->h[i] - a->h[i - 1]) + part;
    a->aux[i] = part;
  } else {
    a->e[i] = a->ce[2 * i] * a->e[i] - a->ce[2 * i + 1] * (a->h[i] - a->h[i - 1]);
  }
}
HD_FN void hd_fdtd_inc_h_pt(const hd_fdtd_inc_args *a, hd_idx i) {
  if (a->h0) a->h0[i] = a->h[i];
  if (a->nrm && a->n_h) {
    if (a->nrm0) a->nrm0[i] = a->nrm[i];
    a->nrm[i] = a->cn[3 * i] * a->nrm[i] + a->cn[3 * i + 1] * a->e[i];
  }
  if (a->nrm && !a->n_h) {
    const hd_real part = a->aux[i] + a->cn[3 * i + 2] * a->nrm[i];
    a->h[i] = a->ch[2 * i] * (a->h[i] - a->aux[i]) - a->ch[2 * i + 1] * (a->e[i + 1] - a->e[i]) + part;
    a->aux[i] = part;
  } else {
    a->h[i] = a->ch[2 * i] * a->h[i] - a->ch[2 * i + 1] * (a->e[i + 1] - a->e[i]);
  }
}
HD_DEFINE_FOR_1D(hd_fdtd_inc_e_loop, hd_fdtd_inc_e_pt, hd_fdtd_inc_args) /* nodes 0 .. n - 2 */
HD_DEFINE_FOR_1D(hd_fdtd_inc_h_loop, hd_fdtd_inc_h_pt, hd_fdtd_inc_args) /* nodes 0 .. n - 2 */

/* The line's value at position x (in its array's index units). */
HD_FN double hd_fdtd_inc_at(const hd_real *v, double x) {
  const hd_idx i = (hd_idx)x;
  const double t = x - (double)i;
  return (1.0 - t) * v[i] + t * v[i + 1];
}

/* ---- the corrections on the box faces ------------------------------------------- */

/* One corrected component: at most two incident terms (an E on an edge of
 * the box has scattered neighbours across two faces), each a weight (the
 * curl term's sign and width, the side, the polarisation) and a position
 * on the line; w[1] = 0 when there is one. */
typedef struct hd_fdtd_tfsf_point {
  hd_idx n;
  double w[2], x[2];
  int comp;
} hd_fdtd_tfsf_point;

typedef struct hd_fdtd_tfsf_args {
  hd_fdtd_args f;
  const hd_fdtd_tfsf_point *pt;
  const hd_real *line; /* H of the line for E corrections, E for H corrections */
} hd_fdtd_tfsf_args;

/* E += c2 sum w inc (after the E update), H += -d2 sum w inc (after H). */
HD_FN void hd_fdtd_tfsf_pt(const hd_fdtd_tfsf_args *a, hd_idx p) {
  const hd_fdtd_tfsf_point q = a->pt[p];
  const unsigned m = a->f.m[q.comp][q.n];
  const double k = q.comp < 3 ? (double)a->f.c2[m] : -(double)a->f.d2[m];
  double v = q.w[0] * hd_fdtd_inc_at(a->line, q.x[0]);
  if (q.w[1] != 0.0) v += q.w[1] * hd_fdtd_inc_at(a->line, q.x[1]);
  a->f.f[q.comp][q.n] += (hd_real)(k * v);
}
HD_DEFINE_FOR_1D(hd_fdtd_tfsf_loop, hd_fdtd_tfsf_pt, hd_fdtd_tfsf_args)

/* The curl terms of component comp at a node, as hd_fdtd_update_* has
 * them: term t reads component nb[t] at the node moved by shift[t] (0, +1
 * or -1) along axis[t]; its sign in E' = c1 E + c2 sum(sign r F) (or
 * H' = d1 H - d2 sum(sign r F)), r the reciprocal width along axis[t]. */
HD_HOST_FN void hd_fdtd_curl_terms(int comp, int nb[4], int axis[4], int shift[4], int sign[4]) {
  const int c = comp % 3, a = (c + 1) % 3, b = (c + 2) % 3;
  const int e = comp < 3, first = e ? 0 : 1, other = e ? -1 : 0; /* E: H at n and n - 1; H: E at n + 1 and n */
  const int base = e ? 3 : 0;
  nb[0] = nb[1] = base + b, axis[0] = axis[1] = a;
  nb[2] = nb[3] = base + a, axis[2] = axis[3] = b;
  shift[0] = shift[2] = first, shift[1] = shift[3] = other;
  sign[0] = 1, sign[1] = -1, sign[2] = -1, sign[3] = 1;
}

/* ---- host helpers: direction, polarisation, the line's cell ---------------------- */

/* A wave arriving from direction (theta, phi) (radians; the convention of
 * OpenFDTD's `planewave`): k^ = -r^, E along -theta^ (pol 1, "V") or
 * +phi^ (pol 2, "H"), H along k^ x e^. */
HD_HOST_FN void hd_fdtd_plane_wave_dir(double theta, double phi, int pol, double k[3], double e[3], double h[3]) {
  const double st = sin(theta), ct = cos(theta), sp = sin(phi), cp = cos(phi);
  int a;
  k[0] = -st * cp, k[1] = -st * sp, k[2] = -ct;
  if (pol == 1) e[0] = -ct * cp, e[1] = -ct * sp, e[2] = st;
  else e[0] = -sp, e[1] = cp, e[2] = 0.0;
  for (a = 0; a < 3; ++a) { /* cos(pi/2) is 6e-17, not 0: keep waves along an axis on it */
    if (fabs(k[a]) < 1e-12) k[a] = 0.0;
    if (fabs(e[a]) < 1e-12) e[a] = 0.0;
  }
  h[0] = k[1] * e[2] - k[2] * e[1], h[1] = k[2] * e[0] - k[0] * e[2], h[2] = k[0] * e[1] - k[1] * e[0];
}

/* The line cell whose 1-D dispersion matches the 3-D grid of cells d[3]
 * in direction k^ at frequency f: the 3-D wave number from
 *   sin^2(w dt/2) / (c dt)^2 = sum_a sin^2(k k_a d_a / 2) / d_a^2,
 * then the cell D with sin(k D / 2) / D = sin(w dt/2) / (c dt).  Both by
 * bisection (each side is monotone where the grid resolves the wave).
 * Returns 0 when the grid cannot carry the frequency. */
HD_HOST_FN double hd_fdtd_inc_cell(const double d[3], const double k[3], double f, double dt) {
  const double pi = 3.14159265358979323846, s = sin(pi * f * dt) / (HD_FDTD_C0 * dt);
  double lo = 0.0, hi = 1e300, kk, x;
  int a, it, along = 0;
  for (a = 0; a < 3; ++a) along += k[a] != 0.0;
  for (a = 0; a < 3 && along == 1; ++a) /* along an axis the line is that axis' grid: exact */
    if (k[a] != 0.0) return d[a];
  for (a = 0; a < 3; ++a) /* the largest k with every phase below pi/2 */
    if (fabs(k[a]) > 0) hi = fmin(hi, pi / (fabs(k[a]) * d[a]));
  for (it = -1; it < 200; ++it) { /* it = -1: is there a root below hi at all */
    double g = 0.0;
    kk = it < 0 ? hi : 0.5 * (lo + hi);
    for (a = 0; a < 3; ++a) {
      const double sn = sin(0.5 * kk * k[a] * d[a]) / d[a];
      g += sn * sn;
    }
    if (it < 0 && g < s * s) return 0.0;
    if (it >= 0 && g < s * s) lo = kk;
    else if (it >= 0) hi = kk;
  }
  kk = 0.5 * (lo + hi);
  lo = 0.0, hi = pi / kk; /* sin(k D / 2) / D falls from k/2 to 0 over (0, pi/k) */
  for (it = 0; it < 200; ++it) {
    x = 0.5 * (lo + hi);
    if (sin(0.5 * kk * x) / x > s) lo = x;
    else hi = x;
  }
  return 0.5 * (lo + hi);
}

#endif /* HD_FDTD_TFSF_H */
