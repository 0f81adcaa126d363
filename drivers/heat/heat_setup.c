/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-heat's options into its problem: faces, materials, the initial field,
 * the time step and its limit, time blocks, the fields read from files, and
 * what a checkpoint must match.  The run itself is heat_module.c's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hd/heat.h>

#include "checkpoint.h"
#include "decomp.h"
#include "field_file.h"
#include "heat_setup.h"
#include "media.h"

/* --time-block=auto: where blocking pays, measured (doc/performance.md):
 * once the fields outgrow the caches (on the GPU its 50 MB L2 serves
 * single steps well), at the step count that measured best. */
int heat_auto_time_block(int backend, const heat_problem *p, size_t real_size) {
  const double bytes = 2.0 * (double)real_size * (double)p->n[0] * (double)p->n[1] * (double)p->n[2];
  if (backend != HD_B_CUDA) return bytes > 16e6 ? 8 : 1;
  if (bytes <= 128e6) return 1;
  return p->dim == 3 ? (real_size == 4 ? 4 : 3) : real_size == 4 ? 6 : 8;
}

/* Time blocks on several ranks (hd_decomp_halo_deep): where the blocked
 * step applies (the tuned step of a uniform medium, no source field, heat
 * accounting or face tables, which step singly), at most as many steps as
 * the thinnest block along a split axis is thick.  The steps a sweep, 1:
 * single steps. */
int heat_halo_depth(const hd_decomp *dc, const heat_problem *p, int tuned, int source_field, int tables) {
  int depth = p->time_block, r, a;
  if (dc->size == 1 || !tuned || p->nmat || p->balance || source_field || tables) return dc->size == 1 ? depth : 1;
  for (r = 0; r < dc->size; ++r) {
    long ln[3], off[3];
    hd_decomp_block(dc, r, ln, off);
    for (a = 1; a < p->dim; ++a)
      if (dc->dims[a] > 1 && ln[a] < depth) depth = (int)ln[a];
  }
  return depth;
}

static const char *const face_names[6] = {"xlo", "xhi", "ylo", "yhi", "zlo", "zhi"};

/* A face value: a number, or "@FILE", a time table (path to table). */
static int face_value(const char *s, double *v, char *table) {
  char *end;
  if (s[0] == '@' && s[1] && strlen(s + 1) < 256) return strcpy(table, s + 1), *v = 0.0, 1;
  *v = strtod(s, &end);
  return end != s && *end == '\0' && isfinite(*v);
}

/* "adiabatic", "fixed:T", "convective:H:TINF" or "flux:Q", each value a
 * number or @FILE (table[0] = 0: none) */
static int parse_bc(const char *s, int *kind, double *value, double *h, char *table, char *err, size_t n,
                    const char *key) {
  char *end;
  *value = *h = 0.0;
  table[0] = '\0';
  if (!strcmp(s, "adiabatic")) {
    *kind = HD_HEAT_ADIABATIC;
    return 0;
  }
  if (!strncmp(s, "fixed:", 6)) {
    if (face_value(s + 6, value, table)) return *kind = HD_HEAT_FIXED, 0;
  } else if (!strncmp(s, "flux:", 5)) {
    if (face_value(s + 5, value, table)) return *kind = HD_HEAT_FLUX, 0;
  } else if (!strncmp(s, "convective:", 11)) {
    *h = strtod(s + 11, &end);
    if (end != s + 11 && *end == ':' && isfinite(*h) && face_value(end + 1, value, table)) {
      if (*h >= 0) return *kind = HD_HEAT_CONVECTIVE, 0;
      snprintf(err, n, "--%s: the heat transfer coefficient %g must not be negative", key, *h);
      return -1;
    }
  }
  table[0] = '\0';
  snprintf(err, n, "--%s: '%s' is not 'adiabatic', 'fixed:T', 'convective:H:TINF' or 'flux:Q' (T, TINF, Q: a number "
           "or @FILE, a time table)", key, s);
  return -1;
}

/* The implicit scheme's choices into p: the solver and its stopping, the
 * face means; a steady state needs a face that holds the temperature. */
