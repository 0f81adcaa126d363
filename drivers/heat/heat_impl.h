/* SPDX-License-Identifier: BSD-3-Clause */
/* Heat backend table, compiled once per backend and precision by the
 * two-line heat_<backend>_<f|d> wrappers.  Allocation and launches only: the
 * physics is hd/heat.h. */
#include "heat_ops.h"

#include <stdlib.h>

#include <hd/heat.h>
#include <hd/heat_balance.h>
#include <hd/heat_blocked.h>
#include <hd/heat_solve.h>
#include <hd/memory.h>

#include "media.h"
#include "state_io.h"

typedef struct heat_state {
  hd_heat_args a;
  hd_real *buf[2];  /* the fields: allocations plus `lead` elements */
  hd_idx lead;
  hd_stats *rows; /* per-row statistics (backend memory) */
  hd_idx origin[3], cells[3];
  int tuned;
  int time_block; /* steps a sweep where allowed (hd/heat_blocked.h) */
  /* a distributed block in time blocks (problem.overlap): the widened
     grid the steps take, a.t's offset in it, and whether its overlap
     waits for an exchange (after a checkpoint is loaded) */
  hd_grid wide;
  hd_idx off;
  int deep, stale;
  int own[4]; /* the block's own rows [own[0], own[1]) and planes [own[2], own[3]) in the wide grid */
  int block[3]; /* launch shape of the step kernels only */
  hd_heat_media_args media; /* materials (media.md.m set): the media step */
  unsigned char *map;       /* backend memory: the material map, `lead` bytes in (aligned rows) */
  hd_real *tables;          /* backend memory: kf, k, r, s, c */
  hd_idx *ifaces;           /* backend memory: the interface cells (tuned CUDA media step) */
  unsigned char *groups;    /* backend memory: the group map (tuned CUDA media step) */
  hd_real *qfield;          /* backend memory: the source field as a rate, Q / (rho c) (a.q) */
  hd_xsum qheat;            /* the heat it adds a step */
  double face_h[6], face_k, face_dx[3]; /* what the face conditions are made of (set_faces) */
  int balance;              /* heat accounting: */
  hd_heat_flow_args flow;   /* its accumulators (backend memory; NULL: not counted) */
  hd_heat_energy_args energy; /* its rows (backend memory) */
  double counts[HD_HEAT_MAX_MATERIALS]; /* interior cells of each material (uniform: all in 0) */
  /* implicit steps (problem.scheme): the system, its right side, the
     solver; the tables' host side (the ghost maps follow set_faces) */
  int scheme;
  double theta;
  hd_heat_sys sys;
  hd_heat_rhs_args rhs;
  hd_heat_solver sv;
  hd_real *itab;            /* backend memory: cap, qd, rc (nm each), the ghost maps (12 nm) */
  int nm;
  double mk[HD_HEAT_MAX_MATERIALS], mrhoc[HD_HEAT_MAX_MATERIALS], mq[HD_HEAT_MAX_MATERIALS];
  heat_solves solves;
  double *wsum, *wrows;     /* backend memory: material_sums' weights and rows */
#if defined(HD_BACKEND_CUDA)
  /* overlapped halo steps: the slabs and the exchange on a high-priority
     stream, the inside on a low one, both non-blocking */
  cudaStream_t slabs, inside;
  cudaEvent_t slabs_done, inside_done, start;
#endif
} heat_state;

static void h_destroy(hd_ctx *ctx, void *state) {
  heat_state *st = (heat_state *)state;
  int d;
  if (!st) return;
#if defined(HD_BACKEND_CUDA)
  if (st->slabs) cudaStreamDestroy(st->slabs);
  if (st->inside) cudaStreamDestroy(st->inside);
  if (st->slabs_done) cudaEventDestroy(st->slabs_done);
  if (st->inside_done) cudaEventDestroy(st->inside_done);
  if (st->start) cudaEventDestroy(st->start);
#endif
  if (st->map) hd_dev_free(ctx, st->map - st->lead);
  hd_dev_free(ctx, st->tables);
  hd_heat_solver_close(ctx, &st->sv);
  hd_dev_free(ctx, st->itab);
  hd_dev_free(ctx, st->wsum);
  hd_dev_free(ctx, st->wrows);
  hd_dev_free(ctx, st->ifaces);
  hd_dev_free(ctx, st->groups);
  hd_dev_free(ctx, st->qfield);
  for (d = 0; d < HD_NFACES; ++d) hd_dev_free(ctx, st->flow.acc[d]);
  hd_dev_free(ctx, st->energy.rows);
  hd_dev_free(ctx, (void *)st->energy.rhoc);
  if (st->buf[0]) hd_dev_free(ctx, st->buf[0] - st->lead);
  if (st->buf[1]) hd_dev_free(ctx, st->buf[1] - st->lead);
  hd_dev_free(ctx, st->rows);
  free(st);
}

/* Padded host values of the block's interior from `in` (x fastest). */
static void h_interior(const hd_grid *g, const double *in, hd_real *out) {
  const hd_range3 r = hd_grid_interior(g);
  hd_idx i, j, k, m = 0;
  for (k = r.lo[2]; k < r.hi[2]; ++k)
    for (j = r.lo[1]; j < r.hi[1]; ++j)
      for (i = r.lo[0]; i < r.hi[0]; ++i) out[hd_grid_at(g, i, j, k)] = (hd_real)in[m++];
}

/* The source field Q as the rate Q / (rho c) of each cell's material (map,
 * or NULL: the uniform rho c = k / alpha) in backend memory, and the heat
 * a step adds, sum (rho c) V dt q. */
