/* SPDX-License-Identifier: BSD-3-Clause */
/* OpenFDTD's .ofd model files as hd-fdtd keys (the input dialect
 * --input=model.ofd takes): mesh, materials, geometry, sources, boundaries,
 * frequencies, and the plot keys of its post-processor. */
#include "ofd.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hd/fdtd.h>

#include "dialect.h"

#define OFD_TOKENS 64

static char note[1024];
static int far_line; /* the plotfar line a far field was set from */

const char *fdtd_ofd_note(void) { return note; }
int fdtd_ofd_farfield_line(void) { return far_line; }

/* A line split on blanks: "key = v1 v2 ..." gives t[0] = key, t[1] = "=". */
static int split(char *s, char *t[OFD_TOKENS]) {
  int k = 0;
  char *p = strtok(s, " \t\r");
  while (p && k < OFD_TOKENS) t[k++] = p, p = strtok(NULL, " \t\r");
  return k;
}

static int num(const char *t, double *v) {
  char *end;
  *v = strtod(t, &end);
  return end != t && *end == '\0' && isfinite(*v);
}

/* The values after "=" joined by blanks. */
static void join(char *const *t, int from, int to, char *buf, size_t n) {
  int k;
  buf[0] = '\0';
  for (k = from; k < to; ++k) {
    if (k > from) strncat(buf, " ", n - strlen(buf) - 1);
    strncat(buf, t[k], n - strlen(buf) - 1);
  }
}

/* Keys that only steer OpenFDTD's plots and post-processing. */
static int post_key(const char *k) {
  static const char *const prefix[] = {"plot", "far0d", "far1d", "far2d", "near1d", "near2d", "freqdiv", "matchingloss", "window"};
  size_t i;
  for (i = 0; i < sizeof prefix / sizeof prefix[0]; ++i)
    if (!strncmp(k, prefix[i], strlen(prefix[i]))) return 1;
  return 0;
}

/* OpenFDTD's plot keys as hd's (plots.h): 1 where translated (or off),
 * 0 where hd has no such picture yet (a note), -1 out of memory. */
