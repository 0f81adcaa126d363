/* hd-ns: 2-D compressible Navier-Stokes with characteristic boundaries
 * (hd/ns.h, hd/nscbc.h); the seed's convected vortex, the isentropic
 * vortex and uniform flow.  doc/ns.md. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "driver.h"
#include "ns_ops.h"
#include "output.h"
#include "sys.h"

#define PROG "hd-ns"

static const char *const bc_names = "periodic|supersonic-in|supersonic-out|nonreflecting|subsonic-in|slip-wall|"
                                    "noslip-wall|zero-gradient";

typedef struct ns_cli {
  hd_drv_common com;
  int icase, bc[4], inviscid, png;
  long n, steps, frames, monitor_every;
  double lx, ly, mach, re, circulation, rc, gamma, pr, suth, sigma, beta, dt, cfl, t_end;
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
  p->viscous = !c->inviscid;
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

static int write_frame(const ns_cli *c, const ns_problem *p, const double *const f[5], long k, int single, char *path,
                       size_t pn, char *err, size_t en) {
  const long nx = ns_nodes(p, 0), ny = ns_nodes(p, 1);
  const double h = p->length[0] / p->n[0];
  double *x = (double *)malloc((size_t)(nx + 1) * sizeof(double)), *y = (double *)malloc((size_t)(ny + 1) * sizeof(double));
  const double z[2] = {-0.5 * h, 0.5 * h};
  const double *xyz[3];
  const int64_t dims[3] = {nx, ny, 1};
  hd_vti_array arr[5] = {{"rho", NULL, 0}, {"u", NULL, 0}, {"v", NULL, 0}, {"p", NULL, 0}, {"vorticity", NULL, 0}};
  hd_out o;
  long i;
  int a, bad;
  if (!x || !y) {
    free(x), free(y);
    return snprintf(err, en, "out of host memory"), -1;
  }
  for (i = 0; i <= nx; ++i) x[i] = p->origin[0] + ((double)i - 0.5) * h;
  for (i = 0; i <= ny; ++i) y[i] = p->origin[1] + ((double)i - 0.5) * h;
  xyz[0] = x, xyz[1] = y, xyz[2] = z;
  for (a = 0; a < 5; ++a) arr[a].data = f[a], arr[a].single = single;
  snprintf(path, pn, "%s_%04ld.vtr", c->com.output, k);
  bad = hd_out_open(&o, path, err, en) || hd_vtr_write(&o, dims, xyz, arr, 5) || hd_out_commit(&o, err, en);
  if (bad) {
    if (!err[0]) snprintf(err, en, "writing %.900s failed", path);
    hd_out_abort(&o);
  }
  free(x), free(y);
  return bad ? -1 : 0;
}

static int run_bench(const ns_cli *c, const ns_problem *p, const ns_ops *ops, const hd_core_ops *core, hd_ctx *ctx) {
  void *state = NULL;
  const long steps = c->steps > 0 ? c->steps : 20;
  const double cells = (double)ns_nodes(p, 0) * (double)ns_nodes(p, 1);
  double t0, wall, bw = 0.0, rate, per;
  if (ops->create(ctx, p, &state) != HD_OK || ops->advance(ctx, state, 2) != HD_OK || core->sync(ctx) != HD_OK)
    goto fail;
  t0 = hd_wtime();
  if (ops->advance(ctx, state, steps) != HD_OK || core->sync(ctx) != HD_OK) goto fail;
  wall = hd_wtime() - t0;
  ops->destroy(ctx, state);
  state = NULL;
  if (core->copy_bandwidth(ctx, (size_t)fmin(cells * ops->real_size * 4.0, 4e9), 5, &bw) != HD_OK) bw = 0.0;
  rate = cells * 4.0 * (double)steps / wall;
  per = 16.0 * ops->real_size; /* average compulsory traffic of a stage, see doc/ns.md */
  printf("program: " PROG "\nbackend: %s\ndevice: %s\nprecision: %s\nnodes: %ld x %ld\nsteps: %ld\n"
         "wall_seconds: %.6g\ncell_stages_per_second: %.6g\nbytes_per_cell_stage: %.0f\neffective_GB_per_second: %.6g\n"
         "copy_GB_per_second: %.6g\nfraction_of_copy: %.3f\n",
         core->name, ctx->device_name, ops->precision, ns_nodes(p, 0), ns_nodes(p, 1), steps, wall, rate, per,
         rate * per / 1e9, bw / 1e9, bw > 0 ? rate * per / bw : 0.0);
  return 0;