static hd_status h_source(hd_ctx *ctx, heat_state *st, const heat_problem *p, const unsigned char *map,
                          const double dx[3]) {
  const hd_grid *g = &st->a.g;
  const hd_range3 r = hd_grid_interior(g);
  hd_real *q = (hd_real *)calloc((size_t)g->total, sizeof(hd_real));
  double vol = p->dt;
  hd_idx i, j, k, m = 0;
  hd_status s;
  int d;
  if (!q) return hd_fail(ctx, HD_ERR_NOMEM, "heat: out of host memory for the source field");
  for (d = 0; d < g->dim; ++d) vol *= dx[d];
  hd_xsum_init(&st->qheat);
  for (k = r.lo[2]; k < r.hi[2]; ++k)
    for (j = r.lo[1]; j < r.hi[1]; ++j)
      for (i = r.lo[0]; i < r.hi[0]; ++i) {
        const hd_idx c = hd_grid_at(g, i, j, k);
        const double rhoc = map ? p->mat_rhoc[hd_heat_mat(map[c])] : (p->k > 0 ? p->k : 1.0) / p->alpha;
        q[c] = (hd_real)(p->source_values[m++] / rhoc);
        hd_xsum_add(&st->qheat, rhoc * vol * (double)q[c]);
      }
  s = hd_dev_alloc(ctx, (void **)&st->qfield, (size_t)g->total * sizeof(hd_real));
  if (s == HD_OK) s = hd_dev_upload(ctx, st->qfield, q, (size_t)g->total * sizeof(hd_real));
  free(q);
  return s;
}

/* The material map and tables in backend memory.  The map sits as the
 * fields do, so that cell 1 of a row is as aligned in it as in them (the
 * tuned CUDA media step loads a row's bytes in groups). */
static hd_status h_media(hd_ctx *ctx, heat_state *st, const heat_problem *p, const double dx[3]) {
  const hd_grid *g = &st->a.g;
  const int nm = p->nmat;
  const size_t nt = (size_t)(nm * nm + 6 * nm); /* kf, k, r, s, c */
  const long n[3] = {(long)g->n[0], (long)g->n[1], (long)g->n[2]};
  const long origin[3] = {(long)st->origin[0], (long)st->origin[1], (long)st->origin[2]};
  const long cells[3] = {(long)st->cells[0], (long)st->cells[1], (long)st->cells[2]};
  unsigned char *map = (unsigned char *)calloc((size_t)g->total, 1);
  hd_real *tab = (hd_real *)malloc(nt * sizeof(hd_real));
  hd_heat_media *md = &st->media.md;
  hd_status s = HD_OK;
  int d;
  if (!map || !tab) s = hd_fail(ctx, HD_ERR_NOMEM, "heat: out of host memory for the material map");
  if (s == HD_OK) {
    heat_media_paint(p, n, origin, cells, (long)g->stride[1], (long)(g->dim == 3 ? g->stride[2] : 0),
                     map + hd_grid_at(g, 0, 0, 0));
    hd_heat_media_mark(map, g);
    hd_heat_media_tables(nm, p->mat_k, p->mat_rhoc, p->mat_q, p->dt, dx, g->dim, tab, tab + nm * nm + nm,
                         tab + nm * nm + 2 * nm, tab + nm * nm + 3 * nm);
    for (d = 0; d < nm; ++d) tab[nm * nm + d] = (hd_real)p->mat_k[d];
    if (p->face_mean) /* TeaLeaf's: the arithmetic mean of the two cells' k */
      for (d = 0; d < nm * nm; ++d) tab[d] = (hd_real)(0.5 * (p->mat_k[d / nm] + p->mat_k[d % nm]));
    s = hd_dev_alloc(ctx, (void **)&st->map, (size_t)(g->total + st->lead));
    if (s == HD_OK) st->map += st->lead;
  }
  if (s == HD_OK) s = hd_dev_alloc(ctx, (void **)&st->tables, nt * sizeof(hd_real));
  if (s == HD_OK) s = hd_dev_upload(ctx, st->map, map, (size_t)g->total);
  if (s == HD_OK) s = hd_dev_upload(ctx, st->tables, tab, nt * sizeof(hd_real));
#if defined(HD_BACKEND_CUDA)
  if (s == HD_OK && st->tuned && g->n[0] % HD_HEAT_VEC == 0) { /* the tuned step's list, where interfaces are few */
    const hd_idx count = hd_heat_media_ifaces(map, g, HD_HEAT_VEC, NULL);
    const size_t ngroups = (size_t)(g->total / HD_HEAT_VEC + 1);
    hd_idx *list = count * HD_HEAT_VEC <= g->total / 2 ? (hd_idx *)malloc((size_t)(count + 1) * sizeof(hd_idx)) : NULL;
    unsigned char *groups = list ? (unsigned char *)calloc(ngroups, 1) : NULL;
    if (groups) {
      hd_heat_media_ifaces(map, g, HD_HEAT_VEC, list);
      hd_heat_media_groups(map, g, HD_HEAT_VEC, groups);
      s = hd_dev_alloc(ctx, (void **)&st->ifaces, (size_t)(count + 1) * sizeof(hd_idx));
      if (s == HD_OK) s = hd_dev_upload(ctx, st->ifaces, list, (size_t)(count + 1) * sizeof(hd_idx));
      if (s == HD_OK) s = hd_dev_alloc(ctx, (void **)&st->groups, ngroups);
      if (s == HD_OK) s = hd_dev_upload(ctx, st->groups, groups, ngroups);
      md->iface = st->ifaces, md->niface = count, md->group = HD_HEAT_VEC, md->gm = st->groups;
    }
    free(list), free(groups);
  }
#endif
  if (s == HD_OK && p->source_values) s = h_source(ctx, st, p, map, dx);
  if (s == HD_OK) { /* the cells of each material (the sources' heat, material_sums) */
    const hd_range3 r = hd_grid_interior(g);
    hd_idx i, j, k;
    for (k = r.lo[2]; k < r.hi[2]; ++k)
      for (j = r.lo[1]; j < r.hi[1]; ++j)
        for (i = r.lo[0]; i < r.hi[0]; ++i) st->counts[hd_heat_mat(map[hd_grid_at(g, i, j, k)])] += 1.0;
  }
  if (s == HD_OK && p->balance) {
    s = hd_dev_alloc(ctx, (void **)&st->energy.rhoc, (size_t)nm * sizeof(double));
    if (s == HD_OK) s = hd_dev_upload(ctx, (void *)st->energy.rhoc, p->mat_rhoc, (size_t)nm * sizeof(double));
  }
  free(map), free(tab);
  if (s != HD_OK) return s;
  md->m = st->map, md->nm = nm;
  md->kf = st->tables, md->k = st->tables + nm * nm, md->r = md->k + nm, md->s = md->r + nm, md->c = md->s + nm;
  for (d = 0; d < 3; ++d) md->rdx2[d] = d < g->dim ? (hd_real)(1.0 / (dx[d] * dx[d])) : HD_R(0);
  return HD_OK;
}

