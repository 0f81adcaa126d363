/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-cavity's decisions for the run loop (module.h): the lid-driven square
 * cavity in vorticity-streamfunction form (hd/cavity.h) with red-black SOR,
 * multigrid or FFT for the streamfunction (hd/poisson.h, hd/poisson_fft.h),
 * on any backend; compared with Ghia et al. (1982) and Erturk et al.
 * (2005).  doc/cavity.md. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hd/cavity.h>

#include "cavity_ops.h"
#include "checkpoint.h"
#include "decomp.h"
#include "init_from.h"
#include "module.h"
#include "output.h"
#include "results.h"
#include "sys.h"

#define PROG "hd-cavity"
#define ABOUT \
  "Lid-driven cavity, vorticity-streamfunction, red-black SOR, multigrid or FFT; writes " \
  "PREFIX_centreline.csv, PREFIX_history.csv, PREFIX.vtr, PREFIX_psi.png and " \
  "PREFIX_centrelines.png." /* --help's line */
#if defined(HD_HAVE_FFTW)
#define CAVITY_FFTW_BUILT 1
#else
#define CAVITY_FFTW_BUILT 0
#endif
/* the FFT solve: cuFFT on CUDA, FFTW3 on CPUs where configure found it */
#define CAVITY_HAS_FFT(backend) ((backend) == HD_B_CUDA || CAVITY_FFTW_BUILT)

typedef struct cavity_run {
  hd_drv_common com; /* first: the loop's */
  long n, steps, max_iter, check_every, monitor_every, mg_gather;
  double re, lid, dt, tol, omega, steady, local;
  char sfd[64], init_from[4096];
  int solver, png, pieces;
  cavity_problem p;
  hd_decomp dc;         /* this rank's block of rows */
  size_t real_size;
  long *part_rows;      /* every rank's first rows, then their ends */
  const cavity_ops *ops;
  void *state;
  int whole_solve;      /* cuFFT on CUDA ranks: every rank solves the gathered grid */
  int have_plot, is_steady;
  double *psi, *w, *u, *v, *lf[4]; /* rank 0's whole fields (or this block's), this block's */
  cavity_results res;
  cavity_progress pr;
  long iterations, checks, row_iterations;
  double change;
  int csv, hist, vol, png_psi, plot; /* output slots */
} cavity_run;

static int options(void *self, cli_opt *opts, int max) {
  cavity_run *c = (cavity_run *)self;
  const cli_opt o[] = {
      {"n", CLI_INT, &c->n, "N", "cells per side (default 128)", 3, 1 << 20, 0, NULL, 0, 0, 0},
      {"re", CLI_REAL, &c->re, "RE", "Reynolds number U L / nu (default 1000)", 1e-6, 1e7, 0, NULL, 0, 0, 0},
      {"lid", CLI_REAL, &c->lid, "U", "lid speed (default 1; the cavity side is 1)", 1e-12, 1e12, 0, NULL, 0, 0, 0},
      {"solver", CLI_CHOICE, &c->solver, "sor|mg|fft|auto", "streamfunction solver (default auto: fft on cuda and on CPUs with FFTW3, else mg where n = m 2^k, m <= 64, else sor)", 1, 0, 0, NULL, 0, 0, 0},
      {"tol", CLI_REAL, &c->tol, "EPS", "Poisson tolerance, max|r| / max|w| (default 1e-8 double, 1e-4 single)", 0, 1, 0, NULL, 0, 0, 0},
      {"max-iter", CLI_INT, &c->max_iter, "N", "Poisson sweeps (SOR, default 20 n) or V-cycles (default 50) a step", 1, 1e12, 0, NULL, 0, 0, 0},
      {"check-every", CLI_INT, &c->check_every, "K", "SOR sweeps between residual checks (default 10)", 1, 1e9, 0, NULL, 0, 0, 0},
      {"mg-gather", CLI_INT, &c->mg_gather, "N", "multigrid on several ranks: the levels of N cells a side or fewer are gathered onto every rank and solved whole (default 64; the finer ones stay split)", 2, 1 << 20, 0, NULL, 0, 0, 0},
      {"omega", CLI_REAL, &c->omega, "W", "SOR relaxation factor (default 2/(1 + sin(pi/n)))", 1e-3, 1.999999, 0, NULL, 0, 0, 0},
      {"dt", CLI_REAL, &c->dt, "DT", "time step (default half the stability limit)", 1e-300, 1e300, 0, NULL, 0, 0, 0},
      {"steps", CLI_INT, &c->steps, "N", "at most N steps (default 10^7)", 1, 1e15, 0, NULL, 0, 0, 0},
      {"sfd", CLI_STRING, c->sfd, "CHI,DELTA", "steady runs: selective frequency damping, forcing gain CHI toward the vorticity filtered over time DELTA (reaches steady states unstable in time; default off)", 1, 0, sizeof c->sfd, NULL, 0, 0, 0},
      {"init-from", CLI_STRING, c->init_from, "FILE", "start from the flow of FILE, a one-rank checkpoint of this cavity (same Re and lid) on another grid, interpolated: a coarse grid's steady state as a fine grid's start (grid sequencing); step 0 (default: none, the fluid at rest)", 1, 0, sizeof c->init_from, NULL, 0, 0, 0},
      {"local-dt", CLI_REAL, &c->local, "F", "steady runs: each node steps at F times its own stability limit (0 < F <= 1; default 0: dt everywhere)", 1e-6, 1, 0, NULL, 0, 0, 0},
      {"steady", CLI_REAL, &c->steady, "EPS", "stop when max|dw/dt| <= EPS max|w| (default 1e-4; 0 = run all steps)", 0, 1e9, 0, NULL, 0, 0, 0},
      {"monitor-every", CLI_INT, &c->monitor_every, "N", "steps between steady-state checks and history rows (default 100)", 1, 1e12, 0, NULL, 0, 0, 0},
      {"png", CLI_FLAG, &c->png, NULL, "write PREFIX_psi.png with streamlines and PREFIX_centrelines.png, the centrelines against the published tables (default yes where libpng is)", 1, 0, 0, NULL, 0, 0, 0},
      {"pieces", CLI_FLAG, &c->pieces, "yes|no", "each rank (one too) writes its rows of the final fields as PREFIX_pR.vtr and rank 0 the index PREFIX.pvtr; no rank holds the whole grid (default no: rank 0 gathers PREFIX.vtr; no picture with pieces)", 1, 0, 0, NULL, 0, 0, 0}};
  c->n = 128, c->re = 1000, c->lid = 1, c->solver = CAVITY_AUTO, c->check_every = 10, c->steps = 10000000;
  c->monitor_every = 100;
  c->png = HD_PNG_BUILT;
  return HD_DRV_ROWS(opts, max, o);
}

