/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-fdtd's near-field maps and lines (nearfield, nearline): amplitude and
 * phase on cell layers at the far frequencies, as .vtr, CSV and pictures. */
#include "spectra.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hd/fdtd_dft.h>

#include "plot.h"

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#define PI 3.14159265358979323846

/* A line of a plane's cells (m->line): the amplitude along it at the
 * first far frequencies (up to six), PREFIX_lineK.png beside its CSV. */
static int nearline_write(const fdtd_spectra *s, const fdtd_input *in, int k, const fdtd_map *m, const fdtd_slice *pl,
                          const double *amp, const char *prefix, char *err, size_t en) {
  static const char *const comp_names[6] = {"EX", "EY", "EZ", "HX", "HY", "HZ"};
  const int axis = pl->axis, u = axis == 0 ? 1 : 0, la = m->line_axis;
  const long nu = in->n[u], ncell = nu * in->n[axis == 2 ? 1 : 2], len = in->n[la];
  const int nc = s->nfar < 6 ? s->nfar : 6, db = s->plots && s->plots->line_db;
  double *xy = (double *)malloc((size_t)len * (nc + 1) * sizeof(double));
  char names[6][32], title[64], suffix[32], xlabel[16];
  hd_plot_curve c[6];
  long i;
  int f, rc;
  if (!xy) return snprintf(err, en, "nearline: out of host memory"), -1;
  for (i = 0; i < len; ++i) xy[i] = 0.5 * (in->node[la][i] + in->node[la][i + 1]);
  for (f = 0; f < nc; ++f) {
    double *y = xy + (size_t)(f + 1) * len;
    for (i = 0; i < len; ++i) {
      const double a = amp[(size_t)f * ncell + (la == u ? m->line_row * nu + i : i * nu + m->line_row)];
      y[i] = db ? 20 * log10(a > 1e-300 ? a : 1e-300) : a;
    }
    snprintf(names[f], sizeof names[f], "%.4g GHZ", s->freq[s->far0 + f] / 1e9);
    c[f].x = xy, c[f].y = y, c[f].n = (int)len, c[f].label = names[f];
  }
  snprintf(title, sizeof title, "|%s| ALONG %c", m->field < 0 ? comp_names[pl->comp] : m->field ? "H" : "E", 'X' + la);
  snprintf(suffix, sizeof suffix, "_line%d.png", k);
  snprintf(xlabel, sizeof xlabel, "%c (M)", 'X' + la);
  rc = fdtd_plots_lines_in(prefix, suffix, title, xlabel,
                           (m->field < 0 ? pl->comp >= 3 : m->field) ? (db ? "DBA/M" : "A/M") : (db ? "DBV/M" : "V/M"), c, nc,
                           s->plots ? s->plots->line_lo : 0, s->plots ? s->plots->line_hi : 0, err, en);
  free(xy);
  return rc;
}

