/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-fdtd's input: the keys of its input file and command line (mesh,
 * materials, geometry, feeds, sources, loads, points, probes, boundaries)
 * checked and read into an fdtd_input; the built-in benchmark model.  The
 * model built from it is model.c's. */
#include "model.h"
#include "waveform_file.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 64

static const char *const comp_names[6] = {"ex", "ey", "ez", "hx", "hy", "hz"};

int fdtd_input_fail(char *err, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, n, fmt, ap);
  va_end(ap);
  return -1;
}

void fdtd_input_defaults(fdtd_input *in) {
  memset(in, 0, sizeof *in);
  strcpy(in->bc_all, "mur");
  in->pml[0] = 8, in->pml[1] = 4, in->pml[2] = 1e-5;
  in->cpml[0] = FDTD_CPML_KAPPA, in->cpml[1] = FDTD_CPML_ALPHA;
  in->waveform = HD_FDTD_DGAUSSIAN;
  in->courant = 0.99;
  in->subpixel = 1;
  in->steps = 2000;
}

void fdtd_input_free(fdtd_input *in) {
  int a;
  cli_list_free(&in->xmesh), cli_list_free(&in->ymesh), cli_list_free(&in->zmesh);
  cli_list_free(&in->material), cli_list_free(&in->geometry);
  cli_list_free(&in->feed), cli_list_free(&in->source), cli_list_free(&in->probe), cli_list_free(&in->load);
  cli_list_free(&in->point);
  for (a = 0; a < 3; ++a) free(in->node[a]);
  for (a = 0; a < 6; ++a) free(in->mat[a]);
  free(in->obj);
  free(in->feeds);
  free(in->probes);
  free(in->loads);
  free(in->wave_tab);
}

/* Split on white space (and commas) into at most MAX_TOKENS words. */
static int tokens(const char *s, char buf[MAX_TOKENS][64]) {
  int k = 0;
  while (*s) {
    size_t len = 0;
    while (*s && (isspace((unsigned char)*s) || *s == ',')) ++s;
    if (!*s) break;
    if (k == MAX_TOKENS) return -1;
    while (s[len] && !isspace((unsigned char)s[len]) && s[len] != ',') ++len;
    if (len >= 64) return -1;
    memcpy(buf[k], s, len);
    buf[k][len] = '\0';
    s += len;
    ++k;
  }
  return k;
}

static int number(const char *t, double *v) {
  char *end;
  errno = 0;
  *v = strtod(t, &end);
  return end != t && *end == '\0' && errno != ERANGE && isfinite(*v);
}

static int integer(const char *t, long *v) {
  char *end;
  errno = 0;
  *v = strtol(t, &end, 10);
  return end != t && *end == '\0' && errno != ERANGE;
}

/* Read `want` numbers from tokens t[first..]; message names the key. */
static int numbers(char t[MAX_TOKENS][64], int first, int count, int want, double *v,
                   const char *where, const char *key, const char *form, char *err, size_t n) {
  int k;
  if (count - first != want)
    return fdtd_input_fail(err, n, "%s: %s: expected %s", where, key, form);
  for (k = 0; k < want; ++k)
    if (!number(t[first + k], &v[k]))
      return fdtd_input_fail(err, n, "%s: %s: '%s' is not a number", where, key, t[first + k]);
  return 0;
}

static int parse_mesh(fdtd_input *in, int axis, char *err, size_t n) {
  static const char *const keys[3] = {"xmesh", "ymesh", "zmesh"};
  cli_list *l = axis == 0 ? &in->xmesh : axis == 1 ? &in->ymesh : &in->zmesh;
  char t[MAX_TOKENS][64];
  int k, count, seg, use = 0;
  long cells = 0, c;
  double x0, *x;
  if (l->count == 0) return fdtd_input_fail(err, n, "missing mesh: give %s = x0 n1 x1 [n2 x2 ...]", keys[axis]);
  /* one from the input file and one from the command line: the command line's (parsed last) wins */
  if (l->count == 2 && strcmp(l->where[0], "command line") && !strcmp(l->where[1], "command line")) use = 1;
  else if (l->count > 1) return fdtd_input_fail(err, n, "%s: %s given twice", l->where[1], keys[axis]);
  count = tokens(l->value[use], t);
  if (count < 3 || count % 2 == 0)
    return fdtd_input_fail(err, n, "%s: %s: expected x0 n1 x1 [n2 x2 ...]", l->where[use], keys[axis]);
  for (k = 1; k < count; k += 2) {
    long nc;
    if (!integer(t[k], &nc) || nc < 1 || nc > 100000000L)
      return fdtd_input_fail(err, n, "%s: %s: '%s' is not a cell count (1 to 1e8)", l->where[use], keys[axis], t[k]);
    cells += nc;
  }
  if (cells > 100000000L) return fdtd_input_fail(err, n, "%s: %s: too many cells", l->where[use], keys[axis]);
  x = (double *)malloc((size_t)(cells + 1) * sizeof *x);
  if (!x) return fdtd_input_fail(err, n, "%s: out of memory", keys[axis]);
  if (!number(t[0], &x0)) {
    free(x);
    return fdtd_input_fail(err, n, "%s: %s: '%s' is not a number", l->where[use], keys[axis], t[0]);
  }
  x[0] = x0;
  c = 0;
  for (seg = 1; seg < count; seg += 2) {
    long nc;
    double x1;
    integer(t[seg], &nc);
    if (!number(t[seg + 1], &x1) || !(x1 > x0)) {
      free(x);
      return fdtd_input_fail(err, n, "%s: %s: mesh lines must increase ('%s' after %g)", l->where[use], keys[axis],
                  t[seg + 1], x0);
    }
    for (k = 1; k <= nc; ++k) x[c + k] = x0 + (x1 - x0) * (double)k / (double)nc;
    c += nc;
    x0 = x1;
  }
  in->node[axis] = x;
  in->n[axis] = cells;
  return 0;
}