/* The heat accounting's arrays: an accumulator for each face that is not
 * adiabatic (shared faces are skipped step by step) and the rows of the
 * heat content. */
static hd_status h_balance_open(hd_ctx *ctx, heat_state *st, const heat_problem *p, const double dx[3]) {
  const hd_grid *g = &st->a.g;
  hd_heat_flow_args *fa = &st->flow;
  hd_heat_energy_args *ea = &st->energy;
  double vol = 1.0;
  hd_status s = HD_OK;
  int d;
  for (d = 0; d < g->dim; ++d) vol *= dx[d];
  fa->g = *g, ea->g = *g;
  fa->m = ea->m = st->media.md.m;
  fa->k = st->media.md.k;
  fa->k0 = st->face_k;
  ea->rhoc0 = st->face_k / p->alpha, ea->vol = vol;
  for (d = 0; d < 3; ++d) fa->w[d] = d < g->dim ? p->dt * vol / (dx[d] * dx[d]) : 0.0;
  if (!p->nmat) st->counts[0] = (double)g->n[0] * (double)g->n[1] * (double)g->n[2];
  for (d = 0; d < 2 * g->dim && s == HD_OK; ++d) {
    const int axis = d / 2, b0 = axis == 0 ? 1 : 0, b1 = axis == 2 ? 1 : 2;
    const size_t bytes = (size_t)(g->n[b0] * g->n[b1]) * sizeof(double);
    if (p->bc_kind[d] == HD_HEAT_ADIABATIC) continue;
    s = hd_dev_alloc(ctx, (void **)&fa->acc[d], bytes);
    if (s == HD_OK) s = hd_dev_zero(ctx, fa->acc[d], bytes);
  }
  if (s == HD_OK) s = hd_dev_alloc(ctx, (void **)&ea->rows, (size_t)(g->n[1] * g->n[2]) * sizeof(double));
  return s;
}

#include "heat_impl_implicit.h"

static hd_status h_create(hd_ctx *ctx, const heat_problem *p0, void **out) {
  heat_state *st = (heat_state *)calloc(1, sizeof(heat_state));
  heat_problem *p = (heat_problem *)malloc(sizeof *p);
  hd_heat_init ic;
  hd_grid g;
  double dx[3];
  size_t bytes;
  hd_status s;
  int d;
  *out = NULL;
  if (!st || !p) return free(st), free(p), hd_fail(ctx, HD_ERR_NOMEM, "heat: out of host memory");
  *p = *p0;
  if (p->scheme != HEAT_SCHEME_EXPLICIT && !p->nmat) { /* implicit steps on the media: one material */
    p->nmat = 1, p->nregion = 0;
    p->mat_k[0] = p->k > 0 ? p->k : 1.0, p->mat_rhoc[0] = p->mat_k[0] / p->alpha, p->mat_q[0] = 0.0;
  }
  if (!hd_grid_init(&g, p->dim, p->n[0], p->n[1], p->n[2], 1)) {
    free(st), free(p);
    return hd_fail(ctx, HD_ERR_ARG, "heat: grid %ld x %ld x %ld is empty or too large",
                   p0->n[0], p0->n[1], p0->n[2]);
  }
  for (d = 0; d < 3; ++d) dx[d] = p->length[d] / (double)(p->cells[d] ? p->cells[d] : p->n[d]);
  /* implicit steps are not bound by the explicit limit: the explicit
     coefficients are set up within it and unused */
  if ((s = hd_heat_setup(ctx, &st->a, &g, p->alpha,
                         p->scheme == HEAT_SCHEME_EXPLICIT ? p->dt : fmin(p->dt, 0.5 * hd_heat_dt_max(p->alpha, dx, p->dim)),
                         dx, p->q)) != HD_OK) {
    free(st), free(p);
    return s;
  }
  if (p->scheme != HEAT_SCHEME_EXPLICIT) st->a.dt = (hd_real)p->dt, st->a.dtq = (hd_real)(p->dt * p->q);
  for (d = 0; d < HD_NFACES; ++d) /* conductivity 0: the unit default */
    st->a.bc[d] = hd_heat_face(p->bc_kind[d], p->bc_value[d], p->bc_h[d], p->k > 0 ? p->k : 1.0, dx[d / 2]);
#if defined(HD_HEAT_HAS_TUNED)
  st->tuned = p->variant != HD_VARIANT_GENERIC;
#else
  st->tuned = 0;
#endif
  memcpy(st->block, p->block, sizeof st->block);
  st->time_block = p->time_block;
  for (d = 0; d < 3; ++d) st->origin[d] = p->origin[d], st->cells[d] = p->cells[d] ? p->cells[d] : p->n[d];
  /* A whole 3-D grid gets rows aligned for 16-byte access (the CUDA vector
     kernel, hd_heat_vec_ok): rows padded to 128 bytes, and the fields start
     `lead` elements into their allocations so that cell 1 of every row sits
     on a 128-byte boundary (16 would do; whole lines measured faster).
     Blocks of a distributed grid too, unless widened for time blocks
     (below): their exchange is told the pitch and the lead. */
  if (p->dim == 3) {
    if (!hd_grid_align_rows(&g, 128 / (hd_idx)sizeof(hd_real))) {
      free(st), free(p);
      return hd_fail(ctx, HD_ERR_ARG, "heat: grid %ld x %ld x %ld is too large", p0->n[0], p0->n[1], p0->n[2]);
    }
    st->a.g = g;
    st->lead = 128 / (hd_idx)sizeof(hd_real) - 1;
  }
  if (p->overlap[2] || p->overlap[3] || p->overlap[4] || p->overlap[5]) { /* the block a view into the wide grid */
    const long *o = p->overlap;
    if (!hd_grid_init(&st->wide, p->dim, p->n[0], p->n[1] + o[2] + o[3], p->n[2] + o[4] + o[5], 1)) {
      free(st), free(p);
      return hd_fail(ctx, HD_ERR_ARG, "heat: a block of %ld x %ld x %ld cells is too large", p0->n[0], p0->n[1], p0->n[2]);
    }
    st->off = st->lead = hd_grid_at(&st->wide, 0, o[2], o[4]);
    st->own[0] = 1 + (int)o[2], st->own[1] = 1 + (int)(o[2] + p->n[1]);
    st->own[2] = 1 + (int)o[4], st->own[3] = 1 + (int)(o[4] + p->n[2]);
    memcpy(g.stride, st->wide.stride, sizeof g.stride);
    g.total = st->wide.total - st->off;
    st->a.g = g;
    st->deep = p->time_block;
  }
  bytes = (size_t)(g.total + st->lead) * sizeof(hd_real);
  for (d = 0; d < 2; ++d) {
    void *b = NULL;
    if ((s = hd_dev_alloc(ctx, &b, bytes)) != HD_OK || (s = hd_dev_zero(ctx, b, bytes)) != HD_OK) {
      if (b) hd_dev_free(ctx, b);
      goto fail;
    }
    st->buf[d] = (hd_real *)b + st->lead;
  }
  for (d = 0; d < HD_NFACES; ++d) st->face_h[d] = p->bc_h[d];
  st->face_k = p->k > 0 ? p->k : 1.0;
  memcpy(st->face_dx, dx, sizeof dx);
  st->balance = p->balance;
  if (p->nmat && (s = h_media(ctx, st, p, dx)) != HD_OK) goto fail;
  if (p->balance && (s = h_balance_open(ctx, st, p, dx)) != HD_OK) goto fail;
  if ((s = hd_dev_alloc(ctx, (void **)&st->rows, (size_t)(g.n[1] * g.n[2]) * sizeof(hd_stats))) != HD_OK) goto fail;
  memset(&ic, 0, sizeof ic);
  ic.kind = p->init_kind;
  ic.base = (hd_real)p->base;
  ic.value = (hd_real)p->value;
  ic.radius = (hd_real)p->radius;
  for (d = 0; d < 3; ++d) {
    ic.lo[d] = (hd_real)p->box_lo[d];
    ic.hi[d] = (hd_real)p->box_hi[d];
    ic.center[d] = (hd_real)p->center[d];
    ic.mode[d] = p->mode[d];
    ic.length[d] = (hd_real)p->length[d];
    ic.origin[d] = p->origin[d];
    ic.cells[d] = p->cells[d];
  }
  if (!p->nmat && p->source_values && (s = h_source(ctx, st, p, NULL, dx)) != HD_OK) goto fail;
  if ((s = hd_heat_initialise(ctx, st->buf[0], &g, &ic)) != HD_OK) goto fail;
  if (p->init_values) { /* the field from a file, over the analytic one */
    hd_real *host = (hd_real *)calloc((size_t)g.total, sizeof(hd_real));
    if (!host) {
      s = hd_fail(ctx, HD_ERR_NOMEM, "heat: out of host memory for the initial field");
      goto fail;
    }
    h_interior(&g, p->init_values, host);
    s = hd_dev_upload(ctx, st->buf[0], host, (size_t)g.total * sizeof(hd_real));
    free(host);
    if (s != HD_OK) goto fail;
  } else if (p->init_materials && (s = h_init_materials(ctx, st, p)) != HD_OK) {
    goto fail;
  }
  st->a.t = st->buf[0];
  st->a.t_next = st->buf[0];
  st->a.q = NULL;
  st->media.a = st->a; /* the first ghosts, as the steps write them */
  if ((s = st->map ? hd_heat_media_fill_ghosts(ctx, &st->media) : hd_heat_fill_ghosts(ctx, &st->a)) != HD_OK)
    goto fail;
  st->a.t_next = st->buf[1];
  st->a.q = st->qfield;
  if (p->scheme != HEAT_SCHEME_EXPLICIT && (s = h_implicit_open(ctx, st, p, dx)) != HD_OK) goto fail;
  if ((s = hd_ctx_sync(ctx)) != HD_OK) goto fail;
  free(p);
  *out = st;
  return HD_OK;
fail:
  free(p);
  h_destroy(ctx, st);
  return s;
}

