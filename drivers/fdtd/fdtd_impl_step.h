/* SPDX-License-Identifier: BSD-3-Clause */
/* A part of fdtd_impl.h (the FDTD backend table), included there once per
 * backend and precision: the steps (half steps, whole or by boxes of rows
 * with the exchange under the E update; boundaries, sources, running DFTs;
 * time blocks from fdtd_wave.h). */

/* Periodic axes: copy E at node N from node 0 (after the E update), H at
 * node -1 from node N-1 (after the H update), over whole padded planes. */
static hd_status fd_periodic(hd_ctx *ctx, fdtd_state *st, int efield) {
  const hd_grid *g = &st->a.g;
  const hd_idx pad = g->ghost;
  hd_status s = HD_OK;
  int a, c;
  for (a = 0; a < 3 && s == HD_OK; ++a) {
    hd_fdtd_copy_args cp;
    hd_fdtd_bloch_args bl;
    hd_range3 r = hd_range3_make(0, g->n[0] + 2 * pad, 0, g->n[1] + 2 * pad, 0, g->n[2] + 2 * pad);
    const hd_idx n = st->a.nc[a];
    if (st->bc[a] != HD_FDTD_BC_PERIODIC) continue;
    cp.g = bl.g = *g;
    r.lo[a] = efield ? pad + n : pad - 1;
    r.hi[a] = r.lo[a] + 1;
    cp.shift = bl.shift = (efield ? -n : n) * g->stride[a];
    bl.c = cos(st->bloch_phase[a]), bl.s = (efield ? 1.0 : -1.0) * sin(st->bloch_phase[a]);
    for (c = 0; c < 3 && s == HD_OK; ++c) {
      const int comp = efield ? c : 3 + c;
      if (c == a) continue; /* only the components tangential to the faces */
      if (st->twin) { /* Bloch-periodic: the real part and the twin's imaginary together */
        bl.re = st->a.f[comp], bl.im = st->twin->a.f[comp];
        s = hd_fdtd_bloch_loop(ctx, &bl, r);
        continue;
      }
      cp.f = st->a.f[comp];
      s = hd_fdtd_copy_loop(ctx, &cp, r);
    }
  }
  return s;
}

#if !defined(HD_BACKEND_CUDA)
/* Component c's layers for the CPU rows (as fd_layers_step's point loops). */
static void fd_layer_args(const fdtd_state *st, int c, hd_fdtd_cpu_layer_args *l) {
  l->cpml = st->cpml_args[c];
  l->cpml.f = st->a, l->cpml.pt = st->pml[c].pt, l->cpml.psi1 = st->pml[c].s1, l->cpml.psi2 = st->pml[c].s2;
  l->cpml.comp = c;
  l->pml = st->cpml ? NULL : &st->pml[c];
}
#endif

static void fd_mur_args(const fdtd_state *st, hd_fdtd_mur_args *mu) {
  const int first = st->mur_h ? HD_FDTD_HX : HD_FDTD_EX;
  mu->f[0] = st->a.f[first], mu->f[1] = st->a.f[first + 1], mu->f[2] = st->a.f[first + 2];
  mu->pt = st->mur, mu->prev = st->mur_prev;
}

/* Whether the Mur points go with the CPU rows they read (st->mrow): on H
 * they follow the march at once; on E the dispersive media, the
 * scattered-field form and the layers come between (fd_step_e). */
static int fd_mur_in_rows(const fdtd_state *st) {
#if !defined(HD_BACKEND_CUDA)
  int c;
  if (!st->mrow) return 0;
  if (st->mur_h) return 1;
  for (c = 0; c < 6; ++c)
    if (st->npml[c]) return 0;
  return !st->nade && !st->pw_sf;
#else
  (void)st;
  return 0;
#endif
}

/* The fused E (efield) or H loop over the rows (j, k) of r (physical
 * nodes, rows whole). */
