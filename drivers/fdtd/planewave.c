/* SPDX-License-Identifier: BSD-3-Clause */
#include "planewave.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <hd/fdtd_sf.h>
#include <hd/fdtd_tfsf.h>

#define PI 3.14159265358979323846

int fdtd_planewave_parse(fdtd_planewave *pw, const char *text, char *err, size_t n) {
  const int form = pw->form;
  char pol[16], extra[2], s[128];
  int k, got;
  for (k = 0; k + 1 < (int)sizeof s && text[k]; ++k) s[k] = text[k] == ',' ? ' ' : text[k];
  s[k] = '\0';
  memset(pw, 0, sizeof *pw);
  pw->e0 = 1.0;
  pw->form = form;
  got = sscanf(s, "%lf %lf %15s %lf %1s", &pw->theta, &pw->phi, pol, &pw->e0, extra);
  if (got < 3 || got > 4) return snprintf(err, n, "planewave: expected 'THETA PHI V|H [E0]' (degrees, V/m)"), -1;
  pw->pol = !strcmp(pol, "V") || !strcmp(pol, "v") || !strcmp(pol, "1") ? 1
            : !strcmp(pol, "H") || !strcmp(pol, "h") || !strcmp(pol, "2") ? 2 : 0;
  if (!pw->pol) return snprintf(err, n, "planewave: polarisation '%s' is not V (1) or H (2)", pol), -1;
  if (!(pw->theta >= 0 && pw->theta <= 180) || !(fabs(pw->phi) <= 360))
    return snprintf(err, n, "planewave: theta must lie in [0, 180] and phi in [-360, 360] degrees"), -1;
  if (!(pw->e0 > 0) || !isfinite(pw->e0)) return snprintf(err, n, "planewave: amplitude must be > 0 V/m"), -1;
  pw->theta *= PI / 180, pw->phi *= PI / 180;
  pw->on = 1;
  return 0;
}

/* Why the total-field box cannot take this model ("" when it can), from
 * the input alone (every rank decides alike). */
static void tfsf_obstacle(const fdtd_input *in, const fdtd_spectra *sp, char *why, size_t n) {
  const long margin = sp->margin + FDTD_TFSF_GAP;
  int a, k;
  why[0] = '\0';
  for (a = 0; a < 3 && !why[0]; ++a) {
    const double d = (in->node[a][in->n[a]] - in->node[a][0]) / (double)in->n[a];
    for (k = 0; k < in->n[a] && !why[0]; ++k)
      if (fabs(in->node[a][k + 1] - in->node[a][k] - d) > 1e-9 * d) snprintf(why, n, "the mesh along %c is not uniform", 'x' + a);
    if (!why[0] && fdtd_input_bc(in, a) == HD_FDTD_BC_PERIODIC) snprintf(why, n, "%c is periodic", 'x' + a);
    if (!why[0] && (in->n[a] - 2 * margin < 1 || margin < 3)) snprintf(why, n, "%ld cells along %c leave no box", in->n[a], 'x' + a);
  }
  for (k = 0; k < in->nobj && !why[0]; ++k) {
    double box[6];
    fdtd_object_box(&in->obj[k], box);
    for (a = 0; a < 3 && !why[0]; ++a)
      if (in->obj[k].mat != HD_FDTD_VACUUM &&
          (box[2 * a] < in->node[a][margin] || box[2 * a + 1] > in->node[a][in->n[a] - margin]))
        snprintf(why, n, "object %d reaches within %ld cells of the %c faces", k + 1, margin, 'x' + a);
  }
}