int fdtd_spectra_nearfield(const fdtd_spectra *s, const fdtd_input *in, int k, const fdtd_map *m, const fdtd_slice *pl,
                           const double *const *acc, const char *prefix, char *err, size_t en) {
  static const char *const comp_names[6] = {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"};
  const int axis = pl->axis, u = axis == 0 ? 1 : 0, v = axis == 2 ? 1 : 2, vec = m->count == 3;
  const int per = vec ? 7 : 2; /* arrays a frequency: |F|, then each component's amplitude and phase */
  const int magnetic = m->field < 0 ? pl->comp >= 3 : m->field;
  const long nu = in->n[u], nv = in->n[v], ncell = nu * nv, layer = pl->layer;
  double *data = (double *)malloc((size_t)ncell * per * s->nfar * sizeof(double)), *img = (double *)malloc((size_t)ncell * sizeof(double));
  double *amp = (double *)malloc((size_t)ncell * s->nfar * sizeof(double)); /* what the pictures draw */
  hd_vti_array *arr = (hd_vti_array *)calloc((size_t)per * s->nfar, sizeof(hd_vti_array));
  char (*names)[48] = (char (*)[48])calloc((size_t)per * s->nfar, 48), what[8];
  char path[4200];
  hd_out vtr, png;
  int64_t dims[3];
  const double *xyz[3];
  double lay[2], mid, top = -HUGE_VAL;
  hd_vtk_meta meta;
  unsigned char *region = NULL;
  long c, q;
  int f, j, rc = -1;
  if (!data || !img || !amp || !arr || !names) {
    snprintf(err, en, "nearfield: out of host memory");
    goto done;
  }
  snprintf(what, sizeof what, "%s", vec ? (m->field ? "|H|" : "|E|") : comp_names[pl->comp]);
  for (f = 0; f < s->nfar; ++f) { /* amplitude and phase of each frequency */
    double *d = data + (size_t)per * f * ncell;
    if (vec) {
      snprintf(names[per * f], 48, "%s_amplitude_f%d", m->field ? "H" : "E", f + 1);
      arr[per * f].name = names[per * f], arr[per * f].data = d;
      for (c = 0; c < ncell; ++c) d[c] = 0;
    }
    for (j = 0; j < m->count; ++j) {
      const double *x = acc[j] + (size_t)2 * f * ncell;
      double *a = d + (vec + 2 * j) * ncell, *ph = a + ncell;
      const int comp = pl[j].comp;
      for (c = 0; c < ncell; ++c) {
        a[c] = hypot(x[c], x[ncell + c]), ph[c] = atan2(x[ncell + c], x[c]) * 180 / PI;
        if (vec) d[c] += a[c] * a[c];
      }
      snprintf(names[per * f + vec + 2 * j], 48, "%s_amplitude_f%d", comp_names[comp], f + 1);
      snprintf(names[per * f + vec + 2 * j + 1], 48, "%s_phase_deg_f%d", comp_names[comp], f + 1);
      arr[per * f + vec + 2 * j].name = names[per * f + vec + 2 * j], arr[per * f + vec + 2 * j].data = a;
      arr[per * f + vec + 2 * j + 1].name = names[per * f + vec + 2 * j + 1], arr[per * f + vec + 2 * j + 1].data = ph;
    }
    for (c = 0; c < ncell; ++c) amp[(size_t)f * ncell + c] = vec ? (d[c] = sqrt(d[c])) : d[c];
  }
  if (m->line) {
    rc = nearline_write(s, in, k, m, pl, amp, prefix, err, en);
    goto done;
  }
  /* a surface at the layer's middle; array NAME_fK at the K-th frequency */
  dims[axis] = 0, dims[u] = nu, dims[v] = nv;
  lay[0] = in->node[axis][layer], lay[1] = in->node[axis][layer + 1], mid = 0.5 * (lay[0] + lay[1]);
  xyz[axis] = &mid, xyz[u] = in->node[u], xyz[v] = in->node[v];
  for (c = 0; c < (long)per * s->nfar; ++c) arr[c].units = strstr(arr[c].name, "phase") ? "deg" : magnetic ? "A/m" : "V/m";
  memset(&meta, 0, sizeof meta);
  meta.list_key = "frequency_Hz", meta.list = s->freq + s->far0, meta.nlist = s->nfar;
  snprintf(path, sizeof path, "%s_near%d.vtr", prefix, k);
  if (hd_out_open(&vtr, path, err, en)) goto done;
  if (hd_vtr_write(&vtr, dims, xyz, arr, per * s->nfar, &meta)) {
    snprintf(err, en, "cannot write %.900s: %s", path, hd_out_error());
    hd_out_abort(&vtr);
    goto done;
  }
  if (hd_out_commit(&vtr, err, en)) goto done;
  printf("nearfield_%d: %s on the cell layer %ld along %c: %s", k, what, layer, 'x' + axis, path);
  snprintf(path, sizeof path, "%s_near%d.csv", prefix, k); /* the amplitudes the picture draws, cell centres */
  if (hd_out_open(&png, path, err, en)) goto done;
  fprintf(png.f, "%c,%c", 'x' + u, 'x' + v);
  for (f = 0; f < s->nfar; ++f) fprintf(png.f, ",%s_%.6g_Hz", what, s->freq[s->far0 + f]);
  fprintf(png.f, "\n");
  for (q = 0; q < nv; ++q)
    for (c = 0; c < nu; ++c) {
      fprintf(png.f, "%.9g,%.9g", 0.5 * (in->node[u][c] + in->node[u][c + 1]), 0.5 * (in->node[v][q] + in->node[v][q + 1]));
      for (f = 0; f < s->nfar; ++f) fprintf(png.f, ",%.9g", amp[(size_t)f * ncell + q * nu + c]);
      fprintf(png.f, "\n");
    }
  if (hd_out_commit(&png, err, en)) goto done;
  printf(" %s", path);
  if (HD_PNG_BUILT) { /* the amplitude at the first frequency, second in-plane axis up, the window near2d-zoom asks */
    const fdtd_plots *p = s->plots;
    const int db = p && p->map_db, frames = p ? p->frames : 0;
    long c0 = 0, c1 = nu, q0 = 0, q1 = nv, wu, wv;
    double peak = 0;
    char title[192], extent[160];
    hd_png_legend lg;
    if (p && p->zoom) { /* the cells whose centres lie in the window */
      while (c0 < nu - 1 && 0.5 * (in->node[u][c0] + in->node[u][c0 + 1]) < p->zoom_u[0]) ++c0;
      while (c1 > c0 + 1 && 0.5 * (in->node[u][c1 - 1] + in->node[u][c1]) > p->zoom_u[1]) --c1;
      while (q0 < nv - 1 && 0.5 * (in->node[v][q0] + in->node[v][q0 + 1]) < p->zoom_v[0]) ++q0;
      while (q1 > q0 + 1 && 0.5 * (in->node[v][q1 - 1] + in->node[v][q1]) > p->zoom_v[1]) --q1;
    }
    wu = c1 - c0, wv = q1 - q0;
    for (q = q0; q < q1; ++q)
      for (c = c0; c < c1; ++c) {
        const double a = amp[q * nu + c];
        peak = fmax(peak, a);
        top = fmax(top, img[(wv - 1 - (q - q0)) * wu + c - c0] = db ? 20 * log10(a > 1e-300 ? a : 1e-300) : a);
      }
    if (p && p->outline && !(region = (unsigned char *)malloc((size_t)ncell))) {
      snprintf(err, en, "nearfield: out of host memory");
      goto done;
    }
    for (q = q0; region && q < q1; ++q) /* the geometry within half a cell of each cell's centre: plates and wires show */
      for (c = c0; c < c1; ++c) {
        double at[3];
        const double du = in->node[u][c + 1] - in->node[u][c], dv = in->node[v][q + 1] - in->node[v][q];
        at[axis] = 0.5 * (lay[0] + lay[1]), at[u] = in->node[u][c] + 0.5 * du, at[v] = in->node[v][q] + 0.5 * dv;
        region[(wv - 1 - (q - q0)) * wu + c - c0] = (unsigned char)fdtd_input_material_at(in, at, 0.51 * fmax(du, dv));
      }
    snprintf(extent, sizeof extent, "%c %.4g .. %.4g m across, %c %.4g .. %.4g m up", 'x' + u,
             in->node[u][c0], in->node[u][c1], 'x' + v, in->node[v][q0], in->node[v][q1]);
    snprintf(title, sizeof title, "%s amplitude at %.4g Hz, the cell layer %c = %.4g m", what, s->freq[s->far0], 'x' + axis, mid);
    lg.title = title, lg.extent = extent, lg.units = db ? (magnetic ? "dB A/m" : "dB V/m") : magnetic ? "A/m" : "V/m";
    snprintf(path, sizeof path, "%s_near%d.png", prefix, k);
    if (hd_out_open(&png, path, err, en)) goto done;
    if (hd_png_write_map_lines(&png, (int)wu, (int)wv, img, p && p->map_lo2 < p->map_hi2 ? p->map_lo2 : db ? top - 40 : 0.0,
                               p && p->map_lo2 < p->map_hi2 ? p->map_hi2 : top > (db ? -HUGE_VAL : 0) ? top : 1.0,
                               HD_PNG_SEQUENTIAL, p && p->contour ? 10 : 0, region, &lg, err, en) ||
        hd_out_commit(&png, err, en)) {
      hd_out_abort(&png);
      goto done;
    }
    printf(" %s", path);
    for (f = 0; f < frames; ++f) { /* the field at phase 2 pi f / frames of a period: a component, or |E| of the three */
      const double ph = 2 * PI * f / frames, cs = cos(ph), sn = sin(ph);
      for (q = q0; q < q1; ++q)
        for (c = c0; c < c1; ++c) {
          double sum = 0, val = 0;
          for (j = 0; j < m->count; ++j) {
            const double *x = acc[j];
            val = x[q * nu + c] * cs - x[ncell + q * nu + c] * sn, sum += val * val;
          }
          img[(wv - 1 - (q - q0)) * wu + c - c0] = vec ? sqrt(sum) : val;
        }
      snprintf(title, sizeof title, "%s at %.4g Hz, phase %d/%d of a period, %c = %.4g m", what, s->freq[s->far0], f + 1,
               frames, 'x' + axis, mid);
      lg.units = magnetic ? "A/m" : "V/m";
      snprintf(path, sizeof path, "%s_near%d_frame%d.png", prefix, k, f + 1);
      if (hd_out_open(&png, path, err, en)) goto done;
      if (hd_png_write_map_lines(&png, (int)wu, (int)wv, img, vec ? 0.0 : -(peak > 0 ? peak : 1), peak > 0 ? peak : 1,
                                 vec ? HD_PNG_SEQUENTIAL : HD_PNG_DIVERGING, 0, region, &lg, err, en) ||
          hd_out_commit(&png, err, en)) {
        hd_out_abort(&png);
        goto done;
      }
    }
    if (frames) printf(" and %d frames %s_near%d_frame1.png ...", frames, prefix, k);
  }
  printf("\n");
  rc = 0;
done:
  free(data), free(img), free(amp), free(arr), free(names), free(region);
  return rc;
}

