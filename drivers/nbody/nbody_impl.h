/* SPDX-License-Identifier: BSD-3-Clause */
/* N-body backend table, compiled once per backend and precision by the
 * two-line nbody_<backend>_<f|d> wrappers.  Allocation and launches only:
 * the physics is hd/nbody.h. */
#include "nbody_ops.h"

#include <stdlib.h>
#include <string.h>

#include <hd/memory.h>
#include <hd/nbody.h>
#include <hd/nbody_tree.h>

#include "decomp.h"
#include "state_io.h"
#include "sys.h"

enum { NB_X, NB_Y, NB_Z, NB_VX, NB_VY, NB_VZ, NB_AX, NB_AY, NB_AZ, NB_M, NB_ARRAYS };

typedef struct nbody_state {
  hd_real *a[NB_ARRAYS]; /* device arrays, n each */
  double *phi;           /* potential, allocated on first diagnostics */
  hd_idx n, lo, hi; /* forces of [lo, hi) here, the rest by share */
  int (*share_start)(void **handle, void *const *arr, int count, size_t elem, long n, const long *bounds, int part);
  int (*share_wait)(void *handle);
  int periodic, integrator, tuned, splits;
  hd_real dt, eps2;
  char *mirror; /* CUDA ranks: page-locked copies of the shared arrays */
  /* the tree method: built and walked on the backend each force evaluation
   * (tree.n = 0: direct sums); with timing, seconds by phase */
  hd_nbody_tree tree;
  hd_real *sacc; /* on ranks: the tree's accelerations by sorted position, 3 n */
  double *sphi;  /* and its potentials, n (allocated on first diagnostics) */
  /* on ranks: each rank's block of the sorted order it walks, [walk[r],
   * walk[r + 1]), moved after every walk to even the ranks' measured walk
   * seconds (nb_balance); this rank's seconds of the last walk */
  long *walk;
  int rank, size;
  double walked;
  hd_ctx *ctx;
  int timing;
  double phase[NBODY_PHASES], mark;
} nbody_state;

/* Blocks of arrays shared between ranks travel through MPI, which reads
 * host memory: on the CPU backends the arrays themselves; on CUDA
 * page-locked mirrors (room for three hd_real arrays and one double
 * array), filled with this rank's part before a gather and copied back
 * whole after it. */
#if defined(HD_BACKEND_CUDA)
#define NB_MIRRORED 1
#else
#define NB_MIRRORED 0
#endif

static hd_status nb_mirrors(hd_ctx *ctx, nbody_state *st, void *const *dev, int count, size_t elem, void **host) {
  int k;
  if (!NB_MIRRORED) {
    for (k = 0; k < count; ++k) host[k] = dev[k];
    return HD_OK;
  }
  if (!st->mirror) {
    hd_status s = hd_pinned_alloc(ctx, (void **)&st->mirror, (size_t)st->n * (3 * sizeof(hd_real) + sizeof(double)));
    if (s != HD_OK) return s;
  }
  for (k = 0; k < count; ++k) host[k] = st->mirror + (size_t)k * (size_t)st->n * elem;
  return HD_OK;
}

/* This rank's bodies [lo, hi) of each array into its mirror (CUDA). */
static hd_status nb_mirror_out(hd_ctx *ctx, const nbody_state *st, void *const *dev, void *const *host, int count,
                               size_t elem, long lo, long hi) {
  hd_status s = HD_OK;
  int k;
  (void)st;
  if (!NB_MIRRORED) return HD_OK;
  for (k = 0; k < count && s == HD_OK; ++k)
    s = hd_dev_download(ctx, (char *)host[k] + (size_t)lo * elem, (const char *)dev[k] + (size_t)lo * elem,
                        (size_t)(hi - lo) * elem);
  return s;
}

static hd_status nb_mirror_in(hd_ctx *ctx, const nbody_state *st, void *const *dev, void *const *host, int count,
                              size_t elem) {
  hd_status s = HD_OK;
  int k;
  if (!NB_MIRRORED) return HD_OK;
  for (k = 0; k < count && s == HD_OK; ++k) s = hd_dev_upload(ctx, dev[k], host[k], (size_t)st->n * elem);
  return s;
}

