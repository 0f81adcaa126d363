/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/heat_solve.h - the solvers of an implicit heat system (hd/heat_implicit.h):
 * CG, Chebyshev and PPCG as TeaLeaf runs them, and CG preconditioned by a
 * multigrid V-cycle (hd/heat_mg.h), on every backend through the kernels
 * of those headers.  Host code: a solver holds its work vectors in backend
 * memory (hd_heat_solver_open), then solves A x = b from x's value
 * (hd_heat_solve) as often as the system stays the same.
 *
 * Stopping: sqrt(r . r) <= max(tol sqrt(r0 . r0), tol_abs) on the residual
 * the iteration carries (TeaLeaf's test with tol 0 and tol_abs its eps).
 * Chebyshev and PPCG need the extreme eigenvalues of A: estimated once, at
 * the first solve, from the Lanczos matrix of `presteps` CG iterations on a fixed
 * right side (hd_heat_noise_pt), widened by 5 % as TeaLeaf widens its own
 * estimate; the same system gives the same bounds, so a restart solves as
 * the run it resumes. */
#ifndef HD_HEAT_SOLVE_H
#define HD_HEAT_SOLVE_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heat_mg.h"
#include "memory.h"

#define HD_HEAT_MG_MAX_LEVELS 32

typedef struct hd_heat_mg_level {
  hd_grid g;
  hd_real *mass, *a[3], *x, *b, *r;
  int cf[3];   /* this level's coarsening from the one above (level 0: unused) */
  int owns_xb; /* x and b are its own (not the solver's vectors) */
} hd_heat_mg_level;

/* On a block of a grid shared by ranks: the ghosts across the shared
 * faces of vector v on grid g (the system's, before each product with A,
 * or a multigrid level's block, see below); the sums over every rank's
 * rows (rows: this block's, two doubles a row, in its row order; out: the
 * two sums over all rows in global row order, on every rank); and the
 * whole of multigrid level `level` (grid wg) on every rank from each
 * rank's block (grid bg; host memory: each block gives its cells and,
 * where it meets the grid's faces, its ghosts there).  0, or non-zero on
 * failure.
 *
 * Multigrid on ranks: levels 0 .. dist - 1 are blocks, each rank's the
 * halves of its block above (the caller picks dist so that every block's
 * origin and extent along a shared axis are even on those levels: the
 * blocks tile each level as one rank's grid, and red-black colours agree);
 * level dist's blocks receive the restriction, are gathered, and the rest
 * of the cycle runs on the whole level on every rank (the solver `whole`),
 * each rank taking its block of the correction back.  Same operations on
 * the same values as one rank: the iterations and the field of one rank,
 * bit for bit. */
typedef int (*hd_heat_halo_fn)(void *arg, const hd_grid *g, void *v);
typedef int (*hd_heat_rowsum_fn)(void *arg, const double *rows, hd_idx nrows, double out[2]);
typedef int (*hd_heat_gather_fn)(void *arg, int level, const hd_grid *bg, const void *block, const hd_grid *wg, void *whole);

typedef struct hd_heat_solver {
  int kind;
  int max_iters; /* iterations a solve at most */
  int presteps;  /* CG iterations of the eigenvalue estimate */
  int inner;     /* PPCG: Chebyshev steps of the preconditioner */
  int sweeps;    /* multigrid: red-black sweeps before and after */
  double tol, tol_abs;
  hd_idx origin[3], cells[3]; /* the block in the whole grid (the estimate's right side) */
  hd_heat_halo_fn halo;         /* NULL: one block, no shared faces */
  hd_heat_rowsum_fn rowsum;     /* NULL: this block's rows, in order */
  hd_heat_gather_fn gather;     /* NULL: multigrid on one block */
  int dist;                     /* with gather: the levels shared as blocks */
  void *arg;                    /* theirs */
  /* set by hd_heat_solver_open */
  hd_grid g;
  hd_real *r, *p, *w, *z, *zo, *d, *pn; /* pn: the next direction beside p */
  double *rows, *hrows;         /* two sums a row: backend memory and the host's (page-locked) */
  int nlev;
  hd_heat_mg_level lev[HD_HEAT_MG_MAX_LEVELS];
  double eig[2]; /* the Chebyshev bounds */
  struct hd_heat_solver *whole; /* multigrid on ranks: the cycle from level dist on the whole level */
  void *hblock, *hwhole;        /* their host copies for the gather */
  int uniform;   /* every material's C the same (mass0): level 0's products read no mass */
  hd_real mass0;
  int built, mapped[HD_NFACES]; /* the levels' operators, for these faces */
  /* the last solve */
  long iters;
  double res0, res;
  int converged;
} hd_heat_solver;

/* Defaults: CG preconditioned by multigrid, 2 sweeps, TeaLeaf's 30
 * presteps and 10 inner steps, tol 1e-10 (single: 1e-5), 10000 iterations. */
HD_HOST_FN void hd_heat_solver_defaults(hd_heat_solver *sv) {
  memset(sv, 0, sizeof *sv);
  sv->kind = HD_HEAT_SOLVER_MG;
  sv->max_iters = 10000, sv->presteps = 30, sv->inner = 10, sv->sweeps = 2;
  sv->tol = sizeof(hd_real) == 4 ? 1e-5 : 1e-10;
}

HD_HOST_FN void hd_heat_solver_close(hd_ctx *ctx, hd_heat_solver *sv) {
  hd_real **v[7];
  int l, k, e;
  v[0] = &sv->r, v[1] = &sv->p, v[2] = &sv->w, v[3] = &sv->z, v[4] = &sv->zo, v[5] = &sv->d, v[6] = &sv->pn;
  for (k = 0; k < 7; ++k) hd_dev_free(ctx, *v[k]), *v[k] = NULL;
  hd_dev_free(ctx, sv->rows), hd_pinned_free(ctx, sv->hrows);
  sv->rows = sv->hrows = NULL;
  for (l = 0; l < sv->nlev; ++l) {
    hd_heat_mg_level *L = &sv->lev[l];
    hd_dev_free(ctx, L->mass), hd_dev_free(ctx, L->r);
    for (e = 0; e < 3; ++e) hd_dev_free(ctx, L->a[e]);
    if (L->owns_xb) hd_dev_free(ctx, L->x), hd_dev_free(ctx, L->b);
  }
  memset(sv->lev, 0, sizeof sv->lev);
  sv->nlev = 0;
  if (sv->whole) hd_heat_solver_close(ctx, sv->whole), free(sv->whole);
  free(sv->hblock), free(sv->hwhole);
  sv->whole = NULL, sv->hblock = sv->hwhole = NULL;
}

HD_HOST_FN hd_status hd_heat_vec_alloc(hd_ctx *ctx, const hd_grid *g, hd_real **v) {
  const size_t bytes = (size_t)g->total * sizeof(hd_real);
  hd_status s = hd_dev_alloc(ctx, (void **)v, bytes);
  return s == HD_OK ? hd_dev_zero(ctx, *v, bytes) : s;
}

/* The vector kernels' arguments on the system. */
HD_HOST_FN hd_heat_vec_args hd_heat_vec_make(const hd_heat_sys *sys) {
  hd_heat_vec_args a;
  memset(&a, 0, sizeof a);
  a.s = *sys;
  return a;
}

/* The level arguments of level l (with the finer level l - 1). */
HD_HOST_FN hd_heat_mg_args hd_heat_mg_make(const hd_heat_solver *sv, int l) {
  const hd_heat_mg_level *L = &sv->lev[l];
  hd_heat_mg_args a;
  int e;
  memset(&a, 0, sizeof a);
  a.g = L->g, a.mass = L->mass, a.x = L->x, a.b = L->b, a.r = L->r;
  if (l == 0 && sv->uniform) a.mass = NULL, a.mass0 = sv->mass0;
  for (e = 0; e < 3; ++e) a.a[e] = L->a[e], a.cf[e] = L->cf[e];
  if (l > 0) {
    const hd_heat_mg_level *F = &sv->lev[l - 1];
    a.fg = F->g, a.fmass = F->mass, a.fx = F->x, a.fr = F->r;
    for (e = 0; e < 3; ++e) a.fa[e] = F->a[e];
  }
  return a;
}

/* The two sums of the rows a kernel just wrote (status s: its launch), in
 * global row order. */
HD_HOST_FN hd_status hd_heat_sums(hd_ctx *ctx, hd_heat_solver *sv, hd_status s, double out[2]) {
  const hd_idx nrows = sv->g.n[1] * sv->g.n[2];
  hd_idx r;
  if (s != HD_OK) return s;
  if ((s = hd_dev_download(ctx, sv->hrows, sv->rows, (size_t)(2 * nrows) * sizeof(double))) != HD_OK) return s;
  if (sv->rowsum) return sv->rowsum(sv->arg, sv->hrows, nrows, out) ? hd_fail(ctx, HD_ERR_IO, "heat: the solver's sums over the ranks failed") : HD_OK;
  out[0] = out[1] = 0.0;
  for (r = 0; r < nrows; ++r) out[0] += sv->hrows[2 * r], out[1] += sv->hrows[2 * r + 1];
  return HD_OK;
}

/* The stored-face product's arguments: x the vector, y, u, v the others. */
HD_HOST_FN hd_heat_fvec_args hd_heat_fvec_make(const hd_heat_solver *sv, hd_real *x, hd_real *y, hd_real *u, hd_real *v) {
  hd_heat_fvec_args f;
  memset(&f, 0, sizeof f);
  f.m = hd_heat_mg_make(sv, 0);
  f.m.x = x, f.y = y, f.u = u, f.v = v;
  return f;
}

/* The ghosts of level l's vector v across shared faces. */
HD_HOST_FN hd_status hd_heat_mg_exchange(hd_ctx *ctx, const hd_heat_solver *sv, int l, hd_real *v) {
  if (!sv->halo) return HD_OK;
  return sv->halo(sv->arg, l ? &sv->lev[l].g : &sv->g, (void *)v) ? hd_fail(ctx, HD_ERR_IO, "heat: the solver's halo exchange failed") : HD_OK;
}

/* The ghosts of v across shared faces, before a product with A. */
HD_HOST_FN hd_status hd_heat_exchange(hd_ctx *ctx, const hd_heat_solver *sv, hd_real *v) {
  return hd_heat_mg_exchange(ctx, sv, 0, v);
}

/* The box 1 .. n + 1 of a grid (cells and the faces above the last). */
HD_HOST_FN hd_range3 hd_heat_mg_faces_box(const hd_grid *g) {
  hd_range3 r = hd_grid_interior(g);
  int d;
  for (d = 0; d < g->dim; ++d) r.hi[d] += 1;
  return r;
}

/* The memory of the levels below level 0 (its grid, x and b set), each
 * halving every axis of more than one cell, to level `stop` or (stop < 0)
 * while an axis has more than 4 cells; level 0's operator too. */
HD_HOST_FN hd_status hd_heat_mg_levels(hd_ctx *ctx, hd_heat_solver *sv, int stop) {
  hd_status s;
  int l, e;
  sv->nlev = 1;
  for (l = 0;; ++l) {
    hd_heat_mg_level *L = &sv->lev[l];
    hd_idx most = 0;
    if ((s = hd_heat_vec_alloc(ctx, &L->g, &L->mass)) != HD_OK || (s = hd_heat_vec_alloc(ctx, &L->g, &L->r)) != HD_OK)
      return s;
    for (e = 0; e < L->g.dim; ++e)
      if ((s = hd_heat_vec_alloc(ctx, &L->g, &L->a[e])) != HD_OK) return s;
    if (l > 0) {
      L->owns_xb = 1;
      if ((s = hd_heat_vec_alloc(ctx, &L->g, &L->x)) != HD_OK || (s = hd_heat_vec_alloc(ctx, &L->g, &L->b)) != HD_OK)
        return s;
    }
    for (e = 0; e < L->g.dim; ++e) most = L->g.n[e] > most ? L->g.n[e] : most;
    if (sv->kind != HD_HEAT_SOLVER_MG || l == stop || (stop < 0 && most <= 4) || l + 1 == HD_HEAT_MG_MAX_LEVELS) break;
    {
      hd_heat_mg_level *C = &sv->lev[l + 1];
      hd_idx n[3] = {1, 1, 1};
      for (e = 0; e < 3; ++e) {
        C->cf[e] = e < L->g.dim && L->g.n[e] > 1 ? 2 : 1;
        n[e] = e < L->g.dim ? (L->g.n[e] + C->cf[e] - 1) / C->cf[e] : 1;
      }
      if (!hd_grid_init(&C->g, L->g.dim, n[0], n[1], n[2], 1)) return hd_fail(ctx, HD_ERR_ARG, "heat: bad multigrid level");
      ++sv->nlev;
    }
  }
  return HD_OK;
}

/* The memory of the system's stored faces (level 0, on the system's grid:
 * every solver's products with A) and, for multigrid, of the coarser
 * levels (level 0's x and b the solver's z and r); on ranks (gather set)
 * the blocks of levels 0 .. dist and the whole levels from dist down
 * (sv->whole).  hd_heat_mg_build fills them. */
HD_HOST_FN hd_status hd_heat_mg_open(hd_ctx *ctx, hd_heat_solver *sv, const hd_heat_sys *sys) {
  const int ranks = sv->kind == HD_HEAT_SOLVER_MG && sv->gather;
  hd_heat_solver *w;
  hd_idx n[3];
  hd_status s;
  int l, e;
  sv->lev[0].g = sys->g, sv->lev[0].x = sv->z, sv->lev[0].b = sv->r;
  if ((s = hd_heat_mg_levels(ctx, sv, ranks ? sv->dist : -1)) != HD_OK || !ranks) return s;
  if (sv->nlev != sv->dist + 1) return hd_fail(ctx, HD_ERR_ARG, "heat: %d multigrid levels shared by the ranks, not %d", sv->nlev - 1, sv->dist);
  if (!(sv->whole = w = (hd_heat_solver *)calloc(1, sizeof *w))) return hd_fail(ctx, HD_ERR_NOMEM, "heat: out of host memory for the solver");
  w->kind = HD_HEAT_SOLVER_MG, w->sweeps = sv->sweeps;
  for (e = 0; e < 3; ++e) { /* level dist of the whole grid */
    n[e] = e < sys->g.dim ? (sv->cells[e] ? sv->cells[e] : sys->g.n[e]) : 1;
    for (l = 0; l < sv->dist; ++l) n[e] = (n[e] + (n[e] > 1)) / (1 + (n[e] > 1));
  }
  if (!hd_grid_init(&w->lev[0].g, sys->g.dim, n[0], n[1], n[2], 1)) return hd_fail(ctx, HD_ERR_ARG, "heat: bad multigrid level");
  w->lev[0].owns_xb = 1;
  if ((s = hd_heat_vec_alloc(ctx, &w->lev[0].g, &w->lev[0].x)) != HD_OK || (s = hd_heat_vec_alloc(ctx, &w->lev[0].g, &w->lev[0].b)) != HD_OK ||
      (s = hd_heat_mg_levels(ctx, w, -1)) != HD_OK)
    return s;
  sv->hblock = malloc((size_t)sv->lev[sv->dist].g.total * sizeof(hd_real));
  sv->hwhole = malloc((size_t)w->lev[0].g.total * sizeof(hd_real));
  return sv->hblock && sv->hwhole ? HD_OK : hd_fail(ctx, HD_ERR_NOMEM, "heat: out of host memory for the solver");
}

/* The whole of level dist's array `block` (its blocks on every rank) into
 * the whole solver's array `whole`. */
HD_HOST_FN hd_status hd_heat_mg_gather(hd_ctx *ctx, hd_heat_solver *sv, const hd_real *block, hd_real *whole) {
  hd_status s = hd_dev_download(ctx, sv->hblock, block, (size_t)sv->lev[sv->dist].g.total * sizeof(hd_real));
  if (s != HD_OK) return s;
  if (sv->gather(sv->arg, sv->dist, &sv->lev[sv->dist].g, sv->hblock, &sv->whole->lev[0].g, sv->hwhole)) return hd_fail(ctx, HD_ERR_IO, "heat: the solver's gather over the ranks failed");
  return hd_dev_upload(ctx, whole, sv->hwhole, (size_t)sv->whole->lev[0].g.total * sizeof(hd_real));
}

/* The operators of levels from..nlev - 1, each from the one above. */
HD_HOST_FN hd_status hd_heat_mg_coarsen_levels(hd_ctx *ctx, hd_heat_solver *sv, int from) {
  hd_status s = HD_OK;
  int l;
  for (l = from; l < sv->nlev && s == HD_OK; ++l) {
    const hd_heat_mg_args a = hd_heat_mg_make(sv, l);
    s = hd_heat_mg_coarsen_loop(ctx, &a, hd_heat_mg_faces_box(&a.g));
  }
  return s;
}

/* The levels (at the first solve: the ranks' callbacks are set by then)
 * and their operators from the system, again where its faces changed (a
 * face becomes shared when a run first steps on ranks). */
HD_HOST_FN hd_status hd_heat_mg_build(hd_ctx *ctx, hd_heat_solver *sv, const hd_heat_sys *sys) {
  hd_heat_mg_top_args top;
  hd_status s;
  int e;
  if (sv->built && !memcmp(sv->mapped, sys->mapped, sizeof sv->mapped)) return HD_OK;
  if (!sv->nlev && (s = hd_heat_mg_open(ctx, sv, sys)) != HD_OK) return s;
  memset(&top, 0, sizeof top);
  top.s = *sys, top.mass = sv->lev[0].mass;
  for (e = 0; e < 3; ++e) top.a[e] = sv->lev[0].a[e];
  if ((s = hd_heat_mg_top_loop(ctx, &top, hd_heat_mg_faces_box(&sys->g))) != HD_OK) return s;
  if ((s = hd_heat_mg_coarsen_levels(ctx, sv, 1)) != HD_OK) return s;
  if (sv->whole) { /* the whole level dist from the blocks, and below it */
    const hd_heat_mg_level *L = &sv->lev[sv->dist];
    hd_heat_mg_level *W = &sv->whole->lev[0];
    if ((s = hd_heat_mg_gather(ctx, sv, L->mass, W->mass)) != HD_OK) return s;
    for (e = 0; e < L->g.dim; ++e)
      if ((s = hd_heat_mg_gather(ctx, sv, L->a[e], W->a[e])) != HD_OK) return s;
    if ((s = hd_heat_mg_coarsen_levels(ctx, sv->whole, 1)) != HD_OK) return s;
  }
  { /* the C of each material (backend memory): one value, a scalar */
    hd_real *cap = (hd_real *)calloc((size_t)sys->nm, sizeof(hd_real));
    if (!cap) return hd_fail(ctx, HD_ERR_NOMEM, "heat: out of host memory for the solver");
    s = hd_dev_download(ctx, cap, sys->cap, (size_t)sys->nm * sizeof(hd_real));
    sv->uniform = s == HD_OK, sv->mass0 = cap[0];
    for (e = 1; e < sys->nm && s == HD_OK; ++e) sv->uniform &= cap[e] == cap[0];
    free(cap);
    if (s != HD_OK) return s;
  }
  memcpy(sv->mapped, sys->mapped, sizeof sv->mapped);
  sv->built = 1, sv->eig[0] = sv->eig[1] = 0.0; /* a new operator: new bounds */
  return HD_OK;
}

/* Red-black sweeps on level l: `count` of them, red first (reverse: black
 * first); the forward ones start from x = 0. */
HD_HOST_FN hd_status hd_heat_mg_sweeps(hd_ctx *ctx, const hd_heat_solver *sv, int l, int count, int reverse) {
  hd_heat_mg_args a = hd_heat_mg_make(sv, l);
  const hd_range3 in = hd_grid_interior(&a.g);
  hd_status s = HD_OK;
  int n, h;
  for (n = 0; n < count && s == HD_OK; ++n)
    for (h = 0; h < 2 && s == HD_OK; ++h) {
      a.color = reverse ? 1 - h : h;
      a.first = !reverse && n == 0 && h == 0;
      if ((s = hd_heat_mg_smooth_loop(ctx, &a, in)) == HD_OK) s = hd_heat_mg_exchange(ctx, sv, l, a.x);
    }
  return s;
}

/* On ranks, the cycle from level dist: its right side gathered, the cycle
 * on the whole level, this block's part of the correction taken back. */
HD_HOST_FN hd_status hd_heat_mg_vcycle(hd_ctx *ctx, const hd_heat_solver *sv, int l);
HD_HOST_FN hd_status hd_heat_mg_whole(hd_ctx *ctx, const hd_heat_solver *sv) {
  hd_heat_mg_level *L = (hd_heat_mg_level *)&sv->lev[sv->dist];
  hd_heat_mg_take_args t;
  hd_status s;
  int e;
  if ((s = hd_heat_mg_gather(ctx, (hd_heat_solver *)sv, L->b, sv->whole->lev[0].b)) != HD_OK ||
      (s = hd_heat_mg_vcycle(ctx, sv->whole, 0)) != HD_OK)
    return s;
  memset(&t, 0, sizeof t);
  t.g = L->g, t.wg = sv->whole->lev[0].g, t.x = L->x, t.wx = sv->whole->lev[0].x;
  for (e = 0; e < L->g.dim; ++e) t.o[e] = sv->origin[e] >> sv->dist;
  return hd_heat_mg_take_loop(ctx, &t, hd_grid_interior(&L->g));
}

/* The V-cycle from level l: x_l ~ A_l^-1 b_l from x_l = 0 (whatever x_l
 * holds: the first sweep takes it as 0). */
HD_HOST_FN hd_status hd_heat_mg_vcycle(hd_ctx *ctx, const hd_heat_solver *sv, int l) {
  hd_heat_mg_args a = hd_heat_mg_make(sv, l);
  hd_status s;
  if (sv->whole && l == sv->dist) return hd_heat_mg_whole(ctx, sv);
  if (l == sv->nlev - 1) { /* the coarsest: sweeps there and back */
    if ((s = hd_heat_mg_sweeps(ctx, sv, l, 8, 0)) != HD_OK) return s;
    return hd_heat_mg_sweeps(ctx, sv, l, 8, 1);
  }
  if ((s = hd_heat_mg_sweeps(ctx, sv, l, sv->sweeps, 0)) != HD_OK) return s;
  if ((s = hd_heat_mg_residual_loop(ctx, &a, hd_grid_interior(&a.g))) != HD_OK) return s;
  a = hd_heat_mg_make(sv, l + 1);
  if ((s = hd_heat_mg_restrict_loop(ctx, &a, hd_grid_interior(&a.g))) != HD_OK) return s;
  if ((s = hd_heat_mg_vcycle(ctx, sv, l + 1)) != HD_OK) return s;
  if ((s = hd_heat_mg_prolong_loop(ctx, &a, hd_grid_interior(&a.fg))) != HD_OK ||
      (s = hd_heat_mg_exchange(ctx, sv, l, a.fx)) != HD_OK)
    return s;
  return hd_heat_mg_sweeps(ctx, sv, l, sv->sweeps, 1);
}

/* The Chebyshev polynomial of `steps` steps on A z = r from z = 0 (the
 * PPCG preconditioner): z, with d and v (its residual) as scratch. */
HD_HOST_FN hd_status hd_heat_cheby_poly(hd_ctx *ctx, const hd_heat_solver *sv, const hd_heat_sys *sys, int steps) {
  const double theta = 0.5 * (sv->eig[1] + sv->eig[0]), delta = 0.5 * (sv->eig[1] - sv->eig[0]);
  const double sigma = theta / delta;
  const hd_range3 in = hd_grid_interior(&sys->g);
  hd_heat_vec_args a = hd_heat_vec_make(sys);
  double rho = 1.0 / sigma;
  hd_status s;
  int n;
  a.u = sv->z;
  if ((s = hd_heat_zero_loop(ctx, &a, in)) != HD_OK) return s;
  a.z = sv->r, a.y = sv->d, a.u = sv->w, a.alpha = 1.0 / theta; /* d = r / theta, v = r */
  if ((s = hd_heat_scale_loop(ctx, &a, in)) != HD_OK) return s;
  for (n = 0; n < steps; ++n) {
    const double rn = 1.0 / (2.0 * sigma - rho);
    const hd_heat_fvec_args f = hd_heat_fvec_make(sv, sv->d, NULL, sv->z, sv->w);
    if ((s = hd_heat_exchange(ctx, sv, sv->d)) != HD_OK || (s = hd_heat_fcheby_step(ctx, &f, in, sv->rows)) != HD_OK)
      return s; /* its sums unread */
    if (n + 1 == steps) break;
    a.y = sv->d, a.v = sv->w, a.alpha = rn * rho, a.beta = 2.0 * rn / delta;
    if ((s = hd_heat_cheby_dir_loop(ctx, &a, in)) != HD_OK) return s;
    rho = rn;
  }
  return HD_OK;
}

/* z = M r for the preconditioned kinds. */
HD_HOST_FN hd_status hd_heat_precondition(hd_ctx *ctx, hd_heat_solver *sv, const hd_heat_sys *sys) {
  if (sv->kind == HD_HEAT_SOLVER_PPCG) return hd_heat_cheby_poly(ctx, sv, sys, sv->inner);
  sv->lev[0].x = sv->z;
  return hd_heat_mg_vcycle(ctx, sv, 0);
}

/* CG (preconditioned for PPCG and MG: flexible, Polak-Ribiere's beta) on
 * A x = b from x; with alphas/betas (max entries) it records its
 * coefficients (the eigenvalue estimate).  r holds the residual after.
 * On one block on the GPU each direction after the first is made in the
 * pass of its product (hd_heat_fdir_apply_dot); elsewhere, and across
 * shared faces (before its exchange), by itself: the same bits. */
HD_HOST_FN hd_status hd_heat_pcg(hd_ctx *ctx, hd_heat_solver *sv, const hd_heat_sys *sys, hd_real *x, const hd_real *b,
                                 int max, double *alphas, double *betas) {
  const hd_range3 in = hd_grid_interior(&sys->g);
  const int pre = sv->kind == HD_HEAT_SOLVER_PPCG || sv->kind == HD_HEAT_SOLVER_MG;
  hd_heat_vec_args a = hd_heat_vec_make(sys);
  double acc[2], rz, rr, stop;
  hd_status s;
  int it, fuse = 0; /* fuse: the direction waits for the next product */
  a.x = x, a.y = sv->r, a.z = (hd_real *)b;
  if ((s = hd_heat_exchange(ctx, sv, x)) != HD_OK || (s = hd_heat_sums(ctx, sv, hd_heat_residual(ctx, &a, in, sv->rows), acc)) != HD_OK)
    return s;
  rr = acc[0], sv->res0 = sv->res = sqrt(rr), sv->iters = 0;
  stop = fmax(sv->tol * sv->res0, sv->tol_abs);
  if ((sv->converged = sv->res <= stop)) return HD_OK;
  if (pre && (s = hd_heat_precondition(ctx, sv, sys)) != HD_OK) return s;
  a.v = sv->r, a.z = pre ? sv->z : sv->r, a.u = NULL;
  if (pre && (s = hd_heat_sums(ctx, sv, hd_heat_dots(ctx, &a, in, sv->rows), acc)) != HD_OK) return s;
  rz = pre ? acc[0] : rr;
  a.u = sv->p, a.beta = 0.0;
  if ((s = hd_heat_direction_loop(ctx, &a, in)) != HD_OK) return s;
  for (it = 0; it < max; ++it) {
    double pw, beta;
#if HD_HEAT_FUSED_DIRECTION
    if (fuse) { /* p = z + beta p and w = A p */
      hd_real *t = sv->p;
      hd_heat_fvec_args f = hd_heat_fvec_make(sv, (hd_real *)a.z, sv->w, sv->p, sv->pn);
      f.beta = a.beta;
      if ((s = hd_heat_sums(ctx, sv, hd_heat_fdir_apply_dot(ctx, &f, in, sv->rows), acc)) != HD_OK) return s;
      sv->p = sv->pn, sv->pn = t;
    } else
#endif
    {
      const hd_heat_fvec_args f = hd_heat_fvec_make(sv, sv->p, sv->w, NULL, NULL);
      if ((s = hd_heat_exchange(ctx, sv, sv->p)) != HD_OK ||
          (s = hd_heat_sums(ctx, sv, hd_heat_fapply_dot(ctx, &f, in, sv->rows), acc)) != HD_OK)
        return s;
    }
    a.x = sv->p, a.y = sv->w;
    pw = acc[0];
    if (!(pw > 0.0)) return hd_fail(ctx, HD_ERR_NOCONV, "heat: CG broke down (p.Ap = %g): the system is not positive definite", pw);
    a.alpha = rz / pw, a.u = x, a.v = sv->r;
    if ((s = hd_heat_sums(ctx, sv, hd_heat_cg_update(ctx, &a, in, sv->rows), acc)) != HD_OK) return s;
    rr = acc[0], sv->res = sqrt(fabs(rr)), sv->iters = it + 1;
    if (!hd_isfinite(rr)) return hd_fail(ctx, HD_ERR_NONFINITE, "heat: the solver's residual is not finite");
    if ((sv->converged = sv->res <= stop)) break;
    if (pre) {
      hd_real *t = sv->zo;
      sv->zo = sv->z, sv->z = t; /* the last z kept for beta */
      if ((s = hd_heat_precondition(ctx, sv, sys)) != HD_OK) return s;
      a.v = sv->r, a.z = sv->z, a.u = sv->zo;
      if ((s = hd_heat_sums(ctx, sv, hd_heat_dots(ctx, &a, in, sv->rows), acc)) != HD_OK) return s;
      beta = (acc[0] - acc[1]) / rz, rz = acc[0];
    } else {
      beta = rr / rz, rz = rr;
      a.z = sv->r;
    }
    if (alphas) alphas[it] = a.alpha, betas[it] = beta;
    a.u = sv->p, a.beta = beta;
    if (!(fuse = HD_HEAT_FUSED_DIRECTION && !sv->halo) && (s = hd_heat_direction_loop(ctx, &a, in)) != HD_OK) return s;
  }
  return HD_OK;
}

/* The smallest and largest eigenvalues of the symmetric tridiagonal matrix
 * (diagonal d, off-diagonal e[1 .. n-1]) by bisection on Sturm counts. */
HD_HOST_FN int hd_tridiag_below(const double *d, const double *e, int n, double x) {
  double q = 1.0;
  int i, count = 0;
  for (i = 0; i < n; ++i) {
    q = d[i] - x - (i ? e[i] * e[i] / q : 0.0);
    if (q == 0.0) q = -1e-300;
    count += q < 0.0;
  }
  return count;
}
HD_HOST_FN void hd_tridiag_extremes(const double *d, const double *e, int n, double out[2]) {
  double lo = d[0], hi = d[0];
  int i, w;
  for (i = 0; i < n; ++i) {
    const double r = (i ? fabs(e[i]) : 0.0) + (i + 1 < n ? fabs(e[i + 1]) : 0.0);
    lo = fmin(lo, d[i] - r), hi = fmax(hi, d[i] + r);
  }
  for (w = 0; w < 2; ++w) { /* the first eigenvalue (w 0) and the last */
    double a = lo, b = hi;
    for (i = 0; i < 200 && b - a > 1e-14 * fmax(fabs(a), fabs(b)); ++i) {
      const double m = 0.5 * (a + b);
      if (hd_tridiag_below(d, e, n, m) >= (w ? n : 1)) b = m;
      else a = m;
    }
    out[w] = 0.5 * (a + b);
  }
}

/* The eigenvalue bounds from `presteps` CG iterations on A y = noise. */
HD_HOST_FN hd_status hd_heat_estimate(hd_ctx *ctx, hd_heat_solver *sv, const hd_heat_sys *sys) {
  const int n = sv->presteps > 2 ? sv->presteps : 2, kind = sv->kind;
  const double tol = sv->tol, tol_abs = sv->tol_abs;
  double *al = (double *)calloc((size_t)(4 * n + 2), sizeof(double)), *be = al + n, *dg = be + n, *of = dg + n;
  hd_heat_noise_args na;
  hd_status s;
  int k, m;
  if (!al) return hd_fail(ctx, HD_ERR_NOMEM, "heat: out of host memory");
  memset(&na, 0, sizeof na);
  na.g = sys->g, na.u = sv->d;
  for (k = 0; k < 3; ++k) na.origin[k] = sv->origin[k], na.cells[k] = sv->cells[k] ? sv->cells[k] : sys->g.n[k];
  s = hd_heat_noise_loop(ctx, &na, hd_grid_interior(&sys->g));
  if (s == HD_OK) { /* y (in z) from 0 */
    hd_heat_vec_args a = hd_heat_vec_make(sys);
    a.u = sv->z;
    s = hd_heat_zero_loop(ctx, &a, hd_grid_interior(&sys->g));
  }
  sv->kind = HD_HEAT_SOLVER_CG, sv->tol = 0.0, sv->tol_abs = 0.0;
  if (s == HD_OK) s = hd_heat_pcg(ctx, sv, sys, sv->z, sv->d, n, al, be);
  sv->kind = kind, sv->tol = tol, sv->tol_abs = tol_abs;
  m = (int)sv->iters;
  if (s == HD_OK && m < 2) s = hd_fail(ctx, HD_ERR_NOCONV, "heat: the eigenvalue estimate converged in %d iterations", m);
  if (s == HD_OK) {
    for (k = 0; k < m - 1; ++k) { /* the Lanczos matrix of CG's coefficients (the last step has no beta) */
      dg[k] = 1.0 / al[k] + (k ? be[k - 1] / al[k - 1] : 0.0);
      of[k] = k ? sqrt(be[k - 1]) / al[k - 1] : 0.0;
    }
    hd_tridiag_extremes(dg, of, m - 1, sv->eig);
    sv->eig[0] *= 0.95, sv->eig[1] *= 1.05;
    if (!(sv->eig[0] > 0.0))
      s = hd_fail(ctx, HD_ERR_NOCONV, "heat: the eigenvalue estimate is not positive (%g): the system is not positive definite", sv->eig[0]);
  }
  free(al);
  return s;
}

/* The work vectors of the solver's kind on the system (its multigrid
 * levels come at the first solve, its bounds at the first that needs them). */
HD_HOST_FN hd_status hd_heat_solver_open(hd_ctx *ctx, hd_heat_solver *sv, const hd_heat_sys *sys) {
  hd_real **v[7];
  hd_status s = HD_OK;
  int k;
  sv->g = sys->g;
  v[0] = &sv->r, v[1] = &sv->p, v[2] = &sv->w, v[3] = &sv->z, v[4] = &sv->zo, v[5] = &sv->d, v[6] = &sv->pn;
  for (k = 0; k < 6 + HD_HEAT_FUSED_DIRECTION && s == HD_OK; ++k) s = hd_heat_vec_alloc(ctx, &sys->g, v[k]);
  if (s == HD_OK) s = hd_dev_alloc(ctx, (void **)&sv->rows, (size_t)(2 * sys->g.n[1] * sys->g.n[2]) * sizeof(double));
  /* page-locked: each solver iteration waits for these copies */
  if (s == HD_OK) s = hd_pinned_alloc(ctx, (void **)&sv->hrows, (size_t)(2 * sys->g.n[1] * sys->g.n[2]) * sizeof(double));
  if (s != HD_OK) hd_heat_solver_close(ctx, sv);
  return s;
}

/* Chebyshev iteration on A x = b from x. */
HD_HOST_FN hd_status hd_heat_chebyshev(hd_ctx *ctx, hd_heat_solver *sv, const hd_heat_sys *sys, hd_real *x, const hd_real *b) {
  const double theta = 0.5 * (sv->eig[1] + sv->eig[0]), delta = 0.5 * (sv->eig[1] - sv->eig[0]);
  const double sigma = theta / delta;
  const hd_range3 in = hd_grid_interior(&sys->g);
  hd_heat_vec_args a = hd_heat_vec_make(sys);
  double rho = 1.0 / sigma, stop, acc[2];
  hd_status s;
  int it;
  a.x = x, a.y = sv->r, a.z = (hd_real *)b;
  if ((s = hd_heat_exchange(ctx, sv, x)) != HD_OK || (s = hd_heat_sums(ctx, sv, hd_heat_residual(ctx, &a, in, sv->rows), acc)) != HD_OK)
    return s;
  sv->res0 = sv->res = sqrt(acc[0]), sv->iters = 0;
  stop = fmax(sv->tol * sv->res0, sv->tol_abs);
  if ((sv->converged = sv->res <= stop)) return HD_OK;
  a.z = sv->r, a.y = sv->d, a.u = NULL, a.alpha = 1.0 / theta;
  if ((s = hd_heat_scale_loop(ctx, &a, in)) != HD_OK) return s;
  for (it = 0; it < sv->max_iters; ++it) {
    const double rn = 1.0 / (2.0 * sigma - rho);
    const hd_heat_fvec_args f = hd_heat_fvec_make(sv, sv->d, NULL, x, sv->r);
    if ((s = hd_heat_exchange(ctx, sv, sv->d)) != HD_OK ||
        (s = hd_heat_sums(ctx, sv, hd_heat_fcheby_step(ctx, &f, in, sv->rows), acc)) != HD_OK)
      return s;
    sv->res = sqrt(acc[0]), sv->iters = it + 1;
    if (!hd_isfinite(acc[0])) return hd_fail(ctx, HD_ERR_NONFINITE, "heat: the solver's residual is not finite");
    if ((sv->converged = sv->res <= stop)) break;
    a.y = sv->d, a.v = sv->r, a.alpha = rn * rho, a.beta = 2.0 * rn / delta;
    if ((s = hd_heat_cheby_dir_loop(ctx, &a, in)) != HD_OK) return s;
    rho = rn;
  }
  return HD_OK;
}

/* A x = b from x's value (sv->iters, res0, res, converged tell how); the
 * first solve of Chebyshev or PPCG estimates the bounds (after the caller
 * has set halo and rowsum). */
HD_HOST_FN hd_status hd_heat_solve(hd_ctx *ctx, hd_heat_solver *sv, const hd_heat_sys *sys, hd_real *x, const hd_real *b) {
  const int cheby = sv->kind == HD_HEAT_SOLVER_CHEBYSHEV || sv->kind == HD_HEAT_SOLVER_PPCG;
  hd_status s;
  if ((s = hd_heat_mg_build(ctx, sv, sys)) != HD_OK) return s;
  if (cheby && !(sv->eig[1] > 0.0) && (s = hd_heat_estimate(ctx, sv, sys)) != HD_OK) return s;
  if (sv->kind == HD_HEAT_SOLVER_CHEBYSHEV) return hd_heat_chebyshev(ctx, sv, sys, x, b);
  return hd_heat_pcg(ctx, sv, sys, x, b, sv->max_iters, NULL, NULL);
}

#endif /* HD_HEAT_SOLVE_H */
