/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-ns --dim=3's decisions for the run loop (module.h): 3-D compressible
 * Navier-Stokes (hd/ns3.h) in a periodic box; the Taylor-Green vortex of
 * the International Workshop on High-Order CFD Methods, a convected
 * vortex tube, uniform flow.  doc/ns.md, "Three dimensions". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "decomp.h"
#include "module.h"
#include "ns3_ops.h"
#include "output.h"
#include "sys.h"

#define PROG "hd-ns"
#define ABOUT \
  "3-D compressible Navier-Stokes (--dim=3) with periodic or characteristic (NSCBC) faces; writes " \
  "PREFIX_history.csv (kinetic energy, dissipation, enstrophy), PREFIX_NNNN.vtr with PREFIX.pvd, and a picture."

static const char *const bc_names = "periodic|supersonic-in|supersonic-out|nonreflecting|subsonic-in|slip-wall|"
                                    "noslip-wall";

typedef struct ns3_run {
  hd_drv_common com; /* first: the loop's */
  int icase, inviscid, sutherland, divergence, png, bc[6], bc_all, corners;
  long dim, n, steps, monitor_every;
  double lx, ly, lz, mach, re, circulation, rc, gamma, pr, suth, dt, cfl, t_end;
  double center[3], amplitude, sigma, sigma_side, beta, beta_side, sigma_in, ring, axis[3];
  int ncenter, naxis;
  double speed;                /* U: time in L/U, energies in U^2 */
  ns3_problem p;
  hd_decomp dc;
  const ns3_ops *ops;
  void *state;
  double *rows, *all;          /* this rank's row sums; every row's */
  double *f[8], *lf[8];        /* the output fields: rank 0's whole grid, this block's */
  long nn[3], nodes, nrows, lnodes; /* the grid's nodes per axis, nodes and rows; the block's nodes */
  int hist, png_w;             /* output slots */
  double s0[HD_NS3_ROW], s[HD_NS3_ROW]; /* the whole grid's sums: at the start, now */
  double ek_peak, ek_peak_t;   /* the largest dissipation seen and its time */
} ns3_run;

