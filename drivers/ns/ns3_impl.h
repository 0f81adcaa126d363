/* SPDX-License-Identifier: BSD-3-Clause */
/* The 3-D compressible-flow backend table (hd/ns3.h), compiled once per
 * backend and precision beside ns_impl.h by the ns_<backend>_<f|d>
 * wrappers.  Allocation and the stage sequence. */
#include "ns3_ops.h"

#include <stdlib.h>
#include <string.h>

#include <hd/memory.h>
#include <hd/ns3.h>

#include "state_io.h"

typedef struct ns3_state {
  hd_ns3_args a;
  hd_real *buf[4][5];  /* q0, acc, stage A, stage B; five variables each */
  hd_ns3_prim *prims;  /* every node's primitives, rebuilt each stage */
  size_t bytes;
  double *rows;        /* row sums, HD_NS3_ROW a row */
  int (*halo)(void *user, void *const q[5]);
  void *halo_user;
} ns3_state;

static void ns3_destroy(hd_ctx *ctx, void *state) {
  ns3_state *st = (ns3_state *)state;
  int b, c;
  if (!st) return;
  for (b = 0; b < 4; ++b)
    for (c = 0; c < 5; ++c) hd_dev_free(ctx, st->buf[b][c]);
  hd_dev_free(ctx, st->rows);
  hd_dev_free(ctx, st->prims);
  free(st);
}

static hd_status ns3_create(hd_ctx *ctx, const ns3_problem *p, void **out) {
  ns3_state *st = (ns3_state *)calloc(1, sizeof *st);
  hd_ns3_args *a;
  hd_ns3_init_args ia;
  hd_status s = HD_OK;
  int b, c, d, f;
  *out = NULL;
  if (!st) return hd_fail(ctx, HD_ERR_NOMEM, "ns: out of host memory");
  a = &st->a;
  if (!hd_grid_init(&a->g, 3, ns3_block_nodes(p, 0), ns3_block_nodes(p, 1), ns3_block_nodes(p, 2), 1) ||
      a->g.n[0] < 3 || a->g.n[1] < 3 || a->g.n[2] < 3) {
    free(st);
    return hd_fail(ctx, HD_ERR_ARG, "ns: grid %ld x %ld x %ld is too small or too large", ns3_block_nodes(p, 0),
                   ns3_block_nodes(p, 1), ns3_block_nodes(p, 2));
  }
  st->halo = p->halo, st->halo_user = p->halo_user;
  for (f = 0; f < 6; ++f) {
    const int ax = f / 2, t1 = ax == 0 ? 1 : 0, t2 = ax == 2 ? 1 : 2;
    double k[3];
    ns_nscbc_face(p->sigma, p->sigma_side, p->beta, p->beta_side, p->sigma_in, p->mach, fabs(p->u_inf[ax]),
                  hypot(p->u_inf[t1], p->u_inf[t2]), p->length[ax], k);
    a->bc[f] = p->bc[f], a->shared[f] = p->shared[f];
    a->faces |= p->bc[f] != HD_NS_PERIODIC && !p->shared[f];
    a->relax[f] = (hd_real)k[0], a->beta[f] = (hd_real)k[1], a->relax_in[f] = (hd_real)k[2];
  }
  for (d = 0; d < 3; ++d) a->u_inf[d] = (hd_real)p->u_inf[d];
  a->corners = p->corners;
  st->bytes = (size_t)a->g.total * sizeof(hd_real);
  for (b = 0; b < 4 && s == HD_OK; ++b)
    for (c = 0; c < 5 && s == HD_OK; ++c) {
      s = hd_dev_alloc(ctx, (void **)&st->buf[b][c], st->bytes);
      if (s == HD_OK) s = hd_dev_zero(ctx, st->buf[b][c], st->bytes);
    }
  if (s == HD_OK) s = hd_dev_alloc(ctx, (void **)&st->prims, (size_t)a->g.total * sizeof(hd_ns3_prim));
  a->prims = p->generic ? NULL : st->prims;
  a->viscous = p->viscous, a->split = p->split;
  a->dt = (hd_real)p->dt;
  for (d = 0; d < 3; ++d) a->rh[d] = (hd_real)(p->n[d] / p->length[d]);
  a->gamma = (hd_real)p->gamma, a->mu_ref = (hd_real)p->mu_ref, a->suth = (hd_real)p->suth;
  a->kfac = (hd_real)(1.0 / ((p->gamma - 1.0) * p->pr));
  a->p_inf = (hd_real)(1.0 / p->gamma);
  for (c = 0; c < 5; ++c) a->q0[c] = st->buf[0][c], a->acc[c] = st->buf[1][c];
  if (s == HD_OK) {
    for (c = 0; c < 5; ++c) ia.q[c] = st->buf[0][c];
    ia.g = a->g, ia.ic = p->ic;
    for (d = 0; d < 3; ++d) ia.x0[d] = p->origin[d], ia.h[d] = p->length[d] / p->n[d], ia.off[d] = p->block_off[d];
    s = hd_ns3_init_loop(ctx, &ia, hd_grid_interior(&a->g));
  }
  if (s == HD_OK) s = hd_dev_alloc(ctx, (void **)&st->rows, (size_t)(HD_NS3_ROW * a->g.n[1] * a->g.n[2]) * sizeof(double));
  if (s == HD_OK) s = hd_ctx_sync(ctx);
  if (s != HD_OK) {
    ns3_destroy(ctx, st);
    return s;
  }
  *out = st;
  return HD_OK;
}

/* The stage input's ghosts and, in the two-pass form, its primitives
 * (the monitor's and the output's too). */