/* The heat the coming step moves through the counted faces (the generic
 * loops' own launch shape: ctx->block is the step kernels'), weighted
 * (an implicit step's share of the field now). */
static hd_status h_flow(hd_ctx *ctx, heat_state *st, const int block[3], double weight) {
  hd_heat_flow_args fa = st->flow;
  int mine[3], d;
  hd_status s;
  fa.t = st->a.t;
  for (d = 0; d < 3; ++d) fa.w[d] *= weight;
  for (d = 0; d < HD_NFACES; ++d)
    if (st->a.bc[d].kind == HD_HEAT_HALO) fa.acc[d] = NULL;
  memcpy(mine, ctx->block, sizeof mine);
  memcpy(ctx->block, block, sizeof mine);
  s = hd_heat_flow_step(ctx, &fa);
  memcpy(ctx->block, mine, sizeof mine);
  return s;
}

/* Time blocks on one rank: the tuned uniform step, no heat accounting, no
 * halo faces (distributed blocks: h_deep_steps). */
static int h_blockable(const heat_state *st) {
  int f;
  for (f = 0; f < HD_NFACES; ++f)
    if (st->a.bc[f].kind == HD_HEAT_HALO) return 0;
  return st->tuned && !st->map && !st->balance;
}

static hd_status h_advance(hd_ctx *ctx, void *state, long steps) {
  heat_state *st = (heat_state *)state;
  hd_status s = HD_OK;
  int saved[3];
  long n;
  memcpy(saved, ctx->block, sizeof saved);
  memcpy(ctx->block, st->block, sizeof saved);
  for (n = 0; n < steps && s == HD_OK; ++n) {
    hd_real *t = st->a.t_next;
    if (st->scheme != HEAT_SCHEME_EXPLICIT) {
      s = h_implicit_step(ctx, st, saved);
      continue;
    }
    if (st->time_block > 1 && h_blockable(st)) {
      const int m = steps - n < st->time_block ? (int)(steps - n) : st->time_block;
      int in_next;
      if ((s = hd_heat_step_blocked(ctx, &st->a, m, &in_next)) != HD_OK) break;
      if (in_next) st->a.t_next = (hd_real *)st->a.t, st->a.t = t;
      n += m - 1;
      continue;
    }
    if (st->balance && (s = h_flow(ctx, st, saved, 1.0)) != HD_OK) break;
    if (st->map) {
      st->media.a = st->a;
      s = st->tuned ? hd_heat_media_step_tuned(ctx, &st->media) : hd_heat_media_step(ctx, &st->media);
    } else {
#if defined(HD_HEAT_HAS_TUNED)
      s = st->tuned ? hd_heat_step_tuned(ctx, &st->a) : hd_heat_step(ctx, &st->a);
#else
      s = hd_heat_step(ctx, &st->a);
#endif
    }
    if (s != HD_OK) break;
    st->a.t_next = (hd_real *)st->a.t;
    st->a.t = t;
  }
  memcpy(ctx->block, saved, sizeof saved);
  return s;
}

