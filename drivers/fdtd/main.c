/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-fdtd: 3-D Yee FDTD on the serial, OpenMP or CUDA backend, from an
 * input file of key = value lines (doc/fdtd.md) or the built-in benchmark.
 * Everything is checked and every output opened before the run; exit status
 * 0 success, 1 run-time failure, 2 bad usage or input. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hd/fdtd_dft.h>

#include "checkpoint.h"
#include "decomp.h"
#include "driver.h"
#include "fdtd_ops.h"
#include "model.h"
#include "output.h"
#include "planewave.h"
#include "ofd.h"
#include "spectra.h"
#include "plots.h"
#include "sys.h"

#define PROG "hd-fdtd"


typedef struct fdtd_cli {
  hd_drv_common com;
  fdtd_input in;
  long bench, average_every, block[3];
  int nblock, volume, pieces;
  char slice[128], frequencies[128], ffrequencies[128], farfield[64], planewave[128], time_block[16];
  fdtd_planewave pw;
  cli_list nearfield, nearline;
  fdtd_slice near[FDTD_MAX_PLANES]; /* the maps' planes */
  fdtd_map map[FDTD_MAX_PLANES];
  int nplane, nmap;
  int excite, nearvolume;
  long margin;
  double z0;
  fdtd_spectra sp;
  fdtd_plot_keys pk;
  fdtd_plots plots;
} fdtd_cli;

/* What a checkpoint of this model must match on restart, on any rank
 * count: the time step, the boundaries and fingerprints of the whole
 * grid's mesh, materials, geometry and sources. */
static void ckpt_template(const fdtd_input *in, const fdtd_model *m, size_t real_size, hd_ckpt *ck) {
  uint32_t mesh = 0, mat = 0, src = 0;
  int a, k;
  memset(ck, 0, sizeof *ck);
  snprintf(ck->driver, sizeof ck->driver, "hd-fdtd");
  ck->real_size = (uint32_t)real_size;
  for (a = 0; a < 3; ++a) {
    ck->dims[a] = in->n[a];
    mesh = hd_crc32(mesh, in->node[a], (size_t)(in->n[a] + 1) * sizeof(double));
  }
  for (k = 0; k < in->nobj; ++k) { /* the geometry (member by member: no padding bytes) */
    const int shape[3] = {in->obj[k].mat, in->obj[k].shape, in->obj[k].axis};
    mat = hd_crc32(mat, shape, sizeof shape), mat = hd_crc32(mat, in->obj[k].v, sizeof in->obj[k].v);
  }
  mat = hd_crc32(mat, m->eps_r, (size_t)m->nmat * sizeof(double));
  mat = hd_crc32(mat, m->sigma, (size_t)m->nmat * sizeof(double));
  mat = hd_crc32(mat, m->mu_r, (size_t)m->nmat * sizeof(double));
  mat = hd_crc32(mat, m->sigma_m, (size_t)m->nmat * sizeof(double));
  mat = hd_crc32(mat, in->npole, (size_t)m->nmat * sizeof(int));
  mat = hd_crc32(mat, in->pole, (size_t)m->nmat * sizeof in->pole[0]);
  for (k = 0; k < in->nload; ++k) {
    const fdtd_load *l = &in->loads[k];
    const long at[4] = {l->comp, l->i, l->j, l->k};
    const double v[3] = {l->g, l->il, l->c};
    mat = hd_crc32(mat, at, sizeof at), mat = hd_crc32(mat, v, sizeof v);
  }
  for (k = 0; k < in->nfeed; ++k) {
    const fdtd_point *f = &in->feeds[k];
    const long at[4] = {f->comp, f->i, f->j, f->k};
    const double v[3] = {f->amp, f->r, f->delay};
    src = hd_crc32(src, at, sizeof at), src = hd_crc32(src, v, sizeof v);
  }
  src = hd_crc32(src, &m->wave, sizeof m->wave);
  if (m->pw_e0 != 0) { /* the plane wave as the backend gets it */
    src = hd_crc32(src, m->pw_k, sizeof m->pw_k), src = hd_crc32(src, m->pw_e, sizeof m->pw_e);
    src = hd_crc32(src, &m->pw_e0, sizeof m->pw_e0), src = hd_crc32(src, &m->pw_cell, sizeof m->pw_cell);
    src = hd_crc32(src, m->tfsf_lo, sizeof m->tfsf_lo), src = hd_crc32(src, m->tfsf_hi, sizeof m->tfsf_hi);
  }
  hd_ckpt_param(ck, "dt", "%.17g", m->dt);
  hd_ckpt_param(ck, "boundaries", "%d,%d,%d", m->bc[0], m->bc[1], m->bc[2]);
  hd_ckpt_param(ck, "pml", "%d,%d,%.17g", m->pml_layers, m->pml_order, m->pml_r0);
  for (a = 0; a < 3; ++a)
    if (m->bc[a] == HD_FDTD_BC_CPML) {
      hd_ckpt_param(ck, "cpml", "%.17g,%.17g", m->cpml_kappa, m->cpml_alpha);
      break;
    }
  hd_ckpt_param(ck, "mesh_crc", "%08x", mesh);
  hd_ckpt_param(ck, "materials_crc", "%08x", mat);
  hd_ckpt_param(ck, "sources_crc", "%08x", src);
}

static const char *const comp_names[6] = {"ex", "ey", "ez", "hx", "hy", "hz"};

/* Component comp averaged to the centre of cell (i, j, k) (physical): the
 * mean of its four (E) or two (H) positions around the centre. */
static double cell_value(const double *f, int comp, const hd_grid *g, long pad, long i, long j, long k) {
  const int c = comp % 3, u = (c + 1) % 3, v = (c + 2) % 3;
  const hd_idx n = hd_grid_at(g, i + pad, j + pad, k + pad), su = g->stride[u], sv = g->stride[v];
  const hd_idx sc = g->stride[c];
  if (comp < 3) return 0.25 * (f[n] + f[n + su] + f[n + sv] + f[n + su + sv]);
  return 0.5 * (f[n] + f[n + sc]);
}

/* --time-block=auto: where blocking pays, measured (doc/performance.md,
 * "FDTD past the memory wall"): on the CPU 4 once the six fields outgrow a
 * last-level cache (at 100^3 single, 24 MB, single steps are faster; at
 * 200^3 and 300^3 four steps a sweep are 1.3x); CUDA steps singly. */
#define FDTD_AUTO_TIME_BLOCK_DOC "4 on the CPU backends where the fields pass 64 MB, else 1"
#define FDTD_AUTO_TIME_BLOCK_BYTES 64e6
static int auto_time_block(int backend, const fdtd_model *m, size_t real_size) {
  const double field_bytes = 6.0 * (double)real_size * (double)m->n[0] * (double)m->n[1] * (double)m->n[2];
  return backend == HD_B_CUDA || field_bytes < FDTD_AUTO_TIME_BLOCK_BYTES ? 1 : 4;
}

/* --time-block=T|auto into the model; 0, or 1 with a message. */
static int parse_time_block(const char *arg, int backend, size_t real_size, fdtd_model *m, char *err, size_t n) {
  char *end;
  long t;
  if (!arg[0] || !strcmp(arg, "auto")) {
    m->time_block = auto_time_block(backend, m, real_size);
    return 0;
  }
  t = strtol(arg, &end, 10);
  if (end == arg || *end || t < 1 || t > FDTD_MAX_TIME_BLOCK) {
    snprintf(err, n, "--time-block: '%s' is not auto or a step count from 1 to %d", arg, FDTD_MAX_TIME_BLOCK);
    return 1;
  }
  m->time_block = (int)t;
  return 0;
}

static void print_time_block(int t, const char *why) {
  if (why) printf("time_block: 1 (%s)\n", why);
  else printf("time_block: %d\n", t);
}

static int uniform_mesh(const fdtd_input *in) {
  int a;
  long k;
  for (a = 0; a < 3; ++a) {
    const double d = (in->node[a][in->n[a]] - in->node[a][0]) / (double)in->n[a];
    for (k = 0; k < in->n[a]; ++k)
      if (fabs(in->node[a][k + 1] - in->node[a][k] - d) > 1e-9 * d) return 0;
  }
  return 1;
}

/* A distributed run: this rank's block, and which of the feeds and probes
 * it holds (local index -> global one) and reports (the rank owning the
 * position; a feed on a node plane shared by two blocks runs on both). */
typedef struct fdtd_run {
  hd_decomp dc;
  fdtd_point *feed, *probe;
  fdtd_load *load;             /* the loads on edges this block holds (every block that holds one runs it) */
  int nload;
  int *feed_slot, *probe_slot; /* global index; feeds: -1 - index when another rank reports */
  int nfeed, nprobe;
  unsigned char *surf_face;    /* the Huygens points of this block (local nodes) and their global index */
  long *surf_ijk, *surf_slot;
  hd_idx npts, gpts;
} fdtd_run;

/* Whether global point p lies in this block (on a shared node plane:
 * `mine` says whether this block is the one that reports it). */
