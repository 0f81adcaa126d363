/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-ns: 2-D compressible Navier-Stokes with characteristic boundaries
 * (hd/ns.h, hd/nscbc.h); the seed's convected vortex, the isentropic
 * vortex and uniform flow.  doc/ns.md. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "decomp.h"
#include "driver.h"
#include "ns_ops.h"
#include "output.h"
#include "sys.h"

#define PROG "hd-ns"

static const char *const bc_names = "periodic|supersonic-in|supersonic-out|nonreflecting|subsonic-in|slip-wall|"
                                    "noslip-wall|zero-gradient";

typedef struct ns_cli {
  hd_drv_common com;
  int icase, bc[4], inviscid, png, pieces;
  long n, steps, frames, monitor_every;
  double lx, ly, mach, re, circulation, rc, gamma, pr, suth, sigma, sigma_side, beta, beta_side, sigma_in, dt, cfl, t_end;
} ns_cli;

/* The k-th name of "a|b|c" (for the summary). */
static const char *choice(const char *list, int k, char *buf, size_t n) {
  const char *s = list, *e;
  while (k-- > 0 && (s = strchr(s, '|')) != NULL) ++s;
  if (!s) return "?";
  e = strchr(s, '|');
  snprintf(buf, n, "%.*s", (int)(e ? (size_t)(e - s) : strlen(s)), s);
  return buf;
}

static double dip(const ns_cli *c) { return c->circulation * c->circulation / (2.0 * c->rc * c->rc); }

/* Fill the problem; 0, or -1 with a message. */
static int build(ns_cli *c, cli_opt *opts, ns_problem *p, char *err, size_t n) {
  const double hx = 1.0 / (double)c->n, speed = fabs(c->mach) + 1.0 +
                                                (c->icase == HD_NS_IC_UNIFORM ? 0.0 : fabs(c->circulation) / c->rc);
  double nu_eff, dtmax;
  int f;
  memset(p, 0, sizeof *p);
  if (!(c->mach >= 0)) return snprintf(err, n, "mach: %g must be >= 0", c->mach), -1;
  if ((c->bc[0] == HD_NS_PERIODIC) != (c->bc[1] == HD_NS_PERIODIC) ||
      (c->bc[2] == HD_NS_PERIODIC) != (c->bc[3] == HD_NS_PERIODIC))
    return snprintf(err, n, "bc: a periodic face needs a periodic opposite face"), -1;
  p->n[0] = (long)llround(c->n * c->lx), p->n[1] = (long)llround(c->n * c->ly);
  if (p->n[0] < 4 || p->n[1] < 4) return snprintf(err, n, "n: the box needs at least 4 cells a side"), -1;
  p->length[0] = p->n[0] * hx, p->length[1] = p->n[1] * hx;
  p->origin[0] = -0.5 * p->length[0], p->origin[1] = -0.5 * p->length[1];
  memcpy(p->bc, c->bc, sizeof p->bc);
  p->gamma = c->gamma, p->pr = c->pr, p->suth = c->suth, p->sigma = c->sigma, p->mach = c->mach;
  p->beta = cli_find(opts, "beta")->seen ? c->beta : (c->mach < 1 ? c->mach : 1.0);
  ns_nscbc_defaults(p);
  if (cli_find(opts, "sigma-side")->seen) p->sigma_side = c->sigma_side;
  if (cli_find(opts, "beta-side")->seen) p->beta_side = c->beta_side;
  if (cli_find(opts, "sigma-in")->seen) p->sigma_in = c->sigma_in;
  p->viscous = !c->inviscid;
  p->generic = c->com.variant == HD_VARIANT_GENERIC;
  p->mu_ref = c->inviscid ? 0.0 : (c->mach > 0 ? c->mach : 1.0) / c->re; /* rho u l / Re, or c l / Re at rest */
  p->ic.kind = c->icase, p->ic.gamma = c->gamma, p->ic.u_inf = c->mach, p->ic.v_inf = 0.0;
  p->ic.strength = c->circulation, p->ic.rc = c->rc;
  /* the largest diffusivity of momentum and heat, at T up to 1.2 */
  nu_eff = p->mu_ref * fmax(4.0 / 3.0, c->gamma / c->pr) * 1.2;
  dtmax = hd_ns_dt_max(speed, 1.0 + fabs(c->circulation) / c->rc, hx, hx, nu_eff);
  if (cli_find(opts, "dt")->seen) {
    if (c->dt > dtmax)
      return snprintf(err, n, "dt: %g exceeds the RK4 stability limit %.3g (CFL %.2f, viscous %.2f)", c->dt, dtmax,
                      HD_NS_CFL_MAX, HD_NS_VISC_MAX), -1;
    p->dt = c->dt;
  } else {
    p->dt = c->cfl / HD_NS_CFL_MAX * dtmax;
  }
  for (f = 0; f < 4; ++f)
    if (c->bc[f] == HD_NS_SUPERSONIC_IN && c->mach <= 1 && f == 0)
      return snprintf(err, n, "bc-left: supersonic-in needs mach > 1 (got %g)", c->mach), -1;
  return 0;
}

