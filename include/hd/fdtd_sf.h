/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/fdtd_sf.h - plane-wave incidence in the scattered-field form
 * (Taflove & Hagness, ch. 5.8; OpenFDTD's form).
 *
 * The grid holds the scattered field everywhere; the incident plane wave
 * is known in closed form,
 *     E_i(r, t) = E0 e^ w(t - k^.(r - r0) / c),  H_i = E0 h^ / eta0 w(...),
 * and enters only where the medium is not vacuum.  Subtracting the
 * vacuum equations the incident field obeys from the medium's,
 *     eps dEs/dt + sigma Es = curl Hs - (eps - eps0) dEi/dt - sigma Ei,
 * central in time as the E update, gives after that update
 *     Es' -= [(1 - eps0/eps) (Ei' - Ei) + s (Ei' + Ei)] / (1 + s),
 * s = sigma dt / (2 eps), Ei and Ei' at the field's times before and after
 * the half step; the same for H with mu and the magnetic loss.  In a
 * conductor the total field is 0: Es' = -Ei'.  Dispersive and loaded
 * edges (hd/fdtd_ade.h) march the total field instead.  Nothing needs a
 * uniform mesh or room around the scatterer: periodic cells, non-uniform
 * meshes and scatterers that reach the boundary all work.
 *
 * The derivation holds exactly only for an incident field that obeys the
 * grid's own vacuum equations; the closed form travels at c, the grid's
 * wave slower (numerical dispersion), and the difference acts as a source
 * in every medium.  So where it can the incident field is read from a 1-D
 * Yee line marched beside the grid (hd/fdtd_tfsf.h): along an axis the
 * line has that axis' nodes and is the grid's plane wave to rounding; in
 * another direction on a uniform mesh it is matched at one frequency.
 *
 * Oblique incidence on a cell periodic along axis b (uniform there):
 * Bloch-periodic boundaries, F(x_b + L) = F(x_b) e^{i beta L}, on a
 * complex field marched as two real ones (the real part and a twin for the
 * imaginary, tied only at the boundaries: the sine-cosine method).  The
 * grid's wave with that beta is F_c = L_c(x_a) e^{i beta x_b} (at each
 * component's own x_b); d/db becomes i K, K = 2 sin(beta h_b/2) / h_b,
 * exactly, and the line along the other axis a carries L_c: its E and H
 * and the normal component N (the one along a, a quarter period out of
 * phase: F_a = i N e^{i beta x_b}, so that the line stays real).  Each
 * point reads its component with a weight w, the real or imaginary part
 * of 1 or i times e^{i beta x_b}.  beta is fixed: the angle of
 * incidence, asin(c beta / w), changes with frequency, as in Meep. */
#ifndef HD_FDTD_SF_H
#define HD_FDTD_SF_H

#include "fdtd.h"
#include "fdtd_tfsf.h"

/* The incident wave of a half step, in closed form: the waveform, amp
 * E0 e^_c (V/m) for ex..ez and E0 h^_c / eta0 (A/m) for hx..hz, the
 * field's times t0 and t1 before and after the half step, a position
 * entering by its distance d = k^.(r - r0) along the direction of travel.
 * Or from the line: line[0] and line[1] its field of the half step before
 * and after it (a probe's: E and H now), amp e^_c and h^_c (the line
 * carries E0 and 1/eta0), d the position on the line. */
typedef struct hd_fdtd_incident {
  hd_fdtd_wave wave;
  double amp[6];
  double t0, t1;
  const hd_real *line[2];
  const hd_real *nline[2]; /* the line's N of the half step, read by the components along naxis (NULL: none) */
  int naxis;
} hd_fdtd_incident;

/* The incident component before (after = 0) or after the half step. */
HD_FN double hd_fdtd_incident_at(const hd_fdtd_incident *w, int comp, double d, int after) {
  if (w->nline[after] && comp % 3 == w->naxis) return w->amp[comp] * hd_fdtd_inc_at(w->nline[after], d);
  if (w->line[after]) return w->amp[comp] * hd_fdtd_inc_at(w->line[after], d);
  return w->amp[comp] * hd_fdtd_waveform(&w->wave, (after ? w->t1 : w->t0) - d / HD_FDTD_C0);
}

/* A Bloch-periodic cell's line: the wave along axis a (up it: rho = +1),
 * periodic axis b of cell hb, c the third, chi = +1 where (a, b, c) is
 * cyclic.  s-polarised (E along c) the line's E is E_c / e_c, its H
 * -H_b / (chi rho e_c), N = -i H_a / e_c (an H: *n_h = 1), kappa = chi K;
 * p-polarised its E is E_b / e_b, its H H_c / (chi rho e_b), N = -i E_a / e_b,
 * kappa = rho K.  amp: each component's factor on the line's value (the
 * line's N for the one along a).  Returns kappa. */
HD_HOST_FN double hd_fdtd_bloch_line(int a, int b, double k_a, const double e[3], double beta, double hb, int *n_h,
                                     double amp[6]) {
  const int c = 3 - a - b;
  const double K = 2.0 * sin(0.5 * beta * hb) / hb, chi = b == (a + 1) % 3 ? 1.0 : -1.0, rho = k_a > 0 ? 1.0 : -1.0;
  int q;
  for (q = 0; q < 6; ++q) amp[q] = 0.0;
  *n_h = fabs(e[c]) > 0.5;
  if (*n_h) amp[c] = amp[3 + a] = e[c], amp[3 + b] = -chi * rho * e[c];
  else amp[b] = amp[a] = e[b], amp[3 + c] = chi * rho * e[b];
  return *n_h ? chi * K : rho * K;
}

/* A component of a medium that is not vacuum: its padded node, component,
 * distance d and weight w (1; a Bloch-periodic cell's phase). */
typedef struct hd_fdtd_sf_point {
  hd_idx n;
  double d, w;
  int comp;
} hd_fdtd_sf_point;

typedef struct hd_fdtd_sf_args {
  hd_real *f[6];
  const unsigned char *m[6];
  const hd_fdtd_sf_point *pt;
  const hd_real *coef; /* per material of the field: (1 - perm0/perm)/(1 + s), s/(1 + s) */
  hd_fdtd_incident inc;
} hd_fdtd_sf_args;

HD_FN void hd_fdtd_sf_pt(const hd_fdtd_sf_args *a, hd_idx p) {
  const hd_fdtd_sf_point q = a->pt[p];
  const unsigned m = a->m[q.comp][q.n];
  const double i1 = q.w * hd_fdtd_incident_at(&a->inc, q.comp, q.d, 1);
  hd_real *f = a->f[q.comp];
  if (m == HD_FDTD_PEC) {
    f[q.n] = (hd_real)-i1;
  } else {
    const double i0 = q.w * hd_fdtd_incident_at(&a->inc, q.comp, q.d, 0);
    f[q.n] -= (hd_real)(a->coef[2 * m] * (i1 - i0) + a->coef[2 * m + 1] * (i1 + i0));
  }
}
HD_DEFINE_FOR_1D(hd_fdtd_sf_loop, hd_fdtd_sf_pt, hd_fdtd_sf_args)

/* Probes record the total field: the incident added to the record of the
 * step (inc.t0 the E time, inc.t1 the H time; or the line's E and H), d
 * each probe's distance or position on the line, w its weight. */
typedef struct hd_fdtd_sf_probe_args {
  const hd_fdtd_probe *probe;
  const double *d, *w;
  hd_real *rec;
  hd_fdtd_incident inc;
} hd_fdtd_sf_probe_args;

HD_FN void hd_fdtd_sf_probe_pt(const hd_fdtd_sf_probe_args *a, hd_idx p) {
  const int c = a->probe[p].comp;
  a->rec[p] += (hd_real)(a->w[p] * hd_fdtd_incident_at(&a->inc, c, a->d[p], c >= 3));
}
HD_DEFINE_FOR_1D(hd_fdtd_sf_probe_loop, hd_fdtd_sf_probe_pt, hd_fdtd_sf_probe_args)

#endif /* HD_FDTD_SF_H */