/* Defaults that depend on the precision and grid; refuse tolerances the
 * precision cannot reach. */
static int finish_options(cavity_run *c, cli_opt *opts, cavity_problem *p, char *err, size_t n) {
  const double eps = c->com.precision == 1 ? FLT_EPSILON : DBL_EPSILON, h = 1.0 / (double)c->n;
  const double floor = 0.5 * eps * (double)c->n * (double)c->n; /* residual reachable, relative */
  const double dtmax = hd_cav_dt_max(h, c->lid / c->re, c->lid);
  memset(p, 0, sizeof *p);
  p->n = c->n, p->length = 1.0, p->lid = c->lid, p->nu = c->lid / c->re, p->solver = c->solver, p->local = c->local;
  p->mg_gather = c->mg_gather;
  p->dt = cli_find(opts, "dt")->seen ? c->dt : 0.5 * dtmax;
  if (p->dt > dtmax) {
    snprintf(err, n, "dt: %g exceeds the stability limit %g (nu dt/h^2 <= 1/4 and U^2 dt/nu <= 2)", p->dt, dtmax);
    return -1;
  }
  p->pois.tol = cli_find(opts, "tol")->seen ? c->tol : fmax(c->com.precision == 1 ? 1e-4 : 1e-8, 4 * floor);
  if (p->pois.tol < floor) {
    snprintf(err, n, "tol: %g is below what %s precision reaches on %ld^2 (about %.1g); raise it%s", p->pois.tol,
             c->com.precision == 1 ? "single" : "double", c->n, floor,
             c->com.precision == 1 ? " or use --precision=double" : "");
    return -1;
  }
  p->pois.check_every = (int)c->check_every;
  p->pois.omega = c->omega;
  if (c->omega > 0 && c->solver != CAVITY_SOR && c->solver != CAVITY_AUTO) {
    snprintf(err, n, "omega: only SOR takes a relaxation factor");
    return -1;
  }
  if (c->sfd[0]) { /* CHI,DELTA; explicit Euler of the forcing and the filter at the largest step taken */
    const double big = c->local > 0 ? c->local * 0.25 * h * h / p->nu : p->dt;
    char end = 0;
    if (sscanf(c->sfd, "%lf,%lf%c", &p->sfd_chi, &p->sfd_delta, &end) != 2 || !(p->sfd_chi > 0) ||
        !(p->sfd_delta > 0) || !isfinite(p->sfd_chi) || !isfinite(p->sfd_delta)) {
      snprintf(err, n, "sfd: '%s' is not CHI,DELTA (both > 0)", c->sfd);
      return -1;
    }
    if (p->sfd_chi * big > 1.0 || big > p->sfd_delta) {
      snprintf(err, n, "sfd: the step %g needs chi <= %g and delta >= %g", big, 1.0 / big, big);
      return -1;
    }
  }
  if (!cli_find(opts, "steady")->seen) c->steady = fmax(1e-4, 20.0 * eps / p->dt);
  if (c->steady > 0 && c->steady < 10.0 * eps / p->dt) {
    snprintf(err, n, "steady: %g is below the rounding of w per unit time (%.1g at dt = %g)", c->steady,
             10.0 * eps / p->dt, p->dt);
    return -1;
  }
  return 0;
}

