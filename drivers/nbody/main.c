/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-nbody: all-pairs gravitational N-body on the serial, OpenMP or CUDA
 * backend.  Checks everything and opens every output before the run; exit
 * status 0 success, 1 run-time failure, 2 bad usage or input. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bodies.h"
#include "checkpoint.h"
#include "decomp.h"
#include "driver.h"
#include "nbody_ops.h"
#include "output.h"
#include "picture.h"
#include "sys.h"

#define PROG "hd-nbody"
#define NBODY_ERROR_SAMPLE 64 /* bodies the tree benchmark checks against the direct sum */

enum { IC_PLUMMER, IC_UNIFORM, IC_KEPLER, IC_FILE };
enum { FMT_VTP, FMT_VTK };

typedef struct nbody_cli {
  hd_drv_common com;
  long n, steps, seed, snapshot_every, diag_every, splits, leaf;
  int ic, dim, integrator, format, png, method;
  double dt, eps, eccentricity, mass_ratio, max_growth, theta;
  char bodies[4000];
} nbody_cli;

/* Initial bodies on the host, or -1 with a message. */
static int make_bodies(const nbody_cli *c, nbody_bodies *b, char *err, size_t n) {
  if (c->ic == IC_FILE) return nbody_read_csv(c->bodies, b, err, n);
  if (nbody_bodies_alloc(b, c->ic == IC_KEPLER ? 2 : c->n)) {
    snprintf(err, n, "--n: %ld bodies do not fit in host memory", c->n);
    return -1;
  }
  if (c->ic == IC_KEPLER)
    hd_nbody_ic_kepler(c->eccentricity, 1.0, c->mass_ratio, b->x, b->y, b->z, b->vx, b->vy, b->vz,
                       b->m);
  else if (c->ic == IC_UNIFORM)
    hd_nbody_ic_uniform(b->n, c->dim, (uint64_t)c->seed, b->x, b->y, b->z, b->vx, b->vy, b->vz,
                        b->m);
  else
    hd_nbody_ic_plummer(b->n, (uint64_t)c->seed, b->x, b->y, b->z, b->vx, b->vy, b->vz, b->m);
  return 0;
}

static int check_options(const nbody_cli *c, cli_opt *opts, char *err, size_t n) {
  if (c->dim == 2 && c->ic != IC_UNIFORM && c->ic != IC_FILE) {
    snprintf(err, n, "--dim=2 (periodic unit square) takes --ic=uniform or --ic=file");
    return -1;
  }
  if (c->ic == IC_FILE && !c->bodies[0]) {
    snprintf(err, n, "--ic=file needs --bodies=FILE");
    return -1;
  }
  if (c->ic != IC_FILE && c->bodies[0]) {
    snprintf(err, n, "--bodies is read only with --ic=file");
    return -1;
  }
  if (c->ic == IC_FILE && cli_find(opts, "n")->seen) {
    snprintf(err, n, "--n is taken from the body file with --ic=file");
    return -1;
  }
  if (c->method == NBODY_TREE && c->dim == 2) {
    snprintf(err, n, "--method=tree takes 3-D free space (--dim=3)");
    return -1;
  }
  if (c->method != NBODY_TREE) {
    static const char *const tree_only[] = {"theta", "leaf"};
    int k;
    for (k = 0; k < 2; ++k)
      if (cli_find(opts, tree_only[k])->seen) {
        snprintf(err, n, "--%s is read only with --method=tree", tree_only[k]);
        return -1;
      }
  }
  if (c->ic == IC_KEPLER && cli_find(opts, "n")->seen && c->n != 2) {
    snprintf(err, n, "--ic=kepler has 2 bodies, not %ld", c->n);
    return -1;
  }
  return 0;
}