static int parse_axis(const char *s) {
  if (!strcmp(s, "X") || !strcmp(s, "x")) return 0;
  if (!strcmp(s, "Y") || !strcmp(s, "y")) return 1;
  if (!strcmp(s, "Z") || !strcmp(s, "z")) return 2;
  return -1;
}

static int parse_bc(const char *s) {
  if (!strcmp(s, "pec")) return HD_FDTD_BC_PEC;
  if (!strcmp(s, "mur")) return HD_FDTD_BC_MUR;
  if (!strcmp(s, "pml")) return HD_FDTD_BC_PML;
  if (!strcmp(s, "periodic")) return HD_FDTD_BC_PERIODIC;
  if (!strcmp(s, "cpml")) return HD_FDTD_BC_CPML;
  return -1;
}

/* Inside [lo, hi] of the domain along axis, with a relative tolerance. */
static int in_domain(const fdtd_input *in, int axis, double v) {
  const double lo = in->node[axis][0], hi = in->node[axis][in->n[axis]];
  const double tol = 1e-9 * (hi - lo);
  return v >= lo - tol && v <= hi + tol;
}

/* Index of the node nearest v, and of the cell containing v. */
static long nearest_node(const fdtd_input *in, int axis, double v) {
  const double *x = in->node[axis];
  long lo = 0, hi = in->n[axis];
  while (hi - lo > 1) {
    long mid = (lo + hi) / 2;
    if (x[mid] <= v) lo = mid;
    else hi = mid;
  }
  return fabs(v - x[lo]) <= fabs(x[hi] - v) ? lo : hi;
}
static long containing_cell(const fdtd_input *in, int axis, double v) {
  long k = nearest_node(in, axis, v);
  if (k > 0 && in->node[axis][k] > v) --k;
  if (k >= in->n[axis]) k = in->n[axis] - 1;
  return k;
}

/* "EPSR SIGMA MUR SIGMAM" then poles: "debye DE TAU", "drude FP GAMMA",
 * "lorentz DE F0 GAMMA" (FP, F0 in Hz, GAMMA in 1/s, TAU in s). */
