/* SPDX-License-Identifier: BSD-3-Clause */
/* A part of fdtd_impl.h (the FDTD backend table), included there once per
 * backend and precision: what leaves the state (row sums, fields, spectra)
 * and the arrays a checkpoint saves (lists by their keys). */

/* Row sums of the averages: each row of cells folded in x order, so that
 * the driver can merge rows in a fixed order whatever the decomposition. */
typedef struct fd_rows_args {
  hd_fdtd_args f;
  double *rows;
} fd_rows_args;

HD_FN void fd_row_pt(const fd_rows_args *a, hd_idx j, hd_idx k) {
  const hd_idx pad = a->f.g.ghost;
  hd_fdtd_avg sum;
  hd_idx i;
  hd_fdtd_avg_init(&sum);
  for (i = 0; i < a->f.nc[0]; ++i) hd_fdtd_avg_pt(&a->f, i + pad, j + pad, k + pad, &sum);
  a->rows[2 * (j + k * a->f.nc[1])] = sum.e;
  a->rows[2 * (j + k * a->f.nc[1]) + 1] = sum.h;
}
HD_DEFINE_FOR_2D(fd_rows_loop, fd_row_pt, fd_rows_args)

static hd_status fd_row_sums(hd_ctx *ctx, void *state, double *rows) {
  fdtd_state *st = (fdtd_state *)state;
  fd_rows_args ra;
  hd_status s;
  ra.f = st->a;
  ra.rows = st->rows;
  s = fd_rows_loop(ctx, &ra, hd_range3_make(0, st->a.nc[1], 0, st->a.nc[2], 0, 1));
  if (s == HD_OK) s = hd_dev_download(ctx, rows, st->rows, (size_t)(2 * st->a.nc[1] * st->a.nc[2]) * sizeof(double));
  return s;
}

static hd_status fd_download(hd_ctx *ctx, void *state, int comp, double *out) {
  fdtd_state *st = (fdtd_state *)state;
  const size_t n = (size_t)st->a.g.total;
  hd_real *host = (hd_real *)hd_host_alloc(n * sizeof(hd_real));
  hd_status s;
  size_t i;
  if (!host) return hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory");
  s = hd_dev_download(ctx, host, st->a.f[comp], n * sizeof(hd_real));
  for (i = 0; s == HD_OK && i < n; ++i) out[i] = (double)host[i];
  hd_host_free(host);
  return s;
}

static void *fd_field(void *state, int comp, long *lead) {
  const fdtd_state *st = (const fdtd_state *)state;
  if (comp >= 6) return st->twin ? fd_field(st->twin, comp - 6, lead) : NULL; /* a Bloch-periodic cell's imaginary part */
  *lead = (long)(st->a.f[comp] - st->field[comp]);
  return st->field[comp];
}

/* A Bloch-periodic cell's spectra are the complex field's, re + i im:
 * the twin's sums (count per frequency, re then im) times i added to x. */
static hd_status fd_add_twin(hd_ctx *ctx, double *x, const double *dev, int nfreq, hd_idx count) {
  const size_t nv = (size_t)2 * nfreq * count;
  double *t = (double *)malloc(nv * sizeof *t);
  hd_status s;
  size_t k, i;
  if (!t) return hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory for the spectra");
  s = hd_dev_download(ctx, t, dev, nv * sizeof *t);
  for (k = 0; s == HD_OK && k < (size_t)nfreq; ++k)
    for (i = 0; i < (size_t)count; ++i) {
      double *re = x + 2 * k * count + i, *im = re + count;
      const double tr = t[2 * k * count + i], ti = t[2 * k * count + count + i];
      *re -= ti, *im += tr;
    }
  free(t);
  return s;
}