/* Snapshot of the bodies (host doubles: 9 blocks of n) to PREFIX_STEP.ext. */
static int write_snapshot(const nbody_cli *c, const double *h, long n, long step, int single,
                          char *path, size_t pathn, char *err, size_t errn) {
  hd_out o;
  double *vel = (double *)malloc((size_t)n * 3 * sizeof(double));
  hd_vtk_points_array arr[2];
  long i;
  int bad;
  if (!vel) {
    snprintf(err, errn, "out of memory for a snapshot");
    return -1;
  }
  for (i = 0; i < n; ++i) vel[3 * i] = h[3 * n + i], vel[3 * i + 1] = h[4 * n + i], vel[3 * i + 2] = h[5 * n + i];
  arr[0].name = "velocity", arr[0].data = vel, arr[0].ncomp = 3;
  arr[1].name = "acceleration";
  {
    double *acc = (double *)malloc((size_t)n * 3 * sizeof(double));
    if (!acc) {
      free(vel);
      snprintf(err, errn, "out of memory for a snapshot");
      return -1;
    }
    for (i = 0; i < n; ++i) acc[3 * i] = h[6 * n + i], acc[3 * i + 1] = h[7 * n + i], acc[3 * i + 2] = h[8 * n + i];
    arr[1].data = acc, arr[1].ncomp = 3;
    snprintf(path, pathn, "%s_%06ld.%s", c->com.output, step, c->format == FMT_VTP ? "vtp" : "vtk");
    bad = hd_out_open(&o, path, err, errn);
    if (!bad) {
      bad = c->format == FMT_VTP
                ? hd_vtp_write(&o, n, h, h + n, c->dim == 3 ? h + 2 * n : NULL, arr, 2, single)
                : hd_vtk_legacy_points_write(&o, n, h, h + n, c->dim == 3 ? h + 2 * n : NULL, arr, 2, single);
      if (bad) {
        snprintf(err, errn, "cannot write %.900s", path);
        hd_out_abort(&o);
      } else {
        bad = hd_out_commit(&o, err, errn);
      }
    }
    free(acc);
  }
  free(vel);
  return bad ? -1 : 0;
}

/* 10 arrays of n reals and the potential on the backend; on the host the
 * initial bodies and a snapshot buffer, 16 doubles a body.  Returns 0, or
 * the exit status after the message (the context is released). */
static int check_memory(hd_ctx *ctx, const hd_core_ops *core, const nbody_ops *ops, long n) {
  const double dev = (double)n * (10.0 * ops->real_size + 8.0), host = (double)n * 16.0 * 8.0;
  const int rc = hd_par_max_int(hd_drv_check_memory(PROG, ctx, core, dev, host, "the system")); /* all ranks agree */
  if (rc) core->destroy(ctx);
  return rc;
}

static void csv_row(FILE *f, long step, double t, const hd_nbody_diag *d, double e0) {
  const double e = d->kinetic + d->potential;
  fprintf(f, "%ld,%.17g,%.17g,%.17g,%.17g,%.6e,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n",
          step, t, d->kinetic, d->potential, e, e0 != 0.0 ? (e - e0) / fabs(e0) : 0.0, d->p[0], d->p[1],
          d->p[2], d->l[0], d->l[1], d->l[2], d->mx[0] / d->mass, d->mx[1] / d->mass, d->mx[2] / d->mass);
}