/* After a partial computation: the other ranks' blocks of each array
 * (bounds: as hd_par_gather_start's, NULL: even blocks, this rank's [lo, hi)). */
static hd_status nb_share(hd_ctx *ctx, nbody_state *st, void *const *arr, int count, size_t elem, const long *bounds) {
  void *h, *host[4];
  hd_status s;
  if (!st->share_start) return HD_OK;
  if ((s = nb_mirrors(ctx, st, arr, count, elem, host)) != HD_OK ||
      (s = nb_mirror_out(ctx, st, arr, host, count, elem, bounds ? bounds[st->rank] : (long)st->lo,
                         bounds ? bounds[st->rank + 1] : (long)st->hi)) != HD_OK)
    return s;
  if (st->share_start(&h, host, count, elem, (long)st->n, bounds, -1) || st->share_wait(h))
    return hd_fail(ctx, HD_ERR_IO, "nbody: exchanging body blocks failed");
  return nb_mirror_in(ctx, st, arr, host, count, elem);
}

static void nb_destroy(hd_ctx *ctx, void *state) {
  nbody_state *st = (nbody_state *)state;
  int k;
  if (!st) return;
  for (k = 0; k < NB_ARRAYS; ++k) hd_dev_free(ctx, st->a[k]);
  hd_dev_free(ctx, st->phi);
  hd_dev_free(ctx, st->sacc), hd_dev_free(ctx, st->sphi);
  free(st->walk);
  hd_pinned_free(ctx, st->mirror);
  hd_nbody_tree_free(ctx, &st->tree);
  free(st);
}

/* Accelerations of bodies [lo, hi). */
static hd_status nb_accel_range(hd_ctx *ctx, const nbody_state *st, const hd_nbody_args *a, hd_idx lo, hd_idx hi) {
  const int saved = ctx->block[0];
  hd_status s;
  if (!st->tuned) return hd_nbody_accel_generic(ctx, a, lo, hi);
  ctx->block[0] = st->splits; /* the tuned CUDA kernel reads its split count there */
  s = hd_nbody_accel_tuned_range(ctx, a, lo, hi);
  ctx->block[0] = saved;
  return s;
}

/* Timing: the seconds since the last mark go to this phase. */
static void nb_mark(void *user, int phase) {
  nbody_state *st = (nbody_state *)user;
  double now;
  hd_ctx_sync(st->ctx);
  now = hd_wtime();
  st->phase[phase] += now - st->mark;
  st->mark = now;
}

/* This rank's block of three arrays acc computed by part(arg) in two
 * halves, the first travelling to the other ranks while the second is
 * computed, then every rank's blocks gathered (the direct sums' and the
 * tree's forces); the blocks: bounds (NULL: even, this rank's [lo, hi)).
 * The seconds of this rank's two parts go to st->walked. */
typedef hd_status (*nb_part_fn)(hd_ctx *ctx, const nbody_state *st, void *arg, hd_idx lo, hd_idx hi);

static hd_status nb_gather_halves(hd_ctx *ctx, nbody_state *st, void *const *acc, nb_part_fn part_fn, void *arg,
                                  const long *bounds) {
  const long mlo = bounds ? bounds[st->rank] : (long)st->lo, mhi = bounds ? bounds[st->rank + 1] : (long)st->hi;
  void *host[3], *h[2] = {NULL, NULL};
  hd_status s;
  int part, bad = 0;
  st->walked = 0.0;
  if ((s = nb_mirrors(ctx, st, acc, 3, sizeof(hd_real), host)) != HD_OK) return s;
  for (part = 0; part < 2 && s == HD_OK; ++part) {
    const double t0 = hd_wtime();
    long lo, hi;
    hd_par_half(mlo, mhi, part, &lo, &hi);
    s = part_fn(ctx, st, arg, lo, hi);
    if (s == HD_OK) s = nb_mirror_out(ctx, st, acc, host, 3, sizeof(hd_real), lo, hi); /* waits for the part (CUDA) */
    st->walked += hd_wtime() - t0;
    if (s == HD_OK && st->share_start(&h[part], host, 3, sizeof(hd_real), (long)st->n, bounds, part)) bad = 1;
  }
  for (part = 0; part < 2; ++part)
    if (h[part] && st->share_wait(h[part])) bad = 1;
  if (s == HD_OK && bad) s = hd_fail(ctx, HD_ERR_IO, "nbody: exchanging body blocks failed");
  return s == HD_OK ? nb_mirror_in(ctx, st, acc, host, 3, sizeof(hd_real)) : s;
}

