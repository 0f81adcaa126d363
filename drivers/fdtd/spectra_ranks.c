/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-fdtd's spectra over the ranks: every block's running DFTs of feeds,
 * probes, Huygens points, map planes and the volume put in their whole-run
 * places on rank 0, the results written from there; and excite=all's runs
 * of one port each. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hd/fdtd_dft.h>

#include "decomp.h"
#include "fdtd_module.h"

#define PROG "hd-fdtd"

/* excite=all: feed j driven (at its amplitude, or 1 V where it has none),
 * the others passive (their resistance alone); this block's feeds. */
void fdtd_drive_port(const fdtd_input *in, fdtd_run *r, int j) {
  int k;
  for (k = 0; k < r->nfeed; ++k) {
    const int g = r->feed_slot[k] >= 0 ? r->feed_slot[k] : -1 - r->feed_slot[k];
    r->feed[k].amp = g == j ? (in->feeds[g].amp != 0 ? in->feeds[g].amp : 1.0) : 0.0;
  }
}

/* Each block's feed spectra (4 x nfreq x its feeds) into the whole run's
 * (4 x nfreq x nfeed) on rank 0, from the reporting block of each feed. */
static int gather_feeds(const fdtd_run *r, int nfreq, int nfeed, const double *local, double *global) {
  long k, q;
  int p;
  memset(global, 0, (size_t)4 * nfreq * nfeed * sizeof(double));
  for (k = 0; k < 4L * nfreq; ++k)
    for (p = 0; p < r->nfeed; ++p)
      if (r->feed_slot[p] >= 0) global[k * nfeed + r->feed_slot[p]] = local[k * r->nfeed + p];
  q = 4L * nfreq * nfeed;
  return r->dc.size > 1 ? hd_par_sum_to_root(global, q) : 0;
}

/* One of excite=all's runs without outputs: port j driven, the steps (or
 * until --converge, judged at the average cadence as the main run does),
 * the feed spectra into acc. */
hd_status fdtd_port_run(const fdtd_cli *c, fdtd_run *r, const fdtd_ops *ops, hd_ctx *ctx, fdtd_model *m, long pad,
                        int j, double *acc) {
  const long every = c->average_every > 0 ? c->average_every : (c->in.steps >= 100 ? c->in.steps / 100 : 1);
  const double cells = (double)c->in.n[0] * c->in.n[1] * c->in.n[2];
  double *rows = (double *)malloc((size_t)(2 * r->dc.ln[1] * r->dc.ln[2]) * sizeof(double)), emax = 0, hmax = 0;
  double *local = (double *)malloc(((size_t)4 * c->sp.nfreq * r->nfeed + 1) * sizeof(double));
  void *state = NULL;
  char err[256];
  long step = 0;
  hd_status s;
  if (!rows || !local) return free(rows), free(local), hd_fail(ctx, HD_ERR_NOMEM, "out of host memory");
  fdtd_drive_port(&c->in, r, j);
  if (r->dc.rank == 0) fprintf(stderr, PROG ": excite=all: port %d of %d\n", j + 1, c->in.nfeed);
  s = ops->create(ctx, m, &state);
  while (s == HD_OK && step < c->in.steps) {
    const long chunk = every < c->in.steps - step ? every : c->in.steps - step;
    double sums[2], e, h;
    s = fdtd_block_advance(ctx, r, ops, state, pad, chunk, NULL, NULL, 0, 0);
    step += chunk;
    if (s == HD_OK && c->in.converge > 0 && (step % every == 0 || step == c->in.steps)) {
      s = ops->row_sums(ctx, state, rows);
      if (s == HD_OK && hd_decomp_row_sums(&r->dc, rows, 2, sums, err, sizeof err)) s = hd_fail(ctx, HD_ERR_IO, "%s", err);
      e = sums[0] / (4.0 * cells), h = sums[1] / (2.0 * cells);
      emax = fmax(emax, e), hmax = fmax(hmax, h);
      if (s == HD_OK && emax > 0 && e < c->in.converge * emax && h < c->in.converge * hmax) break;
    }
  }
  if (s == HD_OK) s = ops->spectra(ctx, state, r->nfeed ? local : NULL, NULL, NULL, NULL, NULL, NULL);
  if (s == HD_OK && gather_feeds(r, c->sp.nfreq, c->in.nfeed, local, acc)) s = hd_fail(ctx, HD_ERR_IO, "collecting the port spectra failed");
  if (state) ops->destroy(ctx, state);
  free(rows), free(local);
  return s;
}