static int run(int argc, char **argv) {
  nbody_cli c;
  nbody_problem p;
  nbody_bodies b;
  const nbody_ops *ops;
  const hd_core_ops *core;
  hd_ctx ctx;
  hd_out csv, pvd, png;
  hd_nbody_diag d0, d;
  hd_progress prog;
  char err[1024], why[512], path[4096 + 32];
  void *state = NULL;
  double *host = NULL, t0, wall = 0.0, e0, force_error = 0.0;
  long step = 0, step0 = 0, nsnap = 0;
  int rc, cp, root = hd_par_rank() == 0, ranks = hd_par_size(), bad, cont = 0;
  hd_drv_ckpt ckp;
  static hd_ckpt ck;
  char ckpath[4096 + 32] = "";
  cli_opt opts[] = {
      HD_DRV_COMMON_OPTIONS(c.com),
      HD_DRV_CHECKPOINT_OPTIONS(c.com),
      HD_DRV_BENCH_FLAG(c.com),
      {"n", CLI_INT, &c.n, "N", "number of bodies (default 4096)", 1, 1e15, 0, NULL, 0, 0, 0},
      {"ic", CLI_CHOICE, &c.ic, "plummer|uniform|kepler|file", "initial condition (default plummer)", 1, 0, 0, NULL, 0, 0, 0},
      {"dim", CLI_CHOICE, &c.dim, "3|2", "3: free space; 2: periodic unit square (default 3)", 1, 0, 0, NULL, 0, 0, 0},
      {"bodies", CLI_STRING, c.bodies, "FILE", "CSV body file x,y,z,vx,vy,vz,m for --ic=file", 1, 0, sizeof c.bodies, NULL, 0, 0, 0},
      {"seed", CLI_INT, &c.seed, "S", "random seed of uniform and plummer (default 1)", 0, 9.2e18, 0, NULL, 0, 0, 0},
      {"eccentricity", CLI_REAL, &c.eccentricity, "E", "kepler: orbital eccentricity (default 0.5)", 0, 0.99, 0, NULL, 0, 0, 0},
      {"mass-ratio", CLI_REAL, &c.mass_ratio, "Q", "kepler: mass of the second body over the first (default 1)", 1e-12, 1e12, 0, NULL, 0, 0, 0},
      {"steps", CLI_INT, &c.steps, "N", "time steps (default 100)", 0, 1e15, 0, NULL, 0, 0, 0},
      {"dt", CLI_REAL, &c.dt, "DT", "time step (default 1e-3)", 1e-300, 1e300, 0, NULL, 0, 0, 0},
      {"softening", CLI_REAL, &c.eps, "EPS", "softening length (default 0.01; 0 = none)", 0, 1e300, 0, NULL, 0, 0, 0},
      {"integrator", CLI_CHOICE, &c.integrator, "leapfrog|euler", "kick-drift-kick leapfrog or the seed's semi-implicit Euler (default leapfrog)", 1, 0, 0, NULL, 0, 0, 0},
      {"diag-every", CLI_INT, &c.diag_every, "N", "energy/momentum row and blow-up check every N steps, O(N^2) each (default steps/100)", 1, 1e15, 0, NULL, 0, 0, 0},
      {"max-growth", CLI_REAL, &c.max_growth, "G",
       "stop when the energy error |E - E0| exceeds G x (|K0| + |W0|) (default 100)", 1e-300, 1e300, 0, NULL, 0, 0, 0},
      {"snapshot-every", CLI_INT, &c.snapshot_every, "N", "bodies every N steps as PREFIX_STEP.vtp (default 0: first and last)", 0, 1e15, 0, NULL, 0, 0, 0},
      {"format", CLI_CHOICE, &c.format, "vtp|vtk", "snapshot format: XML PolyData or legacy VTK (default vtp)", 1, 0, 0, NULL, 0, 0, 0},
      {"png", CLI_FLAG, &c.png, "yes|no", "picture of the final bodies seen along z as PREFIX.png (default yes where libpng is)", 1, 0, 0, NULL, 0, 0, 0},
      {"method", CLI_CHOICE, &c.method, "direct|tree", "forces by all pairs, or by a Barnes-Hut tree with quadrupoles (3-D, one rank; doc/nbody.md) (default direct)", 1, 0, 0, NULL, 0, 0, 0},
      {"theta", CLI_REAL, &c.theta, "THETA", "tree: opening angle; 0 opens every cell (default 0.5)", 0, 1, 0, NULL, 0, 0, 0},
      {"leaf", CLI_INT, &c.leaf, "N", "tree: most bodies a leaf cell (default 16)", 1, 1024, 0, NULL, 0, 0, 0},
      {"splits", CLI_INT, &c.splits, "S", "CUDA tuned kernel: split the j range in S (default: sized from the SMs)", 1, 65535, 0, NULL, 0, 0, 0},
      HD_DRV_END_OPTIONS};

  memset(&c, 0, sizeof c);
  hd_drv_common_defaults(&c.com, "nbody");
  c.n = 4096;
  c.seed = 1;
  c.eccentricity = 0.5;
  c.mass_ratio = 1.0;
  c.steps = 100;
  c.dt = 1e-3;
  c.eps = 0.01;
  c.max_growth = 100.0;
  c.png = HD_PNG_BUILT;
  c.theta = 0.5;
  c.leaf = 16;
  if ((rc = hd_drv_parse(opts, argc, argv, PROG,
                         "All-pairs gravitational N-body (G = 1), 3-D softened or 2-D periodic; "
                         "writes PREFIX.csv, PREFIX_STEP.vtp snapshots listed in PREFIX.pvd, and PREFIX.png.")) >= 0)
    return rc;
  if (c.png && !HD_PNG_BUILT) return hd_drv_usage_error(PROG, "--png: " HD_NO_PNG);
  c.dim = c.dim == 1 ? 2 : 3;
  if (check_options(&c, opts, err, sizeof err)) return hd_drv_usage_error(PROG, err);
  if (c.ic != IC_FILE && c.ic != IC_KEPLER && (double)c.n * 10.0 * 8.0 > 9e18)
    return hd_drv_usage_error(PROG, "--n: too many bodies to index");
  if (c.format == FMT_VTK && c.n > 2147483647L)
    return hd_drv_usage_error(PROG, "--format=vtk: legacy VTK cannot hold more than 2^31 bodies");
  if ((rc = hd_drv_ranks_options(PROG, &c.com, 1)) != 0) return rc;
  if (c.method == NBODY_TREE && ranks > 1) return hd_drv_usage_error(PROG, "--method=tree runs on one rank");
  if ((rc = hd_drv_open(PROG, &c.com, &ctx, &core, why, sizeof why)) != 0) return rc;
  ops = nbody_ops_get(core->id, c.com.precision == 1);
  if (!ops) {
    core->destroy(&ctx);
    return hd_drv_usage_error(PROG, "no kernels for this backend and precision");
  }
  /* generated bodies: check memory before allocating them; a body file:
   * once it is read */
  if (c.ic != IC_FILE && (rc = check_memory(&ctx, core, ops, c.ic == IC_KEPLER ? 2 : c.n)) != 0)
    return rc;
  if (make_bodies(&c, &b, err, sizeof err)) {
    core->destroy(&ctx);
    return hd_drv_usage_error(PROG, err);
  }
  if (c.ic == IC_FILE && (rc = check_memory(&ctx, core, ops, b.n)) != 0) {
    nbody_bodies_free(&b);
    return rc;
  }
  if (c.dim == 2) {
    long i;
    for (i = 0; i < b.n; ++i) {
      if (b.x[i] < 0.0 || b.x[i] >= 1.0 || b.y[i] < 0.0 || b.y[i] >= 1.0) {
        snprintf(err, sizeof err, "--dim=2: body %ld at (%g, %g) is outside the unit square [0,1)^2", i, b.x[i], b.y[i]);
        nbody_bodies_free(&b);
        core->destroy(&ctx);
        return hd_drv_usage_error(PROG, err);
      }
      b.z[i] = b.vz[i] = 0.0;
    }
  }
  memset(&p, 0, sizeof p);
  p.n = b.n;
  p.periodic = c.dim == 2;
  p.integrator = c.integrator;
  p.variant = c.com.variant;
  p.splits = (int)c.splits;
  p.method = c.method, p.theta = c.theta, p.leaf = (int)c.leaf;
  p.dt = c.dt;
  p.eps = c.eps;
  p.x = b.x, p.y = b.y, p.z = b.z, p.vx = b.vx, p.vy = b.vy, p.vz = b.vz, p.m = b.m;
  if (ranks > 1) {
    hd_par_block(p.n, hd_par_rank(), ranks, &p.lo, &p.hi);
    p.share_start = hd_par_gather_start, p.share_wait = hd_par_gather_wait;
  }

  memset(&csv, 0, sizeof csv);
  memset(&pvd, 0, sizeof pvd);
  memset(&png, 0, sizeof png);
  if (hd_drv_ckpt_init(&ckp, &c.com, err, sizeof err)) goto usage_fail;
  bad = 0;
  if (!c.com.bench && root) { /* rank 0 writes; the others compute the same and discard */
    snprintf(path, sizeof path, "%s.csv", c.com.output);
    bad = hd_out_open(&csv, path, err, sizeof err) != 0;
    snprintf(path, sizeof path, "%s.pvd", c.com.output);
    if (!bad) bad = hd_out_open(&pvd, path, err, sizeof err) != 0;
    snprintf(path, sizeof path, "%s.png", c.com.output);
    if (!bad && c.png) bad = hd_out_open(&png, path, err, sizeof err) != 0;
  } else if (!c.com.bench) {
    bad = hd_out_discard(&csv, err, sizeof err) || hd_out_discard(&pvd, err, sizeof err);
  }
  if (hd_par_any(bad)) goto usage_fail;
  pvd.footer = "  </Collection>\n</VTKFile>\n";
  hd_drv_ckpt_series(&ckp, &csv, ".csv");
  hd_drv_ckpt_series(&ckp, &pvd, ".pvd");
  if (root) fprintf(stderr, PROG ": %s backend (%s), %s precision, %ld bodies%s%s%s%s\n", core->name, ctx.device_name,
          ops->precision, p.n, ranks > 1 ? "; " : "", ranks > 1 ? hd_par_describe() : "", why[0] ? "; " : "", why);

  if (ops->create(&ctx, &p, &state) != HD_OK) goto runtime_error;
  if (c.com.bench && c.method == NBODY_TREE) { /* the tree's accuracy at the start, on a sample */
    host = (double *)malloc((size_t)p.n * 9 * sizeof(double));
    if (!host) {
      hd_fail(&ctx, HD_ERR_NOMEM, "no host memory for the accelerations");
      goto runtime_error;
    }
    if (ops->download(&ctx, state, host) != HD_OK) goto runtime_error;
    force_error = nbody_sample_error(&b, host + 6 * p.n, NBODY_ERROR_SAMPLE, c.eps);
  }
  nbody_bodies_free(&b);
  memset(&ck, 0, sizeof ck);
  snprintf(ck.driver, sizeof ck.driver, "hd-nbody");
  ck.real_size = (uint32_t)ops->real_size, ck.dims[0] = p.n, ck.dims[1] = p.periodic ? 2 : 3, ck.dims[2] = 1;
  hd_ckpt_param(&ck, "dt", "%.17g", p.dt);
  hd_ckpt_param(&ck, "softening", "%.17g", p.eps);
  hd_ckpt_param(&ck, "integrator", "%d", p.integrator);
  if (!c.com.bench && c.com.restart[0]) {
    if (hd_drv_ckpt_load(&ctx, &ck, state, ops->state_count(state), ops->state_io, c.com.restart, err, sizeof err)) {
      rc = hd_drv_usage_error(PROG, err); /* every rank read the same file */
      goto cleanup;
    }
    step0 = (long)ck.step;
    if (step0 > c.steps) {
      snprintf(err, sizeof err, "restart: the checkpoint is at step %ld, beyond --steps=%ld", step0, c.steps);
      rc = hd_drv_usage_error(PROG, err);
      goto cleanup;
    }
    if ((cont = hd_drv_series_resume(&ckp, &ck, err, sizeof err)) < 0) {
      rc = hd_drv_usage_error(PROG, err);
      goto cleanup;
    }
  }

  if (c.com.bench) { /* direct: force evaluations; tree: whole steps, by phase */
    const long evals = c.steps > 0 ? c.steps : 1;
    const int tree = c.method == NBODY_TREE;
    const double pairs = (double)p.n * (double)p.n;
    double ips, sec[NBODY_PHASES];
    long k;
    if (ops->accelerations(&ctx, state) != HD_OK || core->sync(&ctx) != HD_OK) goto runtime_error;
    if (tree) ops->timing(state, 1, NULL);
    t0 = hd_wtime();
    for (k = 0; k < evals; ++k)
      if ((tree ? ops->advance(&ctx, state, 1) : ops->accelerations(&ctx, state)) != HD_OK) goto runtime_error;
    if (core->sync(&ctx) != HD_OK) goto runtime_error;
    wall = hd_wtime() - t0;
    ips = pairs * (double)evals / wall;
    printf("program: " PROG "\nbackend: %s\ndevice: %s\nprecision: %s\nvariant: %s\nbodies: %ld\n"
           "%s: %ld\nwall_seconds: %.6g\n",
           core->name, ctx.device_name, ops->precision,
           c.com.variant == NBODY_VARIANT_GENERIC ? "generic" : "tuned", p.n, tree ? "steps" : "force_evaluations", evals, wall);
    if (tree) {
      ops->timing(state, 0, sec);
      sec[NBODY_PHASE_UPDATE] = wall;
      for (k = 0; k < NBODY_PHASE_UPDATE; ++k) sec[NBODY_PHASE_UPDATE] -= sec[k];
      printf("method: tree\ntheta: %g\nleaf: %ld\nseconds_per_step: %.6g\nbodies_per_second: %.6g\n"
             "phase_seconds_per_step: keys %.3g sort %.3g cells %.3g moments %.3g walk %.3g update %.3g\n"
             "force_error: %.3g (relative RMS against the direct sum in double, %d bodies sampled)\n",
             c.theta, c.leaf, wall / (double)evals, (double)p.n * (double)evals / wall,
             sec[HD_NBODY_TREE_KEYS] / evals, sec[HD_NBODY_TREE_SORT] / evals, sec[HD_NBODY_TREE_CELLS] / evals,
             sec[HD_NBODY_TREE_MOMENTS] / evals, sec[NBODY_PHASE_WALK] / evals, sec[NBODY_PHASE_UPDATE] / evals, force_error, NBODY_ERROR_SAMPLE);
    } else {
      printf("method: direct\ninteractions_per_second: %.6g\ngflops: %.6g (20 flops per interaction, the usual convention)\n",
             ips, ips * 20.0 / 1e9);
    }
    free(host);
    ops->destroy(&ctx, state);
    core->destroy(&ctx);
    return 0;
  }

  host = (double *)malloc((size_t)p.n * 9 * sizeof(double));
  if (!host) {
    hd_fail(&ctx, HD_ERR_NOMEM, "no host memory for snapshots");
    goto runtime_error;
  }
  if (ops->diagnostics(&ctx, state, &d) != HD_OK) goto runtime_error;
  d0 = d; /* the energy the run started with, also after restarts */
  hd_ckpt_get_value(&ck, "kinetic0", &d0.kinetic), hd_ckpt_get_value(&ck, "potential0", &d0.potential);
  hd_ckpt_set_value(&ck, "kinetic0", d0.kinetic), hd_ckpt_set_value(&ck, "potential0", d0.potential);
  e0 = d0.kinetic + d0.potential;
  if (!cont) {
    fprintf(csv.f, "step,time,kinetic,potential,total,relative_energy_error,px,py,pz,lx,ly,lz,comx,comy,comz\n");
    csv_row(csv.f, step0, step0 * c.dt, &d, e0);
    fprintf(pvd.f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n  <Collection>\n");
  }
  {
    const long every = c.diag_every > 0 ? c.diag_every : (c.steps >= 100 ? c.steps / 100 : 1);
    hd_progress_init(&prog, c.com.progress);
    hd_signals_install();
    t0 = hd_wtime();
    for (step = step0;; ) {
      const int snap = (step == step0 && !cont) || step == c.steps || (c.snapshot_every > 0 && step % c.snapshot_every == 0);
      if (snap && !root) ++nsnap;
      if (snap && root) {
        const char *base;
        if (ops->download(&ctx, state, host) != HD_OK) goto runtime_error;
        if (write_snapshot(&c, host, p.n, step, ops->real_size == 4, path, sizeof path, err, sizeof err)) {
          hd_fail(&ctx, HD_ERR_IO, "%s", err);
          goto runtime_error;
        }
        base = strrchr(path, '/');
        fprintf(pvd.f, "    <DataSet timestep=\"%.17g\" file=\"%s\"/>\n", step * c.dt, base ? base + 1 : path);
        ++nsnap;
      }
      if (step == c.steps) break;
      {
        long chunk = every - step % every, next;
        if (c.snapshot_every > 0 && c.snapshot_every - step % c.snapshot_every < chunk)
          chunk = c.snapshot_every - step % c.snapshot_every;
        if (chunk > c.steps - step) chunk = c.steps - step;
        chunk = hd_drv_ckpt_chunk(&ckp, step, chunk);
        if (ops->advance(&ctx, state, chunk) != HD_OK) goto runtime_error;
        next = step + chunk;
        if (next % every == 0 || next == c.steps) {
          if (ops->diagnostics(&ctx, state, &d) != HD_OK) goto runtime_error;
          if (!hd_isfinite(d.kinetic + d.potential)) { /* every rank sees the same energy */
            if (root) fprintf(stderr, PROG ": error: non-finite energy after step %ld (dt = %g, softening = %g): the system blew up%s%s\n",
                    next, c.dt, c.eps, ckpath[0] ? "; last checkpoint " : "", ckpath);
            rc = 1;
            goto cleanup;
          }
          /* the total energy is conserved: a change many times its
           * initial scale is a runaway, not physics */
          if (fabs(d.kinetic + d.potential - e0) > c.max_growth * (fabs(d0.kinetic) + fabs(d0.potential))) {
            if (root) fprintf(stderr, PROG ": error: runaway energy after step %ld: |E - E0| = %g exceeds %g x (|K0| + |W0|) = %g "
                    "(dt = %g, softening = %g)%s%s\n", next, fabs(d.kinetic + d.potential - e0), c.max_growth,
                    c.max_growth * (fabs(d0.kinetic) + fabs(d0.potential)), c.dt, c.eps,
                    ckpath[0] ? "; last checkpoint " : "", ckpath);
            rc = 1;
            goto cleanup;
          }
          csv_row(csv.f, next, next * c.dt, &d, e0);
        }
        step = next;
      }
      cp = hd_drv_ckpt_point(PROG, &ctx, &ckp, &ck, step, c.dt, step < c.steps, 1, state, ops->state_count(state),
                             ops->state_io, c.com.output, ckpath, sizeof ckpath);
      if (cp == HD_DRV_FAILED) goto runtime_error;
      if (cp != HD_DRV_GO_ON) {
        rc = cp;
        goto cleanup;
      }
      if (root) hd_progress_step(&prog, PROG, step, c.steps, (double)p.n * (double)p.n * (double)(step - step0), "interaction/s");
    }
    if (core->sync(&ctx) != HD_OK) goto runtime_error;
    wall = hd_wtime() - t0;
    hd_progress_end(&prog);
  }
  if (root && c.png && nbody_picture(&png, host, host + p.n, p.n, p.periodic, err, sizeof err)) {
    hd_fail(&ctx, HD_ERR_IO, "%s", err);
    goto runtime_error;
  }
  if (hd_out_commit(&csv, err, sizeof err) || hd_out_commit(&pvd, err, sizeof err) || hd_out_commit(&png, err, sizeof err)) {
    hd_fail(&ctx, HD_ERR_IO, "%s", err);
    goto runtime_error;
  }
  if (!root) goto done;
  printf("program: " PROG "\nversion: %s\nbackend: %s\ndevice: %s\nprecision: %s\nbodies: %ld\n"
         "geometry: %s\nintegrator: %s\ndt: %.17g\nsoftening: %.17g\nsteps: %ld\ntime: %.17g\n",
         PACKAGE_VERSION, core->name, ctx.device_name, ops->precision, p.n,
         p.periodic ? "2-D periodic unit square" : "3-D free space",
         c.integrator == NBODY_EULER ? "semi-implicit Euler" : "leapfrog (kick-drift-kick)", c.dt, c.eps,
         c.steps, c.steps * c.dt);
  printf("energy_initial: %.17g\nenergy_final: %.17g\nrelative_energy_error: %.6e\nvirial_ratio: %.6f\n"
         "momentum: %.6e %.6e %.6e\nangular_momentum: %.6e %.6e %.6e\n",
         e0, d.kinetic + d.potential, e0 != 0.0 ? (d.kinetic + d.potential - e0) / fabs(e0) : 0.0,
         d.potential != 0.0 ? -2.0 * d.kinetic / d.potential : 0.0, d.p[0], d.p[1], d.p[2], d.l[0],
         d.l[1], d.l[2]);
  if (c.method == NBODY_TREE) printf("method: tree\ntheta: %g\nleaf: %ld\n", c.theta, c.leaf);
  else printf("method: direct\n");
  printf("wall_seconds: %.6g\ninteractions_per_second: %.6g\noutputs: %s.csv %s.pvd and %ld snapshots\npicture: %s\n", wall,
         wall > 0 && c.method != NBODY_TREE ? (double)p.n * (double)p.n * (double)c.steps / wall : 0.0, c.com.output, c.com.output, nsnap,
         c.png ? png.path : HD_PNG_BUILT ? "none (--png=no)" : "none (" HD_NO_PNG ")");
done:
  free(host);
  ops->destroy(&ctx, state);
  core->destroy(&ctx);
  return 0;

usage_fail:
  hd_out_abort(&csv);
  hd_out_abort(&pvd);
  hd_out_abort(&png);
  nbody_bodies_free(&b);
  core->destroy(&ctx);
  return hd_drv_usage_error(PROG, err);
runtime_error:
  fprintf(stderr, PROG ": error: %s%s%s\n", ctx.msg[0] ? ctx.msg : "run failed", ckpath[0] ? "; last checkpoint " : "",
          ckpath);
  rc = 1;
  hd_out_abort(&csv);
  hd_out_abort(&pvd);
  hd_out_abort(&png);
  hd_par_abort(rc); /* other ranks may wait in an exchange */
cleanup:
  hd_out_abort(&csv);
  hd_out_abort(&pvd);
  hd_out_abort(&png);
  free(host);
  nbody_bodies_free(&b);
  if (state) ops->destroy(&ctx, state);
  core->destroy(&ctx);
  return rc;
}

int main(int argc, char **argv) { return hd_drv_main_ranks(PROG, run, argc, argv); }