static hd_status nb_walk_part(hd_ctx *ctx, const nbody_state *st, void *arg, hd_idx lo, hd_idx hi) {
  (void)st;
  return hd_nbody_walk(ctx, (const hd_nbody_walk_args *)arg, lo, hi);
}

/* After a walk on ranks: every rank's seconds gathered, and the blocks of
 * the sorted order moved to even them (hd_par_rebalance, half the way a
 * step: the measures are noisy).  A body's walk is the same on any rank,
 * so the blocks change no result (HD_NBODY_BALANCE=0: even blocks, to
 * measure the difference). */
static hd_status nb_balance(hd_ctx *ctx, nbody_state *st) {
  const char *off = getenv("HD_NBODY_BALANCE");
  double *cost;
  long *next;
  void *h, *arr;
  hd_status s = HD_OK;
  if (off && !strcmp(off, "0")) return HD_OK;
  cost = (double *)calloc((size_t)st->size, sizeof(double));
  next = (long *)malloc((size_t)(st->size + 1) * sizeof(long));
  if (!cost || !next) s = hd_fail(ctx, HD_ERR_NOMEM, "nbody: out of host memory");
  else {
    cost[st->rank] = st->walked, arr = cost;
    if (st->share_start(&h, &arr, 1, sizeof(double), (long)st->size, NULL, -1) || st->share_wait(h))
      s = hd_fail(ctx, HD_ERR_IO, "nbody: exchanging the walks' seconds failed");
    else {
      hd_par_rebalance(st->walk, cost, st->size, 0.5, next);
      memcpy(st->walk, next, (size_t)(st->size + 1) * sizeof(long));
    }
  }
  free(cost), free(next);
  return s;
}

/* The tree's forces: built from the positions and walked, on the backend.
 * On ranks every rank builds the same tree of all bodies and walks its
 * block of the sorted order (bodies near one another; the blocks follow
 * the ranks' measured walk seconds, nb_balance), the accelerations by
 * sorted position; the blocks are gathered as the direct sums' are (the first half travelling while the second is walked), then
 * every rank puts them back in body order: a body's walk is the one rank's,
 * bit for bit. */
static hd_status nb_tree_forces(hd_ctx *ctx, nbody_state *st) {
  hd_nbody_tree *t = &st->tree;
  const hd_idx n = st->n;
  hd_nbody_walk_args w;
  hd_nbody_unsort_args u;
  void *acc[3];
  int k;
  hd_status s;
  if (st->timing) st->ctx = ctx, nb_mark(st, NBODY_PHASE_UPDATE); /* what came since the last walk */
  if ((s = hd_nbody_tree_build(ctx, t)) != HD_OK) return s;
  w.cell = t->cell, w.ncell = t->ncell;
  w.x = t->sorted, w.y = t->sorted + n, w.z = t->sorted + 2 * n, w.m = t->sorted + 3 * n;
  w.order = t->order;
  w.ax = st->a[NB_AX], w.ay = st->a[NB_AY], w.az = st->a[NB_AZ];
  w.eps2 = st->eps2;
  if (!st->share_start) {
    s = hd_nbody_walk(ctx, &w, 0, n);
    if (s == HD_OK && st->timing) nb_mark(st, NBODY_PHASE_WALK);
    return s;
  }
  w.order = NULL, w.ax = st->sacc, w.ay = st->sacc + n, w.az = st->sacc + 2 * n;
  for (k = 0; k < 3; ++k) acc[k] = st->sacc + k * n;
  s = nb_gather_halves(ctx, st, acc, nb_walk_part, &w, st->walk);
  if (s == HD_OK) s = nb_balance(ctx, st);
  u.order = t->order, u.dfrom = NULL, u.dto = NULL;
  for (k = 0; k < 3; ++k) u.from[k] = st->sacc + k * n, u.to[k] = st->a[NB_AX + k];
  return s == HD_OK ? hd_nbody_unsort(ctx, &u, 0, n) : s;
}

