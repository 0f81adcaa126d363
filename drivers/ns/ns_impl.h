/* SPDX-License-Identifier: BSD-3-Clause */
/* Compressible-flow backend table, compiled once per backend and precision
 * by the two-line ns_<backend>_<f|d> wrappers.  Allocation and the stage
 * sequence; the physics is hd/ns.h and hd/nscbc.h. */
#include "ns_ops.h"

#include <stdlib.h>
#include <string.h>

#include <hd/memory.h>
#include <hd/ns.h>
#include <hd/nscbc.h>

#include "state_io.h"

typedef struct ns_state {
  hd_ns_args a;
  hd_real *buf[4][4]; /* q0, acc, stage A, stage B; four variables each */
  hd_ns_prim *prims;  /* CPU: every node's primitives, rebuilt each stage */
  size_t bytes;
  double *rows;       /* row sums, NS_ROW a row */
  int (*halo)(void *user, void *const q[4]);
  void *halo_user;
#if defined(HD_BACKEND_CUDA)
  cudaStream_t side;  /* ghosts and face nodes, beside the inner nodes */
  cudaEvent_t fork, join;
#endif
} ns_state;

static void ns_destroy(hd_ctx *ctx, void *state) {
  ns_state *st = (ns_state *)state;
  int b, c;
  if (!st) return;
  for (b = 0; b < 4; ++b)
    for (c = 0; c < 4; ++c) hd_dev_free(ctx, st->buf[b][c]);
  hd_dev_free(ctx, st->rows);
  hd_dev_free(ctx, st->prims);
#if defined(HD_BACKEND_CUDA)
  if (st->fork) cudaEventDestroy(st->fork);
  if (st->join) cudaEventDestroy(st->join);
  if (st->side) cudaStreamDestroy(st->side);
#endif
  free(st);
}

static hd_status ns_create(hd_ctx *ctx, const ns_problem *p, void **out) {
  ns_state *st = (ns_state *)calloc(1, sizeof *st);
  hd_ns_args *a;
  hd_ns_init_args ia;
  hd_status s = HD_OK;
  int b, c, f;
  *out = NULL;
  if (!st) return hd_fail(ctx, HD_ERR_NOMEM, "ns: out of host memory");
  a = &st->a;
  if (!hd_grid_init(&a->g, 2, ns_block_nodes(p, 0), ns_block_nodes(p, 1), 1, 1) || a->g.n[0] < 3 || a->g.n[1] < 3) {
    free(st);
    return hd_fail(ctx, HD_ERR_ARG, "ns: grid %ld x %ld is too small or too large", ns_block_nodes(p, 0),
                   ns_block_nodes(p, 1));
  }
  st->halo = p->halo, st->halo_user = p->halo_user;
  st->bytes = (size_t)a->g.total * sizeof(hd_real);
  for (b = 0; b < 4 && s == HD_OK; ++b)
    for (c = 0; c < 4 && s == HD_OK; ++c) {
      s = hd_dev_alloc(ctx, (void **)&st->buf[b][c], st->bytes);
      if (s == HD_OK) s = hd_dev_zero(ctx, st->buf[b][c], st->bytes);
    }
  for (f = 0; f < 4; ++f) {
    double k[3];
    ns_nscbc_face(p->sigma, p->sigma_side, p->beta, p->beta_side, p->sigma_in, p->mach,
                  fabs(f < 2 ? p->ic.u_inf : p->ic.v_inf), fabs(f < 2 ? p->ic.v_inf : p->ic.u_inf), p->length[f / 2], k);
    a->bc[f] = p->bc[f];
    a->shared[f] = p->shared[f];
    a->relax[f] = (hd_real)k[0], a->beta[f] = (hd_real)k[1], a->relax_in[f] = (hd_real)k[2];
  }

  a->generic = p->generic;
#if !defined(HD_BACKEND_CUDA) /* CUDA keeps the primitives in shared memory (hd_ns_march) */
  if (s == HD_OK && !p->generic) s = hd_dev_alloc(ctx, (void **)&st->prims, (size_t)a->g.total * sizeof(hd_ns_prim));
  a->prims = st->prims;
#endif
  a->viscous = p->viscous;
  a->dt = (hd_real)p->dt;
  a->rhx = (hd_real)(p->n[0] / p->length[0]), a->rhy = (hd_real)(p->n[1] / p->length[1]);
  a->gamma = (hd_real)p->gamma, a->mu_ref = (hd_real)p->mu_ref, a->suth = (hd_real)p->suth;
  a->kfac = (hd_real)(1.0 / ((p->gamma - 1.0) * p->pr));
  a->p_inf = (hd_real)(1.0 / p->gamma);
  a->u_inf = (hd_real)p->ic.u_inf, a->v_inf = (hd_real)p->ic.v_inf;
  for (c = 0; c < 4; ++c) a->q0[c] = st->buf[0][c], a->acc[c] = st->buf[1][c];
  if (s == HD_OK) {
    for (c = 0; c < 4; ++c) ia.q[c] = st->buf[0][c];
    ia.g = a->g, ia.ic = p->ic;
    ia.x0 = p->origin[0], ia.y0 = p->origin[1];
    ia.hx = p->length[0] / p->n[0], ia.hy = p->length[1] / p->n[1];
    ia.i0 = p->block_off[0], ia.j0 = p->block_off[1];
    s = hd_ns_init_loop(ctx, &ia, hd_range3_make(1, a->g.n[0] + 1, 1, a->g.n[1] + 1, 0, 1));
  }
  if (s == HD_OK) s = hd_dev_alloc(ctx, (void **)&st->rows, (size_t)(NS_ROW * a->g.n[1]) * sizeof(double));
  if (s == HD_OK) s = hd_ctx_sync(ctx);
  if (s != HD_OK) {
    ns_destroy(ctx, st);
    return s;
  }
  *out = st;
  return HD_OK;
}

