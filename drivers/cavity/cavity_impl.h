/* SPDX-License-Identifier: BSD-3-Clause */
/* Cavity backend table, compiled once per backend and precision by the
 * two-line cavity_<backend>_<f|d> wrappers.  Allocation and the order of
 * the loops of a step; the physics is hd/cavity.h and hd/poisson.h. */
#include "cavity_ops.h"

#include <stdlib.h>
#include <string.h>

#include <hd/cavity.h>
#include <hd/memory.h>
#include <hd/poisson.h>
#if defined(HD_HAVE_FFTW) || defined(HD_BACKEND_CUDA) /* cuFFT comes with the toolkit */
#define CAVITY_HAVE_FFT 1
#include <hd/poisson_fft.h>
#if !defined(HD_BACKEND_CUDA)
#define CAVITY_SPLIT_FFT 1 /* FFTW's solve runs on a split grid; cuFFT's solves the whole grid */
#endif
#endif

#include "state_io.h"
#include "sys.h"

typedef struct cavity_solver {
  int kind;
  hd_pois_sor sor;
  hd_pois_mg mg;
#if defined(CAVITY_HAVE_FFT)
  hd_pois_fft fft;
#endif
} cavity_solver;

static void cv_solver_destroy(hd_ctx *ctx, cavity_solver *s) {
  if (s->kind == CAVITY_SOR) hd_pois_sor_destroy(ctx, &s->sor);
  if (s->kind == CAVITY_MG) hd_pois_mg_destroy(ctx, &s->mg);
#if defined(CAVITY_HAVE_FFT)
  if (s->kind == CAVITY_FFT) hd_pois_fft_destroy(ctx, &s->fft);
#endif
}

static hd_status cv_solver_create(hd_ctx *ctx, cavity_solver *s, int kind, long n, double h) {
  memset(s, 0, sizeof *s);
  s->kind = kind;
  if (kind == CAVITY_SOR) return hd_pois_sor_create(ctx, &s->sor, n, h);
  if (kind == CAVITY_MG) return hd_pois_mg_create(ctx, &s->mg, n, h);
#if defined(CAVITY_HAVE_FFT)
  return hd_pois_fft_create(ctx, &s->fft, n, h);
#else
  s->kind = -1; /* nothing to destroy */
  return hd_fail(ctx, HD_ERR_ARG, "cavity: the FFT Poisson solve needs FFTW3 on CPUs, which configure did not find");
#endif
}

static hd_status cv_solve(hd_ctx *ctx, cavity_solver *s, hd_real *u, const hd_real *f, const hd_pois_opts *o,
                          hd_pois_result *r) {
#if defined(CAVITY_HAVE_FFT)
  if (s->kind == CAVITY_FFT) return hd_pois_fft_solve(ctx, &s->fft, u, f, o, r);
#endif
  return s->kind == CAVITY_SOR ? hd_pois_sor_solve(ctx, &s->sor, u, f, o, r)
                               : hd_pois_mg_solve(ctx, &s->mg, u, f, o, r);
}

typedef struct cavity_state {
  hd_cav_args a;
  hd_real *psi, *w[2], *u, *v, *wbar; /* wbar: selective frequency damping's filtered vorticity, or NULL */
  int cur; /* w[cur] is the vorticity at the current time */
  cavity_solver solver;
  hd_pois_opts pois;
  size_t bytes;
  cavity_hooks hook; /* the problem's */
  int parts;
  /* cuFFT on a split grid: every block solves the whole grid
   * (the same solve as one rank's, so the same bits) from the gathered psi
   * and vorticity, then keeps its rows; whole-grid arrays here and on the
   * host */
  hd_real *whole_psi, *whole_f, *host_psi, *host_f;
} cavity_state;