static hd_status fd_half_step_box(hd_ctx *ctx, fdtd_state *st, int efield, hd_range3 r) {
#if !defined(HD_BACKEND_CUDA)
  const int mur = efield == !st->mur_h && fd_mur_in_rows(st);
  if (mur || st->frow[efield ? 0 : 3] || st->frow[efield ? 1 : 4] || st->frow[efield ? 2 : 5]) {
    hd_fdtd_cpu_extras l;
    int c;
    for (c = 0; c < 6; ++c) fd_layer_args(st, c, &l.arg[c]), l.run[c] = st->frun[c], l.row[c] = st->frow[c];
    fd_mur_args(st, &l.mur);
    l.mrun = st->mrun, l.mrow = mur ? st->mrow : NULL;
    return hd_fdtd_half_step_tuned_extras(ctx, &st->a, &l, efield, r);
  }
#endif
#if FDTD_HAS_TUNED
  if (st->tuned) return hd_fdtd_half_step_tuned_box(ctx, &st->a, efield, r);
#endif
  return efield ? hd_fdtd_e_loop(ctx, &st->a, r) : hd_fdtd_h_loop(ctx, &st->a, r);
}
static hd_status fd_half_step(hd_ctx *ctx, fdtd_state *st, int efield) {
  return fd_half_step_box(ctx, st, efield, hd_fdtd_nodes(&st->a));
}

/* The E half step after the exchange of H's ghosts (halo), the exchange
 * beside the update of the rows that read no ghost (node planes 1 .. n - 1
 * along a shared axis: E at node 0 reads H at -1, E at n reads H at n);
 * the rim's rows follow the exchange.  On CUDA the exchange and the rim
 * run on a high-priority stream while the inside runs on ctx's, which
 * then waits for them; on CPUs the same order, one after the other.  The
 * rows split the same updates: the field is one rank's bit for bit. */
static hd_status fd_e_exchanged(hd_ctx *ctx, fdtd_state *st, hd_status (*halo)(hd_ctx *, void *), void *arg) {
  const hd_range3 nodes = hd_fdtd_nodes(&st->a);
  hd_range3 in = nodes, rim[4];
  hd_status s;
  int a, nrim = 0, b;
#if defined(HD_BACKEND_CUDA)
  void *const stream = ctx->stream;
#endif
  for (a = 1; a < 3; ++a) {
    if (st->shared[2 * a]) in.lo[a] += 1;
    if (st->shared[2 * a + 1]) in.hi[a] -= 1;
  }
  for (a = 1; a < 3; ++a) { /* the rows outside `in`: y's along the whole z, z's within in's y */
    hd_range3 r = a == 1 ? nodes : in;
    if (in.lo[a] > nodes.lo[a]) r.lo[a] = nodes.lo[a], r.hi[a] = in.lo[a], rim[nrim++] = r;
    if (in.hi[a] < nodes.hi[a]) r.lo[a] = in.hi[a], r.hi[a] = nodes.hi[a], rim[nrim++] = r;
  }
  if (!nrim || in.hi[1] <= in.lo[1] || in.hi[2] <= in.lo[2]) { /* nothing to update beside it */
    if ((s = halo(ctx, arg)) != HD_OK) return s;
    return fd_half_step(ctx, st, 1);
  }
#if defined(HD_BACKEND_CUDA)
  if (!st->xs) {
    int least, greatest;
    HD_CUDA_TRY(ctx, cudaDeviceGetStreamPriorityRange(&least, &greatest));
    HD_CUDA_TRY(ctx, cudaStreamCreateWithPriority(&st->xs, cudaStreamNonBlocking, greatest));
    HD_CUDA_TRY(ctx, cudaEventCreateWithFlags(&st->prev_done, cudaEventDisableTiming));
    HD_CUDA_TRY(ctx, cudaEventCreateWithFlags(&st->rim_done, cudaEventDisableTiming));
  }
  HD_CUDA_TRY(ctx, cudaEventRecord(st->prev_done, hd_stream(ctx)));
  HD_CUDA_TRY(ctx, cudaStreamWaitEvent(st->xs, st->prev_done, 0));
#endif
  if ((s = fd_half_step_box(ctx, st, 1, in)) != HD_OK) return s;
#if defined(HD_BACKEND_CUDA)
  ctx->stream = (void *)st->xs; /* the exchange's copies and the rim's rows */
#endif
  s = halo(ctx, arg);
  for (b = 0; b < nrim && s == HD_OK; ++b) s = fd_half_step_box(ctx, st, 1, rim[b]);
#if defined(HD_BACKEND_CUDA)
  ctx->stream = stream;
  if (s != HD_OK) return s;
  HD_CUDA_TRY(ctx, cudaEventRecord(st->rim_done, st->xs));
  HD_CUDA_TRY(ctx, cudaStreamWaitEvent(hd_stream(ctx), st->rim_done, 0));
#endif
  return s;
}