/* The streamfunction solver once the backend is known: auto takes the FFT
 * solve (CUDA, or CPUs built with FFTW3), else multigrid where n coarsens,
 * else SOR (and SOR when a relaxation factor is given). */
static int choose_solver(cavity_run *c, cli_opt *opts, cavity_problem *p, int backend, char *err, size_t n) {
  hd_pois_mg m;
  hd_ctx probe;
  int mg_fits;
  memset(&probe, 0, sizeof probe);
  mg_fits = hd_pois_mg_plan(&probe, &m, c->n, 1.0);
  if (c->solver == CAVITY_AUTO)
    c->solver = c->omega > 0                               ? CAVITY_SOR
                : CAVITY_HAS_FFT(backend)                  ? CAVITY_FFT
                : mg_fits                                  ? CAVITY_MG
                                                           : CAVITY_SOR;
  if (c->solver == CAVITY_MG && !mg_fits) {
    snprintf(err, n, "n: %s", probe.msg + strlen("poisson: "));
    return -1;
  }
  if (c->solver == CAVITY_FFT && !CAVITY_HAS_FFT(backend)) {
    snprintf(err, n, "solver: fft on CPUs needs FFTW3, which configure did not find (use mg or sor, or cuda)");
    return -1;
  }
  p->solver = c->solver;
  p->pois.max_iter = cli_find(opts, "max-iter")->seen ? c->max_iter : c->solver == CAVITY_SOR ? 20 * c->n : 50;
  return 0;
}

static const char *solver_name(int solver) {
  return solver == CAVITY_SOR ? "SOR" : solver == CAVITY_MG ? "multigrid" : "FFT";
}

/* psi with contour lines: the field scaled into the blue half of the
 * scale, lines (where a level lies between neighbouring pixels) in red. */
static int write_png(hd_out *o, const double *psi, long n, double pmin, double re, char *err, size_t en) {
  static const double levels[] = {-0.1175, -0.115, -0.11, -0.1, -0.09, -0.07, -0.05, -0.03, -0.01, -1e-4, -1e-5,
                                  -1e-10, 1e-8, 1e-7, 1e-6, 1e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 1.5e-3, 3e-3};
  const int nl = (int)(sizeof levels / sizeof levels[0]);
  const int zoom = n >= 512 ? 1 : (int)(512 / n), w = (int)n * zoom + 1;
  double *img = (double *)malloc((size_t)w * w * sizeof(double)), *s = (double *)malloc((size_t)w * w * sizeof(double));
  int px, py, k, rc;
  if (!img || !s) {
    free(img), free(s);
    snprintf(err, en, "out of host memory for the PNG");
    return -1;
  }
  for (py = 0; py < w; ++py) /* row 0 at the top: y = 1 */
    for (px = 0; px < w; ++px) {
      const double x = (double)px / (w - 1), y = 1.0 - (double)py / (w - 1);
      const long i = (long)fmin(x * n, n - 1), j = (long)fmin(y * n, n - 1);
      const double fx = x * n - i, fy = y * n - j, *p = psi + i + j * (n + 1);
      s[px + py * w] = (1 - fy) * ((1 - fx) * p[0] + fx * p[1]) + fy * ((1 - fx) * p[n + 1] + fx * p[n + 2]);
    }
  for (k = 0; k < w * w; ++k) img[k] = pmin < 0 ? -fmax(0.0, s[k] / pmin) : 0.0;
  for (py = 0; py + 1 < w; ++py)
    for (px = 0; px + 1 < w; ++px) {
      const double a = s[px + py * w], b = s[px + 1 + py * w], c = s[px + (py + 1) * w];
      for (k = 0; k < nl; ++k)
        if ((a - levels[k]) * (b - levels[k]) < 0 || (a - levels[k]) * (c - levels[k]) < 0) img[px + py * w] = 1.0;
    }
  {
    char title[128];
    hd_png_legend lg;
    snprintf(title, sizeof title, "stream function, Re %g: -psi/psi_min (blue), Ghia's levels (red, at 1)", re);
    lg.title = title, lg.units = "-psi/psi_min", lg.extent = "x 0 .. 1, y 0 .. 1 (L), lid at the top";
    rc = hd_png_write(o, w, w, img, 1.0, &lg, err, en);
  }
  free(img), free(s);
  return rc;
}

/* Manufactured right-hand side for the Poisson benchmark. */
static void bench_rhs(long n, double *f) {
  const double pi = 3.14159265358979323846;
  long i, j;
  for (j = 0; j <= n; ++j)
    for (i = 0; i <= n; ++i) {
      const double x = (double)i / n, y = (double)j / n;
      f[i + j * (n + 1)] = sin(pi * x) * sin(pi * y) + 0.5 * sin(7 * pi * x) * sin(5 * pi * y);
    }
}