void fdtd_spectra_run_free(fdtd_spectra_run *g) {
  int k;
  free(g->feeds), free(g->probes), free(g->surf), free(g->inc);
  for (k = 0; k < FDTD_MAX_PLANES; ++k) free(g->planes[k]);
}

/* nearvolume: from every node's phasors of this block (re, im x 6 x nfreq
 * x nodes), each component's phasor at the cell centres (the mean of its
 * four or two positions around the centre, as the slices), gathered, and
 * on rank 0 PREFIX_dftK.vti (or .vtr) of amplitude and phase (degrees) a
 * frequency.  Collective.  0, or -1 + message. */
static int write_volume(const fdtd_cli *c, const fdtd_run *r, int real_size, const double *vol, char *err, size_t en) {
  static const char *const names[12] = {"Ex_amplitude", "Ex_phase_deg", "Ey_amplitude", "Ey_phase_deg",
                                        "Ez_amplitude", "Ez_phase_deg", "Hx_amplitude", "Hx_phase_deg",
                                        "Hy_amplitude", "Hy_phase_deg", "Hz_amplitude", "Hz_phase_deg"};
  const long *ln = r->dc.ln, nn[3] = {ln[0] + 1, ln[1] + 1, ln[2] + 1};
  const size_t nodes = (size_t)nn[0] * nn[1] * nn[2], lcells = (size_t)ln[0] * ln[1] * ln[2];
  const size_t cells = (size_t)c->in.n[0] * c->in.n[1] * c->in.n[2];
  const int root = r->dc.rank == 0, uni = fdtd_uniform_mesh(&c->in);
  double *loc = (double *)malloc((2 * lcells + 1) * sizeof(double)), *all[12] = {NULL};
  hd_vti_array arr[12];
  int k, q, bad = !loc, rc = -1;
  for (q = 0; q < 12 && root; ++q) bad |= !(all[q] = (double *)malloc(cells * sizeof(double)));
  if (hd_par_any(bad)) {
    snprintf(err, en, "out of host memory for the volume's spectra");
    goto done;
  }
  for (k = 0; k < c->sp.nfar; ++k) {
    char path[4200];
    hd_out o;
    for (q = 0; q < 6; ++q) {
      const int cc = q % 3, u = (cc + 1) % 3, v = (cc + 2) % 3;
      const long su = u == 0 ? 1 : u == 1 ? nn[0] : nn[0] * nn[1], sv = v == 0 ? 1 : v == 1 ? nn[0] : nn[0] * nn[1];
      const long sc = cc == 0 ? 1 : cc == 1 ? nn[0] : nn[0] * nn[1];
      const double *re = vol + (2 * (6 * (size_t)k + q)) * nodes, *im = re + nodes;
      long i, j, l;
      size_t p = 0;
      for (l = 0; l < ln[2]; ++l)
        for (j = 0; j < ln[1]; ++j)
          for (i = 0; i < ln[0]; ++i, ++p) {
            const long n = i + nn[0] * (j + nn[1] * l);
            double a, b;
            if (q < 3) a = 0.25 * (re[n] + re[n + su] + re[n + sv] + re[n + su + sv]), b = 0.25 * (im[n] + im[n + su] + im[n + sv] + im[n + su + sv]);
            else a = 0.5 * (re[n] + re[n + sc]), b = 0.5 * (im[n] + im[n + sc]);
            loc[p] = sqrt(a * a + b * b), loc[lcells + p] = atan2(b, a) * 180 / 3.14159265358979323846;
          }
      if (hd_decomp_gather(&r->dc, loc, all[2 * q], err, en) || hd_decomp_gather(&r->dc, loc + lcells, all[2 * q + 1], err, en))
        goto done;
    }
    bad = 0;
    if (root) {
      hd_vtk_meta meta;
      memset(&meta, 0, sizeof meta);
      hd_vtk_meta_add(&meta, "frequency_Hz", c->sp.freq[c->sp.far0 + k]);
      memset(arr, 0, sizeof arr);
      for (q = 0; q < 12; ++q) {
        arr[q].name = names[q], arr[q].data = all[q], arr[q].single = real_size == 4;
        arr[q].units = q % 2 ? "deg" : q < 6 ? "V/m" : "A/m";
      }
      snprintf(path, sizeof path, "%s_dft%d.%s", c->com.output, k + 1, uni ? "vti" : "vtr");
      bad = hd_out_open(&o, path, err, en) != 0;
      if (!bad) {
        const int64_t n64[3] = {c->in.n[0], c->in.n[1], c->in.n[2]};
        const double x0[3] = {c->in.node[0][0], c->in.node[1][0], c->in.node[2][0]};
        double dx[3];
        int a;
        for (a = 0; a < 3; ++a) dx[a] = (c->in.node[a][c->in.n[a]] - c->in.node[a][0]) / c->in.n[a];
        if (uni ? hd_vti_write(&o, n64, x0, dx, arr, 12, &meta)
                : hd_vtr_write(&o, n64, (const double *const *)c->in.node, arr, 12, &meta)) {
          hd_out_abort(&o);
          snprintf(err, en, "cannot write %.900s: %s", path, hd_out_error());
          bad = 1;
        } else {
          bad = hd_out_commit(&o, err, en) != 0;
        }
      }
      if (!bad) printf("nearvolume_%d: %.6g Hz: %s\n", k + 1, c->sp.freq[c->sp.far0 + k], path);
    }
    if (hd_par_any(bad)) goto done; /* rank 0's failure ends every rank's loop */
  }
  rc = 0;
done:
  free(loc);
  for (q = 0; q < 12; ++q) free(all[q]);
  return hd_par_any(rc != 0) ? -1 : 0;
}