static int options(void *self, cli_opt *opts, int max) {
  ns3_run *c = (ns3_run *)self;
  const cli_opt o[] = {
      {"dim", CLI_INT, &c->dim, "3", "3: this solver (2: the 2-D one, hd-ns --help)", 3, 3, 0, NULL, 1, 0, 0},
      {"case", CLI_CHOICE, &c->icase, "uniform|taylor-green|vortex-tube|pulse|vortex-ring",
       "initial state (default taylor-green: the workshop's Taylor-Green vortex; vortex-tube: the isentropic vortex "
       "along z carried along x; pulse: a spherical acoustic pulse; vortex-ring: a ring carried along x)", 1, 0, 0,
       NULL, 0, 0, 0},
      {"n", CLI_INT, &c->n, "N", "cells along x (default 64); y and z take the same spacing", 4, 1 << 16, 0, NULL, 0, 0, 0},
      {"lx", CLI_REAL, &c->lx, "L", "box length along x in units of L (default 2 pi), centred on 0", 1e-3, 1e3, 0, NULL, 0, 0, 0},
      {"ly", CLI_REAL, &c->ly, "L", "box length along y (default 2 pi)", 1e-3, 1e3, 0, NULL, 0, 0, 0},
      {"lz", CLI_REAL, &c->lz, "L", "box length along z (default 2 pi)", 1e-3, 1e3, 0, NULL, 0, 0, 0},
      {"mach", CLI_REAL, &c->mach, "M", "the flow's speed U / c: the Taylor-Green vortex's V0, else the stream along x "
       "(default 0.1)", 0, 50, 0, NULL, 0, 0, 0},
      {"re", CLI_REAL, &c->re, "RE", "Reynolds number rho U L / mu (default 1600)", 1e-6, 1e12, 0, NULL, 0, 0, 0},
      {"inviscid", CLI_FLAG, &c->inviscid, NULL, "Euler equations (default no)", 1, 0, 0, NULL, 0, 0, 0},
      {"convection", CLI_CHOICE, &c->divergence, "split|divergence",
       "inviscid fluxes: split (default: kinetic-energy preserving, stable under-resolved) or divergence (the 2-D "
       "solver's form)", 1, 0, 0, NULL, 0, 0, 0},
      {"viscosity", CLI_CHOICE, &c->sutherland, "constant|sutherland",
       "viscosity law (default constant; sutherland: as the 2-D solver)", 1, 0, 0, NULL, 0, 0, 0},
      {"sutherland", CLI_REAL, &c->suth, "S", "Sutherland constant / T_inf (default 110.4/288.15)", 0, 1e3, 0, NULL, 0, 0, 0},
      {"gamma", CLI_REAL, &c->gamma, "G", "ratio of specific heats (default 1.4)", 1.0001, 5, 0, NULL, 0, 0, 0},
      {"pr", CLI_REAL, &c->pr, "PR", "Prandtl number (default 0.71)", 1e-3, 1e3, 0, NULL, 0, 0, 0},
      {"circulation", CLI_REAL, &c->circulation, "G", "vortex tube, ring: the largest swirl speed / c (default 0.05)", -1,
       1, 0, NULL, 0, 0, 0},
      {"ring-radius", CLI_REAL, &c->ring, "R", "vortex ring: its radius / L (default 1)", 1e-6, 1e3, 0, NULL, 0, 0, 0},
      {"axis", CLI_REALS, c->axis, "X,Y,Z", "vortex ring: the direction of its axis (default 1,0,0)", -1e3, 1e3, 3,
       &c->naxis, 0, 0, 0},
      {"rc", CLI_REAL, &c->rc, "R", "vortex tube, pulse: its radius, ring: its core's / L (default 0.5)", 1e-6, 100, 0,
       NULL, 0, 0, 0},
      {"amplitude", CLI_REAL, &c->amplitude, "A", "pulse: its peak pressure / (rho_inf c^2) (default 0.01)", -0.5, 10, 0,
       NULL, 0, 0, 0},
      {"center", CLI_REALS, c->center, "X,Y,Z", "vortex tube (X, Y), pulse: its centre / L (default 0,0,0)", -1e3, 1e3, 3,
       &c->ncenter, 0, 0, 0},
      {"bc-left", CLI_CHOICE, &c->bc[0], bc_names, "face x = -lx/2 (default periodic)", 1, 0, 0, NULL, 0, 0, 0},
      {"bc-right", CLI_CHOICE, &c->bc[1], bc_names, "face x = +lx/2 (default periodic)", 1, 0, 0, NULL, 0, 0, 0},
      {"bc-bottom", CLI_CHOICE, &c->bc[2], bc_names, "face y = -ly/2 (default periodic)", 1, 0, 0, NULL, 0, 0, 0},
      {"bc-top", CLI_CHOICE, &c->bc[3], bc_names, "face y = +ly/2 (default periodic)", 1, 0, 0, NULL, 0, 0, 0},
      {"bc-back", CLI_CHOICE, &c->bc[4], bc_names, "face z = -lz/2 (default periodic)", 1, 0, 0, NULL, 0, 0, 0},
      {"bc-front", CLI_CHOICE, &c->bc[5], bc_names, "face z = +lz/2 (default periodic)", 1, 0, 0, NULL, 0, 0, 0},
      {"bc", CLI_CHOICE, &c->bc_all, bc_names, "every face at once (the bc-FACE options override it)", 1, 0, 0, NULL, 0,
       0, 0},
      {"sigma", CLI_REAL, &c->sigma, "S", "NSCBC pressure relaxation sigma (default 0.25)", 0, 100, 0, NULL, 0, 0, 0},
      {"sigma-side", CLI_REAL, &c->sigma_side, "S", "the same on the faces the stream runs along (default 1, supersonic 4)",
       -1, 100, 0, NULL, 0, 0, 0},
      {"beta", CLI_REAL, &c->beta, "B", "NSCBC fraction of transverse terms kept (default min(mach, 1))", 0, 1, 0, NULL, 0,
       0, 0},
      {"beta-side", CLI_REAL, &c->beta_side, "B", "the same on the faces the stream runs along (default 0.5, supersonic "
       "0.25)", -1, 1, 0, NULL, 0, 0, 0},
      {"corners", CLI_CHOICE, &c->corners, "independent|coupled",
       "where nonreflecting faces meet: each face's waves alone (default, as 2-D) or coupled through the other faces' "
       "waves (Lodato et al. 2008)", 1, 0, 0, NULL, 0, 0, 0},
      {"sigma-in", CLI_REAL, &c->sigma_in, "S", "NSCBC relaxation of the waves entering a supersonic inflow (default 16)",
       0, 1000, 0, NULL, 0, 0, 0},
      {"dt", CLI_REAL, &c->dt, "DT", "time step in L/U (default from --cfl)", 1e-300, 1e300, 0, NULL, 0, 0, 0},
      {"cfl", CLI_REAL, &c->cfl, "C", "dt sum (|u_d|+c)/h_d, at most 2.8 (default 1.5)", 1e-6, HD_NS_CFL_MAX, 0, NULL, 0, 0, 0},
      {"t-end", CLI_REAL, &c->t_end, "T", "run to time T in L/U (default 20)", 0, 1e9, 0, NULL, 0, 0, 0},
      {"steps", CLI_INT, &c->steps, "N", "run N steps instead of to --t-end", 1, 1e12, 0, NULL, 0, 0, 0},
      {"monitor-every", CLI_INT, &c->monitor_every, "N", "steps between history rows (default 10)", 1, 1e12, 0, NULL, 0, 0, 0},
      {"png", CLI_FLAG, &c->png, NULL, "write PREFIX_vorticity.png, |omega| on the face x = -lx/2 (default yes where "
       "libpng is)", 1, 0, 0, NULL, 0, 0, 0}};
  c->dim = 3, c->icase = HD_NS3_IC_TAYLOR_GREEN, c->n = 64, c->lx = c->ly = c->lz = 2.0 * M_PI, c->mach = 0.1;
  c->re = 1600, c->gamma = 1.4, c->pr = 0.71, c->suth = 110.4 / 288.15, c->circulation = 0.05, c->rc = 0.5;
  c->cfl = 1.5, c->t_end = 20, c->monitor_every = 10, c->png = HD_PNG_BUILT, c->amplitude = 0.01, c->sigma = 0.25;
  c->ring = 1.0, c->axis[0] = 1.0;
  return HD_DRV_ROWS(opts, max, o);
}