#if defined(HD_BACKEND_CUDA)
static hd_status ns_side_open(hd_ctx *ctx, ns_state *st) {
  int least, greatest;
  if (st->join) return HD_OK;
  HD_CUDA_TRY(ctx, cudaDeviceGetStreamPriorityRange(&least, &greatest));
  HD_CUDA_TRY(ctx, cudaStreamCreateWithPriority(&st->side, cudaStreamNonBlocking, greatest));
  HD_CUDA_TRY(ctx, cudaEventCreateWithFlags(&st->fork, cudaEventDisableTiming));
  HD_CUDA_TRY(ctx, cudaEventCreateWithFlags(&st->join, cudaEventDisableTiming));
  return HD_OK;
}

/* A stage with the boundary work (the face nodes, computing and writing
 * the ghosts themselves) on a high-priority stream beside the inner
 * nodes: they read none of the ghosts unless an axis is periodic (then the
 * ghosts come first), and the two write disjoint nodes; the zero-gradient
 * copies follow both. */
static int ns_periodic(const hd_ns_args *a) { return a->bc[HD_NS_XLO] == HD_NS_PERIODIC || a->bc[HD_NS_YLO] == HD_NS_PERIODIC; }

static hd_status ns_stage_overlapped(hd_ctx *ctx, ns_state *st) {
  const hd_ns_args *a = &st->a;
  const int periodic = ns_periodic(a);
  hd_ctx side;
  hd_status s = ns_side_open(ctx, st);
  if (s == HD_OK && periodic) s = hd_ns_ghosts(ctx, a);
  if (s != HD_OK) return s;
  HD_CUDA_TRY(ctx, cudaEventRecord(st->fork, hd_stream(ctx)));
  HD_CUDA_TRY(ctx, cudaStreamWaitEvent(st->side, st->fork, 0));
  side = *ctx, side.stream = (void *)st->side;
  s = hd_ns_face_tiles_loop(&side, a, !periodic);
  if (s != HD_OK) return hd_fail(ctx, s, "%s", side.msg);
  HD_CUDA_TRY(ctx, cudaEventRecord(st->join, st->side));
  s = hd_ns_interior(ctx, a);
  if (s != HD_OK) return s;
  HD_CUDA_TRY(ctx, cudaStreamWaitEvent(hd_stream(ctx), st->join, 0));
  return hd_ns_zero_gradient(ctx, a);
}

/* The same for a block of a shared grid without periodic axes: the inner
 * nodes but the rows next to the shared faces (which read their ghosts)
 * queued first, then on the side stream the halo exchange of the stage's
 * input (its flags and copies queued there: ctx's stream while it runs),
 * those rows and the face nodes, so that the exchange runs under the inner
 * nodes, which write none of what it reads or fills. */