/* The solver's hooks on a split grid, through the problem's. */
static int cv_sor_halo(void *user, hd_real *col) {
  cavity_state *st = (cavity_state *)user;
  return st->hook.halo(st->hook.user, col, (long)st->solver.sor.w);
}
static int cv_max(void *user, double *v) {
  cavity_state *st = (cavity_state *)user;
  return st->hook.max(st->hook.user, v, 1);
}
static int cv_mg_halo(void *user, hd_real *arr, hd_idx width, hd_idx rows, int depth) {
  cavity_state *st = (cavity_state *)user;
  return st->hook.halo_rows(st->hook.user, arr, (long)width, (long)rows, depth);
}
static int cv_mg_gather(void *user, hd_real *whole, hd_idx width, hd_idx lo, hd_idx hi) {
  cavity_state *st = (cavity_state *)user;
  return st->hook.gather_rows(st->hook.user, whole, (long)width, (long)lo, (long)hi);
}
#if defined(CAVITY_SPLIT_FFT)
static int cv_fft_halo(void *user, hd_real *u) {
  cavity_state *st = (cavity_state *)user;
  return st->hook.halo(st->hook.user, u, (long)(st->a.n + 1));
}
static int cv_fft_alltoall(void *user, const hd_real *send, hd_real *recv, const hd_idx *counts) {
  cavity_state *st = (cavity_state *)user;
  long *c = (long *)malloc((size_t)st->parts * sizeof(long));
  int k, rc;
  if (!c) return -1;
  for (k = 0; k < st->parts; ++k) c[k] = (long)counts[k];
  rc = st->hook.alltoall(st->hook.user, send, recv, c);
  free(c);
  return rc;
}
#endif

static void cv_destroy(hd_ctx *ctx, void *state) {
  cavity_state *st = (cavity_state *)state;
  if (!st) return;
  cv_solver_destroy(ctx, &st->solver);
  hd_dev_free(ctx, st->psi), hd_dev_free(ctx, st->w[0]), hd_dev_free(ctx, st->w[1]);
  hd_dev_free(ctx, st->u), hd_dev_free(ctx, st->v), hd_dev_free(ctx, st->wbar);
  hd_dev_free(ctx, st->whole_psi), hd_dev_free(ctx, st->whole_f);
  hd_host_free(st->host_psi), hd_host_free(st->host_f);
  free(st);
}