static int heat_implicit_problem(const heat_cli *c, heat_problem *p, char *err, size_t n) {
  int f, held = 0;
  p->scheme = c->scheme, p->solver = c->solver, p->face_mean = c->face_mean;
  p->tol = c->tol, p->tol_abs = c->tol_abs, p->max_iters = c->max_iters;
  p->presteps = (int)c->presteps, p->inner = (int)c->inner;
  if (c->scheme == HEAT_SCHEME_EXPLICIT) return 0;
  if (p->balance && c->scheme == HEAT_SCHEME_STEADY)
    return snprintf(err, n, "--balance: a steady state has no time to count heat over"), -1;
  for (f = 0; f < 2 * p->dim; ++f)
    held |= p->bc_kind[f] == HD_HEAT_FIXED || (p->bc_kind[f] == HD_HEAT_CONVECTIVE && p->bc_h[f] > 0);
  if (c->scheme == HEAT_SCHEME_STEADY && !held)
    return snprintf(err, n, "--scheme=steady: no face is fixed or convective, so no steady temperature is determined "
                    "(give one with --bc or --bc-FACE)"), -1;
  return 0;
}

/* Expand a list given with 1 or dim values into three axis values. */
static int axis_list(const char *key, int count, int dim, double *v, char *err, size_t n) {
  int d;
  if (count != 1 && count != dim) {
    snprintf(err, n, "--%s: give 1 or %d values for a %d-D run, not %d", key, dim, dim, count);
    return -1;
  }
  for (d = count; d < 3; ++d) v[d] = v[0];
  return 0;
}

int heat_build_problem(heat_cli *c, heat_problem *p, char *err, size_t n) {
  double nd[3];
  int d, f;
  memset(p, 0, sizeof *p);
  p->dim = (int)c->dim;
  for (d = 0; d < 3; ++d) nd[d] = (double)c->n[d];
  if (axis_list("n", c->nn, p->dim, nd, err, n) || axis_list("length", c->nlen, p->dim, c->length, err, n))
    return -1;
  for (d = 0; d < 3; ++d) {
    p->n[d] = d < p->dim ? (long)nd[d] : 1;
    p->length[d] = d < p->dim ? c->length[d] : c->length[0] / (double)p->n[0];
  }
  p->alpha = c->alpha;
  p->k = c->k;
  p->q = c->source;
  for (f = 0; f < 6; ++f) {
    const char *spec = c->bc_face[f][0] ? c->bc_face[f] : c->bc_all;
    char key[16];
    snprintf(key, sizeof key, c->bc_face[f][0] ? "bc-%s" : "bc", face_names[f]);
    if (parse_bc(spec, &p->bc_kind[f], &p->bc_value[f], &p->bc_h[f], c->table[f], err, n, key)) return -1;
    if (f >= 2 * p->dim && c->bc_face[f][0]) {
      snprintf(err, n, "--bc-%s: a %d-D run has no %s face", face_names[f], p->dim, face_names[f]);
      return -1;
    }
  }
  p->base = c->t0;
  if (heat_media_parse(&c->materials, &c->regions, p, err, n)) return -1;
  if (c->map_field[0] && !p->nmat) {
    snprintf(err, n, "--material-map: define the materials it numbers with --material");
    return -1;
  }
  p->init_materials = c->init == HEAT_INIT_MATERIALS && p->nmat; /* one material: --t0 everywhere */
  p->init_kind = c->init == HEAT_INIT_MATERIALS ? HD_HEAT_INIT_UNIFORM : c->init;
  p->value = c->thot;
  p->radius = c->radius > 0 ? c->radius : 0.25 * p->length[0];
  for (d = 0; d < 3; ++d) {
    p->box_lo[d] = 0.25 * p->length[d];
    p->box_hi[d] = 0.75 * p->length[d];
    p->center[d] = 0.5 * p->length[d];
    p->mode[d] = 1;
  }
  if (c->nbox) {
    if (c->nbox != 2 * p->dim) {
      snprintf(err, n, "--box: give %d values (lo,hi per axis) for a %d-D run", 2 * p->dim, p->dim);
      return -1;
    }
    for (d = 0; d < p->dim; ++d) p->box_lo[d] = c->box[2 * d], p->box_hi[d] = c->box[2 * d + 1];
  }
  if (c->ncenter) {
    if (c->ncenter != p->dim) {
      snprintf(err, n, "--center: give %d values for a %d-D run", p->dim, p->dim);
      return -1;
    }
    for (d = 0; d < p->dim; ++d) p->center[d] = c->center[d];
  }
  if (c->nmode) {
    if (c->nmode != p->dim) {
      snprintf(err, n, "--mode: give %d wave numbers for a %d-D run", p->dim, p->dim);
      return -1;
    }
    for (d = 0; d < p->dim; ++d) p->mode[d] = (int)c->mode[d];
  }
  if (c->init == HD_HEAT_INIT_SINE)
    for (d = 0; d < p->dim; ++d)
      if (p->mode[d] < 1) {
        snprintf(err, n, "--mode: sine modes need wave numbers >= 1");
        return -1;
      }
  if (c->init == HD_HEAT_INIT_BOX && c->nbox) {
    double lohi[6];
    for (d = 0; d < p->dim; ++d) lohi[2 * d] = p->box_lo[d], lohi[2 * d + 1] = p->box_hi[d];
    if (!heat_box_meets(p, lohi)) return snprintf(err, n, "--box: the hot box is wholly outside the domain"), -1;
  }
  if (c->init == HD_HEAT_INIT_SPHERE && !heat_sphere_meets(p, p->center, p->radius))
    return snprintf(err, n, "--center, --radius: the sphere is wholly outside the domain"), -1;
  {
    double dx[3], dtmax;
    for (d = 0; d < 3; ++d) dx[d] = p->length[d] / (double)p->n[d];
    dtmax = p->nmat ? hd_heat_media_dt_max(p->nmat, p->mat_k, p->mat_rhoc, NULL, dx, p->dim)
                    : hd_heat_dt_max(p->alpha, dx, p->dim);
    if (!(dtmax > 0) || !isfinite(dtmax)) /* cells so small or large that alpha dt / dx^2 leaves the doubles */
      return snprintf(err, n, "--length: cells of %g give a stability limit of %g, which no time step meets", dx[0],
                      dtmax), -1;
    p->dt = c->dt > 0 ? c->dt : 0.9 * dtmax;
    if (c->scheme != HEAT_SCHEME_EXPLICIT) {
      /* implicit steps: any step */
    } else if (p->dt > dtmax && p->nmat) {
      snprintf(err, n, "--dt: %g exceeds the explicit stability limit %g of these materials on this grid", p->dt,
               dtmax);
      return -1;
    }
    if (p->dt > dtmax && c->scheme == HEAT_SCHEME_EXPLICIT) {
      snprintf(err, n,
               "--dt: %g exceeds the explicit stability limit %g for alpha = %g on this grid "
               "(need alpha*dt*sum(1/dx^2) <= 1/2)", p->dt, dtmax, p->alpha);
      return -1;
    }
  }
  p->variant = c->com.variant;
  p->balance = c->balance;
  if (heat_implicit_problem(c, p, err, n)) return -1;
  if (!c->time_block[0] || !strcmp(c->time_block, "auto")) {
    p->time_block = -1; /* the backend's choice (heat_auto_time_block) */
  } else {
    char *end;
    const long t = strtol(c->time_block, &end, 10);
    if (end == c->time_block || *end || t < 1 || t > HEAT_MAX_TIME_BLOCK) {
      snprintf(err, n, "--time-block: '%s' is not auto or a step count from 1 to %d", c->time_block, HEAT_MAX_TIME_BLOCK);
      return -1;
    }
    p->time_block = (int)t;
  }
  return 0;
}

