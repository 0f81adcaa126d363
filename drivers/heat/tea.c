/* SPDX-License-Identifier: BSD-3-Clause */
/* TeaLeaf's decks (`*tea ... *endtea`) as hd-heat keys (the input dialect
 * --input=tea.in takes): the states as materials painted by regions, the
 * mesh, the step, the solver and its tolerance, and TeaLeaf's check value
 * from a tea.problems beside the deck.  Its own file so that the fuzzing
 * harnesses link it alone.
 *
 * TeaLeaf solves du/dt = div(K grad u) for u = density x energy with
 * backward Euler, K from each cell's w (the density, or its inverse with
 * coefficient_inverse_density) as the face mean (w_a + w_b) / (2 w_a w_b)
 * = (k_a + k_b) / 2 with k = 1 / w, and reflective (zero-flux) faces: hd's
 * implicit scheme with rho c = 1, k = 1 / w, arithmetic face means and
 * adiabatic faces.  A state paints the cells TeaLeaf paints: a rectangle
 * those its extent, narrowed by a hundredth of a cell, overlaps (as a box
 * over those whole cells); a circle those whose centre lies within the
 * radius of its (shifted) centre; a point the cell whose corner it is. */
#include "tea.h"

#include "dialect.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEA_MAX_STATES 127

static char note[1024];

const char *heat_tea_note(void) { return note; }

static void add_note(const char *key, int line) { hd_dialect_note(note, sizeof note, key, line); }

typedef struct tea_state {
  double density, energy, v[5]; /* xmin xmax ymin ymax radius */
  int geometry, line, defined, has[5];
} tea_state;

typedef struct tea_deck {
  double dt, xmin, ymin, xmax, ymax, eps, end_time;
  long x_cells, y_cells, end_step, max_iters, presteps, inner, summary;
  int solver, coefficient, nstate, has_end_step;
  tea_state state[TEA_MAX_STATES];
} tea_deck;

enum { TEA_RECT = 0, TEA_CIRCLE = 1, TEA_POINT = 2 };

/* The words of a line: split at blanks and '='. */
static int words(char *line, char **w, int max) {
  int n = 0;
  char *s = line;
  while (*s && n < max) {
    while (*s && (isspace((unsigned char)*s) || *s == '=')) ++s;
    if (!*s) break;
    w[n++] = s;
    while (*s && !isspace((unsigned char)*s) && *s != '=') ++s;
    if (*s) *s++ = '\0';
  }
  return n;
}

static int number(const char *s, double *v) {
  char *end;
  *v = strtod(s, &end);
  return end != s && !*end && isfinite(*v);
}

static int fail(char *err, size_t n, const char *path, int line, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(err, n, "%s:%d: %s", path, line, msg);
  return -1;
}

/* A `state N key=value ...` line. */
static int state_line(tea_deck *d, char **w, int nw, const char *path, int line, char *err, size_t n) {
  static const char *const keys[5] = {"xmin", "xmax", "ymin", "ymax", "radius"};
  double id;
  tea_state *st;
  int k, q;
  if (nw < 2 || !number(w[1], &id) || id != floor(id) || id < 1 || id > TEA_MAX_STATES)
    return fail(err, n, path, line, "state: expected 'state N' with N from 1 to %d", TEA_MAX_STATES);
  st = &d->state[(int)id - 1];
  if (st->defined) return fail(err, n, path, line, "state %d defined twice", (int)id);
  memset(st, 0, sizeof *st);
  st->defined = 1, st->line = line, st->geometry = -1;
  if ((int)id > d->nstate) d->nstate = (int)id;
  for (k = 2; k < nw; k += 2) {
    if (k + 1 >= nw) return fail(err, n, path, line, "state %d: '%s' has no value", (int)id, w[k]);
    if (!strcmp(w[k], "geometry")) {
      if (!strcmp(w[k + 1], "rectangle")) st->geometry = TEA_RECT;
      else if (!strcmp(w[k + 1], "circular") || !strcmp(w[k + 1], "circle")) st->geometry = TEA_CIRCLE;
      else if (!strcmp(w[k + 1], "point")) st->geometry = TEA_POINT;
      else return fail(err, n, path, line, "state %d: geometry '%s' is not rectangle, circular or point", (int)id, w[k + 1]);
      continue;
    }
    if (!strcmp(w[k], "density") || !strcmp(w[k], "energy")) {
      if (!number(w[k + 1], w[k][0] == 'd' ? &st->density : &st->energy))
        return fail(err, n, path, line, "state %d: %s '%s' is not a number", (int)id, w[k], w[k + 1]);
      continue;
    }
    for (q = 0; q < 5 && strcmp(w[k], keys[q]); ++q) {
    }
    if (q == 5) return fail(err, n, path, line, "state %d: unknown key '%s'", (int)id, w[k]);
    if (!number(w[k + 1], &st->v[q])) return fail(err, n, path, line, "state %d: %s '%s' is not a number", (int)id, w[k], w[k + 1]);
    st->has[q] = 1;
  }
  if (!(st->density > 0)) return fail(err, n, path, line, "state %d: give a positive density", (int)id);
  if ((int)id > 1 && st->geometry < 0) return fail(err, n, path, line, "state %d: give its geometry", (int)id);
  if ((int)id > 1)
    for (q = 0; q < 4; ++q)
      if (!st->has[q] && !(q % 2 == 1 && st->geometry != TEA_RECT))
        return fail(err, n, path, line, "state %d: give its %s", (int)id, keys[q]);
  if ((int)id > 1 && st->geometry == TEA_CIRCLE && !(st->v[4] > 0))
    return fail(err, n, path, line, "state %d: a circle needs a positive radius", (int)id);
  return 0;
}