/* Fill the problem; 0, or HD_DRV_BAD_INPUT. */
static int build(hd_drv_run *r, ns3_run *c, ns3_problem *p) {
  const double len[3] = {c->lx, c->ly, c->lz};
  const int swirls = c->icase == HD_NS3_IC_VORTEX_TUBE || c->icase == HD_NS3_IC_VORTEX_RING;
  const double swirl = swirls ? fabs(c->circulation) : 0.0;
  const double naxis = sqrt(c->axis[0] * c->axis[0] + c->axis[1] * c->axis[1] + c->axis[2] * c->axis[2]);
  double h[3], speed[3], nu_eff, dtmax, pulse = 0.0;
  int d, f;
  memset(p, 0, sizeof *p);
  c->speed = c->mach > 0 ? c->mach : 1.0;
  for (f = 0; f < 6; ++f) {
    static const char *const face[6] = {"left", "right", "bottom", "top", "back", "front"};
    char key[16];
    snprintf(key, sizeof key, "bc-%s", face[f]);
    p->bc[f] = cli_find(r->opts, key)->seen || !cli_find(r->opts, "bc")->seen ? c->bc[f] : c->bc_all;
  }
  for (d = 0; d < 3; ++d)
    if ((p->bc[2 * d] == HD_NS_PERIODIC) != (p->bc[2 * d + 1] == HD_NS_PERIODIC))
      return hd_drv_bad(r, "bc: a periodic face needs a periodic opposite face (%c)", "xyz"[d]);
  for (f = 0; f < 6; ++f)
    if (p->bc[f] == HD_NS_SUPERSONIC_IN && c->mach <= 1)
      return hd_drv_bad(r, "bc: supersonic-in needs mach > 1 (got %g)", c->mach);
  for (d = 0; d < 3; ++d) {
    p->n[d] = d == 0 ? c->n : (long)llround(c->n * len[d] / c->lx);
    if (p->n[d] < 4) return hd_drv_bad(r, "n: the box needs at least 4 cells a side (%c has %ld)", "xyz"[d], p->n[d]);
    p->length[d] = len[d], p->origin[d] = -0.5 * len[d], h[d] = len[d] / (double)p->n[d];
  }
  p->mach = c->mach, p->sigma = c->sigma;
  p->beta = cli_find(r->opts, "beta")->seen ? c->beta : (c->mach < 1 ? c->mach : 1.0);
  ns_nscbc_side_defaults(c->mach, &p->sigma_side, &p->beta_side, &p->sigma_in);
  if (cli_find(r->opts, "sigma-side")->seen) p->sigma_side = c->sigma_side;
  if (cli_find(r->opts, "beta-side")->seen) p->beta_side = c->beta_side;
  if (cli_find(r->opts, "sigma-in")->seen) p->sigma_in = c->sigma_in;
  if (c->icase != HD_NS3_IC_TAYLOR_GREEN) p->u_inf[0] = c->mach;
  p->corners = c->corners;
  if (fabs(h[1] / h[0] - 1) > 0.01 || fabs(h[2] / h[0] - 1) > 0.01)
    return hd_drv_bad(r, "lx, ly, lz: the box's sides must hold whole cells of one size within 1 %% (spacings %g, %g, %g)",
                      h[0], h[1], h[2]);
  /* the pressure p_inf + V^2 / 16 (cos 2x + cos 2y)(cos 2z + 2) at its least */
  if (c->icase == HD_NS3_IC_TAYLOR_GREEN && 1.0 / c->gamma - 6.0 / 16.0 * c->mach * c->mach <= 0)
    return hd_drv_bad(r, "mach: the Taylor-Green vortex's pressure 1/gamma - 3 mach^2 / 8 goes negative at mach %g "
                      "(at most %.4g)", c->mach, sqrt(16.0 / (6.0 * c->gamma)));
  p->gamma = c->gamma, p->pr = c->pr, p->viscous = !c->inviscid, p->split = !c->divergence;
  p->suth = c->sutherland ? c->suth : -1.0;
  p->mu_ref = c->inviscid ? 0.0 : c->speed / c->re; /* rho U L / Re */
  p->generic = c->com.variant == HD_VARIANT_GENERIC;
  p->ic.kind = c->icase, p->ic.gamma = c->gamma, p->ic.u0 = c->mach;
  p->ic.plane.kind = HD_NS_IC_ISENTROPIC, p->ic.plane.gamma = c->gamma, p->ic.plane.u_inf = c->mach;
  p->ic.plane.strength = c->circulation, p->ic.plane.rc = c->rc;
  p->ic.plane.x0 = c->center[0], p->ic.plane.y0 = c->center[1];
  p->ic.strength = c->amplitude, p->ic.rc = c->rc;
  for (d = 0; d < 3; ++d) p->ic.x0[d] = c->center[d];
  if (c->icase == HD_NS3_IC_VORTEX_RING && !(naxis > 0)) return hd_drv_bad(r, "axis: the ring's axis needs a direction");
  p->ic.ring = c->ring;
  for (d = 0; d < 3; ++d) p->ic.axis[d] = naxis > 0 ? c->axis[d] / naxis : 0.0;
  if (c->icase == HD_NS3_IC_PULSE) pulse = fabs(c->amplitude);
  for (d = 0; d < 3; ++d)
    speed[d] = 1.0 + (c->icase == HD_NS3_IC_TAYLOR_GREEN || d == 0 ? c->mach : 0.0) + swirl + pulse;
  if (c->icase == HD_NS3_IC_VORTEX_RING) p->ic.strength = c->circulation;
  /* the largest diffusivity of momentum and heat, at T up to 1.2 */
  nu_eff = p->mu_ref * fmax(4.0 / 3.0, c->gamma / c->pr) * (c->sutherland ? 1.2 : 1.0);
  dtmax = hd_ns3_dt_max(speed, h, nu_eff);
  if (cli_find(r->opts, "dt")->seen) {
    if (c->dt / c->speed > dtmax)
      return hd_drv_bad(r, "dt: %g exceeds the RK4 stability limit %.3g (CFL %.2f, viscous %.2f)", c->dt,
                        dtmax * c->speed, HD_NS_CFL_MAX, HD_NS_VISC_MAX);
    p->dt = c->dt / c->speed;
  } else {
    p->dt = c->cfl / HD_NS_CFL_MAX * dtmax;
  }
  return HD_DRV_OK;
}