/* The tree's potentials (of the last force evaluation's tree, at these
 * positions); on ranks split and gathered as its forces are. */
static hd_status nb_tree_potential(hd_ctx *ctx, nbody_state *st) {
  const hd_idx n = st->n;
  const hd_nbody_tree *t = &st->tree;
  hd_nbody_walk_pot_args w;
  hd_nbody_unsort_args u;
  hd_status s = HD_OK;
  void *phi;
  w.cell = t->cell, w.ncell = t->ncell, w.order = t->order;
  w.phi = st->phi, w.eps2 = (double)st->eps2;
  w.x = t->sorted, w.y = t->sorted + n, w.z = t->sorted + 2 * n, w.m = t->sorted + 3 * n;
  if (!st->share_start) return hd_nbody_walk_potential(ctx, &w, 0, n);
  if (!st->sphi) s = hd_dev_alloc(ctx, (void **)&st->sphi, (size_t)n * sizeof(double));
  w.order = NULL, w.phi = st->sphi, phi = st->sphi;
  if (s == HD_OK) s = hd_nbody_walk_potential(ctx, &w, st->walk[st->rank], st->walk[st->rank + 1]);
  if (s == HD_OK) s = nb_share(ctx, st, &phi, 1, sizeof(double), st->walk);
  u.order = t->order, u.from[0] = NULL, u.dfrom = st->sphi, u.dto = st->phi;
  return s == HD_OK ? hd_nbody_unsort(ctx, &u, 0, n) : s;
}

static void nb_timing(void *state, int on, double *seconds) {
  nbody_state *st = (nbody_state *)state;
  int k;
  if (seconds)
    for (k = 0; k < NBODY_PHASES; ++k) seconds[k] = st->phase[k];
  for (k = 0; k < NBODY_PHASES; ++k) st->phase[k] = 0;
  st->timing = on && st->tree.n;
  st->tree.mark = st->timing ? nb_mark : NULL, st->tree.user = st;
  st->mark = hd_wtime();
}

static hd_status nb_tree_create(hd_ctx *ctx, nbody_state *st, const nbody_problem *p) {
  hd_nbody_tree *t = &st->tree;
  t->n = p->n, t->theta = p->theta, t->leaf = p->leaf > 0 ? p->leaf : 16;
  t->x = st->a[NB_X], t->y = st->a[NB_Y], t->z = st->a[NB_Z], t->m = st->a[NB_M];
  return st->share_start ? hd_dev_alloc(ctx, (void **)&st->sacc, (size_t)(3 * p->n) * sizeof(hd_real)) : HD_OK;
}

static hd_status nb_direct_part(hd_ctx *ctx, const nbody_state *st, void *arg, hd_idx lo, hd_idx hi) {
  return nb_accel_range(ctx, st, (const hd_nbody_args *)arg, lo, hi);
}

static hd_status nb_accelerations(hd_ctx *ctx, void *state) {
  nbody_state *st = (nbody_state *)state;
  hd_nbody_args a;
  void *acc[3];
  if (st->tree.n) return nb_tree_forces(ctx, st);
  a.x = st->a[NB_X], a.y = st->a[NB_Y], a.z = st->a[NB_Z], a.m = st->a[NB_M];
  a.ax = st->a[NB_AX], a.ay = st->a[NB_AY], a.az = st->a[NB_AZ];
  a.n = st->n;
  a.eps2 = st->eps2;
  a.periodic = st->periodic;
  if (!st->share_start) return nb_accel_range(ctx, st, &a, st->lo, st->hi);
  /* a body's acceleration does not depend on the range it is computed in */
  acc[0] = a.ax, acc[1] = a.ay, acc[2] = a.az;
  return nb_gather_halves(ctx, st, acc, nb_direct_part, &a, NULL);
}

