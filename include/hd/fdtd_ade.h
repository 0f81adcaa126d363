/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/fdtd_ade.h - dispersive media and lumped loads on single E edges.
 *
 * An edge of a dispersive material or with a lumped load obeys
 *   eps dE/dt + sigma E + sum_p dP_p/dt = curl H
 * with up to HD_FDTD_POLES polarisations (auxiliary differential equations):
 *   Debye    tau P' + P = eps0 de E
 *   Drude    P'' + g P' = eps0 wp^2 E
 *   Lorentz  P'' + g P' + w0^2 P = eps0 de w0^2 E
 * A lumped load on an edge of length l and dual area A (the loop of H
 * around it) adds C l/A to eps, l/(R A) to sigma, and for L a Drude pole
 * with eps0 wp^2 = l/(L A), g = 0 (its dP/dt is the current density I/A).
 *
 * Each pole p advances as P^{n+1} = k1 P^n + k2 P^{n-1} + k3 E^n + k4 E^{n+1}:
 * Debye by the trapezoidal rule (k2 = 0, k3 = k4), Drude and Lorentz by
 * central differences at step n (k4 = 0).  Ampere's law at n + 1/2, with
 * sigma E at the mean of E^n and E^{n+1}, then gives E^{n+1} explicitly:
 *   E^{n+1} = ca E^n + cb curl H - cq sum_p [(k1 - 1) P^n + k2 P^{n-1} + k3 E^n]
 * (hd_fdtd_ade_set).  The pass runs after the E update and overwrites the
 * edges in its list; its state holds each edge's E^n and poles' P^n, P^{n-1}.
 * Under a scattered-field plane wave (hd/fdtd_sf.h) the edges march the
 * total field, curl H_i taken as eps0 dE_i/dt, and the grid gets E - E_i. */
#ifndef HD_FDTD_ADE_H
#define HD_FDTD_ADE_H

#include "fdtd.h"
#include "fdtd_sf.h"

#define HD_FDTD_POLES 4

enum { HD_FDTD_DEBYE = 1, HD_FDTD_DRUDE, HD_FDTD_LORENTZ };

/* A pole in physical terms: Debye (de, tau), Drude (wp, g), Lorentz (de, w0, g);
 * angular frequencies in rad/s. */
typedef struct hd_fdtd_pole {
  int kind;
  double a, b, c; /* Debye: de tau -; Drude: wp g -; Lorentz: de w0 g */
} hd_fdtd_pole;

/* The update of one kind of edge. */
typedef struct hd_fdtd_ade_coef {
  hd_real ca, cb, cq;
  hd_real k[HD_FDTD_POLES][4];
  int npole;
} hd_fdtd_ade_coef;

/* One edge: its padded node, component and coefficient set. */
typedef struct hd_fdtd_ade_edge {
  hd_idx n;
  int comp, i, j, k, set;
} hd_fdtd_ade_edge;

typedef struct hd_fdtd_ade_args {
  hd_fdtd_args f;
  const hd_fdtd_ade_edge *edge;
  const hd_fdtd_ade_coef *coef;
  hd_real *state; /* per edge: E^n, then P^n, P^{n-1} of each pole */
  int stride;     /* 1 + 2 * most poles of any set */
  const double *pwd; /* a scattered-field plane wave: each edge's distance (NULL: none) */
  hd_fdtd_incident inc;
} hd_fdtd_ade_args;

/* curl H at an E edge, as the E update forms it (u, v: the transverse axes). */
HD_FN hd_real hd_fdtd_curl_h(const hd_fdtd_args *f, int c, hd_idx n, const int idx[3]) {
  const int u = (c + 1) % 3, v = (c + 2) % 3;
  const hd_real *hu = f->f[3 + u], *hv = f->f[3 + v];
  return f->rn[u][idx[u]] * (hv[n] - hv[n - f->g.stride[u]]) - f->rn[v][idx[v]] * (hu[n] - hu[n - f->g.stride[v]]);
}

HD_FN void hd_fdtd_ade_pt(const hd_fdtd_ade_args *a, hd_idx p) {
  const hd_fdtd_ade_edge q = a->edge[p];
  const hd_fdtd_ade_coef *k = &a->coef[q.set];
  const int idx[3] = {q.i, q.j, q.k};
  hd_real *s = a->state + p * (hd_idx)a->stride, *e = a->f.f[q.comp];
  const hd_real en = s[0];
  hd_real known = 0, enew, curl = hd_fdtd_curl_h(&a->f, q.comp, q.n, idx);
  double i1 = 0.0;
  int r;
  if (a->pwd) {
    const double i0 = hd_fdtd_incident_at(&a->inc, q.comp, a->pwd[p], 0);
    i1 = hd_fdtd_incident_at(&a->inc, q.comp, a->pwd[p], 1);
    curl += (hd_real)(HD_FDTD_EPS0 * (i1 - i0) / (a->inc.t1 - a->inc.t0));
  }
  for (r = 0; r < k->npole; ++r)
    known += (k->k[r][0] - 1) * s[1 + 2 * r] + k->k[r][1] * s[2 + 2 * r] + k->k[r][2] * en;
  enew = k->ca * en + k->cb * curl - k->cq * known;
  for (r = 0; r < k->npole; ++r) {
    const hd_real pn = s[1 + 2 * r];
    s[1 + 2 * r] = k->k[r][0] * pn + k->k[r][1] * s[2 + 2 * r] + k->k[r][2] * en + k->k[r][3] * enew;
    s[2 + 2 * r] = pn;
  }
  s[0] = enew;
  e[q.n] = enew - (hd_real)i1;
}
HD_DEFINE_FOR_1D(hd_fdtd_ade_loop, hd_fdtd_ade_pt, hd_fdtd_ade_args)

