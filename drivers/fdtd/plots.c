/* SPDX-License-Identifier: BSD-3-Clause */
#include "plots.h"
#include "cli.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

static const double PI = 3.14159265358979323846;

void fdtd_plots_defaults(fdtd_plots *p) {
  memset(p, 0, sizeof *p);
  p->component[0] = p->map_component[0] = 1, p->db = 1;
}

static const char *const comp_names[6] = {"ex", "ey", "ez", "hx", "hy", "hz"};

int fdtd_slice_parse(const fdtd_input *in, const char *text, fdtd_slice *sl, char *err, size_t n) {
  char s[128], *w[3], *name, *ax;
  double pos;
  int c;
  snprintf(s, sizeof s, "%s", text); /* "ez,z,0" too */
  if (cli_words(s, w, 3) != 3 || !cli_finite(w[2], &pos)) {
    snprintf(err, n, "slice: expected 'ex|ey|ez|hx|hy|hz x|y|z position', not '%.100s'", text);
    return -1;
  }
  name = w[0], ax = w[1];
  for (sl->comp = -1, c = 0; c < 6; ++c)
    if (!strcmp(name, comp_names[c])) sl->comp = c;
  sl->axis = !strcmp(ax, "x") ? 0 : !strcmp(ax, "y") ? 1 : !strcmp(ax, "z") ? 2 : -1;
  if (sl->comp < 0 || sl->axis < 0) {
    snprintf(err, n, "slice: expected 'ex|ey|ez|hx|hy|hz x|y|z position'");
    return -1;
  }
  if (pos < in->node[sl->axis][0] || pos > in->node[sl->axis][in->n[sl->axis]]) {
    snprintf(err, n, "slice: %g is outside the domain along %s", pos, ax);
    return -1;
  }
  for (sl->layer = 0; sl->layer < in->n[sl->axis] - 1 && in->node[sl->axis][sl->layer + 1] <= pos; ++sl->layer) {
  }
  return 0;
}

int fdtd_map_parse(const fdtd_input *in, const char *text, int line, fdtd_map *m, fdtd_slice *planes, int *nplane,
                   char *err, size_t n) {
  const char *key = line ? "nearline" : "nearfield";
  char s[128], one[160], *w[4], *name, *ax;
  double pos[2];
  int k, axis;
  snprintf(s, sizeof s, "%s", text);
  memset(m, 0, sizeof *m);
  if (cli_words(s, w, 4) != 3 + line || !cli_finite(w[2], &pos[0]) || (line && !cli_finite(w[3], &pos[1])) ||
      strlen(w[1]) != 1 || !strchr("xyz", w[1][0])) {
    snprintf(err, n, "%s: expected 'ex|ey|ez|hx|hy|hz|e|h x|y|z %s'", key, line ? "P1 P2" : "POS");
    return -1;
  }
  name = w[0], ax = w[1];
  axis = ax[0] - 'x';
  m->field = !strcmp(name, "e") ? 0 : !strcmp(name, "h") ? 1 : -1;
  m->count = m->field < 0 ? 1 : 3, m->first = *nplane;
  if (*nplane + m->count > FDTD_MAX_PLANES) {
    snprintf(err, n, "%s: at most %d planes in all (|E| and |H| take three)", key, FDTD_MAX_PLANES);
    return -1;
  }
  if (line) { /* the plane normal to the second axis after AXIS, the row at P1 on the first */
    const int a1 = (axis + 1) % 3, a2 = (axis + 2) % 3;
    long row;
    if (pos[0] < in->node[a1][0] || pos[0] > in->node[a1][in->n[a1]]) {
      snprintf(err, n, "%s: %g is outside the domain along %c", key, pos[0], 'x' + a1);
      return -1;
    }
    for (row = 0; row < in->n[a1] - 1 && in->node[a1][row + 1] <= pos[0]; ++row) {
    }
    m->line = 1, m->line_axis = axis, m->line_row = row;
    axis = a2, pos[0] = pos[1];
  }
  for (k = 0; k < m->count; ++k) {
    snprintf(one, sizeof one, "%s %c %.17g", m->field < 0 ? name : comp_names[3 * m->field + k], 'x' + axis, pos[0]);
    if (fdtd_slice_parse(in, one, &planes[*nplane + k], err, n)) {
      char msg[512];
      snprintf(msg, sizeof msg, "%s", err + strlen("slice"));
      if (strstr(msg, "expected")) snprintf(msg, sizeof msg, ": expected 'ex|ey|ez|hx|hy|hz|e|h x|y|z %s'", line ? "P1 P2" : "POS");
      snprintf(err, n, "%s%s", key, msg);
      return -1;
    }
  }
  *nplane += m->count;
  return 0;
}