static hd_status nb_create(hd_ctx *ctx, const nbody_problem *p, void **out) {
  nbody_state *st = (nbody_state *)calloc(1, sizeof(nbody_state));
  const double *src[NB_ARRAYS];
  hd_real *host = NULL;
  size_t bytes;
  hd_status s = HD_OK;
  hd_idx i;
  int k;
  *out = NULL;
  if (!st) return hd_fail(ctx, HD_ERR_NOMEM, "nbody: out of host memory");
  st->n = p->n;
  st->share_start = p->share_start, st->share_wait = p->share_wait;
  st->lo = p->share_start ? p->lo : 0;
  st->hi = p->share_start ? p->hi : p->n;
  st->rank = p->rank, st->size = p->size;
  if (p->share_start && !(st->walk = (long *)malloc((size_t)(p->size + 1) * sizeof(long))))
    s = hd_fail(ctx, HD_ERR_NOMEM, "nbody: out of host memory");
  for (k = 0; st->walk && k < p->size; ++k) hd_par_block(p->n, k, p->size, &st->walk[k], &st->walk[k + 1]);
  st->periodic = p->periodic;
  st->integrator = p->integrator;
  st->tuned = p->variant != NBODY_VARIANT_GENERIC;
  st->splits = p->splits;
  st->dt = (hd_real)p->dt;
  st->eps2 = (hd_real)(p->eps * p->eps);
  src[NB_X] = p->x, src[NB_Y] = p->y, src[NB_Z] = p->z, src[NB_VX] = p->vx;
  src[NB_VY] = p->vy, src[NB_VZ] = p->vz, src[NB_M] = p->m;
  src[NB_AX] = src[NB_AY] = src[NB_AZ] = NULL;
  bytes = (size_t)p->n * sizeof(hd_real);
  host = (hd_real *)hd_host_alloc(bytes);
  if (!host) s = hd_fail(ctx, HD_ERR_NOMEM, "nbody: out of host memory");
  for (k = 0; k < NB_ARRAYS && s == HD_OK; ++k) {
    s = hd_dev_alloc(ctx, (void **)&st->a[k], bytes);
    if (s == HD_OK && src[k]) {
      for (i = 0; i < p->n; ++i) host[i] = (hd_real)src[k][i];
      s = hd_dev_upload(ctx, st->a[k], host, bytes);
    }
  }
  hd_host_free(host);
  if (s == HD_OK && p->method == NBODY_TREE) {
    if (p->periodic) s = hd_fail(ctx, HD_ERR_ARG, "nbody: the tree takes 3-D free space");
    else s = nb_tree_create(ctx, st, p);
  }
  if (s == HD_OK) s = nb_accelerations(ctx, st);
  if (s == HD_OK) s = hd_ctx_sync(ctx);
  if (s != HD_OK) {
    nb_destroy(ctx, st);
    return s;
  }
  *out = st;
  return HD_OK;
}

static hd_status nb_advance(hd_ctx *ctx, void *state, long steps) {
  nbody_state *st = (nbody_state *)state;
  hd_nbody_move_args m;
  hd_status s = HD_OK;
  const int leapfrog = st->integrator == NBODY_LEAPFROG;
  long n;
  m.x = st->a[NB_X], m.y = st->a[NB_Y], m.z = st->a[NB_Z];
  m.vx = st->a[NB_VX], m.vy = st->a[NB_VY], m.vz = st->a[NB_VZ];
  m.ax = st->a[NB_AX], m.ay = st->a[NB_AY], m.az = st->a[NB_AZ];
  m.periodic = st->periodic;
  m.drift = st->dt;
  for (n = 0; n < steps && s == HD_OK; ++n) {
    /* leapfrog: kick dt/2, drift dt, force, kick dt/2; Euler: kick dt,
     * drift dt, force */
    m.kick = leapfrog ? HD_R(0.5) * st->dt : st->dt;
    s = hd_nbody_kick_drift(ctx, &m, 0, st->n);
    if (s == HD_OK) s = nb_accelerations(ctx, st);
    if (s == HD_OK && leapfrog) s = hd_nbody_kick(ctx, &m, 0, st->n);
  }
  return s;
}

