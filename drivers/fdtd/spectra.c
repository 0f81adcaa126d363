/* SPDX-License-Identifier: BSD-3-Clause */
#include "spectra.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hd/fdtd_dft.h>

#include "plot.h"

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#define PI 3.14159265358979323846

/* The text with commas as blanks: lists take either, as elsewhere. */
static const char *blanks(const char *text, char *buf, size_t n) {
  size_t i;
  for (i = 0; i + 1 < n && text[i]; ++i) buf[i] = text[i] == ',' ? ' ' : text[i];
  buf[i] = '\0';
  return buf;
}

/* "F" or "F0 F1 N" appended to the list. */
static int add_frequencies(fdtd_spectra *s, const char *key, const char *text, char *err, size_t n) {
  double f0, f1, *f;
  long count = 1, k;
  char tail[8], buf[256];
  const int got = sscanf(blanks(text, buf, sizeof buf), "%lf %lf %ld %7s", &f0, &f1, &count, tail);
  if (!(got == 1 || got == 3) || !(f0 > 0) || (got == 3 && (!(f1 >= f0) || count < 1 || count > 100000)))
    return snprintf(err, n, "%s: expected 'F' or 'F0 F1 N' (0 < F0 <= F1, 1 <= N <= 100000), not '%.100s'", key, text), -1;
  if (got == 1) count = 1, f1 = f0;
  f = (double *)realloc(s->freq, (size_t)(s->nfreq + count) * sizeof(double));
  if (!f) return snprintf(err, n, "%s: out of host memory", key), -1;
  s->freq = f;
  for (k = 0; k < count; ++k) f[s->nfreq + k] = count > 1 ? f0 + (f1 - f0) * (double)k / (double)(count - 1) : f0;
  s->nfreq += (int)count;
  return 0;
}

int fdtd_spectra_frequencies(fdtd_spectra *s, const char *text, const char *fields, char *err, size_t n) {
  free(s->freq);
  s->freq = NULL, s->nfreq = 0;
  if (add_frequencies(s, "frequencies", text, err, n)) return -1;
  s->nport = s->nfar = s->nfreq, s->far0 = 0;
  if (fields && fields[0]) { /* their own list, after the ports' */
    if (add_frequencies(s, "farfield-frequencies", fields, err, n)) return -1;
    s->far0 = s->nport, s->nfar = s->nfreq - s->nport;
  }
  return 0;
}

int fdtd_spectra_farfield(fdtd_spectra *s, const char *text, char *err, size_t n) {
  char tail[8], buf[256];
  if (sscanf(blanks(text, buf, sizeof buf), "%d %d %7s", &s->ntheta, &s->nphi, tail) != 2 || s->ntheta < 2 || s->ntheta > 3600 || s->nphi < 2 ||
      s->nphi > 7200)
    return snprintf(err, n, "farfield: expected 'NTHETA NPHI', the divisions of theta (2..3600) and phi (2..7200), not '%.100s'",
                    text), -1;
  return 0;
}

void fdtd_spectra_free(fdtd_spectra *s) {
  free(s->freq);
  s->freq = NULL, s->nfreq = s->nport = s->nfar = s->far0 = 0;
}

int fdtd_spectra_box(const fdtd_spectra *s, const long n[3], long lo[3], long hi[3], char *err, size_t en) {
  int a;
  if (s->margin == 0 && !s->outside_h)
    return snprintf(err, en, "huygens-margin: 0 puts the Huygens box on the faces, which needs the H outside them: "
                    "PML, or mur = h, on every axis"), -1;
  for (a = 0; a < 3; ++a) {
    lo[a] = s->periodic[a] ? 0 : s->margin, hi[a] = n[a] - lo[a];
    if (hi[a] - lo[a] < 2 && !s->periodic[a])
      return snprintf(err, en, "farfield: %ld cells along %c leave no Huygens box %ld cells inside the boundary (huygens-margin)",
                      n[a], 'x' + a, s->margin), -1;
  }
  return 0;
}

/* ---- ports -------------------------------------------------------------------- */

typedef struct cplx {
  double re, im;
} cplx;

static cplx cmul(cplx a, cplx b) {
  cplx q;
  q.re = a.re * b.re - a.im * b.im, q.im = a.re * b.im + a.im * b.re;
  return q;
}

static cplx cdiv(cplx a, cplx b) {
  const double d = b.re * b.re + b.im * b.im;
  cplx q;
  q.re = (a.re * b.re + a.im * b.im) / d, q.im = (a.im * b.re - a.re * b.im) / d;
  return q;
}

int fdtd_spectra_ports_count(const fdtd_input *in) {
  int p, n = 0;
  for (p = 0; p < in->nfeed; ++p) n += in->feeds[p].r >= 0;
  return n;
}

static double port_z0(const fdtd_spectra *s, const fdtd_point *f) { return s->z0 > 0 ? s->z0 : f->r > 0 ? f->r : 50.0; }

/* V and I of feed p at frequency k (hd_dft_feed_args' layout), and the
 * power waves a, b of the port.  The Yee update puts energy through the
 * gap with the voltage averaged over a step, (V(n) + V(n+1)) / 2 against
 * I(n + 1/2): the waves use V cos(pi f dt) with I, so that
 * (|a|^2 - |b|^2) / 2 is the power the grid takes, and a lossless
 * reciprocal model gives a unitary, symmetric S. */
static void port_waves(const fdtd_spectra *s, const fdtd_input *in, const double *acc, int k, int p, cplx *v, cplx *i,
                       cplx *a, cplx *b) {
  const double *x = acc + (size_t)4 * k * in->nfeed, z0 = port_z0(s, &in->feeds[p]), r = 2 * sqrt(z0);
  const double c = cos(PI * s->freq[k] * s->dt);
  v->re = x[p], v->im = x[in->nfeed + p], i->re = x[2 * in->nfeed + p], i->im = x[3 * in->nfeed + p];
  a->re = (v->re * c + z0 * i->re) / r, a->im = (v->im * c + z0 * i->im) / r;
  b->re = (v->re * c - z0 * i->re) / r, b->im = (v->im * c - z0 * i->im) / r;
}

/* A plot of curves written to PREFIX + suffix, where PNGs are built. */
static int plot_file(const char *prefix, const char *suffix, const char *title, const char *xlabel, const char *ylabel,
                     const hd_plot_curve *c, int nc, char *err, size_t en) {
  char path[4200];
  hd_out o;
  if (!HD_PNG_BUILT || !nc) return 0;
  snprintf(path, sizeof path, "%s%s", prefix, suffix);
  if (hd_out_open(&o, path, err, en)) return -1;
  if (hd_plot_lines(&o, title, xlabel, ylabel, c, nc, 0, 0, err, en)) {
    hd_out_abort(&o);
    return -1;
  }
  if (hd_out_commit(&o, err, en)) return -1;
  printf("plot: %s\n", path);
  return 0;
}

/* The port pictures a model asks for: the reflection on a Smith chart
 * (PREFIX_smith.png) and the admittance G, B in mS (PREFIX_admittance.png),
 * each beside its CSV, the first six ports (three for the admittance). */
static int ports_asked(const fdtd_spectra *s, const fdtd_input *in, const double *acc, const double *ghz, const char *prefix,
                       char *err, size_t en) {
  const unsigned want = s->plots ? s->plots->want : 0;
  double *val = NULL;
  hd_plot_curve g[6], y[6];
  char names[18][24];
  int p, k, ng = 0, ny = 0, rc = -1;
  if (!(want & (FDTD_PLOT_SMITH | FDTD_PLOT_ADMITTANCE))) return 0;
  if (!(val = (double *)malloc((size_t)s->nport * 24 * sizeof(double)))) return snprintf(err, en, "out of host memory for the plots"), -1;
  for (p = 0; p < in->nfeed && ng < 6; ++p) {
    double *gr = val + (size_t)(4 * ng) * s->nport, *gi = gr + s->nport, *yg = gi + s->nport, *yb = yg + s->nport;
    if (in->feeds[p].r < 0) continue;
    for (k = 0; k < s->nport; ++k) {
      cplx v, i, a, b, yy, gg;
      port_waves(s, in, acc, k, p, &v, &i, &a, &b);
      yy = cdiv(i, v), gg = cdiv(b, a);
      gr[k] = gg.re, gi[k] = gg.im, yg[k] = 1e3 * yy.re, yb[k] = 1e3 * yy.im;
    }
    snprintf(names[3 * ng], 24, "PORT %d", p + 1);
    g[ng].x = gr, g[ng].y = gi, g[ng].n = s->nport, g[ng].label = names[3 * ng];
    if (ny < 6) {
      snprintf(names[3 * ng + 1], 24, "G PORT %d", p + 1), snprintf(names[3 * ng + 2], 24, "B PORT %d", p + 1);
      y[ny].x = ghz, y[ny].y = yg, y[ny].n = s->nport, y[ny++].label = names[3 * ng + 1];
      y[ny].x = ghz, y[ny].y = yb, y[ny].n = s->nport, y[ny++].label = names[3 * ng + 2];
    }
    ++ng;
  }
  if ((!(want & FDTD_PLOT_SMITH) || !fdtd_plots_smith(prefix, g, ng, err, en)) &&
      (!(want & FDTD_PLOT_ADMITTANCE) ||
       !fdtd_plots_lines(prefix, "_admittance.png", "ADMITTANCE", "FREQUENCY (GHZ)", "MS", y, ny, err, en)))
    rc = 0;
  free(val);
  return rc;
}