/* How fast a pole is for the explicit Drude and Lorentz updates: w dt with
 * w the oscillation it makes with the medium's eps_inf (relative), wp /
 * sqrt(eps_inf) or w0 sqrt(1 + de / eps_inf); Debye's trapezoidal update
 * has no bound (0).  hd_fdtd_ade_set refuses more than 1. */
HD_HOST_FN double hd_fdtd_ade_stiffness(double dt, double eps_inf, const hd_fdtd_pole *p) {
  if (p->kind == HD_FDTD_DRUDE) return p->a * dt / sqrt(eps_inf);
  if (p->kind == HD_FDTD_LORENTZ) return p->b * dt * sqrt(1.0 + p->a / eps_inf);
  return 0.0;
}

/* The coefficients of an edge of permittivity eps (F/m), conductivity sigma
 * (S/m) and npole poles; 0, -1 for too many poles or a pole that is not
 * physical (negative strength, time constant or damping), -2 for a pole
 * too fast for the time step (hd_fdtd_ade_stiffness above 1). */
HD_HOST_FN int hd_fdtd_ade_set(double dt, double eps, double sigma, const hd_fdtd_pole *pole, int npole,
                               hd_fdtd_ade_coef *out) {
  double k[HD_FDTD_POLES][4], k4 = 0.0, den;
  int r, c;
  if (npole < 0 || npole > HD_FDTD_POLES || !(eps > 0) || sigma < 0) return -1;
  for (r = 0; r < npole; ++r) {
    const hd_fdtd_pole *p = &pole[r];
    if (hd_fdtd_ade_stiffness(dt, eps / HD_FDTD_EPS0, p) > 1.0) return -2;
    if (p->kind == HD_FDTD_DEBYE) {
      const double h = p->b / dt;
      if (!(p->a >= 0) || !(p->b > 0)) return -1;
      k[r][0] = (h - 0.5) / (h + 0.5), k[r][1] = 0.0;
      k[r][2] = k[r][3] = 0.5 * HD_FDTD_EPS0 * p->a / (h + 0.5);
    } else if (p->kind == HD_FDTD_DRUDE || p->kind == HD_FDTD_LORENTZ) {
      const int lor = p->kind == HD_FDTD_LORENTZ;
      const double w0 = lor ? p->b : 0.0, g = lor ? p->c : p->b, gh = 0.5 * g * dt;
      const double strength = lor ? p->a * w0 * w0 : p->a * p->a;
      if (!(p->a >= 0) || !(w0 >= 0) || !(g >= 0)) return -1;
      k[r][0] = (2.0 - w0 * w0 * dt * dt) / (1.0 + gh);
      k[r][1] = -(1.0 - gh) / (1.0 + gh);
      k[r][2] = HD_FDTD_EPS0 * strength * dt * dt / (1.0 + gh);
      k[r][3] = 0.0;
    } else {
      return -1;
    }
    k4 += k[r][3];
  }
  den = eps / dt + 0.5 * sigma + k4 / dt;
  out->ca = (hd_real)((eps / dt - 0.5 * sigma) / den);
  out->cb = (hd_real)(1.0 / den);
  out->cq = (hd_real)(1.0 / (dt * den));
  out->npole = npole;
  for (r = 0; r < HD_FDTD_POLES; ++r)
    for (c = 0; c < 4; ++c) out->k[r][c] = (hd_real)(r < npole ? k[r][c] : 0.0);
  return 0;
}

/* The relative permittivity the continuous model gives at angular
 * frequency w (e^{+jwt} convention): eps_inf - j sigma/(w eps0) + the poles. */
HD_HOST_FN void hd_fdtd_ade_eps(double eps_inf, double sigma, const hd_fdtd_pole *pole, int npole, double w,
                                double *re, double *im) {
  double r = eps_inf, i = -sigma / (w * HD_FDTD_EPS0);
  int p;
  for (p = 0; p < npole; ++p) {
    double nr, ni, dr, di, d2; /* numerator / (dr + j di) */
    if (pole[p].kind == HD_FDTD_DEBYE) {
      nr = pole[p].a, ni = 0.0, dr = 1.0, di = w * pole[p].b;
    } else if (pole[p].kind == HD_FDTD_DRUDE) {
      nr = -pole[p].a * pole[p].a, ni = 0.0, dr = w * w, di = -w * pole[p].b;
    } else {
      nr = pole[p].a * pole[p].b * pole[p].b, ni = 0.0, dr = pole[p].b * pole[p].b - w * w, di = w * pole[p].c;
    }
    d2 = dr * dr + di * di;
    r += (nr * dr + ni * di) / d2;
    i += (ni * dr - nr * di) / d2;
  }
  *re = r, *im = i;
}

#endif /* HD_FDTD_ADE_H */
