/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-ns's decisions for the run loop (module.h): 2-D compressible
 * Navier-Stokes with characteristic boundaries (hd/ns.h, hd/nscbc.h); the
 * convected vortex of Poinsot and Lele's test, the isentropic vortex and
 * uniform flow.  doc/ns.md. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "decomp.h"
#include "module.h"
#include "ns_ops.h"
#include "output.h"
#include "sys.h"

#define PROG "hd-ns"
#define ABOUT \
  "2-D compressible Navier-Stokes with characteristic (NSCBC) boundaries; writes " \
  "PREFIX_history.csv, PREFIX_NNNN.vtr with PREFIX.pvd, and pictures." /* --help's line */

static const char *const bc_names = "periodic|supersonic-in|supersonic-out|nonreflecting|subsonic-in|slip-wall|"
                                    "noslip-wall|zero-gradient";

typedef struct ns_run {
  hd_drv_common com; /* first: the loop's */
  int icase, bc[4], inviscid, png, pieces;
  long dim, n, steps, monitor_every;
  double lx, ly, mach, re, circulation, rc, gamma, pr, suth, sigma, sigma_side, beta, beta_side, sigma_in, dt, cfl, t_end;
  ns_problem p;
  hd_decomp dc;
  const ns_ops *ops;
  void *state;
  double *rows, *all;          /* this rank's row sums; every row's */
  double *f[5], *lf[5];        /* the five output fields: rank 0's whole grid, this block's */
  long nodes;                  /* the grid's */
  int hist, png_p, png_w;      /* output slots */
  hd_ns_sums s0, s;
} ns_run;