#if defined(HD_BACKEND_CUDA) && defined(HD_HEAT_HAS_TUNED)
static hd_status h_overlap_open(hd_ctx *ctx, heat_state *st) {
  int least, greatest;
  if (st->start) return HD_OK;
  HD_CUDA_TRY(ctx, cudaDeviceGetStreamPriorityRange(&least, &greatest));
  HD_CUDA_TRY(ctx, cudaStreamCreateWithPriority(&st->slabs, cudaStreamNonBlocking, greatest));
  HD_CUDA_TRY(ctx, cudaStreamCreateWithPriority(&st->inside, cudaStreamNonBlocking, least));
  HD_CUDA_TRY(ctx, cudaEventCreateWithFlags(&st->slabs_done, cudaEventDisableTiming));
  HD_CUDA_TRY(ctx, cudaEventCreateWithFlags(&st->inside_done, cudaEventDisableTiming));
  HD_CUDA_TRY(ctx, cudaEventCreateWithFlags(&st->start, cudaEventDisableTiming));
  return HD_OK;
}

/* Both streams after all earlier work, ctx's stream the slabs' for the
 * exchange (see below), cs and ci contexts on the slabs' and the inside's
 * streams with the step kernels' launch shape. */
static hd_status h_overlap_begin(hd_ctx *ctx, heat_state *st, hd_ctx *cs, hd_ctx *ci) {
  const hd_status s = h_overlap_open(ctx, st);
  if (s != HD_OK) return s;
  HD_CUDA_TRY(ctx, cudaEventRecord(st->start, hd_stream(ctx)));
  HD_CUDA_TRY(ctx, cudaStreamWaitEvent(st->inside, st->start, 0));
  HD_CUDA_TRY(ctx, cudaStreamWaitEvent(st->slabs, st->start, 0));
  ctx->stream = (void *)st->slabs;
  *cs = *ctx, *ci = *ctx;
  ci->stream = (void *)st->inside;
  memcpy(cs->block, st->block, sizeof cs->block);
  memcpy(ci->block, st->block, sizeof ci->block);
  return HD_OK;
}

/* ctx's stream back (saved by the caller) and both streams done: the
 * loop's status s, or its CUDA error e. */
static hd_status h_overlap_end(hd_ctx *ctx, heat_state *st, void *stream, hd_status s, cudaError_t e) {
  ctx->stream = stream;
  if (e != cudaSuccess) return hd_cuda_fail(ctx, e, "overlapped heat steps", __FILE__, __LINE__);
  HD_CUDA_TRY(ctx, cudaStreamSynchronize(st->inside));
  HD_CUDA_TRY(ctx, cudaStreamSynchronize(st->slabs));
  return s;
}

/* Step n + 1 reads field A and writes B.  The slabs wait for the inside of
 * step n (it read B and wrote A's cells next to them); exchange n + 1
 * follows the slabs while the inside of step n + 1 (after the slabs of
 * step n) is still running — queued on the stream where the neighbours are
 * read by CUDA IPC, waited for through MPI.  The exchange runs on the
 * slabs' stream, set as ctx's stream for the duration, so that its copies
 * are ordered before the next slabs and take the high priority (on the
 * default stream they would queue behind the inside's blocks). */
static hd_status h_overlap_steps(hd_ctx *ctx, heat_state *st, long steps, const int shared[6],
                                 heat_halo_fn halo, void *arg) {
  void *const stream = ctx->stream;
  hd_ctx cs, ci;
  hd_range3 box[7];
  const int nbox = hd_heat_halo_split(&st->a.g, shared, box);
  hd_status s = HD_OK;
  cudaError_t e = cudaSuccess;
  int b;
  long n;
  if ((s = h_overlap_begin(ctx, st, &cs, &ci)) != HD_OK) return s;
  for (n = 0; n < steps && s == HD_OK && e == cudaSuccess; ++n) {
    hd_real *t = st->a.t_next;
    if ((e = cudaStreamWaitEvent(st->slabs, st->inside_done, 0)) != cudaSuccess) break; /* step n's */
    for (b = 1; b < nbox && s == HD_OK; ++b) s = hd_heat_step_tuned_box(&cs, &st->a, box[b]);
    if (s != HD_OK) {
      hd_fail(ctx, s, "%s", cs.msg);
      break;
    }
    if ((e = cudaEventRecord(st->slabs_done, st->slabs)) != cudaSuccess) break;
    if ((s = hd_heat_step_tuned_box(&ci, &st->a, box[0])) != HD_OK) {
      hd_fail(ctx, s, "%s", ci.msg);
      break;
    }
    if ((e = cudaEventRecord(st->inside_done, st->inside)) != cudaSuccess) break;
    st->a.t_next = (hd_real *)st->a.t;
    st->a.t = t;
    if ((s = halo(ctx, arg)) != HD_OK) break;
    /* the next inside reads these slabs and overwrites what they read */
    e = cudaStreamWaitEvent(st->inside, st->slabs_done, 0);
  }
  return h_overlap_end(ctx, st, stream, s, e);
}

/* The tiles of a launch of m steps on the wide grid w in parts: part[0]
 * the inside, then the rows of tiles and segments holding the own cells
 * within `deep` of a shared face (what the neighbours read).  The number
 * of parts, 0 where the launch cannot be split. */