/* --bench: SOR sweeps alone, cold solves of a manufactured right-hand side
 * by each solver, and time steps with each. */
static int bench(hd_drv_run *run) {
  const cavity_run *c = (const cavity_run *)run->self;
  const cavity_problem *p = &c->p;
  const cavity_ops *ops = c->ops;
  const hd_core_ops *core = run->core;
  hd_ctx *ctx = &run->ctx;
  const long n = c->n, count = (n + 1) * (n + 1);
  double *f = (double *)malloc((size_t)count * sizeof(double)), *u = (double *)calloc((size_t)count, sizeof(double));
  double secs[3] = {0, 0, 0}, sweep = 0.0, bw = 0.0, step_secs[3] = {0, 0, 0};
  int sor_reached = 1;
  const long sweeps = n >= 2048 ? 50 : 200;
  const int solvers = CAVITY_HAS_FFT(core->id) ? 3 : 2; /* SOR, multigrid, FFT */
  hd_pois_opts o;
  hd_pois_result r[3], rs;
  int k;
  if (!f || !u) {
    free(f), free(u);
    return hd_fail(ctx, HD_ERR_NOMEM, "out of host memory"), HD_DRV_FAILED;
  }
  bench_rhs(n, f);
  /* SOR sweeps alone: tol 0, one residual check per `sweeps` sweeps */
  memset(&o, 0, sizeof o);
  o.tol = 0.0, o.max_iter = sweeps, o.check_every = (int)sweeps;
  if (ops->poisson(ctx, n, 1.0 / n, CAVITY_SOR, &o, f, u, &rs, &sweep) != HD_ERR_NOCONV) goto fail;
  for (k = 0; k < solvers; ++k) { /* cold solves to the tolerance */
    hd_status st;
    memset(u, 0, (size_t)count * sizeof(double));
    o = p->pois;
    o.max_iter = k == CAVITY_SOR ? 100 * n : 200;
    st = ops->poisson(ctx, n, 1.0 / n, k, &o, f, u, &r[k], &secs[k]);
    /* SOR stalls above the tolerance in single precision on fine grids: a result, not a failure */
    if (k == CAVITY_SOR) sor_reached = st == HD_OK;
    if (st != HD_OK && (st != HD_ERR_NOCONV || k != CAVITY_SOR)) goto fail;
  }
  for (k = 0; k < solvers; ++k) { /* 20 time steps after 20 of warm-up */
    cavity_problem q = *p;
    cavity_progress pr;
    void *state = NULL;
    double t0;
    q.solver = k;
    q.pois.max_iter = k == CAVITY_SOR ? 20 * n : 50;
    if (ops->create(ctx, &q, &state) != HD_OK) goto fail;
    if (ops->advance(ctx, state, 20, 0.0, &pr) != HD_OK || core->sync(ctx) != HD_OK) {
      ops->destroy(ctx, state);
      goto fail;
    }
    t0 = hd_wtime();
    if (ops->advance(ctx, state, 20, 0.0, &pr) != HD_OK || core->sync(ctx) != HD_OK) {
      ops->destroy(ctx, state);
      goto fail;
    }
    step_secs[k] = (hd_wtime() - t0) / 20.0;
    ops->destroy(ctx, state);
  }
  if (core->copy_bandwidth(ctx, (size_t)fmin((double)count * ops->real_size * 2.0, 4e9), 5, &bw) != HD_OK) bw = 0.0;
  {
    /* a sweep reads u, f and the other colour's u and writes u, once per node */
    const double bytes = 4.0 * (double)count * (double)ops->real_size;
    const double rate = bytes * (double)sweeps / sweep;
    run->bench_rate = (double)count * (double)sweeps / sweep, run->bench_unit = "node-sweeps/s";
    run->bench_ceiling = bw / (4.0 * (double)ops->real_size);
    printf("n: %ld\n"
           "sor_sweep_seconds: %.6g\nsor_sweep_GB_per_second: %.6g\ncopy_GB_per_second: %.6g\n"
           "sor_sweep_fraction_of_copy: %.3f\n"
           "poisson_tolerance: %g\nsor_solve_seconds: %.6g\nsor_solve_sweeps: %ld\nsor_solve_checks: %ld\n"
           "sor_solve_residual: %.3g\nmg_solve_seconds: %.6g\nmg_solve_cycles: %ld\n",
           n, sweep / sweeps, rate / 1e9, bw / 1e9,
           bw > 0 ? rate / bw : 0.0, o.tol, secs[0], r[0].iterations, r[0].checks, r[0].residual, secs[1],
           r[1].iterations);
    if (sor_reached)
      printf("mg_speedup_over_sor: %.3g\n", secs[1] > 0 ? secs[0] / secs[1] : 0.0);
    else
      printf("mg_speedup_over_sor: none (SOR stalled at %.3g of max|f|, above the tolerance, after %ld sweeps)\n",
             r[0].residual, r[0].iterations);
    if (solvers > 2)
      printf("fft_solve_seconds: %.6g\nfft_solves: %ld\nfft_speedup_over_mg: %.3g\n", secs[2], r[2].iterations,
             secs[2] > 0 ? secs[1] / secs[2] : 0.0);
    printf("step_seconds_sor: %.6g\nstep_seconds_mg: %.6g\n", step_secs[0], step_secs[1]);
    if (solvers > 2) printf("step_seconds_fft: %.6g\n", step_secs[2]);
  }
  free(f), free(u);
  return HD_DRV_OK;
fail:
  if (!ctx->msg[0]) hd_fail(ctx, HD_ERR_IO, "benchmark failed");
  free(f), free(u);
  return HD_DRV_FAILED;
}