int fdtd_planewave_form(const fdtd_planewave *pw, const fdtd_input *in, const fdtd_spectra *sp, char *err, size_t n) {
  double k[3], e[3], h[3];
  char why[160];
  if (pw->form == FDTD_PW_TFSF) return FDTD_PW_TFSF; /* its own checks follow, with the model */
  tfsf_obstacle(in, sp, why, sizeof why);
  if (pw->form == FDTD_PW_AUTO && !why[0]) return FDTD_PW_TFSF;
  if (in->nfeed)
    return snprintf(err, n, "planewave: the scattered-field form takes no feeds or sources%s%s (the total-field box does)",
                    why[0] && pw->form == FDTD_PW_AUTO ? ", and the box cannot be used: " : "",
                    pw->form == FDTD_PW_AUTO ? why : ""), -1;
  hd_fdtd_plane_wave_dir(pw->theta, pw->phi, pw->pol, k, e, h);
  if (fdtd_planewave_bloch(k, e, h, in, NULL, NULL, err, n) < 0) return -1;
  if (pw->form == FDTD_PW_SF_CLOSED && fdtd_planewave_bloch(k, e, h, in, NULL, NULL, err, n))
    return snprintf(err, n, "planewave-form = sf-closed: not on a Bloch-periodic cell (oblique along a periodic axis)"), -1;
  return pw->form == FDTD_PW_SF_CLOSED ? FDTD_PW_SF_CLOSED : FDTD_PW_SF;
}

int fdtd_planewave_bloch(const double k[3], const double e[3], const double h[3], const fdtd_input *in, int *line, int *axis,
                         char *err, size_t n) {
  int a, b = -1, l = -1, nb = 0, c;
  for (a = 0; a < 3; ++a) {
    if (k[a] == 0.0) continue;
    if (fdtd_input_bc(in, a) == HD_FDTD_BC_PERIODIC) b = a, ++nb;
    else l = a;
  }
  if (!nb) return 0;
  if (nb > 1)
    return snprintf(err, n, "planewave: oblique along two periodic axes (Bloch-periodic on two axes) is not supported yet: "
                            "give a direction in a plane of one periodic axis and the axis normal to the cell"), -1;
  if (l < 0)
    return snprintf(err, n, "planewave: a wave along periodic %c needs a non-periodic axis to travel along", 'x' + b), -1;
  c = 3 - l - b;
  if (fabs(e[c]) < 1 - 1e-9 && fabs(h[c]) < 1 - 1e-9)
    return snprintf(err, n, "planewave: on a Bloch-periodic cell the wave must have E or H along %c (s or p in the plane "
                            "of %c and %c)", 'x' + c, 'x' + l, 'x' + b), -1;
  for (a = 0; a < 3; ++a) {
    const double d = (in->node[a][in->n[a]] - in->node[a][0]) / (double)in->n[a];
    long q;
    for (q = 0; q < in->n[a]; ++q)
      if (fabs(in->node[a][q + 1] - in->node[a][q] - d) > 1e-9 * d)
        return snprintf(err, n, "planewave: oblique on a Bloch-periodic cell needs a uniform mesh (%c is not)", 'x' + a), -1;
  }
  if (line) *line = l;
  if (axis) *axis = b;
  return 1;
}