/* What a checkpoint of this run must match on restart. */
void heat_ckpt_template(const heat_problem *p, const char table[6][256], size_t real_size, hd_ckpt *ck) {
  int d;
  memset(ck, 0, sizeof *ck);
  snprintf(ck->driver, sizeof ck->driver, "hd-heat");
  ck->real_size = (uint32_t)real_size;
  for (d = 0; d < 3; ++d) ck->dims[d] = p->n[d];
  hd_ckpt_param(ck, "dim", "%d", p->dim);
  hd_ckpt_param(ck, "length", "%.17g,%.17g,%.17g", p->length[0], p->length[1], p->length[2]);
  hd_ckpt_param(ck, "alpha", "%.17g", p->alpha);
  hd_ckpt_param(ck, "dt", "%.17g", p->dt);
  hd_ckpt_param(ck, "source", "%.17g", p->q);
  hd_ckpt_param(ck, "conductivity", "%.17g", p->k);
  for (d = 1; d < p->nmat; ++d) hd_ckpt_param(ck, "material", "%.17g,%.17g,%.17g", p->mat_k[d], p->mat_rhoc[d], p->mat_q[d]);
  for (d = 0; d < p->nregion; ++d)
    hd_ckpt_param(ck, "region", "%d,%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", p->region[d].id, p->region[d].shape,
                  p->region[d].v[0], p->region[d].v[1], p->region[d].v[2], p->region[d].v[3], p->region[d].v[4],
                  p->region[d].v[5], p->region[d].v[6]);
  for (d = 0; d < 2 * p->dim; ++d) {
    if (table[d][0]) hd_ckpt_param(ck, "bc", "%d:@%s:%.17g", p->bc_kind[d], table[d], p->bc_h[d]);
    else hd_ckpt_param(ck, "bc", "%d:%.17g:%.17g", p->bc_kind[d], p->bc_value[d], p->bc_h[d]);
  }
  hd_ckpt_param(ck, "balance", "%d", p->balance);
}