static int options(void *self, cli_opt *opts, int max) {
  ns_run *c = (ns_run *)self;
  const cli_opt o[] = {
      {"dim", CLI_INT, &c->dim, "D", "2, or 3: the 3-D solver in a periodic box, whose options hd-ns --dim=3 --help lists "
       "(default 2)", 2, 3, 0, NULL, 1, 0, 0},
      {"case", CLI_CHOICE, &c->icase, "uniform|vortex|isentropic", "initial state (default vortex, Poinsot and Lele's convected vortex)", 1, 0, 0, NULL, 0, 0, 0},
      {"n", CLI_INT, &c->n, "N", "cells per unit length l (default 512)", 4, 1 << 20, 0, NULL, 0, 0, 0},
      {"lx", CLI_REAL, &c->lx, "L", "box width in units of l, centred on the vortex (default 1)", 1e-3, 1e3, 0, NULL, 0, 0, 0},
      {"ly", CLI_REAL, &c->ly, "L", "box height in units of l (default 1)", 1e-3, 1e3, 0, NULL, 0, 0, 0},
      {"mach", CLI_REAL, &c->mach, "M", "free-stream Mach number along x (default 1.1)", 0, 50, 0, NULL, 0, 0, 0},
      {"re", CLI_REAL, &c->re, "RE", "Reynolds number u l / nu (default 10000)", 1e-6, 1e12, 0, NULL, 0, 0, 0},
      {"inviscid", CLI_FLAG, &c->inviscid, NULL, "Euler equations (no viscosity or heat conduction) (default no)", 1, 0, 0, NULL, 0, 0, 0},
      {"circulation", CLI_REAL, &c->circulation, "G", "vortex strength Gamma/(c l) (default -0.0005)", -1, 1, 0, NULL, 0, 0, 0},
      {"rc", CLI_REAL, &c->rc, "R", "vortex radius r_c/l (default 0.15)", 1e-6, 100, 0, NULL, 0, 0, 0},
      {"gamma", CLI_REAL, &c->gamma, "G", "ratio of specific heats (default 1.4)", 1.0001, 5, 0, NULL, 0, 0, 0},
      {"pr", CLI_REAL, &c->pr, "PR", "Prandtl number (default 0.72)", 1e-3, 1e3, 0, NULL, 0, 0, 0},
      {"sutherland", CLI_REAL, &c->suth, "S", "Sutherland constant / T_inf (default 110.4/288.15)", 0, 1e3, 0, NULL, 0, 0, 0},
      {"bc-left", CLI_CHOICE, &c->bc[0], bc_names, "face x = -lx/2 (default nonreflecting)", 1, 0, 0, NULL, 0, 0, 0},
      {"bc-right", CLI_CHOICE, &c->bc[1], bc_names, "face x = +lx/2 (default nonreflecting)", 1, 0, 0, NULL, 0, 0, 0},
      {"bc-bottom", CLI_CHOICE, &c->bc[2], bc_names, "face y = -ly/2 (default nonreflecting)", 1, 0, 0, NULL, 0, 0, 0},
      {"bc-top", CLI_CHOICE, &c->bc[3], bc_names, "face y = +ly/2 (default nonreflecting)", 1, 0, 0, NULL, 0, 0, 0},
      {"sigma", CLI_REAL, &c->sigma, "S", "NSCBC pressure relaxation sigma (default 0.25)", 0, 100, 0, NULL, 0, 0, 0},
      {"sigma-side", CLI_REAL, &c->sigma_side, "S",
       "NSCBC relaxation of the faces the free stream runs along (default 1, supersonic 4; negative: as the others, "
       "the form before)",
       -1, 100, 0, NULL, 0, 0, 0},
      {"beta", CLI_REAL, &c->beta, "B", "NSCBC fraction of transverse terms kept (default min(mach, 1))", 0, 1, 0, NULL, 0, 0, 0},
      {"beta-side", CLI_REAL, &c->beta_side, "B",
       "the same on the faces the free stream runs along (default 0.5, supersonic 0.25; negative: beta, the form before)",
       -1, 1, 0, NULL, 0, 0, 0},
      {"sigma-in", CLI_REAL, &c->sigma_in, "S",
       "NSCBC relaxation of the entropy and vorticity waves entering a supersonic inflow (default 16; 0: none)", 0, 1000,
       0, NULL, 0, 0, 0},
      {"dt", CLI_REAL, &c->dt, "DT", "time step in l/c (default from --cfl)", 1e-300, 1e300, 0, NULL, 0, 0, 0},
      {"cfl", CLI_REAL, &c->cfl, "C", "dt ((|u|+c)/hx + (|v|+c)/hy), at most 2.8 (default 1.5)", 1e-6, HD_NS_CFL_MAX, 0, NULL, 0, 0, 0},
      {"t-end", CLI_REAL, &c->t_end, "T", "run to time T in l/c (default 2)", 0, 1e9, 0, NULL, 0, 0, 0},
      {"steps", CLI_INT, &c->steps, "N", "run N steps instead of to --t-end (default: the steps to --t-end)", 1, 1e12, 0, NULL, 0, 0, 0},
      {"monitor-every", CLI_INT, &c->monitor_every, "N", "steps between history rows (default 10)", 1, 1e12, 0, NULL, 0, 0, 0},
      {"png", CLI_FLAG, &c->png, NULL, "write PREFIX_pressure.png and PREFIX_vorticity.png (default yes where libpng is)", 1, 0, 0, NULL, 0, 0, 0},
      {"pieces", CLI_FLAG, &c->pieces, "yes|no", "each rank (one too) writes its block of every frame as PREFIX_NNNN_pR.vtr and rank 0 the index PREFIX_NNNN.pvtr, which PREFIX.pvd names; no rank holds the whole grid (default no: rank 0 gathers PREFIX_NNNN.vtr; no pictures with pieces)", 1, 0, 0, NULL, 0, 0, 0}};
  c->dim = 2, c->icase = HD_NS_IC_VORTEX, c->n = 512, c->lx = c->ly = 1, c->mach = 1.1, c->re = 1e4, c->circulation = -0.0005;
  c->rc = 0.15, c->gamma = 1.4, c->pr = 0.72, c->suth = 110.4 / 288.15, c->sigma = 0.25, c->cfl = 1.5, c->t_end = 2;
  c->monitor_every = 10;
  c->bc[0] = c->bc[1] = c->bc[2] = c->bc[3] = HD_NS_NONREFLECTING;
  c->png = HD_PNG_BUILT;
  return HD_DRV_ROWS(opts, max, o);
}

static double dip(const ns_run *c) { return c->circulation * c->circulation / (2.0 * c->rc * c->rc); }