static int plot_key(hd_dialect_out *o, char *const *t, int nt, int line) {
  static const char *const named[][2] = {{"plotiter", "history"},    {"plotfeed", "feed-waveforms"}, {"plotpoint", "point-waveforms"},
                                         {"plotsmith", "smith"},     {"plotzin", "impedance"},       {"plotyin", "admittance"},
                                         {"plotref", "reflection"},  {"plotspara", "sparameters"},   {"plotcoupling", "coupling"},
                                         {"plotfar2d", "far2d"}};
  const char *key = t[0];
  char buf[256];
  size_t k;
  for (k = 0; k < sizeof named / sizeof named[0]; ++k)
    if (!strcmp(key, named[k][0])) /* "0" off; the frequency scales of plotzin etc. are OpenFDTD's to draw */
      return !strcmp(t[2], "0") ? 1 : hd_dialect_emit(o, line, "plot = %s", named[k][1]) ? -1 : 1;
  if (!strcmp(key, "plotfar0d") && nt >= 4) return hd_dialect_emit(o, line, "plot-far0d = %s %s", t[2], t[3]) ? -1 : 1;
  if (!strcmp(key, "plotfar1d")) {
    join(t, 2, nt < 5 ? nt : 5, buf, sizeof buf);
    return hd_dialect_emit(o, line, "plot-far1d = %s", buf) ? -1 : 1;
  }
  if ((!strcmp(key, "plotnear2d") && nt >= 5) || (!strcmp(key, "plotnear1d") && nt >= 6)) { /* "E", "Hx", ... */
    const int line1d = key[8] == '1';
    if (strlen(t[2]) > 2 || !strchr("EeHh", t[2][0]) || (t[2][1] && !strchr("XxYyZz", t[2][1])) || !strchr("XxYyZz", t[3][0]) ||
        t[3][1])
      return 0;
    return hd_dialect_emit(o, line, "%s = %c%c %c %s%s%s", line1d ? "nearline" : "nearfield", tolower((unsigned char)t[2][0]),
                t[2][1] ? tolower((unsigned char)t[2][1]) : ' ', tolower((unsigned char)t[3][0]), t[4], line1d ? " " : "",
                line1d ? t[5] : "") ? -1 : 1;
  }
  if (!strcmp(key, "near1ddb") || !strcmp(key, "near2ddb") || !strcmp(key, "near2dcontour") || !strcmp(key, "near2dobj")) {
    const char *to = key[4] == '1' ? "near1d-db" : key[6] == 'd' ? "near2d-db" : key[6] == 'c' ? "near2d-contour" : "near2d-outline";
    return hd_dialect_emit(o, line, "%s = %s", to, strcmp(t[2], "0") ? "yes" : "no") ? -1 : 1;
  }
  if ((!strcmp(key, "near1dscale") && nt >= 4) || (!strcmp(key, "near2dscale") && nt >= 4))
    return hd_dialect_emit(o, line, "%s = %s %s", key[4] == '1' ? "near1d-scale" : "near2d-scale", t[2], t[3]) ? -1 : 1;
  if (!strcmp(key, "near1dnoinc") || !strcmp(key, "near2dnoinc"))
    return hd_dialect_emit(o, line, "%s = %s", key[4] == '1' ? "near1d-noinc" : "near2d-noinc", strcmp(t[2], "0") ? "yes" : "no") ? -1 : 1;
  if (!strcmp(key, "near2dzoom") && nt >= 6) /* OpenFDTD takes either order */
    return hd_dialect_emit(o, line, "near2d-zoom = %.17g %.17g %.17g %.17g", fmin(atof(t[2]), atof(t[3])), fmax(atof(t[2]), atof(t[3])),
                fmin(atof(t[4]), atof(t[5])), fmax(atof(t[4]), atof(t[5]))) ? -1 : 1;
  if (!strcmp(key, "near2dframe")) return hd_dialect_emit(o, line, "near2d-frames = %s", t[2]) ? -1 : 1;
  if (!strcmp(key, "matchingloss")) return hd_dialect_emit(o, line, "matching-loss = %s", strcmp(t[2], "0") ? "yes" : "no") ? -1 : 1;
  if (!strcmp(key, "near2ddim") || !strcmp(key, "far2dobj") || !strcmp(key, "freqdiv"))
    return 1; /* OpenFDTD's own views: hd draws the 2-D maps always, the 3-D ones are ParaView's, its ticks its own */
  if (!strcmp(key, "far1dstyle")) return hd_dialect_emit(o, line, "far1d-style = %s", strcmp(t[2], "1") ? "polar" : "cartesian") ? -1 : 1;
  if (!strcmp(key, "far1ddb")) return hd_dialect_emit(o, line, "far1d-db = %s", strcmp(t[2], "0") ? "yes" : "no") ? -1 : 1;
  if (!strcmp(key, "far1dnorm")) return hd_dialect_emit(o, line, "far1d-normalize = %s", strcmp(t[2], "0") ? "yes" : "no") ? -1 : 1;
  if (!strcmp(key, "far1dscale") && nt >= 4) return hd_dialect_emit(o, line, "far1d-scale = %s %s", t[2], t[3]) ? -1 : 1;
  if (!strcmp(key, "far1dcomponent") && nt >= 5) { /* pages of |E| with E_theta, E_phi; major, minor; RHCP, LHCP */
    static const char *const page[3] = {"theta,phi", "major,minor", "rhcp,lhcp"};
    int c;
    strcpy(buf, "total");
    for (c = 0; c < 3; ++c)
      if (strcmp(t[2 + c], "0")) strcat(strcat(buf, ","), page[c]);
    return hd_dialect_emit(o, line, "far1d-component = %s", buf) ? -1 : 1;
  }
  if (!strcmp(key, "far2dcomponent") && nt >= 9) { /* |E|, E_theta, E_phi, major, minor, RHCP, LHCP */
    static const char *const part[7] = {"total", "theta", "phi", "major", "minor", "rhcp", "lhcp"};
    int c;
    buf[0] = '\0';
    for (c = 0; c < 7; ++c)
      if (strcmp(t[2 + c], "0")) strcat(strcat(buf, buf[0] ? "," : ""), part[c]);
    return !buf[0] || !hd_dialect_emit(o, line, "far2d-component = %s", buf) ? 1 : -1;
  }
  if (!strcmp(key, "far2ddb")) return hd_dialect_emit(o, line, "far2d-db = %s", strcmp(t[2], "0") ? "yes" : "no") ? -1 : 1;
  if (!strcmp(key, "far2dscale") && nt >= 4) return hd_dialect_emit(o, line, "far2d-scale = %s %s", t[2], t[3]) ? -1 : 1;
  return 0;
}