/* The problem's halo hook: the ghost planes of the five variables from the
 * neighbouring blocks (at most HD_DECOMP_FIELDS at once). */
static int exchange(void *user, void *const q[5]) {
  ns3_run *c = (ns3_run *)user;
  char err[256];
  if (hd_decomp_halo_fields(&c->dc, 4, q, c->ops->real_size, err, sizeof err) ||
      hd_decomp_halo_fields(&c->dc, 1, q + 4, c->ops->real_size, err, sizeof err)) {
    fprintf(stderr, PROG ": rank %d: %s\n", hd_par_rank(), err); /* the hook's caller only knows it failed */
    return -1;
  }
  return 0;
}

static int setup(hd_drv_run *r) {
  ns3_run *c = (ns3_run *)r->self;
  ns3_problem *p = &c->p;
  long gn[3];
  int rc, a;
  if (c->png && !HD_PNG_BUILT) return hd_drv_bad(r, "--png: " HD_NO_PNG);
  if ((rc = build(r, c, p)) != HD_DRV_OK) return rc;
  /* times in L/U: the problem's in L/c */
  r->total = c->steps > 0 ? c->steps : (long)ceil(c->t_end / c->speed / p->dt - 1e-9);
  if (c->steps == 0 && r->total > 0) p->dt = c->t_end / c->speed / (double)r->total; /* land on t-end */
  r->dt = p->dt * c->speed;
  for (a = 0; a < 3; ++a) gn[a] = c->nn[a] = ns3_nodes(p, a);
  c->nodes = gn[0] * gn[1] * gn[2], c->nrows = gn[1] * gn[2];
  /* blocks along y and z, a periodic axis wrapping around the ranks */
  if (hd_decomp_create(&c->dc, 3, gn, 0, (p->bc[2] == HD_NS_PERIODIC ? 2 : 0) | (p->bc[4] == HD_NS_PERIODIC ? 4 : 0), r->err,
                       sizeof r->err))
    return HD_DRV_BAD_INPUT;
  if (hd_par_any(c->dc.ln[1] < 3 || c->dc.ln[2] < 3))
    return hd_drv_bad(r, "%d ranks leave blocks thinner than 3 nodes (%ld x %ld x %ld nodes in all); use fewer ranks",
                      c->dc.size, gn[0], gn[1], gn[2]);
  c->lnodes = c->dc.ln[0] * c->dc.ln[1] * c->dc.ln[2];
  if (c->dc.size > 1) {
    for (a = 0; a < 3; ++a) p->block_nodes[a] = c->dc.ln[a], p->block_off[a] = c->dc.off[a];
    /* a periodic axis on one block wraps onto itself: its ghosts stay local */
    for (a = 0; a < 6; ++a) p->shared[a] = c->dc.dims[a / 2] > 1 && !hd_decomp_owns_face(&c->dc, a);
    p->halo = exchange, p->halo_user = c;
  }
  c->hist = hd_drv_slot(r, "_history.csv", 1, HD_DRV_SERIES);
  r->frame_suffix = ".vtr";
  c->png_w = hd_drv_slot(r, "_vorticity.png", c->png, HD_DRV_PICTURE);
  r->work = (double)c->nodes * 4.0, r->work_unit = "cell-stage/s";
  return HD_DRV_OK;
}

