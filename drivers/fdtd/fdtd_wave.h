/* SPDX-License-Identifier: BSD-3-Clause */
/* FDTD time blocks on the CPU backends (--time-block): T steps a sweep of
 * memory, bit-identical to T single steps (fd_step), included by
 * fdtd_impl.h.
 *
 * A wavefront over the padded z planes.  At wave w, for s = 0 .. T-1 in
 * turn, step s takes plane ke = w - 3 s through its E half step (the rows
 * of the bulk, then the plane's points of every pass in fd_step's order),
 * then plane ke - 1 through its H half step.  E of plane k reads H of k
 * and k - 1, H of k reads E of k and k + 1, each a wave or a half step
 * earlier, and nothing is overwritten before every reader has read it.
 * What a step records after its H update (probes, surface, map and volume
 * samples) reads E and H of planes k - 1 .. k + 1 and is taken for plane
 * ke - 3 in the E half: the skew of 3 planes a step leaves those planes
 * finished and not yet overwritten.  A Mur point on a z face reads the
 * plane inwards: it is taken with that plane, the ghost copies of a
 * periodic x or y axis after it.
 *
 * Threads own bands of rows (y) of every plane, the points of a pass
 * going to the band of the row they update from (a Mur point: the row of
 * the value it reads), so the only barriers are the two of each half step
 * (a periodic y axis adds one before its ghost copies).  Per-step records
 * (feeds, probes) land in rows of their step; the running DFTs that read
 * them step after the block, in step order.
 *
 * The scattered-field form's line is marched through the block's T steps
 * before it, each step's E and H kept for the step's points to read.
 *
 * Not blocked (single steps, fd_tb_refusal says which): the generic
 * variant, a periodic z axis, the total-field box's incident line (one
 * line for the whole grid each half step), CUDA (for now).  Several ranks
 * exchange halos every step: their advance takes one step at a time. */

#define FD_TB_MAX FDTD_MAX_TIME_BLOCK
#define FD_TB_SKEW 3 /* planes between steps of a wave */

#if defined(HD_BACKEND_OPENMP)
#define FD_TB_BARRIER { _Pragma("omp barrier") }
#else
#define FD_TB_BARRIER {}
#endif

/* After a block of T steps from st->step: the running DFTs of its
 * records, step by step (fd_step's order); step q's feeds' V, I at vi +
 * q vstride, its probes at prec + q nrec (NULL: none kept). */
static hd_status fd_block_records(hd_ctx *ctx, fdtd_state *st, int T, hd_real *vi, hd_idx vstride, hd_real *prec) {
  const long s0 = st->step;
  hd_status s = HD_OK;
  int q;
  for (q = 0; q < T && s == HD_OK; ++q) {
    st->step = s0 + q;
    if (st->pw_sf) st->inc.src = (hd_real)(st->pw_e0 * hd_fdtd_waveform(&st->wave_h, (double)(st->step + 1) * st->dt));
    if (st->nfreq && (st->nfeed || st->inc_acc)) s = fd_dft_step(ctx, st, vi + q * vstride, 0);
    if (s == HD_OK && prec && st->probe_acc) s = fd_probe_dft(ctx, st, prec + (hd_idx)q * st->nrec);
    ++st->step;
    if (s == HD_OK) s = fd_field_flush(ctx, st);
  }
  st->step = s0 + T;
  return s;
}

#if defined(HD_BACKEND_CUDA)
#include "fdtd_fused.h"
#endif

/* Why this state cannot take time blocks (NULL: it can). */
static const char *fd_tb_refusal(const fdtd_state *st) {
#if defined(HD_BACKEND_CUDA)
  return fd_fused_refusal(st);
#else
  if (!st->tuned) return "time blocks use the tuned rows (--variant=generic steps singly)";
  if (st->bc[2] == HD_FDTD_BC_PERIODIC) return "a periodic z axis ties the first plane to the last every step";
  if (st->inc.n && !st->pw_sf) return "the total-field box's incident line steps the whole grid's plane wave every half step";
  if (st->twin) return "a Bloch-periodic cell steps its real and imaginary parts together";
  return NULL;
#endif
}

#if !defined(HD_BACKEND_CUDA)

/* A point list in plane order: thread t's points of plane k are
 * order[start[k nt + t] .. start[k nt + t + 1]), in list order. */
