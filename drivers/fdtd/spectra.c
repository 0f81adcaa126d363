#include "spectra.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hd/fdtd_dft.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#define PI 3.14159265358979323846

int fdtd_spectra_frequencies(fdtd_spectra *s, const char *text, char *err, size_t n) {
  double f0, f1;
  long count = 1, k;
  char tail[8];
  const int got = sscanf(text, "%lf %lf %ld %7s", &f0, &f1, &count, tail);
  if (!(got == 1 || got == 3) || !(f0 > 0) || (got == 3 && (!(f1 >= f0) || count < 1 || count > 100000)))
    return snprintf(err, n, "frequencies: expected 'F' or 'F0 F1 N' (0 < F0 <= F1, 1 <= N <= 100000), not '%.100s'", text), -1;
  if (got == 1) count = 1, f1 = f0;
  free(s->freq);
  s->freq = (double *)malloc((size_t)count * sizeof(double));
  if (!s->freq) return snprintf(err, n, "frequencies: out of host memory"), -1;
  for (k = 0; k < count; ++k) s->freq[k] = count > 1 ? f0 + (f1 - f0) * (double)k / (double)(count - 1) : f0;
  s->nfreq = (int)count;
  return 0;
}

int fdtd_spectra_farfield(fdtd_spectra *s, const char *text, char *err, size_t n) {
  char tail[8];
  if (sscanf(text, "%d %d %7s", &s->ntheta, &s->nphi, tail) != 2 || s->ntheta < 2 || s->ntheta > 3600 || s->nphi < 2 ||
      s->nphi > 7200)
    return snprintf(err, n, "farfield: expected 'NTHETA NPHI', the divisions of theta (2..3600) and phi (2..7200), not '%.100s'",
                    text), -1;
  return 0;
}

void fdtd_spectra_free(fdtd_spectra *s) {
  free(s->freq);
  s->freq = NULL, s->nfreq = 0;
}

int fdtd_spectra_box(const fdtd_spectra *s, const long n[3], long lo[3], long hi[3], char *err, size_t en) {
  int a;
  for (a = 0; a < 3; ++a) {
    lo[a] = s->margin, hi[a] = n[a] - s->margin;
    if (hi[a] - lo[a] < 2)
      return snprintf(err, en, "farfield: %ld cells along %c leave no Huygens box %ld cells inside the boundary (huygens-margin)",
                      n[a], 'x' + a, s->margin), -1;
  }
  return 0;
}

/* ---- ports -------------------------------------------------------------------- */

typedef struct cplx {
  double re, im;
} cplx;

static cplx cdiv(cplx a, cplx b) {
  const double d = b.re * b.re + b.im * b.im;
  cplx q;
  q.re = (a.re * b.re + a.im * b.im) / d, q.im = (a.im * b.re - a.re * b.im) / d;
  return q;
}

/* V and I of feed p at frequency k (the DFT layout of hd_dft_feed_args). */
static void feed_vi(const double *acc, int nfeed, int k, int p, cplx *v, cplx *i) {
  const double *x = acc + (size_t)4 * k * nfeed;
  v->re = x[p], v->im = x[nfeed + p], i->re = x[2 * nfeed + p], i->im = x[3 * nfeed + p];
}

static double port_z0(const fdtd_spectra *s, const fdtd_point *f) { return s->z0 > 0 ? s->z0 : f->r > 0 ? f->r : 50.0; }