/* The fields' running DFTs (surface, maps, volume) sample steps 0, D,
 * 2D, ... (D = dft_every, hd_dft_decimation), each standing for D steps:
 * whether step n is one, and how many of steps 0 .. steps - 1 are. */
static int fd_field_due(const fdtd_state *st, long n) { return n % st->dft_every == 0; }
static long fd_field_samples(const fdtd_state *st, long steps) { return (steps + st->dft_every - 1) / st->dft_every; }

/* The buffered surface samples into the sums, chunk by chunk of
 * frequencies: slot t holds sample (m - m % B) + t, B = HD_DFT_BUFFER, a
 * window aligned on the sample count so that any split of a run into
 * advances, restarts or ranks flushes the same samples together.  Flushes
 * slots flushed .. upto - 1. */
static hd_status fd_dft_flush(hd_ctx *ctx, fdtd_state *st, int upto) {
  const long m = fd_field_samples(st, st->step) - 1, m0 = m - m % HD_DFT_BUFFER; /* the window of the last sample */
  hd_status s = HD_OK;
  int k0;
  for (k0 = 0; k0 < st->nffreq && upto > st->flushed && s == HD_OK; k0 += HD_DFT_CHUNK) {
    hd_dft_surface_args sa;
    hd_dft_phase_step(&sa.ph, st->ffreq + k0, st->nffreq - k0 < HD_DFT_CHUNK ? st->nffreq - k0 : HD_DFT_CHUNK,
                      (m0 + st->flushed) * st->dft_every, st->dt);
    hd_dft_rotation(sa.rc, sa.rs, st->ffreq + k0, sa.ph.count, st->dft_every * st->dt);
    sa.buf = st->surf_buf, sa.acc = st->surf_acc, sa.npts = st->npts, sa.t0 = st->flushed, sa.t1 = upto, sa.k0 = k0;
    s = hd_dft_surface_loop(ctx, &sa, 0, st->npts);
  }
  st->flushed = upto == HD_DFT_BUFFER ? 0 : upto;
  return s;
}

/* The volume's buffered samples into its sums (as fd_dft_flush, windows
 * of HD_DFT_VOLUME_BUFFER samples). */
static hd_status fd_volume_flush(hd_ctx *ctx, fdtd_state *st, int upto) {
  const long m = fd_field_samples(st, st->step) - 1, m0 = m - m % HD_DFT_VOLUME_BUFFER;
  hd_status s = HD_OK;
  int k0, t, k;
  for (k0 = 0; k0 < st->nffreq && upto > st->vol_flushed && s == HD_OK; k0 += HD_DFT_CHUNK) {
    hd_dft_volume_args va = st->vol;
    for (t = st->vol_flushed; t < upto; ++t) {
      hd_dft_phase ph;
      hd_dft_phase_step(&ph, st->ffreq + k0, st->nffreq - k0 < HD_DFT_CHUNK ? st->nffreq - k0 : HD_DFT_CHUNK,
                        (m0 + t) * st->dft_every, st->dt);
      for (va.count = ph.count, k = 0; k < ph.count; ++k)
        va.c[0][t][k] = ph.c[0][k], va.s[0][t][k] = ph.s[0][k], va.c[1][t][k] = ph.c[1][k], va.s[1][t][k] = ph.s[1][k];
    }
    va.t0 = st->vol_flushed, va.t1 = upto, va.k0 = k0;
    s = hd_dft_volume_loop(ctx, &va, va.span, 6);
  }
  st->vol_flushed = upto == HD_DFT_VOLUME_BUFFER ? 0 : upto;
  return s;
}