void fdtd_ofd_add_note(const char *key, int line) { hd_dialect_note(note, sizeof note, key, line); }

/* What other lines depend on, collected by a first pass: the feed
 * resistance, waveform, pulse width, frequencies, and the lines that ask
 * for a far field. */
typedef struct ofd_scan {
  double rfeed, tw, f1[3], f2[3], z0;
  int wf, version, nfeed, solver, f2line, far[3], pwline, npoint, far0d;
} ofd_scan;

#define OFD_FAIL (-1) /* the message in err */
#define OFD_OOM (-2)

static int scan_line(ofd_scan *sc, char *const *t, int nt, int lineno, const char *path, char *err, size_t n) {
  const char *key = t[0];
  double v;
  if (!strcmp(key, "rfeed") && num(t[2], &v)) sc->rfeed = v;
  else if (!strcmp(key, "waveform")) sc->wf = atoi(t[2]);
  else if (!strcmp(key, "pulsewidth") && num(t[2], &v)) sc->tw = v;
  else if ((!strcmp(key, "frequency1") || !strcmp(key, "frequency2")) && nt >= 5) {
    double *f = key[9] == '1' ? sc->f1 : sc->f2;
    if (f == sc->f2) sc->f2line = lineno;
    if (!num(t[2], &f[0]) || !num(t[3], &f[1]) || !num(t[4], &f[2]) || !(f[0] > 0) || f[1] < f[0] || f[2] < 0 ||
        f[2] != floor(f[2]))
      return snprintf(err, n, "%s:%d: %s: expected 'F0 F1 DIV' (0 < F0 <= F1, DIV >= 0)", path, lineno, key), OFD_FAIL;
  } else if (!strcmp(key, "feed") && nt >= 9 && num(t[8], &v)) {
    if (sc->z0 >= 0 && v != sc->z0)
      return snprintf(err, n, "%s:%d: feed: reference impedances differ between feeds (hd takes one z0)", path, lineno),
             OFD_FAIL;
    sc->z0 = v, ++sc->nfeed;
  } else if (!strcmp(key, "solver")) {
    sc->solver = 1;
  } else if (!strcmp(key, "planewave")) {
    sc->pwline = lineno;
  } else if (!strcmp(key, "point")) {
    ++sc->npoint;
  } else if (!strcmp(key, "plotfar0d") && nt >= 4) {
    sc->far0d = lineno;
  } else if ((!strcmp(key, "plotfar2d") && nt >= 4) || (!strcmp(key, "plotfar1d") && nt >= 4 && !sc->far[2])) {
    const int two = key[7] == '2'; /* the sphere's divisions; a 1-D cut's become theta and phi steps */
    sc->far[0] = two ? atoi(t[2]) : atoi(t[3]) / 2, sc->far[1] = atoi(t[3]), sc->far[2] = lineno;
  }
  return 0;
}

/* material: 'epsr sigma mur sigmam', or from 2.2 '1 epsr ...' and the
 * dispersive '2 einf ae be ce'. */
static int material_line(hd_dialect_out *o, const ofd_scan *sc, char *const *t, int nt, int lineno, const char *path, char *err,
                         size_t n) {
  const int first = sc->version < 22 ? 2 : 3, type = sc->version < 22 ? 1 : atoi(t[2]);
  double v[5];
  int k;
  if (nt < first + 4 || (type != 1 && type != 2))
    return snprintf(err, n, "%s:%d: material: expected %s", path, lineno,
                    sc->version < 22 ? "'epsr sigma mur sigmam'" : "'1 epsr sigma mur sigmam' or '2 einf ae be ce'"),
           OFD_FAIL;
  for (k = 0; k < 4; ++k)
    if (!num(t[first + k], &v[k]))
      return snprintf(err, n, "%s:%d: material: '%s' is not a number", path, lineno, t[first + k]), OFD_FAIL;
  if (type == 1)
    return hd_dialect_emit(o, lineno, "material = %s %s %s %s", t[first], t[first + 1], t[first + 2], t[first + 3]) ? OFD_OOM : 0;
  { /* eps(w) = einf + ae/(jw) + be/(ce + jw): a conductivity and a Debye pole, or a Drude pole (be = -ae) */
    const double einf = v[0], ae = v[1], be = v[2], ce = v[3], two_pi = 6.283185307179586;
    if (ae > 0 && ce > 0 && fabs(be + ae) <= 1e-12 * ae)
      return hd_dialect_emit(o, lineno, "material = %.17g 0 1 0 drude %.17g %.17g", einf, sqrt(ae * ce) / two_pi, ce) ? OFD_OOM : 0;
    if (ae >= 0 && be >= 0 && ce > 0)
      return hd_dialect_emit(o, lineno, "material = %.17g %.17g 1 0 debye %.17g %.17g", einf, HD_FDTD_EPS0 * ae, be / ce, 1.0 / ce)
                 ? OFD_OOM
                 : 0;
  }
  return snprintf(err, n, "%s:%d: material: a dispersive material needs ae, be >= 0 and ce > 0, or the Drude form be = -ae",
                  path, lineno),
         OFD_FAIL;
}