static int point_in_block(const hd_decomp *d, const fdtd_point *p, int *mine) {
  const long q[3] = {p->i, p->j, p->k};
  const int along = p->comp % 3, e = p->comp < 3;
  int a;
  *mine = 1;
  for (a = 0; a < 3; ++a) {
    const int cell = e ? a == along : a != along, last = d->off[a] + d->ln[a] == d->gn[a];
    if (q[a] < d->off[a] || q[a] > d->off[a] + d->ln[a] - cell) return 0;
    if (q[a] == d->off[a] + d->ln[a] && !last) *mine = 0;
  }
  return 1;
}

static int select_points(fdtd_run *r, const fdtd_input *in) {
  int k, mine;
  r->feed = (fdtd_point *)malloc((size_t)(in->nfeed + 1) * sizeof *r->feed);
  r->probe = (fdtd_point *)malloc((size_t)(in->nprobe + 1) * sizeof *r->probe);
  r->feed_slot = (int *)malloc((size_t)(in->nfeed + in->nprobe + 2) * sizeof(int));
  if (!r->feed || !r->probe || !r->feed_slot) return -1;
  r->load = (fdtd_load *)malloc((size_t)(in->nload + 1) * sizeof *r->load);
  if (!r->load) return -1;
  r->probe_slot = r->feed_slot + in->nfeed + 1;
  for (k = 0; k < in->nload; ++k) {
    fdtd_point at;
    memset(&at, 0, sizeof at);
    at.comp = in->loads[k].comp, at.i = in->loads[k].i, at.j = in->loads[k].j, at.k = in->loads[k].k;
    if (!point_in_block(&r->dc, &at, &mine)) continue;
    r->load[r->nload] = in->loads[k];
    r->load[r->nload].i -= r->dc.off[0], r->load[r->nload].j -= r->dc.off[1], r->load[r->nload++].k -= r->dc.off[2];
  }
  for (k = 0; k < in->nfeed; ++k)
    if (point_in_block(&r->dc, &in->feeds[k], &mine)) {
      r->feed[r->nfeed] = in->feeds[k];
      r->feed[r->nfeed].i -= r->dc.off[0], r->feed[r->nfeed].j -= r->dc.off[1], r->feed[r->nfeed].k -= r->dc.off[2];
      r->feed_slot[r->nfeed++] = mine ? k : -1 - k;
    }
  for (k = 0; k < in->nprobe; ++k)
    if (point_in_block(&r->dc, &in->probes[k], &mine) && mine) {
      r->probe[r->nprobe] = in->probes[k];
      r->probe[r->nprobe].i -= r->dc.off[0], r->probe[r->nprobe].j -= r->dc.off[1], r->probe[r->nprobe].k -= r->dc.off[2];
      r->probe_slot[r->nprobe++] = k;
    }
  return 0;
}

/* The Huygens points of box lo..hi (whole-grid nodes) in this block: a
 * point's cell in the block, its node plane in the block's nodes (the last
 * node plane only where no block lies beyond), so each point has one
 * owner; the block has the fields a point reads (E on its node planes, H
 * half a cell either side, the halo included).  0 or -1 (memory). */
static int select_surface(fdtd_run *r, const long lo[3], const long hi[3]) {
  const hd_decomp *d = &r->dc;
  const hd_idx n = hd_dft_surface_points(lo, hi, NULL, NULL);
  unsigned char *face = (unsigned char *)malloc((size_t)n);
  long *ijk = (long *)malloc((size_t)n * 3 * sizeof(long));
  hd_idx p;
  int a;
  r->gpts = n;
  r->surf_face = (unsigned char *)malloc((size_t)n + 1);
  r->surf_ijk = (long *)malloc(((size_t)n * 3 + 1) * sizeof(long));
  r->surf_slot = (long *)malloc(((size_t)n + 1) * sizeof(long));
  if (!face || !ijk || !r->surf_face || !r->surf_ijk || !r->surf_slot) return free(face), free(ijk), -1;
  hd_dft_surface_points(lo, hi, face, ijk);
  for (p = 0; p < n; ++p) {
    const int fa = face[p] / 2;
    int mine = 1;
    for (a = 0; a < 3; ++a) {
      const long q = ijk[3 * p + a] - d->off[a];
      mine &= a == fa ? q >= 0 && (q < d->ln[a] || (q == d->ln[a] && d->off[a] + d->ln[a] == d->gn[a])) : q >= 0 && q < d->ln[a];
    }
    if (!mine) continue;
    r->surf_face[r->npts] = face[p];
    for (a = 0; a < 3; ++a) r->surf_ijk[3 * r->npts + a] = ijk[3 * p + a] - d->off[a];
    r->surf_slot[r->npts++] = (long)p;
  }
  free(face), free(ijk);
  return 0;
}

static void run_free(fdtd_run *r) {
  free(r->surf_face), free(r->surf_ijk), free(r->surf_slot);
  free(r->feed);
  free(r->load);
  free(r->probe);
  free(r->feed_slot);
  hd_decomp_destroy(&r->dc);
}

typedef struct fdtd_halo {
  fdtd_run *r;
  const fdtd_ops *ops;
  void *state;
  long pad;
} fdtd_halo;

/* Tangential H across the planes shared with other blocks: the only
 * fields the E update needs from a neighbour (as OpenFDTD exchanges). */
static hd_status exchange_h(hd_ctx *ctx, void *arg) {
  const fdtd_halo *x = (const fdtd_halo *)arg;
  fdtd_run *r = x->r;
  const fdtd_ops *ops = x->ops;
  void *state = x->state;
  const long pad = x->pad;
  char err[256];
  long size[3];
  int a, c;
  hd_grid g;
  if (!fdtd_node_grid(&g, r->dc.ln, pad)) return hd_fail(ctx, HD_ERR_ARG, "fdtd: block too large to index");
  for (a = 0; a < 3; ++a) size[a] = a ? r->dc.ln[a] + 1 + 2 * pad : (long)g.stride[1];
  for (a = 1; a < 3; ++a) {
    const long at[4] = {pad, pad + r->dc.ln[a] - 1, pad - 1, pad + r->dc.ln[a]};
    void *h[2];
    long lead = 0;
    int nh = 0;
    for (c = HD_FDTD_HX; c <= HD_FDTD_HZ; ++c)
      if (c - HD_FDTD_HX != a) h[nh++] = ops->field(state, c, &lead); /* one layout */
    if (hd_decomp_exchange_fields(&r->dc, nh, h, lead, ops->real_size, size, a, at, err, sizeof err))
      return hd_fail(ctx, HD_ERR_IO, "%s", err);
  }
  return HD_OK;
}

/* `steps` steps with the halo exchange after each when the grid is shared;
 * rec (rank 0: a row of every probe and feed a step) from every rank's
 * reporting points. */
static hd_status advance(hd_ctx *ctx, fdtd_run *r, const fdtd_ops *ops, void *state, long pad, long steps,
                         double *lrec, double *rec, int nrec, int gfeed) {
  const int nl = r->nprobe + 2 * r->nfeed;
  fdtd_halo x;
  long s, done;
  int k;
  if (r->dc.size == 1) return ops->advance(ctx, state, steps, nrec ? rec : NULL, NULL, NULL);
  x.r = r, x.ops = ops, x.state = state, x.pad = pad;
  for (done = 0; done < steps; done += s) {
    s = steps - done < 256 ? steps - done : 256; /* rows collected per message */
    if (ops->advance(ctx, state, s, nl && lrec ? lrec : NULL, exchange_h, &x) != HD_OK) return ctx->status;
    if (!nrec) continue;
    memset(rec + done * nrec, 0, (size_t)(s * nrec) * sizeof *rec);
    for (k = 0; k < s; ++k) { /* global rows: the probes, then v, i of each feed */
      double *row = rec + (done + k) * nrec;
      const double *lrow = lrec + k * nl;
      const int gprobe = nrec - 2 * gfeed;
      int p;
      for (p = 0; p < r->nprobe; ++p) row[r->probe_slot[p]] = lrow[p];
      for (p = 0; p < r->nfeed; ++p)
        if (r->feed_slot[p] >= 0) {
          row[gprobe + 2 * r->feed_slot[p]] = lrow[r->nprobe + 2 * p];
          row[gprobe + 2 * r->feed_slot[p] + 1] = lrow[r->nprobe + 2 * p + 1];
        }
    }
    if (hd_par_sum_to_root(rec + done * nrec, s * nrec)) return hd_fail(ctx, HD_ERR_IO, "collecting the probe records failed");
  }
  return HD_OK;
}

/* Final fields at cell centres, gathered from every block and written on
 * rank 0: the volume (six components and |E|) and, if asked, one slice as
 * .vtr/.vti and PNG.  0, or -1 + message (agreed by all ranks up to the
 * writing, which only rank 0 does). */