typedef struct fd_sched {
  hd_idx *order, *start;
} fd_sched;

/* The time blocks' plan: one schedule a point list, the threads' bands. */
typedef struct fd_tb {
  int nt;                      /* threads the plan is for */
  hd_idx planes, rows;         /* padded z planes, padded rows a plane */
  hd_idx *band;                /* thread t's rows: band[t] .. band[t + 1] */
  fd_sched mur, pml[6], ade, sf[2], feed, probe, surf, plane[FDTD_MAX_PLANES];
  hd_real *vi;                 /* FD_TB_MAX rows of the feeds' V, I when no record is kept */
  hd_fdtd_mur_args mur_args;   /* the passes' fixed arguments */
  hd_fdtd_cpml_args cpml[6];
} fd_tb;

static void fd_sched_free(fd_sched *q) {
  free(q->order), free(q->start);
  q->order = q->start = NULL;
}

static void fd_tb_free(fd_tb *tb) {
  int c;
  if (!tb) return;
  fd_sched_free(&tb->mur), fd_sched_free(&tb->ade), fd_sched_free(&tb->sf[0]), fd_sched_free(&tb->sf[1]);
  fd_sched_free(&tb->feed), fd_sched_free(&tb->probe), fd_sched_free(&tb->surf);
  for (c = 0; c < 6; ++c) fd_sched_free(&tb->pml[c]);
  for (c = 0; c < FDTD_MAX_PLANES; ++c) fd_sched_free(&tb->plane[c]);
  free(tb->band);
  free(tb->vi);
  free(tb);
}

/* The band of padded row j. */
static int fd_tb_owner(const fd_tb *tb, hd_idx j) {
  int t = 0;
  while (t + 1 < tb->nt && j >= tb->band[t + 1]) ++t;
  return t;
}

/* A schedule of n points, point p in plane[p] and row[p] (a counting
 * sort: list order kept within a plane and band). */
static int fd_sched_build(fd_sched *q, const fd_tb *tb, hd_idx n, const hd_idx *plane, const hd_idx *row) {
  const hd_idx buckets = tb->planes * tb->nt;
  hd_idx p, b, *fill;
  q->start = (hd_idx *)calloc((size_t)buckets + 1, sizeof(hd_idx));
  q->order = (hd_idx *)malloc((size_t)(n ? n : 1) * sizeof(hd_idx));
  fill = (hd_idx *)malloc((size_t)buckets * sizeof(hd_idx));
  if (!q->start || !q->order || !fill) {
    free(fill);
    return 0;
  }
  for (p = 0; p < n; ++p) ++q->start[plane[p] * tb->nt + fd_tb_owner(tb, row[p]) + 1];
  for (b = 0; b < buckets; ++b) q->start[b + 1] += q->start[b], fill[b] = q->start[b];
  for (p = 0; p < n; ++p) q->order[fill[plane[p] * tb->nt + fd_tb_owner(tb, row[p])]++] = p;
  free(fill);
  return 1;
}

/* Plane and row of padded index n. */
static void fd_tb_place(const fdtd_state *st, hd_idx n, hd_idx *plane, hd_idx *row) {
  const hd_grid *g = &st->a.g;
  *plane = n / g->stride[2];
  *row = n % g->stride[2] / g->stride[1];
}