int fdtd_planewave_setup(const fdtd_planewave *pw, int form, const fdtd_input *in, const fdtd_spectra *sp, fdtd_model *m,
                         char *err, size_t n) {
  const long margin = sp->margin + FDTD_TFSF_GAP;
  double d[3], f = 0.0;
  hd_grid g;
  long p[3] = {0, 0, 0}, q[3], pad;
  int a, c, bad = 0, mat = 0;
  m->pw_e0 = pw->e0;
  m->pw_axis = -1;
  for (c = 0; c < sp->nfreq; ++c) f += sp->freq[c] / sp->nfreq;
  if (!(f > 0)) f = in->freq;
  if (form != FDTD_PW_TFSF) {
    int along = 0, uniform = 1;
    hd_fdtd_plane_wave_dir(pw->theta, pw->phi, pw->pol, m->pw_k, m->pw_e, m->pw_h);
    m->pw_sf = 1;
    if (form == FDTD_PW_SF_CLOSED) return 0;
    if (fdtd_planewave_bloch(m->pw_k, m->pw_e, m->pw_h, in, &m->pw_axis, &m->bloch_axis, err, n) > 0) {
      /* fixed along the periodic axis: the direction's at the waveform's frequency */
      m->bloch = 1, m->pw_line = 1;
      m->bloch_beta = -2 * PI * in->freq / HD_FDTD_C0 * m->pw_k[m->bloch_axis];
      return 0;
    }
    for (a = 0; a < 3; ++a) {
      long k;
      along += m->pw_k[a] != 0.0;
      if (m->pw_k[a] != 0.0) m->pw_axis = a;
      d[a] = (in->node[a][in->n[a]] - in->node[a][0]) / (double)in->n[a];
      for (k = 0; k < in->n[a]; ++k) uniform &= fabs(in->node[a][k + 1] - in->node[a][k] - d[a]) <= 1e-9 * d[a];
    }
    if (along == 1) m->pw_line = 1;
    else if (uniform && (m->pw_cell = hd_fdtd_inc_cell(d, m->pw_k, f, m->dt)) > 0) m->pw_line = 2, m->pw_axis = -1;
    else m->pw_axis = -1;
    return 0;
  }
  for (a = 0; a < 3; ++a) {
    long k;
    d[a] = (in->node[a][in->n[a]] - in->node[a][0]) / (double)in->n[a];
    for (k = 0; k < in->n[a]; ++k)
      if (fabs(in->node[a][k + 1] - in->node[a][k] - d[a]) > 1e-9 * d[a])
        return snprintf(err, n, "planewave: needs a uniform mesh along each axis (%c is not)", 'x' + a), -1;
    if (fdtd_input_bc(in, a) == HD_FDTD_BC_PERIODIC)
      return snprintf(err, n, "planewave: not with periodic boundaries (%c)", 'x' + a), -1;
    m->tfsf_lo[a] = margin, m->tfsf_hi[a] = in->n[a] - margin;
    if (m->tfsf_hi[a] - m->tfsf_lo[a] < 1 || m->tfsf_lo[a] < 3)
      return snprintf(err, n, "planewave: %ld cells along %c leave no total-field box %ld cells inside the boundary",
                      in->n[a], 'x' + a, margin), -1;
  }
  hd_fdtd_plane_wave_dir(pw->theta, pw->phi, pw->pol, m->pw_k, m->pw_e, m->pw_h);
  m->pw_cell = hd_fdtd_inc_cell(d, m->pw_k, f, m->dt);
  if (!(m->pw_cell > 0))
    return snprintf(err, n, "planewave: the grid cannot carry a wave of %g Hz in this direction", f), -1;
  /* everything that scatters must sit in the total field (m: this block) */
  pad = fdtd_pad(m);
  if (!fdtd_node_grid(&g, m->n, pad)) return snprintf(err, n, "planewave: grid too large"), -1;
  for (c = 0; c < 6 && !bad; ++c) /* this block's nodes, p whole-grid */
    for (q[2] = 0; q[2] <= m->n[2] && !bad; ++q[2])
      for (q[1] = 0; q[1] <= m->n[1] && !bad; ++q[1])
        for (q[0] = 0; q[0] <= m->n[0] && !bad; ++q[0]) {
          int out = 0, along = 0;
          for (a = 0; a < 3; ++a) {
            const int half = c < 3 ? a == c : a != c - 3;
            p[a] = q[a] + m->off[a];
            along |= half && q[a] == m->n[a]; /* past the block's last cell */
            out |= 2 * p[a] + half < 2 * m->tfsf_lo[a] || 2 * p[a] + half > 2 * m->tfsf_hi[a];
          }
          mat = m->mat[c][hd_grid_at(&g, q[0] + pad, q[1] + pad, q[2] + pad)];
          bad = !along && out && mat != HD_FDTD_VACUUM;
        }
  if (bad)
    return snprintf(err, n,
                    "planewave: material %d at (%g, %g, %g) lies outside the total-field box (%g..%g, %g..%g, %g..%g): give "
                    "the scatterer more room or lower huygens-margin",
                    mat, in->node[0][p[0]], in->node[1][p[1]], in->node[2][p[2]], in->node[0][m->tfsf_lo[0]],
                    in->node[0][m->tfsf_hi[0]], in->node[1][m->tfsf_lo[1]], in->node[1][m->tfsf_hi[1]],
                    in->node[2][m->tfsf_lo[2]], in->node[2][m->tfsf_hi[2]]), -1;
  return 0;
}

