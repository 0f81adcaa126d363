/* SPDX-License-Identifier: BSD-3-Clause */
/* A part of heat_impl.h (the heat backend table), included there once per
 * backend and precision: implicit steps and steady states (hd/heat_implicit.h,
 * hd/heat_solve.h) on the state's media, and the sums over materials that
 * TeaLeaf's field summary asks for. */

/* The tables of A and b (cap, qd, rc, the faces' ghost maps) from the
 * state's face conditions, into backend memory. */
static hd_status h_implicit_tables(hd_ctx *ctx, heat_state *st) {
  const int nm = st->nm, steady = st->scheme == HEAT_SCHEME_STEADY;
  const size_t count = (size_t)(15 * nm);
  hd_real *host = (hd_real *)malloc(count * sizeof(hd_real));
  hd_status s;
  if (!host) return hd_fail(ctx, HD_ERR_NOMEM, "heat: out of host memory for the implicit tables");
  hd_heat_sys_tables(nm, st->mk, st->mrhoc, st->mq, st->a.bc, steady, (double)st->a.dt, host, host + nm, host + 2 * nm,
                     host + 3 * nm);
  s = st->itab ? HD_OK : hd_dev_alloc(ctx, (void **)&st->itab, count * sizeof(hd_real));
  if (s == HD_OK) s = hd_dev_upload(ctx, st->itab, host, count * sizeof(hd_real));
  free(host);
  return s;
}

/* The system of problem p's scheme on the state's media (h_media done), its
 * right side's constants and the solver. */
static hd_status h_implicit_open(hd_ctx *ctx, heat_state *st, const heat_problem *p, const double dx[3]) {
  const int steady = p->scheme == HEAT_SCHEME_STEADY;
  const double theta = p->scheme == HEAT_SCHEME_CN ? 0.5 : 1.0, dt = steady ? 1.0 : p->dt;
  hd_status s;
  int d;
  st->scheme = p->scheme, st->theta = theta, st->nm = p->nmat;
  for (d = 0; d < p->nmat; ++d) st->mk[d] = p->mat_k[d], st->mrhoc[d] = p->mat_rhoc[d], st->mq[d] = p->mat_q[d];
  if ((s = h_implicit_tables(ctx, st)) != HD_OK) return s;
  memset(&st->sys, 0, sizeof st->sys);
  st->sys.g = st->a.g, st->sys.m = st->map, st->sys.kf = st->media.md.kf, st->sys.nm = st->nm;
  st->sys.cap = st->itab, st->sys.gmap = st->itab + 3 * st->nm;
  for (d = 0; d < 3; ++d) st->sys.w[d] = d < p->dim ? (hd_real)(theta * dt / (dx[d] * dx[d])) : HD_R(0);
  for (d = 0; d < HD_NFACES; ++d) st->sys.mapped[d] = st->a.bc[d].kind != HD_HEAT_HALO;
  memset(&st->rhs, 0, sizeof st->rhs);
  st->rhs.qd = st->itab + st->nm, st->rhs.rc = st->itab + 2 * st->nm;
  for (d = 0; d < 3; ++d) st->rhs.e[d] = d < p->dim ? (hd_real)((1.0 - theta) * dt / (dx[d] * dx[d])) : HD_R(0);
  st->rhs.dtq = (hd_real)(dt * p->q), st->rhs.dt = (hd_real)dt;
  hd_heat_solver_defaults(&st->sv);
  st->sv.kind = p->solver;
  if (p->tol >= 0) st->sv.tol = p->tol;
  st->sv.tol_abs = p->tol_abs;
  if (p->max_iters > 0) st->sv.max_iters = (int)p->max_iters;
  if (p->presteps > 0) st->sv.presteps = p->presteps;
  if (p->inner > 0) st->sv.inner = p->inner;
  for (d = 0; d < 3; ++d) st->sv.origin[d] = st->origin[d], st->sv.cells[d] = st->cells[d];
  return hd_heat_solver_open(ctx, &st->sv, &st->sys);
}

/* One implicit step (or the steady solve) of the field in place: the right
 * side into t_next, the solve from the field, its ghosts; the heat through
 * the faces counted (1 - theta) from the old field and theta from the
 * new.  A solve that misses its tolerance fails the run. */
static hd_status h_flow(hd_ctx *ctx, heat_state *st, const int block[3], double weight);