static hd_status cv_create(hd_ctx *ctx, const cavity_problem *p, void **out) {
  cavity_state *st = (cavity_state *)calloc(1, sizeof *st);
  hd_real **arrays[6];
  hd_status s;
  int k;
  *out = NULL;
  if (!st) return hd_fail(ctx, HD_ERR_NOMEM, "cavity: out of host memory");
  arrays[0] = &st->psi, arrays[1] = &st->w[0], arrays[2] = &st->w[1], arrays[3] = &st->u, arrays[4] = &st->v;
  arrays[5] = &st->wbar;
  st->bytes = (size_t)((p->n + 1) * (p->rows ? p->rows : p->n + 1)) * sizeof(hd_real);
  st->pois = p->pois;
  st->hook = p->hook;
  s = hd_cav_setup(ctx, &st->a, p->n, p->length, p->lid, p->nu, p->dt);
  st->a.local = (hd_real)p->local;
  st->a.sfd_chi = (hd_real)p->sfd_chi, st->a.sfd_rate = p->sfd_chi > 0 ? (hd_real)(1.0 / p->sfd_delta) : HD_R(0);
#if defined(CAVITY_SPLIT_FFT)
  if (s == HD_OK && p->rows && p->solver == CAVITY_FFT) { /* a block of the transposed solve */
    hd_idx *lo = (hd_idx *)malloc(2 * (size_t)p->parts * sizeof(hd_idx));
    int k;
    st->a.row0 = p->jlo - 1, st->a.jlo = p->jlo, st->a.jhi = p->jhi;
    st->parts = p->parts;
    st->solver.kind = CAVITY_FFT;
    if (!lo || !p->hook.alltoall || !p->part_lo || !p->part_hi)
      s = lo ? hd_fail(ctx, HD_ERR_ARG, "cavity: the FFT solve on a split grid needs the blocks' rows and exchange")
             : hd_fail(ctx, HD_ERR_NOMEM, "cavity: out of host memory");
    for (k = 0; s == HD_OK && k < p->parts; ++k) lo[k] = p->part_lo[k], lo[p->parts + k] = p->part_hi[k];
    if (s == HD_OK)
      s = hd_pois_fft_create_block(ctx, &st->solver.fft, p->n, p->length / (double)p->n, p->jlo - 1, p->parts, p->part,
                                   lo, lo + p->parts);
    free(lo);
    st->solver.fft.halo = cv_fft_halo, st->solver.fft.max = cv_max, st->solver.fft.alltoall = cv_fft_alltoall;
    st->solver.fft.user = st;
  } else
#endif
  if (s == HD_OK && p->rows && p->solver == CAVITY_MG) { /* a block of the split multigrid */
    hd_idx *lo = (hd_idx *)malloc(2 * (size_t)p->parts * sizeof(hd_idx));
    st->a.row0 = p->jlo - 1, st->a.jlo = p->jlo, st->a.jhi = p->jhi;
    st->solver.kind = CAVITY_MG;
    if (!lo || !p->hook.halo_rows || !p->hook.gather_rows || !p->part_lo || !p->part_hi)
      s = lo ? hd_fail(ctx, HD_ERR_ARG, "cavity: multigrid on a split grid needs the blocks' rows and exchanges")
             : hd_fail(ctx, HD_ERR_NOMEM, "cavity: out of host memory");
    for (k = 0; s == HD_OK && k < p->parts; ++k) lo[k] = p->part_lo[k], lo[p->parts + k] = p->part_hi[k];
    if (s == HD_OK)
      s = hd_pois_mg_create_block(ctx, &st->solver.mg, p->n, p->length / (double)p->n, p->parts, p->part, lo,
                                  lo + p->parts, p->mg_gather);
    free(lo);
    st->solver.mg.halo = cv_mg_halo, st->solver.mg.max = cv_max, st->solver.mg.gather = cv_mg_gather;
    st->solver.mg.user = st;
  } else if (s == HD_OK && p->rows && p->solver != CAVITY_SOR) { /* a block solving the whole grid */
    const size_t whole = (size_t)((p->n + 1) * (p->n + 1)) * sizeof(hd_real);
    st->a.row0 = p->jlo - 1, st->a.jlo = p->jlo, st->a.jhi = p->jhi;
    if (!st->hook.gather) s = hd_fail(ctx, HD_ERR_ARG, "cavity: a whole-grid solver on a split grid needs the gather hook");
    if (s == HD_OK) s = cv_solver_create(ctx, &st->solver, p->solver, p->n, p->length / (double)p->n);
    if (s == HD_OK) s = hd_dev_alloc(ctx, (void **)&st->whole_psi, whole);
    if (s == HD_OK) s = hd_dev_alloc(ctx, (void **)&st->whole_f, whole);
    if (s == HD_OK && (!(st->host_psi = (hd_real *)hd_host_alloc(whole)) || !(st->host_f = (hd_real *)hd_host_alloc(whole))))
      s = hd_fail(ctx, HD_ERR_NOMEM, "cavity: out of host memory for the whole-grid solve");
  } else if (s == HD_OK && p->rows) { /* a block: a ghost row each side */
    st->a.row0 = p->jlo - 1, st->a.jlo = p->jlo, st->a.jhi = p->jhi;
    s = hd_pois_sor_create_block(ctx, &st->solver.sor, p->n, p->length / (double)p->n, p->jlo - 1, p->rows,
                                 p->jlo, p->jhi);
    st->solver.kind = CAVITY_SOR;
    st->solver.sor.halo = cv_sor_halo, st->solver.sor.max = cv_max, st->solver.sor.user = st;
  } else if (s == HD_OK) {
    s = cv_solver_create(ctx, &st->solver, p->solver, p->n, p->length / (double)p->n);
  }
  for (k = 0; k < (p->sfd_chi > 0 ? 6 : 5) && s == HD_OK; ++k) { /* the filter starts at omega: 0 at rest */
    s = hd_dev_alloc(ctx, (void **)arrays[k], st->bytes);
    if (s == HD_OK) s = hd_dev_zero(ctx, *arrays[k], st->bytes);
  }
  st->a.wbar = st->wbar;
  if (s == HD_OK) { /* at rest; the lid's vorticity from Thom's formula */
    st->a.psi = st->psi, st->a.w = st->w[1], st->a.w_new = st->w[0];
    s = hd_cav_walls(ctx, &st->a);
  }
  if (s == HD_OK) s = hd_ctx_sync(ctx);
  if (s != HD_OK) {
    cv_destroy(ctx, st);
    return s;
  }
  *out = st;
  return HD_OK;
}