void fdtd_plot_keys_defaults(fdtd_plot_keys *k) {
  memset(k, 0, sizeof *k);
  k->db = k->far2d_db = 1;
}

void fdtd_plot_keys_free(fdtd_plot_keys *k) {
  cli_list_free(&k->plot);
  cli_list_free(&k->far1d);
}

static int numbers(const char *text, double *v, int max) {
  int k = 0;
  char *end;
  const char *s = text;
  for (;;) {
    while (*s == ' ' || *s == ',' || *s == '\t') ++s;
    if (!*s) return k;
    if (k == max) return -1;
    v[k] = strtod(s, &end);
    if (end == s || !isfinite(v[k])) return -1;
    ++k, s = end;
  }
}

/* "file:line: " or "command line: " of an option the user gave. */
static void where(cli_opt *opts, const char *name, const char *input, char *buf, size_t n) {
  const cli_opt *o = cli_find(opts, name);
  if (o && o->seen == 1) snprintf(buf, n, "%.900s:%d", input, o->line);
  else snprintf(buf, n, "command line");
}

static int led(int rc, const char *at, char *err, size_t n) {
  char msg[1024];
  if (rc) {
    snprintf(msg, sizeof msg, "%s", err);
    snprintf(err, n, "%s: %s", at, msg);
  }
  return rc;
}

int fdtd_plots_parse(fdtd_plots *p, const fdtd_plot_keys *k, cli_opt *opts, const char *input, char *err, size_t n) {
  char at[1024];
  int i;
  fdtd_plots_defaults(p);
  p->cartesian = k->style, p->db = k->db, p->normalize = k->normalize;
  p->line_db = k->line_db, p->map_db = k->map_db, p->contour = k->contour, p->outline = k->outline;
  p->line_noinc = k->line_noinc, p->map_noinc = k->map_noinc;
  p->frames = (int)k->frames;
  where(opts, "near2d-zoom", input, at, sizeof at);
  if (k->zoom[0]) {
    double v[4];
    if (numbers(k->zoom, v, 4) != 4 || !(v[0] < v[1]) || !(v[2] < v[3]))
      return snprintf(err, n, "%s: near2d-zoom: expected 'U0 U1 V0 V1' with U0 < U1, V0 < V1, not '%.60s'", at, k->zoom), -1;
    p->zoom = 1, p->zoom_u[0] = v[0], p->zoom_u[1] = v[1], p->zoom_v[0] = v[2], p->zoom_v[1] = v[3];
  }
  for (i = 0; i < k->plot.count; ++i)
    if (led(fdtd_plots_names(p, k->plot.value[i], err, n), k->plot.where[i], err, n)) return -1;
  for (i = 0; i < k->far1d.count; ++i)
    if (led(fdtd_plots_cut(p, k->far1d.value[i], err, n), k->far1d.where[i], err, n)) return -1;
  where(opts, "plot-far0d", input, at, sizeof at);
  if (k->far0d[0] && led(fdtd_plots_far0d(p, k->far0d, err, n), at, err, n)) return -1;
  p->map_linear = !k->far2d_db;
  where(opts, "far1d-component", input, at, sizeof at);
  if (k->component[0] && led(fdtd_plots_parts(p->component, "far1d-component", k->component, err, n), at, err, n)) return -1;
  where(opts, "far2d-component", input, at, sizeof at);
  if (k->map_component[0] && led(fdtd_plots_parts(p->map_component, "far2d-component", k->map_component, err, n), at, err, n))
    return -1;
  where(opts, "far1d-scale", input, at, sizeof at);
  if (k->scale[0] && led(fdtd_plots_range(&p->lo, &p->hi, "far1d-scale", k->scale, err, n), at, err, n)) return -1;
  where(opts, "near1d-scale", input, at, sizeof at);
  if (k->line_scale[0] && led(fdtd_plots_range(&p->line_lo, &p->line_hi, "near1d-scale", k->line_scale, err, n), at, err, n))
    return -1;
  where(opts, "near2d-scale", input, at, sizeof at);
  if (k->near_scale[0] && led(fdtd_plots_range(&p->map_lo2, &p->map_hi2, "near2d-scale", k->near_scale, err, n), at, err, n))
    return -1;
  where(opts, "far2d-scale", input, at, sizeof at);
  if (k->map_scale[0] && led(fdtd_plots_range(&p->map_lo, &p->map_hi, "far2d-scale", k->map_scale, err, n), at, err, n))
    return -1;
  return 0;
}