/* The problem's hooks: `depth` ghost rows each side of an array `width`
 * wide holding `rows` rows besides them (the block's, or a coarser
 * multigrid level's), and maxima. */
static int exchange_rows(void *user, void *arr, long width, long rows, int depth) {
  cavity_run *r = (cavity_run *)user;
  const long size[3] = {width, rows + 2 * depth, 1}, at[4] = {depth, rows, 0, rows + depth};
  char err[256];
  if (!hd_decomp_exchange_slab(&r->dc, arr, r->real_size, size, 1, at, depth, err, sizeof err)) return 0;
  fprintf(stderr, PROG ": rank %d: %s\n", hd_par_rank(), err); /* the hook's caller only knows it failed */
  return -1;
}
static int exchange(void *user, void *arr, long width) {
  return exchange_rows(user, arr, width, ((cavity_run *)user)->dc.ln[1], 1);
}
static int gather(void *user, void *whole, long width) {
  cavity_run *r = (cavity_run *)user;
  return hd_par_allgather(whole, (size_t)width * r->real_size, r->dc.gn[1]);
}
static int gather_rows(void *user, void *whole, long width, long lo, long hi) {
  cavity_run *r = (cavity_run *)user;
  return hd_par_allgather_items(whole, (size_t)width * r->real_size, lo, hi);
}
static int transpose(void *user, const void *send, void *recv, const long *counts) {
  cavity_run *r = (cavity_run *)user;
  if (!hd_par_alltoall(send, recv, r->real_size, counts)) return 0;
  fprintf(stderr, PROG ": rank %d: the FFT transpose's all-to-all exchange failed\n", hd_par_rank());
  return -1;
}
static int maxima(void *user, double *v, int count) {
  (void)user;
  return hd_par_max_doubles(v, count);
}

/* What a checkpoint of this run must match on restart (the solver and its
 * tolerance may change: they only decide how ψ is found). */
static void ckpt_template(const cavity_problem *p, size_t real_size, hd_ckpt *ck) {
  memset(ck, 0, sizeof *ck);
  snprintf(ck->driver, sizeof ck->driver, "hd-cavity");
  ck->real_size = (uint32_t)real_size;
  ck->dims[0] = ck->dims[1] = p->n + 1, ck->dims[2] = 1;
  hd_ckpt_param(ck, "nu", "%.17g", p->nu);
  hd_ckpt_param(ck, "lid", "%.17g", p->lid);
  hd_ckpt_param(ck, "dt", "%.17g", p->dt);
  if (p->local > 0) hd_ckpt_param(ck, "local_dt", "%.17g", p->local);
  if (p->sfd_chi > 0) hd_ckpt_param(ck, "sfd", "%.17g,%.17g", p->sfd_chi, p->sfd_delta);
}

static int setup(hd_drv_run *r) {
  cavity_run *c = (cavity_run *)r->self;
  cavity_problem *p = &c->p;
  long gn[3] = {0, 0, 1}, k;
  if (c->png && !HD_PNG_BUILT) return hd_drv_bad(r, "--png: " HD_NO_PNG);
  c->have_plot = c->png; /* from the centrelines' strips: with --pieces too */
  if (c->pieces) c->png = 0; /* the picture would need the whole grid */
  if (finish_options(c, r->opts, p, r->err, sizeof r->err)) return HD_DRV_BAD_INPUT;
  r->total = c->steps, r->dt = p->dt;
  /* blocks of whole rows */
  gn[0] = gn[1] = c->n + 1;
  if (hd_decomp_create(&c->dc, 2, gn, 0, 0, r->err, sizeof r->err)) return HD_DRV_BAD_INPUT;
  if (c->dc.size > 1) {
    p->jlo = c->dc.off[1], p->jhi = c->dc.off[1] + c->dc.ln[1], p->rows = c->dc.ln[1] + 2;
    p->hook.halo = exchange, p->hook.max = maxima, p->hook.gather = gather, p->hook.alltoall = transpose;
    p->hook.halo_rows = exchange_rows, p->hook.gather_rows = gather_rows, p->hook.user = c;
    if (!(c->part_rows = (long *)malloc(2 * (size_t)c->dc.size * sizeof(long)))) return hd_drv_bad(r, "out of host memory");
    for (k = 0; k < c->dc.size; ++k) {
      long ln[3], off[3];
      hd_decomp_block(&c->dc, (int)k, ln, off);
      c->part_rows[k] = off[1], c->part_rows[c->dc.size + k] = off[1] + ln[1];
    }
    p->parts = c->dc.size, p->part = c->dc.rank, p->part_lo = c->part_rows, p->part_hi = c->part_rows + c->dc.size;
  }
  c->csv = hd_drv_slot(r, "_centreline.csv", 1, 0);
  c->hist = hd_drv_slot(r, "_history.csv", 1, HD_DRV_SERIES);
  c->vol = hd_drv_slot(r, c->pieces ? ".pvtr" : ".vtr", 1, 0);
  r->frame_suffix = r->slot[c->vol].suffix;
  c->png_psi = hd_drv_slot(r, "_psi.png", c->png, HD_DRV_PICTURE);
  c->plot = hd_drv_slot(r, "_centrelines.png", c->have_plot, HD_DRV_UNLISTED); /* the plot: line */
  r->no_picture = c->pieces ? "--pieces: no rank holds the whole grid" : NULL;
  return HD_DRV_OK;
}