/* The Poisson solve of a block with a whole-grid solver (cuFFT): the blocks' rows of psi
 * (the first guess) and of the vorticity gathered into whole arrays, the
 * whole grid solved as one rank solves it, this block's rows (ghost rows
 * included) kept. */
static hd_status cv_solve_whole(hd_ctx *ctx, cavity_state *st, const hd_real *f, hd_pois_result *r) {
  const hd_idx sy = st->a.n + 1, own = st->a.jhi - st->a.jlo, skip = (st->a.jlo - st->a.row0) * sy;
  const hd_idx first = st->a.row0 < 0 ? 0 : st->a.row0;                      /* rows kept: the block's */
  const hd_idx last = st->a.row0 + own + 2 > sy ? sy : st->a.row0 + own + 2; /* and its ghost rows */
  const size_t row = (size_t)sy * sizeof(hd_real), whole = (size_t)sy * row;
  hd_status s = hd_dev_download(ctx, st->host_psi + st->a.jlo * sy, st->psi + skip, (size_t)own * row);
  if (s == HD_OK) s = hd_dev_download(ctx, st->host_f + st->a.jlo * sy, f + skip, (size_t)own * row);
  if (s == HD_OK && (st->hook.gather(st->hook.user, st->host_psi, (long)sy) || st->hook.gather(st->hook.user, st->host_f, (long)sy)))
    s = hd_fail(ctx, HD_ERR_IO, "cavity: gathering the whole grid failed");
  if (s == HD_OK) s = hd_dev_upload(ctx, st->whole_psi, st->host_psi, whole);
  if (s == HD_OK) s = hd_dev_upload(ctx, st->whole_f, st->host_f, whole);
  if (s == HD_OK) s = cv_solve(ctx, &st->solver, st->whole_psi, st->whole_f, &st->pois, r);
  if (s == HD_OK)
    s = hd_dev_copy(ctx, st->psi + (first - st->a.row0) * sy, st->whole_psi + first * sy, (size_t)(last - first) * row);
  return s;
}

/* One step: interior vorticity, Poisson solve for psi, wall vorticity;
 * with `monitor` also the change of w over the interior. */