/* A picture of f (nodes nx x ny, row 0 at the bottom) on the blue-white-red
 * scale, scaled to its largest magnitude. */
static int picture(hd_out *o, const double *f, long nx, long ny, char *err, size_t en) {
  double *img = (double *)malloc((size_t)(nx * ny) * sizeof(double)), vmax = 0.0;
  long i, j;
  int rc;
  if (!img) return snprintf(err, en, "out of host memory for a picture"), -1;
  for (j = 0; j < ny; ++j)
    for (i = 0; i < nx; ++i) {
      img[i + (ny - 1 - j) * nx] = f[i + j * nx];
      vmax = fmax(vmax, fabs(f[i + j * nx]));
    }
  rc = hd_png_write(o, (int)nx, (int)ny, img, vmax > 0 ? vmax : 1.0, err, en);
  free(img);
  return rc;
}

/* Frame k: PREFIX_NNNN.vtr from rank 0's whole grid f, or with pieces
 * every rank's block (f: its own) and rank 0's index PREFIX_NNNN.pvtr.
 * path: the file the .pvd names.  Collective with pieces. */
static int write_frame(const ns_cli *c, const ns_problem *p, const hd_decomp *d, const double *const f[5], long k,
                       int single, char *path, size_t pn, char *err, size_t en) {
  const long nx = ns_nodes(p, 0), ny = ns_nodes(p, 1);
  const double h = p->length[0] / p->n[0];
  double *x = (double *)malloc((size_t)(nx + 1) * sizeof(double)), *y = (double *)malloc((size_t)(ny + 1) * sizeof(double));
  const double z[2] = {-0.5 * h, 0.5 * h};
  const double *xyz[3];
  const int64_t dims[3] = {nx, ny, 1};
  hd_vti_array arr[5] = {{"rho", NULL, 0}, {"u", NULL, 0}, {"v", NULL, 0}, {"p", NULL, 0}, {"vorticity", NULL, 0}};
  hd_out o;
  long i;
  int a, bad = !x || !y;
  memset(&o, 0, sizeof o);
  if (c->pieces) bad = hd_par_any(bad);
  if (bad) {
    free(x), free(y);
    return snprintf(err, en, "out of host memory"), -1;
  }
  for (i = 0; i <= nx; ++i) x[i] = p->origin[0] + ((double)i - 0.5) * h;
  for (i = 0; i <= ny; ++i) y[i] = p->origin[1] + ((double)i - 0.5) * h;
  xyz[0] = x, xyz[1] = y, xyz[2] = z;
  for (a = 0; a < 5; ++a) arr[a].data = f[a], arr[a].single = single;
  if (c->pieces) {
    char prefix[4096 + 16];
    snprintf(prefix, sizeof prefix, "%s_%04ld", c->com.output, k);
    snprintf(path, pn, "%s.pvtr", prefix);
    bad = d->rank == 0 && hd_out_open(&o, path, err, en);
    bad = hd_par_any(bad) || hd_drv_write_pieces(d, prefix, &o, dims, NULL, xyz, arr, 5, err, en) ||
          (d->rank == 0 && hd_out_commit(&o, err, en));
  } else {
    snprintf(path, pn, "%s_%04ld.vtr", c->com.output, k);
    bad = hd_out_open(&o, path, err, en) || hd_vtr_write(&o, dims, xyz, arr, 5) || hd_out_commit(&o, err, en);
  }
  if (bad) {
    if (!err[0]) snprintf(err, en, "writing %.900s failed", path);
    hd_out_abort(&o);
  }
  free(x), free(y);
  return bad ? -1 : 0;
}

typedef struct ns_bench {
  hd_ctx *ctx;
  const ns_ops *ops;
  void *state;
  int inner; /* the inner nodes alone */
} ns_bench;

static hd_status ns_bench_steps(void *arg, long steps) {
  ns_bench *b = (ns_bench *)arg;
  return (b->inner ? b->ops->advance_inner : b->ops->advance)(b->ctx, b->state, steps);
}