/* The sources and boundaries: feed, point, planewave, abc, pbc, solver. */
static int source_line(hd_dialect_out *o, const ofd_scan *sc, char *const *t, int nt, int lineno, const char *path, char *err,
                       size_t n) {
  const char *key = t[0];
  double v, d;
  int a;
  if (!strcmp(key, "feed")) {
    if (nt < 9 || !num(t[6], &v) || !num(t[7], &d))
      return snprintf(err, n, "%s:%d: feed: expected 'X|Y|Z x y z volts delay z0'", path, lineno), OFD_FAIL;
    if (d < 0) return snprintf(err, n, "%s:%d: feed: the delay must be >= 0", path, lineno), OFD_FAIL;
    /* OpenFDTD's Gaussian derivative has the opposite sign of hd's */
    return hd_dialect_emit(o, lineno, "feed = %s %s %s %s %.17g %.17g %s", t[2], t[3], t[4], t[5], sc->wf == 0 ? -v : v, sc->rfeed,
                t[7]) ? OFD_OOM : 0;
  }
  if (!strcmp(key, "point")) {
    if (nt < 6) return snprintf(err, n, "%s:%d: point: expected 'X|Y|Z x y z'", path, lineno), OFD_FAIL;
    return hd_dialect_emit(o, lineno, "point = %s %s %s %s%s%s", t[2], t[3], t[4], t[5], nt > 6 ? " " : "", nt > 6 ? t[6] : "")
               ? OFD_OOM
               : 0;
  }
  if (!strcmp(key, "planewave")) {
    if (nt < 5 || (strcmp(t[4], "1") && strcmp(t[4], "2")))
      return snprintf(err, n, "%s:%d: planewave: expected 'theta phi 1|2'", path, lineno), OFD_FAIL;
    return hd_dialect_emit(o, lineno, "planewave = %s %s %s", t[2], t[3], t[4][0] == '1' ? "V" : "H") ||
                   hd_dialect_emit(o, lineno, "planewave-form = sf-closed")
               ? OFD_OOM
               : 0;
  }
  if (!strcmp(key, "abc")) {
    if (!strcmp(t[2], "0")) return hd_dialect_emit(o, lineno, "boundary = mur") ? OFD_OOM : 0;
    if (!strcmp(t[2], "1") && nt >= 6)
      return hd_dialect_emit(o, lineno, "boundary = pml") || hd_dialect_emit(o, lineno, "pml = %s,%s,%s", t[3], t[4], t[5]) ? OFD_OOM : 0;
    return snprintf(err, n, "%s:%d: abc: expected '0' (Mur) or '1 L M R0' (PML)", path, lineno), OFD_FAIL;
  }
  if (!strcmp(key, "pbc")) {
    if (nt < 5) return snprintf(err, n, "%s:%d: pbc: expected '0|1 0|1 0|1'", path, lineno), OFD_FAIL;
    for (a = 0; a < 3; ++a)
      if (!strcmp(t[2 + a], "1") && hd_dialect_emit(o, lineno, "boundary-%c = periodic", 'x' + a)) return OFD_OOM;
    return 0;
  }
  /* solver */
  if (nt < 5) return snprintf(err, n, "%s:%d: solver: expected 'steps output-interval convergence'", path, lineno), OFD_FAIL;
  return hd_dialect_emit(o, lineno, "steps = %s", t[2]) || hd_dialect_emit(o, lineno, "average-every = %s", t[3]) ||
                 hd_dialect_emit(o, lineno, "converge = %s", t[4])
             ? OFD_OOM
             : 0;
}