static int h_deep_parts(const hd_ctx *ctx, const heat_state *st, const hd_heat_args *w, int m, hd_heat_tb_part *part) {
  const int *own = st->own, d = st->deep;
  int rows, planes, nrows, nsegs, n = 1, r_lo, r_hi, s_lo, s_hi;
  if (m < 2 || !hd_heat_tb3_fits(&w->g) || !hd_heat_tb3_tiling(ctx, w, m, &rows, &planes, &nrows, &nsegs)) return 0;
  /* tile row r stores rows r rows + 1 .. (r + 1) rows, segment s planes s planes + 1 .. */
  r_lo = st->a.bc[HD_YLO].kind == HD_HEAT_HALO ? (own[0] + d - 2) / rows + 1 : 0;
  r_hi = st->a.bc[HD_YHI].kind == HD_HEAT_HALO ? (own[1] - d - 1) / rows : nrows;
  s_lo = st->a.bc[HD_ZLO].kind == HD_HEAT_HALO ? (own[2] + d - 2) / planes + 1 : 0;
  s_hi = st->a.bc[HD_ZHI].kind == HD_HEAT_HALO ? (own[3] - d - 1) / planes : nsegs;
  r_lo = r_lo < nrows ? r_lo : nrows, r_hi = r_hi > r_lo ? r_hi : r_lo;
  s_lo = s_lo < nsegs ? s_lo : nsegs, s_hi = s_hi > s_lo ? s_hi : s_lo;
  part[0].row0 = r_lo, part[0].row1 = r_hi, part[0].seg0 = s_lo, part[0].seg1 = s_hi;
  if (r_lo > 0) part[n].row0 = 0, part[n].row1 = r_lo, part[n].seg0 = 0, part[n++].seg1 = nsegs;
  if (r_hi < nrows) part[n].row0 = r_hi, part[n].row1 = nrows, part[n].seg0 = 0, part[n++].seg1 = nsegs;
  if (s_lo > 0) part[n].row0 = r_lo, part[n].row1 = r_hi, part[n].seg0 = 0, part[n++].seg1 = s_lo;
  if (s_hi < nsegs) part[n].row0 = r_lo, part[n].row1 = r_hi, part[n].seg0 = s_hi, part[n++].seg1 = nsegs;
  return n;
}

/* h_deep_steps with the exchange hidden (3-D): each time block's launch in
 * parts (h_deep_parts), the tiles next to the shared faces on the
 * high-priority stream with the exchange after them, the inside's on the
 * other, ordered as h_overlap_steps.  The inside reads no overlap cell
 * (its cells lie `deep` or more from the shared faces), so it need not
 * wait for the exchange; the parts are the whole launch's tiles, so the
 * field is its own, bit for bit. */
static hd_status h_deep_overlap(hd_ctx *ctx, heat_state *st, long steps, heat_halo_fn halo, void *arg) {
  void *const stream = ctx->stream;
  hd_heat_tb_part part[5];
  hd_heat_args w = st->a;
  hd_status s = HD_OK;
  cudaError_t e = cudaSuccess;
  hd_ctx cs, ci;
  int f, b;
  long n = 0;
  w.g = st->wide;
  for (f = 0; f < HD_NFACES; ++f)
    if (w.bc[f].kind == HD_HEAT_HALO) w.bc[f] = hd_heat_face(HD_HEAT_ADIABATIC, 0.0, 0.0, 1.0, 1.0);
  if (st->stale && (s = halo(ctx, arg)) != HD_OK) return s;
  st->stale = 0;
  if ((s = h_overlap_begin(ctx, st, &cs, &ci)) != HD_OK) return s;
  while (n < steps && s == HD_OK && e == cudaSuccess) {
    const int m = steps - n < st->deep ? (int)(steps - n) : st->deep, parts = h_deep_parts(&cs, st, &w, m, part);
    hd_real *t = st->a.t_next;
    int in_next = 1;
    w.t = st->a.t - st->off, w.t_next = st->a.t_next - st->off;
    if ((e = cudaStreamWaitEvent(st->slabs, st->inside_done, 0)) != cudaSuccess) break; /* the last block's */
    if (!parts) /* one launch (a lone last step): the whole block here, none inside */
      s = hd_heat_step_blocked(&cs, &w, m, &in_next);
    for (b = 1; b < parts && s == HD_OK; ++b) s = hd_heat_step_blocked_part(&cs, &w, m, part[b]);
    if (s != HD_OK) {
      hd_fail(ctx, s, "%s", cs.msg);
      break;
    }
    if ((e = cudaEventRecord(st->slabs_done, st->slabs)) != cudaSuccess) break;
    if (parts && (s = hd_heat_step_blocked_part(&ci, &w, m, part[0])) != HD_OK) {
      hd_fail(ctx, s, "%s", ci.msg);
      break;
    }
    if ((e = cudaEventRecord(st->inside_done, st->inside)) != cudaSuccess) break;
    if (in_next) st->a.t_next = (hd_real *)st->a.t, st->a.t = t;
    n += m;
    if ((s = halo(ctx, arg)) != HD_OK) break;
    /* the next inside reads these tiles' cells and overwrites what they read */
    e = cudaStreamWaitEvent(st->inside, st->slabs_done, 0);
  }
  return h_overlap_end(ctx, st, stream, s, e);
}
#endif

/* Time blocks of a distributed block: up to `deep` steps on the wide grid,
 * then the exchange refills its overlap.  The overlap's cells go wrong by
 * one more cell a step from its edge, whose ghosts the steps treat as
 * adiabatic, and never reach the block's own cells within `deep` steps;
 * those take the same updates from the same values as on one rank. */
static hd_status h_deep_steps(hd_ctx *ctx, heat_state *st, long steps, heat_halo_fn halo, void *arg) {
  hd_status s = HD_OK;
  int saved[3];
  long n = 0;
  if (st->stale && (s = halo(ctx, arg)) != HD_OK) return s;
  st->stale = 0;
  memcpy(saved, ctx->block, sizeof saved);
  memcpy(ctx->block, st->block, sizeof saved);
  while (n < steps && s == HD_OK) {
    const int m = steps - n < st->deep ? (int)(steps - n) : st->deep;
    hd_heat_args w = st->a;
    int f, in_next;
    w.g = st->wide;
    w.t = st->a.t - st->off, w.t_next = st->a.t_next - st->off;
    for (f = 0; f < HD_NFACES; ++f)
      if (w.bc[f].kind == HD_HEAT_HALO) w.bc[f] = hd_heat_face(HD_HEAT_ADIABATIC, 0.0, 0.0, 1.0, 1.0);
    if ((s = hd_heat_step_blocked(ctx, &w, m, &in_next)) != HD_OK) break;
    if (in_next) {
      hd_real *t = st->a.t_next;
      st->a.t_next = (hd_real *)st->a.t, st->a.t = t;
    }
    n += m;
    s = halo(ctx, arg);
  }
  memcpy(ctx->block, saved, sizeof saved);
  return s;
}