/* After step st->step - 1: the buffers whose window it filled, flushed. */
static hd_status fd_field_flush(hd_ctx *ctx, fdtd_state *st) {
  const long m = fd_field_samples(st, st->step);
  hd_status s = HD_OK;
  if (!fd_field_due(st, st->step - 1)) return HD_OK;
  if (st->npts && m % HD_DFT_BUFFER == 0) s = fd_dft_flush(ctx, st, HD_DFT_BUFFER);
  if (s == HD_OK && st->vol.acc && m % HD_DFT_VOLUME_BUFFER == 0) s = fd_volume_flush(ctx, st, HD_DFT_VOLUME_BUFFER);
  return s;
}

/* This step's running DFTs: after the E half step (after_h = 0) the feeds'
 * V and I just recorded at vi and the plane wave's source (host), chunk by
 * chunk of frequencies; after the H half step of a step fd_field_due takes
 * the planes' fields, and the surface's and volume's into their buffers. */
static hd_status fd_dft_step(hd_ctx *ctx, fdtd_state *st, const hd_real *vi, int after_h) {
  const double *freq = after_h ? st->ffreq : st->freq;
  const int nf = after_h ? st->nffreq : st->nfreq;
  hd_status s = HD_OK;
  int k0, k;
  if (after_h && !fd_field_due(st, st->step)) return HD_OK;
  for (k0 = 0; k0 < nf && s == HD_OK; k0 += HD_DFT_CHUNK) {
    hd_dft_phase ph;
    hd_dft_phase_step(&ph, freq + k0, nf - k0 < HD_DFT_CHUNK ? nf - k0 : HD_DFT_CHUNK, st->step, st->dt);
    if (!after_h) {
      hd_dft_feed_args fa;
      for (k = 0; st->inc_acc && k < ph.count; ++k) /* the source's E, as the line holds it */
        st->inc_acc[2 * (k0 + k)] += (double)st->inc.src * ph.c[0][k], st->inc_acc[2 * (k0 + k) + 1] += (double)st->inc.src * ph.s[0][k];
      if (!st->nfeed) continue;
      fa.vi = vi, fa.acc = st->feed_acc, fa.nfeed = st->nfeed, fa.k0 = k0, fa.ph = ph;
      s = hd_dft_feed_loop(ctx, &fa, 0, st->nfeed);
    } else {
      int q;
      for (q = 0; q < st->nplane && s == HD_OK; ++q) {
        hd_dft_plane_args pa = st->plane[q];
        pa.k0 = k0, pa.ph = ph;
        s = hd_dft_plane_loop(ctx, &pa, 0, pa.ncell);
      }
    }
  }
  if (s == HD_OK && after_h && st->npts) {
    hd_dft_sample_args sa;
    memcpy(sa.f, st->a.f, sizeof sa.f);
    sa.g = st->a.g, sa.node = st->surf_node, sa.face = st->surf_face, sa.buf = st->surf_buf;
    sa.npts = st->npts, sa.slot = (int)(fd_field_samples(st, st->step) % HD_DFT_BUFFER);
    s = hd_dft_sample_loop(ctx, &sa, 0, st->npts);
  }
  if (s == HD_OK && after_h && st->vol.acc && !st->vol_fused) {
    hd_dft_volume_args va = st->vol;
    va.slot = (int)(fd_field_samples(st, st->step) % HD_DFT_VOLUME_BUFFER);
    s = hd_dft_volume_sample_loop(ctx, &va, va.span, 1);
  }
  return s;
}