static int write_fields(const fdtd_cli *c, const fdtd_ops *ops, hd_ctx *ctx, void *state, const fdtd_run *r,
                        long pad, const fdtd_slice *sl, hd_out *vol, hd_out *slv, hd_out *png, char *err, size_t errn) {
  const fdtd_input *m = &c->in;
  const long nx = m->n[0], ny = m->n[1], nz = m->n[2], *ln = r->dc.ln;
  const double cells = (double)nx * ny * nz;
  const int root = r->dc.rank == 0, pieces = c->pieces; /* no rank gathers the grid */
  hd_grid g;
  double *f = NULL, *loc = NULL, *cc[7] = {0};
  hd_vti_array arr[7];
  int comp, rc = -1, bad;
  long i, j, k;
  static const char *const names[7] = {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz", "E"};
  if (!fdtd_node_grid(&g, ln, pad)) return -1;
  f = (double *)malloc((size_t)g.total * sizeof(double));
  loc = (double *)malloc((size_t)(ln[0] * ln[1] * ln[2]) * sizeof(double));
  for (comp = 0; comp < 7 && root && !pieces; ++comp) cc[comp] = (double *)malloc((size_t)cells * sizeof(double));
  bad = !f || !loc;
  for (comp = 0; comp < 7 && root && !pieces; ++comp) bad |= !cc[comp];
  if (hd_par_any(bad)) {
    snprintf(err, errn, "out of host memory for the field output");
    goto done;
  }
  if (pieces) { /* this block's cells, all seven arrays */
    const double cells_l = (double)ln[0] * ln[1] * ln[2];
    for (comp = 0; comp < 7 && !bad; ++comp) bad = !(cc[comp] = (double *)malloc((size_t)cells_l * sizeof(double)));
    if (hd_par_any(bad)) {
      snprintf(err, errn, "out of host memory for the field output");
      goto done;
    }
  }
  for (comp = 0; comp < 6; ++comp) {
    size_t q = 0;
    bad = ops->download(ctx, state, comp, f) != HD_OK;
    if (hd_par_any(bad)) {
      snprintf(err, errn, "%s", bad ? ctx->msg : "the field download failed on another rank");
      goto done;
    }
    for (k = 0; k < ln[2]; ++k)
      for (j = 0; j < ln[1]; ++j)
        for (i = 0; i < ln[0]; ++i) loc[q++] = cell_value(f, comp, &g, pad, i, j, k);
    if (pieces) memcpy(cc[comp], loc, q * sizeof(double));
    else if (hd_decomp_gather(&r->dc, loc, cc[comp], err, errn)) goto done;
  }
  if (pieces) {
    const int64_t n64[3] = {nx, ny, nz};
    const double dx[3] = {(m->node[0][nx] - m->node[0][0]) / nx, (m->node[1][ny] - m->node[1][0]) / ny,
                          (m->node[2][nz] - m->node[2][0]) / nz};
    const size_t lc = (size_t)(ln[0] * ln[1] * ln[2]);
    for (i = 0; i < (long)lc; ++i) cc[6][i] = sqrt(cc[0][i] * cc[0][i] + cc[1][i] * cc[1][i] + cc[2][i] * cc[2][i]);
    for (comp = 0; comp < 7; ++comp) arr[comp].name = names[comp], arr[comp].data = cc[comp], arr[comp].single = ops->real_size == 4;
    rc = vol ? hd_drv_write_pieces(&r->dc, c->com.output, vol, n64, dx,
                                   uniform_mesh(&c->in) ? NULL : (const double *const *)m->node, arr, 7, err, errn)
             : 0;
    goto done;
  }
  if (!root) {
    rc = 0;
    goto done;
  }
  for (i = 0; i < (long)cells; ++i) cc[6][i] = sqrt(cc[0][i] * cc[0][i] + cc[1][i] * cc[1][i] + cc[2][i] * cc[2][i]);
  for (comp = 0; comp < 7; ++comp) arr[comp].name = names[comp], arr[comp].data = cc[comp], arr[comp].single = ops->real_size == 4;
  {
    const int64_t n64[3] = {nx, ny, nz};
    const double dx[3] = {(m->node[0][nx] - m->node[0][0]) / nx, (m->node[1][ny] - m->node[1][0]) / ny,
                          (m->node[2][nz] - m->node[2][0]) / nz};
    const int uni = uniform_mesh(&c->in);
    if (vol && (uni ? hd_vti_write(vol, n64, dx, arr, 7) : hd_vtr_write(vol, n64, (const double *const *)m->node, arr, 7))) {
      snprintf(err, errn, "cannot write %.900s", vol->path);
      goto done;
    }
    if (sl) {
      /* the slice: the cell layer normal to the axis, as a one-cell-thick
       * volume and as a picture (first in-plane axis across, second up) */
      const int a = sl->axis, u = a == 0 ? 1 : 0, v = a == 2 ? 1 : 2;
      const long nu = m->n[u], nv = m->n[v];
      double *pl = (double *)malloc((size_t)nu * nv * sizeof(double)), *pic, vmax = 0.0;
      int64_t sn[3];
      const double *sx[3];
      double lay[2];
      hd_vti_array sa;
      long p, q2;
      if (!pl) {
        snprintf(err, errn, "out of host memory for the slice");
        goto done;
      }
      for (q2 = 0; q2 < nv; ++q2)
        for (p = 0; p < nu; ++p) {
          long id[3];
          id[a] = sl->layer, id[u] = p, id[v] = q2;
          pl[q2 * nu + p] = cc[sl->comp][(id[2] * ny + id[1]) * nx + id[0]];
          vmax = fmax(vmax, fabs(pl[q2 * nu + p]));
        }
      sn[a] = 1, sn[u] = nu, sn[v] = nv;
      lay[0] = m->node[a][sl->layer], lay[1] = m->node[a][sl->layer + 1];
      sx[a] = lay, sx[u] = m->node[u], sx[v] = m->node[v];
      sa.name = comp_names[sl->comp], sa.data = pl, sa.single = ops->real_size == 4;
      /* cell data in x-fastest order of the slab: the in-plane layout above
       * is already x-fastest when u < v */
      if (hd_vtr_write(slv, sn, sx, &sa, 1)) {
        free(pl);
        snprintf(err, errn, "cannot write %.900s", slv->path);
        goto done;
      }
      pic = (double *)malloc((size_t)nu * nv * sizeof(double));
      if (!pic) {
        free(pl);
        snprintf(err, errn, "out of host memory for the slice");
        goto done;
      }
      for (q2 = 0; q2 < nv; ++q2)
        for (p = 0; p < nu; ++p) pic[(nv - 1 - q2) * nu + p] = pl[q2 * nu + p]; /* up is +v */
      rc = png ? hd_png_write(png, (int)nu, (int)nv, pic, vmax, err, errn) : 0;
      free(pic);
      free(pl);
      if (rc) goto done;
    }
  }
  rc = 0;
done:
  free(f);
  free(loc);
  for (comp = 0; comp < 7; ++comp) free(cc[comp]);
  return rc;
}


/* excite=all: feed j driven (at its amplitude, or 1 V where it has none),
 * the others passive (their resistance alone); this block's feeds. */
static void drive_port(const fdtd_input *in, fdtd_run *r, int j) {
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
static hd_status port_run(const fdtd_cli *c, fdtd_run *r, const fdtd_ops *ops, hd_ctx *ctx, fdtd_model *m, long pad, int j,
                          double *acc) {
  const long every = c->average_every > 0 ? c->average_every : (c->in.steps >= 100 ? c->in.steps / 100 : 1);
  const double cells = (double)c->in.n[0] * c->in.n[1] * c->in.n[2];
  double *rows = (double *)malloc((size_t)(2 * r->dc.ln[1] * r->dc.ln[2]) * sizeof(double)), emax = 0, hmax = 0;
  double *local = (double *)malloc(((size_t)4 * c->sp.nfreq * r->nfeed + 1) * sizeof(double));
  void *state = NULL;
  char err[256];
  long step = 0;
  hd_status s;
  if (!rows || !local) return free(rows), free(local), hd_fail(ctx, HD_ERR_NOMEM, "out of host memory");
  drive_port(&c->in, r, j);
  if (r->dc.rank == 0) fprintf(stderr, PROG ": excite=all: port %d of %d\n", j + 1, c->in.nfeed);
  s = ops->create(ctx, m, &state);
  while (s == HD_OK && step < c->in.steps) {
    const long chunk = every < c->in.steps - step ? every : c->in.steps - step;
    double sums[2], e, h;
    s = advance(ctx, r, ops, state, pad, chunk, NULL, NULL, 0, 0);
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

/* The spectra of the whole run on rank 0: every block's feeds, Huygens
 * points and map cells put in their whole-run places (zeros elsewhere)
 * and summed over the ranks, exact since one block gives each value; the
 * plane wave's source spectrum is the same on every block. */
typedef struct fdtd_spectra_run {
  double *feeds, *probes, *surf, *inc, *planes[FDTD_MAX_PLANES];
} fdtd_spectra_run;

static void spectra_free(fdtd_spectra_run *g) {
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
  const int root = r->dc.rank == 0, uni = uniform_mesh(&c->in);
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
      for (q = 0; q < 12; ++q) arr[q].name = names[q], arr[q].data = all[q], arr[q].single = real_size == 4;
      snprintf(path, sizeof path, "%s_dft%d.%s", c->com.output, k + 1, uni ? "vti" : "vtr");
      bad = hd_out_open(&o, path, err, en) != 0;
      if (!bad) {
        const int64_t n64[3] = {c->in.n[0], c->in.n[1], c->in.n[2]};
        double dx[3];
        int a;
        for (a = 0; a < 3; ++a) dx[a] = (c->in.node[a][c->in.n[a]] - c->in.node[a][0]) / c->in.n[a];
        if (uni ? hd_vti_write(&o, n64, dx, arr, 12) : hd_vtr_write(&o, n64, (const double *const *)c->in.node, arr, 12)) {
          hd_out_abort(&o);
          snprintf(err, en, "cannot write %.900s", path);
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
static int gather_spectra(const fdtd_cli *c, const fdtd_ops *ops, hd_ctx *ctx, void *state, const fdtd_run *r,
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
static int write_spectra(const fdtd_cli *c, const fdtd_model *m, long steps, const fdtd_spectra_run *g, const long lo[3],
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
      fdtd_planewave_add_incident(m, &c->in, &c->near[mp->first + q], c->sp.freq + c->sp.far0, c->sp.nfar, steps,
                                  g->planes[mp->first + q]); /* the total field, as the probes record it */
    rc = fdtd_spectra_nearfield(&c->sp, &c->in, k + 1 - (c->map[k].line ? c->nearfield.count : 0), &c->map[k], c->near + c->map[k].first,
                                (const double *const *)g->planes + c->map[k].first, c->com.output, err, en);
  }
  return rc;
}

typedef struct fdtd_bench {
  hd_ctx *ctx;
  const fdtd_ops *ops;
  void *state;
} fdtd_bench;

static hd_status fdtd_bench_steps(void *arg, long steps) {
  fdtd_bench *b = (fdtd_bench *)arg;
  return b->ops->advance(b->ctx, b->state, steps, NULL, NULL, NULL);
}

static int run(int argc, char **argv) {
  fdtd_cli c;
  fdtd_run r;
  fdtd_model m;
  fdtd_slice sl;
  const fdtd_ops *ops;
  const hd_core_ops *core;
  hd_ctx ctx;
  hd_out probes, avg, vol, slv, png;
  hd_progress prog;
  char err[1024], why[512];
  void *state = NULL;
  int time_block = 1;
  const char *time_block_why = NULL;
  double *rec = NULL, *lrec = NULL, *rows = NULL, t0, wall = 0.0, steps_wall = 0.0, emax = 0.0, hmax = 0.0, cells, bytes, dft_bytes;
  long step = 0, step0 = 0, every, pad;
  int rc, k, have_slice = 0, converged = 0, nrec, cp, root, bad, keep = 0, want[5], cont = 0;
  hd_drv_ckpt ckp;
  static hd_ckpt ck;
  char ckpath[4096 + 32] = "";
  int wave_choice = HD_FDTD_DGAUSSIAN, pw_form = 0;
  long box_lo[3] = {0, 0, 0}, box_hi[3] = {0, 0, 0};
  double *runs[HD_FDTD_MAX_PORTS] = {NULL};
  fdtd_spectra_run spec;
  cli_opt opts[] = {
      HD_DRV_COMMON_OPTIONS(c.com),
      HD_DRV_CHECKPOINT_OPTIONS(c.com),
      {"bench", CLI_INT, &c.bench, "N", "time the built-in N^3 benchmark (doc/fdtd.md), write nothing", 10, 2000, 0, NULL, 1, 0, 0},
      {"block", CLI_INTS, c.block, "X[,Y[,Z]]", "CUDA launch shape of the tuned kernels: X, Y threads and Z nodes marched", 1, 1024, 3, &c.nblock, 0, 0, 0},
      {"time-block", CLI_STRING, c.time_block, "T|auto", "time steps a sweep of memory, bit-identical to single steps (CPU backends; doc/fdtd.md says what steps singly) (default auto: " FDTD_AUTO_TIME_BLOCK_DOC ")", 1, 0, sizeof c.time_block, NULL, 0, 0, 0},
      {"xmesh", CLI_LIST, &c.in.xmesh, "X0 N1 X1 [N2 X2 ...]", "mesh lines along x: from X0 to X1 in N1 cells, ...", 1, 0, 0, NULL, 0, 0, 0},
      {"ymesh", CLI_LIST, &c.in.ymesh, "Y0 N1 Y1 ...", "mesh lines along y", 1, 0, 0, NULL, 0, 0, 0},
      {"zmesh", CLI_LIST, &c.in.zmesh, "Z0 N1 Z1 ...", "mesh lines along z", 1, 0, 0, NULL, 0, 0, 0},
      {"material", CLI_LIST, &c.in.material, "EPSR SIGMA MUR SIGMAM [POLES]", "a material (repeat: numbered 2, 3, ...; 0 vacuum, 1 PEC); dispersive with poles 'debye DE TAU', 'drude FP GAMMA', 'lorentz DE F0 GAMMA' after (EPSR is then eps_inf)", 1, 0, 0, NULL, 0, 0, 0},
      {"geometry", CLI_LIST, &c.in.geometry, "M SHAPE ...", "an object of material M: box, ellipsoid, sphere, cylinder, x|y|zcylinder, x|y|zpillar, x|y|zpyramid, x|y|zcone, or OpenFDTD's shape numbers (repeat; later objects win)", 1, 0, 0, NULL, 0, 0, 0},
      {"feed", CLI_LIST, &c.in.feed, "X|Y|Z X Y Z VOLTS OHMS [DELAY]", "a delta-gap feed on the edge nearest the point, its waveform delayed by DELAY seconds (repeat)", 1, 0, 0, NULL, 0, 0, 0},
      {"feed-release", CLI_FLAG, &c.in.feed_release, "yes|no", "a feed whose edge is no conductor is left to the update once its pulse has passed, as OpenFDTD does (default no: held at every step; .ofd models: yes)", 1, 0, 0, NULL, 0, 0, 0},
      {"source", CLI_LIST, &c.in.source, "X|Y|Z X Y Z AMPERES", "a soft point current source (repeat)", 1, 0, 0, NULL, 0, 0, 0},
      {"load", CLI_LIST, &c.in.load, "X|Y|Z X Y Z R|L|C VALUE", "a lumped resistor, inductor or capacitor on the edge nearest the point; loads on one edge are in parallel (repeat)", 1, 0, 0, NULL, 0, 0, 0},
      {"point", CLI_LIST, &c.in.point, "X|Y|Z X Y Z [+X|-X|+Y|-Y|+Z|-Z]", "a voltage point on the edge nearest (V = -E d, recorded as a probe); the first one's direction of travel (default +X) names the line on which its two waves are split: S11, Sn1 = V_n / V+ and, with feeds, the coupling Cn1 = V_n / V_feed1 at the frequencies (PREFIX_points.csv; OpenFDTD's point) (repeat)", 1, 0, 0, NULL, 0, 0, 0},
      {"probe", CLI_LIST, &c.in.probe, "ex|ey|ez|hx|hy|hz X Y Z", "record a field component every step (repeat)", 1, 0, 0, NULL, 0, 0, 0},
      {"boundary", CLI_STRING, c.in.bc_all, "pec|mur|pml|cpml|periodic", "boundary of every axis (default mur)", 1, 0, sizeof c.in.bc_all, NULL, 0, 0, 0},
      {"boundary-x", CLI_STRING, c.in.bc_axis[0], "pec|mur|pml|cpml|periodic", "boundary of both x faces", 1, 0, sizeof c.in.bc_axis[0], NULL, 0, 0, 0},
      {"boundary-y", CLI_STRING, c.in.bc_axis[1], "pec|mur|pml|cpml|periodic", "boundary of both y faces", 1, 0, sizeof c.in.bc_axis[1], NULL, 0, 0, 0},
      {"boundary-z", CLI_STRING, c.in.bc_axis[2], "pec|mur|pml|cpml|periodic", "boundary of both z faces", 1, 0, sizeof c.in.bc_axis[2], NULL, 0, 0, 0},
      {"mur", CLI_CHOICE, &c.in.mur_h, "e|h", "first-order Mur on the tangential E of the boundary faces (e, default) or on the tangential H half a cell outside them (h, OpenFDTD's; .ofd models)", 1, 0, 0, NULL, 0, 0, 0},
      {"pml", CLI_REALS, c.in.pml, "L,M,R0", "PML or CPML layers, grading order, target reflection (default 8,4,1e-5; CPML 8,3,1e-6)", 1, 0, 3, &c.in.npml, 0, 0, 0},
      {"cpml", CLI_REALS, c.in.cpml, "KAPPA,ALPHA", "the convolutional PML's kappa_max and alpha_max in S/m (default 2,0.005; doc/fdtd.md)", 1, 0, 2, &c.in.ncpml, 0, 0, 0},
      {"waveform", CLI_CHOICE, &wave_choice, "gaussian|dgaussian|sine", "source waveform (default dgaussian)", 1, 0, 0, NULL, 0, 0, 0},
      {"frequency", CLI_REAL, &c.in.freq, "HZ", "pulse bandwidth (1/e of the spectrum) or sine frequency", 1e-300, 1e300, 0, NULL, 0, 0, 0},
      {"timestep", CLI_REAL, &c.in.dt, "DT", "time step (default: courant x the Courant limit)", 1e-300, 1e300, 0, NULL, 0, 0, 0},
      {"courant", CLI_REAL, &c.in.courant, "S", "fraction of the Courant limit (default 0.99)", 1e-6, 1, 0, NULL, 0, 0, 0},
      {"steps", CLI_INT, &c.in.steps, "N", "time steps (default 2000)", 0, 1e12, 0, NULL, 0, 0, 0},
      {"average-every", CLI_INT, &c.average_every, "N", "field averages every N steps (default steps/100)", 1, 1e12, 0, NULL, 0, 0, 0},
      {"converge", CLI_REAL, &c.in.converge, "EPS", "stop once both averages fall below EPS x their maximum (default 0: off)", 0, 1, 0, NULL, 0, 0, 0},
      {"volume", CLI_FLAG, &c.volume, "yes|no", "write the final fields as PREFIX.vti or .vtr (default yes)", 1, 0, 0, NULL, 0, 0, 0},
      {"pieces", CLI_FLAG, &c.pieces, "yes|no", "each rank (one too) writes its block of the final fields as PREFIX_pR.vti (non-uniform meshes: .vtr) and rank 0 the index PREFIX.pvti (.pvtr), no rank holding the whole grid (default no: rank 0 gathers the grid; no slice)", 1, 0, 0, NULL, 0, 0, 0},
      {"frequencies", CLI_STRING, c.frequencies, "F|F0 F1 N", "frequency-domain results at F, or at N frequencies from F0 to F1: every feed's impedance, reflection and S-parameters (PREFIX_ports.csv, PREFIX.s1p), the far field", 1, 0, sizeof c.frequencies, NULL, 0, 0, 0},
      {"farfield-frequencies", CLI_STRING, c.ffrequencies, "F|F0 F1 N", "the far field's, near-field maps' and volume's own frequencies (default: those of frequencies; OpenFDTD's frequency2)", 1, 0, sizeof c.ffrequencies, NULL, 0, 0, 0},
      {"farfield", CLI_STRING, c.farfield, "NTHETA NPHI", "far field of a Huygens box on NTHETA x NPHI directions: pattern, directivity, gain (PREFIX_farfield.csv); needs frequencies", 1, 0, sizeof c.farfield, NULL, 0, 0, 0},
      {"huygens-margin", CLI_INT, &c.margin, "CELLS", "cells between the Huygens box and the boundary faces (default 5; 0, the faces themselves, with PML or mur = h: .ofd models)", 0, 1e9, 0, NULL, 0, 0, 0},
      {"nearfield", CLI_LIST, &c.nearfield, "COMP AXIS POS", "amplitude and phase of COMP (ex ... hz, or e, h: |E|, |H| and their components) on the cell layer at AXIS = POS at every frequency: PREFIX_nearK.vtr and .png (repeat; at most 8 planes with nearline, e and h take three)", 1, 0, 0, NULL, 0, 0, 0},
      {"nearline", CLI_LIST, &c.nearline, "COMP AXIS P1 P2", "the amplitude of COMP (as nearfield) along AXIS through the cell centres at P1, P2 on the next two axes (y z for x, z x for y, x y for z; OpenFDTD's plotnear1d) at the far frequencies: PREFIX_lineK.png beside its CSV (repeat)", 1, 0, 0, NULL, 0, 0, 0},
      {"planewave", CLI_STRING, c.planewave, "THETA PHI V|H [E0]", "a plane wave of E0 V/m (default 1) arriving from (THETA, PHI) degrees, E along -theta^ (V) or phi^ (H), with the waveform: total field inside a box 2 cells within the Huygens box, scattered field outside; with a far field, the radar cross-section (PREFIX_rcs.png)", 1, 0, sizeof c.planewave, NULL, 0, 0, 0},
      {"planewave-form", CLI_CHOICE, &c.pw.form, "auto|tfsf|sf", "the plane wave by a total-field box (tfsf) or in the scattered-field form (sf: any mesh, periodic cells, scatterers up to the boundary; no feeds); auto: the box where the model allows it (default; .ofd models: sf)", 1, 0, 0, NULL, 0, 0, 0},
      {"nearvolume", CLI_FLAG, &c.nearvolume, "yes|no", "amplitude and phase of all six components in every cell at every frequency: PREFIX_dftK.vti (or .vtr), one file a frequency (default no)", 1, 0, 0, NULL, 0, 0, 0},
      {"excite", CLI_CHOICE, &c.excite, "given|all", "drive the feeds as given, or each port alone in a run of its own: the S-parameter matrix (PREFIX_sparams.csv, PREFIX.sNp)", 1, 0, 0, NULL, 0, 0, 0},
      {"matching-loss", CLI_FLAG, &c.sp.matching_loss, "yes|no", "gain against the power the feeds' sources make available, P / (1 - |reflection|^2): realised gain (OpenFDTD's matchingloss; default no: the power the ports accept)", 1, 0, 0, NULL, 0, 0, 0},
      {"z0", CLI_REAL, &c.z0, "OHMS", "reference impedance of the ports (default: each feed's resistance)", 1e-9, 1e12, 0, NULL, 0, 0, 0},
      FDTD_PLOT_OPTIONS(c.pk),
      {"slice", CLI_STRING, c.slice, "COMP AXIS POS|none", "write PREFIX_slice.vtr and .png of COMP on the cell layer at AXIS = POS (default: ez on the middle z layer)", 1, 0, sizeof c.slice, NULL, 0, 0, 0},
      HD_DRV_END_OPTIONS};

  memset(&c, 0, sizeof c);
  memset(&r, 0, sizeof r);
  memset(&m, 0, sizeof m);
  memset(&spec, 0, sizeof spec);
  c.volume = 1;
  c.margin = 5;
  hd_drv_common_defaults(&c.com, "fdtd");
  fdtd_input_defaults(&c.in);
  fdtd_plot_keys_defaults(&c.pk);
  cli_set_dialect(&fdtd_ofd_dialect); /* --input=model.ofd */
  if ((rc = hd_drv_parse(opts, argc, argv, PROG,
                         "3-D Yee FDTD with Mur, PML, CPML, PEC and periodic boundaries; writes "
                         "PREFIX_probes.csv, PREFIX_average.csv, PREFIX.vti (or .vtr) and a slice with its picture.")) >= 0)
    goto out;
  c.in.waveform = wave_choice;
  c.com.bench = c.bench > 0;
  if (c.bench) {
    const long steps = c.in.steps;
    if (c.in.xmesh.count || c.in.geometry.count || c.in.feed.count) {
      rc = hd_drv_usage_error(PROG, "--bench runs the built-in model: give no mesh, geometry or feeds");
      goto out;
    }
    if (fdtd_input_benchmark(&c.in, c.bench, err, sizeof err)) goto usage;
    if (cli_find(opts, "steps")->seen) c.in.steps = steps; /* else the model's 2001 */
  } else if (fdtd_input_parse(&c.in, err, sizeof err)) {
    goto usage;
  }
  {
    const cli_opt *o = cli_find(opts, "timestep");
    if (o->seen == 1) snprintf(c.in.dt_where, sizeof c.in.dt_where, "%.200s:%d", c.com.input, o->line);
    else if (o->seen == 2) snprintf(c.in.dt_where, sizeof c.in.dt_where, "command line");
  }
  if (c.ffrequencies[0] && !c.frequencies[0]) { /* the fields' alone: they are the run's */
    memcpy(c.frequencies, c.ffrequencies, sizeof c.frequencies);
    c.ffrequencies[0] = '\0';
  }
  if ((c.farfield[0] || c.nearfield.count || c.nearline.count || c.nearvolume) && !c.frequencies[0]) {
    snprintf(err, sizeof err, "%s: give the frequencies too",
             c.farfield[0] ? "farfield" : c.nearvolume ? "nearvolume" : c.nearfield.count ? "nearfield" : "nearline");
    goto usage;
  }
  if (fdtd_plots_parse(&c.plots, &c.pk, opts, c.com.input, err, sizeof err)) goto usage;
  if ((c.plots.far0d || c.plots.ncut || (c.plots.want & FDTD_PLOT_FAR2D)) && !c.farfield[0]) {
    snprintf(err, sizeof err, "%s: give farfield too", c.plots.far0d ? "plot-far0d" : c.plots.ncut ? "plot-far1d" : "plot = far2d");
    goto usage;
  }
  c.sp.plots = &c.plots;
  for (k = 0; k < c.nearfield.count + c.nearline.count; ++k) { /* maps, then lines */
    const int line = k >= c.nearfield.count, q = line ? k - c.nearfield.count : k;
    const cli_list *l = line ? &c.nearline : &c.nearfield;
    if (fdtd_map_parse(&c.in, l->value[q], line, &c.map[c.nmap++], c.near, &c.nplane, why, sizeof why)) {
      snprintf(err, sizeof err, "%s: %s", l->where[q], why);
      goto usage;
    }
  }
  if (c.frequencies[0] && fdtd_spectra_frequencies(&c.sp, c.frequencies, c.ffrequencies, err, sizeof err)) goto usage;
  if (c.farfield[0] && fdtd_spectra_farfield(&c.sp, c.farfield, err, sizeof err)) goto usage;
  c.sp.margin = c.margin, c.sp.z0 = c.z0, c.sp.excite_all = c.excite == 1;
  c.sp.outside_h = 1;
  for (k = 0; k < 3; ++k) {
    const int bc = fdtd_input_bc(&c.in, k);
    c.sp.periodic[k] = bc == HD_FDTD_BC_PERIODIC;
    c.sp.outside_h &= bc == HD_FDTD_BC_PERIODIC || bc == HD_FDTD_BC_PML || bc == HD_FDTD_BC_CPML || (bc == HD_FDTD_BC_MUR && c.in.mur_h);
  }
  if (c.planewave[0] && fdtd_planewave_parse(&c.pw, c.planewave, err, sizeof err)) goto usage;
  if (c.pw.on && !(c.in.freq > 0)) {
    snprintf(err, sizeof err, "planewave: the waveform needs a frequency > 0");
    goto usage;
  }
  c.sp.pw_theta = c.pw.theta, c.sp.pw_phi = c.pw.phi;
  if (c.pw.on && (pw_form = fdtd_planewave_form(&c.pw, &c.in, &c.sp, err, sizeof err)) < 0) goto usage;
  if (c.sp.excite_all) {
    const char *why_not = !c.sp.nfreq ? "give the frequencies too"
                          : fdtd_spectra_ports_count(&c.in) != c.in.nfeed ? "the model has soft sources; S-parameters take feeds alone"
                          : !c.in.nfeed ? "the model has no feeds"
                          : c.in.nfeed > HD_FDTD_MAX_PORTS ? "more than 64 ports"
                          : c.pw.on ? "not with a plane wave"
                          : c.com.restart[0] || c.com.ckpt_every[0] ? "not yet with checkpoints or restarts" : NULL;
    if (why_not) {
      snprintf(err, sizeof err, "excite=all: %s", why_not);
      goto usage;
    }
  }
  if (c.sp.ntheta && fdtd_spectra_box(&c.sp, c.in.n, box_lo, box_hi, err, sizeof err)) {
    if (cli_find(opts, "farfield")->seen != 1 || !fdtd_ofd_farfield_line()) goto usage;
    snprintf(why, sizeof why, "the far field of plotfar (%.400s)", err); /* an .ofd's plot: dropped, not refused */
    fdtd_ofd_add_note(why, fdtd_ofd_farfield_line());
    c.farfield[0] = '\0', c.sp.ntheta = c.sp.nphi = 0;
  }
  if (!c.slice[0]) /* by default Ez on the middle z layer, where a z-directed feed usually sits */
    snprintf(c.slice, sizeof c.slice, "ez z %.17g", 0.5 * (c.in.node[2][0] + c.in.node[2][c.in.n[2]]));
  have_slice = strcmp(c.slice, "none") != 0;
  if (c.pieces) { /* no rank holds the whole grid: no slice from it */
    if (have_slice && cli_find(opts, "slice")->seen) {
      snprintf(err, sizeof err, "slice: needs the whole grid on one rank; with --pieces give --slice=none");
      goto usage;
    }
    have_slice = 0;
  }
  if (have_slice && fdtd_slice_parse(&c.in, c.slice, &sl, err, sizeof err)) goto usage;
  if (hd_drv_ckpt_init(&ckp, &c.com, err, sizeof err)) goto usage;
  want[0] = want[1] = 1, want[2] = c.volume, want[3] = have_slice, want[4] = have_slice && HD_PNG_BUILT;
  /* blocks of whole x rows; periodic axes stay whole (their wrap is local) */
  for (k = 1; k < 3; ++k)
    if (fdtd_input_bc(&c.in, k) == HD_FDTD_BC_PERIODIC) keep |= 1 << k;
  if (hd_decomp_create(&r.dc, 3, c.in.n, keep, 0, err, sizeof err)) goto usage;
  root = r.dc.rank == 0;
  if ((rc = hd_drv_ranks_options(PROG, &c.com, 1)) != 0) goto out;
  if ((rc = hd_drv_open(PROG, &c.com, &ctx, &core, why, sizeof why)) != 0) goto out;
  hd_decomp_use_backend(&r.dc, core, &ctx);
  ops = fdtd_ops_get(core->id, c.com.precision == 1);
  if (!ops) {
    core->destroy(&ctx);
    rc = hd_drv_usage_error(PROG, "no kernels for this backend and precision");
    goto out;
  }
  if (c.com.variant == HD_VARIANT_TUNED && !ops->has_tuned) {
    core->destroy(&ctx);
    snprintf(err, sizeof err, "--variant=tuned: backend %s has no tuned FDTD kernels", core->name);
    goto usage;
  }
  cells = (double)c.in.n[0] * c.in.n[1] * c.in.n[2];
  /* the running DFTs: 8 doubles a Huygens point and frequency and its
   * buffered samples, 4 a feed */
  dft_bytes = (8.0 * c.sp.nfar * 8.0 + 4.0 * HD_DFT_BUFFER * ops->real_size) *
                  (double)(c.sp.ntheta ? hd_dft_surface_points(box_lo, box_hi, NULL, NULL) : 0) +
              8.0 * c.sp.nfreq * 4.0 * c.in.nfeed;
  if (c.nearvolume) /* every node: 12 sums of the run's precision a frequency, a buffer of samples */
    dft_bytes += (12.0 * c.sp.nfar + 6.0 * HD_DFT_VOLUME_BUFFER) * ops->real_size * (double)(c.in.n[0] + 1) *
                 (double)(c.in.n[1] + 1) * (double)(c.in.n[2] + 1);
  for (k = 0; k < c.nplane; ++k) /* and 2 a plane's cell */
    dft_bytes += 16.0 * c.sp.nfar * (double)c.in.n[c.near[k].axis == 0 ? 1 : 0] * (double)c.in.n[c.near[k].axis == 2 ? 1 : 2];
  bytes = fdtd_model_bytes(&c.in, r.dc.ln, ops->real_size) + dft_bytes;
  /* host: this block's six material arrays, and for the output a field in
   * double, a cell array, and on rank 0 seven cell arrays of the grid and
   * the spectra */
  rc = hd_drv_check_memory(PROG, &ctx, core, bytes,
                           bytes / (6.0 * ops->real_size + 6.0) * (6.0 + (c.com.bench ? 0.0 : 8.0)) +
                               (c.com.bench ? 0.0 : 8.0 * r.dc.ln[0] * r.dc.ln[1] * r.dc.ln[2] + (root ? dft_bytes : 0.0)) +
                               /* the seven output arrays: of the grid on rank 0, or of each block with --pieces */
                               (c.com.bench ? 0.0 : c.pieces ? 56.0 * r.dc.ln[0] * r.dc.ln[1] * r.dc.ln[2]
                                                    : root ? 56.0 * cells : 0.0),
                           "the model");
  if ((rc = hd_par_max_int(rc)) != 0) { /* a rank short of memory stops all */
    core->destroy(&ctx);
    goto out;
  }
  bad = fdtd_input_build_block(&c.in, &m, r.dc.off, r.dc.ln, err, sizeof err) != 0;
  if (hd_par_any(bad)) {
    core->destroy(&ctx);
    if (!bad) snprintf(err, sizeof err, "building the model failed on another rank");
    goto usage;
  }
  if (hd_par_any(select_points(&r, &c.in))) {
    core->destroy(&ctx);
    snprintf(err, sizeof err, "out of host memory");
    goto usage;
  }
  m.nfeed = r.nfeed, m.feed = r.feed, m.nprobe = r.nprobe, m.probe = r.probe;
  m.nload = r.nload, m.load = r.load;
  m.variant = c.com.variant;
  m.nfreq = c.sp.nfreq, m.freq = c.sp.freq, m.field_first = c.sp.far0, m.nfield = c.sp.nfar;
  c.sp.dt = m.dt;
  for (m.nplane = 0; m.nplane < c.nplane; ++m.nplane) {
    const int a = c.near[m.nplane].axis;
    const long layer = c.near[m.nplane].layer - r.dc.off[a]; /* in this block, or -1 */
    m.plane_comp[m.nplane] = c.near[m.nplane].comp, m.plane_axis[m.nplane] = a;
    m.plane_layer[m.nplane] = layer >= 0 && layer < r.dc.ln[a] ? layer : -1;
  }
  if (c.sp.ntheta && hd_par_any(select_surface(&r, box_lo, box_hi))) {
    core->destroy(&ctx);
    snprintf(err, sizeof err, "out of host memory for the Huygens surface");
    goto usage;
  }
  m.npts = r.npts, m.surf_face = r.surf_face, m.surf_ijk = r.surf_ijk;
  m.volume_dft = c.nearvolume;
  bad = c.pw.on && fdtd_planewave_setup(&c.pw, pw_form, &c.in, &c.sp, &m, err, sizeof err);
  if (hd_par_any(bad)) {
    core->destroy(&ctx);
    if (!bad) snprintf(err, sizeof err, "planewave: a material lies outside the total-field box (on another rank's block)");
    goto usage;
  }
  for (k = 0; k < c.nblock; ++k) m.block[k] = (int)c.block[k];
  if (parse_time_block(c.time_block, core->id, c.com.precision == 1 ? sizeof(float) : sizeof(double), &m, err, sizeof err)) {
    core->destroy(&ctx);
    goto usage;
  }
  pad = fdtd_pad(&m);
  nrec = c.in.nprobe + 2 * c.in.nfeed;
  { /* rank 0 writes every output */
    const char *suffix[5] = {"_probes.csv", "_average.csv",
                             c.pieces ? (uniform_mesh(&c.in) ? ".pvti" : ".pvtr") : uniform_mesh(&c.in) ? ".vti" : ".vtr", "_slice.vtr",
                             "_slice.png"};
    hd_out *o[5] = {&probes, &avg, &vol, &slv, &png};
    if (c.com.bench) want[0] = want[1] = want[2] = want[3] = want[4] = 0;
    if (hd_drv_open_outputs(o, suffix, want, 5, c.com.output, err, sizeof err)) {
      core->destroy(&ctx);
      goto usage;
    }
    hd_drv_ckpt_series(&ckp, &probes, suffix[0]);
    hd_drv_ckpt_series(&ckp, &avg, suffix[1]);
  }
  if (root)
    fprintf(stderr, PROG ": %s backend (%s), %s precision, %ld x %ld x %ld cells, %.3g GB%s%s%s%s\n", core->name,
            ctx.device_name, ops->precision, c.in.n[0], c.in.n[1], c.in.n[2], bytes / 1e9,
            r.dc.size > 1 ? " a rank; " : "", r.dc.size > 1 ? hd_par_describe() : "", why[0] ? "; " : "", why);
  if (root && fdtd_ofd_note()[0]) fprintf(stderr, PROG ": %s: not used:%s\n", c.com.input, fdtd_ofd_note());
  if (hd_par_any(m.media_out && pad > 1 && (m.bc[0] == HD_FDTD_BC_PML || m.bc[1] == HD_FDTD_BC_PML || m.bc[2] == HD_FDTD_BC_PML)) && root)
    fprintf(stderr, PROG ": note: a medium crosses the split-field PML, which can ring or grow there (as OpenFDTD's does); "
            "boundary = cpml absorbs it stably (doc/fdtd.md)\n");
  if (c.sp.excite_all) { /* a run for each port but the last, which the run below drives */
    for (k = 0; k < c.in.nfeed; ++k) {
      runs[k] = (double *)calloc((size_t)4 * c.sp.nfreq * c.in.nfeed, sizeof(double));
      if (!runs[k]) {
        hd_fail(&ctx, HD_ERR_NOMEM, "out of host memory for the port runs");
        goto runtime_error;
      }
    }
    for (k = 0; k < c.in.nfeed - 1; ++k)
      if (port_run(&c, &r, ops, &ctx, &m, pad, k, runs[k]) != HD_OK) goto runtime_error;
    drive_port(&c.in, &r, c.in.nfeed - 1);
  }
  bad = ops->create(&ctx, &m, &state) != HD_OK;
  if (hd_par_any(bad)) {
    if (!bad) hd_fail(&ctx, HD_ERR_IO, "setting up failed on another rank");
    goto runtime_error;
  }
  time_block = ops->time_block(state, &time_block_why);
  if (r.dc.size > 1 && time_block > 1) /* the halos are exchanged after every step: advance takes one at a time */
    time_block = 1, time_block_why = "several ranks exchange their halos every step";
  ckpt_template(&c.in, &m, ops->real_size, &ck);
  hd_drv_ckpt_blocks(&ckp, &r.dc, pad, pad); /* on any rank count: nodes' rows, lists by key */
  ckp.rows.nodes = 1, ckp.kind = fdtd_ckpt_kind;
  if (!c.com.bench && c.com.restart[0]) {
    if (hd_drv_ckpt_restore(&ctx, &ckp, &ck, state, ops->state_count(state), ops->state_io, c.com.restart, err, sizeof err)) {
      rc = hd_drv_usage_error(PROG, err);
      goto cleanup;
    }
    step = step0 = (long)ck.step;
    if (step0 > c.in.steps) {
      snprintf(err, sizeof err, "restart: the checkpoint is at step %ld, beyond --steps=%ld", step0, c.in.steps);
      rc = hd_drv_usage_error(PROG, err);
      goto cleanup;
    }
    if ((cont = hd_drv_series_resume(&ckp, &ck, err, sizeof err)) < 0) {
      rc = hd_drv_usage_error(PROG, err);
      goto cleanup;
    }
    hd_ckpt_get_value(&ck, "e_max", &emax), hd_ckpt_get_value(&ck, "h_max", &hmax); /* --converge's scale */
  }

  if (c.com.bench) { /* five rounds, each against a copy of the six fields */
    const int rounds = 5;
    const long per_round = c.in.steps >= rounds ? c.in.steps / rounds : 1;
    const double per = 78.0 * ops->real_size / 4.0; /* compulsory bytes a cell-step */
    fdtd_bench bench = {&ctx, ops, state};
    double bw = 0.0, sec = 0.0, rate;
    if (ops->advance(&ctx, state, 10, NULL, NULL, NULL) != HD_OK || core->sync(&ctx) != HD_OK ||
        hd_drv_bench_rounds(&ctx, core, fdtd_bench_steps, &bench, per_round, rounds,
                            (size_t)fmin(cells * ops->real_size * 6.0, 4e9), &sec, &bw) != HD_OK)
      goto runtime_error;
    ops->destroy(&ctx, state);
    state = NULL;
    rate = cells / sec;
    printf("program: " PROG "\nbackend: %s\ndevice: %s\nprecision: %s\nkernels: %s\n"
           "benchmark: %ld^3 cells, %ld steps (%d rounds, the best), boundaries %s %s %s\n"
           "seconds_per_step: %.6g\nmcells_steps_per_second: %.6g\nbytes_per_cell_step: %.0f (6 fields read, 3 written per half step, 6 index bytes)\n"
           "effective_GB_per_second: %.6g\ncopy_GB_per_second: %.6g\nfraction_of_byte_floor: %.3f\n",
           core->name, ctx.device_name, ops->precision,
           ops->has_tuned && c.com.variant != HD_VARIANT_GENERIC ? "tuned" : "generic", c.bench, per_round * rounds,
           rounds, c.in.bc_axis[0][0] ? c.in.bc_axis[0] : c.in.bc_all, c.in.bc_axis[1][0] ? c.in.bc_axis[1] : c.in.bc_all,
           c.in.bc_axis[2][0] ? c.in.bc_axis[2] : c.in.bc_all, sec, rate / 1e6, per, rate * per / 1e9, bw / 1e9, bw > 0 ? rate * per / bw : 0.0);
    print_time_block(time_block, time_block_why);
    core->destroy(&ctx);
    rc = 0;
    goto out;
  }

  rec = (double *)malloc((size_t)(c.in.steps > 0 ? c.in.steps : 1) * (nrec ? nrec : 1) * sizeof(double));
  lrec = (double *)malloc((size_t)256 * (size_t)(r.nprobe + 2 * r.nfeed + 1) * sizeof(double));
  rows = (double *)malloc((size_t)(2 * r.dc.ln[1] * r.dc.ln[2]) * sizeof(double));
  bad = !rec || !lrec || !rows;
  if (hd_par_any(bad)) {
    hd_fail(&ctx, HD_ERR_NOMEM, bad ? "no host memory for the probe records" : "out of host memory on another rank");
    goto runtime_error;
  }
  if (root && !cont) {
    fprintf(probes.f, "step,time");
    for (k = 0; k < c.in.nprobe; ++k)
      fprintf(probes.f, ",%s(%ld;%ld;%ld)", comp_names[c.in.probes[k].comp], c.in.probes[k].i, c.in.probes[k].j,
              c.in.probes[k].k);
    for (k = 0; k < c.in.nfeed; ++k)
      fprintf(probes.f, c.in.feeds[k].r < 0 ? ",source%d_v,source%d_i" : ",feed%d_v,feed%d_i", k + 1, k + 1);
    fprintf(probes.f, "\n");
    fprintf(avg.f, "step,time,e_average,h_average\n");
  }
  every = c.average_every > 0 ? c.average_every : (c.in.steps >= 100 ? c.in.steps / 100 : 1);
  hd_progress_init(&prog, c.com.progress);
  hd_signals_install();
  t0 = hd_wtime();
  for (step = step0; step < c.in.steps && !converged;) {
    long chunk = every - step % every, s2;
    double e, h, sums[2], t1;
    if (chunk > c.in.steps - step) chunk = c.in.steps - step;
    chunk = hd_drv_ckpt_chunk(&ckp, step, chunk);
    /* a failure inside the steps may leave other ranks in an exchange:
     * runtime_error ends them all (MPI_Abort) */
    t1 = hd_wtime();
    if (advance(&ctx, &r, ops, state, pad, chunk, lrec, nrec ? rec + step * nrec : NULL, nrec, c.in.nfeed) != HD_OK ||
        core->sync(&ctx) != HD_OK)
      goto runtime_error;
    steps_wall += hd_wtime() - t1;
    bad = ops->row_sums(&ctx, state, rows) != HD_OK;
    if (hd_par_any(bad)) {
      if (!bad) hd_fail(&ctx, HD_ERR_IO, "the run failed on another rank");
      goto runtime_error;
    }
    if (hd_decomp_row_sums(&r.dc, rows, 2, sums, err, sizeof err)) {
      hd_fail(&ctx, HD_ERR_IO, "%s", err);
      goto runtime_error;
    }
    e = sums[0] / (4.0 * cells), h = sums[1] / (2.0 * cells);
    for (s2 = step; s2 < step + chunk && root; ++s2) {
      int q;
      fprintf(probes.f, "%ld,%.9e", s2 + 1, (s2 + 1) * m.dt);
      for (q = 0; q < nrec; ++q) fprintf(probes.f, ",%.9e", rec[s2 * nrec + q]);
      fprintf(probes.f, "\n");
    }
    step += chunk;
    if (!hd_isfinite(e) || !hd_isfinite(h)) { /* every rank sees the same sums */
      if (root)
        fprintf(stderr, PROG ": error: non-finite %s field after step %ld (dt = %g, Courant limit %g)%s%s\n",
                !hd_isfinite(e) && !hd_isfinite(h) ? "E and H" : !hd_isfinite(e) ? "E" : "H", step, m.dt,
                fdtd_input_dt_max(&c.in), ckpath[0] ? "; last checkpoint " : "", ckpath);
      rc = 1;
      goto cleanup;
    }
    if (step % every == 0 || step == c.in.steps) { /* not at checkpoints between: the series is the cadence's */
      if (root) fprintf(avg.f, "%ld,%.9e,%.9e,%.9e\n", step, step * m.dt, e, h);
      emax = fmax(emax, e), hmax = fmax(hmax, h);
      if (c.in.converge > 0 && emax > 0 && e < c.in.converge * emax && h < c.in.converge * hmax) converged = 1;
    }
    hd_ckpt_set_value(&ck, "e_max", emax), hd_ckpt_set_value(&ck, "h_max", hmax);
    cp = hd_drv_ckpt_point(PROG, &ctx, &ckp, &ck, step, m.dt, !converged && step < c.in.steps, 0, state, ops->state_count(state),
                           ops->state_io, c.com.output, ckpath, sizeof ckpath);
    if (cp == HD_DRV_FAILED) goto runtime_error;
    if (cp != HD_DRV_GO_ON) {
      rc = cp;
      goto cleanup;
    }
    if (root) hd_progress_step(&prog, PROG, step, c.in.steps, cells * (double)(step - step0), "cell-step/s");
  }
  if (core->sync(&ctx) != HD_OK) goto runtime_error;
  wall = hd_wtime() - t0;
  hd_progress_end(&prog);
  if ((c.volume || have_slice) && write_fields(&c, ops, &ctx, state, &r, pad, have_slice ? &sl : NULL,
                                               c.volume ? &vol : NULL, &slv, want[4] ? &png : NULL, err, sizeof err)) {
    hd_fail(&ctx, HD_ERR_IO, "%s", err);
    goto runtime_error;
  }
  if (root) {
    hd_out *o[5] = {&probes, &avg, &vol, &slv, &png};
    for (k = 0; k < 5; ++k)
      if (want[k] && hd_out_commit(o[k], err, sizeof err)) {
        hd_fail(&ctx, HD_ERR_IO, "%s", err);
        goto runtime_error;
      }
  }
  if (c.sp.nfreq && gather_spectra(&c, ops, &ctx, state, &r, &spec, err, sizeof err)) {
    hd_fail(&ctx, HD_ERR_IO, "%s", err);
    goto runtime_error;
  }
  rc = 0;
  if (!root) goto cleanup;
  printf("program: " PROG "\nversion: %s\nbackend: %s\ndevice: %s\nprecision: %s\ncells: %ld x %ld x %ld\n"
         "boundaries: %s %s %s\nmaterials: %d\nobjects: %d\nfeeds_and_sources: %d\nprobes: %d\n"
         "dt: %.9e\ndt_limit: %.9e\nsteps: %ld\nconverged: %s\nmemory_GB: %.4g\nwall_seconds: %.6g\n"
         "mcells_steps_per_second: %.6g\nsteps_seconds: %.6g\nsteps_mcells_steps_per_second: %.6g\n"
         "outputs: %s_probes.csv %s_average.csv %s%s%s\n",
         PACKAGE_VERSION, core->name, ctx.device_name, ops->precision, c.in.n[0], c.in.n[1], c.in.n[2],
         c.in.bc_axis[0][0] ? c.in.bc_axis[0] : c.in.bc_all, c.in.bc_axis[1][0] ? c.in.bc_axis[1] : c.in.bc_all,
         c.in.bc_axis[2][0] ? c.in.bc_axis[2] : c.in.bc_all, m.nmat, c.in.nobj, c.in.nfeed, c.in.nprobe, m.dt,
         fdtd_input_dt_max(&c.in), step, converged ? "yes" : "no", bytes / 1e9, wall,
         wall > 0 ? cells * (double)(step - step0) / wall / 1e6 : 0.0, steps_wall,
         steps_wall > 0 ? cells * (double)(step - step0) / steps_wall / 1e6 : 0.0, c.com.output, c.com.output,
         c.volume ? c.com.output : "(no volume)",
         c.volume ? (c.pieces ? (uniform_mesh(&c.in) ? ".pvti and its pieces" : ".pvtr and its pieces") : uniform_mesh(&c.in) ? ".vti" : ".vtr") : "",
         have_slice ? " and the slice" : "");
  printf("picture: %s\n", want[4]                        ? png.path
                         : have_slice                     ? "none (" HD_NO_PNG ")"
                         : c.pieces                       ? "none (--pieces: no rank holds the whole grid)"
                                                          : "none (--slice=none)");
  if (c.pw.on) printf("planewave: %s\n", m.pw_sf ? "scattered-field form" : "total-field box");
  print_time_block(time_block, time_block_why);
  if ((c.sp.nfreq && write_spectra(&c, &m, step, &spec, box_lo, box_hi, runs, err, sizeof err)) ||
      fdtd_plots_series(&c.plots, &c.in, c.com.output, err, sizeof err)) {
    fprintf(stderr, PROG ": error: %s\n", err);
    rc = 1;
    goto cleanup;
  }
  rc = 0;
  goto cleanup;

usage:
  rc = hd_drv_usage_error(PROG, err);
  goto out;
runtime_error:
  if (r.dc.size > 1)
    fprintf(stderr, PROG ": error: rank %d: %s\n", r.dc.rank, ctx.msg[0] ? ctx.msg : "run failed");
  else
    fprintf(stderr, PROG ": error: %s%s%s\n", ctx.msg[0] ? ctx.msg : "run failed", ckpath[0] ? "; last checkpoint " : "",
            ckpath);
  rc = 1;
  {
    hd_out *o[5] = {&probes, &avg, &vol, &slv, &png};
    for (k = 0; k < 5; ++k) hd_out_abort(o[k]);
  }
  hd_par_abort(rc); /* other ranks may wait in a collective */
cleanup:
  {
    hd_out *o[5] = {&probes, &avg, &vol, &slv, &png};
    for (k = 0; k < 5; ++k) hd_out_abort(o[k]);
  }
  if (state) ops->destroy(&ctx, state);
  core->destroy(&ctx);
out:
  free(rec);
  free(lrec);
  free(rows);
  run_free(&r);
  fdtd_input_free(&c.in);
  fdtd_spectra_free(&c.sp);
  spectra_free(&spec);
  cli_list_free(&c.nearfield);
  cli_list_free(&c.nearline);
  fdtd_plot_keys_free(&c.pk);
  for (k = 0; k < HD_FDTD_MAX_PORTS; ++k) free(runs[k]);
  return rc;
}

int main(int argc, char **argv) { return hd_drv_main_ranks(PROG, run, argc, argv); }