/* A settings line; 1 when the key was taken, 0 when it is one hd does not
 * use. */
static int setting(tea_deck *d, char **w, int nw, const char *path, int line, char *err, size_t n) {
  static const char *const reals[] = {"initial_timestep", "xmin", "ymin", "xmax", "ymax", "eps", "end_time"};
  static const char *const ints[] = {"x_cells", "y_cells", "end_step", "max_iters", "presteps", "ppcg_inner_steps",
                                     "ch_cg_presteps", "summary_frequency"};
  double *const rv[] = {&d->dt, &d->xmin, &d->ymin, &d->xmax, &d->ymax, &d->eps, &d->end_time};
  long *const iv[] = {&d->x_cells, &d->y_cells, &d->end_step, &d->max_iters, &d->presteps, &d->inner, &d->presteps,
                      &d->summary};
  const char *key = w[0];
  double v;
  size_t k;
  if (!strncmp(key, "tl_", 3)) key += 3; /* TeaLeaf_ref's spellings */
  for (k = 0; k < sizeof reals / sizeof reals[0]; ++k)
    if (!strcmp(key, reals[k])) {
      if (nw < 2 || !number(w[1], &v)) return fail(err, n, path, line, "%s: expected a number", w[0]);
      *rv[k] = v;
      return 1;
    }
  for (k = 0; k < sizeof ints / sizeof ints[0]; ++k)
    if (!strcmp(key, ints[k])) {
      if (nw < 2 || !number(w[1], &v) || v != floor(v) || v < 0 || v > 1e15)
        return fail(err, n, path, line, "%s: expected a whole number", w[0]);
      *iv[k] = (long)v;
      if (iv[k] == &d->end_step) d->has_end_step = 1;
      return 1;
    }
  if (!strcmp(key, "use_cg")) return d->solver = 0, 1;
  if (!strcmp(key, "use_chebyshev")) return d->solver = 1, 1;
  if (!strcmp(key, "use_ppcg")) return d->solver = 2, 1;
  if (!strcmp(key, "coefficient_density")) return d->coefficient = 0, 1;
  if (!strcmp(key, "coefficient_inverse_density")) return d->coefficient = 1, 1;
  return 0;
}

/* Whether TeaLeaf's rectangle from a to b covers cell k of an axis
 * (vertices x0 + h k), in its own arithmetic. */
static int rect_covers(double x0, double h, double a, double b, long k) {
  return x0 + h * (double)(k + 1) >= a + h / 100.0 && x0 + h * (double)k < b - h / 100.0;
}

/* The cells [lo, hi] of one axis that the rectangle covers; 0 when none.
 * The ends found by division, then moved to where TeaLeaf's test turns
 * (no loop over the axis: a deck may give any number of cells). */