int fdtd_plots_names(fdtd_plots *p, const char *text, char *err, size_t n) {
  static const char *const names[] = {"history", "feed-waveforms", "point-waveforms", "smith", "impedance",
                                      "admittance", "reflection", "sparameters", "coupling", "far2d"};
  const char *s = text;
  while (*s) {
    size_t len, k;
    while (*s == ' ' || *s == ',' || *s == '\t') ++s;
    if (!*s) break;
    for (len = 0; s[len] && s[len] != ' ' && s[len] != ',' && s[len] != '\t'; ++len) {}
    for (k = 0; k < sizeof names / sizeof names[0]; ++k)
      if (strlen(names[k]) == len && !strncmp(s, names[k], len)) break;
    if (k == sizeof names / sizeof names[0]) {
      snprintf(err, n, "plot: '%.*s' is none of " FDTD_PLOT_NAMES_DOC, (int)(len < 40 ? len : 40), s);
      return -1;
    }
    p->want |= 1u << k;
    s += len;
  }
  return 0;
}

int fdtd_plots_far0d(fdtd_plots *p, const char *text, char *err, size_t n) {
  double v[2];
  if (numbers(text, v, 2) != 2 || v[0] < 0 || v[0] > 180) {
    snprintf(err, n, "plot-far0d: expected 'THETA PHI' in degrees (0 <= THETA <= 180), not '%.60s'", text);
    return -1;
  }
  p->far0d = 1, p->far0d_theta = v[0], p->far0d_phi = v[1];
  return 0;
}

int fdtd_plots_cut(fdtd_plots *p, const char *text, char *err, size_t n) {
  const char plane = (char)toupper((unsigned char)text[0]);
  double v[2];
  const int nv = strchr("XYZVH", plane) && plane && (text[1] == ' ' || text[1] == '\t') ? numbers(text + 1, v, 2) : -1;
  const int need = plane == 'V' || plane == 'H' ? 2 : 1;
  if (nv != need || v[0] < 4 || v[0] > 36000 || v[0] != floor(v[0])) {
    snprintf(err, n, "plot-far1d: expected 'X|Y|Z DIV' or 'V|H DIV ANGLE' (4 <= DIV <= 36000), not '%.60s'", text);
    return -1;
  }
  if (p->ncut == FDTD_MAX_CUTS) {
    snprintf(err, n, "plot-far1d: at most %d cuts", FDTD_MAX_CUTS);
    return -1;
  }
  p->cut[p->ncut].plane = plane, p->cut[p->ncut].div = (int)v[0], p->cut[p->ncut].angle = need == 2 ? v[1] : 0;
  ++p->ncut;
  return 0;
}

int fdtd_plots_parts(int part[FDTD_FAR_PARTS], const char *key, const char *text, char *err, size_t n) {
  static const char *const names[FDTD_FAR_PARTS] = {"total", "theta", "phi", "major", "minor", "rhcp", "lhcp"};
  const char *s = text;
  int k, any = 0;
  memset(part, 0, FDTD_FAR_PARTS * sizeof *part);
  while (*s) {
    size_t len;
    while (*s == ' ' || *s == ',') ++s;
    if (!*s) break;
    for (len = 0; s[len] && s[len] != ' ' && s[len] != ','; ++len) {}
    for (k = 0; k < FDTD_FAR_PARTS && !(strlen(names[k]) == len && !strncmp(s, names[k], len)); ++k) {}
    if (k == FDTD_FAR_PARTS) {
      snprintf(err, n, "%s: '%.*s' is none of " FDTD_FAR_PARTS_DOC, key, (int)(len < 40 ? len : 40), s);
      return -1;
    }
    part[k] = any = 1, s += len;
  }
  if (!any) {
    snprintf(err, n, "%s: name at least one of " FDTD_FAR_PARTS_DOC, key);
    return -1;
  }
  return 0;
}