/* This step's probe records into their running DFTs. */
static hd_status fd_probe_dft(hd_ctx *ctx, fdtd_state *st, const hd_real *rec) {
  hd_status s = HD_OK;
  int k0;
  for (k0 = 0; k0 < st->nfreq && s == HD_OK; k0 += HD_DFT_CHUNK) {
    hd_dft_probe_args pa;
    hd_dft_phase_step(&pa.ph, st->freq + k0, st->nfreq - k0 < HD_DFT_CHUNK ? st->nfreq - k0 : HD_DFT_CHUNK, st->step, st->dt);
    pa.rec = rec, pa.probe = st->probe, pa.acc = st->probe_acc, pa.nprobe = st->nprobe, pa.k0 = k0;
    s = hd_dft_probe_loop(ctx, &pa, 0, st->nprobe);
  }
  return s;
}

/* The plane wave's half step (efield: after the E update): the
 * corrections across the box's faces from the line's other field, then the
 * line's own update (its source at this step's E time). */
static hd_status fd_plane_wave(hd_ctx *ctx, fdtd_state *st, int efield) {
  hd_fdtd_tfsf_args ta;
  hd_status s;
  ta.f = st->a, ta.pt = st->tfsf[efield ? 0 : 1], ta.line = efield ? st->inc.h : st->inc.e;
  s = hd_fdtd_tfsf_loop(ctx, &ta, 0, st->ntfsf[efield ? 0 : 1]);
  if (s != HD_OK) return s;
  if (!efield) return hd_fdtd_inc_h_loop(ctx, &st->inc, 0, st->inc.n - 1);
  st->inc.src = (hd_real)(st->pw_e0 * hd_fdtd_waveform(&st->wave_h, (double)(st->step + 1) * st->dt));
  return hd_fdtd_inc_e_loop(ctx, &st->inc, 0, st->inc.n - 1);
}

/* Component c in the absorbing layers: split-field or convolutional. */
static hd_status fd_layers_step(hd_ctx *ctx, fdtd_state *st, int c) {
  hd_fdtd_cpml_args ca;
#if !defined(HD_BACKEND_CUDA)
  if (st->lrun[c]) { /* the CPU rows' runs (those on the nodes' rows went with them) */
    hd_fdtd_cpu_layer_args l;
    fd_layer_args(st, c, &l);
    return hd_fdtd_layers_tuned(ctx, &l, st->lrun[c], st->nlrun[c]);
  }
#endif
  if (!st->cpml) return hd_fdtd_pml_loop(ctx, &st->pml[c], 0, st->npml[c]);
  ca = st->cpml_args[c];
  ca.f = st->a, ca.pt = st->pml[c].pt, ca.psi1 = st->pml[c].s1, ca.psi2 = st->pml[c].s2, ca.comp = c;
  return hd_fdtd_cpml_loop(ctx, &ca, 0, st->npml[c]);
}

/* The Mur points after the half step of the field they act on (unless
 * they went with its rows). */
static hd_status fd_mur(hd_ctx *ctx, fdtd_state *st) {
  hd_fdtd_mur_args mu;
  if (fd_mur_in_rows(st)) return HD_OK;
  fd_mur_args(st, &mu);
  return hd_fdtd_mur_loop(ctx, &mu, 0, st->nmur);
}

/* The scattered-field form's incident wave read from its line (none: the
 * closed form): of the E half step (which 0), the H half step (1), or E
 * and H now (2, the probes'). */
static void fd_sf_reads(const fdtd_state *st, hd_fdtd_incident *inc, int which) {
  if (!st->inc.n) return;
  inc->line[0] = which == 1 ? st->inc.h0 : which == 0 ? st->inc.e0 : st->inc.e;
  inc->line[1] = which == 0 ? st->inc.e : st->inc.h;
  if (!st->inc.nrm) return; /* a Bloch-periodic cell's N: in the half step of its kind */
  inc->nline[0] = which == 2 ? st->inc.nrm : which == st->inc.n_h ? st->inc.nrm0 : NULL;
  inc->nline[1] = which == 2 || which == st->inc.n_h ? st->inc.nrm : NULL;
}