/* The phase (radians) of the grid's wave at angular frequency w, s cells
 * down the scattered-field form's line (hd/fdtd_sf.h): each cell of width
 * D adds the discrete wave number's 2 asin(D sin(w dt/2) / (c dt)) / D
 * times D (the first HD_FDTD_INC_LEAD cells the first's, along an axis
 * the axis' cells in the order the wave meets them). */
static double line_phase(const fdtd_model *m, const fdtd_input *in, double w, double s, double K) {
  const double r = sqrt(fmax(0.0, pow(sin(0.5 * w * m->dt) / (HD_FDTD_C0 * m->dt), 2) - 0.25 * K * K));
  const int ax = m->pw_axis;
  const long n = ax >= 0 ? in->n[ax] : 0;
  double ph = 0.0, x;
  long c;
  if (m->pw_line == 2) return 2.0 * asin(fmin(1.0, m->pw_cell * r)) * s;
  for (c = 0, x = s; x > 0; ++c, x -= 1.0) {
    const long g = c - (long)HD_FDTD_INC_LEAD, k = g < 0 ? 0 : g >= n ? n - 1 : g;
    const double D = m->pw_k[ax] > 0 ? in->node[ax][k + 1] - in->node[ax][k] : in->node[ax][n - k] - in->node[ax][n - k - 1];
    ph += 2.0 * asin(fmin(1.0, D * r)) * (x < 1.0 ? x : 1.0);
  }
  return ph;
}