/* PREFIX_ports.png (reflection in dB) and PREFIX_impedance.png (R and X)
 * against frequency, for the first ports. */
static int ports_plots(const fdtd_spectra *s, const fdtd_input *in, const double *acc, const char *prefix, char *err,
                       size_t en) {
  double *ghz = (double *)malloc((size_t)s->nport * sizeof(double)), *val = (double *)malloc((size_t)s->nport * 18 * sizeof(double));
  hd_plot_curve g[6], z[6];
  char names[18][24];
  int p, k, ng = 0, nz = 0, rc = -1;
  if (!ghz || !val) {
    snprintf(err, en, "out of host memory for the plots");
    goto done;
  }
  for (k = 0; k < s->nport; ++k) ghz[k] = s->freq[k] / 1e9;
  for (p = 0; p < in->nfeed && ng < 3; ++p) {
    double *rl = val + (size_t)(3 * ng) * s->nport, *zr = rl + s->nport, *zi = zr + s->nport;
    if (in->feeds[p].r < 0) continue;
    for (k = 0; k < s->nport; ++k) {
      cplx v, i, a, b, zz, gg;
      port_waves(s, in, acc, k, p, &v, &i, &a, &b);
      zz = cdiv(v, i), gg = cdiv(b, a);
      rl[k] = 20 * log10(hypot(gg.re, gg.im)), zr[k] = zz.re, zi[k] = zz.im;
    }
    snprintf(names[3 * ng], 24, "PORT %d", p + 1), snprintf(names[3 * ng + 1], 24, "R PORT %d", p + 1);
    snprintf(names[3 * ng + 2], 24, "X PORT %d", p + 1);
    g[ng].x = ghz, g[ng].y = rl, g[ng].n = s->nport, g[ng].label = names[3 * ng];
    z[nz].x = ghz, z[nz].y = zr, z[nz].n = s->nport, z[nz++].label = names[3 * ng + 1];
    z[nz].x = ghz, z[nz].y = zi, z[nz].n = s->nport, z[nz++].label = names[3 * ng + 2];
    ++ng;
  }
  if (!plot_file(prefix, "_ports.png", "REFLECTION", "FREQUENCY (GHZ)", "DB", g, ng, err, en) &&
      !plot_file(prefix, "_impedance.png", "IMPEDANCE", "FREQUENCY (GHZ)", "OHM", z, nz, err, en) &&
      !ports_asked(s, in, acc, ghz, prefix, err, en))
    rc = 0;
done:
  free(ghz), free(val);
  return rc;
}

int fdtd_spectra_ports(const fdtd_spectra *s, const fdtd_input *in, const double *acc, const char *prefix, char *err,
                       size_t en) {
  char path[4200];
  hd_out csv, ts;
  int k, p, nport = fdtd_spectra_ports_count(in), only = -1;
  if (!nport) return 0;
  snprintf(path, sizeof path, "%s_ports.csv", prefix);
  if (hd_out_open(&csv, path, err, en)) return -1;
  fprintf(csv.f, "frequency,port,v_re,v_im,i_re,i_im,z_re,z_im,z0,gamma_re,gamma_im,return_loss_dB,vswr,accepted_W\n");
  for (k = 0; k < s->nport; ++k)
    for (p = 0; p < in->nfeed; ++p) {
      cplx v, i, a, b, z, g;
      double mag, pacc;
      if (in->feeds[p].r < 0) continue; /* soft sources are not ports */
      only = p;
      port_waves(s, in, acc, k, p, &v, &i, &a, &b);
      z = cdiv(v, i), g = cdiv(b, a);
      mag = hypot(g.re, g.im);
      pacc = 0.5 * (v.re * i.re + v.im * i.im);
      fprintf(csv.f, "%.9e,%d,%.9e,%.9e,%.9e,%.9e,%.9e,%.9e,%.9g,%.9e,%.9e,%.6f,%.6f,%.9e\n", s->freq[k], p + 1, v.re, v.im,
              i.re, i.im, z.re, z.im, port_z0(s, &in->feeds[p]), g.re, g.im, -20 * log10(mag),
              mag < 1 ? (1 + mag) / (1 - mag) : HUGE_VAL, pacc);
      if (k == 0)
        printf("port_%d: %.6g Hz: Z = %.6g %+.6gj ohm, reflection %.3f dB against %g ohm, VSWR %.3f, accepted %.6g W\n", p + 1,
               s->freq[k], z.re, z.im, 20 * log10(mag), port_z0(s, &in->feeds[p]), mag < 1 ? (1 + mag) / (1 - mag) : HUGE_VAL,
               pacc);
    }
  if (hd_out_commit(&csv, err, en) || ports_plots(s, in, acc, prefix, err, en)) return -1;
  if (nport != 1) return 0;
  /* one port: its reflection is S11; Touchstone, the format every RF tool loads */
  snprintf(path, sizeof path, "%s.s1p", prefix);
  if (hd_out_open(&ts, path, err, en)) return -1;
  fprintf(ts.f, "! hd-fdtd %s: S11 of feed %d\n# Hz S RI R %.9g\n", PACKAGE_VERSION, only + 1, port_z0(s, &in->feeds[only]));
  for (k = 0; k < s->nport; ++k) {
    cplx v, i, a, b, g;
    port_waves(s, in, acc, k, only, &v, &i, &a, &b);
    g = cdiv(b, a);
    fprintf(ts.f, "%.9e %.9e %.9e\n", s->freq[k], g.re, g.im);
  }
  return hd_out_commit(&ts, err, en);
}

/* ---- voltage points ------------------------------------------------------------ */

static cplx csqrt_(cplx a) {
  const double r = hypot(a.re, a.im);
  cplx q;
  q.re = sqrt(0.5 * (r + a.re)), q.im = copysign(sqrt(0.5 * (r - a.re)), a.im);
  return q;
}