/* The scattered-field form's line through a half step (efield: E, its
 * source at this step's E time). */
static hd_status fd_sf_line(hd_ctx *ctx, fdtd_state *st, int efield) {
  if (!efield) return hd_fdtd_inc_h_loop(ctx, &st->inc, 0, st->inc.n - 1);
  st->inc.src = (hd_real)(st->pw_e0 * hd_fdtd_waveform(&st->wave_h, (double)(st->step + 1) * st->dt));
  return hd_fdtd_inc_e_loop(ctx, &st->inc, 0, st->inc.n - 1);
}

/* The scattered-field form's half step (efield: after the E update): the
 * incident wave's part in the media, the field's times before and after. */
static hd_status fd_sf(hd_ctx *ctx, fdtd_state *st, int efield) {
  hd_fdtd_sf_args sa;
  const double t = (double)st->step * st->dt + (efield ? 0.0 : 0.5 * st->dt);
  const int w = efield ? 0 : 1;
  if (!st->nsf[w]) return HD_OK;
  memcpy(sa.f, st->a.f, sizeof sa.f), memcpy(sa.m, st->a.m, sizeof sa.m);
  sa.pt = st->sf[w], sa.coef = st->sf_coef + 512 * w, sa.inc = st->pw;
  sa.inc.t0 = t, sa.inc.t1 = t + st->dt;
  fd_sf_reads(st, &sa.inc, w);
  return hd_fdtd_sf_loop(ctx, &sa, 0, st->nsf[w]);
}

/* A step in three parts, the periodic ghosts between them (fd_step).
 * The E half step: halo (unless NULL) first exchanges the ghosts the
 * previous step left stale, under the E update. */
static hd_status fd_step_e(hd_ctx *ctx, fdtd_state *st, hd_real *rec, hd_status (*halo)(hd_ctx *, void *), void *arg) {
  hd_status s = halo ? fd_e_exchanged(ctx, st, halo, arg) : fd_half_step(ctx, st, 1);
  const int tfsf = st->inc.n && !st->pw_sf, sf_line = st->inc.n && st->pw_sf;
  int c;
  if (s == HD_OK && sf_line) s = fd_sf_line(ctx, st, 1);
  if (s == HD_OK && st->nade) {
    st->ade.f = st->a;
    st->ade.pwd = st->ade_pwd, st->ade.inc = st->pw;
    st->ade.inc.t0 = (double)st->step * st->dt, st->ade.inc.t1 = (double)(st->step + 1) * st->dt;
    fd_sf_reads(st, &st->ade.inc, 0);
    s = hd_fdtd_ade_loop(ctx, &st->ade, 0, st->nade);
  }
  if (s == HD_OK && st->pw_sf) s = fd_sf(ctx, st, 1);
  for (c = 0; c < 3 && s == HD_OK; ++c)
    if (st->npml[c]) s = fd_layers_step(ctx, st, c);
  if (s == HD_OK && st->nmur && !st->mur_h) s = fd_mur(ctx, st);
  if (s == HD_OK && tfsf) s = fd_plane_wave(ctx, st, 1);
  if (s == HD_OK && st->nfeed) {
    hd_fdtd_feed_args fa;
    fa.f = st->a;
    fa.feed = st->feed;
    fa.wave = st->wave;
    fa.t = (double)(st->step + 1) * st->dt;
    fa.rec = rec ? rec + st->nprobe : st->vi;
    s = hd_fdtd_feed_loop(ctx, &fa, 0, st->nfeed);
  }
  return s;
}

/* Whether the H march can take this step's volume sample: it is due, and
 * no pass after the march sets E or H at a node (Mur on H, the plane
 * waves' corrections, H's layers, periodic copies). */