/* Every schedule of the state for nt threads. */
static fd_tb *fd_tb_plan(const fdtd_state *st, int nt) {
  const hd_grid *g = &st->a.g;
  fd_tb *tb = (fd_tb *)calloc(1, sizeof *tb);
  hd_idx most = st->nmur, p, *plane = NULL, *row = NULL;
  int c, q, fine;
  if (!tb) return NULL;
  tb->nt = nt;
  tb->planes = g->n[2] + 2 * g->ghost;
  tb->rows = g->stride[2] / g->stride[1];
  tb->band = (hd_idx *)malloc((size_t)(nt + 1) * sizeof(hd_idx));
  if (st->nfeed) tb->vi = (hd_real *)malloc((size_t)FD_TB_MAX * 2 * st->nfeed * sizeof(hd_real));
  for (c = 0; c < 6; ++c) most = st->npml[c] > most ? st->npml[c] : most;
  most = st->nade > most ? st->nade : most;
  most = st->nsf[0] > most ? st->nsf[0] : most;
  most = st->nsf[1] > most ? st->nsf[1] : most;
  most = st->npts > most ? st->npts : most;
  most = st->nfeed > most ? st->nfeed : most;
  most = st->nprobe > most ? st->nprobe : most;
  for (q = 0; q < st->nplane; ++q) most = st->plane[q].ncell > most ? st->plane[q].ncell : most;
  plane = (hd_idx *)malloc((size_t)(most + 1) * sizeof(hd_idx));
  row = (hd_idx *)malloc((size_t)(most + 1) * sizeof(hd_idx));
  fine = tb->band && plane && row && (tb->vi || !st->nfeed);
  for (c = 0; fine && c <= nt; ++c) tb->band[c] = tb->rows * c / nt;
  for (c = 0; c < 3; ++c) tb->mur_args.f[c] = st->a.f[(st->mur_h ? HD_FDTD_HX : HD_FDTD_EX) + c];
  tb->mur_args.pt = st->mur, tb->mur_args.prev = st->mur_prev;
  for (c = 0; c < 6; ++c) { /* as fd_layers_step */
    tb->cpml[c] = st->cpml_args[c];
    tb->cpml[c].f = st->a, tb->cpml[c].pt = st->pml[c].pt, tb->cpml[c].comp = c;
    tb->cpml[c].psi1 = st->pml[c].s1, tb->cpml[c].psi2 = st->pml[c].s2;
  }
  /* Mur: the plane of whichever of its two values is later, the row it reads */
  for (p = 0; fine && p < st->nmur; ++p) {
    hd_idx k0, k1, j0;
    fd_tb_place(st, st->mur[p].m0, &k0, &j0);
    fd_tb_place(st, st->mur[p].m1, &k1, &row[p]);
    plane[p] = k0 > k1 ? k0 : k1;
  }
  fine = fine && fd_sched_build(&tb->mur, tb, st->nmur, plane, row);
  for (c = 0; fine && c < 6; ++c) {
    for (p = 0; p < st->npml[c]; ++p) fd_tb_place(st, st->pml[c].pt[p].n, &plane[p], &row[p]);
    fine = fd_sched_build(&tb->pml[c], tb, st->npml[c], plane, row);
  }
  for (p = 0; fine && p < st->nade; ++p) fd_tb_place(st, st->ade.edge[p].n, &plane[p], &row[p]);
  fine = fine && fd_sched_build(&tb->ade, tb, st->nade, plane, row);
  for (c = 0; fine && c < 2; ++c) {
    for (p = 0; p < st->nsf[c]; ++p) fd_tb_place(st, st->sf[c][p].n, &plane[p], &row[p]);
    fine = fd_sched_build(&tb->sf[c], tb, st->nsf[c], plane, row);
  }
  for (p = 0; fine && p < st->nfeed; ++p) fd_tb_place(st, st->feed[p].n, &plane[p], &row[p]);
  fine = fine && fd_sched_build(&tb->feed, tb, st->nfeed, plane, row);
  for (p = 0; fine && p < st->nprobe; ++p) fd_tb_place(st, st->probe[p].n, &plane[p], &row[p]);
  fine = fine && fd_sched_build(&tb->probe, tb, st->nprobe, plane, row);
  for (p = 0; fine && p < st->npts; ++p) fd_tb_place(st, st->surf_node[p], &plane[p], &row[p]);
  fine = fine && fd_sched_build(&tb->surf, tb, st->npts, plane, row);
  for (q = 0; fine && q < st->nplane; ++q) {
    const hd_dft_plane_args *a = &st->plane[q];
    for (p = 0; p < a->ncell; ++p) fd_tb_place(st, a->base + (p % a->nu) * a->su + (p / a->nu) * a->sv, &plane[p], &row[p]);
    fine = fd_sched_build(&tb->plane[q], tb, a->ncell, plane, row);
  }
  free(plane), free(row);
  if (!fine) {
    fd_tb_free(tb);
    return NULL;
  }
  return tb;
}

/* Each step's arguments of a block (the phases of its near-field maps,
 * chunk by chunk of frequencies, are in the block's phase array). */