static int open_backend(hd_drv_run *r) {
  ns3_run *c = (ns3_run *)r->self;
  const double padded = (double)(c->dc.ln[0] + 2) * (c->dc.ln[1] + 2) * (c->dc.ln[2] + 2);
  hd_decomp_use_backend(&c->dc, r->core, &r->ctx);
  if (!(c->ops = ns3_ops_get(r->core->id, c->com.precision == 1)))
    return hd_drv_bad(r, "no kernels for this backend and precision");
  r->precision = c->ops->precision;
  /* device: 20 padded arrays of the block and its primitives (7 reals a
   * node); host: its eight output fields, on rank 0 the grid's too, and
   * every row's sums */
  r->dev_bytes = 27.0 * padded * c->ops->real_size;
  r->host_bytes = c->com.bench ? 0.0
                               : 64.0 * (double)c->lnodes + (r->root && c->dc.size > 1 ? 64.0 * (double)c->nodes : 0.0) +
                                     HD_NS3_ROW * 8.0 * (double)c->nrows;
  return HD_DRV_OK;
}

static void banner(hd_drv_run *r, char *text, size_t n) {
  ns3_run *c = (ns3_run *)r->self;
  const long *m = c->nn;
  if (c->com.bench)
    snprintf(text, n, "%ld x %ld x %ld nodes", m[0], m[1], m[2]);
  else
    snprintf(text, n, "%ld x %ld x %ld nodes, Mach %g, Re %g, dt %g L/U, %ld steps", m[0], m[1], m[2], c->mach,
             c->inviscid ? 0.0 : c->re, r->dt, r->total);
}

typedef struct ns3_bench {
  hd_ctx *ctx;
  const ns3_ops *ops;
  void *state;
} ns3_bench;

static hd_status ns3_bench_steps(void *arg, long steps) {
  ns3_bench *b = (ns3_bench *)arg;
  return b->ops->advance(b->ctx, b->state, steps);
}

static int bench(hd_drv_run *r) {
  ns3_run *c = (ns3_run *)r->self;
  const ns3_problem *p = &c->p;
  hd_ctx *ctx = &r->ctx;
  const int rounds = 5;
  const long steps = c->steps > 0 ? (c->steps >= rounds ? c->steps / rounds : 1) : 2; /* a round */
  const double cells = (double)c->nodes;
  const size_t copy = (size_t)fmin(cells * c->ops->real_size * 5.0, 4e9); /* the five conserved fields */
  ns3_bench b;
  double wall, bw = 0.0, per;
  if (c->ops->create(ctx, p, &c->state) != HD_OK || c->ops->advance(ctx, c->state, 1) != HD_OK ||
      r->core->sync(ctx) != HD_OK)
    return HD_DRV_FAILED;
  b.ctx = ctx, b.ops = c->ops, b.state = c->state;
  if (hd_drv_bench_rounds(ctx, r->core, ns3_bench_steps, &b, steps, rounds, copy, &wall, &bw) != HD_OK)
    return HD_DRV_FAILED;
  wall *= (double)steps;
  r->bench_rate = cells * 4.0 * (double)steps / wall;
  /* compulsory traffic of a stage: the input (5), q0 and acc read (10),
   * out and acc written (10) at most, 20 values; the two-pass form also
   * writes 7 primitives a node and reads them back */
  per = (p->generic ? 20.0 : 34.0) * c->ops->real_size;
  r->bench_unit = "cell-stages/s", r->bench_ceiling = bw / per;
  printf("stage: %s\nnodes: %ld x %ld x %ld\nsteps_a_round: %ld\nround_seconds: %.6g (%d rounds, the best)\n"
         "cell_stages_per_second: %.6g\nbytes_per_cell_stage: %.0f\neffective_GB_per_second: %.6g\n"
         "copy_GB_per_second: %.6g\nfraction_of_copy: %.3f\n",
         p->generic ? "generic (one pass)" : "two-pass (primitives once a node)", c->nn[0], c->nn[1], c->nn[2], steps, wall,
         rounds, r->bench_rate, per, r->bench_rate * per / 1e9, bw / 1e9, bw > 0 ? r->bench_rate * per / bw : 0.0);
  return HD_DRV_OK;
}

/* The whole grid's sums, rows folded in global order (the same on any
 * number of ranks): mass, momentum, energy, kinetic energy, enstrophy and
 * dE_k/dt summed; max |p - p_inf|, bad nodes, and the first bad node's
 * index i + nx row. */