static int fd_volume_fusable(const fdtd_state *st) {
  int a;
  if (!st->vol_fuse || !st->vol.acc || !fd_field_due(st, st->step)) return 0;
  if ((st->nmur && st->mur_h) || st->inc.n || st->pw_sf || st->twin) return 0;
  for (a = 0; a < 3; ++a)
    if (st->npml[3 + a] || st->bc[a] == HD_FDTD_BC_PERIODIC) return 0;
  return 1;
}

/* The H half step. */
static hd_status fd_step_h(hd_ctx *ctx, fdtd_state *st, hd_real *rec) {
  const int sf_line = st->inc.n && st->pw_sf;
  hd_status s = HD_OK;
  int c;
  if (st->pw_sf) st->inc.src = (hd_real)(st->pw_e0 * hd_fdtd_waveform(&st->wave_h, (double)(st->step + 1) * st->dt));
  if (s == HD_OK && st->nfreq && (st->nfeed || st->inc_acc)) s = fd_dft_step(ctx, st, rec ? rec + st->nprobe : st->vi, 0);
  if ((st->vol_fused = fd_volume_fusable(st))) {
    const int slot = (int)(fd_field_samples(st, st->step) % HD_DFT_VOLUME_BUFFER);
    st->a.vbuf = st->vol.buf + (hd_idx)6 * slot * st->vol.span, st->a.vfirst = st->vol.first, st->a.vspan = st->vol.span;
  }
  if (s == HD_OK) s = fd_half_step(ctx, st, 0);
  st->a.vbuf = NULL;
  if (s == HD_OK && st->nmur && st->mur_h) s = fd_mur(ctx, st);
  if (s == HD_OK && sf_line) s = fd_sf_line(ctx, st, 0);
  if (s == HD_OK && st->pw_sf) s = fd_sf(ctx, st, 0);
  for (c = 3; c < 6 && s == HD_OK; ++c)
    if (st->npml[c]) s = fd_layers_step(ctx, st, c);
  return s;
}

/* The step's end: the box's H corrections, the running DFTs, the probes. */
static hd_status fd_step_end(hd_ctx *ctx, fdtd_state *st, hd_real *rec) {
  hd_status s = HD_OK;
  if (st->inc.n && !st->pw_sf) s = fd_plane_wave(ctx, st, 0);
  if (s == HD_OK && (st->npts || st->nplane || st->vol.acc)) s = fd_dft_step(ctx, st, NULL, 1);
  if (s == HD_OK && rec && st->nprobe) {
    hd_fdtd_probe_args pa;
    memcpy(pa.f, st->a.f, sizeof pa.f);
    pa.probe = st->probe;
    pa.rec = rec;
    s = hd_fdtd_probe_loop(ctx, &pa, 0, st->nprobe);
    if (s == HD_OK && st->pw_sf) { /* the total field */
      hd_fdtd_sf_probe_args qa;
      qa.probe = st->probe, qa.d = st->sf_probe_d, qa.w = st->sf_probe_w, qa.rec = rec, qa.inc = st->pw;
      qa.inc.t0 = (double)(st->step + 1) * st->dt, qa.inc.t1 = qa.inc.t0 + 0.5 * st->dt;
      fd_sf_reads(st, &qa.inc, 2);
      s = hd_fdtd_sf_probe_loop(ctx, &qa, 0, st->nprobe);
    }
    if (s == HD_OK && st->probe_acc) s = fd_probe_dft(ctx, st, rec);
  }
  ++st->step;
  if (s == HD_OK) s = fd_field_flush(ctx, st);
  return s;
}

/* One step: the E ghosts of periodic axes once every pass has set E (in
 * the layers too), H's likewise; a Bloch-periodic cell steps its twin
 * (the imaginary part, recording into its own rec) beside it. */