static hd_status h_advance_halo(hd_ctx *ctx, void *state, long steps, const int shared[6], heat_halo_fn halo,
                                void *arg) {
  heat_state *st = (heat_state *)state;
  hd_status s = HD_OK;
  long n;
  int f;
  for (f = 0; f < HD_NFACES; ++f) /* the exchange fills those ghosts, not the steps */
    if (shared[f]) st->a.bc[f].kind = HD_HEAT_HALO;
#if defined(HD_BACKEND_CUDA) && defined(HD_HEAT_HAS_TUNED)
  if (st->deep && st->a.g.dim == 3) return h_deep_overlap(ctx, st, steps, halo, arg);
#endif
  if (st->deep) return h_deep_steps(ctx, st, steps, halo, arg);
#if defined(HD_BACKEND_CUDA) && defined(HD_HEAT_HAS_TUNED)
  if (st->tuned && !st->map && !st->balance) return h_overlap_steps(ctx, st, steps, shared, halo, arg);
#endif
  for (n = 0; n < steps && s == HD_OK; ++n)
    if ((s = h_advance(ctx, state, 1)) == HD_OK) s = halo(ctx, arg);
  return s;
}

static hd_status h_stats(hd_ctx *ctx, void *state, hd_stats *out) {
  heat_state *st = (heat_state *)state;
  hd_field f;
  f.f = st->a.t;
  f.g = st->a.g;
  return hd_field_stats(ctx, &f, hd_grid_interior(&f.g), out);
}

/* Statistics of each row of cells (y, z), folded in x order with global
 * cell offsets: the driver merges rows in global order, so its figures do
 * not depend on the ranks, and only the rows cross to the host. */
typedef struct h_rows_args {
  hd_field f;
  hd_idx origin[3], cells[3];
  hd_stats *rows;
} h_rows_args;

HD_FN void h_row_pt(const h_rows_args *a, hd_idx j, hd_idx k) {
  const hd_range3 r = hd_grid_interior(&a->f.g);
  const hd_idx g0 = ((a->origin[1] + j) + (a->origin[2] + k) * a->cells[1]) * a->cells[0] + a->origin[0];
  const hd_real *row = a->f.f + hd_grid_at(&a->f.g, r.lo[0], r.lo[1] + j, r.lo[2] + k);
  hd_stats s;
  hd_idx i;
  hd_stats_init(&s);
  for (i = 0; i < a->f.g.n[0]; ++i) hd_stats_add(&s, (double)row[i], g0 + i);
  a->rows[j + k * a->f.g.n[1]] = s;
}
HD_DEFINE_FOR_2D(h_rows_loop, h_row_pt, h_rows_args)

static hd_status h_row_stats(hd_ctx *ctx, void *state, hd_stats *rows) {
  heat_state *st = (heat_state *)state;
  const hd_grid *g = &st->a.g;
  h_rows_args ra;
  hd_status s;
  int d;
  ra.f.f = st->a.t;
  ra.f.g = *g;
  for (d = 0; d < 3; ++d) ra.origin[d] = st->origin[d], ra.cells[d] = st->cells[d];
  ra.rows = st->rows;
  s = h_rows_loop(ctx, &ra, hd_range3_make(0, g->n[1], 0, g->n[2], 0, 1));
  if (s == HD_OK) s = hd_dev_download(ctx, rows, st->rows, (size_t)(g->n[1] * g->n[2]) * sizeof(hd_stats));
  return s;
}

/* The interior in x order, through a bounded staging buffer: runs of whole
 * padded rows of at most 64 MiB, so a rank holds its block and no more. */
static hd_status h_download(hd_ctx *ctx, void *state, double *out) {
  heat_state *st = (heat_state *)state;
  const hd_grid *g = &st->a.g;
  const hd_range3 r = hd_grid_interior(g);
  const hd_idx s1 = g->stride[1], most = (hd_idx)(((size_t)64 << 20) / sizeof(hd_real));
  const hd_idx cap = s1 > most ? s1 : most < g->total ? most : g->total;
  hd_real *host = (hd_real *)hd_host_alloc((size_t)cap * sizeof(hd_real));
  hd_idx i, j = r.lo[1], k = r.lo[2], m = 0;
  hd_status s = HD_OK;
  if (!host) return hd_fail(ctx, HD_ERR_NOMEM, "heat: no host memory for the field download");
  while (s == HD_OK && k < r.hi[2]) {
    const hd_idx o0 = hd_grid_at(g, 0, j, k);
    hd_idx jn = j, kn = k, end = o0; /* the rows from (j, k) that fit, then the next row */
    while (kn < r.hi[2] && hd_grid_at(g, 0, jn, kn) + s1 - o0 <= cap) {
      end = hd_grid_at(g, 0, jn, kn) + s1;
      if (++jn == r.hi[1]) jn = r.lo[1], ++kn;
    }
    s = hd_dev_download(ctx, host, st->a.t + o0, (size_t)(end - o0) * sizeof(hd_real));
    for (; s == HD_OK && (j != jn || k != kn);) {
      const hd_real *row = host + (hd_grid_at(g, 0, j, k) - o0);
      for (i = r.lo[0]; i < r.hi[0]; ++i) out[m++] = (double)row[i];
      if (++j == r.hi[1]) j = r.lo[1], ++k;
    }
  }
  hd_host_free(host);
  return s;
}

static void *h_field(void *state, long *lead, long *pitch) {
  const heat_state *st = (const heat_state *)state;
  *lead = (long)(st->lead - st->off), *pitch = (long)st->a.g.stride[1];
  return (void *)(st->a.t - st->lead);
}

/* A wide block's field in a checkpoint as the block's own padded layout
 * (that of a run without time blocks, whose checkpoints it reads and
 * writes); its overlap is exchanged again before the next step. */