/* Collective.  0, or -1 + message (every rank agrees). */
int fdtd_gather_spectra(const fdtd_cli *c, const fdtd_ops *ops, hd_ctx *ctx, void *state, const fdtd_run *r,
                        fdtd_spectra_run *g, char *err, size_t en) {
  const size_t nf = (size_t)c->sp.nfreq, nff = (size_t)c->sp.nfar; /* every frequency; the fields' */
  double *feeds = (double *)malloc((4 * nf * (size_t)r->nfeed + 1) * sizeof(double));
  double *probes = (double *)malloc((2 * nf * (size_t)r->nprobe + 1) * sizeof(double));
  double *surf = (double *)malloc((8 * nff * (size_t)r->npts + 1) * sizeof(double)), *planes[FDTD_MAX_PLANES] = {NULL};
  long lu[FDTD_MAX_PLANES], lv[FDTD_MAX_PLANES], gu[FDTD_MAX_PLANES], gv[FDTD_MAX_PLANES];
  int k, bad, rc = -1;
  memset(g, 0, sizeof *g);
  g->feeds = (double *)malloc((4 * nf * (size_t)c->in.nfeed + 1) * sizeof(double));
  g->probes = (double *)calloc(2 * nf * (size_t)c->in.nprobe + 1, sizeof(double));
  g->surf = (double *)calloc(8 * nff * (size_t)r->gpts + 1, sizeof(double));
  g->inc = (double *)malloc((2 * nf + 1) * sizeof(double));
  bad = !feeds || !probes || !surf || !g->feeds || !g->probes || !g->surf || !g->inc;
  for (k = 0; k < c->nplane; ++k) { /* this block's cells of the plane, and the whole plane's */
    const int a = c->near[k].axis, u = a == 0 ? 1 : 0, v = a == 2 ? 1 : 2;
    const long layer = c->near[k].layer - r->dc.off[a];
    lu[k] = layer >= 0 && layer < r->dc.ln[a] ? r->dc.ln[u] : 0, lv[k] = r->dc.ln[v];
    gu[k] = c->in.n[u], gv[k] = c->in.n[v];
    planes[k] = (double *)malloc((2 * nff * (size_t)(lu[k] * lv[k]) + 1) * sizeof(double));
    g->planes[k] = (double *)calloc(2 * nff * (size_t)(gu[k] * gv[k]) + 1, sizeof(double));
    bad |= !planes[k] || !g->planes[k];
  }
  if (hd_par_any(bad)) {
    snprintf(err, en, "out of host memory for the spectra");
    goto done;
  }
  if (c->nearvolume) { /* first, alone: its arrays are the largest */
    const size_t nv = 12 * nff * (size_t)(r->dc.ln[0] + 1) * (r->dc.ln[1] + 1) * (r->dc.ln[2] + 1);
    double *vol = (double *)malloc(nv * sizeof(double));
    bad = !vol || ops->spectra(ctx, state, NULL, NULL, NULL, NULL, NULL, vol) != HD_OK;
    if (hd_par_any(bad)) {
      snprintf(err, en, "%s", !vol ? "out of host memory for the volume's spectra" : bad ? ctx->msg : "the spectra failed on another rank");
      free(vol);
      goto done;
    }
    bad = write_volume(c, r, (int)ops->real_size, vol, err, en) != 0;
    free(vol);
    if (bad) goto done;
  }
  bad = ops->spectra(ctx, state, r->nfeed ? feeds : NULL, r->nprobe ? probes : NULL, r->npts ? surf : NULL, planes,
                     c->pw.on ? g->inc : NULL, NULL) != HD_OK;
  if (hd_par_any(bad)) {
    snprintf(err, en, "%s", bad ? ctx->msg : "the spectra failed on another rank");
    goto done;
  }
  {
    size_t q, p;
    for (q = 0; q < 8 * nff; ++q)
      for (p = 0; p < (size_t)r->npts; ++p) g->surf[q * r->gpts + r->surf_slot[p]] = surf[q * r->npts + p];
    for (q = 0; q < 2 * nf; ++q) /* each probe from the block that reports it */
      for (p = 0; p < (size_t)r->nprobe; ++p) g->probes[q * c->in.nprobe + r->probe_slot[p]] = probes[q * r->nprobe + p];
    for (k = 0; k < c->nplane; ++k) {
      const int a = c->near[k].axis, u = a == 0 ? 1 : 0, v = a == 2 ? 1 : 2;
      long i, j;
      for (q = 0; lu[k] && q < 2 * nff; ++q)
        for (j = 0; j < lv[k]; ++j)
          for (i = 0; i < lu[k]; ++i)
            g->planes[k][q * gu[k] * gv[k] + (j + r->dc.off[v]) * gu[k] + i + r->dc.off[u]] = planes[k][(q * lv[k] + j) * lu[k] + i];
    }
  }
  bad = gather_feeds(r, c->sp.nfreq, c->in.nfeed, feeds, g->feeds) != 0;
  if (r->dc.size > 1) {
    bad |= hd_par_sum_to_root(g->probes, (long)(2 * nf * (size_t)c->in.nprobe)) != 0;
    bad |= hd_par_sum_to_root(g->surf, (long)(8 * nff * (size_t)r->gpts)) != 0;
    for (k = 0; k < c->nplane; ++k) bad |= hd_par_sum_to_root(g->planes[k], (long)(2 * nff * (size_t)(gu[k] * gv[k]))) != 0;
  }
  if (hd_par_any(bad)) snprintf(err, en, "collecting the spectra failed");
  else rc = 0;
done:
  free(feeds), free(probes), free(surf);
  for (k = 0; k < c->nplane; ++k) free(planes[k]);
  return rc;
}