typedef struct fd_tb_step {
  hd_fdtd_ade_args ade;
  hd_fdtd_sf_args sf[2];
  hd_fdtd_feed_args feed;
  hd_fdtd_probe_args probe;
  hd_fdtd_sf_probe_args sf_probe;
  hd_dft_sample_args surf;
  hd_dft_volume_args vol;
  hd_real *vi;                 /* the feeds' V and I of this step */
  int field_due;               /* the fields' DFTs sample this step (fd_field_due) */
} fd_tb_step;

/* x over thread t's points of plane k in schedule q (their indices:
 * q.order[x]). */
#define FD_TB_POINTS(q, tb, k, t, x) \
  for (x = (q).start[(k) * (tb)->nt + (t)]; x < (q).start[(k) * (tb)->nt + (t) + 1]; ++x)

/* The ghost copies of a periodic x (axis 0) or y axis on plane k, rows
 * j0 .. j1 (fd_periodic restricted). */
static void fd_tb_periodic(const fdtd_state *st, int efield, int a, hd_idx k, hd_idx j0, hd_idx j1) {
  const hd_grid *g = &st->a.g;
  const hd_idx pad = g->ghost, n = st->a.nc[a];
  hd_fdtd_copy_args cp;
  hd_range3 r = hd_range3_make(0, g->n[0] + 2 * pad, j0, j1, k, k + 1);
  hd_idx i, j;
  int c;
  cp.g = *g;
  r.lo[a] = efield ? pad + n : pad - 1;
  r.hi[a] = r.lo[a] + 1;
  if (r.lo[1] < j0) r.lo[1] = j0;
  if (r.hi[1] > j1) r.hi[1] = j1;
  cp.shift = (efield ? -n : n) * g->stride[a];
  for (c = 0; c < 3; ++c) {
    if (c == a) continue;
    cp.f = st->a.f[efield ? c : 3 + c];
    for (j = r.lo[1]; j < r.hi[1]; ++j)
      for (i = r.lo[0]; i < r.hi[0]; ++i) hd_fdtd_copy_pt(&cp, i, j, k);
  }
}

/* The ghost copies after a half step of plane k (efield: E): x along each
 * thread's own rows, y (rows of other threads, and x's ghosts) after a
 * barrier.  Plane `late` (-1: none) is copied with the plane above it,
 * after the Mur points that set it. */
static void fd_tb_copies(const fdtd_state *st, int efield, hd_idx k, hd_idx planes, hd_idx late, hd_idx j0, hd_idx j1) {
  const int xper = st->bc[0] == HD_FDTD_BC_PERIODIC, yper = st->bc[1] == HD_FDTD_BC_PERIODIC;
  const int here = k >= 0 && k < planes && k != late, below = late >= 0 && k == late + 1;
  if (xper && here) fd_tb_periodic(st, efield, 0, k, j0, j1);
  if (xper && below) fd_tb_periodic(st, efield, 0, late, j0, j1);
  if (!yper) return;
  FD_TB_BARRIER
  if (here) fd_tb_periodic(st, efield, 1, k, j0, j1);
  if (below) fd_tb_periodic(st, efield, 1, late, j0, j1);
}

/* Plane k's E half step of step a, thread t's rows j0 .. j1 (fd_step's
 * passes after the E update, Mur by the plane it reads). */
static void fd_tb_e(const fdtd_state *st, const fd_tb *tb, const fd_tb_step *a, hd_idx k, int t, hd_idx j0, hd_idx j1) {
  const hd_idx pad = st->a.g.ghost;
  hd_idx j, x;
  int c;
  if (k >= pad && k <= pad + st->a.nc[2])
    for (j = j0 > pad ? j0 : pad; j < j1 && j <= pad + st->a.nc[1]; ++j) hd_fdtd_cpu_row(&st->a, j, k, 1);
  FD_TB_POINTS(tb->ade, tb, k, t, x) hd_fdtd_ade_pt(&a->ade, tb->ade.order[x]);
  if (st->pw_sf && st->nsf[0]) FD_TB_POINTS(tb->sf[0], tb, k, t, x) hd_fdtd_sf_pt(&a->sf[0], tb->sf[0].order[x]);
  for (c = 0; c < 3; ++c) {
    if (!st->npml[c]) continue;
    if (st->cpml) FD_TB_POINTS(tb->pml[c], tb, k, t, x) hd_fdtd_cpml_pt(&tb->cpml[c], tb->pml[c].order[x]);
    else FD_TB_POINTS(tb->pml[c], tb, k, t, x) hd_fdtd_pml_pt(&st->pml[c], tb->pml[c].order[x]);
  }
  if (st->nmur && !st->mur_h) FD_TB_POINTS(tb->mur, tb, k, t, x) hd_fdtd_mur_pt(&tb->mur_args, tb->mur.order[x]);
  FD_TB_POINTS(tb->feed, tb, k, t, x) hd_fdtd_feed_pt(&a->feed, tb->feed.order[x]);
}