static hd_status cv_step(hd_ctx *ctx, cavity_state *st, int monitor, hd_cav_change *chg, hd_pois_result *r) {
  hd_status s = HD_OK;
  st->a.psi = st->psi, st->a.w = st->w[st->cur], st->a.w_new = st->w[1 - st->cur];
  if (st->hook.halo && (st->hook.halo(st->hook.user, st->psi, st->a.n + 1) || st->hook.halo(st->hook.user, st->w[st->cur], st->a.n + 1)))
    s = hd_fail(ctx, HD_ERR_IO, "cavity: the halo exchange failed");
  if (s == HD_OK) s = hd_cav_interior(ctx, &st->a);
  if (s == HD_OK && monitor) s = hd_cav_change_reduce(ctx, &st->a, hd_cav_inner(&st->a), chg);
  if (s == HD_OK && monitor && st->hook.max) { /* over the blocks: maxima, and the first bad node as -index */
    double v[4];
    v[0] = chg->dmax, v[1] = chg->wmax, v[2] = chg->nonfinite ? 1.0 : 0.0;
    v[3] = chg->nonfinite ? -(double)chg->first_bad : -HUGE_VAL;
    if (st->hook.max(st->hook.user, v, 4)) s = hd_fail(ctx, HD_ERR_IO, "cavity: the global maximum failed");
    chg->dmax = v[0], chg->wmax = v[1], chg->nonfinite = (hd_idx)v[2], chg->first_bad = (hd_idx)-v[3];
  }
  if (s == HD_OK && monitor && chg->nonfinite)
    s = hd_fail(ctx, HD_ERR_NONFINITE, "cavity: the vorticity blew up (non-finite at node %ld, %ld)",
                (long)(chg->first_bad % (st->a.n + 1)), (long)(chg->first_bad / (st->a.n + 1)));
  if (s == HD_OK)
    s = st->whole_psi ? cv_solve_whole(ctx, st, st->w[1 - st->cur], r)
                      : cv_solve(ctx, &st->solver, st->psi, st->w[1 - st->cur], &st->pois, r);
  if (s == HD_OK) s = hd_cav_walls(ctx, &st->a);
  if (s == HD_OK) st->cur = 1 - st->cur;
  return s;
}

static hd_status cv_advance(hd_ctx *ctx, void *state, long steps, double steady, cavity_progress *out) {
  cavity_state *st = (cavity_state *)state;
  hd_status s = HD_OK;
  long k;
  memset(out, 0, sizeof *out);
  out->change = -1.0;
  for (k = 0; k < steps && s == HD_OK; ++k) {
    const int monitor = k == steps - 1 || steady > 0;
    hd_cav_change chg;
    hd_pois_result r;
    hd_cav_change_init(&chg);
    s = cv_step(ctx, st, monitor, &chg, &r);
    if (s != HD_OK) break;
    out->steps++, out->iterations += r.iterations, out->checks += r.checks, out->residual = r.residual;
    if (monitor) {
      out->change = chg.wmax > 0 ? chg.dmax / ((double)st->a.dt * chg.wmax) : 0.0;
      if (steady > 0 && out->change <= steady) break;
    }
  }
  return s;
}

static hd_status cv_download(hd_ctx *ctx, const hd_real *dev, size_t bytes, double *out) {
  const size_t n = bytes / sizeof(hd_real);
  hd_real *host;
  hd_status s;
  size_t i;
  if (!out) return HD_OK;
  host = (hd_real *)hd_host_alloc(bytes);
  if (!host) return hd_fail(ctx, HD_ERR_NOMEM, "cavity: out of host memory");
  s = hd_dev_download(ctx, host, dev, bytes);
  for (i = 0; s == HD_OK && i < n; ++i) out[i] = (double)host[i];
  hd_host_free(host);
  return s;
}

static hd_status cv_fields(hd_ctx *ctx, void *state, double *psi, double *w, double *u, double *v) {
  cavity_state *st = (cavity_state *)state;
  hd_status s;
  /* the rows updated, without the ghost rows */
  const hd_idx sy = st->a.n + 1, skip = (st->a.jlo - st->a.row0) * sy;
  const size_t bytes = (size_t)((st->a.jhi - st->a.jlo) * sy) * sizeof(hd_real);
  st->a.psi = st->psi, st->a.u = st->u, st->a.v = st->v;
  s = hd_cav_velocity_loop(ctx, &st->a, hd_cav_rows(&st->a));
  if (s == HD_OK) s = cv_download(ctx, st->psi + skip, bytes, psi);
  if (s == HD_OK) s = cv_download(ctx, st->w[st->cur] + skip, bytes, w);
  if (s == HD_OK) s = cv_download(ctx, st->u + skip, bytes, u);
  if (s == HD_OK) s = cv_download(ctx, st->v + skip, bytes, v);
  return s;
}