static hd_status fd_spectra(hd_ctx *ctx, void *state, double *feeds, double *probes, double *surface, double *const *planes,
                            double *incident, double *volume) {
  fdtd_state *st = (fdtd_state *)state;
  const size_t nf = (size_t)4 * st->nfreq * st->nfeed, ns = (size_t)8 * st->nffreq * st->npts;
  hd_status s = HD_OK;
  size_t i;
  int q;
  const long m = fd_field_samples(st, st->step);
  const double fdt = st->dft_every * st->dt; /* the fields' samples each stand for dft_every steps */
  if (st->npts && m % HD_DFT_BUFFER) s = fd_dft_flush(ctx, st, (int)(m % HD_DFT_BUFFER)); /* the samples so far */
  if (s == HD_OK && st->vol.acc && m % HD_DFT_VOLUME_BUFFER) s = fd_volume_flush(ctx, st, (int)(m % HD_DFT_VOLUME_BUFFER));
  if (s == HD_OK && volume && st->vol.acc) { /* the physical nodes, in doubles, times dt */
    const hd_idx *nn = st->vol_nn, pad = st->a.g.ghost, span = st->vol.span;
    const size_t nv = (size_t)12 * st->nffreq;
    hd_real *host = (hd_real *)hd_host_alloc(nv * span * sizeof(hd_real));
    hd_idx q = 0, v, i3, j3, k3;
    if (!host) return hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory for the volume's spectra");
    s = hd_dev_download(ctx, host, st->vol.acc, nv * span * sizeof(hd_real));
    for (v = 0; s == HD_OK && v < (hd_idx)nv; ++v)
      for (k3 = 0; k3 < nn[2]; ++k3)
        for (j3 = 0; j3 < nn[1]; ++j3)
          for (i3 = 0; i3 < nn[0]; ++i3)
            volume[q++] = (double)host[v * span + hd_grid_at(&st->a.g, i3 + pad, j3 + pad, k3 + pad) - st->vol.first] * fdt;
    hd_host_free(host);
  }
  for (q = 0; planes && q < st->nplane && s == HD_OK; ++q) {
    const size_t np = (size_t)2 * st->nffreq * st->plane[q].ncell;
    if (!np) continue;
    s = hd_dev_download(ctx, planes[q], st->plane[q].acc, np * sizeof(double));
    if (s == HD_OK && st->twin) s = fd_add_twin(ctx, planes[q], st->twin->plane[q].acc, st->nffreq, st->plane[q].ncell);
    for (i = 0; s == HD_OK && i < np; ++i) planes[q][i] *= fdt;
  }
  if (s == HD_OK && probes && st->probe_acc) {
    const size_t np = (size_t)2 * st->nfreq * st->nprobe;
    s = hd_dev_download(ctx, probes, st->probe_acc, np * sizeof(double));
    if (s == HD_OK && st->twin) s = fd_add_twin(ctx, probes, st->twin->probe_acc, st->nfreq, st->nprobe);
    for (i = 0; s == HD_OK && i < np; ++i) probes[i] *= st->dt;
  }
  if (s == HD_OK && feeds && st->feed_acc) s = hd_dev_download(ctx, feeds, st->feed_acc, nf * sizeof(double));
  for (i = 0; s == HD_OK && feeds && st->feed_acc && i < nf; ++i) feeds[i] *= st->dt; /* the DFT's dt */
  if (s == HD_OK && surface && st->surf_acc) s = hd_dev_download(ctx, surface, st->surf_acc, ns * sizeof(double));
  for (i = 0; s == HD_OK && surface && st->surf_acc && i < ns; ++i) surface[i] *= fdt;
  for (i = 0; incident && st->inc_acc && i < (size_t)2 * st->nfreq; ++i) incident[i] = st->inc_acc[i] * st->dt;
  return s;
}

/* Checkpoint keys (drivers/common/driver.h): an entry at padded offset n
 * of the grid, told apart within its row by x and `sub` (a component, a
 * face); n < 0: none. */