int fdtd_spectra_ports(const fdtd_spectra *s, const fdtd_input *in, const double *acc, const char *prefix, char *err,
                       size_t en) {
  char path[4200];
  hd_out csv, ts;
  int k, p, nport = 0, driven = -1, ndriven = 0;
  for (p = 0; p < in->nfeed; ++p)
    if (in->feeds[p].r >= 0) {
      ++nport;
      if (in->feeds[p].amp != 0) driven = p, ++ndriven;
    }
  if (!nport) return 0;
  snprintf(path, sizeof path, "%s_ports.csv", prefix);
  if (hd_out_open(&csv, path, err, en)) return -1;
  fprintf(csv.f, "frequency,port,v_re,v_im,i_re,i_im,z_re,z_im,z0,gamma_re,gamma_im,return_loss_dB,vswr,accepted_W,s_re,s_im\n");
  for (k = 0; k < s->nfreq; ++k) {
    cplx aj = {0, 0};
    if (ndriven == 1) { /* the incident wave at the driven port: a = (V + Z0 I) / (2 sqrt Z0) */
      cplx v, i;
      const double z0 = port_z0(s, &in->feeds[driven]);
      feed_vi(acc, in->nfeed, k, driven, &v, &i);
      aj.re = (v.re + z0 * i.re) / (2 * sqrt(z0)), aj.im = (v.im + z0 * i.im) / (2 * sqrt(z0));
    }
    for (p = 0; p < in->nfeed; ++p) {
      const fdtd_point *f = &in->feeds[p];
      const double z0 = port_z0(s, f);
      cplx v, i, z, g, num, den;
      double mag, pacc;
      if (f->r < 0) continue; /* soft sources are not ports */
      feed_vi(acc, in->nfeed, k, p, &v, &i);
      z = cdiv(v, i);
      num.re = z.re - z0, num.im = z.im, den.re = z.re + z0, den.im = z.im;
      g = cdiv(num, den);
      mag = hypot(g.re, g.im);
      pacc = 0.5 * (v.re * i.re + v.im * i.im);
      fprintf(csv.f, "%.9e,%d,%.9e,%.9e,%.9e,%.9e,%.9e,%.9e,%.9g,%.9e,%.9e,%.6f,%.6f,%.9e", s->freq[k], p + 1, v.re, v.im,
              i.re, i.im, z.re, z.im, z0, g.re, g.im, -20 * log10(mag), mag < 1 ? (1 + mag) / (1 - mag) : HUGE_VAL, pacc);
      if (ndriven == 1) { /* S_(p, driven) = b_p / a_driven, b = (V - Z0 I) / (2 sqrt Z0) */
        cplx b;
        b.re = (v.re - z0 * i.re) / (2 * sqrt(z0)), b.im = (v.im - z0 * i.im) / (2 * sqrt(z0));
        b = cdiv(b, aj);
        fprintf(csv.f, ",%.9e,%.9e\n", b.re, b.im);
      } else {
        fprintf(csv.f, ",,\n");
      }
      if (k == 0)
        printf("port_%d: %.6g Hz: Z = %.6g %+.6gj ohm, |S%d%d| = %.3f dB against %g ohm, VSWR %.3f, accepted %.6g W\n", p + 1,
               s->freq[k], z.re, z.im, p + 1, p + 1, 20 * log10(mag), z0, mag < 1 ? (1 + mag) / (1 - mag) : HUGE_VAL, pacc);
    }
  }
  if (hd_out_commit(&csv, err, en)) return -1;
  if (nport != 1 || ndriven != 1) return 0;
  /* one port: Touchstone, the format every RF tool loads */
  snprintf(path, sizeof path, "%s.s1p", prefix);
  if (hd_out_open(&ts, path, err, en)) return -1;
  fprintf(ts.f, "! hd-fdtd %s: S11 of the feed against %g ohm\n# Hz S RI R %.9g\n", PACKAGE_VERSION,
          port_z0(s, &in->feeds[driven]), port_z0(s, &in->feeds[driven]));
  for (k = 0; k < s->nfreq; ++k) {
    cplx v, i, z, num, den, g;
    const double z0 = port_z0(s, &in->feeds[driven]);
    feed_vi(acc, in->nfeed, k, driven, &v, &i);
    z = cdiv(v, i);
    num.re = z.re - z0, num.im = z.im, den.re = z.re + z0, den.im = z.im;
    g = cdiv(num, den);
    fprintf(ts.f, "%.9e %.9e %.9e\n", s->freq[k], g.re, g.im);
  }
  return hd_out_commit(&ts, err, en);
}

/* ---- far field ------------------------------------------------------------------ */