static int monitor(hd_drv_run *r, ns3_run *c, double *out) {
  long j;
  int k, bad = c->ops->row_sums(&r->ctx, c->state, c->rows) != HD_OK;
  if (hd_par_any(bad)) {
    if (!bad) hd_fail(&r->ctx, HD_ERR_IO, "the monitor failed on another rank");
    return HD_DRV_FAILED;
  }
  if (hd_decomp_rows_all(&c->dc, c->rows, HD_NS3_ROW, c->all, r->err, sizeof r->err))
    return hd_fail(&r->ctx, HD_ERR_IO, "%s", r->err), HD_DRV_FAILED;
  for (k = 0; k < HD_NS3_ROW; ++k) out[k] = 0.0;
  out[10] = -1.0;
  for (j = 0; j < c->nrows; ++j) {
    const double *v = c->all + HD_NS3_ROW * j;
    for (k = 0; k < 8; ++k) out[k] += v[k];
    out[8] = fmax(out[8], v[8]);
    if (v[9] > 0 && out[9] == 0) out[10] = v[10] + (double)c->nn[0] * (double)j;
    out[9] += v[9];
  }
  return HD_DRV_OK;
}

/* What a checkpoint of this run must match on restart. */
static void ckpt_template(const ns3_run *c, size_t real_size, hd_ckpt *ck) {
  const ns3_problem *p = &c->p;
  int f;
  memset(ck, 0, sizeof *ck);
  snprintf(ck->driver, sizeof ck->driver, "hd-ns-3d");
  ck->real_size = (uint32_t)real_size;
  ck->dims[0] = c->nn[0], ck->dims[1] = c->nn[1], ck->dims[2] = c->nn[2];
  hd_ckpt_param(ck, "box", "%.17g,%.17g,%.17g", p->length[0], p->length[1], p->length[2]);
  hd_ckpt_param(ck, "gas", "%.17g,%.17g,%.17g,%.17g,%d", p->gamma, p->pr, p->mu_ref, p->suth, p->viscous);
  hd_ckpt_param(ck, "convection", "%d", p->split);
  for (f = 0; f < 6; ++f) hd_ckpt_param(ck, "bc", "%d", p->bc[f]);
  hd_ckpt_param(ck, "nscbc", "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%d", p->sigma, p->sigma_side, p->beta, p->beta_side,
                p->sigma_in, p->mach, p->corners);
  hd_ckpt_param(ck, "dt", "%.17g", p->dt);
}

static int create(hd_drv_run *r) {
  ns3_run *c = (ns3_run *)r->self;
  int k, bad = 0, rc;
  for (k = 0; k < 8; ++k) {
    c->lf[k] = (double *)malloc((size_t)c->lnodes * sizeof(double));
    c->f[k] = c->dc.size == 1 ? c->lf[k] : r->root ? (double *)malloc((size_t)c->nodes * sizeof(double)) : NULL;
    bad |= !c->lf[k] || (r->root && !c->f[k]);
  }
  c->rows = (double *)malloc((size_t)(HD_NS3_ROW * c->dc.ln[1] * c->dc.ln[2]) * sizeof(double));
  c->all = (double *)malloc((size_t)(HD_NS3_ROW * c->nrows) * sizeof(double));
  bad |= !c->rows || !c->all;
  if (!bad) bad = c->ops->create(&r->ctx, &c->p, &c->state) != HD_OK;
  if ((rc = hd_drv_take_state(r, bad, c->state, c->ops->state_count, c->ops->state_io)) != HD_DRV_OK) return rc;
  ckpt_template(c, c->ops->real_size, r->ck);
  hd_drv_ckpt_blocks(&r->ckp, &c->dc, 1, 1);
  return HD_DRV_OK;
}

static void destroy(hd_drv_run *r) {
  ns3_run *c = (ns3_run *)r->self;
  int k;
  if (c->state) c->ops->destroy(&r->ctx, c->state);
  for (k = 0; k < 8; ++k) {
    if (c->f[k] != c->lf[k]) free(c->f[k]);
    free(c->lf[k]);
  }
  free(c->rows), free(c->all);
  hd_decomp_destroy(&c->dc);
}

/* Volume averages in the flow's units: rho_inf U^2 for the energies,
 * rho_inf U^2 / L^2 for the enstrophy, rho_inf U^3 / L for the
 * dissipation -dE_k/dt. */
static void history_row(const ns3_run *c, FILE *f, long step, const double *s) {
  const double U = c->speed, U2 = U * U, n = (double)c->nodes;
  fprintf(f, "%ld,%.9g,%.12e,%.12e,%.12e,%.15e,%.15e,%.9e\n", step, step * c->p.dt * U, s[5] / n / U2, (0.0 - s[7]) / n / (U2 * U),
          s[6] / n / U2, s[0] / n, s[4] / n, s[8]);
}