int fdtd_spectra_points(const fdtd_spectra *s, const fdtd_input *in, const double *probes, const double *feeds,
                        const char *prefix, char *err, size_t en) {
  const int np = in->nprobe, n = in->npoint, p0 = in->point_first;
  const unsigned want = s->plots ? s->plots->want : 0;
  char path[4200], names[12][24];
  hd_out csv;
  hd_plot_curve cs[6], cc[6];
  int k, q, f, ns = n < 6 ? n : 6, ncc = 0;
  double *db = NULL; /* the pictures' curves: the first six S and six couplings, then the frequencies in GHz */
  if (!n) return 0;
  if ((want & (FDTD_PLOT_SPARAMETERS | FDTD_PLOT_COUPLING)) && !(db = (double *)malloc((size_t)13 * s->nport * sizeof(double))))
    return snprintf(err, en, "out of host memory for the plots"), -1;
  snprintf(path, sizeof path, "%s_points.csv", prefix);
  if (hd_out_open(&csv, path, err, en)) return free(db), -1;
  fprintf(csv.f, "frequency,name,dB,deg\n");
  for (k = 0; k < s->nport; ++k) {
    const double *x = probes + (size_t)2 * k * np;
    cplx v[FDTD_MAX_POINTS + 2], c1, c2, c3, c4, c5, vp, vm, one = {1, 0};
    for (q = 0; q < n + 2; ++q) { /* V = -E d, d the edge's length */
      const fdtd_point *pt = &in->probes[p0 + q];
      const long at = pt->comp == 0 ? pt->i : pt->comp == 1 ? pt->j : pt->k;
      const double d = in->node[pt->comp][at + 1] - in->node[pt->comp][at];
      v[q].re = -d * x[p0 + q], v[q].im = -d * x[np + p0 + q];
    }
    /* V(x) = V+ e^{-gx} + V- e^{gx} at -d, 0, +d: (V(d) + V(-d)) / V(0) = e^{gd} + e^{-gd} */
    c1.re = v[n].re + v[n + 1].re, c1.im = v[n].im + v[n + 1].im;
    c1 = cdiv(c1, v[0]);
    c2 = cmul(c1, c1), c2.re -= 4, c2 = csqrt_(c2);
    c3.re = c1.re + c2.re, c3.im = c1.im + c2.im;
    if (c3.im < 0) c3.re = c1.re - c2.re, c3.im = c1.im - c2.im; /* e^{gd} with a positive phase */
    c3.re *= 0.5, c3.im *= 0.5;
    c4 = cdiv(one, c3);
    c5 = cmul(c4, c4), c2 = cmul(c3, c3), c5.re -= c2.re, c5.im -= c2.im;
    vp = cmul(v[n], c4), c2 = cmul(v[n + 1], c3), vp.re -= c2.re, vp.im -= c2.im, vp = cdiv(vp, c5);
    vm = cmul(v[n + 1], c4), c2 = cmul(v[n], c3), vm.re -= c2.re, vm.im -= c2.im, vm = cdiv(vm, c5);
    for (q = 0; q < n; ++q) {
      const cplx sq = cdiv(q ? v[q] : vm, vp);
      fprintf(csv.f, "%.9e,S%d1,%.6f,%.4f\n", s->freq[k], q + 1, 20 * log10(hypot(sq.re, sq.im)), atan2(sq.im, sq.re) * 180 / PI);
      if (db && q < 6) db[(size_t)q * s->nport + k] = 20 * log10(hypot(sq.re, sq.im));
    }
    for (f = 0, ncc = 0; feeds && f < in->nfeed; ++f) {
      const double *y = feeds + (size_t)4 * k * in->nfeed;
      cplx vf;
      vf.re = y[f], vf.im = y[in->nfeed + f];
      for (q = 0; q < n; ++q) {
        const cplx cq = cdiv(v[q], vf);
        fprintf(csv.f, "%.9e,C%d%d,%.6f,%.4f\n", s->freq[k], q + 1, f + 1, 20 * log10(hypot(cq.re, cq.im)),
                atan2(cq.im, cq.re) * 180 / PI);
        if (db && ncc < 6) {
          db[(size_t)(6 + ncc) * s->nport + k] = 20 * log10(hypot(cq.re, cq.im));
          if (k == 0) snprintf(names[6 + ncc], 24, "C%d%d", q + 1, f + 1);
          ++ncc;
        }
      }
    }
  }
  if (hd_out_commit(&csv, err, en)) return free(db), -1;
  if (db) { /* PREFIX_sparameters.png and PREFIX_coupling.png, dB against GHz */
    double *ghz = db + (size_t)12 * s->nport;
    int rc = 0;
    for (k = 0; k < s->nport; ++k) ghz[k] = s->freq[k] / 1e9;
    for (q = 0; q < 12; ++q) {
      hd_plot_curve *c = q < 6 ? &cs[q] : &cc[q - 6];
      if (q < 6) snprintf(names[q], 24, "S%d1", q + 1);
      c->x = ghz, c->y = db + (size_t)q * s->nport, c->n = s->nport, c->label = names[q];
    }
    if (want & FDTD_PLOT_SPARAMETERS)
      rc = fdtd_plots_lines(prefix, "_sparameters.png", "S-PARAMETERS OF THE POINTS", "FREQUENCY (GHZ)", "DB", cs, ns, err, en);
    if (!rc && (want & FDTD_PLOT_COUPLING))
      rc = fdtd_plots_lines(prefix, "_coupling.png", "COUPLING", "FREQUENCY (GHZ)", "DB", cc, ncc, err, en);
    free(db);
    if (rc) return -1;
  }
  printf("points: %d, S11%s%s at %d frequencies: %s\n", n, n > 1 ? " and Sn1" : "", feeds && in->nfeed ? ", couplings" : "",
         s->nport, path);
  return 0;
}

/* x = B A^-1 for P x P complex matrices (row major), by Gauss-Jordan on
 * A^T x^T = B^T with partial pivoting; 0, or -1 when A is singular. */
static int solve_right(int n, cplx *a, cplx *b) {
  int r, c, k;
  /* transpose both: rows of A^T are the columns of A */
  for (r = 0; r < n; ++r)
    for (c = r + 1; c < n; ++c) {
      cplx t = a[r * n + c];
      a[r * n + c] = a[c * n + r], a[c * n + r] = t;
      t = b[r * n + c], b[r * n + c] = b[c * n + r], b[c * n + r] = t;
    }
  for (c = 0; c < n; ++c) {
    int piv = c;
    for (r = c + 1; r < n; ++r)
      if (hypot(a[r * n + c].re, a[r * n + c].im) > hypot(a[piv * n + c].re, a[piv * n + c].im)) piv = r;
    if (hypot(a[piv * n + c].re, a[piv * n + c].im) == 0) return -1;
    for (k = 0; k < n; ++k) {
      cplx t = a[c * n + k];
      a[c * n + k] = a[piv * n + k], a[piv * n + k] = t;
      t = b[c * n + k], b[c * n + k] = b[piv * n + k], b[piv * n + k] = t;
    }
    for (r = 0; r < n; ++r) {
      cplx f;
      if (r == c) continue;
      f = cdiv(a[r * n + c], a[c * n + c]);
      for (k = 0; k < n; ++k) {
        const cplx ta = cmul(f, a[c * n + k]), tb = cmul(f, b[c * n + k]);
        a[r * n + k].re -= ta.re, a[r * n + k].im -= ta.im;
        b[r * n + k].re -= tb.re, b[r * n + k].im -= tb.im;
      }
    }
  }
  for (r = 0; r < n; ++r)
    for (k = 0; k < n; ++k) b[r * n + k] = cdiv(b[r * n + k], a[r * n + r]);
  for (r = 0; r < n; ++r) /* back: x = (x^T)^T */
    for (c = r + 1; c < n; ++c) {
      const cplx t = b[r * n + c];
      b[r * n + c] = b[c * n + r], b[c * n + r] = t;
    }
  return 0;
}

/* PREFIX_sparams.png: |S_ij| in dB against frequency, the first six of the
 * matrix row by row (db: ncurve x nfreq). */
static int sparams_plot(const fdtd_spectra *s, int np, const double *db, const char *prefix, char *err, size_t en) {
  const int ncurve = np * np < 6 ? np * np : 6;
  double *ghz = (double *)malloc((size_t)s->nport * sizeof(double));
  hd_plot_curve c[6];
  char names[6][16];
  int k, rc;
  if (!ghz) return snprintf(err, en, "out of host memory for the plots"), -1;
  for (k = 0; k < s->nport; ++k) ghz[k] = s->freq[k] / 1e9;
  for (k = 0; k < ncurve; ++k) {
    snprintf(names[k], sizeof names[k], "S%d%d", k / np + 1, k % np + 1);
    c[k].x = ghz, c[k].y = db + (size_t)k * s->nport, c[k].n = s->nport, c[k].label = names[k];
  }
  rc = plot_file(prefix, "_sparams.png", "S-PARAMETERS", "FREQUENCY (GHZ)", "DB", c, ncurve, err, en);
  free(ghz);
  return rc;
}