/* Plane k's H half step of step a, thread t's rows. */
static void fd_tb_h(const fdtd_state *st, const fd_tb *tb, const fd_tb_step *a, hd_idx k, int t, hd_idx j0, hd_idx j1) {
  const hd_idx pad = st->a.g.ghost;
  hd_idx j, x;
  int c;
  if (k >= pad && k <= pad + st->a.nc[2])
    for (j = j0 > pad ? j0 : pad; j < j1 && j <= pad + st->a.nc[1]; ++j) hd_fdtd_cpu_row(&st->a, j, k, 0);
  if (st->nmur && st->mur_h) FD_TB_POINTS(tb->mur, tb, k, t, x) hd_fdtd_mur_pt(&tb->mur_args, tb->mur.order[x]);
  if (st->pw_sf && st->nsf[1]) FD_TB_POINTS(tb->sf[1], tb, k, t, x) hd_fdtd_sf_pt(&a->sf[1], tb->sf[1].order[x]);
  for (c = 3; c < 6; ++c) {
    if (!st->npml[c]) continue;
    if (st->cpml) FD_TB_POINTS(tb->pml[c], tb, k, t, x) hd_fdtd_cpml_pt(&tb->cpml[c], tb->pml[c].order[x]);
    else FD_TB_POINTS(tb->pml[c], tb, k, t, x) hd_fdtd_pml_pt(&st->pml[c], tb->pml[c].order[x]);
  }
}

/* What step a records of plane k after its H update (fd_dft_step's
 * samples, the probes), thread t's rows. */
static void fd_tb_record(const fdtd_state *st, const fd_tb *tb, const fd_tb_step *a, const hd_dft_plane_args *maps,
                         int nchunk, hd_idx k, int t, hd_idx j0, hd_idx j1) {
  hd_idx x;
  int q, c;
  if (a->field_due) FD_TB_POINTS(tb->surf, tb, k, t, x) hd_dft_sample_pt(&a->surf, tb->surf.order[x]);
  for (q = 0; q < st->nplane && a->field_due; ++q)
    for (c = 0; c < nchunk; ++c)
      FD_TB_POINTS(tb->plane[q], tb, k, t, x) hd_dft_plane_pt(&maps[q * nchunk + c], tb->plane[q].order[x]);
  if (st->vol.acc && a->field_due) { /* the volume's elements in these rows of the plane */
    const hd_grid *g = &st->a.g;
    hd_idx lo = hd_grid_at(g, 0, j0, k) - st->vol.first, hi = hd_grid_at(g, 0, j1, k) - st->vol.first, p;
    if (lo < 0) lo = 0;
    if (hi > st->vol.span) hi = st->vol.span;
    for (p = lo; p < hi; ++p) hd_dft_volume_sample_pt(&a->vol, p, 0);
  }
  if (a->probe.rec) FD_TB_POINTS(tb->probe, tb, k, t, x) {
      hd_fdtd_probe_pt(&a->probe, tb->probe.order[x]);
      if (st->pw_sf) hd_fdtd_sf_probe_pt(&a->sf_probe, tb->probe.order[x]);
    }
}

/* T steps (2 .. FD_TB_MAX) as one block, rec: their T rows of the record
 * (host) or NULL. */
