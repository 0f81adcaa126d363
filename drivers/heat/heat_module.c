/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-heat's decisions for the run loop (module.h): explicit 2-D/3-D heat
 * conduction (hd/heat.h, hd/heat_media.h) with materials, fixed,
 * convective and flux faces, time tables, probes and an exact heat
 * balance; its problem comes from heat_setup.c.  doc/heat.md. */
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
#include "heat_ops.h"
#include "heat_setup.h"
#include "module.h"
#include "output.h"
#include "records.h"
#include "sys.h"
#include "tea.h"

#define PROG "hd-heat"
#define ABOUT \
  "Heat conduction dT/dt = alpha lap(T) + q on a 2-D or 3-D grid, explicit or implicit steps or the steady state; " \
  "TeaLeaf's decks run as they are; writes PREFIX.vti, PREFIX.csv and PREFIX.png." /* --help's line */

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
static int picture(const heat_problem *p, const double *field, const hd_stats *st, double t, hd_out *o, char *err,
                   size_t n) {
  const long nx = p->n[0], ny = p->n[1], k = p->dim == 3 ? p->n[2] / 2 : 0;
  double *img = (double *)malloc((size_t)(nx * ny) * sizeof(double));
  long i, j;
  int rc;
  if (!img) return snprintf(err, n, "out of host memory for the picture"), -1;
  for (j = 0; j < ny; ++j)
    for (i = 0; i < nx; ++i) img[(ny - 1 - j) * nx + i] = field[(k * ny + j) * nx + i];
  {
    char title[128], extent[128];
    hd_png_legend lg;
    snprintf(title, sizeof title, "temperature T at t = %.4g%s", t, p->dim == 3 ? ", the middle z layer" : "");
    snprintf(extent, sizeof extent, "x 0 .. %g, y 0 .. %g", p->length[0], p->length[1]);
    lg.title = title, lg.units = "T", lg.extent = extent;
    rc = hd_png_write_map(o, (int)nx, (int)ny, img, st->min, st->max, HD_PNG_SEQUENTIAL, &lg, err, n);
  }
  free(img);
  return rc;
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
  double *all_rows; /* every rank's row sums (solver_rowsum) */
  void *box;        /* every rank's block of a multigrid level (solver_gather) */
  long all_box;     /* its size in cells */
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

/* The implicit solver's exchanges on a shared grid: a vector's ghosts (on
 * the field's grid or a multigrid level's block), the sums over all rows
 * in global row order (the same on any number of ranks), and a multigrid
 * level gathered whole on every rank. */
static int solver_halo(void *arg, const hd_grid *g, void *v) {
  heat_run *r = (heat_run *)arg;
  const long ln[3] = {(long)g->n[0], (long)g->n[1], (long)g->n[2]};
  long lead, pitch;
  char err[256], *field = (char *)r->ops->field(r->state, &lead, &pitch);
  /* the field (the solution) by its allocation and the ghost corner's
     place in it, which CUDA IPC needs (it maps whole allocations: 3-D
     fields start 128 B in); the solver's own vectors are allocations */
  if ((char *)v == field + (size_t)lead * r->real_size)
    return hd_decomp_halo_padded(&r->dc, field, lead, pitch, r->real_size, 1, err, sizeof err);
  return hd_decomp_halo_block(&r->dc, v, (long)g->stride[1], ln, r->real_size, err, sizeof err);
}

/* Rank q's block of multigrid level l (whole level: n cells an axis) as
 * the local index range lo .. hi (its cells, and its ghosts where it meets
 * the grid's faces) and its offset in the whole level. */
static void level_box(const heat_run *r, int q, int l, const hd_idx n[3], long lo[3], long hi[3], long off[3]) {
  long ln[3], o[3];
  int a;
  hd_decomp_block(&r->dc, q, ln, o);
  for (a = 0; a < 3; ++a) {
    const int split = a < r->dc.dim && r->dc.dims[a] > 1;
    const long m = split ? ln[a] >> l : (long)n[a];
    off[a] = split ? o[a] >> l : 0;
    lo[a] = a < r->dc.dim && off[a] == 0 ? 0 : 1;
    hi[a] = a < r->dc.dim && off[a] + m == (long)n[a] ? m + 1 : m;
    if (a >= r->dc.dim) lo[a] = hi[a] = 0;
  }
}

static int solver_gather(void *arg, int level, const hd_grid *bg, const void *block, const hd_grid *wg, void *whole) {
  heat_run *r = (heat_run *)arg;
  const size_t rs = r->real_size;
  long lo[3], hi[3], off[3], at = 0, mine = 0, total = 0;
  int q;
  char *buf;
  for (q = 0; q < r->dc.size; ++q) { /* the boxes in rank order */
    level_box(r, q, level, wg->n, lo, hi, off);
    if (q == r->dc.rank) mine = total;
    total += (hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1);
  }
  if (total > r->all_box) {
    free(r->box);
    if (!(r->box = malloc((size_t)total * rs))) return r->all_box = 0, -1;
    r->all_box = total;
  }
  buf = (char *)r->box;
  level_box(r, r->dc.rank, level, wg->n, lo, hi, off);
  at = mine;
  { /* this rank's box, x rows at a time */
    long j, k;
    for (k = lo[2]; k <= hi[2]; ++k)
      for (j = lo[1]; j <= hi[1]; ++j, at += hi[0] - lo[0] + 1)
        memcpy(buf + (size_t)at * rs, (const char *)block + (size_t)hd_grid_at(bg, lo[0], j, k) * rs, (size_t)(hi[0] - lo[0] + 1) * rs);
  }
  if (hd_par_allgather_items(buf, rs, mine, at)) return -1;
  for (q = 0, at = 0; q < r->dc.size; ++q) {
    long j, k;
    level_box(r, q, level, wg->n, lo, hi, off);
    for (k = lo[2]; k <= hi[2]; ++k)
      for (j = lo[1]; j <= hi[1]; ++j, at += hi[0] - lo[0] + 1)
        memcpy((char *)whole + (size_t)hd_grid_at(wg, lo[0] + off[0], j + off[1], k + off[2]) * rs, buf + (size_t)at * rs,
               (size_t)(hi[0] - lo[0] + 1) * rs);
  }
  return 0;
}

/* The multigrid levels the ranks share as blocks (hd/heat_solve.h): while
 * every block's origin and extent along each split axis stay even and the
 * whole level is more than 64 cells along some axis; the rest of the cycle
 * runs on the whole level, gathered. */
#define HEAT_MG_GATHER_N 64
static int solver_dist(const hd_decomp *dc, const long gn[3]) {
  int l, q, a;
  for (l = 0;; ++l) {
    long most = 0;
    for (a = 0; a < dc->dim; ++a) {
      long n = gn[a];
      int k;
      for (k = 0; k < l; ++k) n = (n + (n > 1)) / (1 + (n > 1));
      most = n > most ? n : most;
    }
    if (most <= HEAT_MG_GATHER_N) return l;
    for (q = 0; q < dc->size; ++q) {
      long ln[3], off[3];
      hd_decomp_block(dc, q, ln, off);
      for (a = 0; a < dc->dim; ++a)
        if (dc->dims[a] > 1 && (((ln[a] >> l) & 1) || ((off[a] >> l) & 1))) return l;
    }
  }
}

static int solver_rowsum(void *arg, const double *rows, hd_idx nrows, double out[2]) {
  heat_run *r = (heat_run *)arg;
  const long grows = r->dc.gn[1] * r->dc.gn[2];
  char err[256];
  long k;
  (void)nrows;
  if (!r->all_rows && !(r->all_rows = (double *)malloc((size_t)(2 * grows) * sizeof(double)))) return -1;
  if (hd_decomp_rows_all(&r->dc, rows, 2, r->all_rows, err, sizeof err)) return -1;
  out[0] = out[1] = 0.0;
  for (k = 0; k < grows; ++k) out[0] += r->all_rows[2 * k], out[1] += r->all_rows[2 * k + 1];
  return 0;
}

/* Steps from step `step`, each followed by the halo exchange when the grid
 * is shared; with time tables the face values are set before each step
 * (those at its end, which its new ghosts take). */
static hd_status advance_steps(hd_ctx *ctx, heat_run *r, long step, long steps) {
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
                        hd_out *index, const char *prefix, const hd_vtk_meta *meta) {
  const int64_t n64[3] = {p->n[0], p->n[1], p->n[2]};
  char err[1024] = "";
  hd_vti_array arr;
  int bad, any;
  memset(&arr, 0, sizeof arr);
  arr.name = "T", arr.data = r->local, arr.single = r->real_size == 4;
  bad = r->ops->download(ctx, state, r->local) != HD_OK;
  if (bad) snprintf(err, sizeof err, "%s", ctx->msg);
  if ((any = hd_par_any(bad)) && !bad) snprintf(err, sizeof err, "the field download failed on another rank");
  if (!any && !hd_drv_write_pieces(&r->dc, prefix, index, n64, NULL, dx, NULL, &arr, 1, meta, err, sizeof err)) return 0;
  hd_fail(ctx, HD_ERR_IO, "%s", err);
  return -1;
}

/* The module's run: its options, the whole grid's problem and this block's,
 * and what the run keeps. */
typedef struct heat_mod {
  heat_cli c; /* first: its first member is the loop's */
  heat_problem p, pl;
  heat_run hr;
  heat_records rec;
  const heat_ops *ops;
  void *state;
  hd_stats st0, st;
  double cells, dx[3], vol, mem_gb, energy0, energy, write_start;
  double *probe_values, *fin, *fsrc, *fmap;
  long every;
  int csv, vti, png, probes, bal; /* output slots */
} heat_mod;

static int options(void *self, cli_opt *opts, int max) {
  heat_cli *c = (heat_cli *)self;
  const cli_opt o[] = {
      {"dim", CLI_INT, &c->dim, "2|3", "dimension (default 2)", 2, 3, 0, NULL, 0, 0, 0},
      {"n", CLI_INTS, c->n, "NX[,NY[,NZ]]", "cells per axis (default 256; one value for all axes)", 1, 1e12, 3, &c->nn, 0, 0, 0},
      {"length", CLI_REALS, c->length, "L[,LY[,LZ]]", "domain size (default 1)", 1e-300, 1e300, 3, &c->nlen, 0, 0, 0},
      {"alpha", CLI_REAL, &c->alpha, "A", "thermal diffusivity (default 1)", 1e-300, 1e300, 0, NULL, 0, 0, 0},
      {"conductivity", CLI_REAL, &c->k, "K", "thermal conductivity k (default 1; convective and flux faces, with rho c = k / alpha)", 1e-300, 1e300, 0, NULL, 0, 0, 0},
      {"dt", CLI_REAL, &c->dt, "DT", "time step (default 0.9 x the stability limit)", 1e-300, 1e300, 0, NULL, 0, 0, 0},
      {"steps", CLI_INT, &c->steps, "N", "time steps (default 1000)", 0, 1e15, 0, NULL, 0, 0, 0},
      {"source", CLI_REAL, &c->source, "Q", "uniform heat source q (default 0)", 1, 0, 0, NULL, 0, 0, 0},
      {"bc", CLI_STRING, c->bc_all, "adiabatic|fixed:T|convective:H:TINF|flux:Q", "condition on every face: zero flux, face temperature T, convection -k dT/dn = H (T - TINF), or heat flux Q flowing in (default adiabatic)", 1, 0, sizeof c->bc_all, NULL, 0, 0, 0},
      {"bc-xlo", CLI_STRING, c->bc_face[0], "BC", "condition on the x = 0 face (default: --bc's)", 1, 0, sizeof c->bc_face[0], NULL, 0, 0, 0},
      {"bc-xhi", CLI_STRING, c->bc_face[1], "BC", "condition on the x = Lx face (default: --bc's)", 1, 0, sizeof c->bc_face[1], NULL, 0, 0, 0},
      {"bc-ylo", CLI_STRING, c->bc_face[2], "BC", "condition on the y = 0 face (default: --bc's)", 1, 0, sizeof c->bc_face[2], NULL, 0, 0, 0},
      {"bc-yhi", CLI_STRING, c->bc_face[3], "BC", "condition on the y = Ly face (default: --bc's)", 1, 0, sizeof c->bc_face[3], NULL, 0, 0, 0},
      {"bc-zlo", CLI_STRING, c->bc_face[4], "BC", "condition on the z = 0 face (3-D; default: --bc's)", 1, 0, sizeof c->bc_face[4], NULL, 0, 0, 0},
      {"bc-zhi", CLI_STRING, c->bc_face[5], "BC", "condition on the z = Lz face (3-D; default: --bc's)", 1, 0, sizeof c->bc_face[5], NULL, 0, 0, 0},
      {"material", CLI_LIST, &c->materials, "K,RHO,CP[,Q[,T0]]", "a material: conductivity, density, heat capacity, volumetric source, initial temperature with --init=materials (repeat: numbered 1, 2, ...; 0 is the background: --conductivity, rho c = k / alpha, --t0)", 1, 0, 0, NULL, 0, 0, 0},
      {"region", CLI_LIST, &c->regions, "M,box,X0,X1,Y0,Y1[,Z0,Z1]|M,sphere,X,Y[,Z],R", "cells of material M (repeat; later regions win)", 1, 0, 0, NULL, 0, 0, 0},
      {"init-field", CLI_STRING, c->init_field, "FILE.vti|raw:TYPE:NX,NY[,NZ]:FILE", "initial temperature from a file: a .vti (its first scalar cell array) or raw little-endian values, TYPE u8, i32, f32 or f64, x fastest (overrides --init; default: none)", 1, 0, sizeof c->init_field, NULL, 0, 0, 0},
      {"material-map", CLI_STRING, c->map_field, "FILE.vti|raw:TYPE:NX,NY[,NZ]:FILE", "the material of every cell from a file (numbers of --material, 0 the background); --region paints over it (default: none)", 1, 0, sizeof c->map_field, NULL, 0, 0, 0},
      {"source-field", CLI_STRING, c->source_field, "FILE.vti|raw:TYPE:NX,NY[,NZ]:FILE", "volumetric heat source Q of every cell from a file (heats at Q / (rho c) of the cell's material) (default: none)", 1, 0, sizeof c->source_field, NULL, 0, 0, 0},
      {"init", CLI_CHOICE, &c->init, "uniform|box|sphere|cosine|sine|materials", "initial field (default box; materials: each material's T0, --material's fifth value)", 1, 0, 0, NULL, 0, 0, 0},
      {"t0", CLI_REAL, &c->t0, "T", "base temperature (default 0)", 1, 0, 0, NULL, 0, 0, 0},
      {"t-hot", CLI_REAL, &c->thot, "T", "box/sphere temperature or mode amplitude (default 1)", 1, 0, 0, NULL, 0, 0, 0},
      {"box", CLI_REALS, c->box, "X0,X1,Y0,Y1[,Z0,Z1]", "hot box (default: the middle half of each axis)", 1, 0, 6, &c->nbox, 0, 0, 0},
      {"center", CLI_REALS, c->center, "X,Y[,Z]", "sphere centre (default: domain centre)", 1, 0, 3, &c->ncenter, 0, 0, 0},
      {"radius", CLI_REAL, &c->radius, "R", "sphere radius (default Lx/4)", 1e-300, 1e300, 0, NULL, 0, 0, 0},
      {"mode", CLI_INTS, c->mode, "KX,KY[,KZ]", "eigenmode wave numbers (default 1 per axis)", 0, 1e9, 3, &c->nmode, 0, 0, 0},
      {"vti", CLI_FLAG, &c->vti, "yes|no", "write the final field as PREFIX.vti (default yes)", 1, 0, 0, NULL, 0, 0, 0},
      {"pieces", CLI_FLAG, &c->pieces, "yes|no", "each rank (one too) writes its block as PREFIX_pR.vti and rank 0 the index PREFIX.pvti, no rank holding the whole field (default no: rank 0 gathers PREFIX.vti; no picture with pieces)", 1, 0, 0, NULL, 0, 0, 0},
      {"png", CLI_FLAG, &c->png, "yes|no", "picture of the final field (3-D: its middle z layer) as PREFIX.png (default yes where libpng is)", 1, 0, 0, NULL, 0, 0, 0},
      {"csv-every", CLI_INT, &c->csv_every, "N", "CSV row and blow-up check every N steps (default steps/100)", 1, 1e15, 0, NULL, 0, 0, 0},
      {"probe", CLI_LIST, &c->probes, "X,Y[,Z]", "record the temperature of the cell at this point every --csv-every steps in PREFIX_probes.csv (repeat)", 1, 0, 0, NULL, 0, 0, 0},
      {"balance", CLI_FLAG, &c->balance, "yes|no", "record the heat content, the sources' heat and the heat in through each face in PREFIX_balance.csv (default no)", 1, 0, 0, NULL, 0, 0, 0},
      {"max-growth", CLI_REAL, &c->max_growth, "G",
       "stop when max |T| exceeds G x the maximum-principle bound (default 10)", 1e-300, 1e300, 0, NULL, 0, 0, 0},
      {"block", CLI_INTS, c->block, "X[,Y[,Z]]", "CUDA block shape (tuned kernel: X, Y threads and Z cells marched); CPU time blocks: Z the slab thickness (default: tuned per device)", 1, 1024, 3, &c->nblock, 0, 0, 0},
      {"scheme", CLI_CHOICE, &c->scheme, "explicit|implicit|cn|steady", "time steps: explicit (forward Euler, dt within the stability limit), implicit (backward Euler) or cn (Crank-Nicolson), any dt, each step a linear solve; steady: the steady state in one solve (default explicit)", 1, 0, 0, NULL, 0, 0, 0},
      {"solver", CLI_CHOICE, &c->solver, "cg|chebyshev|ppcg|mg", "the implicit steps' solver: TeaLeaf's CG, Chebyshev and PPCG, or CG preconditioned by multigrid (default mg)", 1, 0, 0, NULL, 0, 0, 0},
      {"tol", CLI_REAL, &c->tol, "R", "stop a solve when the residual norm falls to R times its first (default 1e-10; single precision 1e-5)", 0, 1, 0, NULL, 0, 0, 0},
      {"tol-abs", CLI_REAL, &c->tol_abs, "E", "or below E (TeaLeaf's eps) (default 0)", 0, 1e300, 0, NULL, 0, 0, 0},
      {"max-iters", CLI_INT, &c->max_iters, "N", "iterations a solve at most; a solve that misses its tolerance fails the run (default 10000)", 1, 1e9, 0, NULL, 0, 0, 0},
      {"presteps", CLI_INT, &c->presteps, "N", "chebyshev, ppcg: CG iterations of the eigenvalue estimate (default 30)", 2, 10000, 0, NULL, 0, 0, 0},
      {"ppcg-inner", CLI_INT, &c->inner, "N", "ppcg: Chebyshev steps of the preconditioner (default 10)", 1, 1000, 0, NULL, 0, 0, 0},
      {"face-mean", CLI_CHOICE, &c->face_mean, "harmonic|arithmetic", "conductance between two materials: the harmonic mean of their k (the series resistance of the half cells) or the arithmetic mean (TeaLeaf's) (default harmonic)", 1, 0, 0, NULL, 0, 0, 0},
      {"tea-summary", CLI_FLAG, &c->tea_summary, "yes|no", "print TeaLeaf's field summary (tea_volume, tea_mass, tea_internal_energy, tea_temperature) (default no; TeaLeaf decks: yes)", 1, 0, 0, NULL, 0, 0, 0},
      {"tea-densities", CLI_REALS, c->tea_densities, "RHO0,RHO1,...", "the density of each material, 0 first, for TeaLeaf's summary (TeaLeaf decks set it)", 1e-300, 1e300, HD_HEAT_MAX_MATERIALS, &c->ntea_densities, 0, 0, 0},
      {"tea-expect", CLI_REAL, &c->tea_expect, "T", "check tea_temperature against T within TeaLeaf's 0.001 %; a miss fails the run (TeaLeaf decks: tea.problems' value beside the deck, where it has one)", 1e-300, 1e300, 0, NULL, 0, 0, 0},
      {"time-block", CLI_STRING, c->time_block, "T|auto", "time steps a sweep of memory, bit-identical to single steps (uniform medium, no --balance; on several ranks also no source field or face tables, and at most the thinnest block; doc/heat.md) (default auto: " HEAT_AUTO_DOC ")", 1, 0, sizeof c->time_block, NULL, 0, 0, 0}};
  c->dim = 2;
  c->n[0] = c->n[1] = c->n[2] = 256;
  c->nn = 1;
  c->length[0] = c->length[1] = c->length[2] = 1.0;
  c->nlen = 1;
  c->alpha = 1.0;
  c->k = 1.0;
  c->steps = 1000;
  c->init = HD_HEAT_INIT_BOX;
  c->thot = 1.0;
  c->vti = 1;
  c->png = HD_PNG_BUILT;
  c->max_growth = 10.0;
  c->solver = -1; /* mg */
  c->tol = -1.0; /* the precision's default */
  strcpy(c->bc_all, "adiabatic");
  cli_set_dialect(&heat_tea_dialect); /* --input=tea.in */
  return HD_DRV_ROWS(opts, max, o);
}

static int setup(hd_drv_run *r) {
  heat_mod *h = (heat_mod *)r->self;
  heat_cli *c = &h->c;
  heat_problem *p = &h->p;
  int d, bad;
  if (c->png && !HD_PNG_BUILT) return hd_drv_bad(r, "--png: " HD_NO_PNG);
  if (r->root && heat_tea_note()[0]) fprintf(stderr, PROG ": %s: not used:%s\n", c->com.input, heat_tea_note());
  if (c->scheme == HEAT_SCHEME_STEADY) c->steps = 1; /* one solve */
  bad = heat_build_problem(c, p, r->err, sizeof r->err);
  if (!bad) bad = heat_records_init(&h->rec, (const char(*)[256])c->table, &c->probes, p, r->err, sizeof r->err);
  cli_list_free(&c->materials), cli_list_free(&c->regions), cli_list_free(&c->probes);
  if (!bad && h->rec.nprobe && !(h->probe_values = (double *)malloc((size_t)h->rec.nprobe * sizeof(double))))
    bad = snprintf(r->err, sizeof r->err, "out of host memory for the probes");
  if (bad) return HD_DRV_BAD_INPUT;
  h->cells = (double)p->n[0] * (double)p->n[1] * (double)p->n[2];
  {
    hd_grid g;
    if (!hd_grid_init(&g, p->dim, p->n[0], p->n[1], p->n[2], 1) || h->cells > 9e18)
      return hd_drv_bad(r, "--n: the grid is too large to index");
  }
  if (c->tea_expect > 0 && cli_find(r->opts, "tea-expect")->seen == 1 &&
      (cli_find(r->opts, "steps")->seen == 2 || cli_find(r->opts, "n")->seen == 2)) { /* the deck's value, another run */
    if (r->root) fprintf(stderr, PROG ": %s: tea.problems' temperature is for the deck's cells and steps: not checked\n", c->com.input);
    c->tea_expect = 0.0;
  }
  if (c->tea_summary && c->ntea_densities != (p->nmat ? p->nmat : 1))
    return hd_drv_bad(r, "--tea-densities: give %d densities, one a material (0 first)", p->nmat ? p->nmat : 1);
  if (hd_decomp_create(&h->hr.dc, p->dim, p->n, 0, 0, r->err, sizeof r->err)) return HD_DRV_BAD_INPUT;
  if (p->solver < 0) p->solver = HD_HEAT_SOLVER_MG;
  if (p->scheme != HEAT_SCHEME_EXPLICIT) p->time_block = 1; /* a solve a step */
  for (d = 0; d < c->nblock; ++d) p->block[d] = (int)c->block[d];
  h->pl = *p; /* this rank's block */
  for (d = 0; d < 3; ++d) h->pl.n[d] = h->hr.dc.ln[d], h->pl.origin[d] = h->hr.dc.off[d], h->pl.cells[d] = p->n[d];
  for (d = 0; d < 3; ++d) h->dx[d] = p->length[d] / (double)p->n[d];
  h->vol = h->dx[0] * (p->dim >= 2 ? h->dx[1] : 1.0) * (p->dim >= 3 ? h->dx[2] : 1.0);
  r->total = c->steps, r->dt = p->dt;
  if (c->pieces) c->png = 0; /* the picture would need the whole field */
  h->csv = hd_drv_slot(r, ".csv", 1, HD_DRV_SERIES);
  h->vti = hd_drv_slot(r, c->pieces ? ".pvti" : ".vti", c->vti, 0);
  r->frame_suffix = c->pieces ? ".pvti" : ".vti";
  h->png = hd_drv_slot(r, ".png", c->png, HD_DRV_PICTURE);
  h->probes = hd_drv_slot(r, "_probes.csv", h->rec.nprobe > 0, HD_DRV_SERIES);
  h->bal = hd_drv_slot(r, "_balance.csv", p->balance, HD_DRV_SERIES);
  r->no_picture = c->pieces ? "--pieces: no rank holds the whole field" : NULL;
  r->work = h->cells, r->work_unit = "cell/s";
  return HD_DRV_OK;
}

static int open_backend(hd_drv_run *r) {
  heat_mod *h = (heat_mod *)r->self;
  heat_cli *c = &h->c;
  heat_problem *p = &h->p, *pl = &h->pl;
  const heat_ops *ops;
  double padded = 1.0;
  int d;
  hd_decomp_use_backend(&h->hr.dc, r->core, &r->ctx);
  if (!(ops = h->ops = heat_ops_get(r->core->id, c->com.precision == 1)))
    return hd_drv_bad(r, "no kernels for this backend and precision");
  r->precision = ops->precision;
  if (p->time_block < 0) p->time_block = heat_auto_time_block(r->core->id, pl, ops->real_size);
  pl->time_block = p->time_block = h->hr.depth =
      heat_halo_depth(&h->hr.dc, p, c->com.variant != HD_VARIANT_GENERIC && ops->has_tuned, c->source_field[0] != 0,
                      h->rec.tables != 0);
  if (h->hr.dc.size > 1 && h->hr.depth > 1) {
    long size[3];
    hd_decomp_deep_extent(&h->hr.dc, h->hr.depth, pl->overlap, size);
  }
  if (c->com.variant == HD_VARIANT_TUNED && !ops->has_tuned)
    return hd_drv_bad(r, "--variant=tuned: backend %s has no tuned heat kernel", r->core->name);
  /* two padded fields of this rank's block on the backend; a padded host
   * copy and the interior in double for statistics, and on rank 0 the
   * whole interior for the output */
  for (d = 0; d < 3; ++d) padded *= (double)(pl->n[d] + pl->overlap[2 * d] + pl->overlap[2 * d + 1]) + (d < p->dim ? 2.0 : 0.0);
  if (p->dim == 3 && (h->hr.dc.size == 1 || h->hr.depth <= 1)) { /* rows padded to 128 B */
    const double per_line = 128.0 / (double)ops->real_size, row = (double)pl->n[0] + 2.0;
    padded *= ceil(row / per_line) * per_line / row;
  }
  r->dev_bytes = 2.0 * padded * ops->real_size;
  if (p->scheme != HEAT_SCHEME_EXPLICIT) /* the solver's six vectors; multigrid's levels, the first four or five fields */
    r->dev_bytes += (6.0 + (p->solver == HD_HEAT_SOLVER_MG ? (2.0 + p->dim) * (1.0 + 1.0 / ((1 << p->dim) - 1)) + 2.0 / ((1 << p->dim) - 1) : 0.0)) *
                    padded * ops->real_size + padded;
  r->host_bytes = padded * ops->real_size + (double)pl->n[0] * pl->n[1] * pl->n[2] * 8.0 +
                  (r->root && (c->vti || c->png) && !c->com.bench && !c->pieces ? h->cells * 8.0 : 0.0);
  h->mem_gb = (r->dev_bytes + r->host_bytes) / 1e9;
  return HD_DRV_OK;
}

static int prepare(hd_drv_run *r) {
  heat_mod *h = (heat_mod *)r->self;
  if (heat_read_fields(&h->c, &h->pl, h->p.n, &h->fin, &h->fsrc, &h->fmap, &h->p.source_field_max, r->err,
                       sizeof r->err))
    return HD_DRV_BAD_INPUT;
  return HD_DRV_OK;
}

static void banner(hd_drv_run *r, char *text, size_t n) {
  const heat_mod *h = (const heat_mod *)r->self;
  const heat_problem *p = &h->p;
  int d;
  size_t k = (size_t)snprintf(text, n, "%ld", p->n[0]);
  for (d = 1; d < p->dim && k < n; ++d) k += (size_t)snprintf(text + k, n - k, " x %ld", p->n[d]);
  if (k < n) snprintf(text + k, n - k, " cells, %.3g GB", h->mem_gb);
}

/* What else shapes what a restart writes: the probes (their cells), the
 * time tables' contents, the source field's largest heating. */
static void ckpt_records(const heat_mod *h, hd_ckpt *ck) {
  int f;
  if (h->rec.nprobe)
    hd_ckpt_param(ck, "probes", "%d:%08x", h->rec.nprobe,
                  hd_crc32(0, h->rec.probe, (size_t)h->rec.nprobe * sizeof h->rec.probe[0]));
  for (f = 0; f < 6; ++f) {
    const hd_table *t = &h->rec.table[f];
    if (t->n)
      hd_ckpt_param(ck, "table", "%d:%d:%08x", f, t->n,
                    hd_crc32(hd_crc32(0, t->t, (size_t)t->n * sizeof *t->t), t->v, (size_t)t->n * sizeof *t->v));
  }
  if (h->c.source_field[0]) hd_ckpt_param(ck, "source_field", "%.17g", h->p.source_field_max);
}

static int create(hd_drv_run *r) {
  heat_mod *h = (heat_mod *)r->self;
  heat_run *hr = &h->hr;
  const heat_problem *pl = &h->pl;
  int bad, rc;
  hr->ops = h->ops, hr->rec = &h->rec, hr->p = &h->p, hr->real_size = h->ops->real_size;
  hr->rows = (hd_stats *)malloc((size_t)(pl->n[1] * pl->n[2]) * sizeof(hd_stats));
  if ((h->c.vti || h->c.png) && !h->c.com.bench)
    hr->local = (double *)malloc((size_t)(pl->n[0] * pl->n[1] * pl->n[2]) * sizeof(double));
  if (!hr->rows || ((h->c.vti || h->c.png) && !h->c.com.bench && !hr->local))
    return hd_fail(&r->ctx, HD_ERR_NOMEM, "no host memory for the statistics"), HD_DRV_FAILED;
  bad = h->ops->create(&r->ctx, pl, &h->state) != HD_OK;
  free(h->fin), free(h->fsrc), free(h->fmap);
  h->fin = h->fsrc = h->fmap = NULL;
  h->pl.init_values = h->pl.source_values = h->pl.map_values = NULL;
  hr->state = h->state;
  if (!bad && hr->dc.size > 1) bad = halo(&r->ctx, hr) != HD_OK;
  if (!bad && hr->dc.size > 1 && pl->scheme != HEAT_SCHEME_EXPLICIT)
    h->ops->solver_comm(h->state, solver_halo, solver_rowsum, solver_gather, solver_dist(&hr->dc, h->p.n), hr);
  if ((rc = hd_drv_take_state(r, bad, h->state, h->ops->state_count, h->ops->state_io)) != HD_DRV_OK) return rc;
  heat_ckpt_template(&h->p, (const char(*)[256])h->c.table, h->ops->real_size, r->ck); /* the whole grid's: the same on every rank */
  ckpt_records(h, r->ck);
  /* the field with a ghost layer, and the face accumulators of the blocks on
     the grid's faces: checkpoints load on any rank count */
  hd_drv_ckpt_blocks(&r->ckp, &hr->dc, 1, 1);
  r->ckp.face = heat_flow_face;
  return HD_DRV_OK;
}

static void destroy(hd_drv_run *r) {
  heat_mod *h = (heat_mod *)r->self;
  if (h->state) h->ops->destroy(&r->ctx, h->state);
  heat_records_free(&h->rec);
  free(h->probe_values), free(h->fin), free(h->fsrc), free(h->fmap);
  free(h->hr.local), free(h->hr.rows), free(h->hr.all_rows), free(h->hr.box);
  cli_list_free(&h->c.materials), cli_list_free(&h->c.regions), cli_list_free(&h->c.probes);
  hd_decomp_destroy(&h->hr.dc);
}

static void csv_row(const heat_mod *h, FILE *f, long step) {
  fprintf(f, "%ld,%.17g,%.17g,%.17g,%.17g,%.17g\n", step, step * h->p.dt, h->st.min, h->st.max, h->st.sum / h->cells,
          h->st.sum * h->vol);
}

/* The probes' row of this step (rank 0 writes it). */
static int probe_row(hd_drv_run *r, heat_mod *h, long step) {
  FILE *f = r->out[h->probes].f;
  int k;
  if (heat_records_probe(&h->rec, &r->ctx, h->ops, h->state, h->hr.dc.off, h->hr.dc.ln, h->probe_values) != HD_OK)
    return HD_DRV_FAILED;
  if (!r->root) return HD_DRV_OK;
  fprintf(f, "%ld,%.17g", step, step * h->p.dt);
  for (k = 0; k < h->rec.nprobe; ++k) fprintf(f, ",%.17g", h->probe_values[k]);
  fprintf(f, "\n");
  return HD_DRV_OK;
}

static int start(hd_drv_run *r) {
  heat_mod *h = (heat_mod *)r->self;
  const heat_problem *p = &h->p;
  const long step0 = r->step0;
  if (field_stats(&r->ctx, &h->hr, h->state, &h->st) != HD_OK) return HD_DRV_FAILED;
  h->st0 = h->st; /* the run's initial field, also after restarts: growth bound and summary */
  hd_ckpt_get_value(r->ck, "min0", &h->st0.min), hd_ckpt_get_value(r->ck, "max0", &h->st0.max);
  hd_ckpt_get_value(r->ck, "sum0", &h->st0.sum);
  hd_ckpt_set_value(r->ck, "min0", h->st0.min), hd_ckpt_set_value(r->ck, "max0", h->st0.max);
  hd_ckpt_set_value(r->ck, "sum0", h->st0.sum);
  if (p->balance) { /* the heat at step 0, kept by checkpoints */
    if (balance_row(&r->ctx, &h->hr, step0, 0.0, &h->energy0, NULL) != HD_OK) return HD_DRV_FAILED;
    hd_ckpt_get_value(r->ck, "heat0", &h->energy0);
    hd_ckpt_set_value(r->ck, "heat0", h->energy0);
  }
  h->every = r->cadence[0] = h->c.csv_every > 0 ? h->c.csv_every : (h->c.steps >= 100 ? h->c.steps / 100 : 1);
  if (r->cont) return HD_DRV_OK; /* the series go on from the checkpoint's rows */
  if (h->rec.nprobe) {
    if (r->root) heat_records_probe_header(&h->rec, p->dim, r->out[h->probes].f);
    if (probe_row(r, h, step0) != HD_DRV_OK) return HD_DRV_FAILED;
  }
  if (r->root && p->balance) balance_header(p->dim, r->out[h->bal].f);
  if (p->balance && balance_row(&r->ctx, &h->hr, step0, h->energy0, &h->energy, r->root ? r->out[h->bal].f : NULL) != HD_OK)
    return HD_DRV_FAILED;
  if (r->root) {
    fprintf(r->out[h->csv].f, "step,time,min,max,mean,total_heat\n");
    csv_row(h, r->out[h->csv].f, step0);
  }
  return HD_DRV_OK;
}

static int advance(hd_drv_run *r, long steps) {
  heat_mod *h = (heat_mod *)r->self;
  return advance_steps(&r->ctx, &h->hr, r->step, steps) == HD_OK ? HD_DRV_OK : HD_DRV_FAILED;
}

/* A blow-up's message (every rank sees the same statistics); exit 1. */
static int blowup(hd_drv_run *r, const heat_mod *h) {
  const heat_problem *p = &h->p;
  const hd_stats *st = &h->st;
  if (r->root)
    fprintf(stderr, PROG ": error: non-finite temperature after step %ld (%lld bad cells, first at cell %lld,%lld,%lld); "
            "dt = %g, limit %g%s\n", r->step, (long long)st->nonfinite, (long long)(st->first_bad % p->n[0]),
            (long long)(st->first_bad / p->n[0] % p->n[1]), (long long)(st->first_bad / p->n[0] / p->n[1]), p->dt,
            hd_heat_dt_max(p->alpha, h->dx, p->dim), hd_drv_ckpt_note(r));
  return 1;
}

static int after(hd_drv_run *r, long steps) {
  heat_mod *h = (heat_mod *)r->self;
  const heat_problem *p = &h->p;
  const long step = r->step;
  double bound;
  (void)steps;
  if (step % h->every != 0 && step != h->c.steps) return HD_DRV_OK;
  if (field_stats(&r->ctx, &h->hr, h->state, &h->st) != HD_OK) return HD_DRV_FAILED;
  if (h->st.nonfinite) return blowup(r, h);
  bound = growth_bound(p, &h->rec, &h->st0, step * p->dt);
  if (p->scheme != HEAT_SCHEME_STEADY && fmax(fabs(h->st.min), fabs(h->st.max)) > h->c.max_growth * bound) {
    if (r->root)
      fprintf(stderr, PROG ": error: runaway growth after step %ld: max |T| = %g exceeds %g x the maximum-principle "
              "bound %g; dt = %g, limit %g%s\n", step, fmax(fabs(h->st.min), fabs(h->st.max)), h->c.max_growth, bound,
              p->dt, hd_heat_dt_max(p->alpha, h->dx, p->dim), hd_drv_ckpt_note(r));
    return 1;
  }
  if (r->root) csv_row(h, r->out[h->csv].f, step);
  if (h->rec.nprobe && probe_row(r, h, step) != HD_DRV_OK) return HD_DRV_FAILED;
  if (p->balance && balance_row(&r->ctx, &h->hr, step, h->energy0, &h->energy, r->root ? r->out[h->bal].f : NULL) != HD_OK)
    return HD_DRV_FAILED;
  return HD_DRV_OK;
}

/* The field now: every rank its block (pieces, from prefix, vti the
 * index), or gathered and written on rank 0 to vti and png (either may be
 * NULL).  Collective. */
static int write_field(hd_drv_run *r, hd_out *vti, hd_out *png, const char *prefix) {
  heat_mod *h = (heat_mod *)r->self;
  const heat_problem *p = &h->p;
  const hd_vtk_meta meta = hd_vtk_meta_time((double)r->step * p->dt);
  hd_ctx *ctx = &r->ctx;
  double *field;
  int bad, d;
  if (vti && h->c.pieces)
    return write_pieces(&h->hr, p, ctx, h->state, h->dx, vti, prefix, &meta) ? HD_DRV_FAILED : HD_DRV_OK;
  if (!vti && !png) return HD_DRV_OK;
  field = r->root ? (double *)malloc((size_t)h->cells * sizeof(double)) : NULL;
  bad = r->root && !field;
  if (bad) hd_fail(ctx, HD_ERR_NOMEM, "no host memory for the output field");
  if (!bad) bad = h->ops->download(ctx, h->state, h->hr.local) != HD_OK;
  if (hd_par_any(bad)) {
    free(field);
    if (!bad) hd_fail(ctx, HD_ERR_IO, "the field download failed on another rank");
    return HD_DRV_FAILED;
  }
  if (hd_decomp_gather(&h->hr.dc, h->hr.local, field, r->err, sizeof r->err)) {
    free(field);
    return hd_fail(ctx, HD_ERR_IO, "%s", r->err), HD_DRV_FAILED;
  }
  if (r->root) {
    hd_vti_array arr;
    int64_t n64[3];
    memset(&arr, 0, sizeof arr);
    for (d = 0; d < 3; ++d) n64[d] = p->n[d];
    arr.name = "T", arr.data = field, arr.single = h->ops->real_size == 4;
    bad = vti && hd_vti_write(vti, n64, NULL, h->dx, &arr, 1, &meta) != 0;
    if (bad) hd_fail(ctx, HD_ERR_IO, "cannot write %s: %s", vti->path, hd_out_error());
    if (!bad && png && picture(p, field, &h->st, (double)r->step * p->dt, png, r->err, sizeof r->err))
      bad = 1, hd_fail(ctx, HD_ERR_IO, "%s", r->err);
  }
  free(field);
  return bad ? HD_DRV_FAILED : HD_DRV_OK;
}

/* A frame: PREFIX_NNNN.vti (or .pvti and its pieces). */
static int frame(hd_drv_run *r, hd_out *o, const char *prefix) { return write_field(r, o, NULL, prefix); }

/* The final field and its picture. */
static int finish(hd_drv_run *r) {
  heat_mod *h = (heat_mod *)r->self;
  h->write_start = hd_wtime();
  return write_field(r, h->c.vti ? &r->out[h->vti] : NULL, h->c.png ? &r->out[h->png] : NULL, h->c.com.output);
}

/* TeaLeaf's field summary (collective; rank 0 prints): the volume, the
 * mass sum V rho, the initial internal energy sum V rho e0 = sum V u0 and
 * the temperature sum V rho u, rho each material's density; with an
 * expected temperature, TeaLeaf's check (within 0.001 %): a miss is exit 1. */
static int tea_summary(hd_drv_run *r, heat_mod *h, FILE *out) {
  const heat_problem *p = &h->p;
  const int nm = p->nmat ? p->nmat : 1;
  double counts[HD_HEAT_MAX_MATERIALS], mass = 0.0, ie = 0.0, temp, diff;
  hd_xsum sum;
  int m, bad = h->ops->material_sums(&r->ctx, h->state, h->c.tea_densities, &sum, counts) != HD_OK;
  if (hd_par_any(bad)) return bad ? HD_DRV_FAILED : (hd_fail(&r->ctx, HD_ERR_IO, "the field summary failed on another rank"), HD_DRV_FAILED);
  if (hd_xsum_allreduce(&sum, 1) || hd_par_sum_to_root(counts, HD_HEAT_MAX_MATERIALS))
    return hd_fail(&r->ctx, HD_ERR_IO, "summing the field summary over the ranks failed"), HD_DRV_FAILED;
  if (!r->root) return HD_DRV_OK;
  for (m = 0; m < nm; ++m) mass += counts[m] * h->vol * h->c.tea_densities[m], ie += counts[m] * h->vol * p->mat_t0[m];
  temp = hd_xsum_value(&sum);
  fprintf(out, "tea_volume: %.17g\ntea_mass: %.17g\ntea_internal_energy: %.17g\ntea_temperature: %.17g\n",
          h->cells * h->vol, mass, ie, temp);
  if (!(h->c.tea_expect > 0)) return HD_DRV_OK;
  diff = fabs(100.0 * (temp / h->c.tea_expect) - 100.0);
  fprintf(out, "tea_expected: %.17g\ntea_difference_percent: %.3g\ntea_check: %s\n", h->c.tea_expect, diff,
          diff < 0.001 ? "passed" : "failed");
  if (diff < 0.001) return HD_DRV_OK;
  fprintf(stderr, PROG ": error: tea_temperature %.15e differs from the expected %.15e by %.3g %% (TeaLeaf's check: within "
          "0.001 %%)\n", temp, h->c.tea_expect, diff);
  return 1;
}

static int summary(hd_drv_run *r, FILE *out) {
  heat_mod *h = (heat_mod *)r->self;
  const heat_problem *p = &h->p;
  const double done = h->cells * (double)(h->c.steps - r->step0);
  int d, tea = HD_DRV_OK;
  if (p->scheme != HEAT_SCHEME_EXPLICIT && r->root) {
    static const char *const schemes[4] = {"explicit", "implicit", "cn", "steady"};
    static const char *const solvers[4] = {"cg", "chebyshev", "ppcg", "mg"};
    heat_solves sv;
    h->ops->solves(h->state, &sv);
    fprintf(out, "scheme: %s\nsolver: %s\nsolves: %ld\niterations: %ld\niterations_last: %ld\nresidual_first: %.6g\n"
            "residual_last: %.6g\n", schemes[p->scheme], solvers[p->solver], sv.count, sv.iters, sv.iters_last, sv.res0, sv.res);
  }
  if (h->c.tea_summary && (tea = tea_summary(r, h, out)) == HD_DRV_FAILED) return tea;
  if (!r->root) return HD_DRV_OK;
  fprintf(out, "dim: %d\ncells: %ld", p->dim, p->n[0]);
  for (d = 1; d < p->dim; ++d) fprintf(out, " x %ld", p->n[d]);
  fprintf(out, "\nalpha: %.17g\ndt: %.17g\ndt_limit: %.17g\nsteps: %ld\ntime: %.17g\n", p->alpha, p->dt,
          hd_heat_dt_max(p->alpha, h->dx, p->dim), h->c.steps, p->dt * (double)h->c.steps);
  fprintf(out, "min: %.17g\nmax: %.17g\nmean: %.17g\ntotal_heat: %.17g\ntotal_heat_initial: %.17g\n", h->st.min,
          h->st.max, h->st.sum / h->cells, h->st.sum * h->vol, h->st0.sum * h->vol);
  /* the steps alone (halo exchanges included; statistics, whose rows are
     gathered on rank 0, and checkpoints not): what scaling tables compare */
  fprintf(out, "cell_updates_per_second: %.6g\nsteps_cell_updates_per_second: %.6g\n", r->wall > 0 ? done / r->wall : 0.0,
          r->steps_wall > 0 ? done / r->steps_wall : 0.0);
  if (p->balance) fprintf(out, "heat: %.17g\nheat_initial: %.17g\n", h->energy, h->energy0);
  /* the field's download, gather or pieces, write and commit */
  if (h->c.vti) fprintf(out, "field_write_seconds: %.6g\n", hd_wtime() - h->write_start);
  return tea;
}

/* --bench: five rounds, each against a copy of one field. */
static int bench(hd_drv_run *r) {
  heat_mod *h = (heat_mod *)r->self;
  const heat_problem *p = &h->p;
  const int rounds = 5;
  const long per_round = h->c.steps >= rounds ? h->c.steps / rounds : 1;
  heat_bench b;
  double sec = 0.0, bw = 0.0, per;
  int rc;
  if ((rc = create(r)) != HD_DRV_OK) return rc;
  b.ctx = &r->ctx, b.ops = h->ops, b.state = h->state;
  if (h->ops->advance(&r->ctx, h->state, per_round > 10 ? per_round / 10 : 1) != HD_OK || r->core->sync(&r->ctx) != HD_OK ||
      hd_drv_bench_rounds(&r->ctx, r->core, heat_bench_steps, &b, per_round, rounds,
                          (size_t)(h->cells * h->ops->real_size), &sec, &bw) != HD_OK)
    return HD_DRV_FAILED;
  if (field_stats(&r->ctx, &h->hr, h->state, &h->st) != HD_OK) return HD_DRV_FAILED;
  if (h->st.nonfinite) return blowup(r, h);
  r->bench_rate = h->cells / sec;
  per = 2.0 * h->ops->real_size + (p->nmat ? 1.0 : 0.0);
  r->bench_unit = "cell-updates/s", r->bench_ceiling = bw / per;
  printf("dim: %d\ncells: %.0f\nsteps: %ld (%d rounds, the best)\nseconds_per_step: %.6g\ncell_updates_per_second: %.6g\n"
         "effective_GB_per_second: %.6g\ncopy_GB_per_second: %.6g\nfraction_of_copy: %.3f\n"
         "bytes_per_cell_update: %d (one read, one write%s)\ntime_block: %d\n",
         p->dim, h->cells, per_round * rounds, rounds, sec, r->bench_rate, r->bench_rate * per / 1e9, bw / 1e9,
         bw > 0 ? r->bench_rate * per / bw : 0.0, (int)per, p->nmat ? ", one material byte" : "", p->time_block);
  return HD_DRV_OK;
}

const hd_drv_module hd_heat_module = {
    .prog = PROG, .about = ABOUT, .output = "heat", .size = sizeof(heat_mod), .cuda_ranks = 1, .memory = "grid",
    .options = options, .setup = setup, .open = open_backend, .bench = bench, .prepare = prepare, .banner = banner,
    .create = create, .start = start, .frame = frame, .frames = 0, .advance = advance, .after = after, .finish = finish, .summary = summary,
    .destroy = destroy};
