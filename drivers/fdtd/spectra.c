/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-fdtd's frequency-domain results at the ports: the frequency lists,
 * impedance, reflection and S-parameters of the feeds, the voltage points,
 * the S matrix of excite=all; near fields in nearfield.c, far fields in
 * farfield.c. */
#include "spectra.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hd/fdtd_dft.h>

#include "cli.h"
#include "plot.h"

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#define PI 3.14159265358979323846

/* "F" or "F0 F1 N" (blanks or commas between) appended to the list. */
static int add_frequencies(fdtd_spectra *s, const char *key, const char *text, char *err, size_t n) {
  double f0 = 0, f1 = 0, c = 1, *f;
  long count, k;
  char buf[256], *w[3];
  int got;
  snprintf(buf, sizeof buf, "%s", text);
  got = cli_words(buf, w, 3);
  if (!(got == 1 || got == 3) || !cli_finite(w[0], &f0) || !(f0 > 0) ||
      (got == 3 && (!cli_finite(w[1], &f1) || !cli_finite(w[2], &c) || !(f1 >= f0) || c != floor(c) || c < 1 ||
                    c > 100000)))
    return snprintf(err, n, "%s: expected 'F' or 'F0 F1 N' (finite, 0 < F0 <= F1, 1 <= N <= 100000), not '%.100s'", key,
                    text), -1;
  count = (long)c;
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
  char buf[256], *w[2];
  double t = 0, p = 0;
  snprintf(buf, sizeof buf, "%s", text);
  if (cli_words(buf, w, 2) != 2 || !cli_finite(w[0], &t) || !cli_finite(w[1], &p) || t != floor(t) || p != floor(p) ||
      t < 2 || t > 3600 || p < 2 || p > 7200)
    return snprintf(err, n, "farfield: expected 'NTHETA NPHI', the divisions of theta (2..3600) and phi (2..7200), not '%.100s'",
                    text), -1;
  s->ntheta = (int)t, s->nphi = (int)p;
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

/* The power the ports accept at frequency k (of all), or with the matching
 * loss (s->matching_loss, OpenFDTD's matchingloss) what their sources make
 * available, P / (1 - |reflection|^2): gain then is realised gain. */
double fdtd_spectra_feeds_power(const fdtd_spectra *s, const fdtd_input *in, const double *feeds, int k) {
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