/* This block's values of the fields given in files: the initial field and
 * the source (its cells), the material map (with a ghost layer, the
 * nearest cell of the grid, checked against the materials); the largest
 * |Q| / (rho c) of the source on every rank (q_max).  0, or -1. */
int heat_read_fields(const heat_cli *c, heat_problem *pl, const long gn[3], double **init, double **source,
                       double **map, double *q_max, char *err, size_t n) {
  const char *spec[3] = {c->init_field, c->source_field, c->map_field};
  double **out[3] = {init, source, map};
  int f, d;
  for (f = 0; f < 3; ++f) {
    hd_field_file ff;
    long lo[3], cnt[3], pad[3], i, j, k;
    double *v;
    size_t cells = 1;
    *out[f] = NULL;
    if (!spec[f][0]) continue;
    if (hd_field_file_open(&ff, spec[f], pl->dim, gn, err, n)) return -1;
    for (d = 0; d < 3; ++d) { /* the map: one more cell each side, within the grid */
      const int grow = f == 2 && d < pl->dim;
      lo[d] = grow && pl->origin[d] > 0 ? pl->origin[d] - 1 : pl->origin[d];
      cnt[d] = (grow && pl->origin[d] + pl->n[d] < gn[d] ? pl->origin[d] + pl->n[d] + 1 : pl->origin[d] + pl->n[d]) - lo[d];
      pad[d] = pl->n[d] + (grow ? 2 : 0);
      cells *= (size_t)cnt[d];
    }
    if (!(v = (double *)malloc(cells * sizeof(double)))) return snprintf(err, n, "%.300s: out of memory", ff.path), -1;
    if (hd_field_file_read(&ff, lo, cnt, v, err, n)) return free(v), -1;
    for (i = 0; i < (long)cells; ++i) {
      if (!isfinite(v[i])) return snprintf(err, n, "%.300s: a value is not finite", ff.path), free(v), -1;
      if (f == 2 && (v[i] != floor(v[i]) || v[i] < 0 || v[i] >= pl->nmat))
        return snprintf(err, n, "%.300s: a cell holds material %g; the materials are 0 .. %d", ff.path, v[i], pl->nmat - 1),
               free(v), -1;
    }
    if (f == 2) { /* padded, each ghost the nearest cell read */
      double *m = (double *)malloc((size_t)(pad[0] * pad[1] * pad[2]) * sizeof(double));
      if (!m) return free(v), snprintf(err, n, "%.300s: out of memory", ff.path), -1;
      for (k = 0; k < pad[2]; ++k)
        for (j = 0; j < pad[1]; ++j)
          for (i = 0; i < pad[0]; ++i) {
            const long at[3] = {i, j, k};
            long src[3];
            for (d = 0; d < 3; ++d) {
              const long g = pl->origin[d] + at[d] - (pad[d] > pl->n[d] ? 1 : 0); /* global cell */
              src[d] = (g < 0 ? 0 : g >= gn[d] ? gn[d] - 1 : g) - lo[d];
            }
            m[(k * pad[1] + j) * pad[0] + i] = v[(src[2] * cnt[1] + src[1]) * cnt[0] + src[0]];
          }
      free(v);
      v = m;
    }
    *out[f] = v;
  }
  pl->init_values = *init, pl->source_values = *source, pl->map_values = *map;
  *q_max = 0.0;
  if (*source) { /* against the smallest rho c, any material's */
    double rhoc = pl->k > 0 ? pl->k / pl->alpha : 1.0 / pl->alpha;
    long i, cells = pl->n[0] * pl->n[1] * pl->n[2];
    for (d = 1; d < pl->nmat; ++d) rhoc = fmin(rhoc, pl->mat_rhoc[d]);
    for (i = 0; i < cells; ++i) *q_max = fmax(*q_max, fabs((*source)[i]) / rhoc);
  }
  if (hd_par_max_doubles(q_max, 1)) return snprintf(err, n, "the source fields' maxima could not be gathered"), -1;
  return 0;
}