static int parse_materials(fdtd_input *in, char *err, size_t n) {
  static const char *const form = "epsr sigma mur sigmam [debye DE TAU] [drude FP GAMMA] [lorentz DE F0 GAMMA] ...";
  const double two_pi = 6.283185307179586;
  int k;
  in->nmat = 2; /* 0 vacuum, 1 PEC */
  in->eps_r[0] = in->mu_r[0] = in->eps_r[1] = in->mu_r[1] = 1.0;
  for (k = 0; k < in->material.count; ++k) {
    char t[MAX_TOKENS][64];
    double v[4];
    const char *where = in->material.where[k];
    const int count = tokens(in->material.value[k], t);
    int at = 4, np = 0;
    if (count < 4) return fdtd_input_fail(err, n, "%s: material: expected %s", where, form);
    if (numbers(t, 0, 4, 4, v, where, "material", form, err, n)) return -1;
    if (in->nmat == 256) return fdtd_input_fail(err, n, "%s: material: more than 254 materials", where);
    if (!(v[0] >= 1.0) || !(v[2] >= 1.0) || v[1] < 0 || v[3] < 0)
      return fdtd_input_fail(err, n, "%s: material: need epsr >= 1, mur >= 1 and conductivities >= 0", where);
    while (at < count) {
      const int kind = !strcmp(t[at], "debye") ? HD_FDTD_DEBYE : !strcmp(t[at], "drude") ? HD_FDTD_DRUDE
                       : !strcmp(t[at], "lorentz") ? HD_FDTD_LORENTZ : 0;
      const int want = kind == HD_FDTD_LORENTZ ? 3 : 2;
      double p[3] = {0, 0, 0};
      hd_fdtd_pole *q = &in->pole[in->nmat][np];
      if (!kind) return fdtd_input_fail(err, n, "%s: material: '%s' is not debye, drude or lorentz", where, t[at]);
      if (np == HD_FDTD_POLES) return fdtd_input_fail(err, n, "%s: material: at most %d poles", where, HD_FDTD_POLES);
      if (at + want >= count)
        return fdtd_input_fail(err, n, "%s: material: %s needs %d values", where, t[at], want);
      if (numbers(t, at + 1, at + 1 + want, want, p, where, "material", form, err, n)) return -1;
      q->kind = kind;
      if (kind == HD_FDTD_DEBYE) q->a = p[0], q->b = p[1], q->c = 0;
      else if (kind == HD_FDTD_DRUDE) q->a = two_pi * p[0], q->b = p[1], q->c = 0;
      else q->a = p[0], q->b = two_pi * p[1], q->c = p[2];
      if (!(p[0] >= 0) || !(p[1] >= 0) || !(p[2] >= 0) || (kind == HD_FDTD_DEBYE && !(p[1] > 0)) ||
          (kind == HD_FDTD_LORENTZ && !(p[1] > 0)))
        return fdtd_input_fail(err, n, "%s: material: %s: values must be >= 0 (tau and f0 > 0)", where, t[at]);
      ++np;
      at += 1 + want;
    }
    in->eps_r[in->nmat] = v[0], in->sigma[in->nmat] = v[1];
    in->mu_r[in->nmat] = v[2], in->sigma_m[in->nmat] = v[3];
    in->npole[in->nmat] = np;
    ++in->nmat;
  }
  return 0;
}

/* The shapes by name and OpenFDTD number: kind, axis (-1: none), values. */
static int shape_of(const char *name, int *shape, int *axis) {
  static const struct {
    const char *name, *number;
    int shape, axis, values;
  } table[] = {{"box", "1", FDTD_BOX, -1, 6},          {"ellipsoid", "2", FDTD_ELLIPSOID, -1, 6},
               {"sphere", "", FDTD_SPHERE, -1, 4},       {"xcylinder", "11", FDTD_ECYLINDER, 0, 6},
               {"ycylinder", "12", FDTD_ECYLINDER, 1, 6}, {"zcylinder", "13", FDTD_ECYLINDER, 2, 6},
               {"xpillar", "31", FDTD_PILLAR, 0, 8},      {"ypillar", "32", FDTD_PILLAR, 1, 8},
               {"zpillar", "33", FDTD_PILLAR, 2, 8},      {"xpyramid", "41", FDTD_PYRAMID, 0, 8},
               {"ypyramid", "42", FDTD_PYRAMID, 1, 8},    {"zpyramid", "43", FDTD_PYRAMID, 2, 8},
               {"xcone", "51", FDTD_CONE, 0, 8},          {"ycone", "52", FDTD_CONE, 1, 8},
               {"zcone", "53", FDTD_CONE, 2, 8}};
  size_t k;
  for (k = 0; k < sizeof table / sizeof table[0]; ++k)
    if (!strcmp(name, table[k].name) || (table[k].number[0] && !strcmp(name, table[k].number))) {
      *shape = table[k].shape, *axis = table[k].axis;
      return table[k].values;
    }
  return 0;
}

void fdtd_object_box(const fdtd_object *o, double box[6]) {
  const int a = o->axis, b = (a + 1) % 3, c = (a + 2) % 3;
  int d;
  if (o->shape == FDTD_BOX || o->shape == FDTD_ELLIPSOID || o->shape == FDTD_ECYLINDER) {
    for (d = 0; d < 3; ++d) box[2 * d] = fmin(o->v[2 * d], o->v[2 * d + 1]), box[2 * d + 1] = fmax(o->v[2 * d], o->v[2 * d + 1]);
  } else if (o->shape == FDTD_SPHERE) {
    for (d = 0; d < 3; ++d) box[2 * d] = o->v[d] - o->v[3], box[2 * d + 1] = o->v[d] + o->v[3];
  } else if (o->shape == FDTD_CYLINDER) {
    const int u = a == 0 ? 1 : 0, w = a == 2 ? 1 : 2;
    box[2 * a] = o->v[3], box[2 * a + 1] = o->v[4];
    box[2 * u] = o->v[0] - o->v[2], box[2 * u + 1] = o->v[0] + o->v[2];
    box[2 * w] = o->v[1] - o->v[2], box[2 * w + 1] = o->v[1] + o->v[2];
  } else {
    box[2 * a] = fmin(o->v[0], o->v[1]), box[2 * a + 1] = fmax(o->v[0], o->v[1]);
    if (o->shape == FDTD_PILLAR) {
      box[2 * b] = fmin(o->v[2], fmin(o->v[3], o->v[4])), box[2 * b + 1] = fmax(o->v[2], fmax(o->v[3], o->v[4]));
      box[2 * c] = fmin(o->v[5], fmin(o->v[6], o->v[7])), box[2 * c + 1] = fmax(o->v[5], fmax(o->v[6], o->v[7]));
    } else {
      const double hb = 0.5 * fmax(o->v[4], o->v[6]), hc = 0.5 * fmax(o->v[5], o->v[7]);
      box[2 * b] = o->v[2] - hb, box[2 * b + 1] = o->v[2] + hb;
      box[2 * c] = o->v[3] - hc, box[2 * c + 1] = o->v[3] + hc;
    }
  }
}