static int start(hd_drv_run *r) {
  ns3_run *c = (ns3_run *)r->self;
  int rc;
  if ((rc = monitor(r, c, c->s)) != HD_DRV_OK) return rc;
  memcpy(c->s0, c->s, sizeof c->s0);
  hd_ckpt_get_value(r->ck, "mass0", &c->s0[0]), hd_ckpt_get_value(r->ck, "energy0", &c->s0[4]);
  hd_ckpt_get_value(r->ck, "kinetic0", &c->s0[5]);
  hd_ckpt_set_value(r->ck, "mass0", c->s0[0]), hd_ckpt_set_value(r->ck, "energy0", c->s0[4]);
  hd_ckpt_set_value(r->ck, "kinetic0", c->s0[5]);
  c->ek_peak = 0.0 - c->s[7], c->ek_peak_t = r->step0 * c->p.dt * c->speed;
  if (r->root && !r->cont) {
    fprintf(r->out[c->hist].f, "step,time,kinetic_energy,dissipation,enstrophy,mass,energy,max_dp\n");
    history_row(c, r->out[c->hist].f, r->step0, c->s);
  }
  r->cadence[0] = c->monitor_every;
  return HD_DRV_OK;
}

/* The eight output fields of every block on rank 0 (c->f), from this
 * block's; collective. */
static int fields(hd_drv_run *r, ns3_run *c) {
  int k;
  /* no agreement here: the backend exchanges halos inside, so a failure
   * goes to the loop's MPI_Abort */
  if (c->ops->fields(&r->ctx, c->state, c->lf) != HD_OK) return HD_DRV_FAILED;
  for (k = 0; k < 8; ++k)
    if (c->lf[k] != c->f[k] && hd_decomp_gather(&c->dc, c->lf[k], c->f[k], r->err, sizeof r->err))
      return hd_fail(&r->ctx, HD_ERR_IO, "%s", r->err), HD_DRV_FAILED;
  return HD_DRV_OK;
}

/* A frame: PREFIX_NNNN.vtr from rank 0's whole grid, the nodes as cells,
 * velocity and vorticity as vectors; collective. */
static int frame(hd_drv_run *r, hd_out *o, const char *prefix) {
  ns3_run *c = (ns3_run *)r->self;
  const ns3_problem *p = &c->p;
  const int single = c->ops->real_size == 4;
  const int64_t dims[3] = {c->nn[0], c->nn[1], c->nn[2]};
  double *x[3];
  hd_vti_array arr[4] = {{"rho", NULL, 0, "rho_inf", {NULL, NULL, NULL}},
                         {"velocity", NULL, 0, "c_inf", {NULL, NULL, NULL}},
                         {"p", NULL, 0, "rho_inf c_inf^2", {NULL, NULL, NULL}},
                         {"vorticity", NULL, 0, "c_inf/L", {NULL, NULL, NULL}}};
  const hd_vtk_meta meta = hd_vtk_meta_time((double)r->step * p->dt * c->speed);
  long i;
  int a, bad = 0;
  (void)prefix;
  if ((a = fields(r, c)) != HD_DRV_OK) return a;
  if (!r->root) return HD_DRV_OK;
  for (a = 0; a < 3; ++a) {
    const double h = p->length[a] / (double)p->n[a];
    bad |= !(x[a] = (double *)malloc((size_t)(c->nn[a] + 1) * sizeof(double)));
    for (i = 0; x[a] && i <= c->nn[a]; ++i) x[a][i] = p->origin[a] + ((double)i - 0.5) * h;
  }
  arr[0].data = c->f[0], arr[2].data = c->f[4];
  for (a = 0; a < 3; ++a) arr[1].comp[a] = c->f[1 + a], arr[3].comp[a] = c->f[5 + a];
  for (a = 0; a < 4; ++a) arr[a].single = single;
  if (!bad && hd_vtr_write(o, dims, (const double *const *)x, arr, 4, &meta))
    bad = 1, snprintf(r->err, sizeof r->err, "cannot write %.900s: %s", o->path, hd_out_error());
  else if (bad)
    snprintf(r->err, sizeof r->err, "out of host memory for a frame");
  for (a = 0; a < 3; ++a) free(x[a]);
  return bad ? (hd_fail(&r->ctx, HD_ERR_IO, "%s", r->err), HD_DRV_FAILED) : HD_DRV_OK;
}

static int advance(hd_drv_run *r, long steps) {
  ns3_run *c = (ns3_run *)r->self;
  return c->ops->advance(&r->ctx, c->state, steps) == HD_OK ? HD_DRV_OK : HD_DRV_FAILED;
}

