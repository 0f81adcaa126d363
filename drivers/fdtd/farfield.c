/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-fdtd's far field from the Huygens box: patterns, directivity and
 * gain, radar cross-sections, and their pictures. */
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

/* The whole sphere for ParaView: PREFIX_farfield.vts, a structured grid
 * on the unit sphere (theta rows, phi closing on itself) with one array a
 * frequency (NAME_fK, the frequencies in its field data), directivity in
 * dBi or RCS in dBsm (floored 100 dB under the frequency's peak);
 * ParaView's Warp By Scalar draws the 3-D pattern. */
static int sphere_write(const fdtd_spectra *s, const double *db, int rcs, const char *prefix, char *err, size_t en) {
  const int nth = s->ntheta + 1, nph = s->nphi, np = (nph + 1) * nth;
  const int64_t dims[3] = {nph + 1, nth, 1};
  double *xyz = (double *)malloc((size_t)np * 3 * sizeof(double));
  double *val = (double *)malloc((size_t)np * s->nfar * sizeof(double));
  hd_vti_array *arr = (hd_vti_array *)calloc((size_t)s->nfar, sizeof *arr);
  char (*names)[32] = (char (*)[32])calloc((size_t)s->nfar, 32), path[4200];
  hd_vtk_meta meta;
  hd_out o;
  int it, ip, k, rc = -1;
  if (!xyz || !val || !arr || !names) {
    snprintf(err, en, "out of host memory for the far-field sphere");
    goto done;
  }
  for (it = 0; it < nth; ++it)
    for (ip = 0; ip <= nph; ++ip) {
      const double t = PI * it / s->ntheta, f = 2 * PI * (ip % nph) / nph;
      double *p = xyz + 3 * ((size_t)it * (nph + 1) + ip);
      p[0] = sin(t) * cos(f), p[1] = sin(t) * sin(f), p[2] = cos(t);
    }
  for (k = 0; k < s->nfar; ++k) {
    const double *v = db + (size_t)k * nth * nph;
    double top = -HUGE_VAL, *out = val + (size_t)k * np;
    for (it = 0; it < nth * nph; ++it) top = fmax(top, v[it]);
    for (it = 0; it < nth; ++it)
      for (ip = 0; ip <= nph; ++ip) out[it * (nph + 1) + ip] = fmax(v[it * nph + ip % nph], top - 100);
    snprintf(names[k], 32, "%s_f%d", rcs ? "rcs_dBsm" : "directivity_dBi", k + 1);
    arr[k].name = names[k], arr[k].data = out, arr[k].units = rcs ? "dBsm" : "dBi";
  }
  memset(&meta, 0, sizeof meta);
  meta.list_key = "frequency_Hz", meta.list = s->freq + s->far0, meta.nlist = s->nfar;
  snprintf(path, sizeof path, "%s_farfield.vts", prefix);
  if (hd_out_open(&o, path, err, en)) goto done;
  if (hd_vts_write(&o, dims, xyz, arr, s->nfar, &meta)) {
    snprintf(err, en, "cannot write %.900s: %s", path, hd_out_error());
    hd_out_abort(&o);
    goto done;
  }
  rc = hd_out_commit(&o, err, en);
done:
  free(xyz), free(val), free(arr), free(names);
  return rc;
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

/* Whether the ports take power at every far frequency: the pictures give gain, else directivity. */
static int feeds_accept(const fdtd_spectra *s, const fdtd_input *in, const double *feeds) {
  int k;
  for (k = 0; feeds && k < s->nfar; ++k)
    if (!(fdtd_spectra_feeds_power(s, in, feeds, s->far0 + k) > 0)) return 0;
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
      {
        const char *unit = p->map_linear ? (rcs ? "m2" : "ratio") : rcs ? "dBsm" : "dBi";
        char title[160];
        hd_png_legend lg;
        snprintf(title, sizeof title, "%s%s at %.4g Hz", rcs ? "bistatic RCS" : "directivity", part_file[part],
                 s->freq[s->far0]);
        lg.title = title, lg.units = unit, lg.extent = "theta 0 .. 180 deg down, phi 0 .. 360 deg across";
        if (!rc && (hd_png_write_map(&o, w, h, img, lo, hi, HD_PNG_SEQUENTIAL, &lg, err, en) || hd_out_commit(&o, err, en))) {
          hd_out_abort(&o);
          rc = -1;
        }
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
    pacc = fdtd_spectra_feeds_power(s, in, feeds, s->far0 + k);
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