static int parse_geometry(fdtd_input *in, char *err, size_t n) {
  int k, a;
  in->obj = (fdtd_object *)calloc((size_t)in->geometry.count + 1, sizeof *in->obj);
  if (!in->obj) return fdtd_input_fail(err, n, "geometry: out of memory");
  for (k = 0; k < in->geometry.count; ++k) {
    char t[MAX_TOKENS][64];
    const int count = tokens(in->geometry.value[k], t);
    const char *where = in->geometry.where[k];
    fdtd_object *o = &in->obj[in->nobj];
    double box[6];
    long m;
    int want;
    if (count < 2 || !integer(t[0], &m))
      return fdtd_input_fail(err, n, "%s: geometry: expected 'material shape ...'", where);
    if (m < 0 || m >= in->nmat)
      return fdtd_input_fail(err, n, "%s: geometry: material %ld out of range (0 vacuum, 1 PEC, 2..%d defined)",
                  where, m, in->nmat - 1);
    o->mat = (int)m;
    if (!strcmp(t[1], "cylinder")) {
      o->shape = FDTD_CYLINDER;
      if (count != 8 || (o->axis = parse_axis(t[2])) < 0)
        return fdtd_input_fail(err, n, "%s: geometry: expected 'm cylinder x|y|z c1 c2 r lo hi'", where);
      if (numbers(t, 3, count, 5, o->v, where, "geometry", "'m cylinder x|y|z c1 c2 r lo hi'", err, n)) return -1;
      if (!(o->v[2] > 0)) return fdtd_input_fail(err, n, "%s: geometry: cylinder needs r > 0", where);
      if (o->v[3] > o->v[4]) { /* either order, as OpenFDTD takes its coordinates */
        const double lo = o->v[4];
        o->v[4] = o->v[3], o->v[3] = lo;
      }
    } else if ((want = shape_of(t[1], &o->shape, &o->axis)) > 0) {
      char form[96];
      snprintf(form, sizeof form, "'m %s' and %d numbers", t[1], want);
      if (numbers(t, 2, count, want, o->v, where, "geometry", form, err, n)) return -1;
      if (o->shape == FDTD_BOX)
        for (a = 0; a < 3; ++a)
          if (o->v[2 * a] > o->v[2 * a + 1]) {
            const double lo = o->v[2 * a + 1];
            o->v[2 * a + 1] = o->v[2 * a], o->v[2 * a] = lo;
          }
      if (o->shape == FDTD_SPHERE && !(o->v[3] > 0))
        return fdtd_input_fail(err, n, "%s: geometry: sphere radius must be positive", where);
      if ((o->shape == FDTD_PYRAMID || o->shape == FDTD_CONE) &&
          (o->v[4] < 0 || o->v[5] < 0 || o->v[6] < 0 || o->v[7] < 0))
        return fdtd_input_fail(err, n, "%s: geometry: %s widths must be >= 0", where, t[1]);
    } else {
      return fdtd_input_fail(err, n, "%s: geometry: unknown shape '%s' (box, ellipsoid, sphere, cylinder, x|y|zcylinder, "
                  "x|y|zpillar, x|y|zpyramid, x|y|zcone, or OpenFDTD's 1, 2, 11-13, 31-33, 41-43, 51-53)", where, t[1]);
    }
    fdtd_object_box(o, box);
    for (a = 0; a < 3; ++a)
      if (!in_domain(in, a, box[2 * a]) || !in_domain(in, a, box[2 * a + 1]))
        return fdtd_input_fail(err, n, "%s: geometry: %s outside the domain along %c", where, t[1], 'x' + a);
    /* plates and wires sit on mesh lines: a zero extent snaps to the nearest */
    if (o->shape == FDTD_BOX || o->shape == FDTD_ELLIPSOID || o->shape == FDTD_ECYLINDER) {
      for (a = 0; a < 3; ++a)
        if (o->v[2 * a] == o->v[2 * a + 1] && (o->shape != FDTD_ECYLINDER || a == o->axis))
          o->v[2 * a] = o->v[2 * a + 1] = in->node[a][nearest_node(in, a, o->v[2 * a])];
    } else if (o->shape >= FDTD_PILLAR && o->v[0] == o->v[1]) {
      o->v[0] = o->v[1] = in->node[o->axis][nearest_node(in, o->axis, o->v[0])];
    }
    ++in->nobj;
  }
  return 0;
}