fail:
  fprintf(stderr, PROG ": error: %s\n", ctx->msg[0] ? ctx->msg : "benchmark failed");
  if (state) ops->destroy(ctx, state);
  return 1;
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
  hd_ckpt_param(ck, "nscbc", "%.17g,%.17g,%.17g", p->sigma, p->beta, p->mach);
  hd_ckpt_param(ck, "dt", "%.17g", p->dt);
}

int main(int argc, char **argv) {
  ns_cli c;
  ns_problem p;
  const ns_ops *ops = NULL;
  const hd_core_ops *core = NULL;
  hd_ctx ctx;
  hd_out hist, pvd, png[2];
  hd_progress prog;
  hd_ns_sums s0, s;
  char err[1024], why[512], path[4096 + 32], nb[4][32];
  void *state = NULL;
  double *f[5] = {NULL, NULL, NULL, NULL, NULL}, t0, wall = 0, dpmax_end = 0;
  long step = 0, step0 = 0, total, every, frame = 0, k, nodes;
  int rc, nout, cp;
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
      {"beta", CLI_REAL, &c.beta, "B", "NSCBC fraction of transverse terms kept (default min(mach, 1))", 0, 1, 0, NULL, 0, 0, 0},
      {"dt", CLI_REAL, &c.dt, "DT", "time step in l/c (default from --cfl)", 1e-300, 1e300, 0, NULL, 0, 0, 0},
      {"cfl", CLI_REAL, &c.cfl, "C", "dt ((|u|+c)/hx + (|v|+c)/hy), at most 2.8 (default 1.5)", 1e-6, HD_NS_CFL_MAX, 0, NULL, 0, 0, 0},
      {"t-end", CLI_REAL, &c.t_end, "T", "run to time T in l/c (default 2)", 0, 1e9, 0, NULL, 0, 0, 0},
      {"steps", CLI_INT, &c.steps, "N", "run N steps instead of to --t-end", 1, 1e12, 0, NULL, 0, 0, 0},
      {"frames", CLI_INT, &c.frames, "N", "field snapshots after the initial one (default 10, 0 = none)", 0, 10000, 0, NULL, 0, 0, 0},
      {"monitor-every", CLI_INT, &c.monitor_every, "N", "steps between history rows (default 10)", 1, 1e12, 0, NULL, 0, 0, 0},
      {"png", CLI_FLAG, &c.png, NULL, "write PREFIX_pressure.png and PREFIX_vorticity.png (default yes where libpng is)", 1, 0, 0, NULL, 0, 0, 0},
      HD_DRV_END_OPTIONS};

  memset(&c, 0, sizeof c);
  hd_drv_common_defaults(&c.com, "ns");
  c.icase = HD_NS_IC_VORTEX, c.n = 512, c.lx = c.ly = 1, c.mach = 1.1, c.re = 1e4, c.circulation = -0.0005;
  c.rc = 0.15, c.gamma = 1.4, c.pr = 0.72, c.suth = 110.4 / 288.15, c.sigma = 0.25, c.cfl = 1.5, c.t_end = 2;
  c.frames = 10, c.monitor_every = 10;
  c.bc[0] = c.bc[1] = c.bc[2] = c.bc[3] = HD_NS_NONREFLECTING;
#if defined(HD_HAVE_PNG)
  c.png = 1;
#endif
  if ((rc = hd_drv_parse(opts, argc, argv, PROG,
                         "2-D compressible Navier-Stokes with characteristic (NSCBC) boundaries; writes "
                         "PREFIX_history.csv, PREFIX_NNNN.vtr with PREFIX.pvd, and pictures.")) >= 0)
    return rc;
  if (c.icase == HD_NS_IC_UNIFORM && !cli_find(opts, "circulation")->seen) c.circulation = 0;
#if !defined(HD_HAVE_PNG)
  if (c.png) return hd_drv_usage_error(PROG, "png: this build has no PNG output (configure found no libpng)");
