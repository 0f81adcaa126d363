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

/* The volume's arrays: E and H as vectors, |E|, the material of each cell
 * (cc[0..5] the components, cc[6] |E|, cc[7] the materials). */
static void volume_arrays(hd_vti_array arr[4], double *const cc[8], int single) {
  int k;
  memset(arr, 0, 4 * sizeof *arr);
  arr[0].name = "E", arr[0].units = "V/m", arr[1].name = "H", arr[1].units = "A/m";
  for (k = 0; k < 3; ++k) arr[0].comp[k] = cc[k], arr[1].comp[k] = cc[3 + k];
  arr[2].name = "E_magnitude", arr[2].units = "V/m", arr[2].data = cc[6];
  arr[3].name = "material", arr[3].data = cc[7];
  for (k = 0; k < 4; ++k) arr[k].single = single;
}

static const char *const comp_units[6] = {"V/m", "V/m", "V/m", "A/m", "A/m", "A/m"};

/* Final fields at cell centres, gathered from every block and written on
 * rank 0: the volume (E, H, |E|, materials) and, if asked, one slice as
 * .vtr and PNG.  0, or -1 + message (agreed by all ranks up to the
 * writing, which only rank 0 does). */
int fdtd_write_fields(const fdtd_cli *c, const fdtd_ops *ops, hd_ctx *ctx, void *state, const fdtd_run *r, long pad,
                      double t, const char *prefix, const fdtd_slice *sl, hd_out *vol, hd_out *slv, hd_out *png,
                      char *err, size_t errn) {
  const fdtd_input *m = &c->in;
  const long nx = m->n[0], ny = m->n[1], nz = m->n[2], *ln = r->dc.ln;
  const double cells = (double)nx * ny * nz;
  const int root = r->dc.rank == 0, pieces = c->pieces; /* no rank gathers the grid */
  hd_grid g;
  double *f = NULL, *loc = NULL, *cc[8] = {0};
  hd_vti_array arr[4];
  const hd_vtk_meta meta = hd_vtk_meta_time(t);
  int comp, rc = -1, bad;
  long i, j, k;
  if (!fdtd_node_grid(&g, ln, pad)) return -1;
  f = (double *)malloc((size_t)g.total * sizeof(double));
  loc = (double *)malloc((size_t)(ln[0] * ln[1] * ln[2]) * sizeof(double));
  for (comp = 0; comp < 8 && root && !pieces; ++comp) cc[comp] = (double *)malloc((size_t)cells * sizeof(double));
  bad = !f || !loc;
  for (comp = 0; comp < 8 && root && !pieces; ++comp) bad |= !cc[comp];
  if (hd_par_any(bad)) {
    snprintf(err, errn, "out of host memory for the field output");
    goto done;
  }
  if (pieces) { /* this block's cells, all eight arrays */
    const double cells_l = (double)ln[0] * ln[1] * ln[2];
    for (comp = 0; comp < 8 && !bad; ++comp) bad = !(cc[comp] = (double *)malloc((size_t)cells_l * sizeof(double)));
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
    fdtd_input_cell_materials(m, r->dc.off, ln, cc[7]);
    volume_arrays(arr, cc, ops->real_size == 4);
    rc = vol ? hd_drv_write_pieces(&r->dc, prefix, vol, n64, x0, dx,
                                   fdtd_uniform_mesh(&c->in) ? NULL : (const double *const *)m->node, arr, 4, &meta,
                                   err, errn)
             : 0;
    goto done;
  }
  if (!root) {
    rc = 0;
    goto done;
  }
  for (i = 0; i < (long)cells; ++i) cc[6][i] = sqrt(cc[0][i] * cc[0][i] + cc[1][i] * cc[1][i] + cc[2][i] * cc[2][i]);
  {
    const long lo0[3] = {0, 0, 0};
    fdtd_input_cell_materials(m, lo0, m->n, cc[7]);
  }
  volume_arrays(arr, cc, ops->real_size == 4);
  {
    const int64_t n64[3] = {nx, ny, nz};
    const double dx[3] = {(m->node[0][nx] - m->node[0][0]) / nx, (m->node[1][ny] - m->node[1][0]) / ny,
                          (m->node[2][nz] - m->node[2][0]) / nz};
    const double x0[3] = {m->node[0][0], m->node[1][0], m->node[2][0]};
    const int uni = fdtd_uniform_mesh(&c->in);
    if (vol && (uni ? hd_vti_write(vol, n64, x0, dx, arr, 4, &meta)
                    : hd_vtr_write(vol, n64, (const double *const *)m->node, arr, 4, &meta))) {
      snprintf(err, errn, "cannot write %.900s: %s", vol->path, hd_out_error());
      goto done;
    }
    if (sl) {
      /* the slice: the cell layer normal to the axis, as a surface at the
       * layer's middle and as a picture (first in-plane axis across, second
       * up) */
      const int a = sl->axis, u = a == 0 ? 1 : 0, v = a == 2 ? 1 : 2;
      const long nu = m->n[u], nv = m->n[v];
      double *pl = (double *)malloc((size_t)nu * nv * sizeof(double)), *pic, vmax = 0.0;
      int64_t sn[3];
      const double *sx[3];
      double mid;
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
      sn[a] = 0, sn[u] = nu, sn[v] = nv;
      mid = 0.5 * (m->node[a][sl->layer] + m->node[a][sl->layer + 1]);
      sx[a] = &mid, sx[u] = m->node[u], sx[v] = m->node[v];
      memset(&sa, 0, sizeof sa);
      sa.name = fdtd_comp_names[sl->comp], sa.data = pl, sa.single = ops->real_size == 4, sa.units = comp_units[sl->comp];
      /* cell data in x-fastest order of the slab: the in-plane layout above
       * is already x-fastest when u < v */
      if (slv && hd_vtr_write(slv, sn, sx, &sa, 1, &meta)) {
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
      rc = 0;
      if (png) {
        char title[160], extent[160];
        hd_png_legend lg;
        snprintf(title, sizeof title, "%s at t = %.4g s, the cell layer %c = %.4g m", fdtd_comp_names[sl->comp], t, 'x' + a,
                 mid);
        snprintf(extent, sizeof extent, "%c %.4g .. %.4g m across, %c %.4g .. %.4g m up", 'x' + u, m->node[u][0],
                 m->node[u][nu], 'x' + v, m->node[v][0], m->node[v][nv]);
        lg.title = title, lg.units = comp_units[sl->comp], lg.extent = extent;
        rc = hd_png_write(png, (int)nu, (int)nv, pic, vmax, &lg, err, errn);
      }
      free(pic);
      free(pl);
      if (rc) goto done;
    }
  }
  rc = 0;
done:
  free(f);
  free(loc);
  for (comp = 0; comp < 8; ++comp) free(cc[comp]);
  return rc;
}