void fdtd_planewave_add_incident(const fdtd_model *m, const fdtd_input *in, const fdtd_slice *pl, const double *freq, int nf,
                                 long steps, int everywhere, double *acc) {
  const int comp = pl->comp, axis = pl->axis, u = axis == 0 ? 1 : 0, v = axis == 2 ? 1 : 2;
  const long nu = in->n[u], nv = in->n[v], ncell = nu * nv;
  const double eta = sqrt(HD_FDTD_MU0 / HD_FDTD_EPS0), at = comp < 3 ? 1.0 : 1.5; /* E at (n + 1) dt, H at (n + 3/2) dt */
  double amp = m->pw_e0 * (comp < 3 ? m->pw_e[comp] : m->pw_h[comp - 3] / eta), r0[3], lead = 0, kappa = 0, K = 0, bamp[6];
  int a, k, n_h = 0;
  if (m->bloch) { /* the line's E, H and N (hd/fdtd_sf.h) */
    const int b = m->bloch_axis;
    const double hb = (in->node[b][in->n[b]] - in->node[b][0]) / (double)in->n[b];
    kappa = hd_fdtd_bloch_line(m->pw_axis, b, m->pw_k[m->pw_axis], m->pw_e, m->bloch_beta, hb, &n_h, bamp);
    amp = m->pw_e0 * bamp[comp], K = 2.0 * sin(0.5 * m->bloch_beta * hb) / hb;
  }
  if (amp == 0) return;
  for (a = 0; a < 3; ++a) { /* where the wave starts: the grid's corner, or the box's and the line's lead (hd/fdtd_tfsf.h) */
    const long lo = m->pw_sf ? 0 : m->tfsf_lo[a], hi = m->pw_sf ? in->n[a] : m->tfsf_hi[a];
    r0[a] = m->pw_k[a] >= 0 ? in->node[a][lo] : in->node[a][hi];
  }
  if (!m->pw_sf) lead = HD_FDTD_INC_LEAD * m->pw_cell;
  for (k = 0; k < nf; ++k) {
    const double w = 2 * PI * freq[k], st = sin(0.5 * w * m->dt) / m->dt;
    double sr = 0, si = 0, *x = acc + (size_t)2 * k * ncell, fac = 1.0;
    long n, iu, iv;
    if (m->bloch) { /* the wave's H and N by the line's E, each at its own position and time */
      const double cq = 1.0 - pow(0.5 * K * HD_FDTD_C0 / st, 2), cth = sqrt(fmax(cq, 0.0));
      const int along = comp % 3 == m->pw_axis;
      if (cq <= 0) continue; /* below the cell's cut-off: no wave travels */
      if (n_h) fac = comp < 3 ? 1.0 : along ? -kappa / (2 * HD_FDTD_MU0 * st) : cth / eta;
      else fac = comp >= 3 ? 1.0 / (eta * cth) : along ? kappa / (2 * HD_FDTD_EPS0 * st) / (eta * cth) : 1.0;
    }
    for (n = 0; n < steps; ++n) { /* the waveform's transform at the maps' sampling times, as they sum */
      const double t = ((double)n + at) * m->dt, turns = fmod(fmod((double)n * (freq[k] * m->dt), 1.0) + at * freq[k] * m->dt, 1.0);
      const double y = hd_fdtd_waveform(&m->wave, t);
      sr += y * cos(2 * PI * turns), si -= y * sin(2 * PI * turns);
    }
    sr *= m->dt, si *= m->dt; /* the DFT's dt, as the spectra carry it */
    for (iv = 0; iv < nv; ++iv)
      for (iu = 0; iu < nu; ++iu) {
        /* the component's positions the map averages: E on the cell's four edges along it, H on its two faces */
        const long cell[3] = {axis == 0 ? pl->layer : iu, axis == 1 ? pl->layer : axis == 0 ? iu : iv, axis == 2 ? pl->layer : iv};
        double pr = 0, pi = 0;
        int q, npos = comp < 3 ? 4 : 2;
        for (q = 0; q < npos; ++q) {
          double d = lead, ph;
          long h[3];
          int b, bit = 0, inside = !m->pw_sf && !everywhere;
          for (b = 0; b < 3; ++b) { /* in half cells: the centre's odd index, or a node's even one */
            const int along = comp < 3 ? b == comp : b != comp - 3;
            h[b] = along ? 2 * cell[b] + 1 : 2 * (cell[b] + ((q >> bit++) & 1));
          }
          double xbloch = 0;
          for (b = 0; b < 3; ++b) {
            const double xb = h[b] % 2 ? 0.5 * (in->node[b][h[b] / 2] + in->node[b][h[b] / 2 + 1]) : in->node[b][h[b] / 2];
            d += m->pw_k[b] * (xb - r0[b]);
            inside &= h[b] >= 2 * m->tfsf_lo[b] && h[b] <= 2 * m->tfsf_hi[b];
            if (m->bloch && b == m->bloch_axis) xbloch = xb;
          }
          if (inside) continue; /* the box's total field is the grid's */
          if (m->pw_line == 1) { /* as hd/fdtd_sf.h's line has it, in cells; a Bloch cell's e^{i beta x_b} */
            const long ha = h[m->pw_axis];
            ph = line_phase(m, in, w, HD_FDTD_INC_LEAD + 0.5 * (double)(m->pw_k[m->pw_axis] > 0 ? ha : 2 * in->n[m->pw_axis] - ha), K);
            ph -= m->bloch_beta * xbloch;
          }
          else if (m->pw_line == 2) ph = line_phase(m, in, w, d / m->pw_cell + HD_FDTD_INC_LEAD, 0.0);
          else ph = w * d / HD_FDTD_C0;
          pr += cos(ph), pi -= sin(ph);
        }
        /* the mean of amp W(t - d/c) e^{-jwt}: the waveform's transform delayed by d/c */
        x[iv * nu + iu] += fac * amp * (sr * pr - si * pi) / npos, x[ncell + iv * nu + iu] += fac * amp * (sr * pi + si * pr) / npos;
      }
  }
}