static hd_status ns3_prepare(hd_ctx *ctx, ns3_state *st, hd_real *const *in, hd_ns3_prim *prims) {
  hd_ns3_args *a = &st->a;
  hd_status s;
  int c;
  for (c = 0; c < 5; ++c) a->q[c] = in[c];
  /* x, y, then z: each axis's ghosts span the ghosts of those before; the
   * halo exchange fills the shared faces' along y, then z */
  s = hd_ns3_fill_ghosts(ctx, a, in, 0);
  if (s == HD_OK) s = hd_ns3_fill_ghosts(ctx, a, in, 1);
  if (s == HD_OK && st->halo && st->halo(st->halo_user, (void *const *)in))
    s = hd_fail(ctx, HD_ERR_IO, "ns: the halo exchange failed");
  if (s == HD_OK) s = hd_ns3_fill_ghosts(ctx, a, in, 2);
  if (s == HD_OK && prims) {
    hd_ns3_args pa = *a;
    pa.prims = prims;
    s = hd_ns3_prims_loop(ctx, &pa, hd_range3_make(0, a->g.n[0] + 2, 0, a->g.n[1] + 2, 0, a->g.n[2] + 2));
  }
  return s;
}

static hd_status ns3_advance(hd_ctx *ctx, void *state, long steps) {
  ns3_state *st = (ns3_state *)state;
  hd_real *const *q0 = st->buf[0], *const *sa = st->buf[2], *const *sb = st->buf[3];
  hd_status s = HD_OK;
  long n;
  for (n = 0; n < steps && s == HD_OK; ++n) {
    hd_real *const *in[4] = {q0, sa, sb, sa}, *const *out[4] = {sa, sb, sa, q0};
    int k, c;
    for (k = 0; k < 4 && s == HD_OK; ++k) {
      st->a.stage = k;
      s = ns3_prepare(ctx, st, in[k], st->a.prims);
      for (c = 0; c < 5; ++c) st->a.out[c] = out[k][c];
      if (s == HD_OK) s = hd_ns3_interior_loop(ctx, &st->a, hd_grid_interior(&st->a.g));
    }
  }
  return s;
}

typedef struct ns3_rows_args {
  hd_ns3_args f;
  double *rows;
} ns3_rows_args;

HD_FN void ns3_row_pt(const ns3_rows_args *a, hd_idx j, hd_idx k) {
  hd_ns3_row_pt(&a->f, j, k, a->rows + HD_NS3_ROW * ((j - 1) + (k - 1) * a->f.g.n[1]));
}
HD_DEFINE_FOR_2D(ns3_rows_loop, ns3_row_pt, ns3_rows_args)

static hd_status ns3_row_sums(hd_ctx *ctx, void *state, double *rows) {
  ns3_state *st = (ns3_state *)state;
  ns3_rows_args ra;
  hd_status s = ns3_prepare(ctx, st, st->buf[0], st->prims);
  ra.f = st->a, ra.f.prims = st->prims, ra.rows = st->rows;
  if (s == HD_OK) s = ns3_rows_loop(ctx, &ra, hd_range3_make(1, st->a.g.n[1] + 1, 1, st->a.g.n[2] + 1, 0, 1));
  if (s == HD_OK)
    s = hd_dev_download(ctx, rows, st->rows, (size_t)(HD_NS3_ROW * st->a.g.n[1] * st->a.g.n[2]) * sizeof(double));
  return s;
}

static hd_status ns3_fields(hd_ctx *ctx, void *state, double *const out[8]) {
  ns3_state *st = (ns3_state *)state;
  const hd_grid *g = &st->a.g;
  hd_real *host = (hd_real *)hd_host_alloc(st->bytes);
  hd_ns3_derive_args d;
  hd_status s;
  int f;
  if (!host) return hd_fail(ctx, HD_ERR_NOMEM, "ns: out of host memory");
  s = ns3_prepare(ctx, st, st->buf[0], st->prims);
  d.f = st->a, d.f.prims = st->prims;
  for (f = 0; f < 5; ++f) d.out[f] = st->buf[2][f];
  for (f = 0; f < 3; ++f) d.out[5 + f] = st->buf[3][f];
  if (s == HD_OK) s = hd_ns3_derive_loop(ctx, &d, hd_grid_interior(g));
  for (f = 0; f < 8 && s == HD_OK; ++f) {
    hd_idx i, j, k;
    double *o = out[f];
    if (!o) continue;
    s = hd_dev_download(ctx, host, d.out[f], st->bytes);
    for (k = 0; s == HD_OK && k < g->n[2]; ++k)
      for (j = 0; j < g->n[1]; ++j)
        for (i = 0; i < g->n[0]; ++i) *o++ = (double)host[hd_grid_at(g, i + 1, j + 1, k + 1)];
  }
  hd_host_free(host);
  return s;
}

static int ns3_state_count(void *state) {
  (void)state;
  return 5;
}

static hd_status ns3_state_io(hd_ctx *ctx, void *state, int k, char name[16], uint64_t *bytes, void *host, int save) {
  static const char *const names[5] = {"rho", "rho_u", "rho_v", "rho_w", "rho_E"};
  ns3_state *st = (ns3_state *)state;
  hd_state_entry e;
  memset(&e, 0, sizeof e);
  e.name = names[k], e.dev = st->buf[0][k], e.bytes = st->bytes, e.host = 0;
  return hd_state_entry_io(ctx, NULL, &e, name, bytes, host, save);
}

const ns3_ops HD_OPS_NAME(ns3_ops) = {HD_BACKEND_NAME, HD_REAL_NAME,   sizeof(hd_real), ns3_create,
                                      ns3_advance,     ns3_row_sums,   ns3_fields,      ns3_destroy,
                                      ns3_state_count, ns3_state_io};