int fdtd_plots_range(double *lo, double *hi, const char *key, const char *text, char *err, size_t n) {
  double v[2];
  if (numbers(text, v, 2) != 2 || !(v[0] < v[1])) {
    snprintf(err, n, "%s: expected 'MIN MAX' with MIN < MAX, not '%.60s'", key, text);
    return -1;
  }
  *lo = v[0], *hi = v[1];
  return 0;
}

void fdtd_plots_far_parts(const double e[4], double part[FDTD_FAR_PARTS]) {
  const double rr = (e[0] - e[3]) * (e[0] - e[3]) + (e[1] + e[2]) * (e[1] + e[2]); /* 2 |E_R|^2 */
  const double ll = (e[0] + e[3]) * (e[0] + e[3]) + (e[1] - e[2]) * (e[1] - e[2]); /* 2 |E_L|^2 */
  const double r = sqrt(0.5 * rr), l = sqrt(0.5 * ll);
  part[1] = e[0] * e[0] + e[1] * e[1], part[2] = e[2] * e[2] + e[3] * e[3], part[0] = part[1] + part[2];
  part[3] = 0.5 * (r + l) * (r + l), part[4] = 0.5 * (r - l) * (r - l); /* the ellipse's semi-axes (|E_R| +- |E_L|) / sqrt 2 */
  part[5] = 0.5 * rr, part[6] = 0.5 * ll;
}

void fdtd_plots_cut_direction(const fdtd_cut *c, int i, double *theta, double *phi) {
  const double a = 360.0 * i / c->div;
  double t = a, f = 0;
  switch (c->plane) {
  case 'X': f = 90; break;
  case 'Y': f = 0; break;
  case 'Z': t = 90, f = a; break;
  case 'V': f = c->angle; break;
  default: t = c->angle, f = a; break; /* H */
  }
  *theta = t * PI / 180, *phi = f * PI / 180;
}

/* ---- writing ------------------------------------------------------------------- */

static int write_csv(const char *prefix, const char *suffix, const char *xname, const char *yname, const hd_plot_curve *c,
                     int nc, char *err, size_t en) {
  char path[4200];
  hd_out o;
  snprintf(path, sizeof path, "%s%.*s.csv", prefix, (int)(strlen(suffix) - 4), suffix); /* suffix ends in .png */
  if (hd_out_open(&o, path, err, en)) return -1;
  if (hd_plot_csv(&o, xname, yname, c, nc)) {
    snprintf(err, en, "cannot write %.900s: %s", path, hd_out_error());
    hd_out_abort(&o);
    return -1;
  }
  if (hd_out_commit(&o, err, en)) return -1;
  printf("plot: %s%s\n", path, HD_PNG_BUILT ? "" : " (no picture: " HD_NO_PNG ")");
  return 0;
}

enum { LINES, POLAR, SMITH };

static int draw(int kind, const char *prefix, const char *suffix, const char *title, const char *xlabel, const char *ylabel,
                const hd_plot_curve *c, int nc, double top, double range, double step, char *err, size_t en) {
  char path[4200];
  const hd_plot_curve *panel[1];
  const char *names[1];
  hd_out o;
  int rc;
  if (!nc) return 0;
  if (write_csv(prefix, suffix, kind == SMITH ? "gamma_re" : xlabel, kind == SMITH ? "gamma_im" : ylabel, c, nc, err, en))
    return -1;
  if (!HD_PNG_BUILT) return 0;
  snprintf(path, sizeof path, "%s%s", prefix, suffix);
  if (hd_out_open(&o, path, err, en)) return -1;
  panel[0] = c, names[0] = xlabel;
  rc = kind == LINES   ? hd_plot_lines(&o, title, xlabel, ylabel, c, nc, top, range, err, en)
       : kind == POLAR ? hd_plot_polar(&o, title, names, panel, &nc, 1, top, range, step, err, en)
                       : hd_plot_smith(&o, title, c, nc, err, en);
  if (rc) {
    hd_out_abort(&o);
    return -1;
  }
  if (hd_out_commit(&o, err, en)) return -1;
  printf("plot: %s\n", path);
  return 0;
}