static hd_status nb_diagnostics(hd_ctx *ctx, void *state, hd_nbody_diag *out) {
  nbody_state *st = (nbody_state *)state;
  hd_nbody_pot_args p;
  hd_nbody_diag_args d;
  hd_status s = HD_OK;
  if (!st->phi) s = hd_dev_alloc(ctx, (void **)&st->phi, (size_t)st->n * sizeof(double));
  if (s != HD_OK) return s;
  p.x = st->a[NB_X], p.y = st->a[NB_Y], p.z = st->a[NB_Z], p.m = st->a[NB_M];
  p.phi = st->phi;
  p.n = st->n;
  p.eps2 = (double)st->eps2;
  p.periodic = st->periodic;
  if (st->tree.n) {
    s = nb_tree_potential(ctx, st);
  } else {
    void *phi = st->phi;
    s = hd_nbody_potential(ctx, &p, st->lo, st->hi);
    if (s == HD_OK) s = nb_share(ctx, st, &phi, 1, sizeof(double), NULL);
  }
  if (s != HD_OK) return s;
  d.x = st->a[NB_X], d.y = st->a[NB_Y], d.z = st->a[NB_Z];
  d.vx = st->a[NB_VX], d.vy = st->a[NB_VY], d.vz = st->a[NB_VZ], d.m = st->a[NB_M];
  d.phi = st->phi;
  return hd_nbody_diag_reduce(ctx, &d, 0, st->n, out);
}

static hd_status nb_download(hd_ctx *ctx, void *state, double *out) {
  static const int order[9] = {NB_X, NB_Y, NB_Z, NB_VX, NB_VY, NB_VZ, NB_AX, NB_AY, NB_AZ};
  nbody_state *st = (nbody_state *)state;
  const size_t bytes = (size_t)st->n * sizeof(hd_real);
  hd_real *host = (hd_real *)hd_host_alloc(bytes);
  hd_status s = HD_OK;
  hd_idx i;
  int k;
  if (!host) return hd_fail(ctx, HD_ERR_NOMEM, "nbody: out of host memory");
  for (k = 0; k < 9 && s == HD_OK; ++k) {
    s = hd_dev_download(ctx, host, st->a[order[k]], bytes);
    for (i = 0; s == HD_OK && i < st->n; ++i) out[(hd_idx)k * st->n + i] = (double)host[i];
  }
  hd_host_free(host);
  return s;
}

/* Positions, velocities, accelerations (the leapfrog's kick uses the last
 * step's) and masses are the whole state. */
static int nb_state_count(void *state) {
  (void)state;
  return NB_ARRAYS;
}

static hd_status nb_state_io(hd_ctx *ctx, void *state, int k, char name[16], uint64_t *bytes, void *host, int save) {
  static const char *const names[NB_ARRAYS] = {"x", "y", "z", "vx", "vy", "vz", "ax", "ay", "az", "m"};
  nbody_state *st = (nbody_state *)state;
  hd_state_entry e;
  memset(&e, 0, sizeof e);
  e.name = names[k], e.dev = st->a[k], e.bytes = (size_t)st->n * sizeof(hd_real), e.host = 0;
  return hd_state_entry_io(ctx, NULL, &e, name, bytes, host, save);
}

const nbody_ops HD_OPS_NAME(nbody_ops) = {HD_BACKEND_NAME, HD_REAL_NAME, sizeof(hd_real), 1,
                                          nb_create, nb_advance, nb_accelerations,
                                          nb_diagnostics, nb_download, nb_destroy, nb_state_count, nb_state_io,
                                          nb_timing};