static int open_backend(hd_drv_run *r) {
  cavity_run *c = (cavity_run *)r->self;
  const int root = r->root;
  if (choose_solver(c, r->opts, &c->p, r->core->id, r->err, sizeof r->err)) return HD_DRV_BAD_INPUT;
  hd_decomp_use_backend(&c->dc, r->core, &r->ctx);
  c->dc.fields_fixed = 1; /* the state's and the solvers' arrays live as long as the run */
  if (!(c->ops = cavity_ops_get(r->core->id, c->com.precision == 1)))
    return hd_drv_bad(r, "no kernels for this backend and precision");
  r->precision = c->ops->precision;
  c->real_size = c->ops->real_size;
  if (c->p.rows && c->solver == CAVITY_FFT && r->core->id != HD_B_CUDA &&
      (double)((c->n + c->dc.size) / c->dc.size) * (double)(c->n - 1) > 2147483647.0) /* the largest block's share */
    return hd_drv_bad(r, "n: the FFT's transposes would pass MPI's counts (2^31 values a rank) on this many ranks; use "
                         "more ranks");
  /* cuFFT on CUDA ranks solves the gathered whole grid on every rank */
  c->whole_solve = c->p.rows && c->solver == CAVITY_FFT && r->core->id == HD_B_CUDA;
  {
    /* five node arrays and the solver's (SOR: 4 half arrays; multigrid:
     * about 4/3 x 3 arrays; FFT: 3) of the block — cuFFT on a split grid
     * solves the whole grid, with two more whole arrays and two on the
     * host; the host keeps four fields of the block in double, and rank 0
     * four of the whole grid */
    const double nodes = (double)(c->n + 1) * (double)(c->p.rows ? c->p.rows : c->n + 1);
    const double whole = (double)(c->n + 1) * (double)(c->n + 1);
    r->dev_bytes = c->ops->real_size * (nodes * (5.0 + (c->solver == CAVITY_SOR ? 2.0 : c->whole_solve ? 0.0 : 4.0)) +
                                       (c->whole_solve ? 6.0 * whole : 0.0));
    r->host_bytes = (c->com.bench ? 3 * nodes * 8.0
                                  : 4 * nodes * 8.0 + (root && !c->pieces ? 16 * whole + (c->dc.size > 1 ? 32 * whole : 0) : 0)) +
                    (c->whole_solve ? 2.0 * whole * c->ops->real_size : 0.0);
  }
  return HD_DRV_OK;
}

static void banner(hd_drv_run *r, char *text, size_t n) {
  const cavity_run *c = (const cavity_run *)r->self;
  snprintf(text, n, "%ld^2 cells, Re %g, %s, dt %g", c->n, c->re, solver_name(c->solver), c->p.dt);
}