int fdtd_plots_lines(const char *prefix, const char *suffix, const char *title, const char *xlabel, const char *ylabel,
                     const hd_plot_curve *c, int nc, char *err, size_t en) {
  return draw(LINES, prefix, suffix, title, xlabel, ylabel, c, nc, 0, 0, 0, err, en);
}

int fdtd_plots_lines_in(const char *prefix, const char *suffix, const char *title, const char *xlabel, const char *ylabel,
                        const hd_plot_curve *c, int nc, double lo, double hi, char *err, size_t en) {
  return draw(LINES, prefix, suffix, title, xlabel, ylabel, c, nc, lo, hi, 0, err, en);
}

int fdtd_plots_polar(const char *prefix, const char *suffix, const char *title, const char *panel, const hd_plot_curve *c,
                     int nc, double top, double range, double step, char *err, size_t en) {
  return draw(POLAR, prefix, suffix, title, panel, "", c, nc, top, range, step, err, en);
}

int fdtd_plots_smith(const char *prefix, const hd_plot_curve *c, int nc, char *err, size_t en) {
  return draw(SMITH, prefix, "_smith.png", "SMITH CHART", "", "", c, nc, 0, 0, 0, err, en);
}

/* ---- the series the run wrote -------------------------------------------------- */

typedef struct table {
  double *v;
  long rows;
  int cols;
} table;

/* A CSV of one header line and rows of numbers. */
static int read_table(const char *path, table *t, char *err, size_t en) {
  FILE *f = fopen(path, "r");
  char *line = NULL;
  size_t cap = 0, have = 0;
  int c, oom = 0;
  memset(t, 0, sizeof *t);
  if (!f) return snprintf(err, en, "cannot read %.900s back for its picture", path), -1;
  if (getline(&line, &cap, f) > 0)
    for (t->cols = 1, c = 0; line[c]; ++c) t->cols += line[c] == ',';
  while (getline(&line, &cap, f) > 0) {
    char *s = line, *end;
    if ((size_t)(t->rows + 1) * t->cols > have) {
      double *v = (double *)realloc(t->v, (have = 2 * have + 1024 * (size_t)t->cols) * sizeof(double));
      if (!v) {
        oom = 1;
        break;
      }
      t->v = v;
    }
    for (c = 0; c < t->cols; ++c, s = end + (*end == ',')) {
      t->v[t->rows * t->cols + c] = strtod(s, &end);
      if (end == s) break;
    }
    if (c == t->cols) ++t->rows;
  }
  free(line);
  fclose(f);
  if (oom) {
    free(t->v), t->v = NULL;
    return snprintf(err, en, "out of host memory reading %.900s back", path), -1;
  }
  return 0;
}

/* Column c of t into x (time in ns or the step) and y (log10 |v| where log). */
static void column(const table *t, int xc, double xs, int c, double ys, int log, double *x, double *y) {
  long r;
  for (r = 0; r < t->rows; ++r) {
    const double v = ys * t->v[r * t->cols + c];
    x[r] = xs * t->v[r * t->cols + xc];
    y[r] = log ? (v != 0 ? log10(fabs(v)) : NAN) : v;
  }
}