/* A line of the second pass: its hd keys. */
static int key_line(hd_dialect_out *o, const ofd_scan *sc, char *const *t, int nt, int lineno, const char *path, char *err,
                    size_t n) {
  const char *key = t[0];
  char buf[2048];
  double v;
  if (!strcmp(key, "title") || !strcmp(key, "name") || !strcmp(key, "rfeed") || !strcmp(key, "pulsewidth") ||
      !strcmp(key, "waveform") || !strcmp(key, "frequency1") || !strcmp(key, "frequency2"))
    return 0; /* used in the first pass, or names only */
  if (!strcmp(key, "xmesh") || !strcmp(key, "ymesh") || !strcmp(key, "zmesh") || !strcmp(key, "load")) {
    join(t, 2, nt, buf, sizeof buf);
    return hd_dialect_emit(o, lineno, "%s = %s", key, buf) ? OFD_OOM : 0;
  }
  if (!strcmp(key, "material")) return material_line(o, sc, t, nt, lineno, path, err, n);
  if (!strcmp(key, "geometry")) {
    int shape, want;
    if (nt < 4) return snprintf(err, n, "%s:%d: geometry: expected 'MATERIAL SHAPE COORDINATES'", path, lineno), OFD_FAIL;
    shape = atoi(t[3]), want = shape == 1 || shape == 2 || (shape >= 11 && shape <= 13) ? 6 : 8;
    join(t, 2, nt < 4 + want ? nt : 4 + want, buf, sizeof buf); /* OpenFDTD ignores what follows */
    return hd_dialect_emit(o, lineno, "geometry = %s", buf) ? OFD_OOM : 0;
  }
  if (!strcmp(key, "feed") || !strcmp(key, "point") || !strcmp(key, "planewave") || !strcmp(key, "abc") ||
      !strcmp(key, "pbc") || !strcmp(key, "solver"))
    return source_line(o, sc, t, nt, lineno, path, err, n);
  if (!strcmp(key, "timestep")) return num(t[2], &v) && v > 0 && hd_dialect_emit(o, lineno, "timestep = %s", t[2]) ? OFD_OOM : 0;
  if (post_key(key)) {
    const int r = plot_key(o, t, nt, lineno);
    if (r < 0) return OFD_OOM;
    if (!r && lineno != sc->far[2]) fdtd_ofd_add_note(key, lineno);
    return 0;
  }
  return snprintf(err, n, "%s:%d: unknown OpenFDTD key '%s'", path, lineno, key), OFD_FAIL;
}

/* After the lines: frequency1 for the feeds and points, frequency2 for the
 * far field, maps and cross-sections; the pulse from frequency1 where
 * given (OpenFDTD's rules); OpenFDTD's defaults and conventions. */