static int create(hd_drv_run *r) {
  cavity_run *c = (cavity_run *)r->self;
  const size_t whole = (size_t)((c->n + 1) * (c->n + 1)) * sizeof(double),
               mine = (size_t)(c->dc.gn[0] * c->dc.ln[1]) * sizeof(double);
  double **g[4];
  int k, bad = 0, rc;
  if (r->root && c->whole_solve)
    fprintf(stderr, PROG ": note: %s is not split over ranks: every rank gathers the grid and solves all of it each "
                         "step%s (doc/mpi.md)\n", solver_name(c->solver),
            r->core->id == HD_B_CUDA ? ", slower than one GPU alone" : "");
  g[0] = &c->psi, g[1] = &c->w, g[2] = &c->u, g[3] = &c->v;
  for (k = 0; k < 4; ++k) {
    c->lf[k] = (double *)malloc(mine);
    *g[k] = c->dc.size == 1 || c->pieces ? c->lf[k] : r->root ? (double *)malloc(whole) : NULL;
    bad |= !c->lf[k] || (r->root && !*g[k]);
  }
  if (!bad) bad = c->ops->create(&r->ctx, &c->p, &c->state) != HD_OK;
  if ((rc = hd_drv_take_state(r, bad, c->state, c->ops->state_count, c->ops->state_io)) != HD_DRV_OK) return rc;
  ckpt_template(&c->p, c->ops->real_size, r->ck);
  /* psi and omega are rows (with a ghost row each side on more than one rank): checkpoints load on any rank count */
  hd_drv_ckpt_blocks(&r->ckp, &c->dc, c->dc.size > 1, 0);
  if (c->init_from[0]) { /* every rank its rows, from the same file */
    bad = c->com.restart[0] ? snprintf(r->err, sizeof r->err, "init-from: not with --restart (which continues its own run)")
                            : cavity_init_from(c->init_from, &c->p, c->ops->real_size, &r->ctx, c->state,
                                               c->ops->state_count(c->state), c->ops->state_io, r->err, sizeof r->err) != 0;
    if (hd_par_any(bad)) {
      if (!bad) snprintf(r->err, sizeof r->err, "init-from: failed on another rank");
      return HD_DRV_BAD_INPUT;
    }
  }
  return HD_DRV_OK;
}

static void destroy(hd_drv_run *r) {
  cavity_run *c = (cavity_run *)r->self;
  int k;
  if (c->state) c->ops->destroy(&r->ctx, c->state);
  if (c->dc.size > 1 && !c->pieces) free(c->psi), free(c->w), free(c->u), free(c->v);
  for (k = 0; k < 4; ++k) free(c->lf[k]);
  cavity_results_free(&c->res);
  free(c->part_rows);
  hd_decomp_destroy(&c->dc);
}

static int start(hd_drv_run *r) {
  cavity_run *c = (cavity_run *)r->self;
  double counted;
  if (hd_ckpt_get_value(r->ck, "iterations", &counted)) c->iterations = (long)counted;
  if (hd_ckpt_get_value(r->ck, "checks", &counted)) c->checks = (long)counted;
  if (hd_ckpt_get_value(r->ck, "row_iterations", &counted)) c->row_iterations = (long)counted;
  if (r->root && !r->cont) fprintf(r->out[c->hist].f, "step,time,change,poisson_iterations,poisson_residual\n");
  c->change = -1;
  r->cadence[0] = c->monitor_every;
  return HD_DRV_OK;
}

static int advance(hd_drv_run *r, long steps) {
  cavity_run *c = (cavity_run *)r->self;
  return c->ops->advance(&r->ctx, c->state, steps, 0.0, &c->pr) == HD_OK ? HD_DRV_OK : HD_DRV_FAILED;
}

static int after(hd_drv_run *r, long steps) {
  cavity_run *c = (cavity_run *)r->self;
  const long step = r->step;
  (void)steps;
  c->iterations += c->pr.iterations, c->checks += c->pr.checks, c->change = c->pr.change;
  c->row_iterations += c->pr.iterations;
  if (step % c->monitor_every == 0 || step == c->steps) { /* the cadence's rows, whatever the checkpoints */
    if (r->root)
      fprintf(r->out[c->hist].f, "%ld,%.9e,%.6e,%ld,%.3e\n", step, step * c->p.dt, c->change, c->row_iterations,
              c->pr.residual);
    if (c->steady > 0 && c->change <= c->steady) c->is_steady = r->stop = 1;
    c->row_iterations = 0;
  }
  hd_ckpt_set_value(r->ck, "row_iterations", (double)c->row_iterations);
  hd_ckpt_set_value(r->ck, "iterations", (double)c->iterations), hd_ckpt_set_value(r->ck, "checks", (double)c->checks);
  return HD_DRV_OK;
}

/* The fields, the centrelines and the pictures. */
/* The fields on the host: this block's, and with a gather rank 0's whole
 * grid. */
static int download(hd_drv_run *r, cavity_run *c) {
  long k;
  if (c->ops->fields(&r->ctx, c->state, c->lf[0], c->lf[1], c->lf[2], c->lf[3]) != HD_OK) return HD_DRV_FAILED;
  if (c->dc.size > 1 && !c->pieces) { /* every block's rows on rank 0 */
    double *g[4];
    g[0] = c->psi, g[1] = c->w, g[2] = c->u, g[3] = c->v;
    for (k = 0; k < 4; ++k)
      if (hd_decomp_gather(&c->dc, c->lf[k], g[k], r->err, sizeof r->err))
        return hd_fail(&r->ctx, HD_ERR_IO, "%s", r->err), HD_DRV_FAILED;
  }
  return HD_DRV_OK;
}

