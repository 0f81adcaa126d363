/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-fdtd on this rank's block of the grid: which feeds, loads, probes and
 * Huygens points it holds, and its steps with the exchange of tangential H
 * across the planes it shares. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hd/fdtd_dft.h>

#include "decomp.h"
#include "fdtd_module.h"

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

int fdtd_block_points(fdtd_run *r, const fdtd_input *in) {
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
int fdtd_block_surface(fdtd_run *r, const long lo[3], const long hi[3]) {
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

void fdtd_block_free(fdtd_run *r) {
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
    void *h[4];
    long lead = 0;
    int nh = 0;
    for (c = HD_FDTD_HX; c <= HD_FDTD_HZ; ++c)
      if (c - HD_FDTD_HX != a) h[nh++] = ops->field(state, c, &lead); /* one layout */
    for (c = HD_FDTD_HX; c <= HD_FDTD_HZ; ++c) /* and a Bloch-periodic cell's imaginary part */
      if (c - HD_FDTD_HX != a && ops->field(state, 6 + c, &lead)) h[nh++] = ops->field(state, 6 + c, &lead);
    if (hd_decomp_exchange_fields(&r->dc, nh, h, lead, ops->real_size, size, a, at, err, sizeof err))
      return hd_fail(ctx, HD_ERR_IO, "%s", err);
  }
  return HD_OK;
}

hd_status fdtd_block_advance(hd_ctx *ctx, fdtd_run *r, const fdtd_ops *ops, void *state, long pad, long steps,
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