#endif
  if (build(&c, opts, &p, err, sizeof err) || hd_drv_ckpt_init(&ckp, &c.com, err, sizeof err))
    return hd_drv_usage_error(PROG, err);
  total = c.steps > 0 ? c.steps : (long)ceil(c.t_end / p.dt - 1e-9);
  if (c.steps == 0 && total > 0) p.dt = c.t_end / (double)total; /* land on t-end */
  nodes = ns_nodes(&p, 0) * ns_nodes(&p, 1);
  if ((rc = hd_drv_open(PROG, &c.com, &ctx, &core, why, sizeof why)) != 0) return rc;
  ops = ns_ops_get(core->id, c.com.precision == 1);
  if (!ops) {
    core->destroy(&ctx);
    return hd_drv_usage_error(PROG, "no kernels for this backend and precision");
  }
  if ((rc = hd_drv_check_memory(PROG, &ctx, core, 16.0 * (double)(ns_nodes(&p, 0) + 2) * (ns_nodes(&p, 1) + 2) * ops->real_size,
                                c.com.bench ? 0.0 : 6.0 * (double)nodes * 8.0, "grid")) != 0)
    return rc;
  if (c.com.bench) {
    fprintf(stderr, PROG ": %s backend (%s), %s precision, %ld x %ld nodes%s%s\n", core->name, ctx.device_name,
            ops->precision, ns_nodes(&p, 0), ns_nodes(&p, 1), why[0] ? "; " : "", why);
    rc = run_bench(&c, &p, ops, core, &ctx);
    core->destroy(&ctx);
    return rc;
  }
  memset(&hist, 0, sizeof hist), memset(&pvd, 0, sizeof pvd), memset(png, 0, sizeof png);
  {
    const char *suffix[4] = {"_history.csv", ".pvd", "_pressure.png", "_vorticity.png"};
    hd_out *o[4] = {&hist, &pvd, &png[0], &png[1]};
    nout = c.png ? 4 : 2;
    for (k = 0; k < nout; ++k) {
      snprintf(path, sizeof path, "%s%s", c.com.output, suffix[k]);
      if (hd_out_open(o[k], path, err, sizeof err)) {
        while (k-- > 0) hd_out_abort(o[k]);
        core->destroy(&ctx);
        return hd_drv_usage_error(PROG, err);
      }
    }
  }
  fprintf(stderr, PROG ": %s backend (%s), %s precision, %ld x %ld nodes, Mach %g, Re %g, dt %g, %ld steps%s%s\n",
          core->name, ctx.device_name, ops->precision, ns_nodes(&p, 0), ns_nodes(&p, 1), c.mach, c.re, p.dt, total,
          why[0] ? "; " : "", why);
  for (k = 0; k < 5; ++k)
    if (!(f[k] = (double *)malloc((size_t)nodes * sizeof(double)))) {
      hd_fail(&ctx, HD_ERR_NOMEM, "out of host memory for the fields");
      goto runtime_error;
    }
  if (ops->create(&ctx, &p, &state) != HD_OK) goto runtime_error;
  ckpt_template(&p, ops->real_size, &ck);
  if (c.com.restart[0]) {
    if (hd_drv_ckpt_load(&ctx, &ck, state, ops->state_count(state), ops->state_io, c.com.restart, err, sizeof err)) {
      fprintf(stderr, PROG ": error: %s\n", err);
      rc = 2;
      goto cleanup;
    }
    step = step0 = (long)ck.step;
    if (step0 > total) {
      fprintf(stderr, PROG ": error: restart: the checkpoint is at step %ld, beyond this run's %ld steps\n", step0, total);
      rc = 2;
      goto cleanup;
    }
  }
  if (ops->sums(&ctx, state, &s0) != HD_OK) goto runtime_error;
  fprintf(hist.f, "step,time,max_dp,mass,energy\n");
  fprintf(hist.f, "%ld,%.9g,%.9e,%.15e,%.15e\n", step0, step0 * p.dt, s0.dpmax, s0.mass * p.length[0] * p.length[1] / nodes,
          s0.energy * p.length[0] * p.length[1] / nodes);
  fprintf(pvd.f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n  <Collection>\n");
  every = c.frames > 0 ? (total + c.frames - 1) / c.frames : total + 1;
  frame = step0 / every + (step0 % every ? 1 : 0); /* a restart continues the numbering */
  hd_progress_init(&prog, c.com.progress);
  hd_signals_install();
  t0 = hd_wtime();
  for (;;) {
    if (c.frames > 0 && (step % every == 0 || step == total)) {
      const char *base;
      if (ops->fields(&ctx, state, f[0], f[1], f[2], f[3], f[4]) != HD_OK) goto runtime_error;
      if (write_frame(&c, &p, (const double *const *)f, frame, ops->real_size == 4, path, sizeof path, err, sizeof err)) {
        hd_fail(&ctx, HD_ERR_IO, "%s", err);
        goto runtime_error;
      }
      base = strrchr(path, '/');
      fprintf(pvd.f, "    <DataSet timestep=\"%.9g\" file=\"%s\"/>\n", step * p.dt, base ? base + 1 : path);
      ++frame;
    }
    if (step == total) break;
    {
      long chunk = c.monitor_every - step % c.monitor_every;
      if (c.frames > 0 && every - step % every < chunk) chunk = every - step % every;
      if (chunk > total - step) chunk = total - step;
      chunk = hd_drv_ckpt_chunk(&ckp, step, chunk);
      if (ops->advance(&ctx, state, chunk) != HD_OK || ops->sums(&ctx, state, &s) != HD_OK) goto runtime_error;
      step += chunk;
    }
    if (s.nonfinite) {
      fprintf(stderr, PROG ": error: the flow blew up by step %ld (non-positive or non-finite state at node %ld, %ld); "
              "dt = %g, try a smaller --cfl%s%s\n", step, (long)(s.first_bad % (ns_nodes(&p, 0) + 2)) - 1,
              (long)(s.first_bad / (ns_nodes(&p, 0) + 2)) - 1, p.dt, ckpath[0] ? "; last checkpoint " : "", ckpath);
      rc = 1;
      goto cleanup;
    }
    fprintf(hist.f, "%ld,%.9g,%.9e,%.15e,%.15e\n", step, step * p.dt, s.dpmax, s.mass * p.length[0] * p.length[1] / nodes,
            s.energy * p.length[0] * p.length[1] / nodes);
    cp = hd_drv_ckpt_point(PROG, &ctx, &ckp, &ck, step, p.dt, step < total, 0, state, ops->state_count(state),
                           ops->state_io, c.com.output, ckpath, sizeof ckpath);
    if (cp == HD_DRV_FAILED) goto runtime_error;
    if (cp != HD_DRV_GO_ON) {
      rc = cp;
      goto cleanup;
    }
    hd_progress_step(&prog, PROG, step, total, (double)nodes * 4.0 * (double)(step - step0), "cell-stage/s");
  }
  if (core->sync(&ctx) != HD_OK) goto runtime_error;
  wall = hd_wtime() - t0;
  hd_progress_end(&prog);
  if (ops->sums(&ctx, state, &s) != HD_OK || ops->fields(&ctx, state, f[0], f[1], f[2], f[3], f[4]) != HD_OK)
    goto runtime_error;
  dpmax_end = s.dpmax;
  fprintf(pvd.f, "  </Collection>\n</VTKFile>\n");
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
         "outputs: %s_history.csv %s.pvd (%ld frames)%s\n",
         s.mass / s0.mass - 1.0, s.energy / s0.energy - 1.0, wall, wall > 0 ? (double)nodes * 4.0 * (step - step0) / wall : 0.0,
         c.com.output, c.com.output, frame, c.png ? " and the pictures" : "");
  rc = 0;
  goto cleanup;

runtime_error:
  fprintf(stderr, PROG ": error: %s%s%s\n", ctx.msg[0] ? ctx.msg : "run failed", ckpath[0] ? "; last checkpoint " : "",
          ckpath);
  rc = 1;
cleanup:
  {
    hd_out *o[4] = {&hist, &pvd, &png[0], &png[1]};
    for (k = 0; k < 4; ++k) hd_out_abort(o[k]);
  }
  if (state) ops->destroy(&ctx, state);
  core->destroy(&ctx);
  for (k = 0; k < 5; ++k) free(f[k]);
  return rc;
}