int fdtd_plots_series(const fdtd_plots *p, const fdtd_input *in, const char *prefix, char *err, size_t en) {
  char path[4200], names[6][32];
  hd_plot_curve c[6];
  table t;
  double *xy = NULL;
  int k, nc = 0, rc = -1;
  if (p->want & FDTD_PLOT_HISTORY) { /* step, time, e_average, h_average */
    snprintf(path, sizeof path, "%s_average.csv", prefix);
    if (read_table(path, &t, err, en)) return -1;
    xy = (double *)malloc((size_t)(t.rows ? t.rows : 1) * 4 * sizeof(double));
    if (!xy) goto oom;
    for (k = 0; k < 2; ++k) {
      column(&t, 0, 1, 2 + k, 1, 1, xy + 2 * k * t.rows, xy + (2 * k + 1) * t.rows);
      c[k].x = xy + 2 * k * t.rows, c[k].y = xy + (2 * k + 1) * t.rows, c[k].n = (int)t.rows;
      c[k].label = k ? "H AVERAGE" : "E AVERAGE";
    }
    rc = fdtd_plots_lines(prefix, "_history.png", "CONVERGENCE", "STEP", "LOG10 AVERAGE", c, 2, err, en);
    free(t.v), free(xy), xy = NULL;
    if (rc) return -1;
    rc = -1;
  }
  if (!(p->want & (FDTD_PLOT_FEED_WAVEFORMS | FDTD_PLOT_POINT_WAVEFORMS))) return 0;
  snprintf(path, sizeof path, "%s_probes.csv", prefix); /* step, time, the probes, each feed's v and i */
  if (read_table(path, &t, err, en)) return -1;
  if (t.cols != 2 + in->nprobe + 2 * in->nfeed) {
    snprintf(err, en, "%.900s: %d columns, the model gives %d", path, t.cols, 2 + in->nprobe + 2 * in->nfeed);
    goto done;
  }
  xy = (double *)malloc((size_t)(t.rows ? t.rows : 1) * 12 * sizeof(double));
  if (!xy) goto oom;
  if (p->want & FDTD_PLOT_FEED_WAVEFORMS) { /* |V| and |I| of the first three feeds, log scale as OpenFDTD's */
    for (nc = 0, k = 0; k < in->nfeed && nc < 6; ++k, nc += 2) {
      column(&t, 1, 1e9, 2 + in->nprobe + 2 * k, 1, 1, xy + 2 * nc * t.rows, xy + (2 * nc + 1) * t.rows);
      column(&t, 1, 1e9, 3 + in->nprobe + 2 * k, 1, 1, xy + (2 * nc + 2) * t.rows, xy + (2 * nc + 3) * t.rows);
      snprintf(names[nc], 32, "V FEED %d", k + 1), snprintf(names[nc + 1], 32, "I FEED %d", k + 1);
      c[nc].x = xy + 2 * nc * t.rows, c[nc].y = xy + (2 * nc + 1) * t.rows, c[nc].n = (int)t.rows, c[nc].label = names[nc];
      c[nc + 1].x = xy + (2 * nc + 2) * t.rows, c[nc + 1].y = xy + (2 * nc + 3) * t.rows, c[nc + 1].n = (int)t.rows;
      c[nc + 1].label = names[nc + 1];
    }
    if (fdtd_plots_lines(prefix, "_feed_waveforms.png", "FEED WAVEFORMS", "TIME (NS)", "LOG10 |V| (V), |I| (A)", c, nc, err, en))
      goto done;
  }
  if (p->want & FDTD_PLOT_POINT_WAVEFORMS) { /* the points' V = -E d, the first six */
    for (nc = 0; nc < in->npoint && nc < 6; ++nc) {
      const fdtd_point *pt = &in->probes[in->point_first + nc];
      const long at = pt->comp == 0 ? pt->i : pt->comp == 1 ? pt->j : pt->k;
      column(&t, 1, 1e9, 2 + in->point_first + nc, -(in->node[pt->comp][at + 1] - in->node[pt->comp][at]), 0,
             xy + 2 * nc * t.rows, xy + (2 * nc + 1) * t.rows);
      snprintf(names[nc], 32, "POINT %d", nc + 1);
      c[nc].x = xy + 2 * nc * t.rows, c[nc].y = xy + (2 * nc + 1) * t.rows, c[nc].n = (int)t.rows, c[nc].label = names[nc];
    }
    if (fdtd_plots_lines(prefix, "_point_waveforms.png", "POINT WAVEFORMS", "TIME (NS)", "V", c, nc, err, en)) goto done;
  }
  rc = 0;
  goto done;
oom:
  snprintf(err, en, "out of host memory for the pictures");
done:
  free(t.v), free(xy);
  return rc;
}