static hd_status fd_block(hd_ctx *ctx, fdtd_state *st, int T, hd_real *rec) {
  const int nt = hd_ctx_threads(ctx), nchunk = st->nplane ? (st->nffreq + HD_DFT_CHUNK - 1) / HD_DFT_CHUNK : 0;
  const hd_idx pad = st->a.g.ghost;
  const int xyper = st->bc[0] == HD_FDTD_BC_PERIODIC || st->bc[1] == HD_FDTD_BC_PERIODIC;
  /* Mur on the low z face sets plane pad (E) or pad - 1 (H) with the plane
   * above: that plane's ghost copies wait for it */
  const hd_idx late_e = xyper && st->bc[2] == HD_FDTD_BC_MUR && !st->mur_h ? pad : -1;
  const hd_idx late_h = xyper && st->bc[2] == HD_FDTD_BC_MUR && st->mur_h ? pad - 1 : -1;
  const long s0 = st->step;
  const hd_idx nl = st->pw_sf ? st->inc.n : 0;
  fd_tb_step *a;
  hd_dft_plane_args *maps = NULL;
  hd_real *line = NULL; /* the line's E then H after each of steps 0 .. T - 1, and before the block */
  fd_tb *tb;
  hd_status s = HD_OK;
  int q;
  if (!st->tb || st->tb->nt != nt) {
    fd_tb_free(st->tb);
    if (!(st->tb = fd_tb_plan(st, nt))) return hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory for the time blocks' plan");
  }
  tb = st->tb;
  a = (fd_tb_step *)calloc((size_t)T, sizeof *a);
  if (nchunk) maps = (hd_dft_plane_args *)malloc((size_t)T * st->nplane * nchunk * sizeof *maps);
  if (nl) line = (hd_real *)malloc((size_t)(T + 1) * 2 * nl * sizeof *line);
  if (!a || (nchunk && !maps) || (nl && !line)) {
    free(a), free(maps), free(line);
    return hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory for a time block");
  }
  if (nl) { /* snapshot q: after step q - 1 (0: before the block) */
    memcpy(line, st->inc.e, (size_t)nl * sizeof *line), memcpy(line + nl, st->inc.h, (size_t)nl * sizeof *line);
    for (q = 0; q < T && s == HD_OK; ++q) {
      st->step = s0 + q;
      s = fd_sf_line(ctx, st, 1);
      if (s == HD_OK) s = fd_sf_line(ctx, st, 0);
      memcpy(line + (q + 1) * 2 * nl, st->inc.e, (size_t)nl * sizeof *line);
      memcpy(line + (q + 1) * 2 * nl + nl, st->inc.h, (size_t)nl * sizeof *line);
    }
    st->step = s0;
  }
  for (q = 0; q < T; ++q) { /* each step's arguments, as fd_step sets them */
    const long n = s0 + q;
    fd_tb_step *x = &a[q];
    int w, c, p;
    x->vi = rec ? rec + (hd_idx)q * st->nrec + st->nprobe : tb->vi + (hd_idx)q * 2 * st->nfeed;
    x->ade = st->ade;
    x->ade.f = st->a, x->ade.pwd = st->ade_pwd, x->ade.inc = st->pw;
    x->ade.inc.t0 = (double)n * st->dt, x->ade.inc.t1 = (double)(n + 1) * st->dt;
    for (w = 0; w < 2 && st->pw_sf; ++w) {
      const double t = (double)n * st->dt + (w ? 0.5 * st->dt : 0.0);
      memcpy(x->sf[w].f, st->a.f, sizeof x->sf[w].f), memcpy(x->sf[w].m, st->a.m, sizeof x->sf[w].m);
      x->sf[w].pt = st->sf[w], x->sf[w].coef = st->sf_coef + 512 * w, x->sf[w].inc = st->pw;
      x->sf[w].inc.t0 = t, x->sf[w].inc.t1 = t + st->dt;
      if (nl) x->sf[w].inc.line[0] = line + q * 2 * nl + w * nl, x->sf[w].inc.line[1] = line + (q + 1) * 2 * nl + w * nl;
    }
    x->ade.inc.line[0] = x->sf[0].inc.line[0], x->ade.inc.line[1] = x->sf[0].inc.line[1];
    x->feed.f = st->a, x->feed.feed = st->feed, x->feed.wave = st->wave;
    x->feed.t = (double)(n + 1) * st->dt, x->feed.rec = x->vi;
    memcpy(x->probe.f, st->a.f, sizeof x->probe.f);
    x->probe.probe = st->probe, x->probe.rec = rec && st->nprobe ? rec + (hd_idx)q * st->nrec : NULL;
    x->sf_probe.probe = st->probe, x->sf_probe.d = st->sf_probe_d, x->sf_probe.w = st->sf_probe_w, x->sf_probe.rec = x->probe.rec, x->sf_probe.inc = st->pw;
    x->sf_probe.inc.t0 = (double)(n + 1) * st->dt, x->sf_probe.inc.t1 = x->sf_probe.inc.t0 + 0.5 * st->dt;
    if (nl) x->sf_probe.inc.line[0] = line + (q + 1) * 2 * nl, x->sf_probe.inc.line[1] = line + (q + 1) * 2 * nl + nl;
    memcpy(x->surf.f, st->a.f, sizeof x->surf.f);
    x->surf.g = st->a.g, x->surf.node = st->surf_node, x->surf.face = st->surf_face, x->surf.buf = st->surf_buf;
    x->surf.npts = st->npts, x->surf.slot = (int)(fd_field_samples(st, n) % HD_DFT_BUFFER);
    x->vol = st->vol;
    x->vol.slot = (int)(fd_field_samples(st, n) % HD_DFT_VOLUME_BUFFER);
    x->field_due = fd_field_due(st, n);
    for (c = 0; c < nchunk; ++c) {
      hd_dft_phase ph;
      const int k0 = c * HD_DFT_CHUNK;
      hd_dft_phase_step(&ph, st->ffreq + k0, st->nffreq - k0 < HD_DFT_CHUNK ? st->nffreq - k0 : HD_DFT_CHUNK, n, st->dt);
      for (p = 0; p < st->nplane; ++p) {
        hd_dft_plane_args *m = &maps[((hd_idx)q * st->nplane + p) * nchunk + c];
        *m = st->plane[p];
        m->k0 = k0, m->ph = ph;
      }
    }
  }
#if defined(HD_BACKEND_OPENMP)
#pragma omp parallel num_threads(nt)
#endif
  {
#if defined(HD_BACKEND_OPENMP)
    const int t = omp_get_thread_num();
#else
    const int t = 0;
#endif
    const hd_idx j0 = tb->band[t], j1 = tb->band[t + 1], planes = tb->planes;
    hd_idx w;
    int u;
    for (w = 0; w < planes + FD_TB_SKEW * T; ++w)
      for (u = 0; u < T; ++u) {
        const hd_idx ke = w - FD_TB_SKEW * u, kh = ke - 1, kr = ke - FD_TB_SKEW;
        const fd_tb_step *x = &a[u];
        if (ke >= 0 && ke < planes) fd_tb_e(st, tb, x, ke, t, j0, j1);
        if (xyper) fd_tb_copies(st, 1, ke, planes, late_e, j0, j1);
        if (kr >= 0 && kr < planes) fd_tb_record(st, tb, x, maps + (hd_idx)u * st->nplane * nchunk, nchunk, kr, t, j0, j1);
        FD_TB_BARRIER
        if (kh >= 0 && kh < planes) fd_tb_h(st, tb, x, kh, t, j0, j1);
        if (xyper) fd_tb_copies(st, 0, kh, planes, late_h, j0, j1);
        FD_TB_BARRIER
      }
  }
  st->step = s0;
  if (s == HD_OK) s = fd_block_records(ctx, st, T, rec ? rec + st->nprobe : tb->vi, rec ? st->nrec : 2 * st->nfeed,
                       rec && st->nprobe ? rec : NULL);
  free(a), free(maps), free(line);
  return s;
}

/* Steps from st->step through the last sample of the current window of a
 * buffer of B samples (the DFT buffers' slots would wrap past it before
 * the flush). */
static long fd_window_steps(const fdtd_state *st, long B) {
  const long m = fd_field_samples(st, st->step);
  return (m + B - m % B) * st->dft_every - st->step;
}

/* Steps the next block may take of the `left` still to go: none past a
 * DFT buffer's window. */
static int fd_block_steps(const fdtd_state *st, long left) {
  long t = st->time_block < left ? st->time_block : left;
  if (st->npts && t > fd_window_steps(st, HD_DFT_BUFFER)) t = fd_window_steps(st, HD_DFT_BUFFER);
  if (st->vol.acc && t > fd_window_steps(st, HD_DFT_VOLUME_BUFFER)) t = fd_window_steps(st, HD_DFT_VOLUME_BUFFER);
  return (int)t;
}

#endif /* !HD_BACKEND_CUDA */