/* A component at the mesh position nearest (x, y, z): along its own axis
 * E lives in cells and H on nodes, across the other way. */
static void snap(const fdtd_input *in, int comp, const double p[3], long q[3]) {
  int a;
  for (a = 0; a < 3; ++a) {
    const int along = a == comp % 3, half = comp < 3 ? along : !along;
    q[a] = half ? containing_cell(in, a, p[a]) : nearest_node(in, a, p[a]);
  }
}

/* Whether the E tangential to the faces of axis a stays out of the update
 * (PEC, and Mur acting on those E). */
static int face_frozen(const fdtd_input *in, const int *bc, int a) {
  return bc[a] == HD_FDTD_BC_PEC || (bc[a] == HD_FDTD_BC_MUR && !in->mur_h);
}

/* "X|Y|Z x y z volts ohms [delay]" feeds, "X|Y|Z x y z amperes" sources,
 * "ex|...|hz x y z" probes. */
static int parse_points(fdtd_input *in, const cli_list *l, int kind, fdtd_point *out, int *count,
                        const int *bc, char *err, size_t n) {
  static const char *const keys[3] = {"feed", "source", "probe"};
  static const char *const forms[3] = {"'X|Y|Z x y z volts ohms [delay]'", "'X|Y|Z x y z amperes'",
                                       "'ex|ey|ez|hx|hy|hz x y z'"};
  int k, a;
  for (k = 0; k < l->count; ++k) {
    char t[MAX_TOKENS][64];
    const int nt = tokens(l->value[k], t), want = kind == 0 ? 6 : kind == 1 ? 5 : 4;
    const char *where = l->where[k];
    double v[6] = {0, 0, 0, 0, 0, 0}, p[3];
    fdtd_point *pt = &out[*count];
    int comp = -1;
    if (nt != want && !(kind == 0 && nt == want + 1)) return fdtd_input_fail(err, n, "%s: %s: expected %s", where, keys[kind], forms[kind]);
    if (kind < 2) {
      comp = parse_axis(t[0]);
    } else {
      for (a = 0; a < 6; ++a)
        if (!strcmp(t[0], comp_names[a])) comp = a;
    }
    if (comp < 0) return fdtd_input_fail(err, n, "%s: %s: '%s' is not %s", where, keys[kind], t[0], kind < 2 ? "X, Y or Z" : "ex..hz");
    if (numbers(t, 1, nt, nt - 1, v, where, keys[kind], forms[kind], err, n)) return -1;
    for (a = 0; a < 3; ++a) {
      p[a] = v[a];
      if (!in_domain(in, a, p[a])) return fdtd_input_fail(err, n, "%s: %s: point outside the domain along %c", where, keys[kind], 'x' + a);
    }
    pt->comp = comp;
    {
      long q[3];
      snap(in, comp, p, q);
      pt->i = q[0], pt->j = q[1], pt->k = q[2];
    }
    pt->amp = kind < 2 ? v[3] : 0.0;
    pt->r = kind == 0 ? v[4] : -1.0;
    pt->delay = v[5];
    if (kind == 0 && pt->r < 0) return fdtd_input_fail(err, n, "%s: feed: resistance must be >= 0", where);
    if (pt->delay < 0) return fdtd_input_fail(err, n, "%s: feed: the delay must be >= 0", where);
    if (kind < 2)
      for (a = 0; a < 3; ++a) { /* an edge on a PEC or Mur face is never updated */
        const long q = a == 0 ? pt->i : a == 1 ? pt->j : pt->k;
        if (a != comp && face_frozen(in, bc, a) && (q == 0 || q == in->n[a]))
          return fdtd_input_fail(err, n, "%s: %s: the edge lies on a boundary face", where, keys[kind]);
      }
    ++*count;
  }
  return 0;
}

/* stop-when-decayed "COMP X Y Z FACTOR": a probe after the others, its factor. */
static int parse_decay(fdtd_input *in, const int *bc, char *err, size_t n) {
  char point[128], extra[2];
  double factor;
  int at = 0, k;
  cli_list l;
  char *value[1], *where[1];
  in->decay_probe = -1;
  if (!in->decay[0]) return 0;
  for (k = 0; k + 1 < (int)sizeof point && in->decay[k]; ++k) point[k] = in->decay[k] == ',' ? ' ' : in->decay[k];
  point[k] = '\0';
  if (sscanf(point, "%*s %*s %*s %*s %n%lf %1s", &at, &factor, extra) != 1 || !(factor > 0 && factor < 1))
    return fdtd_input_fail(err, n, "stop-when-decayed: expected 'COMP X Y Z FACTOR' with 0 < FACTOR < 1");
  point[at] = '\0';
  memset(&l, 0, sizeof l);
  value[0] = point, where[0] = (char *)"stop-when-decayed";
  l.value = value, l.where = where, l.count = 1;
  in->decay_probe = in->nprobe, in->decay_factor = factor;
  return parse_points(in, &l, 2, in->probes, &in->nprobe, bc, err, n);
}