/* Fill the problem; 0, or HD_DRV_BAD_INPUT. */
static int build(hd_drv_run *r, ns_run *c, ns_problem *p) {
  const double hx = 1.0 / (double)c->n, speed = fabs(c->mach) + 1.0 +
                                                (c->icase == HD_NS_IC_UNIFORM ? 0.0 : fabs(c->circulation) / c->rc);
  double nu_eff, dtmax;
  memset(p, 0, sizeof *p);
  if (!(c->mach >= 0)) return hd_drv_bad(r, "mach: %g must be >= 0", c->mach);
  if ((c->bc[0] == HD_NS_PERIODIC) != (c->bc[1] == HD_NS_PERIODIC) ||
      (c->bc[2] == HD_NS_PERIODIC) != (c->bc[3] == HD_NS_PERIODIC))
    return hd_drv_bad(r, "bc: a periodic face needs a periodic opposite face");
  p->n[0] = (long)llround(c->n * c->lx), p->n[1] = (long)llround(c->n * c->ly);
  if (p->n[0] < 4 || p->n[1] < 4) return hd_drv_bad(r, "n: the box needs at least 4 cells a side");
  p->length[0] = p->n[0] * hx, p->length[1] = p->n[1] * hx;
  p->origin[0] = -0.5 * p->length[0], p->origin[1] = -0.5 * p->length[1];
  memcpy(p->bc, c->bc, sizeof p->bc);
  p->gamma = c->gamma, p->pr = c->pr, p->suth = c->suth, p->sigma = c->sigma, p->mach = c->mach;
  p->beta = cli_find(r->opts, "beta")->seen ? c->beta : (c->mach < 1 ? c->mach : 1.0);
  ns_nscbc_defaults(p);
  if (cli_find(r->opts, "sigma-side")->seen) p->sigma_side = c->sigma_side;
  if (cli_find(r->opts, "beta-side")->seen) p->beta_side = c->beta_side;
  if (cli_find(r->opts, "sigma-in")->seen) p->sigma_in = c->sigma_in;
  p->viscous = !c->inviscid;
  p->generic = c->com.variant == HD_VARIANT_GENERIC;
  p->mu_ref = c->inviscid ? 0.0 : (c->mach > 0 ? c->mach : 1.0) / c->re; /* rho u l / Re, or c l / Re at rest */
  p->ic.kind = c->icase, p->ic.gamma = c->gamma, p->ic.u_inf = c->mach, p->ic.v_inf = 0.0;
  p->ic.strength = c->circulation, p->ic.rc = c->rc;
  /* the largest diffusivity of momentum and heat, at T up to 1.2 */
  nu_eff = p->mu_ref * fmax(4.0 / 3.0, c->gamma / c->pr) * 1.2;
  dtmax = hd_ns_dt_max(speed, 1.0 + fabs(c->circulation) / c->rc, hx, hx, nu_eff);
  if (cli_find(r->opts, "dt")->seen) {
    if (c->dt > dtmax)
      return hd_drv_bad(r, "dt: %g exceeds the RK4 stability limit %.3g (CFL %.2f, viscous %.2f)", c->dt, dtmax,
                        HD_NS_CFL_MAX, HD_NS_VISC_MAX);
    p->dt = c->dt;
  } else {
    p->dt = c->cfl / HD_NS_CFL_MAX * dtmax;
  }
  if (c->bc[0] == HD_NS_SUPERSONIC_IN && c->mach <= 1)
    return hd_drv_bad(r, "bc-left: supersonic-in needs mach > 1 (got %g)", c->mach);
  return HD_DRV_OK;
}

/* The problem's halo hook: the ghost rows of the four variables from the
 * neighbouring blocks. */
static int exchange(void *user, void *const q[4]) {
  ns_run *c = (ns_run *)user;
  char err[256];
  if (hd_decomp_halo_fields(&c->dc, 4, q, c->ops->real_size, err, sizeof err)) {
    fprintf(stderr, PROG ": rank %d: %s\n", hd_par_rank(), err); /* the hook's caller only knows it failed */
    return -1;
  }
  return 0;
}

