/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-fdtd's final fields at the cell centres: the volume (by pieces, or
 * gathered on rank 0) and a slice with its picture. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hd/fdtd_dft.h>

#include "decomp.h"
#include "fdtd_module.h"

const char *const fdtd_comp_names[6] = {"ex", "ey", "ez", "hx", "hy", "hz"};

/* Component comp averaged to the centre of cell (i, j, k) (physical): the
 * mean of its four (E) or two (H) positions around the centre. */
static double cell_value(const double *f, int comp, const hd_grid *g, long pad, long i, long j, long k) {
  const int c = comp % 3, u = (c + 1) % 3, v = (c + 2) % 3;
  const hd_idx n = hd_grid_at(g, i + pad, j + pad, k + pad), su = g->stride[u], sv = g->stride[v];
  const hd_idx sc = g->stride[c];
  if (comp < 3) return 0.25 * (f[n] + f[n + su] + f[n + sv] + f[n + su + sv]);
  return 0.5 * (f[n] + f[n + sc]);
}

int fdtd_uniform_mesh(const fdtd_input *in) {
  int a;
  long k;
  for (a = 0; a < 3; ++a) {
    const double d = (in->node[a][in->n[a]] - in->node[a][0]) / (double)in->n[a];
    for (k = 0; k < in->n[a]; ++k)
      if (fabs(in->node[a][k + 1] - in->node[a][k] - d) > 1e-9 * d) return 0;
  }
  return 1;
}

/* Final fields at cell centres, gathered from every block and written on
 * rank 0: the volume (six components and |E|) and, if asked, one slice as
 * .vtr/.vti and PNG.  0, or -1 + message (agreed by all ranks up to the
 * writing, which only rank 0 does). */
int fdtd_write_fields(const fdtd_cli *c, const fdtd_ops *ops, hd_ctx *ctx, void *state, const fdtd_run *r,
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
    const double x0[3] = {m->node[0][0], m->node[1][0], m->node[2][0]}; /* the mesh's first node */
    const size_t lc = (size_t)(ln[0] * ln[1] * ln[2]);
    for (i = 0; i < (long)lc; ++i) cc[6][i] = sqrt(cc[0][i] * cc[0][i] + cc[1][i] * cc[1][i] + cc[2][i] * cc[2][i]);
    for (comp = 0; comp < 7; ++comp) arr[comp].name = names[comp], arr[comp].data = cc[comp], arr[comp].single = ops->real_size == 4;
    rc = vol ? hd_drv_write_pieces(&r->dc, c->com.output, vol, n64, x0, dx,
                                   fdtd_uniform_mesh(&c->in) ? NULL : (const double *const *)m->node, arr, 7, err, errn)
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
    const double x0[3] = {m->node[0][0], m->node[1][0], m->node[2][0]};
    const int uni = fdtd_uniform_mesh(&c->in);
    if (vol && (uni ? hd_vti_write(vol, n64, x0, dx, arr, 7) : hd_vtr_write(vol, n64, (const double *const *)m->node, arr, 7))) {
      snprintf(err, errn, "cannot write %.900s: %s", vol->path, hd_out_error());
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
      sa.name = fdtd_comp_names[sl->comp], sa.data = pl, sa.single = ops->real_size == 4;
      /* cell data in x-fastest order of the slab: the in-plane layout above
       * is already x-fastest when u < v */
      if (hd_vtr_write(slv, sn, sx, &sa, 1)) {
        free(pl);
        snprintf(err, errn, "cannot write %.900s: %s", slv->path, hd_out_error());
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