/* "X|Y|Z x y z [+X|-X|+Y|-Y|+Z|-Z]": voltage points, probes of E on the
 * edge nearest, appended to the probes; the first one's direction of
 * travel (default +X, OpenFDTD's) adds its neighbours a cell downstream
 * and upstream, which split the line's voltage into its two waves. */
static int parse_voltage_points(fdtd_input *in, char *err, size_t n) {
  static const char *const form = "'X|Y|Z x y z [+X|-X|+Y|-Y|+Z|-Z]'";
  int k, a, dir = 0, sign = 1;
  in->point_first = in->nprobe;
  if (in->point.count > FDTD_MAX_POINTS) return fdtd_input_fail(err, n, "%s: point: at most %d points", in->point.where[FDTD_MAX_POINTS], FDTD_MAX_POINTS);
  for (k = 0; k < in->point.count; ++k) {
    char t[MAX_TOKENS][64];
    const char *where = in->point.where[k];
    const int nt = tokens(in->point.value[k], t);
    fdtd_point *pt = &in->probes[in->nprobe];
    double p[3];
    long q[3];
    int comp;
    if (nt != 4 && nt != 5) return fdtd_input_fail(err, n, "%s: point: expected %s", where, form);
    if ((comp = parse_axis(t[0])) < 0) return fdtd_input_fail(err, n, "%s: point: '%s' is not X, Y or Z", where, t[0]);
    if (numbers(t, 1, 4, 3, p, where, "point", form, err, n)) return -1;
    for (a = 0; a < 3; ++a)
      if (!in_domain(in, a, p[a])) return fdtd_input_fail(err, n, "%s: point: outside the domain along %c", where, 'x' + a);
    if (nt == 5 && k == 0) {
      if (strlen(t[4]) != 2 || (t[4][0] != '+' && t[4][0] != '-') || parse_axis(t[4] + 1) < 0)
        return fdtd_input_fail(err, n, "%s: point: '%s' is not a direction +X, -X, +Y, -Y, +Z or -Z", where, t[4]);
      dir = parse_axis(t[4] + 1), sign = t[4][0] == '+' ? 1 : -1;
    }
    snap(in, comp, p, q);
    memset(pt, 0, sizeof *pt);
    pt->comp = comp, pt->i = q[0], pt->j = q[1], pt->k = q[2];
    ++in->nprobe, ++in->npoint;
  }
  if (in->npoint) { /* the first point's neighbours: downstream, then upstream */
    const fdtd_point first = in->probes[in->point_first];
    const long at = dir == 0 ? first.i : dir == 1 ? first.j : first.k;
    const long last = dir == first.comp ? in->n[dir] - 1 : in->n[dir];
    if (at - 1 < 0 || at + 1 > last)
      return fdtd_input_fail(err, n, "%s: point: the first point needs a neighbour either side along %c", in->point.where[0], 'x' + dir);
    for (k = 0; k < 2; ++k) {
      fdtd_point *pt = &in->probes[in->nprobe++];
      long *c = dir == 0 ? &pt->i : dir == 1 ? &pt->j : &pt->k;
      *pt = first;
      *c += k ? -sign : sign;
    }
  }
  return 0;
}