static hd_status fd_step(hd_ctx *ctx, fdtd_state *st, hd_real *rec, hd_status (*halo)(hd_ctx *, void *), void *arg) {
  fdtd_state *tw = st->twin;
  hd_real *trec = tw && rec ? tw->rec + (rec - st->rec) : NULL;
  hd_status s = fd_step_e(ctx, st, rec, halo, arg);
  if (s == HD_OK && tw) s = fd_step_e(ctx, tw, trec, NULL, NULL);
  if (s == HD_OK) s = fd_periodic(ctx, st, 1);
  if (s == HD_OK) s = fd_step_h(ctx, st, rec);
  if (s == HD_OK && tw) s = fd_step_h(ctx, tw, trec);
  if (s == HD_OK) s = fd_periodic(ctx, st, 0);
  if (s == HD_OK) s = fd_step_end(ctx, st, rec);
  if (s == HD_OK && tw) s = fd_step_end(ctx, tw, trec);
  return s;
}

#include "fdtd_wave.h"

/* Steps a sweep this state takes, and why not more where it was asked. */
static int fd_time_block(void *state, const char **why) {
  fdtd_state *st = (fdtd_state *)state;
  *why = st->time_block > 1 ? fd_tb_refusal(st) : NULL;
  if (*why) st->time_block = 1;
  if (st->time_block > FD_TB_MAX) st->time_block = FD_TB_MAX;
#if defined(HD_BACKEND_CUDA)
  if (st->time_block > HD_FDTD_FUSED_MAX_T) st->time_block = HD_FDTD_FUSED_MAX_T;
#endif
  return st->time_block;
}

static hd_status fd_advance(hd_ctx *ctx, void *state, long steps, double *rec, hd_status (*halo)(hd_ctx *, void *),
                            void *arg) {
  fdtd_state *st = (fdtd_state *)state;
  hd_real *host = NULL;
  hd_status s = HD_OK;
  long done = 0;
  int saved[3], stale = 0; /* the last step's H not yet exchanged */
  const char *why;
  fd_time_block(st, &why); /* the kinds of state that cannot, step singly */
  if (rec && st->nrec) {
    host = (hd_real *)hd_host_alloc((size_t)FDTD_REC_CHUNK * st->nrec * sizeof(hd_real));
    if (!host) return hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory");
  }
  memcpy(saved, ctx->block, sizeof saved);
  memcpy(ctx->block, st->block, sizeof saved);
  while (done < steps && s == HD_OK) {
    const long chunk = steps - done < FDTD_REC_CHUNK ? steps - done : FDTD_REC_CHUNK;
    long k, v;
    for (k = 0; k < chunk && s == HD_OK;) {
#if !defined(HD_BACKEND_CUDA)
      const int t = st->time_block > 1 && !halo ? fd_block_steps(st, chunk - k) : 1;
      if (t > 1) {
        s = fd_block(ctx, st, t, host ? st->rec + k * st->nrec : NULL);
        k += t;
        continue;
      }
#else
      const int t = st->time_block > 1 && !halo && chunk - k >= st->time_block ? st->time_block : 1; /* one plan: one T */
      if (t > 1) {
        s = fd_fused_block(ctx, st, t, host ? st->rec + k * st->nrec : NULL);
        k += t;
        continue;
      }
#endif
      s = fd_step(ctx, st, host ? st->rec + k * st->nrec : NULL, stale ? halo : NULL, arg);
      stale = halo != NULL;
      ++k;
    }
    if (s == HD_OK && host) {
      s = hd_dev_download(ctx, host, st->rec, (size_t)chunk * st->nrec * sizeof(hd_real));
      for (v = 0; s == HD_OK && v < chunk * st->nrec; ++v) rec[done * st->nrec + v] = (double)host[v];
    }
    done += chunk;
  }
  if (s == HD_OK && stale) s = halo(ctx, arg); /* the ghosts current on return, as on entry */
  memcpy(ctx->block, saved, sizeof saved);
  hd_host_free(host);
  return s;
}