/* The fields now into o: by pieces from prefix, or rank 0's whole grid. */
static int write_fields(hd_drv_run *r, cavity_run *c, hd_out *o, const char *prefix) {
  const double *f[4];
  const double t = (double)r->step * c->p.dt;
  f[0] = c->psi, f[1] = c->w, f[2] = c->u, f[3] = c->v;
  if (c->pieces ? cavity_write_fields(o, &c->dc, prefix, c->n, f, c->ops->real_size == 4, t, r->step, r->err, sizeof r->err)
                : r->root && cavity_write_fields(o, NULL, NULL, c->n, f, c->ops->real_size == 4, t, r->step, r->err,
                                                 sizeof r->err))
    return hd_fail(&r->ctx, HD_ERR_IO, "%s", r->err), HD_DRV_FAILED;
  return HD_DRV_OK;
}

static int frame(hd_drv_run *r, hd_out *o, const char *prefix) {
  cavity_run *c = (cavity_run *)r->self;
  const int rc = download(r, c);
  return rc != HD_DRV_OK ? rc : write_fields(r, c, o, prefix);
}

static int finish(hd_drv_run *r) {
  cavity_run *c = (cavity_run *)r->self;
  long k;
  int rc;
  if ((rc = download(r, c)) != HD_DRV_OK) return rc;
  if (c->pieces && cavity_results_blocks(&c->res, &c->dc, c->n, c->psi, c->u, c->v, r->err, sizeof r->err))
    return hd_fail(&r->ctx, HD_ERR_IO, "%s", r->err), HD_DRV_FAILED;
  if ((rc = write_fields(r, c, &r->out[c->vol], c->com.output)) != HD_DRV_OK) return rc;
  if (!r->root) return HD_DRV_OK;
  if (!c->pieces) cavity_results_whole(&c->res, c->n, c->psi, c->u, c->v);
  fprintf(r->out[c->csv].f, "s,u_at_x_half,v_at_y_half\n");
  for (k = 0; k <= c->n; ++k) {
    const double s = (double)k / c->n;
    fprintf(r->out[c->csv].f, "%.9g,%.9e,%.9e\n", s, cavity_centre(&c->res.u, c->n, 0, s),
            cavity_centre(&c->res.v, c->n, 1, s));
  }
  if ((c->png && write_png(&r->out[c->png_psi], c->psi, c->n, c->res.pmin, c->re, r->err, sizeof r->err)) ||
      (c->have_plot && cavity_plot_centrelines(&r->out[c->plot], &c->res, c->n, c->re, c->lid, r->err, sizeof r->err)))
    return hd_fail(&r->ctx, HD_ERR_IO, "%s", r->err), HD_DRV_FAILED;
  return HD_DRV_OK;
}

static int summary(hd_drv_run *r, FILE *out) {
  cavity_run *c = (cavity_run *)r->self;
  const cavity_problem *p = &c->p;
  const long step = r->step;
  if (!r->root) return HD_DRV_OK;
  fprintf(out, "n: %ld\nre: %g\nlid: %g\nnu: %g\ndt: %g\ndt_max: %g\nsolver: %s\npoisson_tolerance: %g\nsteps: %ld\n"
          "time: %.6g\nsteady: %s\nchange: %.3e\npoisson_iterations: %ld\npoisson_checks: %ld\npsi_min: %.6f\n"
          "x_min: %.4f\ny_min: %.4f\n",
          c->n, c->re, c->lid, p->nu, p->dt, hd_cav_dt_max(1.0 / c->n, p->nu, c->lid),
          c->solver == CAVITY_SOR ? "sor" : c->solver == CAVITY_MG ? "mg" : "fft", p->pois.tol, step, step * p->dt,
          c->is_steady ? "yes" : "no", c->change, c->iterations, c->checks, c->res.pmin, c->res.xmin, c->res.ymin);
  if (p->sfd_chi > 0) fprintf(out, "sfd_chi: %g\nsfd_delta: %g\n", p->sfd_chi, p->sfd_delta);
  if (c->lid == 1.0) cavity_print_published(&c->res, c->n, c->re);
  fprintf(out, "plot: %s%s%s\n", c->have_plot ? r->out[c->plot].path : "none (",
          c->have_plot ? "" : HD_PNG_BUILT ? "--png=no" : HD_NO_PNG, c->have_plot ? "" : ")");
  fprintf(out, "seconds_per_step: %.6g\n", step > r->step0 ? r->wall / (double)(step - r->step0) : 0.0);
  if (!c->is_steady && c->steady > 0)
    fprintf(stderr, PROG ": warning: not steady after %ld steps (change %.3g > %g)\n", step, c->change, c->steady);
  return HD_DRV_OK;
}

const hd_drv_module hd_cavity_module = {
    .prog = PROG, .about = ABOUT, .output = "cavity", .size = sizeof(cavity_run), .cuda_ranks = 1, .memory = "grid",
    .options = options, .setup = setup, .open = open_backend, .bench = bench, .banner = banner, .create = create,
    .start = start, .advance = advance, .after = after, .frame = frame, .frames = 0, .finish = finish, .summary = summary,
    .destroy = destroy};