static hd_status h_implicit_step(hd_ctx *ctx, heat_state *st, const int block[3]) {
  const hd_range3 in = hd_grid_interior(&st->a.g);
  hd_heat_media_args ghosts;
  hd_status s = HD_OK;
  int f;
  for (f = 0; f < HD_NFACES; ++f) st->sys.mapped[f] = st->a.bc[f].kind != HD_HEAT_HALO;
  if (st->balance && st->theta < 1.0) s = h_flow(ctx, st, block, 1.0 - st->theta);
  st->rhs.s = st->sys, st->rhs.t = st->a.t, st->rhs.b = st->a.t_next, st->rhs.q = st->qfield;
  if (s == HD_OK) s = hd_heat_rhs_loop(ctx, &st->rhs, in);
  if (s == HD_OK) s = hd_heat_solve(ctx, &st->sv, &st->sys, (hd_real *)st->a.t, st->a.t_next);
  if (s != HD_OK) return s;
  st->solves.count++, st->solves.iters += st->sv.iters, st->solves.iters_last = st->sv.iters;
  st->solves.res0 = st->sv.res0, st->solves.res = st->sv.res;
  if (!st->sv.converged) {
    static const char *const names[4] = {"CG", "Chebyshev", "PPCG", "multigrid CG"};
    return hd_fail(ctx, HD_ERR_NOCONV,
                   "heat: the %s solve of step %ld missed its tolerance in %ld iterations (residual %.3g from %.3g; "
                   "stop at %.3g): raise --max-iters or --tol, or take another --solver", names[st->sv.kind],
                   st->solves.count, st->sv.iters, st->sv.res, st->sv.res0, fmax(st->sv.tol * st->sv.res0, st->sv.tol_abs));
  }
  ghosts = st->media, ghosts.a = st->a, ghosts.a.t_next = (hd_real *)st->a.t;
  s = hd_heat_media_fill_ghosts(ctx, &ghosts);
  if (s == HD_OK && st->balance) s = h_flow(ctx, st, block, st->theta);
  return s;
}

static void h_solves(void *state, heat_solves *out) { *out = ((heat_state *)state)->solves; }

static void h_solver_comm(void *state, hd_heat_halo_fn halo, hd_heat_rowsum_fn rowsum, hd_heat_gather_fn gather, int dist,
                          void *arg) {
  heat_state *st = (heat_state *)state;
  st->sv.halo = halo, st->sv.rowsum = rowsum, st->sv.gather = gather, st->sv.dist = dist, st->sv.arg = arg;
}

static hd_status h_material_sums(hd_ctx *ctx, void *state, const double *w, hd_xsum *sum, double *counts) {
  heat_state *st = (heat_state *)state;
  const hd_grid *g = &st->a.g;
  const size_t nrows = (size_t)(g->n[1] * g->n[2]);
  hd_heat_energy_args ea;
  double *host;
  hd_status s = HD_OK;
  size_t m;
  int d;
  if (!st->map) return hd_fail(ctx, HD_ERR_UNSUPPORTED, "heat: sums over materials need materials");
  if (!st->wsum) s = hd_dev_alloc(ctx, (void **)&st->wsum, HD_HEAT_MAX_MATERIALS * sizeof(double));
  if (s == HD_OK && !st->wrows) s = hd_dev_alloc(ctx, (void **)&st->wrows, nrows * sizeof(double));
  if (s == HD_OK) s = hd_dev_upload(ctx, st->wsum, w, (size_t)st->media.md.nm * sizeof(double));
  if (s != HD_OK) return s;
  memset(&ea, 0, sizeof ea);
  ea.t = st->a.t, ea.g = *g, ea.m = st->map, ea.rhoc = st->wsum, ea.rows = st->wrows, ea.vol = 1.0;
  for (d = 0; d < g->dim; ++d) ea.vol *= st->face_dx[d];
  if (!(host = (double *)malloc(nrows * sizeof(double)))) return hd_fail(ctx, HD_ERR_NOMEM, "heat: out of host memory");
  s = hd_heat_energy_loop(ctx, &ea, hd_range3_make(0, g->n[1], 0, g->n[2], 0, 1));
  if (s == HD_OK) s = hd_dev_download(ctx, host, st->wrows, nrows * sizeof(double));
  hd_xsum_init(sum);
  for (m = 0; s == HD_OK && m < nrows; ++m) hd_xsum_add(sum, host[m]);
  free(host);
  memcpy(counts, st->counts, sizeof st->counts);
  return s;
}

/* The initial field of each cell's material (problem.init_materials). */
static hd_status h_init_materials(hd_ctx *ctx, heat_state *st, const heat_problem *p) {
  const hd_grid *g = &st->a.g;
  const hd_range3 r = hd_grid_interior(g);
  unsigned char *map = (unsigned char *)malloc((size_t)g->total);
  hd_real *host = (hd_real *)calloc((size_t)g->total, sizeof(hd_real));
  hd_idx i, j, k;
  hd_status s;
  if (!map || !host) return free(map), free(host), hd_fail(ctx, HD_ERR_NOMEM, "heat: out of host memory for the initial field");
  s = hd_dev_download(ctx, map, st->map, (size_t)g->total);
  for (k = r.lo[2]; s == HD_OK && k < r.hi[2]; ++k)
    for (j = r.lo[1]; j < r.hi[1]; ++j)
      for (i = r.lo[0]; i < r.hi[0]; ++i) {
        const hd_idx c = hd_grid_at(g, i, j, k);
        host[c] = (hd_real)p->mat_t0[hd_heat_mat(map[c])];
      }
  if (s == HD_OK) s = hd_dev_upload(ctx, st->buf[0], host, (size_t)g->total * sizeof(hd_real));
  free(map), free(host);
  return s;
}