/* in into *dev, allocated first where NULL. */
static hd_status cv_upload(hd_ctx *ctx, hd_real **dev, const double *in, size_t count) {
  hd_real *host = (hd_real *)hd_host_alloc(count * sizeof(hd_real));
  hd_status s = HD_OK;
  size_t i;
  if (!host) return hd_fail(ctx, HD_ERR_NOMEM, "poisson: out of host memory");
  for (i = 0; i < count; ++i) host[i] = (hd_real)in[i];
  if (!*dev) s = hd_dev_alloc(ctx, (void **)dev, count * sizeof(hd_real));
  if (s == HD_OK) s = hd_dev_upload(ctx, *dev, host, count * sizeof(hd_real));
  hd_host_free(host);
  return s;
}

static hd_status cv_poisson(hd_ctx *ctx, long n, double h, int kind, const hd_pois_opts *o, const double *f,
                            double *u, hd_pois_result *res, double *seconds) {
  const size_t count = (size_t)((n + 1) * (n + 1));
  hd_real *du = NULL, *df = NULL;
  cavity_solver sv;
  hd_status s = cv_solver_create(ctx, &sv, kind, n, h);
  double t0 = 0.0, times[5] = {0, 0, 0, 0, 0}, spent = 0.0, tmp;
  int k = 0, i;
  if (s == HD_OK) s = cv_upload(ctx, &df, f, count);
  if (s == HD_OK) { /* a first solve records what is reused (CUDA graphs) and warms the caches, untimed */
    hd_pois_result warm;
    s = cv_upload(ctx, &du, u, count);
    if (s == HD_OK) s = cv_solve(ctx, &sv, du, df, o, &warm);
    if (s == HD_ERR_NOCONV) s = HD_OK; /* the timed solve says it again */
  }
  /* timed: up to 5 solves from the same start while they take under 0.5 s in all, the median */
  for (k = 0; k < 5 && (s == HD_OK || (s == HD_ERR_NOCONV && !k)) && spent < 0.5; ++k) {
    s = cv_upload(ctx, &du, u, count); /* the same array: a graph recorded on it is replayed */
    if (s == HD_OK) s = hd_ctx_sync(ctx);
    t0 = hd_wtime();
    if (s == HD_OK) s = cv_solve(ctx, &sv, du, df, o, res);
    if (s == HD_OK) s = hd_ctx_sync(ctx);
    times[k] = hd_wtime() - t0, spent += times[k];
    for (i = k; i > 0 && times[i - 1] > times[i]; --i) tmp = times[i], times[i] = times[i - 1], times[i - 1] = tmp;
  }
  *seconds = times[k / 2];
  if (s == HD_OK || s == HD_ERR_NOCONV) {
    const hd_status d = cv_download(ctx, du, count * sizeof(hd_real), u);
    if (d != HD_OK) s = d;
  }
  cv_solver_destroy(ctx, &sv);
  hd_dev_free(ctx, du), hd_dev_free(ctx, df);
  return s;
}

/* psi and the current vorticity (walls included), and the filtered one of
 * frequency damping, are the whole state: the solvers' arrays are rebuilt
 * by every solve. */
static int cv_state_count(void *state) {
  return ((cavity_state *)state)->wbar ? 3 : 2;
}

static hd_status cv_state_io(hd_ctx *ctx, void *state, int k, char name[16], uint64_t *bytes, void *host, int save) {
  cavity_state *st = (cavity_state *)state;
  hd_state_entry e;
  memset(&e, 0, sizeof e);
  e.name = k == 0 ? "psi" : k == 1 ? "omega" : "omega_bar";
  e.dev = k == 0 ? st->psi : k == 1 ? st->w[st->cur] : st->wbar;
  e.bytes = st->bytes, e.host = 0;
  return hd_state_entry_io(ctx, NULL, &e, name, bytes, host, save);
}

const cavity_ops HD_OPS_NAME(cavity_ops) = {HD_BACKEND_NAME, HD_REAL_NAME, sizeof(hd_real), cv_create,
                                            cv_advance, cv_fields, cv_destroy, cv_poisson, cv_state_count,
                                            cv_state_io};