int fdtd_spectra_smatrix(const fdtd_spectra *s, const fdtd_input *in, double *const *runs, const char *prefix,
                         char *err, size_t en) {
  const int np = fdtd_spectra_ports_count(in);
  int *port = (int *)malloc((size_t)np * sizeof(int)), k, i, j, q = 0;
  cplx *a = (cplx *)malloc((size_t)np * np * sizeof(cplx)), *b = (cplx *)malloc((size_t)np * np * sizeof(cplx));
  double *db = (double *)malloc((size_t)6 * s->nport * sizeof(double)); /* the plotted |S_ij| */
  char path[4200];
  hd_out csv, ts;
  int rc = -1;
  if (!port || !a || !b || !db) {
    snprintf(err, en, "out of host memory for the S-parameters");
    goto done;
  }
  for (i = 0; i < in->nfeed; ++i)
    if (in->feeds[i].r >= 0) port[q++] = i;
  snprintf(path, sizeof path, "%s_sparams.csv", prefix);
  if (hd_out_open(&csv, path, err, en)) goto done;
  snprintf(path, sizeof path, "%s.s%dp", prefix, np);
  if (hd_out_open(&ts, path, err, en)) {
    hd_out_abort(&csv);
    goto done;
  }
  fprintf(csv.f, "frequency,i,j,s_re,s_im,s_dB\n");
  fprintf(ts.f, "! hd-fdtd %s: %d ports, one run driving each\n# Hz S RI R %.9g\n", PACKAGE_VERSION, np, port_z0(s, &in->feeds[port[0]]));
  for (i = 1; i < np; ++i)
    if (port_z0(s, &in->feeds[port[i]]) != port_z0(s, &in->feeds[port[0]]))
      fprintf(ts.f, "! port %d has reference %.9g ohm (Touchstone 1 states one for all)\n", i + 1, port_z0(s, &in->feeds[port[i]]));
  for (k = 0; k < s->nport; ++k) {
    for (j = 0; j < np; ++j) /* column j: the run that drove port j */
      for (i = 0; i < np; ++i) {
        cplx v, cur;
        port_waves(s, in, runs[j], k, port[i], &v, &cur, &a[i * np + j], &b[i * np + j]);
      }
    if (solve_right(np, a, b)) {
      snprintf(err, en, "S-parameters: the incident waves of the runs are singular at %g Hz", s->freq[k]);
      hd_out_abort(&csv), hd_out_abort(&ts);
      goto done;
    }
    fprintf(ts.f, "%.9e", s->freq[k]);
    for (i = 0; i < np; ++i)
      for (j = 0; j < np; ++j) {
        /* Touchstone 1: two ports as S11 S21 S12 S22, more a row at a time, four a line */
        const cplx x = np == 2 ? b[j * np + i] : b[i * np + j];
        const int e = i * np + j;
        fprintf(csv.f, "%.9e,%d,%d,%.9e,%.9e,%.6f\n", s->freq[k], i + 1, j + 1, b[i * np + j].re, b[i * np + j].im,
                20 * log10(hypot(b[i * np + j].re, b[i * np + j].im)));
        if (e < 6) db[(size_t)e * s->nport + k] = 20 * log10(hypot(b[e].re, b[e].im));
        if (np > 2 && j == 0 && i > 0) fprintf(ts.f, "\n");
        else if (np > 2 && e % np != 0 && e % np % 4 == 0) fprintf(ts.f, "\n");
        fprintf(ts.f, " %.9e %.9e", x.re, x.im);
      }
    fprintf(ts.f, "\n");
  }
  if (hd_out_commit(&csv, err, en)) {
    hd_out_abort(&ts);
    goto done;
  }
  rc = hd_out_commit(&ts, err, en);
  if (rc == 0) rc = sparams_plot(s, np, db, prefix, err, en);
done:
  free(port), free(a), free(b), free(db);
  return rc;
}

/* ---- near-field maps --------------------------------------------------------- */

/* A line of a plane's cells (m->line): the amplitude along it at the
 * first far frequencies (up to six), PREFIX_lineK.png beside its CSV. */
static int nearline_write(const fdtd_spectra *s, const fdtd_input *in, int k, const fdtd_map *m, const fdtd_slice *pl,
                          const double *amp, const char *prefix, char *err, size_t en) {
  static const char *const comp_names[6] = {"EX", "EY", "EZ", "HX", "HY", "HZ"};
  const int axis = pl->axis, u = axis == 0 ? 1 : 0, la = m->line_axis;
  const long nu = in->n[u], ncell = nu * in->n[axis == 2 ? 1 : 2], len = in->n[la];
  const int nc = s->nfar < 6 ? s->nfar : 6, db = s->plots && s->plots->line_db;
  double *xy = (double *)malloc((size_t)len * (nc + 1) * sizeof(double));
  char names[6][32], title[64], suffix[32], xlabel[16];
  hd_plot_curve c[6];
  long i;
  int f, rc;
  if (!xy) return snprintf(err, en, "nearline: out of host memory"), -1;
  for (i = 0; i < len; ++i) xy[i] = 0.5 * (in->node[la][i] + in->node[la][i + 1]);
  for (f = 0; f < nc; ++f) {
    double *y = xy + (size_t)(f + 1) * len;
    for (i = 0; i < len; ++i) {
      const double a = amp[(size_t)f * ncell + (la == u ? m->line_row * nu + i : i * nu + m->line_row)];
      y[i] = db ? 20 * log10(a > 1e-300 ? a : 1e-300) : a;
    }
    snprintf(names[f], sizeof names[f], "%.4g GHZ", s->freq[s->far0 + f] / 1e9);
    c[f].x = xy, c[f].y = y, c[f].n = (int)len, c[f].label = names[f];
  }
  snprintf(title, sizeof title, "|%s| ALONG %c", m->field < 0 ? comp_names[pl->comp] : m->field ? "H" : "E", 'X' + la);
  snprintf(suffix, sizeof suffix, "_line%d.png", k);
  snprintf(xlabel, sizeof xlabel, "%c (M)", 'X' + la);
  rc = fdtd_plots_lines_in(prefix, suffix, title, xlabel,
                           (m->field < 0 ? pl->comp >= 3 : m->field) ? (db ? "DBA/M" : "A/M") : (db ? "DBV/M" : "V/M"), c, nc,
                           s->plots ? s->plots->line_lo : 0, s->plots ? s->plots->line_hi : 0, err, en);
  free(xy);
  return rc;
}