static hd_ckpt_key fd_key(const fdtd_state *st, hd_idx n, int sub) {
  const hd_grid *g = &st->a.g;
  const hd_idx pad = g->ghost, rows = g->stride[2] / g->stride[1];
  hd_ckpt_key k;
  k.y = -1, k.z = -1, k.id = -1;
  if (n < 0) return k;
  k.y = (int32_t)((n / g->stride[1]) % rows - pad + st->off[1]), k.z = (int32_t)(n / g->stride[2] - pad + st->off[2]);
  k.id = ((int64_t)(n % g->stride[1] - pad + st->off[0] + (1 << 24)) << 8) | sub;
  return k;
}

/* A list's device entries (count of `size` bytes) downloaded; malloc'd or NULL. */
static void *fd_fetch(hd_ctx *ctx, const void *dev, hd_idx count, size_t size) {
  void *h = malloc((size_t)count * size + 1);
  if (h && count && hd_dev_download(ctx, h, dev, (size_t)count * size) != HD_OK) free(h), h = NULL;
  return h;
}

/* The keys of list `which` (FD_KEY_*); computed, never loaded. */
enum { FD_KEY_PML = 0, FD_KEY_MUR = 6, FD_KEY_ADE, FD_KEY_PROBES, FD_KEY_FEEDS, FD_KEY_SURFACE, FD_KEY_VOLUME,
       FD_KEY_PLANE };
static hd_status fd_list_io(hd_ctx *ctx, void *state, int which, void *host, int save) {
  fdtd_state *st = (fdtd_state *)state;
  hd_ckpt_key *key = (hd_ckpt_key *)host;
  hd_idx e, count = 0;
  void *h = NULL;
  if (!save) return HD_OK;
  if (which < FD_KEY_MUR) {
    const hd_fdtd_pml_point *pt = (const hd_fdtd_pml_point *)(h = fd_fetch(ctx, st->pml[which].pt, count = st->npml[which], sizeof *pt));
    for (e = 0; h && e < count; ++e) key[e] = fd_key(st, pt[e].n, 0);
  } else if (which == FD_KEY_MUR) {
    const hd_fdtd_mur *mu = (const hd_fdtd_mur *)(h = fd_fetch(ctx, st->mur, count = st->nmur, sizeof *mu));
    for (e = 0; h && e < count; ++e) key[e] = fd_key(st, mu[e].m0, mu[e].comp);
  } else if (which == FD_KEY_ADE) {
    const hd_fdtd_ade_edge *ed = (const hd_fdtd_ade_edge *)(h = fd_fetch(ctx, st->ade.edge, count = st->nade, sizeof *ed));
    for (e = 0; h && e < count; ++e) key[e] = fd_key(st, ed[e].n, ed[e].comp);
  } else if (which == FD_KEY_PROBES) {
    const hd_fdtd_probe *pr = (const hd_fdtd_probe *)(h = fd_fetch(ctx, st->probe, count = st->nprobe, sizeof *pr));
    for (e = 0; h && e < count; ++e) key[e] = fd_key(st, pr[e].n, pr[e].comp);
  } else if (which == FD_KEY_FEEDS) {
    const hd_fdtd_feed *fe = (const hd_fdtd_feed *)(h = fd_fetch(ctx, st->feed, count = st->nfeed, sizeof *fe));
    for (e = 0; h && e < count; ++e) key[e] = fd_key(st, fe[e].n, fe[e].comp);
  } else if (which == FD_KEY_SURFACE) {
    const hd_idx *node = (const hd_idx *)(h = fd_fetch(ctx, st->surf_node, count = st->npts, sizeof *node));
    unsigned char *face = h ? (unsigned char *)fd_fetch(ctx, st->surf_face, count, 1) : NULL;
    for (e = 0; face && e < count; ++e) key[e] = fd_key(st, node[e], face[e]);
    if (!face) free(h), h = NULL;
    free(face);
  } else if (which == FD_KEY_VOLUME) { /* the physical nodes of the span */
    const hd_grid *g = &st->a.g;
    const hd_idx pad = g->ghost, rows = g->stride[2] / g->stride[1];
    for (e = 0, h = host; e < st->vol.span; ++e) {
      const hd_idx n = st->vol.first + e, i = n % g->stride[1] - pad, j = (n / g->stride[1]) % rows - pad, k = n / g->stride[2] - pad;
      key[e] = fd_key(st, i >= 0 && i < st->vol_nn[0] && j >= 0 && j < st->vol_nn[1] && k >= 0 && k < st->vol_nn[2] ? n : -1, 0);
    }
    return HD_OK;
  } else { /* a map's cells, u fastest */
    const hd_dft_plane_args *q = &st->plane[which - FD_KEY_PLANE];
    for (e = 0, h = host; e < q->ncell; ++e) key[e] = fd_key(st, q->base + (e % q->nu) * q->su + (e / q->nu) * q->sv, 0);
    return HD_OK;
  }
  if (!h) return ctx->status != HD_OK ? ctx->status : hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory");
  free(h);
  return HD_OK;
}