static int after(hd_drv_run *r, long steps) {
  ns3_run *c = (ns3_run *)r->self;
  const long step = r->step;
  int rc;
  (void)steps;
  if ((rc = monitor(r, c, c->s)) != HD_DRV_OK) return rc;
  if (c->s[9] > 0) {
    const long bad = (long)c->s[10], nx = c->nn[0], ny = c->nn[1];
    if (r->root)
      fprintf(stderr, PROG ": error: the flow blew up by step %ld (non-positive or non-finite state at node %ld, %ld, %ld); "
              "dt = %g L/U, try a smaller --cfl%s\n", step, bad % nx, bad / nx % ny, bad / nx / ny, r->dt,
              hd_drv_ckpt_note(r));
    return 1;
  }
  if (-c->s[7] > c->ek_peak) c->ek_peak = -c->s[7], c->ek_peak_t = step * c->p.dt * c->speed;
  if (r->root && (step % c->monitor_every == 0 || (r->frame_every > 0 && step % r->frame_every == 0) || step == r->total))
    history_row(c, r->out[c->hist].f, step, c->s);
  return HD_DRV_OK;
}

/* |omega| on the face x = -lx/2 (node plane i = 0), y across, z up. */
static int finish(hd_drv_run *r) {
  ns3_run *c = (ns3_run *)r->self;
  const long nx = c->nn[0], ny = c->nn[1], nz = c->nn[2];
  double *img, vmax = 0.0;
  long j, k;
  char title[128], extent[160];
  hd_png_legend lg;
  int rc;
  if ((rc = monitor(r, c, c->s)) != HD_DRV_OK) return rc;
  if (!c->png) return HD_DRV_OK;
  if ((rc = fields(r, c)) != HD_DRV_OK || !r->root) return rc;
  if (!(img = (double *)malloc((size_t)(ny * nz) * sizeof(double))))
    return hd_fail(&r->ctx, HD_ERR_NOMEM, "out of host memory for a picture"), HD_DRV_FAILED;
  for (k = 0; k < nz; ++k)
    for (j = 0; j < ny; ++j) {
      const long n = nx * (j + ny * k);
      const double w = sqrt(c->f[5][n] * c->f[5][n] + c->f[6][n] * c->f[6][n] + c->f[7][n] * c->f[7][n]) / c->speed;
      img[j + (nz - 1 - k) * ny] = w;
      vmax = fmax(vmax, w);
    }
  snprintf(title, sizeof title, "|vorticity| on x = %g at t = %.4g L/U", c->p.origin[0], r->step * c->p.dt * c->speed);
  snprintf(extent, sizeof extent, "y %g .. %g across, z %g .. %g up (L)", c->p.origin[1], c->p.origin[1] + c->p.length[1],
           c->p.origin[2], c->p.origin[2] + c->p.length[2]);
  lg.title = title, lg.units = "U/L", lg.extent = extent;
  rc = hd_png_write_map(&r->out[c->png_w], (int)ny, (int)nz, img, 0.0, vmax > 0 ? vmax : 1.0, HD_PNG_SEQUENTIAL, &lg,
                        r->err, sizeof r->err);
  free(img);
  return rc ? (hd_fail(&r->ctx, HD_ERR_IO, "%s", r->err), HD_DRV_FAILED) : HD_DRV_OK;
}

static int summary(hd_drv_run *r, FILE *out) {
  ns3_run *c = (ns3_run *)r->self;
  const ns3_problem *p = &c->p;
  const double U = c->speed;
  char nb[6][32];
  int f;
  if (!r->root) return HD_DRV_OK;
  for (f = 0; f < 6; ++f) cli_choice_name(bc_names, p->bc[f], nb[f], sizeof nb[f]);
  fprintf(out, "dim: 3\nnodes: %ld x %ld x %ld\nbox: %g x %g x %g\nmach: %g\nre: %g\nbc: %s %s %s %s %s %s\ndt: %.6g\n"
          "steps: %ld\ntime: %.6g\n", c->nn[0], c->nn[1], c->nn[2], p->length[0], p->length[1], p->length[2], c->mach,
          c->inviscid ? 0.0 : c->re, nb[0], nb[1], nb[2], nb[3], nb[4], nb[5], r->dt, r->step, r->step * p->dt * U);
  fprintf(out, "kinetic_energy_initial: %.9e\nkinetic_energy_final: %.9e\ndissipation_peak: %.6e\ndissipation_peak_time: %.4g\n",
          c->s0[5] / c->nodes / (U * U), c->s[5] / c->nodes / (U * U), c->ek_peak / c->nodes / (U * U * U), c->ek_peak_t);
  fprintf(out, "mass_change: %.3e\nenergy_change: %.3e\ncell_stages_per_second: %.6g\n", c->s[0] / c->s0[0] - 1.0,
          c->s[4] / c->s0[4] - 1.0, r->wall > 0 ? (double)c->nodes * 4.0 * (double)(r->step - r->step0) / r->wall : 0.0);
  return HD_DRV_OK;
}

const hd_drv_module hd_ns3_module = {
    .prog = PROG, .about = ABOUT, .output = "ns", .size = sizeof(ns3_run), .cuda_ranks = 0, .memory = "grid",
    .options = options, .setup = setup, .open = open_backend, .bench = bench, .banner = banner, .create = create,
    .start = start, .frame = frame, .frames = 10, .advance = advance, .after = after, .finish = finish, .summary = summary,
    .destroy = destroy};