int fdtd_spectra_farfield_write(const fdtd_spectra *s, const fdtd_input *in, const long lo[3], const long hi[3],
                                const double *surface, const double *feeds, const char *prefix, char *err,
                                size_t en) {
  const hd_idx npts = hd_dft_surface_points(lo, hi, NULL, NULL);
  const int nth = s->ntheta + 1, nph = s->nphi, ndir = nth * nph;
  const double eta = sqrt(HD_FDTD_MU0 / HD_FDTD_EPS0);
  double *pos = (double *)malloc((size_t)npts * 3 * sizeof(double)), *area = (double *)malloc((size_t)npts * sizeof(double));
  double *th = (double *)malloc((size_t)ndir * sizeof(double)), *ph = (double *)malloc((size_t)ndir * sizeof(double));
  double *out = (double *)malloc((size_t)ndir * 4 * sizeof(double));
  unsigned char *face = (unsigned char *)malloc((size_t)npts);
  long *ijk = (long *)malloc((size_t)npts * 3 * sizeof(long));
  char path[4200];
  hd_out csv;
  hd_ctx host;
  hd_idx p;
  int k, d, rc = -1;
  if (!pos || !area || !th || !ph || !out || !face || !ijk) {
    snprintf(err, en, "farfield: out of host memory");
    goto done;
  }
  hd_dft_surface_points(lo, hi, face, ijk);
  for (p = 0; p < npts; ++p) { /* face centres and signed areas */
    const int a = face[p] / 2, u = (a + 1) % 3, w = (a + 2) % 3;
    const long *q = ijk + 3 * p;
    pos[a * npts + p] = in->node[a][q[a]];
    pos[u * npts + p] = 0.5 * (in->node[u][q[u]] + in->node[u][q[u] + 1]);
    pos[w * npts + p] = 0.5 * (in->node[w][q[w]] + in->node[w][q[w] + 1]);
    area[p] = (in->node[u][q[u] + 1] - in->node[u][q[u]]) * (in->node[w][q[w] + 1] - in->node[w][q[w]]) * (face[p] % 2 ? 1 : -1);
  }
  for (d = 0; d < ndir; ++d) th[d] = PI * (double)(d / nph) / s->ntheta, ph[d] = 2 * PI * (double)(d % nph) / nph;
  snprintf(path, sizeof path, "%s_farfield.csv", prefix);
  if (hd_out_open(&csv, path, err, en)) goto done;
  fprintf(csv.f, "frequency,theta_deg,phi_deg,r_e_theta_re,r_e_theta_im,r_e_phi_re,r_e_phi_im,directivity_dBi,gain_dBi\n");
  hd_ctx_init(&host, 0);
  for (k = 0; k < s->nfreq; ++k) {
    hd_ntff_args na;
    double prad = 0.0, pacc = 0.0, umax = -1.0;
    int dmax = 0, i;
    na.pos = pos, na.area = area, na.face = face, na.acc = surface + (size_t)8 * k * npts, na.npts = npts;
    na.k = 2 * PI * s->freq[k] / HD_FDTD_C0, na.eta = eta, na.theta = th, na.phi = ph, na.out = out;
    if (hd_ntff_loop(&host, &na, 0, ndir) != HD_OK) {
      snprintf(err, en, "farfield: %s", host.msg);
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
    for (i = 0; feeds && i < in->nfeed; ++i) {
      const double *x = feeds + (size_t)4 * k * in->nfeed;
      if (in->feeds[i].r >= 0) pacc += 0.5 * (x[i] * x[2 * in->nfeed + i] + x[in->nfeed + i] * x[3 * in->nfeed + i]);
    }
    for (d = 0; d < ndir; ++d) {
      const double u = (out[4 * d] * out[4 * d] + out[4 * d + 1] * out[4 * d + 1] + out[4 * d + 2] * out[4 * d + 2] +
                        out[4 * d + 3] * out[4 * d + 3]) / (2 * eta);
      fprintf(csv.f, "%.9e,%.6g,%.6g,%.9e,%.9e,%.9e,%.9e,%.6f,", s->freq[k], th[d] * 180 / PI, ph[d] * 180 / PI, out[4 * d],
              out[4 * d + 1], out[4 * d + 2], out[4 * d + 3], 10 * log10(4 * PI * u / prad));
      if (pacc > 0) fprintf(csv.f, "%.6f\n", 10 * log10(4 * PI * u / pacc));
      else fprintf(csv.f, "\n");
    }
    printf("farfield_%d: %.6g Hz: directivity %.4f dBi (%.5f) at theta %.4g phi %.4g, radiated %.6g W", k + 1, s->freq[k],
           10 * log10(4 * PI * umax / prad), 4 * PI * umax / prad, th[dmax] * 180 / PI, ph[dmax] * 180 / PI, prad);
    if (pacc > 0)
      printf(", accepted %.6g W, gain %.4f dBi, efficiency %.5f", pacc, 10 * log10(4 * PI * umax / pacc), prad / pacc);
    printf("\n");
  }
  hd_ctx_destroy(&host);
  rc = hd_out_commit(&csv, err, en);
done:
  free(pos), free(area), free(th), free(ph), free(out), free(face), free(ijk);
  return rc;
}