static hd_status ns_stage_halo_overlapped(hd_ctx *ctx, ns_state *st, hd_real *const *in) {
  const hd_ns_args *a = &st->a;
  const hd_range3 inner = hd_ns_inner(a);
  void *const stream = ctx->stream;
  hd_range3 core = inner, row = inner;
  hd_ctx side;
  int bad, b;
  hd_status s = ns_side_open(ctx, st);
  if (s != HD_OK) return s;
  core.lo[1] += a->shared[HD_NS_YLO] != 0, core.hi[1] -= a->shared[HD_NS_YHI] != 0;
  HD_CUDA_TRY(ctx, cudaEventRecord(st->fork, hd_stream(ctx)));
  HD_CUDA_TRY(ctx, cudaStreamWaitEvent(st->side, st->fork, 0));
  if ((s = hd_ns_interior_in(ctx, a, core)) != HD_OK) return s;
  ctx->stream = (void *)st->side;
  bad = st->halo(st->halo_user, (void *const *)in);
  ctx->stream = stream;
  if (bad) return hd_fail(ctx, HD_ERR_IO, "ns: the halo exchange failed");
  side = *ctx, side.stream = (void *)st->side;
  for (b = 0; b < 2 && s == HD_OK; ++b) /* the rows next to the shared faces */
    if (a->shared[b ? HD_NS_YHI : HD_NS_YLO]) {
      row.lo[1] = b ? inner.hi[1] - 1 : inner.lo[1], row.hi[1] = row.lo[1] + 1;
      s = hd_ns_interior_in(&side, a, row);
    }
  if (s == HD_OK) s = hd_ns_face_tiles_loop(&side, a, 1);
  if (s != HD_OK) return hd_fail(ctx, s, "%s", side.msg);
  HD_CUDA_TRY(ctx, cudaEventRecord(st->join, st->side));
  HD_CUDA_TRY(ctx, cudaStreamWaitEvent(hd_stream(ctx), st->join, 0));
  return hd_ns_zero_gradient(ctx, a);
}
#endif

static void ns_point(hd_ns_args *a, hd_real *const *in, hd_real *const *out) {
  int c;
  for (c = 0; c < 4; ++c) a->q[c] = in[c], a->out[c] = out[c];
}

/* inner_only (benchmarks): the inner nodes' kernels alone, no halo,
 * ghosts, faces or copies, so that the boundary's share can be measured. */
static hd_status ns_steps(hd_ctx *ctx, ns_state *st, long steps, int inner_only) {
  hd_real *const *q0 = st->buf[0], *const *sa = st->buf[2], *const *sb = st->buf[3];
  hd_status s = HD_OK;
  long n;
  for (n = 0; n < steps && s == HD_OK; ++n) {
    hd_real *const *in[4] = {q0, sa, sb, sa}, *const *out[4] = {sa, sb, sa, q0};
    int k;
    for (k = 0; k < 4 && s == HD_OK; ++k) {
      st->a.stage = k;
      ns_point(&st->a, in[k], out[k]);
      if (inner_only) {
        s = hd_ns_interior(ctx, &st->a);
        continue;
      }
#if defined(HD_BACKEND_CUDA)
      if (st->halo && !st->a.generic && !ns_periodic(&st->a) && st->a.g.n[1] > 4) {
        s = ns_stage_halo_overlapped(ctx, st, in[k]);
        continue;
      }
#endif
      if (st->halo && st->halo(st->halo_user, (void *const *)in[k]))
        s = hd_fail(ctx, HD_ERR_IO, "ns: the halo exchange failed");
#if defined(HD_BACKEND_CUDA)
      if (s == HD_OK && !st->a.generic) s = ns_stage_overlapped(ctx, st);
      else
#endif
      if (s == HD_OK) s = hd_ns_stage(ctx, &st->a);
    }
  }
  return s;
}

static hd_status ns_advance(hd_ctx *ctx, void *state, long steps) { return ns_steps(ctx, (ns_state *)state, steps, 0); }

static hd_status ns_advance_inner(hd_ctx *ctx, void *state, long steps) {
  return ns_steps(ctx, (ns_state *)state, steps, 1);
}

static void ns_on_state(ns_state *st) {
  int c;
  for (c = 0; c < 4; ++c) st->a.q[c] = st->buf[0][c];
}

static hd_status ns_sums(hd_ctx *ctx, void *state, hd_ns_sums *out) {
  ns_state *st = (ns_state *)state;
  ns_on_state(st);
  return hd_ns_sums_reduce(ctx, &st->a, hd_range3_make(1, st->a.g.n[0] + 1, 1, st->a.g.n[1] + 1, 0, 1), out);
}

/* Per-row monitor sums: each row folded in x order (hd_ns_sums_pt), so
 * that the driver can merge rows in a fixed order whatever the split. */
typedef struct ns_rows_args {
  hd_ns_args f;
  double *rows;
} ns_rows_args;