/* The frequency-domain results from the gathered spectra (rank 0): the
 * ports, the far field, the S matrix, the maps.  0 or -1 + message. */
int fdtd_write_spectra(const fdtd_cli *c, const fdtd_model *m, long steps, const fdtd_spectra_run *g, const long lo[3],
                       const long hi[3], double *const *runs, char *err, size_t en) {
  const size_t nf = (size_t)c->sp.nfreq;
  int rc = -1, k;
  if (c->in.nfeed && fdtd_spectra_ports(&c->sp, &c->in, g->feeds, c->com.output, err, en)) (void)0;
  else if (fdtd_spectra_points(&c->sp, &c->in, g->probes, c->in.nfeed ? g->feeds : NULL, c->com.output, err, en)) (void)0;
  else if (c->sp.ntheta && fdtd_spectra_farfield_write(&c->sp, &c->in, lo, hi, g->surf, c->in.nfeed ? g->feeds : NULL,
                                                       c->pw.on ? g->inc : NULL, c->com.output, err, en)) (void)0;
  else if (c->sp.excite_all && (memcpy(runs[c->in.nfeed - 1], g->feeds, 4 * nf * (size_t)c->in.nfeed * sizeof(double)),
                                fdtd_spectra_smatrix(&c->sp, &c->in, runs, c->com.output, err, en))) (void)0;
  else rc = 0;
  for (k = 0; rc == 0 && k < c->nmap; ++k) {
    const fdtd_map *mp = &c->map[k];
    int q;
    for (q = 0; c->pw.on && !(mp->line ? c->plots.line_noinc : c->plots.map_noinc) && q < mp->count; ++q)
      fdtd_planewave_add_incident(m, &c->in, &c->near[mp->first + q], c->sp.freq + c->sp.far0, c->sp.nfar, steps, 0,
                                  g->planes[mp->first + q]); /* the total field, as the probes record it */
    rc = fdtd_spectra_nearfield(&c->sp, &c->in, k + 1 - (c->map[k].line ? c->nearfield.count : 0), &c->map[k], c->near + c->map[k].first,
                                (const double *const *)g->planes + c->map[k].first, c->com.output, err, en);
  }
  if (rc == 0 && c->nflux) rc = fdtd_spectra_flux(c, m, steps, g, err, en);
  return rc;
}