/* "X|Y|Z x y z R|L|C value": lumped loads, merged in parallel per edge. */
static int parse_loads(fdtd_input *in, const int *bc, char *err, size_t n) {
  static const char *const form = "'X|Y|Z x y z R|L|C value'";
  int k, a, q;
  in->loads = (fdtd_load *)calloc((size_t)in->load.count + 1, sizeof *in->loads);
  if (!in->loads) return fdtd_input_fail(err, n, "out of memory");
  for (k = 0; k < in->load.count; ++k) {
    char t[MAX_TOKENS][64];
    const char *where = in->load.where[k];
    const int nt = tokens(in->load.value[k], t);
    double p[3], v;
    long e[3];
    int comp;
    fdtd_load *ld;
    if (nt != 6) return fdtd_input_fail(err, n, "%s: load: expected %s", where, form);
    if ((comp = parse_axis(t[0])) < 0) return fdtd_input_fail(err, n, "%s: load: '%s' is not X, Y or Z", where, t[0]);
    if (numbers(t, 1, 4, 3, p, where, "load", form, err, n)) return -1;
    if (strlen(t[4]) != 1 || !strchr("RLCrlc", t[4][0]))
      return fdtd_input_fail(err, n, "%s: load: '%s' is not R, L or C", where, t[4]);
    if (!number(t[5], &v) || !(v > 0)) return fdtd_input_fail(err, n, "%s: load: the value must be a number > 0", where);
    for (a = 0; a < 3; ++a)
      if (!in_domain(in, a, p[a])) return fdtd_input_fail(err, n, "%s: load: point outside the domain along %c", where, 'x' + a);
    snap(in, comp, p, e);
    for (a = 0; a < 3; ++a)
      if (a != comp && face_frozen(in, bc, a) && (e[a] == 0 || e[a] == in->n[a]))
        return fdtd_input_fail(err, n, "%s: load: the edge lies on a boundary face", where);
    for (q = 0; q < in->nfeed; ++q)
      if (in->feeds[q].comp == comp && in->feeds[q].i == e[0] && in->feeds[q].j == e[1] && in->feeds[q].k == e[2])
        return fdtd_input_fail(err, n, "%s: load: the edge carries a feed or source", where);
    for (q = 0; q < in->nload; ++q) /* a second load on an edge joins the first in parallel */
      if (in->loads[q].comp == comp && in->loads[q].i == e[0] && in->loads[q].j == e[1] && in->loads[q].k == e[2]) break;
    ld = &in->loads[q];
    if (q == in->nload) ld->comp = comp, ld->i = e[0], ld->j = e[1], ld->k = e[2], ++in->nload;
    switch (toupper((unsigned char)t[4][0])) {
      case 'R': ld->g += 1.0 / v; break;
      case 'L': ld->il += 1.0 / v; break;
      default: ld->c += v; break;
    }
  }
  return 0;
}

int fdtd_input_parse(fdtd_input *in, char *err, size_t n) {
  int a, bc[3];
  for (a = 0; a < 3; ++a)
    if (parse_mesh(in, a, err, n)) return -1;
  for (a = 0; a < 3; ++a) {
    const char *s = in->bc_axis[a][0] ? in->bc_axis[a] : in->bc_all;
    bc[a] = parse_bc(s);
    if (bc[a] < 0) return fdtd_input_fail(err, n, "boundary: '%s' is not pec, mur, pml, cpml or periodic", s);
    if (in->n[a] < 2) return fdtd_input_fail(err, n, "%cmesh: at least 2 cells", 'x' + a);
  }
  if ((bc[0] == HD_FDTD_BC_PML || bc[1] == HD_FDTD_BC_PML || bc[2] == HD_FDTD_BC_PML) &&
      (bc[0] == HD_FDTD_BC_CPML || bc[1] == HD_FDTD_BC_CPML || bc[2] == HD_FDTD_BC_CPML))
    return fdtd_input_fail(err, n, "boundary: pml and cpml on one grid: pick one kind of layers");
  if (!in->npml && (bc[0] == HD_FDTD_BC_CPML || bc[1] == HD_FDTD_BC_CPML || bc[2] == HD_FDTD_BC_CPML))
    in->pml[0] = FDTD_CPML_LAYERS, in->pml[1] = FDTD_CPML_ORDER, in->pml[2] = FDTD_CPML_R0;
  if (in->ncpml && (in->ncpml != 2 || !(in->cpml[0] >= 1) || !(in->cpml[1] >= 0)))
    return fdtd_input_fail(err, n, "cpml: expected 'KAPPA,ALPHA' with kappa_max >= 1 and alpha_max >= 0 (S/m)");
  if (in->npml && (in->npml != 3 || in->pml[0] < 1 || in->pml[0] > 64 || in->pml[0] != floor(in->pml[0]) ||
                   in->pml[1] < 0 || in->pml[1] > 8 || !(in->pml[2] > 0 && in->pml[2] < 1)))
    return fdtd_input_fail(err, n, "pml: expected 'layers order R0' with 1..64 layers, order 0..8, 0 < R0 < 1");
  if (parse_materials(in, err, n) || parse_geometry(in, err, n)) return -1;
  in->feeds = (fdtd_point *)calloc((size_t)(in->feed.count + in->source.count + 1), sizeof *in->feeds);
  in->probes = (fdtd_point *)calloc((size_t)in->probe.count + in->point.count + 4, sizeof *in->probes);
  if (!in->feeds || !in->probes) return fdtd_input_fail(err, n, "out of memory");
  if (parse_points(in, &in->feed, 0, in->feeds, &in->nfeed, bc, err, n) ||
      parse_points(in, &in->source, 1, in->feeds, &in->nfeed, bc, err, n) ||
      parse_points(in, &in->probe, 2, in->probes, &in->nprobe, bc, err, n) || parse_decay(in, bc, err, n) ||
      parse_voltage_points(in, err, n) ||
      parse_loads(in, bc, err, n))
    return -1;
  if (in->wave_file[0]) {
    free(in->wave_tab), in->wave_tab = NULL;
    if (fdtd_waveform_read(in->wave_file, &in->wave_tab, &in->wave_ntab, err, n)) return -1;
    in->waveform = HD_FDTD_TABLE;
  }
  if (in->nfeed && in->waveform != HD_FDTD_TABLE && !(in->freq > 0))
    return fdtd_input_fail(err, n, "frequency: sources need a frequency > 0 (or a waveform-file)");
  return 0;
}