static int run_bench(const ns_cli *c, const ns_problem *p, const ns_ops *ops, const hd_core_ops *core, hd_ctx *ctx) {
  void *state = NULL;
  const int rounds = 5;
  const long steps = c->steps > 0 ? (c->steps >= rounds ? c->steps / rounds : 1) : 4; /* a round */
  const double cells = (double)ns_nodes(p, 0) * (double)ns_nodes(p, 1);
  const int two_pass = !p->generic && core->id != HD_B_CUDA;
  const size_t copy = (size_t)fmin(cells * ops->real_size * 4.0, 4e9); /* the four conserved fields */
  ns_bench bench;
  double wall, inner, bw = 0.0, bw2 = 0.0, rate, per;
  if (ops->create(ctx, p, &state) != HD_OK || ops->advance(ctx, state, 2) != HD_OK || core->sync(ctx) != HD_OK)
    goto fail;
  bench.ctx = ctx, bench.ops = ops, bench.state = state, bench.inner = 0;
  if (hd_drv_bench_rounds(ctx, core, ns_bench_steps, &bench, steps, rounds, copy, &wall, &bw) != HD_OK) goto fail;
  bench.inner = 1; /* what the boundary work adds is the rest */
  if (hd_drv_bench_rounds(ctx, core, ns_bench_steps, &bench, steps, rounds, copy, &inner, &bw2) != HD_OK) goto fail;
  bw = fmax(bw, bw2);
  wall *= (double)steps, inner *= (double)steps; /* the best rounds */
  ops->destroy(ctx, state);
  state = NULL;
  rate = cells * 4.0 * (double)steps / wall;
  /* compulsory traffic of a stage, see doc/ns.md: 16 values; the two-pass
   * form also writes 6 primitives a node and reads them back */
  per = (two_pass ? 28.0 : 16.0) * ops->real_size;
  printf("program: " PROG "\nbackend: %s\ndevice: %s\nprecision: %s\nstage: %s\nnodes: %ld x %ld\nsteps_a_round: %ld\n"
         "round_seconds: %.6g (%d rounds, the best)\ncell_stages_per_second: %.6g\nbytes_per_cell_stage: %.0f\neffective_GB_per_second: %.6g\n"
         "copy_GB_per_second: %.6g\nfraction_of_copy: %.3f\ninner_only_round_seconds: %.6g\nboundary_share: %.3f\n",
         core->name, ctx->device_name, ops->precision,
         p->generic ? "generic (one pass)" : two_pass ? "two-pass (primitives once a node)" : "tuned (shared-memory march)",
         ns_nodes(p, 0), ns_nodes(p, 1), steps, wall, rounds, rate, per, rate * per / 1e9, bw / 1e9,
         bw > 0 ? rate * per / bw : 0.0, inner, 1.0 - inner / wall);
  return 0;
fail:
  fprintf(stderr, PROG ": error: %s\n", ctx->msg[0] ? ctx->msg : "benchmark failed");
  if (state) ops->destroy(ctx, state);
  return 1;
}

/* A distributed run: this rank's block of rows and the ops that step it. */
typedef struct ns_run {
  hd_decomp dc;
  const ns_ops *ops;
  double *rows, *all; /* this rank's row sums; every row's */
} ns_run;

/* The problem's halo hook: the ghost rows of the four variables from the
 * neighbouring blocks. */
static int exchange(void *user, void *const q[4]) {
  ns_run *r = (ns_run *)user;
  char err[256];
  if (hd_decomp_halo_fields(&r->dc, 4, q, r->ops->real_size, err, sizeof err)) {
    fprintf(stderr, PROG ": rank %d: %s\n", hd_par_rank(), err); /* the hook's caller only knows it failed */
    return -1;
  }
  return 0;
}

/* The monitor sums of the whole grid, rows merged in global order (the
 * same on any number of ranks); first_bad as a padded global index. */
static hd_status monitor(hd_ctx *ctx, ns_run *r, void *state, hd_ns_sums *out) {
  char err[256];
  const long gx = r->dc.gn[0], grows = r->dc.gn[1];
  long j;
  int bad = r->ops->row_sums(ctx, state, r->rows) != HD_OK;
  if (hd_par_any(bad)) return bad ? ctx->status : hd_fail(ctx, HD_ERR_IO, "the monitor failed on another rank");
  if (hd_decomp_rows_all(&r->dc, r->rows, NS_ROW, r->all, err, sizeof err)) return hd_fail(ctx, HD_ERR_IO, "%s", err);
  hd_ns_sums_init(out);
  for (j = 0; j < grows; ++j) {
    const double *v = r->all + NS_ROW * j;
    hd_ns_sums row;
    row.mass = v[0], row.energy = v[1], row.dpmax = v[2], row.nonfinite = (hd_idx)v[3];
    row.first_bad = row.nonfinite ? (hd_idx)v[4] + 1 + (j + 1) * (gx + 2) : -1;
    hd_ns_sums_merge(out, &row);
  }
  return HD_OK;
}

/* The five output fields of every block on rank 0 (g: whole-grid arrays
 * there), from l (this block's). */
static hd_status fields(hd_ctx *ctx, ns_run *r, void *state, double *const l[5], double *const g[5]) {
  char err[256];
  int k;
  /* no agreement here: the backend exchanges halos inside, so a failure
   * goes to the caller's MPI_Abort */
  if (r->ops->fields(ctx, state, l[0], l[1], l[2], l[3], l[4]) != HD_OK) return ctx->status;
  for (k = 0; k < 5; ++k)
    if (l[k] != g[k] && hd_decomp_gather(&r->dc, l[k], g[k], err, sizeof err)) return hd_fail(ctx, HD_ERR_IO, "%s", err);
  return HD_OK;
}