static int rect_cells(double x0, double h, long cells, double a, double b, long *lo, long *hi) {
  double e0 = floor((a + h / 100.0 - x0) / h) - 1.0, e1 = floor((b - h / 100.0 - x0) / h) + 1.0;
  long k0, k1;
  e0 = fmin(fmax(e0, 0.0), (double)(cells - 1)), e1 = fmin(fmax(e1, 0.0), (double)(cells - 1)); /* NaN: 0 */
  k0 = (long)e0, k1 = (long)e1;
  while (k0 > 0 && rect_covers(x0, h, a, b, k0 - 1)) --k0;
  while (k0 < cells && !rect_covers(x0, h, a, b, k0) && k0 <= k1) ++k0;
  while (k1 + 1 < cells && rect_covers(x0, h, a, b, k1 + 1)) ++k1;
  while (k1 >= k0 && !rect_covers(x0, h, a, b, k1)) --k1;
  *lo = k0, *hi = k1;
  return k0 < cells && k0 <= k1;
}

/* The cell whose lower corner is TeaLeaf's point; 0 when none is. */
static int point_cell(double x0, double h, long cells, double a, long *at) {
  const double e = floor((a + h / 100.0 - x0) / h);
  long k;
  for (k = (long)fmax(0.0, fmin(e, (double)cells) - 1.0); k < cells && (double)k <= e + 1.0; ++k)
    if (x0 + h * (double)k == a + h / 100.0) return *at = k, 1;
  return 0;
}

/* TeaLeaf's expected temperature from tea.problems beside the deck. */
static int expected(const char *path, const tea_deck *d, double *value) {
  char name[4200], line[256];
  const char *slash = strrchr(path, '/');
  FILE *f;
  int found = 0;
  snprintf(name, sizeof name, "%.*stea.problems", slash ? (int)(slash - path + 1) : 0, path);
  if (!(f = fopen(name, "r"))) return 0;
  while (!found && fgets(line, sizeof line, f)) {
    long x, y, s;
    double v;
    if (sscanf(line, "%ld %ld %ld %lf", &x, &y, &s, &v) == 4 && x == d->x_cells && y == d->y_cells && s == d->end_step)
      *value = v, found = 1;
  }
  fclose(f);
  return found;
}

static int keys(hd_dialect_out *o, const tea_deck *d, const char *path, char *err, size_t n) {
  static const char *const solvers[3] = {"cg", "chebyshev", "ppcg"};
  const double hx = (d->xmax - d->xmin) / (double)d->x_cells, hy = (d->ymax - d->ymin) / (double)d->y_cells;
  const tea_state *bg = &d->state[0];
  char dens[4096];
  double want;
  long steps = d->end_step;
  int s, m = 0;
#define K(line, ...) \
  if (hd_dialect_emit(o, line, __VA_ARGS__)) return snprintf(err, n, "%s: out of memory", path), -1
  if (!d->has_end_step && d->end_time > 0) {
    const double t = ceil(d->end_time / d->dt - 1e-9);
    if (!(t <= 1e15)) return snprintf(err, n, "%s: end_time %g takes more than 1e15 steps of %g", path, d->end_time, d->dt), -1;
    steps = (long)t;
  }
  K(1, "dim = 2");
  K(1, "n = %ld,%ld", d->x_cells, d->y_cells);
  K(1, "length = %.17g,%.17g", d->xmax - d->xmin, d->ymax - d->ymin);
  K(1, "scheme = implicit");
  K(1, "dt = %.17g", d->dt);
  K(1, "steps = %ld", steps);
  K(1, "solver = %s", solvers[d->solver]);
  K(1, "tol = 0");
  K(1, "tol-abs = %.17g", d->eps);
  K(1, "max-iters = %ld", d->max_iters);
  if (d->presteps > 0) K(1, "presteps = %ld", d->presteps);
  if (d->inner > 0) K(1, "ppcg-inner = %ld", d->inner);
  if (d->summary > 0 && d->summary <= steps) K(1, "csv-every = %ld", d->summary);
  K(1, "face-mean = arithmetic");
  K(1, "precision = double");
  K(1, "bc = adiabatic");
  /* state 1, the background: k = 1 / w, rho c = k / alpha = 1 */
  K(bg->line, "conductivity = %.17g", d->coefficient ? bg->density : 1.0 / bg->density);
  K(bg->line, "alpha = %.17g", d->coefficient ? bg->density : 1.0 / bg->density);
  K(bg->line, "t0 = %.17g", bg->density * bg->energy);
  K(bg->line, "init = materials");
  snprintf(dens, sizeof dens, "%.17g", bg->density);
  for (s = 1; s < d->nstate; ++s) {
    const tea_state *st = &d->state[s];
    const double x0 = st->v[0] - d->xmin, y0 = st->v[2] - d->ymin;
    long i0, i1, j0, j1;
    char item[64];
    if (!st->defined) return snprintf(err, n, "%s: state %d is not defined (states 1 .. %d)", path, s + 1, d->nstate), -1;
    ++m;
    K(st->line, "material = %.17g,1,1,0,%.17g", d->coefficient ? st->density : 1.0 / st->density, st->density * st->energy);
    snprintf(item, sizeof item, ",%.17g", st->density);
    if (strlen(dens) + strlen(item) + 1 < sizeof dens) strcat(dens, item);
    if (st->geometry == TEA_CIRCLE) {
      K(st->line, "region = %d,sphere,%.17g,%.17g,%.17g", m, x0 + hx / 100.0, y0 + hy / 100.0, st->v[4]);
      continue;
    }
    if (st->geometry == TEA_POINT ? point_cell(d->xmin, hx, d->x_cells, st->v[0], &i0) &&
                                        point_cell(d->ymin, hy, d->y_cells, st->v[2], &j0) && (i1 = i0, j1 = j0, 1)
                                  : rect_cells(d->xmin, hx, d->x_cells, st->v[0], st->v[1], &i0, &i1) &&
                                        rect_cells(d->ymin, hy, d->y_cells, st->v[2], st->v[3], &j0, &j1)) {
      K(st->line, "region = %d,box,%.17g,%.17g,%.17g,%.17g", m, (double)i0 * (d->xmax - d->xmin) / (double)d->x_cells,
        (double)(i1 + 1) * (d->xmax - d->xmin) / (double)d->x_cells, (double)j0 * (d->ymax - d->ymin) / (double)d->y_cells,
        (double)(j1 + 1) * (d->ymax - d->ymin) / (double)d->y_cells);
    } else {
      char what[64];
      snprintf(what, sizeof what, "state %d (it covers no cell)", s + 1);
      add_note(what, st->line);
    }
  }
  K(1, "tea-summary = yes");
  K(1, "tea-densities = %s", dens);
  if (expected(path, d, &want)) K(1, "tea-expect = %.17g", want);
#undef K
  return 0;
}