static int closing_keys(hd_dialect_out *o, ofd_scan *sc, const char *path, char *err, size_t n) {
  const int ports = sc->f1[2] >= 0 && (sc->nfeed || sc->npoint || sc->f2[2] < 0);
  const double *f = ports ? sc->f1 : sc->f2, *f2 = sc->f2;
  int *far = sc->far;
  if (f[2] >= 0 && (f[2] > 0 ? hd_dialect_emit(o, 1, "frequencies = %.17g %.17g %.0f", f[0], f[1], f[2] + 1)
                             : hd_dialect_emit(o, 1, "frequencies = %.17g", f[0])))
    return OFD_OOM;
  if (ports && f2[2] >= 0 && (sc->f1[0] != f2[0] || sc->f1[1] != f2[1] || sc->f1[2] != f2[2]) &&
      (f2[2] > 0 ? hd_dialect_emit(o, sc->f2line, "farfield-frequencies = %.17g %.17g %.0f", f2[0], f2[1], f2[2] + 1)
                 : hd_dialect_emit(o, sc->f2line, "farfield-frequencies = %.17g", f2[0])))
    return OFD_OOM;
  if (!(sc->tw > 0) && sc->f1[2] >= 0) sc->tw = 1.27 / (0.5 * (sc->f1[0] + sc->f1[1]));
  if (!(sc->tw > 0) && f[2] >= 0) sc->tw = 1.27 / (0.5 * (f[0] + f[1]));
  if (!(sc->tw > 0))
    return snprintf(err, n, "%s: give frequency1, frequency2 or pulsewidth: the pulse is set from them", path), OFD_FAIL;
  /* OpenFDTD's pulse exp(-((t - tw)/(tw/4))^2) is hd's with tau = tw/4 = 1/(pi F) */
  if (hd_dialect_emit(o, 1, "frequency = %.17g", 4.0 / (3.14159265358979323846 * sc->tw)) ||
      hd_dialect_emit(o, 1, "waveform = %s", sc->wf == 0 ? "dgaussian" : "gaussian"))
    return OFD_OOM;
  if (sc->nfeed && sc->z0 > 0 && hd_dialect_emit(o, 1, "z0 = %.17g", sc->z0)) return OFD_OOM;
  /* OpenFDTD's step is the Courant limit itself, its fields single
   * precision, its Mur acts on H outside the faces, its feeds off
   * conductors are released after the pulse, its interfaces staircased */
  if (hd_dialect_emit(o, 1, "courant = 1") || hd_dialect_emit(o, 1, "precision = single") || hd_dialect_emit(o, 1, "mur = h") || hd_dialect_emit(o, 1, "subpixel = no") ||
      (sc->nfeed && hd_dialect_emit(o, 1, "feed-release = yes")))
    return OFD_OOM;
  if (!sc->solver && (hd_dialect_emit(o, 1, "steps = 3000") || hd_dialect_emit(o, 1, "average-every = 50") || hd_dialect_emit(o, 1, "converge = 1e-3")))
    return OFD_OOM; /* OpenFDTD's defaults */
  if (!far[2] && (sc->pwline || sc->far0d)) /* a plane wave's cross-sections and a direction's gain need the far field */
    far[0] = 18, far[1] = 36, far[2] = sc->far0d ? sc->far0d : sc->pwline;
  if (far[2] && f[2] >= 0) { /* the far field at the run's frequencies, from the faces as OpenFDTD */
    if (hd_dialect_emit(o, far[2], "farfield = %d %d", far[0], far[1]) || hd_dialect_emit(o, far[2], "huygens-margin = 0")) return OFD_OOM;
    far_line = far[2];
  }
  return 0;
}

/* The whole file in two passes: the first collects what other lines
 * depend on (ofd_scan), the second writes the keys. */
static int translate(const char *path, const char *text, char **out, int **lines, char *err, size_t n) {
  hd_dialect_out o;
  ofd_scan sc;
  char *copy = (char *)malloc(strlen(text) + 1), *line, *t[OFD_TOKENS];
  int pass, lineno, rc = 0;
  memset(&o, 0, sizeof o);
  memset(&sc, 0, sizeof sc);
  sc.f1[2] = sc.f2[2] = sc.z0 = -1;
  note[0] = '\0';
  far_line = 0;
  if (!copy) return snprintf(err, n, "%s: out of memory", path), -1;
  for (pass = 0; pass < 2 && !rc; ++pass) {
    char *next;
    strcpy(copy, text);
    for (line = copy, lineno = 1; line && !rc; line = next, ++lineno) {
      int nt;
      next = strchr(line, '\n');
      if (next) *next++ = '\0';
      if (line[0] == '#' || !(nt = split(line, t))) continue;
      if (lineno == 1) { /* "OpenFDTD 4 2" */
        if (nt < 3 || !isdigit((unsigned char)t[1][0]) || !isdigit((unsigned char)t[2][0]))
          rc = (snprintf(err, n, "%s:1: expected 'OpenFDTD MAJOR MINOR'", path), OFD_FAIL);
        else
          sc.version = 10 * atoi(t[1]) + atoi(t[2]);
        continue;
      }
      if (!strcmp(t[0], "end")) break;
      if (nt < 3 || strcmp(t[1], "=")) rc = (snprintf(err, n, "%s:%d: expected 'key = value'", path, lineno), OFD_FAIL);
      else rc = pass == 0 ? scan_line(&sc, t, nt, lineno, path, err, n) : key_line(&o, &sc, t, nt, lineno, path, err, n);
    }
    if (!rc && pass == 0 && lineno < 2) rc = (snprintf(err, n, "%s: empty model", path), OFD_FAIL);
  }
  if (!rc) rc = closing_keys(&o, &sc, path, err, n);
  free(copy);
  if (rc == OFD_OOM) snprintf(err, n, "%s: out of memory", path);
  if (rc) return free(o.text), free(o.line), -1;
  *out = o.text, *lines = o.line;
  return 0;
}

const cli_dialect fdtd_ofd_dialect = {"OpenFDTD", translate};