static int setup(hd_drv_run *r) {
  ns_run *c = (ns_run *)r->self;
  ns_problem *p = &c->p;
  long gn[3] = {0, 0, 1};
  int rc;
  if (c->dim == 3) return hd_drv_bad(r, "dim: write --dim=3 (or --dim 3) on the command line");
  if (c->icase == HD_NS_IC_UNIFORM && !cli_find(r->opts, "circulation")->seen) c->circulation = 0;
  if (c->png && !HD_PNG_BUILT) return hd_drv_bad(r, "--png: " HD_NO_PNG);
  if (c->pieces) c->png = 0; /* the pictures would need the whole grid */
  if ((rc = build(r, c, p)) != HD_DRV_OK) return rc;
  r->total = c->steps > 0 ? c->steps : (long)ceil(c->t_end / p->dt - 1e-9);
  if (c->steps == 0 && r->total > 0) p->dt = c->t_end / (double)r->total; /* land on t-end */
  r->dt = p->dt;
  c->nodes = ns_nodes(p, 0) * ns_nodes(p, 1);
  /* blocks of whole rows; a periodic y wraps around the ranks */
  gn[0] = ns_nodes(p, 0), gn[1] = ns_nodes(p, 1);
  if (hd_decomp_create(&c->dc, 2, gn, 0, p->bc[HD_NS_YLO] == HD_NS_PERIODIC ? 2 : 0, r->err, sizeof r->err))
    return HD_DRV_BAD_INPUT;
  if (hd_par_any(c->dc.ln[1] < 3))
    return hd_drv_bad(r, "%d ranks leave blocks of fewer than 3 node rows (%ld rows in all); use fewer ranks", c->dc.size,
                      gn[1]);
  if (c->dc.size > 1) {
    p->block_nodes[0] = c->dc.ln[0], p->block_nodes[1] = c->dc.ln[1];
    p->block_off[0] = c->dc.off[0], p->block_off[1] = c->dc.off[1];
    p->shared[HD_NS_YLO] = !hd_decomp_owns_face(&c->dc, 2), p->shared[HD_NS_YHI] = !hd_decomp_owns_face(&c->dc, 3);
    p->halo = exchange, p->halo_user = c;
  }
  c->hist = hd_drv_slot(r, "_history.csv", 1, HD_DRV_SERIES);
  r->frame_suffix = c->pieces ? ".pvtr" : ".vtr";
  c->png_p = hd_drv_slot(r, "_pressure.png", c->png, HD_DRV_PICTURE);
  c->png_w = hd_drv_slot(r, "_vorticity.png", c->png, HD_DRV_PICTURE);
  r->no_picture = c->pieces ? "--pieces: no rank holds the whole grid" : NULL;
  r->work = (double)c->nodes * 4.0, r->work_unit = "cell-stage/s";
  return HD_DRV_OK;
}

static int open_backend(hd_drv_run *r) {
  ns_run *c = (ns_run *)r->self;
  const long lnodes = c->dc.ln[0] * c->dc.ln[1];
  hd_decomp_use_backend(&c->dc, r->core, &r->ctx);
  if (!(c->ops = ns_ops_get(r->core->id, c->com.precision == 1)))
    return hd_drv_bad(r, "no kernels for this backend and precision");
  r->precision = c->ops->precision;
  /* device: 16 padded arrays of the block; host: its fields, and on rank 0
   * the whole grid's */
  r->dev_bytes = 16.0 * (double)(c->dc.ln[0] + 2) * (c->dc.ln[1] + 2) * c->ops->real_size;
  r->host_bytes = c->com.bench ? 0.0
                               : 6.0 * (double)lnodes * 8.0 +
                                     (r->root && c->dc.size > 1 && !c->pieces ? 5.0 * c->nodes * 8.0 : 0.0);
  return HD_DRV_OK;
}