static int translate(const char *path, const char *text, char **out, int **lines, char *err, size_t n) {
  hd_dialect_out o;
  tea_deck *d = (tea_deck *)calloc(1, sizeof *d);
  char *copy = (char *)malloc(strlen(text) + 1), *line, *next, *w[64];
  int lineno, rc = 0, ended = 0;
  memset(&o, 0, sizeof o);
  note[0] = '\0';
  if (!d || !copy) return free(d), free(copy), snprintf(err, n, "%s: out of memory", path), -1;
  strcpy(copy, text);
  d->x_cells = d->y_cells = 10, d->xmax = d->ymax = 100.0, d->dt = 0.1, d->max_iters = 10000, d->eps = 1e-15;
  d->end_time = 10.0;
  for (line = copy, lineno = 1; line && !rc && !ended; line = next, ++lineno) {
    int nw;
    next = strchr(line, '\n');
    if (next) *next++ = '\0';
    nw = words(line, w, 64);
    if (!nw || w[0][0] == '#' || w[0][0] == '!') continue;
    if (lineno == 1 || !strcmp(w[0], "*tea")) continue;
    if (!strcmp(w[0], "*endtea")) {
      ended = 1;
      continue;
    }
    if (!strcmp(w[0], "state")) rc = state_line(d, w, nw, path, lineno, err, n);
    else if ((rc = setting(d, w, nw, path, lineno, err, n)) == 1) rc = 0;
    else if (!rc) add_note(w[0], lineno);
  }
  if (!rc && !d->nstate) rc = fail(err, n, path, lineno - 1, "no states: give at least 'state 1 density=... energy=...'");
  if (!rc && !(d->xmax > d->xmin && d->ymax > d->ymin && isfinite(d->xmax - d->xmin) && isfinite(d->ymax - d->ymin)))
    rc = fail(err, n, path, 1, "the mesh needs xmin < xmax and ymin < ymax, finite");
  if (!rc && (d->x_cells < 1 || d->y_cells < 1)) rc = fail(err, n, path, 1, "x_cells and y_cells must be positive");
  if (!rc && !(d->dt > 0)) rc = fail(err, n, path, 1, "initial_timestep must be positive");
  if (!rc) rc = keys(&o, d, path, err, n);
  free(copy), free(d);
  if (rc) return free(o.text), free(o.line), -1;
  *out = o.text, *lines = o.line;
  return 0;
}

const cli_dialect heat_tea_dialect = {"*tea", translate};