/* What a checkpoint of this run must match on restart. */
static void ckpt_template(const ns_problem *p, size_t real_size, hd_ckpt *ck) {
  int f;
  memset(ck, 0, sizeof *ck);
  snprintf(ck->driver, sizeof ck->driver, "hd-ns");
  ck->real_size = (uint32_t)real_size;
  ck->dims[0] = ns_nodes(p, 0), ck->dims[1] = ns_nodes(p, 1), ck->dims[2] = 1;
  hd_ckpt_param(ck, "box", "%.17g,%.17g,%.17g,%.17g", p->origin[0], p->origin[1], p->length[0], p->length[1]);
  for (f = 0; f < 4; ++f) hd_ckpt_param(ck, "bc", "%d", p->bc[f]);
  hd_ckpt_param(ck, "gas", "%.17g,%.17g,%.17g,%.17g,%d", p->gamma, p->pr, p->mu_ref, p->suth, p->viscous);
  hd_ckpt_param(ck, "nscbc", "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", p->sigma, p->sigma_side, p->beta, p->beta_side,
                p->sigma_in, p->mach);
  hd_ckpt_param(ck, "dt", "%.17g", p->dt);
}

static int run(int argc, char **argv) {
  ns_cli c;
  ns_problem p;
  ns_run nr;
  const ns_ops *ops = NULL;
  const hd_core_ops *core = NULL;
  hd_ctx ctx;
  hd_out hist, pvd, png[2];
  hd_progress prog;
  hd_ns_sums s0, s;
  char err[1024], why[512], path[4096 + 32], nb[4][32];
  void *state = NULL;
  double *f[5] = {NULL, NULL, NULL, NULL, NULL}, *lf[5] = {NULL, NULL, NULL, NULL, NULL}, t0, wall = 0, dpmax_end = 0;
  long step = 0, step0 = 0, total, every, frame = 0, k, nodes, lnodes, gn[3] = {0, 0, 1};
  int rc, nout = 0, cp, root, bad, cont = 0;
  hd_drv_ckpt ckp;
  static hd_ckpt ck;
  char ckpath[4096 + 32] = "";
  cli_opt opts[] = {
      HD_DRV_COMMON_OPTIONS(c.com),
      HD_DRV_BENCH_FLAG(c.com),
      HD_DRV_CHECKPOINT_OPTIONS(c.com),
      {"case", CLI_CHOICE, &c.icase, "uniform|vortex|isentropic", "initial state (default vortex, the seed's)", 1, 0, 0, NULL, 0, 0, 0},
      {"n", CLI_INT, &c.n, "N", "cells per unit length l (default 512)", 4, 1 << 20, 0, NULL, 0, 0, 0},
      {"lx", CLI_REAL, &c.lx, "L", "box width in units of l, centred on the vortex (default 1)", 1e-3, 1e3, 0, NULL, 0, 0, 0},
      {"ly", CLI_REAL, &c.ly, "L", "box height in units of l (default 1)", 1e-3, 1e3, 0, NULL, 0, 0, 0},
      {"mach", CLI_REAL, &c.mach, "M", "free-stream Mach number along x (default 1.1)", 0, 50, 0, NULL, 0, 0, 0},
      {"re", CLI_REAL, &c.re, "RE", "Reynolds number u l / nu (default 10000)", 1e-6, 1e12, 0, NULL, 0, 0, 0},
      {"inviscid", CLI_FLAG, &c.inviscid, NULL, "Euler equations (no viscosity or heat conduction)", 1, 0, 0, NULL, 0, 0, 0},
      {"circulation", CLI_REAL, &c.circulation, "G", "vortex strength Gamma/(c l) (default -0.0005)", -1, 1, 0, NULL, 0, 0, 0},
      {"rc", CLI_REAL, &c.rc, "R", "vortex radius r_c/l (default 0.15)", 1e-6, 100, 0, NULL, 0, 0, 0},
      {"gamma", CLI_REAL, &c.gamma, "G", "ratio of specific heats (default 1.4)", 1.0001, 5, 0, NULL, 0, 0, 0},
      {"pr", CLI_REAL, &c.pr, "PR", "Prandtl number (default 0.72)", 1e-3, 1e3, 0, NULL, 0, 0, 0},
      {"sutherland", CLI_REAL, &c.suth, "S", "Sutherland constant / T_inf (default 110.4/288.15)", 0, 1e3, 0, NULL, 0, 0, 0},
      {"bc-left", CLI_CHOICE, &c.bc[0], bc_names, "face x = -lx/2 (default nonreflecting)", 1, 0, 0, NULL, 0, 0, 0},
      {"bc-right", CLI_CHOICE, &c.bc[1], bc_names, "face x = +lx/2 (default nonreflecting)", 1, 0, 0, NULL, 0, 0, 0},
      {"bc-bottom", CLI_CHOICE, &c.bc[2], bc_names, "face y = -ly/2 (default nonreflecting)", 1, 0, 0, NULL, 0, 0, 0},
      {"bc-top", CLI_CHOICE, &c.bc[3], bc_names, "face y = +ly/2 (default nonreflecting)", 1, 0, 0, NULL, 0, 0, 0},
      {"sigma", CLI_REAL, &c.sigma, "S", "NSCBC pressure relaxation sigma (default 0.25)", 0, 100, 0, NULL, 0, 0, 0},
      {"sigma-side", CLI_REAL, &c.sigma_side, "S",
       "NSCBC relaxation of the faces the free stream runs along (default 1, supersonic 4; negative: as the others, "
       "the form before)",
       -1, 100, 0, NULL, 0, 0, 0},
      {"beta", CLI_REAL, &c.beta, "B", "NSCBC fraction of transverse terms kept (default min(mach, 1))", 0, 1, 0, NULL, 0, 0, 0},
      {"beta-side", CLI_REAL, &c.beta_side, "B",
       "the same on the faces the free stream runs along (default 0.5, supersonic 0.25; negative: beta, the form before)",
       -1, 1, 0, NULL, 0, 0, 0},
      {"sigma-in", CLI_REAL, &c.sigma_in, "S",
       "NSCBC relaxation of the entropy and vorticity waves entering a supersonic inflow (default 16; 0: none)", 0, 1000,
       0, NULL, 0, 0, 0},
      {"dt", CLI_REAL, &c.dt, "DT", "time step in l/c (default from --cfl)", 1e-300, 1e300, 0, NULL, 0, 0, 0},
      {"cfl", CLI_REAL, &c.cfl, "C", "dt ((|u|+c)/hx + (|v|+c)/hy), at most 2.8 (default 1.5)", 1e-6, HD_NS_CFL_MAX, 0, NULL, 0, 0, 0},
      {"t-end", CLI_REAL, &c.t_end, "T", "run to time T in l/c (default 2)", 0, 1e9, 0, NULL, 0, 0, 0},
      {"steps", CLI_INT, &c.steps, "N", "run N steps instead of to --t-end", 1, 1e12, 0, NULL, 0, 0, 0},
      {"frames", CLI_INT, &c.frames, "N", "field snapshots after the initial one (default 10, 0 = none)", 0, 10000, 0, NULL, 0, 0, 0},
      {"monitor-every", CLI_INT, &c.monitor_every, "N", "steps between history rows (default 10)", 1, 1e12, 0, NULL, 0, 0, 0},
      {"png", CLI_FLAG, &c.png, NULL, "write PREFIX_pressure.png and PREFIX_vorticity.png (default yes where libpng is)", 1, 0, 0, NULL, 0, 0, 0},
      {"pieces", CLI_FLAG, &c.pieces, "yes|no", "each rank (one too) writes its block of every frame as PREFIX_NNNN_pR.vtr and rank 0 the index PREFIX_NNNN.pvtr, which PREFIX.pvd names; no rank holds the whole grid (default no: rank 0 gathers PREFIX_NNNN.vtr; no pictures with pieces)", 1, 0, 0, NULL, 0, 0, 0},
      HD_DRV_END_OPTIONS};

  memset(&c, 0, sizeof c);
  memset(&nr, 0, sizeof nr);
  hd_drv_common_defaults(&c.com, "ns");
  c.icase = HD_NS_IC_VORTEX, c.n = 512, c.lx = c.ly = 1, c.mach = 1.1, c.re = 1e4, c.circulation = -0.0005;
  c.rc = 0.15, c.gamma = 1.4, c.pr = 0.72, c.suth = 110.4 / 288.15, c.sigma = 0.25, c.cfl = 1.5, c.t_end = 2;
  c.frames = 10, c.monitor_every = 10;
  c.bc[0] = c.bc[1] = c.bc[2] = c.bc[3] = HD_NS_NONREFLECTING;
  c.png = HD_PNG_BUILT;
  if ((rc = hd_drv_parse(opts, argc, argv, PROG,
                         "2-D compressible Navier-Stokes with characteristic (NSCBC) boundaries; writes "
                         "PREFIX_history.csv, PREFIX_NNNN.vtr with PREFIX.pvd, and pictures.")) >= 0)
    return rc;
  if (c.icase == HD_NS_IC_UNIFORM && !cli_find(opts, "circulation")->seen) c.circulation = 0;
  if (c.png && !HD_PNG_BUILT) return hd_drv_usage_error(PROG, "--png: " HD_NO_PNG);
  if (c.pieces) c.png = 0; /* the pictures would need the whole grid */
  if (build(&c, opts, &p, err, sizeof err) || hd_drv_ckpt_init(&ckp, &c.com, err, sizeof err))
    return hd_drv_usage_error(PROG, err);
  total = c.steps > 0 ? c.steps : (long)ceil(c.t_end / p.dt - 1e-9);
  if (c.steps == 0 && total > 0) p.dt = c.t_end / (double)total; /* land on t-end */
  nodes = ns_nodes(&p, 0) * ns_nodes(&p, 1);
  /* blocks of whole rows; a periodic y wraps around the ranks */
  gn[0] = ns_nodes(&p, 0), gn[1] = ns_nodes(&p, 1);
  if (hd_decomp_create(&nr.dc, 2, gn, 0, p.bc[HD_NS_YLO] == HD_NS_PERIODIC ? 2 : 0, err, sizeof err))
    return hd_drv_usage_error(PROG, err);
  root = nr.dc.rank == 0;
  if (hd_par_any(nr.dc.ln[1] < 3)) {
    snprintf(err, sizeof err, "%d ranks leave blocks of fewer than 3 node rows (%ld rows in all); use fewer ranks",
             nr.dc.size, gn[1]);
    rc = hd_drv_usage_error(PROG, err);
    goto out;
  }
  if ((rc = hd_drv_ranks_options(PROG, &c.com, 1)) != 0) goto out;
  if (nr.dc.size > 1) {
    p.block_nodes[0] = nr.dc.ln[0], p.block_nodes[1] = nr.dc.ln[1];
    p.block_off[0] = nr.dc.off[0], p.block_off[1] = nr.dc.off[1];
    p.shared[HD_NS_YLO] = !hd_decomp_owns_face(&nr.dc, 2), p.shared[HD_NS_YHI] = !hd_decomp_owns_face(&nr.dc, 3);
    p.halo = exchange, p.halo_user = &nr;
  }
  lnodes = nr.dc.ln[0] * nr.dc.ln[1];
  if ((rc = hd_drv_open(PROG, &c.com, &ctx, &core, why, sizeof why)) != 0) goto out;
  hd_decomp_use_backend(&nr.dc, core, &ctx);
  ops = ns_ops_get(core->id, c.com.precision == 1);
  if (!ops) {
    core->destroy(&ctx);
    rc = hd_drv_usage_error(PROG, "no kernels for this backend and precision");
    goto out;
  }
  nr.ops = ops;
  /* device: 16 padded arrays of the block; host: its fields, and on rank 0
   * the whole grid's */
  rc = hd_drv_check_memory(PROG, &ctx, core, 16.0 * (double)(nr.dc.ln[0] + 2) * (nr.dc.ln[1] + 2) * ops->real_size,
                           c.com.bench ? 0.0 : 6.0 * (double)lnodes * 8.0 + (root && nr.dc.size > 1 && !c.pieces ? 5.0 * nodes * 8.0 : 0.0),
                           "grid");
  if ((rc = hd_par_max_int(rc)) != 0) {
    core->destroy(&ctx);
    goto out;
  }
  if (c.com.bench) {
    fprintf(stderr, PROG ": %s backend (%s), %s precision, %ld x %ld nodes%s%s\n", core->name, ctx.device_name,
            ops->precision, ns_nodes(&p, 0), ns_nodes(&p, 1), why[0] ? "; " : "", why);
    rc = run_bench(&c, &p, ops, core, &ctx);
    core->destroy(&ctx);
    goto out;
  }
  nout = c.png ? 4 : 2;
  memset(png, 0, sizeof png);
  { /* rank 0 writes every output */
    const char *suffix[4] = {"_history.csv", ".pvd", "_pressure.png", "_vorticity.png"};
    hd_out *o[4] = {&hist, &pvd, &png[0], &png[1]};
    if (hd_drv_open_outputs(o, suffix, NULL, (int)nout, c.com.output, err, sizeof err)) {
      core->destroy(&ctx);
      rc = hd_drv_usage_error(PROG, err);
      goto out;
    }
    pvd.footer = "  </Collection>\n</VTKFile>\n";
    hd_drv_ckpt_series(&ckp, &hist, suffix[0]);
    hd_drv_ckpt_series(&ckp, &pvd, suffix[1]);
  }
  if (root)
    fprintf(stderr, PROG ": %s backend (%s), %s precision, %ld x %ld nodes, Mach %g, Re %g, dt %g, %ld steps%s%s%s%s\n",
            core->name, ctx.device_name, ops->precision, ns_nodes(&p, 0), ns_nodes(&p, 1), c.mach, c.re, p.dt, total,
            nr.dc.size > 1 ? "; " : "", nr.dc.size > 1 ? hd_par_describe() : "", why[0] ? "; " : "", why);
  bad = 0;
  for (k = 0; k < 5; ++k) {
    lf[k] = (double *)malloc((size_t)lnodes * sizeof(double));
    f[k] = nr.dc.size == 1 || c.pieces ? lf[k] : root ? (double *)malloc((size_t)nodes * sizeof(double)) : NULL;
    bad |= !lf[k] || (root && !f[k]);
  }
  nr.rows = (double *)malloc((size_t)(NS_ROW * nr.dc.ln[1]) * sizeof(double));
  nr.all = (double *)malloc((size_t)(NS_ROW * gn[1]) * sizeof(double));
  bad |= !nr.rows || !nr.all;
  if (!bad) bad = ops->create(&ctx, &p, &state) != HD_OK;
  if (hd_par_any(bad)) {
    if (!ctx.msg[0]) hd_fail(&ctx, HD_ERR_NOMEM, "out of host memory for the fields");
    goto runtime_error;
  }
  ckpt_template(&p, ops->real_size, &ck);
  /* the conserved variables are rows with a ghost row each side: checkpoints load on any rank count */
  hd_drv_ckpt_blocks(&ckp, &nr.dc, 1, 1);
  if (c.com.restart[0]) {
    if (hd_drv_ckpt_restore(&ctx, &ckp, &ck, state, ops->state_count(state), ops->state_io, c.com.restart, err,
                            sizeof err)) {
      rc = hd_drv_usage_error(PROG, err);
      goto cleanup;
    }
    step = step0 = (long)ck.step;
    if (step0 > total) {
      snprintf(err, sizeof err, "restart: the checkpoint is at step %ld, beyond this run's %ld steps", step0, total);
      rc = hd_drv_usage_error(PROG, err);
      goto cleanup;
    }
    if ((cont = hd_drv_series_resume(&ckp, &ck, err, sizeof err)) < 0) {
      rc = hd_drv_usage_error(PROG, err);
      goto cleanup;
    }
  }
  if (monitor(&ctx, &nr, state, &s) != HD_OK) goto runtime_error;
  s0 = s; /* the flow the run started with, also after restarts */
  hd_ckpt_get_value(&ck, "dp_max0", &s0.dpmax), hd_ckpt_get_value(&ck, "mass0", &s0.mass);
  hd_ckpt_get_value(&ck, "energy0", &s0.energy);
  hd_ckpt_set_value(&ck, "dp_max0", s0.dpmax), hd_ckpt_set_value(&ck, "mass0", s0.mass);
  hd_ckpt_set_value(&ck, "energy0", s0.energy);
  if (root && !cont) {
    fprintf(hist.f, "step,time,max_dp,mass,energy\n");
    fprintf(hist.f, "%ld,%.9g,%.9e,%.15e,%.15e\n", step0, step0 * p.dt, s.dpmax,
            s.mass * p.length[0] * p.length[1] / nodes, s.energy * p.length[0] * p.length[1] / nodes);
    fprintf(pvd.f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n  <Collection>\n");
  }
  every = c.frames > 0 ? (total + c.frames - 1) / c.frames : total + 1;
  frame = step0 / every + (step0 % every ? 1 : 0); /* a restart continues the numbering */
  hd_progress_init(&prog, c.com.progress);
  hd_signals_install();
  t0 = hd_wtime();
  for (;;) {
    if (c.frames > 0 && (step % every == 0 || step == total)) {
      const char *base;
      if (fields(&ctx, &nr, state, lf, f) != HD_OK) goto runtime_error;
      if (root || c.pieces) {
        if (write_frame(&c, &p, &nr.dc, (const double *const *)f, frame, ops->real_size == 4, path, sizeof path, err,
                        sizeof err)) {
          hd_fail(&ctx, HD_ERR_IO, "%s", err);
          goto runtime_error;
        }
      }
      if (root) {
        base = strrchr(path, '/');
        fprintf(pvd.f, "    <DataSet timestep=\"%.9g\" file=\"%s\"/>\n", step * p.dt, base ? base + 1 : path);
      }
      ++frame;
    }
    if (step == total) break;
    {
      long chunk = c.monitor_every - step % c.monitor_every;
      if (c.frames > 0 && every - step % every < chunk) chunk = every - step % every;
      if (chunk > total - step) chunk = total - step;
      chunk = hd_drv_ckpt_chunk(&ckp, step, chunk);
      /* a failure inside the steps may leave other ranks in an exchange:
       * runtime_error ends them all (MPI_Abort) */
      if (ops->advance(&ctx, state, chunk) != HD_OK) goto runtime_error;
      if (monitor(&ctx, &nr, state, &s) != HD_OK) goto runtime_error;
      step += chunk;
    }
    if (s.nonfinite) { /* every rank sees the same sums */
      if (root) fprintf(stderr, PROG ": error: the flow blew up by step %ld (non-positive or non-finite state at node %ld, %ld); "
              "dt = %g, try a smaller --cfl%s%s\n", step, (long)(s.first_bad % (ns_nodes(&p, 0) + 2)) - 1,
              (long)(s.first_bad / (ns_nodes(&p, 0) + 2)) - 1, p.dt, ckpath[0] ? "; last checkpoint " : "", ckpath);
      rc = 1;
      goto cleanup;
    }
    if (root && (step % c.monitor_every == 0 || (c.frames > 0 && step % every == 0) || step == total)) /* not at checkpoints */
      fprintf(hist.f, "%ld,%.9g,%.9e,%.15e,%.15e\n", step, step * p.dt, s.dpmax, s.mass * p.length[0] * p.length[1] / nodes,
              s.energy * p.length[0] * p.length[1] / nodes);
    cp = hd_drv_ckpt_point(PROG, &ctx, &ckp, &ck, step, p.dt, step < total, 0, state, ops->state_count(state),
                           ops->state_io, c.com.output, ckpath, sizeof ckpath);
    if (cp == HD_DRV_FAILED) goto runtime_error;
    if (cp != HD_DRV_GO_ON) {
      rc = cp;
      goto cleanup;
    }
    if (root) hd_progress_step(&prog, PROG, step, total, (double)nodes * 4.0 * (double)(step - step0), "cell-stage/s");
  }
  if (core->sync(&ctx) != HD_OK) goto runtime_error;
  wall = hd_wtime() - t0;
  hd_progress_end(&prog);
  if (monitor(&ctx, &nr, state, &s) != HD_OK || fields(&ctx, &nr, state, lf, f) != HD_OK) goto runtime_error;
  dpmax_end = s.dpmax;
  rc = 0;
  if (!root) goto cleanup;
  if (c.png) {
    for (k = 0; k < nodes; ++k) f[3][k] -= 1.0 / c.gamma;
    if (picture(&png[0], f[3], ns_nodes(&p, 0), ns_nodes(&p, 1), err, sizeof err) ||
        picture(&png[1], f[4], ns_nodes(&p, 0), ns_nodes(&p, 1), err, sizeof err)) {
      hd_fail(&ctx, HD_ERR_IO, "%s", err);
      goto runtime_error;
    }
  }
  {
    hd_out *o[4] = {&hist, &pvd, &png[0], &png[1]};
    for (k = 0; k < nout; ++k)
      if (hd_out_commit(o[k], err, sizeof err)) {
        hd_fail(&ctx, HD_ERR_IO, "%s", err);
        goto runtime_error;
      }
  }
  printf("program: " PROG "\nbackend: %s\ndevice: %s\nprecision: %s\nnodes: %ld x %ld\nbox: %g x %g\n"
         "mach: %g\nre: %g\nbc: %s %s %s %s\ndt: %.6g\nsteps: %ld\ntime: %.6g\n",
         core->name, ctx.device_name, ops->precision, ns_nodes(&p, 0), ns_nodes(&p, 1), p.length[0], p.length[1],
         c.mach, c.inviscid ? 0.0 : c.re, choice(bc_names, c.bc[0], nb[0], 32), choice(bc_names, c.bc[1], nb[1], 32),
         choice(bc_names, c.bc[2], nb[2], 32), choice(bc_names, c.bc[3], nb[3], 32), p.dt, step, step * p.dt);
  printf("max_dp_initial: %.6e\nmax_dp_final: %.6e\n", s0.dpmax, dpmax_end);
  if (c.icase == HD_NS_IC_VORTEX && dip(&c) > 0) printf("max_dp_final_over_vortex_dip: %.4f\n", dpmax_end / dip(&c));
  printf("mass_change: %.3e\nenergy_change: %.3e\nwall_seconds: %.6g\ncell_stages_per_second: %.6g\n"
         "outputs: %s_history.csv %s.pvd (%ld frames)\npicture: %s%s%s%s\n",
         s.mass / s0.mass - 1.0, s.energy / s0.energy - 1.0, wall, wall > 0 ? (double)nodes * 4.0 * (step - step0) / wall : 0.0,
         c.com.output, c.com.output, frame, c.png ? png[0].path : "none ", c.png ? " " : "", c.png ? png[1].path : "",
         c.png ? "" : c.pieces ? "(--pieces: no rank holds the whole grid)" : HD_PNG_BUILT ? "(--png=no)" : "(" HD_NO_PNG ")");
  rc = 0;
  goto cleanup;

runtime_error:
  if (nr.dc.size > 1)
    fprintf(stderr, PROG ": error: rank %d: %s\n", nr.dc.rank, ctx.msg[0] ? ctx.msg : "run failed");
  else
    fprintf(stderr, PROG ": error: %s%s%s\n", ctx.msg[0] ? ctx.msg : "run failed", ckpath[0] ? "; last checkpoint " : "",
            ckpath);
  rc = 1;
  {
    hd_out *o[4] = {&hist, &pvd, &png[0], &png[1]};
    for (k = 0; k < 4; ++k) hd_out_abort(o[k]);
  }
  hd_par_abort(rc); /* other ranks may wait in a collective */
cleanup:
  {
    hd_out *o[4] = {&hist, &pvd, &png[0], &png[1]};
    for (k = 0; k < 4; ++k) hd_out_abort(o[k]);
  }
  if (state) ops->destroy(&ctx, state);
  core->destroy(&ctx);
  for (k = 0; k < 5; ++k) {
    if (f[k] != lf[k]) free(f[k]);
    free(lf[k]);
  }
out:
  free(nr.rows);
  free(nr.all);
  hd_decomp_destroy(&nr.dc);
  return rc;
}

int main(int argc, char **argv) { return hd_drv_main_ranks(PROG, run, argc, argv); }