HD_FN void ns_row_pt(const ns_rows_args *a, hd_idx j, hd_idx unused) {
  hd_ns_sums sum;
  double *r = a->rows + NS_ROW * (j - 1);
  hd_idx i;
  (void)unused;
  hd_ns_sums_init(&sum);
  for (i = 1; i <= a->f.g.n[0]; ++i) hd_ns_sums_pt(&a->f, i, j, 0, &sum);
  r[0] = sum.mass, r[1] = sum.energy, r[2] = sum.dpmax, r[3] = (double)sum.nonfinite;
  r[4] = sum.nonfinite ? (double)(sum.first_bad % a->f.g.stride[1] - 1) : -1.0;
}
HD_DEFINE_FOR_2D(ns_rows_loop, ns_row_pt, ns_rows_args)

static hd_status ns_row_sums(hd_ctx *ctx, void *state, double *rows) {
  ns_state *st = (ns_state *)state;
  ns_rows_args ra;
  hd_status s;
  ns_on_state(st);
  ra.f = st->a;
  ra.rows = st->rows;
  s = ns_rows_loop(ctx, &ra, hd_range3_make(1, st->a.g.n[1] + 1, 0, 1, 0, 1));
  if (s == HD_OK) s = hd_dev_download(ctx, rows, st->rows, (size_t)(NS_ROW * st->a.g.n[1]) * sizeof(double));
  return s;
}

static hd_status ns_fields(hd_ctx *ctx, void *state, double *r, double *u, double *v, double *p, double *w) {
  ns_state *st = (ns_state *)state;
  const int periodic[2] = {st->a.bc[HD_NS_XLO] == HD_NS_PERIODIC, st->a.bc[HD_NS_YLO] == HD_NS_PERIODIC};
  const hd_idx nx = st->a.g.n[0], ny = st->a.g.n[1];
  double *dst[5];
  hd_real *host = (hd_real *)hd_host_alloc(st->bytes);
  hd_ns_derive_args d;
  hd_status s;
  int f;
  if (!host) return hd_fail(ctx, HD_ERR_NOMEM, "ns: out of host memory");
  dst[0] = r, dst[1] = u, dst[2] = v, dst[3] = p, dst[4] = w;
  ns_on_state(st);
  d.f = st->a;
  d.r = st->buf[2][0], d.u = st->buf[2][1], d.v = st->buf[2][2], d.p = st->buf[2][3], d.w = st->buf[3][0];
  s = st->halo && st->halo(st->halo_user, (void *const *)st->buf[0]) ? hd_fail(ctx, HD_ERR_IO, "ns: the halo exchange failed")
                                                                     : HD_OK;
  if (s == HD_OK) s = hd_ns_fill_ghosts(ctx, st->buf[0], &st->a.g, periodic, st->a.shared);
  if (s == HD_OK) s = hd_ns_derive_loop(ctx, &d, hd_range3_make(1, nx + 1, 1, ny + 1, 0, 1));
  for (f = 0; f < 5 && s == HD_OK; ++f) {
    const hd_real *src = f < 4 ? st->buf[2][f] : st->buf[3][0];
    hd_idx i, j;
    if (!dst[f]) continue;
    s = hd_dev_download(ctx, host, src, st->bytes);
    for (j = 0; s == HD_OK && j < ny; ++j)
      for (i = 0; i < nx; ++i) dst[f][i + j * nx] = (double)host[hd_grid_at(&st->a.g, i + 1, j + 1, 0)];
  }
  hd_host_free(host);
  return s;
}

/* The four conserved variables at the start of a step are the whole
 * state (the stage buffers and the accumulator are rebuilt every step). */
static int ns_state_count(void *state) {
  (void)state;
  return 4;
}

static hd_status ns_state_io(hd_ctx *ctx, void *state, int k, char name[16], uint64_t *bytes, void *host, int save) {
  static const char *const names[4] = {"rho", "rho_u", "rho_v", "rho_E"};
  ns_state *st = (ns_state *)state;
  hd_state_entry e;
  memset(&e, 0, sizeof e);
  e.name = names[k], e.dev = st->buf[0][k], e.bytes = st->bytes, e.host = 0;
  return hd_state_entry_io(ctx, NULL, &e, name, bytes, host, save);
}

const ns_ops HD_OPS_NAME(ns_ops) = {HD_BACKEND_NAME, HD_REAL_NAME,   sizeof(hd_real), ns_create,
                                    ns_advance,      ns_advance_inner, ns_sums,         ns_row_sums,
                                    ns_fields,       ns_destroy,       ns_state_count,  ns_state_io};