int fdtd_spectra_nearfield(const fdtd_spectra *s, const fdtd_input *in, int k, const fdtd_map *m, const fdtd_slice *pl,
                           const double *const *acc, const char *prefix, char *err, size_t en) {
  static const char *const comp_names[6] = {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"};
  const int axis = pl->axis, u = axis == 0 ? 1 : 0, v = axis == 2 ? 1 : 2, vec = m->count == 3;
  const int per = vec ? 7 : 2; /* arrays a frequency: |F|, then each component's amplitude and phase */
  const long nu = in->n[u], nv = in->n[v], ncell = nu * nv, layer = pl->layer;
  double *data = (double *)malloc((size_t)ncell * per * s->nfar * sizeof(double)), *img = (double *)malloc((size_t)ncell * sizeof(double));
  double *amp = (double *)malloc((size_t)ncell * s->nfar * sizeof(double)); /* what the pictures draw */
  hd_vti_array *arr = (hd_vti_array *)calloc((size_t)per * s->nfar, sizeof(hd_vti_array));
  char (*names)[48] = (char (*)[48])calloc((size_t)per * s->nfar, 48), what[8];
  char path[4200];
  hd_out vtr, png;
  int64_t dims[3];
  const double *xyz[3];
  double lay[2], top = -HUGE_VAL;
  unsigned char *region = NULL;
  long c, q;
  int f, j, rc = -1;
  if (!data || !img || !amp || !arr || !names) {
    snprintf(err, en, "nearfield: out of host memory");
    goto done;
  }
  snprintf(what, sizeof what, "%s", vec ? (m->field ? "|H|" : "|E|") : comp_names[pl->comp]);
  for (f = 0; f < s->nfar; ++f) { /* amplitude and phase of each frequency */
    double *d = data + (size_t)per * f * ncell;
    if (vec) {
      snprintf(names[per * f], 48, "%s_amplitude_%.6g_Hz", m->field ? "H" : "E", s->freq[s->far0 + f]);
      arr[per * f].name = names[per * f], arr[per * f].data = d;
      for (c = 0; c < ncell; ++c) d[c] = 0;
    }
    for (j = 0; j < m->count; ++j) {
      const double *x = acc[j] + (size_t)2 * f * ncell;
      double *a = d + (vec + 2 * j) * ncell, *ph = a + ncell;
      const int comp = pl[j].comp;
      for (c = 0; c < ncell; ++c) {
        a[c] = hypot(x[c], x[ncell + c]), ph[c] = atan2(x[ncell + c], x[c]) * 180 / PI;
        if (vec) d[c] += a[c] * a[c];
      }
      snprintf(names[per * f + vec + 2 * j], 48, "%s_amplitude_%.6g_Hz", comp_names[comp], s->freq[s->far0 + f]);
      snprintf(names[per * f + vec + 2 * j + 1], 48, "%s_phase_deg_%.6g_Hz", comp_names[comp], s->freq[s->far0 + f]);
      arr[per * f + vec + 2 * j].name = names[per * f + vec + 2 * j], arr[per * f + vec + 2 * j].data = a;
      arr[per * f + vec + 2 * j + 1].name = names[per * f + vec + 2 * j + 1], arr[per * f + vec + 2 * j + 1].data = ph;
    }
    for (c = 0; c < ncell; ++c) amp[(size_t)f * ncell + c] = vec ? (d[c] = sqrt(d[c])) : d[c];
  }
  if (m->line) {
    rc = nearline_write(s, in, k, m, pl, amp, prefix, err, en);
    goto done;
  }
  dims[axis] = 1, dims[u] = nu, dims[v] = nv;
  lay[0] = in->node[axis][layer], lay[1] = in->node[axis][layer + 1];
  xyz[axis] = lay, xyz[u] = in->node[u], xyz[v] = in->node[v];
  snprintf(path, sizeof path, "%s_near%d.vtr", prefix, k);
  if (hd_out_open(&vtr, path, err, en)) goto done;
  if (hd_vtr_write(&vtr, dims, xyz, arr, per * s->nfar)) {
    snprintf(err, en, "cannot write %.900s", path);
    hd_out_abort(&vtr);
    goto done;
  }
  if (hd_out_commit(&vtr, err, en)) goto done;
  printf("nearfield_%d: %s on the cell layer %ld along %c: %s", k, what, layer, 'x' + axis, path);
  snprintf(path, sizeof path, "%s_near%d.csv", prefix, k); /* the amplitudes the picture draws, cell centres */
  if (hd_out_open(&png, path, err, en)) goto done;
  fprintf(png.f, "%c,%c", 'x' + u, 'x' + v);
  for (f = 0; f < s->nfar; ++f) fprintf(png.f, ",%s_%.6g_Hz", what, s->freq[s->far0 + f]);
  fprintf(png.f, "\n");
  for (q = 0; q < nv; ++q)
    for (c = 0; c < nu; ++c) {
      fprintf(png.f, "%.9g,%.9g", 0.5 * (in->node[u][c] + in->node[u][c + 1]), 0.5 * (in->node[v][q] + in->node[v][q + 1]));
      for (f = 0; f < s->nfar; ++f) fprintf(png.f, ",%.9g", amp[(size_t)f * ncell + q * nu + c]);
      fprintf(png.f, "\n");
    }
  if (hd_out_commit(&png, err, en)) goto done;
  printf(" %s", path);
  if (HD_PNG_BUILT) { /* the amplitude at the first frequency, second in-plane axis up, the window near2d-zoom asks */
    const fdtd_plots *p = s->plots;
    const int db = p && p->map_db, frames = p ? p->frames : 0;
    long c0 = 0, c1 = nu, q0 = 0, q1 = nv, wu, wv;
    double peak = 0;
    if (p && p->zoom) { /* the cells whose centres lie in the window */
      while (c0 < nu - 1 && 0.5 * (in->node[u][c0] + in->node[u][c0 + 1]) < p->zoom_u[0]) ++c0;
      while (c1 > c0 + 1 && 0.5 * (in->node[u][c1 - 1] + in->node[u][c1]) > p->zoom_u[1]) --c1;
      while (q0 < nv - 1 && 0.5 * (in->node[v][q0] + in->node[v][q0 + 1]) < p->zoom_v[0]) ++q0;
      while (q1 > q0 + 1 && 0.5 * (in->node[v][q1 - 1] + in->node[v][q1]) > p->zoom_v[1]) --q1;
    }
    wu = c1 - c0, wv = q1 - q0;
    for (q = q0; q < q1; ++q)
      for (c = c0; c < c1; ++c) {
        const double a = amp[q * nu + c];
        peak = fmax(peak, a);
        top = fmax(top, img[(wv - 1 - (q - q0)) * wu + c - c0] = db ? 20 * log10(a > 1e-300 ? a : 1e-300) : a);
      }
    if (p && p->outline && !(region = (unsigned char *)malloc((size_t)ncell))) {
      snprintf(err, en, "nearfield: out of host memory");
      goto done;
    }
    for (q = q0; region && q < q1; ++q) /* the geometry within half a cell of each cell's centre: plates and wires show */
      for (c = c0; c < c1; ++c) {
        double at[3];
        const double du = in->node[u][c + 1] - in->node[u][c], dv = in->node[v][q + 1] - in->node[v][q];
        at[axis] = 0.5 * (lay[0] + lay[1]), at[u] = in->node[u][c] + 0.5 * du, at[v] = in->node[v][q] + 0.5 * dv;
        region[(wv - 1 - (q - q0)) * wu + c - c0] = (unsigned char)fdtd_input_material_at(in, at, 0.51 * fmax(du, dv));
      }
    snprintf(path, sizeof path, "%s_near%d.png", prefix, k);
    if (hd_out_open(&png, path, err, en)) goto done;
    if (hd_png_write_map_lines(&png, (int)wu, (int)wv, img, p && p->map_lo2 < p->map_hi2 ? p->map_lo2 : db ? top - 40 : 0.0,
                               p && p->map_lo2 < p->map_hi2 ? p->map_hi2 : top > (db ? -HUGE_VAL : 0) ? top : 1.0,
                               HD_PNG_SEQUENTIAL, p && p->contour ? 10 : 0, region, err, en) ||
        hd_out_commit(&png, err, en)) {
      hd_out_abort(&png);
      goto done;
    }
    printf(" %s", path);
    for (f = 0; f < frames; ++f) { /* the field at phase 2 pi f / frames of a period: a component, or |E| of the three */
      const double ph = 2 * PI * f / frames, cs = cos(ph), sn = sin(ph);
      for (q = q0; q < q1; ++q)
        for (c = c0; c < c1; ++c) {
          double sum = 0, val = 0;
          for (j = 0; j < m->count; ++j) {
            const double *x = acc[j];
            val = x[q * nu + c] * cs - x[ncell + q * nu + c] * sn, sum += val * val;
          }
          img[(wv - 1 - (q - q0)) * wu + c - c0] = vec ? sqrt(sum) : val;
        }
      snprintf(path, sizeof path, "%s_near%d_frame%d.png", prefix, k, f + 1);
      if (hd_out_open(&png, path, err, en)) goto done;
      if (hd_png_write_map_lines(&png, (int)wu, (int)wv, img, vec ? 0.0 : -(peak > 0 ? peak : 1), peak > 0 ? peak : 1,
                                 vec ? HD_PNG_SEQUENTIAL : HD_PNG_DIVERGING, 0, region, err, en) ||
          hd_out_commit(&png, err, en)) {
        hd_out_abort(&png);
        goto done;
      }
    }
    if (frames) printf(" and %d frames %s_near%d_frame1.png ...", frames, prefix, k);
  }
  printf("\n");
  rc = 0;
done:
  free(data), free(img), free(amp), free(arr), free(names), free(region);
  return rc;
}

/* ---- far field ------------------------------------------------------------------ */

/* PREFIX_pattern.png: directivity on the E plane (phi = 0 and 180, which
 * needs NPHI even) and the H plane (theta = 90, NTHETA even), a curve a
 * frequency; cut holds for each frequency (angle, dBi) pairs of both. */
/* The principal cuts as polar diagrams: directivity in dBi (PREFIX_pattern.png)
 * or, under a plane wave, bistatic RCS in dBsm (PREFIX_rcs.png). */
static int pattern_plot(const fdtd_spectra *s, const double *cut, int ncut, int ne, int nh, int rcs, const char *prefix,
                        char *err, size_t en) {
  double *xy = (double *)malloc((size_t)ncut * 2 * (ne + nh) * sizeof(double)), top = -HUGE_VAL;
  hd_plot_curve e[6], h[6];
  const hd_plot_curve *panels[2];
  const char *names[2] = {"E PLANE: PHI = 0 (RIGHT), 180", "H PLANE: THETA = 90, PHI = 0 RIGHT"};
  char label[6][32], path[4200];
  int np = 0, k, i, nc[2];
  hd_out o;
  if (!xy) return snprintf(err, en, "out of host memory for the pattern"), -1;
  for (k = 0; k < ncut; ++k) {
    const double *c = cut + (size_t)k * 2 * (ne + nh);
    double *x = xy + (size_t)k * 2 * (ne + nh);
    for (i = 0; i < ne + nh; ++i) x[i] = c[2 * i], x[ne + nh + i] = c[2 * i + 1], top = fmax(top, c[2 * i + 1]);
    snprintf(label[k], sizeof label[k], "%.4g GHZ", s->freq[s->far0 + k] / 1e9);
    e[k].x = x, e[k].y = x + ne + nh, e[k].n = ne, e[k].label = label[k];
    h[k].x = x + ne, h[k].y = x + ne + nh + ne, h[k].n = nh, h[k].label = label[k];
  }
  if (s->nphi % 2 == 0) panels[np] = e, nc[np++] = ncut;
  if (s->ntheta % 2 == 0) panels[np] = h, names[np] = names[1], nc[np++] = ncut;
  if (!np) return free(xy), 0;
  snprintf(path, sizeof path, "%s_%s.png", prefix, rcs ? "rcs" : "pattern");
  if (hd_out_open(&o, path, err, en)) return free(xy), -1;
  if (hd_plot_polar(&o, rcs ? "BISTATIC RCS (DBSM)" : "DIRECTIVITY (DBI)", names, panels, nc, np, ceil(top / 5) * 5 + 0.0, 40, 10, err, en)) {
    hd_out_abort(&o);
    return free(xy), -1;
  }
  free(xy);
  if (hd_out_commit(&o, err, en)) return -1;
  printf("plot: %s\n", path);
  return 0;
}

/* The whole sphere for ParaView: PREFIX_farfield.vtk, a structured grid
 * on the unit sphere (theta rows, phi closing on itself) with one array a
 * frequency, directivity in dBi or RCS in dBsm (floored 100 dB under the
 * frequency's peak); ParaView's Warp By Scalar draws the 3-D pattern. */
static int sphere_write(const fdtd_spectra *s, const double *db, int rcs, const char *prefix, char *err, size_t en) {
  const int nth = s->ntheta + 1, nph = s->nphi;
  char path[4200];
  hd_out o;
  int it, ip, k;
  snprintf(path, sizeof path, "%s_farfield.vtk", prefix);
  if (hd_out_open(&o, path, err, en)) return -1;
  fprintf(o.f, "# vtk DataFile Version 3.0\nhd-fdtd far field: %s on the unit sphere\nASCII\nDATASET STRUCTURED_GRID\n"
          "DIMENSIONS %d %d 1\nPOINTS %d double\n", rcs ? "bistatic RCS (dBsm)" : "directivity (dBi)", nph + 1, nth,
          (nph + 1) * nth);
  for (it = 0; it < nth; ++it)
    for (ip = 0; ip <= nph; ++ip) {
      const double t = PI * it / s->ntheta, f = 2 * PI * (ip % nph) / nph;
      fprintf(o.f, "%.9g %.9g %.9g\n", sin(t) * cos(f), sin(t) * sin(f), cos(t));
    }
  fprintf(o.f, "POINT_DATA %d\n", (nph + 1) * nth);
  for (k = 0; k < s->nfar; ++k) {
    const double *v = db + (size_t)k * nth * nph;
    double top = -HUGE_VAL;
    for (it = 0; it < nth * nph; ++it) top = fmax(top, v[it]);
    fprintf(o.f, "SCALARS %s_%d double 1\nLOOKUP_TABLE default\n", rcs ? "rcs_dBsm" : "directivity_dBi", k + 1);
    for (it = 0; it < nth; ++it)
      for (ip = 0; ip <= nph; ++ip) fprintf(o.f, "%.6f\n", fmax(v[it * nph + ip % nph], top - 100));
  }
  return hd_out_commit(&o, err, en);
}

/* The directions the far-field pictures ask for beyond the sphere: the
 * 0-D one, then each cut's div + 1. */
static int far_asked_directions(const fdtd_plots *p) {
  int c, n = 0;
  if (!p) return 0;
  n += p->far0d;
  for (c = 0; c < p->ncut; ++c) n += p->cut[c].div + 1;
  return n;
}

static void far_asked_fill(const fdtd_plots *p, double *th, double *ph) {
  int c, i, d = 0;
  if (!p) return;
  if (p->far0d) th[d] = p->far0d_theta * PI / 180, ph[d] = p->far0d_phi * PI / 180, ++d;
  for (c = 0; c < p->ncut; ++c)
    for (i = 0; i <= p->cut[c].div; ++i, ++d) fdtd_plots_cut_direction(&p->cut[c], i, th + d, ph + d);
}

/* The power the ports accept at frequency k (of all), or with the matching
 * loss (s->matching_loss, OpenFDTD's matchingloss) what their sources make
 * available, P / (1 - |reflection|^2): gain then is realised gain. */
static double feeds_power(const fdtd_spectra *s, const fdtd_input *in, const double *feeds, int k) {
  double sum = 0;
  int p;
  for (p = 0; feeds && p < in->nfeed; ++p) {
    cplx v, i, a, b, g;
    double pacc;
    if (in->feeds[p].r < 0) continue;
    port_waves(s, in, feeds, k, p, &v, &i, &a, &b);
    pacc = 0.5 * (v.re * i.re + v.im * i.im);
    if (s->matching_loss) g = cdiv(b, a), pacc /= fmax(1 - (g.re * g.re + g.im * g.im), 1e-12);
    sum += pacc;
  }
  return sum;
}

/* Whether the ports take power at every far frequency: the pictures give gain, else directivity. */
static int feeds_accept(const fdtd_spectra *s, const fdtd_input *in, const double *feeds) {
  int k;
  for (k = 0; feeds && k < s->nfar; ++k)
    if (!(feeds_power(s, in, feeds, s->far0 + k) > 0)) return 0;
  return feeds != NULL;
}

/* PREFIX_far0d.png (the 0-D direction against frequency), PREFIX_far1d_K.png
 * (each cut: polar or against the angle, dB or linear, the parts asked, a
 * curve a part and frequency up to six) and PREFIX_far2d[_PART].png (the
 * sphere at the first far frequency as a map, theta down, phi across),
 * each beside its CSV.  extra: FDTD_FAR_PARTS values a direction and
 * frequency; sphere: as many a direction of the sphere, first frequency. */
static int far_asked_plots(const fdtd_spectra *s, const double *extra, int nextra, const double *sphere, int rcs, int gain,
                           const char *prefix, char *err, size_t en) {
  enum { NP = FDTD_FAR_PARTS };
  static const char *const part_name[NP] = {"", " THETA", " PHI", " MAJOR", " MINOR", " RHCP", " LHCP"};
  static const char *const part_file[NP] = {"", "_theta", "_phi", "_major", "_minor", "_rhcp", "_lhcp"};
  const fdtd_plots *p = s->plots;
  const char *what = rcs ? "RCS" : gain ? "GAIN" : "DIRECTIVITY";
  const char *unit = rcs ? (p->db ? "DBSM" : "M2") : gain ? (p->db ? "DBI" : "GAIN") : (p->db ? "DBI" : "DIRECTIVITY");
  char names[6][40], title[64], suffix[32];
  hd_plot_curve c[6];
  double *buf = (double *)malloc((size_t)(nextra ? nextra : 1) * 12 * sizeof(double) + (size_t)s->nfar * 2 * sizeof(double));
  int k, d0 = 0, q, i, rc = -1;
  if (!buf) return snprintf(err, en, "out of host memory for the far-field pictures"), -1;
  if (p->far0d) { /* the value against frequency */
    double *x = buf, *y = buf + s->nfar;
    for (k = 0; k < s->nfar; ++k) x[k] = s->freq[s->far0 + k] / 1e9, y[k] = 10 * log10(extra[(size_t)k * nextra * NP]);
    snprintf(names[0], sizeof names[0], "THETA %g PHI %g", p->far0d_theta, p->far0d_phi);
    c[0].x = x, c[0].y = y, c[0].n = s->nfar, c[0].label = names[0];
    snprintf(title, sizeof title, "%s IN ONE DIRECTION", what);
    if (fdtd_plots_lines(prefix, "_far0d.png", title, "FREQUENCY (GHZ)", rcs ? "DBSM" : "DBI", c, 1, err, en)) goto done;
    d0 = 1;
  }
  for (q = 0; q < p->ncut; ++q) { /* the cuts */
    const fdtd_cut *cu = &p->cut[q];
    const int m = cu->div + 1, round_phi = cu->plane == 'Z' || cu->plane == 'H';
    double top = -HUGE_VAL, peak;
    int nc = 0, part;
    for (k = 0; k < s->nfar && nc < 6; ++k)
      for (part = 0; part < NP && nc < 6; ++part) {
        double *x = buf + (size_t)nc * 2 * m, *y = x + m;
        if (!p->component[part]) continue;
        for (peak = 0, i = 0; i < m; ++i) {
          double th, ph;
          fdtd_plots_cut_direction(cu, i, &th, &ph);
          x[i] = (round_phi ? ph : th) * 180 / PI;
          y[i] = extra[((size_t)k * nextra + d0 + i) * NP + part];
          peak = fmax(peak, y[i]);
        }
        for (i = 0; i < m; ++i) {
          if (p->normalize && peak > 0) y[i] /= peak;
          if (p->db) y[i] = 10 * log10(y[i] > 1e-30 ? y[i] : 1e-30);
          top = fmax(top, y[i]);
        }
        snprintf(names[nc], sizeof names[nc], "%.4g GHZ%s", s->freq[s->far0 + k] / 1e9, part_name[part]);
        c[nc].x = x, c[nc].y = y, c[nc].n = m, c[nc].label = names[nc];
        ++nc;
      }
    snprintf(suffix, sizeof suffix, "_far1d_%d.png", q + 1);
    if (cu->plane == 'V' || cu->plane == 'H')
      snprintf(title, sizeof title, "%s: %s = %g, %s", what, cu->plane == 'V' ? "PHI" : "THETA", cu->angle, unit);
    else
      snprintf(title, sizeof title, "%s: %c PLANE, %s", what, cu->plane, unit);
    if (p->cartesian) {
      if (fdtd_plots_lines(prefix, suffix, title, round_phi ? "PHI (DEG)" : "THETA (DEG)", unit, c, nc, err, en)) goto done;
    } else {
      const double hi = p->lo < p->hi ? p->hi : p->db ? ceil(top / 5) * 5 : top > 0 ? top : 1;
      const double range = p->lo < p->hi ? p->hi - p->lo : p->db ? 40 : hi;
      if (fdtd_plots_polar(prefix, suffix, title, round_phi ? "PHI FROM THE TOP" : "THETA FROM THE TOP", c, nc, hi, range,
                           p->db && fmod(range, 10) == 0 && range >= 20 ? 10 : range / 4, err, en))
        goto done;
    }
    d0 += m;
  }
  if ((p->want & FDTD_PLOT_FAR2D) && s->ntheta) { /* the sphere at the first far frequency, a map a part */
    const int nth = s->ntheta + 1, nph = s->nphi, nd = nth * nph, w = 720, h = 360;
    double *img = (double *)malloc((size_t)w * h * sizeof(double)), *val = (double *)malloc((size_t)nd * NP * sizeof(double));
    char path[4200];
    hd_out o;
    int it, ip, part;
    if (!img || !val) {
      free(img), free(val);
      snprintf(err, en, "out of host memory for the far-field map");
      goto done;
    }
    for (i = 0; i < nd * NP; ++i) val[i] = p->map_linear ? sphere[i] : 10 * log10(sphere[i] > 1e-30 ? sphere[i] : 1e-30);
    snprintf(path, sizeof path, "%s_far2d.csv", prefix);
    rc = hd_out_open(&o, path, err, en);
    if (!rc) {
      fprintf(o.f, "theta_deg,phi_deg");
      for (part = 0; part < NP; ++part)
        if (p->map_component[part])
          fprintf(o.f, ",%s%s_%s", rcs ? "rcs" : "directivity", part_file[part], p->map_linear ? (rcs ? "m2" : "ratio") : rcs ? "dBsm" : "dBi");
      fprintf(o.f, "\n");
      for (i = 0; i < nd; ++i) {
        fprintf(o.f, "%.6g,%.6g", 180.0 * (i / nph) / s->ntheta, 360.0 * (i % nph) / nph);
        for (part = 0; part < NP; ++part)
          if (p->map_component[part]) fprintf(o.f, ",%.9g", val[(size_t)i * NP + part]);
        fprintf(o.f, "\n");
      }
      rc = hd_out_commit(&o, err, en);
    }
    if (!rc) printf("plot: %s%s\n", path, HD_PNG_BUILT ? "" : " (no picture: " HD_NO_PNG ")");
    for (part = 0; !rc && HD_PNG_BUILT && part < NP; ++part) {
      double top = -HUGE_VAL, lo, hi;
      if (!p->map_component[part]) continue;
      for (i = 0; i < nd; ++i) top = fmax(top, val[(size_t)i * NP + part]);
      lo = p->map_lo < p->map_hi ? p->map_lo : p->map_linear ? 0 : top - 40, hi = p->map_lo < p->map_hi ? p->map_hi : top;
      for (it = 0; it < h; ++it)
        for (ip = 0; ip < w; ++ip) /* nearest direction of the sphere's grid */
          img[(size_t)it * w + ip] = val[((size_t)lround((double)it / (h - 1) * s->ntheta) * nph + (int)((double)ip / w * nph) % nph) * NP + part];
      snprintf(path, sizeof path, "%s_far2d%s.png", prefix, part_file[part]);
      rc = hd_out_open(&o, path, err, en);
      if (!rc && (hd_png_write_map(&o, w, h, img, lo, hi, HD_PNG_SEQUENTIAL, err, en) || hd_out_commit(&o, err, en))) {
        hd_out_abort(&o);
        rc = -1;
      }
      if (!rc)
        printf("plot: %s (theta 0-180 down, phi 0-360 across, %.4g to %.4g %s)\n", path, lo, hi,
               p->map_linear ? (rcs ? "m2" : "linear") : rcs ? "dBsm" : "dBi");
    }
    free(img), free(val);
    if (rc) goto done;
  }
  rc = 0;
done:
  free(buf);
  return rc;
}

int fdtd_spectra_farfield_write(const fdtd_spectra *s, const fdtd_input *in, const long lo[3], const long hi[3],
                                const double *surface, const double *feeds, const double *incident, const char *prefix,
                                char *err, size_t en) {
  const hd_idx npts = hd_dft_surface_points(lo, hi, NULL, NULL);
  const int nth = s->ntheta + 1, nph = s->nphi, ndir = nth * nph; /* and under a plane wave the back and forward ones */
  const int nextra = far_asked_directions(s->plots), nall = ndir + 2 + nextra; /* then the pictures' own directions */
  const double eta = sqrt(HD_FDTD_MU0 / HD_FDTD_EPS0);
  double *area = (double *)malloc((size_t)npts * sizeof(double)), *scratch = NULL;
  double *th = (double *)malloc((size_t)nall * sizeof(double)), *ph = (double *)malloc((size_t)nall * sizeof(double));
  double *out = (double *)malloc((size_t)nall * 4 * sizeof(double));
  double *extra = (double *)malloc((size_t)(nextra ? nextra : 1) * s->nfar * FDTD_FAR_PARTS * sizeof(double)); /* their parts */
  double *parts = (double *)malloc((size_t)ndir * FDTD_FAR_PARTS * sizeof(double)); /* the sphere's, first frequency */
  unsigned char *face = (unsigned char *)malloc((size_t)npts);
  long *ijk = (long *)malloc((size_t)npts * 3 * sizeof(long));
  /* the principal cuts for the picture: E plane (phi = 0 and 180) and H plane (theta = 90), per frequency */
  const int ncut = s->nfar < 6 ? s->nfar : 6, ne = 2 * s->ntheta + 1, nh = nph + 1;
  double *cut = (double *)malloc((size_t)ncut * 2 * (ne + nh) * sizeof(double));
  double *db = (double *)malloc((size_t)s->nfar * ndir * sizeof(double)); /* the sphere's values */
  char path[4200];
  hd_out csv;
  hd_idx p;
  int k, d, rc = -1;
  if (!area || !th || !ph || !out || !face || !ijk || !cut || !db || !extra || !parts) {
    snprintf(err, en, "farfield: out of host memory");
    goto done;
  }
  hd_dft_surface_points(lo, hi, face, ijk);
  for (p = 0; p < npts; ++p) { /* signed areas */
    const int a = face[p] / 2, u = (a + 1) % 3, w = (a + 2) % 3;
    const long *q = ijk + 3 * p;
    area[p] = (in->node[u][q[u] + 1] - in->node[u][q[u]]) * (in->node[w][q[w] + 1] - in->node[w][q[w]]) * (face[p] % 2 ? 1 : -1);
    if (s->periodic[a]) area[p] = 0.0; /* the next cell's face: their currents cancel */
  }
  for (d = 0; d < ndir; ++d) th[d] = PI * (double)(d / nph) / s->ntheta, ph[d] = 2 * PI * (double)(d % nph) / nph;
  th[ndir] = s->pw_theta, ph[ndir] = s->pw_phi; /* back toward the plane wave's source */
  th[ndir + 1] = PI - s->pw_theta, ph[ndir + 1] = s->pw_phi + PI; /* on along its way */
  far_asked_fill(s->plots, th + ndir + 2, ph + ndir + 2);
  snprintf(path, sizeof path, "%s_farfield.csv", prefix);
  if (hd_out_open(&csv, path, err, en)) goto done;
  fprintf(csv.f, "frequency,theta_deg,phi_deg,r_e_theta_re,r_e_theta_im,r_e_phi_re,r_e_phi_im,directivity_dBi,gain_dBi%s\n",
          incident ? ",rcs_m2,rcs_dBsm" : "");
  for (k = 0; k < s->nfar; ++k) {
    hd_ntff_args na;
    double prad = 0.0, pacc = 0.0, umax = -1.0, einc2 = 0.0;
    int dmax = 0, i, nd = incident || nextra ? nall : ndir, bad = 0;
    for (i = 0; i < 3; ++i) na.node[i] = in->node[i], na.nn[i] = in->n[i] + 1;
    na.ijk = ijk, na.area = area, na.face = face, na.acc = surface + (size_t)8 * k * npts, na.npts = npts;
    na.k = 2 * PI * s->freq[s->far0 + k] / HD_FDTD_C0, na.eta = eta, na.theta = th, na.phi = ph, na.out = out;
    if (incident) einc2 = incident[2 * (s->far0 + k)] * incident[2 * (s->far0 + k)] + incident[2 * (s->far0 + k) + 1] * incident[2 * (s->far0 + k) + 1];
#ifdef _OPENMP
#pragma omp parallel private(scratch) reduction(|: bad)
#endif
    { /* the directions over the threads, each with its phase tables */
      scratch = (double *)malloc(hd_ntff_scratch(&na) * sizeof(double));
      bad = !scratch;
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 4)
#endif
      for (d = 0; d < nd; ++d)
        if (scratch) hd_ntff_direction(&na, d, scratch);
      free(scratch);
    }
    if (bad) {
      snprintf(err, en, "farfield: out of host memory");
      hd_out_abort(&csv);
      goto done;
    }
    /* radiated power: U sin(theta) over the sphere, trapezoids in theta */
    for (d = 0; d < ndir; ++d) {
      const double u = (out[4 * d] * out[4 * d] + out[4 * d + 1] * out[4 * d + 1] + out[4 * d + 2] * out[4 * d + 2] +
                        out[4 * d + 3] * out[4 * d + 3]) / (2 * eta);
      const int it = d / nph;
      prad += u * sin(th[d]) * (it == 0 || it == s->ntheta ? 0.5 : 1.0) * (PI / s->ntheta) * (2 * PI / nph);
      if (u > umax) umax = u, dmax = d;
    }
    pacc = feeds_power(s, in, feeds, s->far0 + k);
    for (d = 0; d < ndir; ++d) {
      const double u = (out[4 * d] * out[4 * d] + out[4 * d + 1] * out[4 * d + 1] + out[4 * d + 2] * out[4 * d + 2] +
                        out[4 * d + 3] * out[4 * d + 3]) / (2 * eta);
      fprintf(csv.f, "%.9e,%.6g,%.6g,%.9e,%.9e,%.9e,%.9e,%.6f,", s->freq[s->far0 + k], th[d] * 180 / PI, ph[d] * 180 / PI, out[4 * d],
              out[4 * d + 1], out[4 * d + 2], out[4 * d + 3], 10 * log10(4 * PI * u / prad));
      if (pacc > 0) fprintf(csv.f, "%.6f", 10 * log10(4 * PI * u / pacc));
      if (incident) fprintf(csv.f, ",%.9e,%.6f", 4 * PI * 2 * eta * u / einc2, 10 * log10(4 * PI * 2 * eta * u / einc2));
      fprintf(csv.f, "\n");
      db[(size_t)k * ndir + d] = incident ? 10 * log10(4 * PI * 2 * eta * u / einc2) : 10 * log10(4 * PI * u / prad);
      if (k < ncut) { /* on a cut: its angle clockwise from the top, and the directivity (or RCS) */
        const int it = d / nph, ip = d % nph;
        double *e = cut + (size_t)k * 2 * (ne + nh), *h = e + 2 * ne;
        const double dbi = db[(size_t)k * ndir + d];
        if (ip == 0) e[2 * it] = th[d] * 180 / PI, e[2 * it + 1] = dbi;
        if (2 * ip == nph) e[2 * (ne - 1 - it)] = 360 - th[d] * 180 / PI, e[2 * (ne - 1 - it) + 1] = dbi;
        if (2 * it == s->ntheta) {
          h[2 * ip] = 90 - ph[d] * 180 / PI, h[2 * ip + 1] = dbi;
          if (ip == 0) h[2 * nph] = -270, h[2 * nph + 1] = dbi; /* closes the circle */
        }
      }
    }
    for (d = 0; d < nextra; ++d) { /* the parts as gain (directivity without feeds) or RCS, linear */
      double *e = extra + ((size_t)k * nextra + d) * FDTD_FAR_PARTS;
      const double norm = (incident ? 4 * PI * 2 * eta / einc2 : 4 * PI / (pacc > 0 ? pacc : prad)) / (2 * eta);
      fdtd_plots_far_parts(out + 4 * (ndir + 2 + d), e);
      for (i = 0; i < FDTD_FAR_PARTS; ++i) e[i] *= norm;
    }
    for (d = 0; k == 0 && d < ndir; ++d) { /* the sphere's parts as directivity or RCS (the maps) */
      double *e = parts + (size_t)d * FDTD_FAR_PARTS;
      const double norm = (incident ? 4 * PI * 2 * eta / einc2 : 4 * PI / prad) / (2 * eta);
      fdtd_plots_far_parts(out + 4 * d, e);
      for (i = 0; i < FDTD_FAR_PARTS; ++i) e[i] *= norm;
    }
    printf("farfield_%d: %.6g Hz: directivity %.4f dBi (%.5f) at theta %.4g phi %.4g, radiated %.6g W", k + 1, s->freq[s->far0 + k],
           10 * log10(4 * PI * umax / prad), 4 * PI * umax / prad, th[dmax] * 180 / PI, ph[dmax] * 180 / PI, prad);
    if (pacc > 0)
      printf(", %s %.6g W, %s %.4f dBi, efficiency %.5f", s->matching_loss ? "available" : "accepted", pacc,
             s->matching_loss ? "realised gain" : "gain", 10 * log10(4 * PI * umax / pacc), prad / pacc);
    printf("\n");
    if (incident) { /* sigma = 4 pi |r E_s|^2 / |E_i|^2; the scattered power over the incident intensity */
      const double *o = out + 4 * ndir, *w = o + 4;
      const double mono = 4 * PI * (o[0] * o[0] + o[1] * o[1] + o[2] * o[2] + o[3] * o[3]) / einc2;
      const double fwd = 4 * PI * (w[0] * w[0] + w[1] * w[1] + w[2] * w[2] + w[3] * w[3]) / einc2;
      printf("rcs_%d: %.6g Hz: monostatic %.6g m2 (%.4f dBsm) toward theta %.4g phi %.4g, forward %.6g m2 (%.4f dBsm), "
             "bistatic peak %.6g m2 (%.4f dBsm) at theta %.4g phi %.4g, total scattering cross-section %.6g m2\n",
             k + 1, s->freq[s->far0 + k], mono, 10 * log10(mono), th[ndir] * 180 / PI, ph[ndir] * 180 / PI, fwd, 10 * log10(fwd),
             4 * PI * 2 * eta * umax / einc2, 10 * log10(4 * PI * 2 * eta * umax / einc2), th[dmax] * 180 / PI,
             ph[dmax] * 180 / PI, prad * 2 * eta / einc2);
    }
  }
  rc = hd_out_commit(&csv, err, en);
  if (rc == 0) rc = sphere_write(s, db, incident != NULL, prefix, err, en);
  if (rc == 0 && HD_PNG_BUILT) rc = pattern_plot(s, cut, ncut, ne, nh, incident != NULL, prefix, err, en);
  if (rc == 0 && s->plots) rc = far_asked_plots(s, extra, nextra, parts, incident != NULL, feeds_accept(s, in, feeds), prefix, err, en);
done:
  free(area), free(th), free(ph), free(out), free(face), free(ijk), free(cut), free(db), free(extra), free(parts);
  return rc;
}