/* The state: six fields, the Mur points (each keeps a value of the last
 * step), the PML split parts, the running DFTs, the step counter (the
 * sources' clock), and the keys of every list (fdtd_ckpt_kind). */
static int fd_state_list(fdtd_state *st, hd_state_entry *e) {
  static const char *const fields[6] = {"ex", "ey", "ez", "hx", "hy", "hz"};
  static const char *const pml[6][3] = {{"pml_ex1", "pml_ex2", "key_pml_ex"}, {"pml_ey1", "pml_ey2", "key_pml_ey"},
                                        {"pml_ez1", "pml_ez2", "key_pml_ez"}, {"pml_hx1", "pml_hx2", "key_pml_hx"},
                                        {"pml_hy1", "pml_hy2", "key_pml_hy"}, {"pml_hz1", "pml_hz2", "key_pml_hz"}};
  static const char *const planes[FDTD_MAX_PLANES][2] = {
      {"dft_plane1", "key_plane1"}, {"dft_plane2", "key_plane2"},
      {"dft_plane3", "key_plane3"}, {"dft_plane4", "key_plane4"},
      {"dft_plane5", "key_plane5"}, {"dft_plane6", "key_plane6"},
      {"dft_plane7", "key_plane7"}, {"dft_plane8", "key_plane8"},
      {"dft_plane9", "key_plane9"}, {"dft_plane10", "key_plane10"},
      {"dft_plane11", "key_plane11"}, {"dft_plane12", "key_plane12"},
      {"dft_plane13", "key_plane13"}, {"dft_plane14", "key_plane14"},
      {"dft_plane15", "key_plane15"}, {"dft_plane16", "key_plane16"}};
  const size_t fb = (size_t)st->a.g.total * sizeof(hd_real), kb = sizeof(hd_ckpt_key);
  int n = 0, c, k;
#define FD_ENTRY(nm, d, b) (memset(&e[n], 0, sizeof e[n]), e[n].name = (nm), e[n].dev = (d), e[n].bytes = (b), &e[n++])
#define FD_KEYS(nm, w, count) (FD_ENTRY(nm, NULL, (size_t)(count) * kb)->io = fd_list_io, e[n - 1].which = (w))
  for (c = 0; c < 6; ++c) FD_ENTRY(fields[c], st->a.f[c], fb);
  if (st->nade) FD_ENTRY("ade", st->ade.state, (size_t)st->nade * st->ade.stride * sizeof(hd_real)), FD_KEYS("key_ade", FD_KEY_ADE, st->nade);
  if (st->nmur) {
    FD_ENTRY("mur_f", st->mur_prev, (size_t)st->nmur * sizeof(hd_real));
    FD_KEYS("key_mur", FD_KEY_MUR, st->nmur);
  }
  for (c = 0; c < 6; ++c)
    if (st->npml[c]) {
      for (k = 0; k < 2; ++k) FD_ENTRY(pml[c][k], k ? st->pml[c].s2 : st->pml[c].s1, (size_t)st->npml[c] * sizeof(hd_real));
      FD_KEYS(pml[c][2], FD_KEY_PML + c, st->npml[c]);
    }
  if (st->probe_acc)
    FD_ENTRY("dft_probes", st->probe_acc, (size_t)2 * st->nfreq * st->nprobe * sizeof(double)), FD_KEYS("key_probes", FD_KEY_PROBES, st->nprobe);
  if (st->feed_acc)
    FD_ENTRY("dft_feeds", st->feed_acc, (size_t)4 * st->nfreq * st->nfeed * sizeof(double)), FD_KEYS("key_feeds", FD_KEY_FEEDS, st->nfeed);
  if (st->surf_acc) { /* the sums, and the samples since the last flush */
    FD_ENTRY("dft_surface", st->surf_acc, (size_t)8 * st->nffreq * st->npts * sizeof(double));
    FD_ENTRY("dft_samples", st->surf_buf, (size_t)HD_DFT_BUFFER * 4 * st->npts * sizeof(hd_real));
    FD_KEYS("key_surface", FD_KEY_SURFACE, st->npts);
  }
  if (st->vol.acc) {
    const size_t span = (size_t)st->vol.span;
    FD_ENTRY("dft_volume", st->vol.acc, (size_t)12 * st->nffreq * span * sizeof(hd_real));
    FD_ENTRY("dft_volume_samples", st->vol.buf, (size_t)HD_DFT_VOLUME_BUFFER * 6 * span * sizeof(hd_real));
    FD_KEYS("key_volume", FD_KEY_VOLUME, span);
  }
  for (c = 0; c < st->nplane; ++c)
    if (st->plane[c].ncell) {
      FD_ENTRY(planes[c][0], st->plane[c].acc, (size_t)2 * st->nffreq * st->plane[c].ncell * sizeof(double));
      FD_KEYS(planes[c][1], FD_KEY_PLANE + c, st->plane[c].ncell);
    }
  if (st->inc.n) {
    FD_ENTRY("inc_e", st->inc.e, (size_t)st->inc.n * sizeof(hd_real));
    FD_ENTRY("inc_h", st->inc.h, (size_t)st->inc.n * sizeof(hd_real));
  }
  if (st->inc.nrm) {
    FD_ENTRY("inc_n", st->inc.nrm, (size_t)st->inc.n * sizeof(hd_real));
    FD_ENTRY("inc_aux", st->inc.aux, (size_t)st->inc.n * sizeof(hd_real));
  }
  if (st->inc_acc) FD_ENTRY("dft_incident", st->inc_acc, (size_t)2 * st->nfreq * sizeof(double))->host = 1;
  FD_ENTRY("step", &st->step, sizeof st->step)->host = 1;
  if (st->twin) { /* the imaginary part's arrays, named i_ (fdtd_ckpt_kind) */
    const int own = n;
    n += fd_state_list(st->twin, e + n);
    for (k = own; k < n; ++k) {
      if (!e[k].owner) e[k].owner = st->twin; /* the twin's lists are its own */
      snprintf(st->twin_names[k - own], sizeof st->twin_names[0], "i_%s", e[k].name);
      e[k].name = st->twin_names[k - own];
    }
  }
#undef FD_KEYS
#undef FD_ENTRY
  return n;
}

static int fd_state_count(void *state) {
  hd_state_entry e[HD_CKPT_MAX_ARRAYS];
  return fd_state_list((fdtd_state *)state, e);
}

static hd_status fd_state_io(hd_ctx *ctx, void *state, int k, char name[16], uint64_t *bytes, void *host, int save) {
  hd_state_entry e[HD_CKPT_MAX_ARRAYS];
  fd_state_list((fdtd_state *)state, e);
  return hd_state_entry_io(ctx, state, &e[k], name, bytes, host, save);
}