static hd_status h_state_block(hd_ctx *ctx, heat_state *st, char name[16], uint64_t *bytes, void *host, int save) {
  const hd_grid *g = &st->a.g;
  hd_grid c;
  hd_real *wide, *out = (hd_real *)host;
  hd_idx i, j, k, e[3];
  hd_status s = HD_OK;
  int d;
  snprintf(name, 16, "temperature");
  if (!hd_grid_init(&c, g->dim, g->n[0], g->n[1], g->n[2], 1)) return hd_fail(ctx, HD_ERR_ARG, "heat: bad block");
  *bytes = (uint64_t)c.total * sizeof(hd_real);
  if (!host) return HD_OK;
  if (!(wide = (hd_real *)calloc((size_t)st->wide.total, sizeof(hd_real))))
    return hd_fail(ctx, HD_ERR_NOMEM, "heat: no host memory for the checkpoint");
  for (d = 0; d < 3; ++d) e[d] = g->n[d] + (d < g->dim ? 2 : 0);
  if (save) s = hd_dev_download(ctx, wide, st->a.t - st->off, (size_t)st->wide.total * sizeof(hd_real));
  for (k = 0; k < e[2] && s == HD_OK; ++k)
    for (j = 0; j < e[1]; ++j)
      for (i = 0; i < e[0]; ++i) {
        hd_real *at = wide + st->off + hd_grid_at(g, i, j, k), *to = out + hd_grid_at(&c, i, j, k);
        if (save) *to = *at;
        else *at = *to;
      }
  if (!save && s == HD_OK) s = hd_dev_upload(ctx, (hd_real *)st->a.t - st->off, wide, (size_t)st->wide.total * sizeof(hd_real));
  if (!save) st->stale = 1;
  free(wide);
  return s;
}

/* The field with its ghosts, and the face accumulators of the heat
 * accounting. */
static int h_state_count(void *state) {
  heat_state *st = (heat_state *)state;
  int f, n = 1;
  for (f = 0; f < HD_NFACES; ++f) n += st->flow.acc[f] != NULL;
  return n;
}

static hd_status h_state_io(hd_ctx *ctx, void *state, int k, char name[16], uint64_t *bytes, void *host, int save) {
  heat_state *st = (heat_state *)state;
  const hd_grid *g = &st->a.g;
  hd_state_entry e;
  int f;
  memset(&e, 0, sizeof e);
  if (k == 0 && st->deep) return h_state_block(ctx, st, name, bytes, host, save);
  e.name = "temperature", e.dev = (void *)st->a.t, e.bytes = (size_t)g->total * sizeof(hd_real), e.host = 0;
  for (f = 0; f < HD_NFACES && k > 0; ++f)
    if (st->flow.acc[f] && --k == 0) {
      static const char *const names[HD_NFACES] = HEAT_FLOW_NAMES;
      const int axis = f / 2, b0 = axis == 0 ? 1 : 0, b1 = axis == 2 ? 1 : 2;
      e.name = names[f], e.dev = st->flow.acc[f], e.bytes = (size_t)(g->n[b0] * g->n[b1]) * sizeof(double);
    }
  return hd_state_entry_io(ctx, NULL, &e, name, bytes, host, save);
}

static hd_status h_set_faces(hd_ctx *ctx, void *state, const double value[6]) {
  heat_state *st = (heat_state *)state;
  int f;
  (void)ctx;
  for (f = 0; f < 2 * st->a.g.dim; ++f) {
    const int kind = st->a.bc[f].kind;
    if (kind != HD_HEAT_HALO && kind != HD_HEAT_ADIABATIC)
      st->a.bc[f] = hd_heat_face(kind, value[f], st->face_h[f], st->face_k, st->face_dx[f / 2]);
  }
  return st->scheme != HEAT_SCHEME_EXPLICIT ? h_implicit_tables(ctx, st) : HD_OK; /* the ghost maps' g1 */
}

static hd_status h_probe(hd_ctx *ctx, void *state, const long ijk[3], double *out) {
  heat_state *st = (heat_state *)state;
  const hd_range3 r = hd_grid_interior(&st->a.g);
  hd_real v;
  const hd_status s = hd_dev_download(ctx, &v, st->a.t + hd_grid_at(&st->a.g, r.lo[0] + ijk[0], r.lo[1] + ijk[1],
                                                                       r.lo[2] + ijk[2]), sizeof v);
  *out = (double)v;
  return s;
}

static hd_status h_balance(hd_ctx *ctx, void *state, hd_xsum *energy, hd_xsum faces[6], double *counts,
                           hd_xsum *field_source) {
  heat_state *st = (heat_state *)state;
  const hd_grid *g = &st->a.g;
  const size_t nrows = (size_t)(g->n[1] * g->n[2]);
  size_t most = nrows, m, count;
  double *host;
  hd_status s = HD_OK;
  int f;
  for (f = 0; f < HD_NFACES; ++f) {
    const int axis = f / 2, b0 = axis == 0 ? 1 : 0, b1 = axis == 2 ? 1 : 2;
    if ((size_t)(g->n[b0] * g->n[b1]) > most) most = (size_t)(g->n[b0] * g->n[b1]);
  }
  if (!(host = (double *)malloc(most * sizeof(double))))
    return hd_fail(ctx, HD_ERR_NOMEM, "heat: no host memory for the heat balance");
  st->energy.t = st->a.t;
  s = hd_heat_energy_loop(ctx, &st->energy, hd_range3_make(0, g->n[1], 0, g->n[2], 0, 1));
  if (s == HD_OK) s = hd_dev_download(ctx, host, st->energy.rows, nrows * sizeof(double));
  hd_xsum_init(energy);
  for (m = 0; s == HD_OK && m < nrows; ++m) hd_xsum_add(energy, host[m]);
  for (f = 0; f < HD_NFACES; ++f) {
    const int axis = f / 2, b0 = axis == 0 ? 1 : 0, b1 = axis == 2 ? 1 : 2;
    hd_xsum_init(&faces[f]);
    if (s != HD_OK || !st->flow.acc[f] || st->a.bc[f].kind == HD_HEAT_HALO) continue;
    count = (size_t)(g->n[b0] * g->n[b1]);
    s = hd_dev_download(ctx, host, st->flow.acc[f], count * sizeof(double));
    for (m = 0; s == HD_OK && m < count; ++m) hd_xsum_add(&faces[f], host[m]);
  }
  free(host);
  memcpy(counts, st->counts, sizeof st->counts);
  *field_source = st->qheat;
  return s;
}

#if defined(HD_HEAT_HAS_TUNED)
#define HEAT_HAS_TUNED 1
#else
#define HEAT_HAS_TUNED 0
#endif

const heat_ops HD_OPS_NAME(heat_ops) = {HD_BACKEND_NAME, HD_REAL_NAME, sizeof(hd_real), HEAT_HAS_TUNED,
                                        h_create, h_advance, h_advance_halo, h_stats, h_row_stats, h_download, h_destroy,
                                        h_field, h_state_count, h_state_io, h_set_faces, h_probe, h_balance,
                                        h_material_sums, h_solves, h_solver_comm};