double fdtd_input_dt_max(const fdtd_input *in) {
  double dmin[3];
  int a;
  long k;
  for (a = 0; a < 3; ++a) {
    dmin[a] = in->node[a][1] - in->node[a][0];
    for (k = 1; k < in->n[a]; ++k)
      if (in->node[a][k + 1] - in->node[a][k] < dmin[a]) dmin[a] = in->node[a][k + 1] - in->node[a][k];
  }
  return hd_fdtd_dt_max(dmin);
}

int fdtd_input_bc(const fdtd_input *in, int a) {
  return parse_bc(in->bc_axis[a][0] ? in->bc_axis[a] : in->bc_all);
}

double fdtd_model_bytes(const fdtd_input *in, const long ln[3], size_t real_size) {
  fdtd_model m;
  double nodes = 1.0, inner = 1.0;
  int a;
  memset(&m, 0, sizeof m);
  for (a = 0; a < 3; ++a) m.bc[a] = fdtd_input_bc(in, a);
  m.pml_layers = (int)in->pml[0];
  for (a = 0; a < 3; ++a) {
    const long n = ln ? ln[a] : in->n[a], row = n + 1 + 2 * fdtd_pad(&m);
    nodes *= (double)(a ? row : (row + FDTD_ROW - 1) / FDTD_ROW * FDTD_ROW);
    inner *= (double)n + 1;
  }
  /* 6 fields and 6 material bytes a node; PML: 2 split values and a
   * 20-byte point per component outside the physical nodes */
  return nodes * (6.0 * real_size + 6.0) +
         (fdtd_pad(&m) > 1 ? 6.0 * (nodes - inner) * (2.0 * real_size + 20.0) : 0.0);
}

int fdtd_input_add(cli_list *l, const char *value, const char *where) {
  if (l->count == l->cap) {
    const int cap = l->cap ? 2 * l->cap : 16;
    char **v = (char **)realloc(l->value, (size_t)cap * sizeof *v), **w;
    if (!v) return -1;
    l->value = v;
    w = (char **)realloc(l->where, (size_t)cap * sizeof *w);
    if (!w) return -1;
    l->where = w;
    l->cap = cap;
  }
  l->value[l->count] = (char *)malloc(strlen(value) + 1);
  l->where[l->count] = (char *)malloc(strlen(where) + 1);
  if (!l->value[l->count] || !l->where[l->count]) return -1;
  strcpy(l->value[l->count], value);
  strcpy(l->where[l->count], where);
  ++l->count;
  return 0;
}

int fdtd_input_benchmark(fdtd_input *in, long nc, char *err, size_t n) {
  /* 0.2 m cube of nc^3 cells; 15 cells a wavelength sets the frequency; a
   * PEC plate 0.12 m square at z = -0.04 m over an eps_r = 2 block 0.03 m
   * thick; a quarter-wave PEC monopole from the plate's centre, fed at its
   * base through 50 ohm; Mur boundaries unless others are given */
  const double d = 0.2 / (double)nc, f = HD_FDTD_C0 / (15.0 * d), zp = -0.04;
  char mesh[64], geom[3][256], feed[256];
  const char *where = "benchmark";
  snprintf(mesh, sizeof mesh, "-0.1 %ld 0.1", nc);
  snprintf(geom[0], sizeof geom[0], "2 box -0.06 0.06 -0.06 0.06 %.17g %.17g", zp - 0.03, zp);
  snprintf(geom[1], sizeof geom[1], "1 box -0.06 0.06 -0.06 0.06 %.17g %.17g", zp, zp);
  snprintf(geom[2], sizeof geom[2], "1 box 0 0 0 0 %.17g %.17g", zp, zp + 3.75 * d);
  snprintf(feed, sizeof feed, "Z 0 0 %.17g 1 50", zp + 0.5 * d);
  if (fdtd_input_add(&in->xmesh, mesh, where) || fdtd_input_add(&in->ymesh, mesh, where) ||
      fdtd_input_add(&in->zmesh, mesh, where) || fdtd_input_add(&in->material, "2 0 1 0", where) ||
      fdtd_input_add(&in->geometry, geom[0], where) || fdtd_input_add(&in->geometry, geom[1], where) ||
      fdtd_input_add(&in->geometry, geom[2], where) || fdtd_input_add(&in->feed, feed, where))
    return fdtd_input_fail(err, n, "out of memory");
  in->freq = f; /* the boundaries as given (default Mur) */
  in->waveform = HD_FDTD_DGAUSSIAN;
  in->steps = 2001;
  return fdtd_input_parse(in, err, n);
}
