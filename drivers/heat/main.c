/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-heat: explicit 2-D/3-D heat conduction on the serial, OpenMP or CUDA
 * backend.  Parses and checks everything, opens every output, then runs; an
 * error at any point leaves existing files as they were.
 * Exit status: 0 success, 1 run-time failure, 2 bad usage or input. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hd/heat.h>

#include "checkpoint.h"
#include "decomp.h"
#include "driver.h"
#include "field_file.h"
#include "heat_ops.h"
#include "media.h"
#include "output.h"
#include "records.h"
#include "sys.h"

#define PROG "hd-heat"
#define HEAT_MAX_TIME_BLOCK 64
#define HEAT_AUTO_DOC \
  "where the two fields pass 16 MB on the CPU backends or 128 MB on CUDA: 8 (CUDA: 2-D 6 in single and 8 in double, " \
  "3-D 4 in single and 3 in double), else 1"

/* --time-block=auto: where blocking pays, measured (doc/performance.md):
 * once the fields outgrow the caches (on the GPU its 50 MB L2 serves
 * single steps well), at the step count that measured best. */
static int heat_auto_time_block(int backend, const heat_problem *p, size_t real_size) {
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
static int heat_halo_depth(const hd_decomp *dc, const heat_problem *p, int tuned, int source_field, int tables) {
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

typedef struct heat_cli {
  hd_drv_common com;
  int init, vti, png, pieces;
  long dim, n[3], steps, csv_every;
  int nn, nlen, nbox, ncenter, nmode, nblock;
  long mode[3], block[3];
  double length[3], alpha, k, dt, source, t0, thot, box[6], center[3], radius, max_growth;
  char bc_all[300], bc_face[6][300], table[6][256];
  cli_list materials, regions, probes;
  int balance;
  char init_field[4200], map_field[4200], source_field[4200];
  char time_block[16];
} heat_cli;

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

static int build_problem(heat_cli *c, heat_problem *p, char *err, size_t n) {
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
  if (heat_media_parse(&c->materials, &c->regions, p, err, n)) return -1;
  if (c->map_field[0] && !p->nmat) {
    snprintf(err, n, "--material-map: define the materials it numbers with --material");
    return -1;
  }
  p->init_kind = c->init;
  p->base = c->t0;
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
  {
    double dx[3], dtmax;
    for (d = 0; d < 3; ++d) dx[d] = p->length[d] / (double)p->n[d];
    dtmax = p->nmat ? hd_heat_media_dt_max(p->nmat, p->mat_k, p->mat_rhoc, NULL, dx, p->dim)
                    : hd_heat_dt_max(p->alpha, dx, p->dim);
    p->dt = c->dt > 0 ? c->dt : 0.9 * dtmax;
    if (p->dt > dtmax && p->nmat) {
      snprintf(err, n, "--dt: %g exceeds the explicit stability limit %g of these materials on this grid", p->dt,
               dtmax);
      return -1;
    }
    if (p->dt > dtmax) {
      snprintf(err, n,
               "--dt: %g exceeds the explicit stability limit %g for alpha = %g on this grid "
               "(need alpha*dt*sum(1/dx^2) <= 1/2)", p->dt, dtmax, p->alpha);
      return -1;
    }
  }
  p->variant = c->com.variant;
  p->balance = c->balance;
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
static void ckpt_template(const heat_problem *p, const char table[6][256], size_t real_size, hd_ckpt *ck) {
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

/* The maximum principle: forward Euler below its stability limit averages
 * neighbours, so |T| stays within the initial field, the fixed face values
 * and the ambient temperatures of convective faces, plus what the sources
 * add, (|q| + max_m |Q_m| / (rho c)_m) t, and what each flux face adds to
 * the cells beside it, |q''| t / (rho c dx) with the smallest rho c (k /
 * alpha without materials).  Growing past G times that
 * is a runaway (round-off alone never comes near). */
static double growth_bound(const heat_problem *p, const heat_records *rec, const hd_stats *st0, double t) {
  double b = fmax(fabs(st0->min), fabs(st0->max)), rate = fabs(p->q) + p->source_field_max, rhoc = p->k / p->alpha;
  int f, m;
  for (m = 0; m < p->nmat; ++m) { /* materials: the smallest rho c, the largest Q / rho c */
    rhoc = m ? fmin(rhoc, p->mat_rhoc[m]) : p->mat_rhoc[0];
    rate = fmax(rate, fabs(p->q) + p->source_field_max + fabs(p->mat_q[m]) / p->mat_rhoc[m]);
  }
  for (f = 0; f < 2 * p->dim; ++f) {
    const double v = heat_records_face_max(rec, p, f);
    if (p->bc_kind[f] == HD_HEAT_FIXED || p->bc_kind[f] == HD_HEAT_CONVECTIVE) b = fmax(b, v);
    if (p->bc_kind[f] == HD_HEAT_FLUX) rate += v / (rhoc * p->length[f / 2] / (double)p->n[f / 2]);
  }
  return b + rate * t;
}

/* The final field as a picture: 2-D whole, 3-D its middle z layer; y up,
 * the scale from the coldest to the hottest cell of the whole field. */
static int picture(const heat_problem *p, const double *field, const hd_stats *st, hd_out *o, char *err, size_t n) {
  const long nx = p->n[0], ny = p->n[1], k = p->dim == 3 ? p->n[2] / 2 : 0;
  double *img = (double *)malloc((size_t)(nx * ny) * sizeof(double));
  long i, j;
  int rc;
  if (!img) return snprintf(err, n, "out of host memory for the picture"), -1;
  for (j = 0; j < ny; ++j)
    for (i = 0; i < nx; ++i) img[(ny - 1 - j) * nx + i] = field[(k * ny + j) * nx + i];
  rc = hd_png_write_map(o, (int)nx, (int)ny, img, st->min, st->max, HD_PNG_SEQUENTIAL, err, n);
  free(img);
  return rc;
}

/* This block's values of the fields given in files: the initial field and
 * the source (its cells), the material map (with a ghost layer, the
 * nearest cell of the grid, checked against the materials); the largest
 * |Q| / (rho c) of the source on every rank (q_max).  0, or -1. */
static int read_fields(const heat_cli *c, heat_problem *pl, const long gn[3], double **init, double **source,
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

/* A distributed run: this rank's block, its interior as doubles for the
 * statistics, and the ops that step it. */
typedef struct heat_run {
  hd_decomp dc;
  const heat_ops *ops;
  void *state;
  const heat_records *rec; /* face tables: a step at a time */
  const heat_problem *p;
  double *local;  /* the block's cells on the host, for the output field */
  hd_stats *rows; /* the block's row statistics */
  size_t real_size;
  int depth; /* halos this many cells deep (time blocks) */
} heat_run;

static hd_status halo(hd_ctx *ctx, void *arg) {
  heat_run *r = (heat_run *)arg;
  char err[256];
  long lead, pitch;
  void *alloc = r->ops->field(r->state, &lead, &pitch);
  if (hd_decomp_halo_padded(&r->dc, alloc, lead, pitch, r->real_size, r->depth, err, sizeof err))
    return hd_fail(ctx, HD_ERR_IO, "%s", err);
  return HD_OK;
}

/* Steps from step `step`, each followed by the halo exchange when the grid
 * is shared; with time tables the face values are set before each step
 * (those at its end, which its new ghosts take). */
static hd_status advance(hd_ctx *ctx, heat_run *r, long step, long steps) {
  int shared[6], f;
  long n;
  hd_status s = HD_OK;
  for (f = 0; f < 6; ++f) shared[f] = r->dc.size > 1 && !hd_decomp_owns_face(&r->dc, f);
  for (n = 0; n < steps && s == HD_OK;) {
    const long chunk = r->rec->tables ? 1 : steps;
    if (r->rec->tables) {
      double value[6];
      heat_records_faces(r->rec, r->p, (double)(step + n + 1) * r->p->dt, value);
      if ((s = r->ops->set_faces(ctx, r->state, value)) != HD_OK) break;
    }
    s = r->dc.size == 1 ? r->ops->advance(ctx, r->state, chunk)
                        : r->ops->advance_halo(ctx, r->state, chunk, shared, halo, r);
    n += chunk;
  }
  return s;
}

/* The heat balance row: content, sources and faces so far, and what they
 * leave unexplained. */
static hd_status balance_row(hd_ctx *ctx, heat_run *r, long step, double energy0, double *energy, FILE *f) {
  const heat_problem *p = r->p;
  hd_xsum e, faces[6];
  double counts[HD_HEAT_MAX_MATERIALS], source_step = 0.0, in = 0.0, v[6], vol = p->dt;
  int k;
  hd_xsum fsrc;
  hd_status s = r->ops->balance(ctx, r->state, &e, faces, counts, &fsrc);
  if (hd_par_any(s != HD_OK)) return s != HD_OK ? s : hd_fail(ctx, HD_ERR_IO, "the heat balance failed on another rank");
  if (hd_xsum_allreduce(&e, 1) || hd_xsum_allreduce(faces, 6) || hd_xsum_allreduce(&fsrc, 1) ||
      hd_par_sum_to_root(counts, HD_HEAT_MAX_MATERIALS))
    return hd_fail(ctx, HD_ERR_IO, "summing the heat balance over the ranks failed");
  *energy = hd_xsum_value(&e);
  if (!f) return HD_OK;
  for (k = 0; k < p->dim; ++k) vol *= p->length[k] / (double)p->n[k]; /* dt V */
  for (k = 0; k < (p->nmat ? p->nmat : 1); ++k) /* sum_m cells_m (Q_m + (rho c)_m q) dt V */
    source_step += counts[k] * vol * (p->nmat ? p->mat_q[k] + p->mat_rhoc[k] * p->q : (p->k > 0 ? p->k : 1.0) / p->alpha * p->q);
  source_step = (source_step + hd_xsum_value(&fsrc)) * (double)step;
  fprintf(f, "%ld,%.17g,%.17g,%.17g", step, step * r->p->dt, *energy, source_step);
  for (k = 0; k < 2 * r->p->dim; ++k) {
    v[k] = hd_xsum_value(&faces[k]);
    in += v[k];
    fprintf(f, ",%.17g", v[k]);
  }
  fprintf(f, ",%.17g\n", *energy - energy0 - source_step - in);
  return HD_OK;
}

static void balance_header(int dim, FILE *f) {
  static const char *const names[6] = {"xlo", "xhi", "ylo", "yhi", "zlo", "zhi"};
  int k;
  fprintf(f, "step,time,heat,source_heat");
  for (k = 0; k < 2 * dim; ++k) fprintf(f, ",in_%s", names[k]);
  fprintf(f, ",imbalance\n");
}

/* Statistics of the whole grid in an order independent of the ranks. */
static hd_status field_stats(hd_ctx *ctx, heat_run *r, void *state, hd_stats *out) {
  char err[256];
  int bad = r->ops->row_stats(ctx, state, r->rows) != HD_OK;
  if (hd_par_any(bad)) return bad ? ctx->status : hd_fail(ctx, HD_ERR_IO, "statistics failed on another rank");
  if (hd_decomp_stats(&r->dc, r->rows, out, err, sizeof err)) return hd_fail(ctx, HD_ERR_IO, "%s", err);
  return HD_OK;
}

typedef struct heat_bench {
  hd_ctx *ctx;
  const heat_ops *ops;
  void *state;
} heat_bench;

static hd_status heat_bench_steps(void *arg, long steps) {
  heat_bench *b = (heat_bench *)arg;
  return b->ops->advance(b->ctx, b->state, steps);
}

/* Output by pieces (hd_drv_write_pieces): the field of this rank's block.
 * 0, or -1 with the message in ctx. */
static int write_pieces(heat_run *r, const heat_problem *p, hd_ctx *ctx, void *state, const double dx[3],
                        hd_out *index, const char *prefix) {
  const int64_t n64[3] = {p->n[0], p->n[1], p->n[2]};
  char err[1024] = "";
  hd_vti_array arr;
  int bad, any;
  arr.name = "T", arr.data = r->local, arr.single = r->real_size == 4;
  bad = r->ops->download(ctx, state, r->local) != HD_OK;
  if (bad) snprintf(err, sizeof err, "%s", ctx->msg);
  if ((any = hd_par_any(bad)) && !bad) snprintf(err, sizeof err, "the field download failed on another rank");
  if (!any && !hd_drv_write_pieces(&r->dc, prefix, index, n64, dx, NULL, &arr, 1, err, sizeof err)) return 0;
  hd_fail(ctx, HD_ERR_IO, "%s", err);
  return -1;
}

static int run(int argc, char **argv) {
  heat_cli c;
  heat_problem p, pl;
  heat_run hr;
  const heat_ops *ops;
  const hd_core_ops *core;
  hd_ctx ctx;
  hd_out csv, vti, png, probes, bal, *outs[5];
  const char *suffix[5] = {".csv", ".vti", ".png", "_probes.csv", "_balance.csv"};
  heat_records rec;
  hd_stats st0, st;
  hd_progress prog;
  char err[1024], why[512];
  void *state = NULL;
  double cells, dx[3], vol, t_start, wall = 0.0, steps_wall = 0.0, write_wall = 0.0, cups, mem_gb = 0.0;
  long step = 0, step0 = 0;
  int d, rc, cp, root, bad, cont = 0, want[5];
  double energy0 = 0.0, energy = 0.0, *probe_values = NULL, *fin = NULL, *fsrc = NULL, *fmap = NULL;
  hd_drv_ckpt ckp;
  static hd_ckpt ck; /* large: keep it off the stack */
  char ckpath[4096 + 32] = "";
  cli_opt opts[] = {
      HD_DRV_COMMON_OPTIONS(c.com),
      HD_DRV_BENCH_FLAG(c.com),
      HD_DRV_CHECKPOINT_OPTIONS(c.com),
      {"dim", CLI_INT, &c.dim, "2|3", "dimension (default 2)", 2, 3, 0, NULL, 0, 0, 0},
      {"n", CLI_INTS, c.n, "NX[,NY[,NZ]]", "cells per axis (default 256; one value for all axes)", 1, 1e12, 3, &c.nn, 0, 0, 0},
      {"length", CLI_REALS, c.length, "L[,LY[,LZ]]", "domain size (default 1)", 1e-300, 1e300, 3, &c.nlen, 0, 0, 0},
      {"alpha", CLI_REAL, &c.alpha, "A", "thermal diffusivity (default 1)", 1e-300, 1e300, 0, NULL, 0, 0, 0},
      {"conductivity", CLI_REAL, &c.k, "K", "thermal conductivity k (default 1; convective and flux faces, with rho c = k / alpha)", 1e-300, 1e300, 0, NULL, 0, 0, 0},
      {"dt", CLI_REAL, &c.dt, "DT", "time step (default 0.9 x the stability limit)", 1e-300, 1e300, 0, NULL, 0, 0, 0},
      {"steps", CLI_INT, &c.steps, "N", "time steps (default 1000)", 0, 1e15, 0, NULL, 0, 0, 0},
      {"source", CLI_REAL, &c.source, "Q", "uniform heat source q (default 0)", 1, 0, 0, NULL, 0, 0, 0},
      {"bc", CLI_STRING, c.bc_all, "adiabatic|fixed:T|convective:H:TINF|flux:Q", "condition on every face: zero flux, face temperature T, convection -k dT/dn = H (T - TINF), or heat flux Q flowing in (default adiabatic)", 1, 0, sizeof c.bc_all, NULL, 0, 0, 0},
      {"bc-xlo", CLI_STRING, c.bc_face[0], "BC", "condition on the x = 0 face", 1, 0, sizeof c.bc_face[0], NULL, 0, 0, 0},
      {"bc-xhi", CLI_STRING, c.bc_face[1], "BC", "condition on the x = Lx face", 1, 0, sizeof c.bc_face[1], NULL, 0, 0, 0},
      {"bc-ylo", CLI_STRING, c.bc_face[2], "BC", "condition on the y = 0 face", 1, 0, sizeof c.bc_face[2], NULL, 0, 0, 0},
      {"bc-yhi", CLI_STRING, c.bc_face[3], "BC", "condition on the y = Ly face", 1, 0, sizeof c.bc_face[3], NULL, 0, 0, 0},
      {"bc-zlo", CLI_STRING, c.bc_face[4], "BC", "condition on the z = 0 face (3-D)", 1, 0, sizeof c.bc_face[4], NULL, 0, 0, 0},
      {"bc-zhi", CLI_STRING, c.bc_face[5], "BC", "condition on the z = Lz face (3-D)", 1, 0, sizeof c.bc_face[5], NULL, 0, 0, 0},
      {"material", CLI_LIST, &c.materials, "K,RHO,CP[,Q]", "a material: conductivity, density, heat capacity, volumetric source (repeat: numbered 1, 2, ...; 0 is the background: --conductivity, rho c = k / alpha)", 1, 0, 0, NULL, 0, 0, 0},
      {"region", CLI_LIST, &c.regions, "M,box,X0,X1,Y0,Y1[,Z0,Z1]|M,sphere,X,Y[,Z],R", "cells of material M (repeat; later regions win)", 1, 0, 0, NULL, 0, 0, 0},
      {"init-field", CLI_STRING, c.init_field, "FILE.vti|raw:TYPE:NX,NY[,NZ]:FILE", "initial temperature from a file: a .vti this program wrote (its first cell array) or raw little-endian values, TYPE u8, i32, f32 or f64, x fastest (overrides --init)", 1, 0, sizeof c.init_field, NULL, 0, 0, 0},
      {"material-map", CLI_STRING, c.map_field, "FILE.vti|raw:TYPE:NX,NY[,NZ]:FILE", "the material of every cell from a file (numbers of --material, 0 the background); --region paints over it", 1, 0, sizeof c.map_field, NULL, 0, 0, 0},
      {"source-field", CLI_STRING, c.source_field, "FILE.vti|raw:TYPE:NX,NY[,NZ]:FILE", "volumetric heat source Q of every cell from a file (heats at Q / (rho c) of the cell's material)", 1, 0, sizeof c.source_field, NULL, 0, 0, 0},
      {"init", CLI_CHOICE, &c.init, "uniform|box|sphere|cosine|sine", "initial field (default box)", 1, 0, 0, NULL, 0, 0, 0},
      {"t0", CLI_REAL, &c.t0, "T", "base temperature (default 0)", 1, 0, 0, NULL, 0, 0, 0},
      {"t-hot", CLI_REAL, &c.thot, "T", "box/sphere temperature or mode amplitude (default 1)", 1, 0, 0, NULL, 0, 0, 0},
      {"box", CLI_REALS, c.box, "X0,X1,Y0,Y1[,Z0,Z1]", "hot box (default: the middle half of each axis)", 1, 0, 6, &c.nbox, 0, 0, 0},
      {"center", CLI_REALS, c.center, "X,Y[,Z]", "sphere centre (default: domain centre)", 1, 0, 3, &c.ncenter, 0, 0, 0},
      {"radius", CLI_REAL, &c.radius, "R", "sphere radius (default Lx/4)", 1e-300, 1e300, 0, NULL, 0, 0, 0},
      {"mode", CLI_INTS, c.mode, "KX,KY[,KZ]", "eigenmode wave numbers (default 1 per axis)", 0, 1e9, 3, &c.nmode, 0, 0, 0},
      {"vti", CLI_FLAG, &c.vti, "yes|no", "write the final field as PREFIX.vti (default yes)", 1, 0, 0, NULL, 0, 0, 0},
      {"pieces", CLI_FLAG, &c.pieces, "yes|no", "each rank (one too) writes its block as PREFIX_pR.vti and rank 0 the index PREFIX.pvti, no rank holding the whole field (default no: rank 0 gathers PREFIX.vti; no picture with pieces)", 1, 0, 0, NULL, 0, 0, 0},
      {"png", CLI_FLAG, &c.png, "yes|no", "picture of the final field (3-D: its middle z layer) as PREFIX.png (default yes where libpng is)", 1, 0, 0, NULL, 0, 0, 0},
      {"csv-every", CLI_INT, &c.csv_every, "N", "CSV row and blow-up check every N steps (default steps/100)", 1, 1e15, 0, NULL, 0, 0, 0},
      {"probe", CLI_LIST, &c.probes, "X,Y[,Z]", "record the temperature of the cell at this point every --csv-every steps in PREFIX_probes.csv (repeat)", 1, 0, 0, NULL, 0, 0, 0},
      {"balance", CLI_FLAG, &c.balance, "yes|no", "record the heat content, the sources' heat and the heat in through each face in PREFIX_balance.csv (default no)", 1, 0, 0, NULL, 0, 0, 0},
      {"max-growth", CLI_REAL, &c.max_growth, "G",
       "stop when max |T| exceeds G x the maximum-principle bound (default 10)", 1e-300, 1e300, 0, NULL, 0, 0, 0},
      {"block", CLI_INTS, c.block, "X[,Y[,Z]]", "CUDA block shape (tuned kernel: X, Y threads and Z cells marched); CPU time blocks: Z the slab thickness", 1, 1024, 3, &c.nblock, 0, 0, 0},
      {"time-block", CLI_STRING, c.time_block, "T|auto", "time steps a sweep of memory, bit-identical to single steps (uniform medium, no --balance; on several ranks also no source field or face tables, and at most the thinnest block; doc/heat.md) (default auto: " HEAT_AUTO_DOC ")", 1, 0, sizeof c.time_block, NULL, 0, 0, 0},
      HD_DRV_END_OPTIONS};

  memset(&c, 0, sizeof c);
  outs[0] = &csv, outs[1] = &vti, outs[2] = &png, outs[3] = &probes, outs[4] = &bal;
  memset(&csv, 0, sizeof csv), memset(&vti, 0, sizeof vti), memset(&png, 0, sizeof png);
  memset(&probes, 0, sizeof probes), memset(&bal, 0, sizeof bal), memset(&rec, 0, sizeof rec);
  hd_drv_common_defaults(&c.com, "heat");
  c.dim = 2;
  c.n[0] = c.n[1] = c.n[2] = 256;
  c.nn = 1;
  c.length[0] = c.length[1] = c.length[2] = 1.0;
  c.nlen = 1;
  c.alpha = 1.0;
  c.k = 1.0;
  c.steps = 1000;
  c.init = HD_HEAT_INIT_BOX;
  c.thot = 1.0;
  c.vti = 1;
  c.png = HD_PNG_BUILT;
  c.max_growth = 10.0;
  strcpy(c.bc_all, "adiabatic");

  if ((rc = hd_drv_parse(opts, argc, argv, PROG,
                         "Explicit heat conduction dT/dt = alpha lap(T) + q on a 2-D or 3-D grid; "
                         "writes PREFIX.vti, PREFIX.csv and PREFIX.png.")) >= 0)
    return rc;
  rc = 0;
  if (c.png && !HD_PNG_BUILT) return hd_drv_usage_error(PROG, "--png: " HD_NO_PNG);
  d = build_problem(&c, &p, err, sizeof err);
  if (!d) d = heat_records_init(&rec, (const char(*)[256])c.table, &c.probes, &p, err, sizeof err);
  cli_list_free(&c.materials), cli_list_free(&c.regions), cli_list_free(&c.probes);
  if (!d && rec.nprobe && !(probe_values = (double *)malloc((size_t)rec.nprobe * sizeof(double))))
    d = -1, snprintf(err, sizeof err, "out of host memory for the probes");
  if (d) {
    heat_records_free(&rec);
    return hd_drv_usage_error(PROG, err);
  }

  cells = (double)p.n[0] * (double)p.n[1] * (double)p.n[2];
  {
    hd_grid g;
    if (!hd_grid_init(&g, p.dim, p.n[0], p.n[1], p.n[2], 1) || cells > 9e18)
      return hd_drv_usage_error(PROG, "--n: the grid is too large to index");
  }

  if (hd_drv_ckpt_init(&ckp, &c.com, err, sizeof err)) return hd_drv_usage_error(PROG, err);
  memset(&hr, 0, sizeof hr);
  if (hd_decomp_create(&hr.dc, p.dim, p.n, 0, 0, err, sizeof err)) return hd_drv_usage_error(PROG, err);
  root = hr.dc.rank == 0;
  if ((rc = hd_drv_ranks_options(PROG, &c.com, 1)) != 0) {
    hd_decomp_destroy(&hr.dc);
    return rc;
  }
  for (d = 0; d < c.nblock; ++d) p.block[d] = (int)c.block[d];
  pl = p; /* this rank's block */
  for (d = 0; d < 3; ++d) pl.n[d] = hr.dc.ln[d], pl.origin[d] = hr.dc.off[d], pl.cells[d] = p.n[d];
  if ((rc = hd_drv_open(PROG, &c.com, &ctx, &core, why, sizeof why)) != 0) return rc;
  hd_decomp_use_backend(&hr.dc, core, &ctx);
  ops = heat_ops_get(core->id, c.com.precision == 1);
  if (!ops) {
    fprintf(stderr, PROG ": error: no %s kernels for backend %s\n", c.com.precision ? "single" : "double", core->name);
    return 2;
  }
  if (p.time_block < 0) p.time_block = heat_auto_time_block(core->id, &pl, ops->real_size);
  pl.time_block = p.time_block = hr.depth =
      heat_halo_depth(&hr.dc, &p, c.com.variant != HD_VARIANT_GENERIC && ops->has_tuned, c.source_field[0] != 0,
                      rec.tables != 0);
  if (hr.dc.size > 1 && hr.depth > 1) {
    long size[3];
    hd_decomp_deep_extent(&hr.dc, hr.depth, pl.overlap, size);
  }
  if (c.com.variant == HD_VARIANT_TUNED && !ops->has_tuned) {
    fprintf(stderr, PROG ": error: --variant=tuned: backend %s has no tuned heat kernel\n", core->name);
    return 2;
  }
  {
    /* two padded fields of this rank's block on the backend; a padded host
     * copy and the interior in double for statistics, and on rank 0 the
     * whole interior for the output */
    double padded = 1.0, dev_bytes, host_bytes;
    for (d = 0; d < 3; ++d) padded *= (double)(pl.n[d] + pl.overlap[2 * d] + pl.overlap[2 * d + 1]) + (d < p.dim ? 2.0 : 0.0);
    if (p.dim == 3 && (hr.dc.size == 1 || hr.depth <= 1)) { /* rows padded to 128 B */
      const double per_line = 128.0 / (double)ops->real_size, row = (double)pl.n[0] + 2.0;
      padded *= ceil(row / per_line) * per_line / row;
    }
    dev_bytes = 2.0 * padded * ops->real_size;
    host_bytes = padded * ops->real_size + (double)pl.n[0] * pl.n[1] * pl.n[2] * 8.0 +
                 (root && (c.vti || c.png) && !c.com.bench && !c.pieces ? cells * 8.0 : 0.0);
    rc = hd_drv_check_memory(PROG, &ctx, core, dev_bytes, host_bytes, "grid");
    if ((rc = hd_par_max_int(rc)) != 0) { /* a rank short of memory stops all */
      core->destroy(&ctx);
      return rc;
    }
    mem_gb = (dev_bytes + host_bytes) / 1e9;
  }

  if (c.pieces) suffix[1] = ".pvti", c.png = 0; /* the picture would need the whole field */
  want[0] = !c.com.bench, want[1] = c.vti && !c.com.bench, want[2] = c.png && !c.com.bench;
  want[3] = rec.nprobe && !c.com.bench, want[4] = p.balance && !c.com.bench;
  if (hd_drv_open_outputs(outs, suffix, want, 5, c.com.output, err, sizeof err)) { /* on rank 0 */
    core->destroy(&ctx);
    return hd_drv_usage_error(PROG, err);
  }
  hd_drv_ckpt_series(&ckp, &csv, suffix[0]);
  if (want[3]) hd_drv_ckpt_series(&ckp, &probes, suffix[3]);
  if (want[4]) hd_drv_ckpt_series(&ckp, &bal, suffix[4]);
  hr.ops = ops;
  hr.rec = &rec, hr.p = &p;
  hr.real_size = ops->real_size;
  hr.rows = (hd_stats *)malloc((size_t)(pl.n[1] * pl.n[2]) * sizeof(hd_stats));
  if (want[1] || want[2]) hr.local = (double *)malloc((size_t)(pl.n[0] * pl.n[1] * pl.n[2]) * sizeof(double));
  if (!hr.rows || ((want[1] || want[2]) && !hr.local)) {
    hd_fail(&ctx, HD_ERR_NOMEM, "no host memory for the statistics");
    goto runtime_error;
  }

  if (read_fields(&c, &pl, p.n, &fin, &fsrc, &fmap, &p.source_field_max, err, sizeof err)) {
    rc = hd_drv_usage_error(PROG, err);
    goto cleanup;
  }
  if (root) fprintf(stderr, PROG ": %s backend (%s), %s precision, %ld", core->name, ctx.device_name,
          ops->precision, p.n[0]);
  for (d = 1; d < p.dim && root; ++d) fprintf(stderr, " x %ld", p.n[d]);
  if (root) fprintf(stderr, " cells, %.3g GB%s%s%s%s\n", mem_gb, hr.dc.size > 1 ? "; " : "",
                    hr.dc.size > 1 ? hd_par_describe() : "", why[0] ? "; " : "", why);

  for (d = 0; d < 3; ++d) dx[d] = p.length[d] / (double)p.n[d];
  vol = dx[0] * (p.dim >= 2 ? dx[1] : 1.0) * (p.dim >= 3 ? dx[2] : 1.0);
  bad = ops->create(&ctx, &pl, &state) != HD_OK;
  free(fin), free(fsrc), free(fmap);
  fin = fsrc = fmap = NULL;
  pl.init_values = pl.source_values = pl.map_values = NULL;
  hr.state = state;
  if (!bad && hr.dc.size > 1) bad = halo(&ctx, &hr) != HD_OK;
  if (hd_par_any(bad)) {
    if (!bad) hd_fail(&ctx, HD_ERR_IO, "setting up failed on another rank");
    goto runtime_error;
  }
  ckpt_template(&p, (const char(*)[256])c.table, ops->real_size, &ck); /* the whole grid's: the same on every rank */
  /* the field with a ghost layer, and the face accumulators of the blocks on
     the grid's faces: checkpoints load on any rank count */
  hd_drv_ckpt_blocks(&ckp, &hr.dc, 1, 1);
  ckp.face = heat_flow_face;
  if (c.com.restart[0]) {
    if (hd_drv_ckpt_restore(&ctx, &ckp, &ck, state, ops->state_count(state), ops->state_io, c.com.restart, err,
                            sizeof err)) {
      rc = hd_drv_usage_error(PROG, err);
      goto cleanup;
    }
    step0 = (long)ck.step;
    if (step0 > c.steps) {
      snprintf(err, sizeof err, "restart: the checkpoint is at step %ld, beyond --steps=%ld", step0, c.steps);
      rc = hd_drv_usage_error(PROG, err);
      goto cleanup;
    }
  }
  if ((cont = hd_drv_series_resume(&ckp, &ck, err, sizeof err)) < 0) {
    rc = hd_drv_usage_error(PROG, err);
    goto cleanup;
  }
  if (field_stats(&ctx, &hr, state, &st) != HD_OK) goto runtime_error;
  st0 = st; /* the run's initial field, also after restarts: growth bound and summary */
  hd_ckpt_get_value(&ck, "min0", &st0.min), hd_ckpt_get_value(&ck, "max0", &st0.max), hd_ckpt_get_value(&ck, "sum0", &st0.sum);
  hd_ckpt_set_value(&ck, "min0", st0.min), hd_ckpt_set_value(&ck, "max0", st0.max), hd_ckpt_set_value(&ck, "sum0", st0.sum);
  if (p.balance && !c.com.bench) { /* the heat at step 0, kept by checkpoints */
    if (balance_row(&ctx, &hr, step0, 0.0, &energy0, NULL) != HD_OK) goto runtime_error;
    hd_ckpt_get_value(&ck, "heat0", &energy0);
    hd_ckpt_set_value(&ck, "heat0", energy0);
  }

  if (c.com.bench) { /* five rounds, each against a copy of one field */
    const int rounds = 5;
    const long per_round = c.steps >= rounds ? c.steps / rounds : 1;
    heat_bench bench = {&ctx, ops, state};
    double sec = 0.0, bw = 0.0, per;
    if (ops->advance(&ctx, state, per_round > 10 ? per_round / 10 : 1) != HD_OK || core->sync(&ctx) != HD_OK ||
        hd_drv_bench_rounds(&ctx, core, heat_bench_steps, &bench, per_round, rounds,
                            (size_t)(cells * ops->real_size), &sec, &bw) != HD_OK)
      goto runtime_error;
    if (field_stats(&ctx, &hr, state, &st) != HD_OK) goto runtime_error;
    if (st.nonfinite) goto blowup;
    cups = cells / sec;
    per = 2.0 * ops->real_size + (p.nmat ? 1.0 : 0.0);
    printf("program: " PROG "\nbackend: %s\ndevice: %s\nprecision: %s\ndim: %d\ncells: %.0f\n"
           "steps: %ld (%d rounds, the best)\nseconds_per_step: %.6g\ncell_updates_per_second: %.6g\n"
           "effective_GB_per_second: %.6g\ncopy_GB_per_second: %.6g\nfraction_of_copy: %.3f\n"
           "bytes_per_cell_update: %d (one read, one write%s)\ntime_block: %d\n",
           core->name, ctx.device_name, ops->precision, p.dim, cells, per_round * rounds, rounds, sec, cups,
           cups * per / 1e9, bw / 1e9, bw > 0 ? cups * per / bw : 0.0, (int)per,
           p.nmat ? ", one material byte" : "", p.time_block);
    ops->destroy(&ctx, state);
    core->destroy(&ctx);
    heat_records_free(&rec), free(probe_values);
    return 0;
  }

  {
    long every = c.csv_every > 0 ? c.csv_every : (c.steps >= 100 ? c.steps / 100 : 1);
    if (rec.nprobe && heat_records_probe(&rec, &ctx, ops, state, hr.dc.off, hr.dc.ln, probe_values) != HD_OK)
      goto runtime_error;
    if (root && !cont && want[3]) {
      heat_records_probe_header(&rec, p.dim, probes.f);
      fprintf(probes.f, "%ld,%.17g", step0, step0 * p.dt);
      for (d = 0; d < rec.nprobe; ++d) fprintf(probes.f, ",%.17g", probe_values[d]);
      fprintf(probes.f, "\n");
    }
    if (root && !cont && want[4]) balance_header(p.dim, bal.f);
    if (want[4] && !cont && balance_row(&ctx, &hr, step0, energy0, &energy, root ? bal.f : NULL) != HD_OK)
      goto runtime_error;
    if (root && !cont) {
      fprintf(csv.f, "step,time,min,max,mean,total_heat\n");
      fprintf(csv.f, "%ld,%.17g,%.17g,%.17g,%.17g,%.17g\n", step0, step0 * p.dt, st.min, st.max, st.sum / cells,
              st.sum * vol);
    }
    hd_progress_init(&prog, c.com.progress);
    hd_signals_install();
    t_start = hd_wtime();
    for (step = step0; step < c.steps;) {
      long chunk = every - step % every;
      double t_chunk;
      if (chunk > c.steps - step) chunk = c.steps - step;
      chunk = hd_drv_ckpt_chunk(&ckp, step, chunk);
      t_chunk = hd_wtime();
      if (advance(&ctx, &hr, step, chunk) != HD_OK || core->sync(&ctx) != HD_OK) goto runtime_error;
      steps_wall += hd_wtime() - t_chunk;
      step += chunk;
      if (step % every == 0 || step == c.steps) {
        if (field_stats(&ctx, &hr, state, &st) != HD_OK) goto runtime_error;
        if (st.nonfinite) goto blowup;
        if (fmax(fabs(st.min), fabs(st.max)) > c.max_growth * growth_bound(&p, &rec, &st0, step * p.dt)) {
          if (root)
            fprintf(stderr, PROG ": error: runaway growth after step %ld: max |T| = %g exceeds %g x the "
                    "maximum-principle bound %g; dt = %g, limit %g%s%s\n", step, fmax(fabs(st.min), fabs(st.max)),
                    c.max_growth, growth_bound(&p, &rec, &st0, step * p.dt), p.dt,
                    hd_heat_dt_max(p.alpha, dx, p.dim), ckpath[0] ? "; last checkpoint " : "", ckpath);
          rc = 1;
          goto cleanup;
        }
        if (root) fprintf(csv.f, "%ld,%.17g,%.17g,%.17g,%.17g,%.17g\n", step, step * p.dt, st.min, st.max,
                st.sum / cells, st.sum * vol);
        if (rec.nprobe) {
          if (heat_records_probe(&rec, &ctx, ops, state, hr.dc.off, hr.dc.ln, probe_values) != HD_OK) goto runtime_error;
          if (root) {
            fprintf(probes.f, "%ld,%.17g", step, step * p.dt);
            for (d = 0; d < rec.nprobe; ++d) fprintf(probes.f, ",%.17g", probe_values[d]);
            fprintf(probes.f, "\n");
          }
        }
        if (p.balance && balance_row(&ctx, &hr, step, energy0, &energy, root ? bal.f : NULL) != HD_OK)
          goto runtime_error;
      }
      cp = hd_drv_ckpt_point(PROG, &ctx, &ckp, &ck, step, p.dt, step < c.steps, 0, state, ops->state_count(state),
                             ops->state_io, c.com.output, ckpath, sizeof ckpath);
      if (cp == HD_DRV_FAILED) goto runtime_error;
      if (cp != HD_DRV_GO_ON) {
        rc = cp;
        goto cleanup;
      }
      if (root) hd_progress_step(&prog, PROG, step, c.steps, cells * (double)step, "cell/s");
    }
    if (core->sync(&ctx) != HD_OK) goto runtime_error;
    wall = hd_wtime() - t_start;
    hd_progress_end(&prog);
  }

  write_wall = hd_wtime();
  if (want[1] && c.pieces) { /* every rank its block, rank 0 the index */
    if (write_pieces(&hr, &p, &ctx, state, dx, &vti, c.com.output)) goto runtime_error;
  } else if (want[1] || want[2]) { /* every rank's block, gathered and written on rank 0 */
    double *field = root ? (double *)malloc((size_t)cells * sizeof(double)) : NULL;
    bad = root && !field;
    if (bad) hd_fail(&ctx, HD_ERR_NOMEM, "no host memory for the output field");
    if (!bad) bad = ops->download(&ctx, state, hr.local) != HD_OK;
    if (hd_par_any(bad)) {
      free(field);
      if (!bad) hd_fail(&ctx, HD_ERR_IO, "the field download failed on another rank");
      goto runtime_error;
    }
    if (hd_decomp_gather(&hr.dc, hr.local, field, err, sizeof err)) {
      free(field);
      hd_fail(&ctx, HD_ERR_IO, "%s", err);
      goto runtime_error;
    }
    if (root) {
      hd_vti_array arr;
      int64_t n64[3];
      for (d = 0; d < 3; ++d) n64[d] = p.n[d];
      arr.name = "T";
      arr.data = field;
      arr.single = ops->real_size == 4;
      bad = want[1] && hd_vti_write(&vti, n64, dx, &arr, 1) != 0;
      if (bad) hd_fail(&ctx, HD_ERR_IO, "cannot write %s.vti", c.com.output);
      if (!bad && want[2] && picture(&p, field, &st, &png, err, sizeof err)) bad = 1, hd_fail(&ctx, HD_ERR_IO, "%s", err);
    }
    free(field);
    if (bad) goto runtime_error;
  }
  for (d = 0; root && d < 5; ++d)
    if (want[d] && hd_out_commit(outs[d], err, sizeof err)) { /* a failed commit has removed its temporary */
      hd_fail(&ctx, HD_ERR_IO, "%s", err);
      goto runtime_error;
    }
  write_wall = hd_wtime() - write_wall;
  free(hr.local);
  free(hr.rows);
  hd_decomp_destroy(&hr.dc);
  heat_records_free(&rec), free(probe_values);
  if (!root) {
    ops->destroy(&ctx, state);
    core->destroy(&ctx);
    return 0;
  }
  cups = wall > 0 ? cells * (double)(c.steps - step0) / wall : 0.0;
  printf("program: " PROG "\nversion: %s\nbackend: %s\ndevice: %s\nprecision: %s\ndim: %d\n", PACKAGE_VERSION,
         core->name, ctx.device_name, ops->precision, p.dim);
  printf("cells: %ld", p.n[0]);
  for (d = 1; d < p.dim; ++d) printf(" x %ld", p.n[d]);
  printf("\nalpha: %.17g\ndt: %.17g\ndt_limit: %.17g\nsteps: %ld\ntime: %.17g\n", p.alpha, p.dt,
         hd_heat_dt_max(p.alpha, dx, p.dim), c.steps, p.dt * (double)c.steps);
  printf("min: %.17g\nmax: %.17g\nmean: %.17g\ntotal_heat: %.17g\ntotal_heat_initial: %.17g\n",
         st.min, st.max, st.sum / cells, st.sum * vol, st0.sum * vol);
  printf("wall_seconds: %.6g\ncell_updates_per_second: %.6g\n", wall, cups);
  /* the steps alone (halo exchanges included; statistics, whose rows are
     gathered on rank 0, and checkpoints not): what scaling tables compare */
  printf("steps_seconds: %.6g\nsteps_cell_updates_per_second: %.6g\n", steps_wall,
         steps_wall > 0 ? cells * (double)(c.steps - step0) / steps_wall : 0.0);
  printf("outputs: %s.csv%s%s%s%s%s%s\n", c.com.output, c.vti ? " " : "", c.vti ? vti.path : "", want[3] ? " " : "",
         want[3] ? probes.path : "", want[4] ? " " : "", want[4] ? bal.path : "");
  if (want[4]) printf("heat: %.17g\nheat_initial: %.17g\n", energy, energy0);
  /* the field's download, gather or pieces, write and commit; rank 0's peak host memory (the whole run) */
  if (want[1]) printf("field_write_seconds: %.6g\n", write_wall);
  printf("host_peak_gb: %.4g\n", hd_host_peak_bytes() / 1e9);
  printf("picture: %s\n", c.png                             ? png.path
                          : c.pieces ? "none (--pieces: no rank holds the whole field)"
                          : HD_PNG_BUILT               ? "none (--png=no)"
                                                       : "none (" HD_NO_PNG ")");
  ops->destroy(&ctx, state);
  core->destroy(&ctx);
  return 0;

blowup: /* every rank sees the same statistics */
  if (root)
    fprintf(stderr, PROG ": error: non-finite temperature after step %ld (%lld bad cells, first at cell %lld,%lld,%lld); "
            "dt = %g, limit %g%s%s\n", step, (long long)st.nonfinite, (long long)(st.first_bad % p.n[0]),
            (long long)(st.first_bad / p.n[0] % p.n[1]), (long long)(st.first_bad / p.n[0] / p.n[1]), p.dt,
            hd_heat_dt_max(p.alpha, dx, p.dim), ckpath[0] ? "; last checkpoint " : "", ckpath);
  rc = 1;
  goto cleanup;
runtime_error:
  if (hr.dc.size > 1)
    fprintf(stderr, PROG ": error: rank %d: %s\n", hr.dc.rank, ctx.msg[0] ? ctx.msg : "run failed");
  else
    fprintf(stderr, PROG ": error: %s%s%s\n", ctx.msg[0] ? ctx.msg : "run failed", ckpath[0] ? "; last checkpoint " : "",
            ckpath);
  rc = 1;
  for (d = 0; d < 5; ++d) hd_out_abort(outs[d]);
  hd_par_abort(rc); /* other ranks may wait in a collective */
cleanup:
  heat_records_free(&rec), free(probe_values), free(fin), free(fsrc), free(fmap);
  free(hr.local);
  free(hr.rows);
  hd_decomp_destroy(&hr.dc);
  for (d = 0; d < 5; ++d) hd_out_abort(outs[d]);
  if (state) ops->destroy(&ctx, state);
  core->destroy(&ctx);
  return rc;
}

int main(int argc, char **argv) { return hd_drv_main_ranks(PROG, run, argc, argv); }