static void banner(hd_drv_run *r, char *text, size_t n) {
  ns_run *c = (ns_run *)r->self;
  if (c->com.bench)
    snprintf(text, n, "%ld x %ld nodes", ns_nodes(&c->p, 0), ns_nodes(&c->p, 1));
  else
    snprintf(text, n, "%ld x %ld nodes, Mach %g, Re %g, dt %g, %ld steps", ns_nodes(&c->p, 0), ns_nodes(&c->p, 1),
             c->mach, c->re, c->p.dt, r->total);
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

static int bench(hd_drv_run *r) {
  ns_run *c = (ns_run *)r->self;
  const ns_problem *p = &c->p;
  const ns_ops *ops = c->ops;
  hd_ctx *ctx = &r->ctx;
  const int rounds = 5;
  const long steps = c->steps > 0 ? (c->steps >= rounds ? c->steps / rounds : 1) : 4; /* a round */
  const double cells = (double)ns_nodes(p, 0) * (double)ns_nodes(p, 1);
  const int two_pass = !p->generic && r->core->id != HD_B_CUDA;
  const size_t copy = (size_t)fmin(cells * ops->real_size * 4.0, 4e9); /* the four conserved fields */
  ns_bench b;
  double wall, inner, bw = 0.0, bw2 = 0.0, per;
  if (ops->create(ctx, p, &c->state) != HD_OK || ops->advance(ctx, c->state, 2) != HD_OK ||
      r->core->sync(ctx) != HD_OK)
    return HD_DRV_FAILED;
  b.ctx = ctx, b.ops = ops, b.state = c->state, b.inner = 0;
  if (hd_drv_bench_rounds(ctx, r->core, ns_bench_steps, &b, steps, rounds, copy, &wall, &bw) != HD_OK)
    return HD_DRV_FAILED;
  b.inner = 1; /* what the boundary work adds is the rest */
  if (hd_drv_bench_rounds(ctx, r->core, ns_bench_steps, &b, steps, rounds, copy, &inner, &bw2) != HD_OK)
    return HD_DRV_FAILED;
  bw = fmax(bw, bw2);
  wall *= (double)steps, inner *= (double)steps; /* the best rounds */
  r->bench_rate = cells * 4.0 * (double)steps / wall;
  /* compulsory traffic of a stage, see doc/ns.md: 16 values; the two-pass
   * form also writes 6 primitives a node and reads them back */
  per = (two_pass ? 28.0 : 16.0) * ops->real_size;
  r->bench_unit = "cell-stages/s", r->bench_ceiling = bw / per;
  printf("stage: %s\nnodes: %ld x %ld\nsteps_a_round: %ld\n"
         "round_seconds: %.6g (%d rounds, the best)\ncell_stages_per_second: %.6g\nbytes_per_cell_stage: %.0f\n"
         "effective_GB_per_second: %.6g\ncopy_GB_per_second: %.6g\nfraction_of_copy: %.3f\n"
         "inner_only_round_seconds: %.6g\nboundary_share: %.3f\n",
         p->generic ? "generic (one pass)" : two_pass ? "two-pass (primitives once a node)" : "tuned (shared-memory march)",
         ns_nodes(p, 0), ns_nodes(p, 1), steps, wall, rounds, r->bench_rate, per, r->bench_rate * per / 1e9, bw / 1e9,
         bw > 0 ? r->bench_rate * per / bw : 0.0, inner, 1.0 - inner / wall);
  return HD_DRV_OK;
}

/* The monitor sums of the whole grid, rows merged in global order (the
 * same on any number of ranks); first_bad as a padded global index. */
static int monitor(hd_drv_run *r, ns_run *c, hd_ns_sums *out) {
  const long gx = c->dc.gn[0], grows = c->dc.gn[1];
  long j;
  int bad = c->ops->row_sums(&r->ctx, c->state, c->rows) != HD_OK;
  if (hd_par_any(bad)) {
    if (!bad) hd_fail(&r->ctx, HD_ERR_IO, "the monitor failed on another rank");
    return HD_DRV_FAILED;
  }
  if (hd_decomp_rows_all(&c->dc, c->rows, NS_ROW, c->all, r->err, sizeof r->err))
    return hd_fail(&r->ctx, HD_ERR_IO, "%s", r->err), HD_DRV_FAILED;
  hd_ns_sums_init(out);
  for (j = 0; j < grows; ++j) {
    const double *v = c->all + NS_ROW * j;
    hd_ns_sums row;
    row.mass = v[0], row.energy = v[1], row.dpmax = v[2], row.nonfinite = (hd_idx)v[3];
    row.first_bad = row.nonfinite ? (hd_idx)v[4] + 1 + (j + 1) * (gx + 2) : -1;
    hd_ns_sums_merge(out, &row);
  }
  return HD_DRV_OK;
}

/* The five output fields of every block on rank 0 (c->f: whole-grid
 * arrays there), from this block's. */
static int fields(hd_drv_run *r, ns_run *c) {
  int k;
  /* no agreement here: the backend exchanges halos inside, so a failure
   * goes to the loop's MPI_Abort */
  if (c->ops->fields(&r->ctx, c->state, c->lf[0], c->lf[1], c->lf[2], c->lf[3], c->lf[4]) != HD_OK) return HD_DRV_FAILED;
  for (k = 0; k < 5; ++k)
    if (c->lf[k] != c->f[k] && hd_decomp_gather(&c->dc, c->lf[k], c->f[k], r->err, sizeof r->err))
      return hd_fail(&r->ctx, HD_ERR_IO, "%s", r->err), HD_DRV_FAILED;
  return HD_DRV_OK;
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

static int create(hd_drv_run *r) {
  ns_run *c = (ns_run *)r->self;
  const long lnodes = c->dc.ln[0] * c->dc.ln[1];
  int k, bad = 0, rc;
  for (k = 0; k < 5; ++k) {
    c->lf[k] = (double *)malloc((size_t)lnodes * sizeof(double));
    c->f[k] = c->dc.size == 1 || c->pieces ? c->lf[k] : r->root ? (double *)malloc((size_t)c->nodes * sizeof(double)) : NULL;
    bad |= !c->lf[k] || (r->root && !c->f[k]);
  }
  c->rows = (double *)malloc((size_t)(NS_ROW * c->dc.ln[1]) * sizeof(double));
  c->all = (double *)malloc((size_t)(NS_ROW * c->dc.gn[1]) * sizeof(double));
  bad |= !c->rows || !c->all;
  if (!bad) bad = c->ops->create(&r->ctx, &c->p, &c->state) != HD_OK;
  if ((rc = hd_drv_take_state(r, bad, c->state, c->ops->state_count, c->ops->state_io)) != HD_DRV_OK) return rc;
  ckpt_template(&c->p, c->ops->real_size, r->ck);
  /* the conserved variables are rows with a ghost row each side: checkpoints load on any rank count */
  hd_drv_ckpt_blocks(&r->ckp, &c->dc, 1, 1);
  return HD_DRV_OK;
}

static void destroy(hd_drv_run *r) {
  ns_run *c = (ns_run *)r->self;
  int k;
  if (c->state) c->ops->destroy(&r->ctx, c->state);
  for (k = 0; k < 5; ++k) {
    if (c->f[k] != c->lf[k]) free(c->f[k]);
    free(c->lf[k]);
  }
  free(c->rows), free(c->all);
  hd_decomp_destroy(&c->dc);
}

static void history_row(const ns_run *c, FILE *f, long step, const hd_ns_sums *s) {
  const double *l = c->p.length;
  fprintf(f, "%ld,%.9g,%.9e,%.15e,%.15e\n", step, step * c->p.dt, s->dpmax, s->mass * l[0] * l[1] / c->nodes,
          s->energy * l[0] * l[1] / c->nodes);
}

static int start(hd_drv_run *r) {
  ns_run *c = (ns_run *)r->self;
  int rc;
  if ((rc = monitor(r, c, &c->s)) != HD_DRV_OK) return rc;
  c->s0 = c->s; /* the flow the run started with, also after restarts */
  hd_ckpt_get_value(r->ck, "dp_max0", &c->s0.dpmax), hd_ckpt_get_value(r->ck, "mass0", &c->s0.mass);
  hd_ckpt_get_value(r->ck, "energy0", &c->s0.energy);
  hd_ckpt_set_value(r->ck, "dp_max0", c->s0.dpmax), hd_ckpt_set_value(r->ck, "mass0", c->s0.mass);
  hd_ckpt_set_value(r->ck, "energy0", c->s0.energy);
  if (r->root && !r->cont) {
    fprintf(r->out[c->hist].f, "step,time,max_dp,mass,energy\n");
    history_row(c, r->out[c->hist].f, r->step0, &c->s);
  }
  r->cadence[0] = c->monitor_every;
  return HD_DRV_OK;
}

/* A frame: PREFIX_NNNN.vtr from rank 0's whole grid, or with pieces every
 * rank's block and rank 0's index PREFIX_NNNN.pvtr; a surface at z = 0
 * with (u, v) as the vector velocity.  Collective. */
static int frame(hd_drv_run *r, hd_out *o, const char *prefix) {
  ns_run *c = (ns_run *)r->self;
  const ns_problem *p = &c->p;
  const long nx = ns_nodes(p, 0), ny = ns_nodes(p, 1);
  const double h = p->length[0] / p->n[0], z = 0.0;
  const int single = c->ops->real_size == 4;
  double *x = (double *)malloc((size_t)(nx + 1) * sizeof(double)), *y = (double *)malloc((size_t)(ny + 1) * sizeof(double));
  const double *xyz[3];
  const int64_t dims[3] = {nx, ny, 0};
  const double *const *f = (const double *const *)c->f;
  hd_vti_array arr[5] = {{"rho", NULL, 0, "rho_inf", {NULL, NULL, NULL}},
                         {"velocity", NULL, 0, "c_inf", {NULL, NULL, NULL}},
                         {"p", NULL, 0, "rho_inf c_inf^2", {NULL, NULL, NULL}},
                         {"vorticity", NULL, 0, "c_inf/l", {NULL, NULL, NULL}},
                         {"speed", NULL, 0, "c_inf", {NULL, NULL, NULL}}};
  const hd_vtk_meta meta = hd_vtk_meta_time((double)r->step * p->dt);
  double *zero = NULL, *speed = NULL;
  long i;
  int a, rc, bad;
  if ((rc = fields(r, c)) != HD_DRV_OK) return rc;
  if (!r->root && !c->pieces) return HD_DRV_OK;
  {
    const long cells = c->pieces ? c->dc.ln[0] * c->dc.ln[1] : c->nodes;
    zero = (double *)calloc((size_t)cells, sizeof(double)), speed = (double *)malloc((size_t)cells * sizeof(double));
    bad = !x || !y || !zero || !speed;
    if (c->pieces) bad = hd_par_any(bad);
    for (i = 0; !bad && i < cells; ++i) speed[i] = sqrt(f[1][i] * f[1][i] + f[2][i] * f[2][i]);
  }
  if (bad) {
    free(x), free(y), free(zero), free(speed);
    return hd_fail(&r->ctx, HD_ERR_NOMEM, "out of host memory for a frame"), HD_DRV_FAILED;
  }
  for (i = 0; i <= nx; ++i) x[i] = p->origin[0] + ((double)i - 0.5) * h;
  for (i = 0; i <= ny; ++i) y[i] = p->origin[1] + ((double)i - 0.5) * h;
  xyz[0] = x, xyz[1] = y, xyz[2] = &z;
  arr[0].data = f[0], arr[2].data = f[3], arr[3].data = f[4], arr[4].data = speed;
  arr[1].comp[0] = f[1], arr[1].comp[1] = f[2], arr[1].comp[2] = zero;
  for (a = 0; a < 5; ++a) arr[a].single = single;
  r->err[0] = '\0';
  bad = c->pieces ? hd_drv_write_pieces(&c->dc, prefix, o, dims, NULL, NULL, xyz, arr, 5, &meta, r->err, sizeof r->err)
                  : hd_vtr_write(o, dims, xyz, arr, 5, &meta);
  if (bad && !r->err[0]) snprintf(r->err, sizeof r->err, "cannot write %.900s: %s", o->path, hd_out_error());
  free(x), free(y), free(zero), free(speed);
  return bad ? (hd_fail(&r->ctx, HD_ERR_IO, "%s", r->err), HD_DRV_FAILED) : HD_DRV_OK;
}

static int advance(hd_drv_run *r, long steps) {
  ns_run *c = (ns_run *)r->self;
  return c->ops->advance(&r->ctx, c->state, steps) == HD_OK ? HD_DRV_OK : HD_DRV_FAILED;
}

static int after(hd_drv_run *r, long steps) {
  ns_run *c = (ns_run *)r->self;
  const long step = r->step;
  int rc;
  (void)steps;
  if ((rc = monitor(r, c, &c->s)) != HD_DRV_OK) return rc;
  if (c->s.nonfinite) { /* every rank sees the same sums */
    if (r->root)
      fprintf(stderr, PROG ": error: the flow blew up by step %ld (non-positive or non-finite state at node %ld, %ld); "
              "dt = %g, try a smaller --cfl%s\n", step, (long)(c->s.first_bad % (ns_nodes(&c->p, 0) + 2)) - 1,
              (long)(c->s.first_bad / (ns_nodes(&c->p, 0) + 2)) - 1, c->p.dt, hd_drv_ckpt_note(r));
    return 1;
  }
  if (r->root && (step % c->monitor_every == 0 || (r->frame_every > 0 && step % r->frame_every == 0) || step == r->total))
    history_row(c, r->out[c->hist].f, step, &c->s); /* not at checkpoints */
  return HD_DRV_OK;
}

/* A picture of f (nodes nx x ny, row 0 at the bottom) on the blue-white-red
 * scale, scaled to its largest magnitude. */
static int picture(hd_out *o, const ns_problem *p, const double *f, long nx, long ny, const char *what, const char *units,
                   double t, char *err, size_t en) {
  double *img = (double *)malloc((size_t)(nx * ny) * sizeof(double)), vmax = 0.0;
  long i, j;
  int rc;
  if (!img) return snprintf(err, en, "out of host memory for a picture"), -1;
  for (j = 0; j < ny; ++j)
    for (i = 0; i < nx; ++i) {
      img[i + (ny - 1 - j) * nx] = f[i + j * nx];
      vmax = fmax(vmax, fabs(f[i + j * nx]));
    }
  {
    char title[128], extent[128];
    hd_png_legend lg;
    snprintf(title, sizeof title, "%s at t = %.4g l/c", what, t);
    snprintf(extent, sizeof extent, "x %g .. %g, y %g .. %g (l)", p->origin[0], p->origin[0] + p->length[0], p->origin[1],
             p->origin[1] + p->length[1]);
    lg.title = title, lg.units = units, lg.extent = extent;
    rc = hd_png_write(o, (int)nx, (int)ny, img, vmax > 0 ? vmax : 1.0, &lg, err, en);
  }
  free(img);
  return rc;
}

static int finish(hd_drv_run *r) {
  ns_run *c = (ns_run *)r->self;
  const long nx = ns_nodes(&c->p, 0), ny = ns_nodes(&c->p, 1);
  long k;
  int rc;
  if ((rc = monitor(r, c, &c->s)) != HD_DRV_OK || (rc = fields(r, c)) != HD_DRV_OK) return rc;
  if (!r->root || !c->png) return HD_DRV_OK;
  for (k = 0; k < c->nodes; ++k) c->f[3][k] -= 1.0 / c->gamma;
  if (picture(&r->out[c->png_p], &c->p, c->f[3], nx, ny, "pressure p - p_inf", "rho_inf c^2", r->step * c->p.dt, r->err,
              sizeof r->err) ||
      picture(&r->out[c->png_w], &c->p, c->f[4], nx, ny, "vorticity", "c/l", r->step * c->p.dt, r->err, sizeof r->err))
    return hd_fail(&r->ctx, HD_ERR_IO, "%s", r->err), HD_DRV_FAILED;
  return HD_DRV_OK;
}

static int summary(hd_drv_run *r, FILE *out) {
  ns_run *c = (ns_run *)r->self;
  const ns_problem *p = &c->p;
  char nb[4][32];
  if (!r->root) return HD_DRV_OK;
  fprintf(out, "nodes: %ld x %ld\nbox: %g x %g\nmach: %g\nre: %g\nbc: %s %s %s %s\ndt: %.6g\nsteps: %ld\ntime: %.6g\n",
          ns_nodes(p, 0), ns_nodes(p, 1), p->length[0], p->length[1], c->mach, c->inviscid ? 0.0 : c->re,
          cli_choice_name(bc_names, c->bc[0], nb[0], 32), cli_choice_name(bc_names, c->bc[1], nb[1], 32),
          cli_choice_name(bc_names, c->bc[2], nb[2], 32), cli_choice_name(bc_names, c->bc[3], nb[3], 32), p->dt, r->step, r->step * p->dt);
  fprintf(out, "max_dp_initial: %.6e\nmax_dp_final: %.6e\n", c->s0.dpmax, c->s.dpmax);
  if (c->icase == HD_NS_IC_VORTEX && dip(c) > 0) fprintf(out, "max_dp_final_over_vortex_dip: %.4f\n", c->s.dpmax / dip(c));
  fprintf(out, "mass_change: %.3e\nenergy_change: %.3e\ncell_stages_per_second: %.6g\n", c->s.mass / c->s0.mass - 1.0,
          c->s.energy / c->s0.energy - 1.0,
          r->wall > 0 ? (double)c->nodes * 4.0 * (double)(r->step - r->step0) / r->wall : 0.0);
  return HD_DRV_OK;
}

const hd_drv_module hd_ns_module = {
    .prog = PROG, .about = ABOUT, .output = "ns", .size = sizeof(ns_run), .cuda_ranks = 1, .memory = "grid",
    .options = options, .setup = setup, .open = open_backend, .bench = bench, .banner = banner, .create = create,
    .start = start, .frame = frame, .frames = 10, .advance = advance, .after = after, .finish = finish, .summary = summary,
    .destroy = destroy};
