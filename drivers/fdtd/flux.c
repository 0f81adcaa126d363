/* SPDX-License-Identifier: BSD-3-Clause */
/* Poynting-flux spectra through cell layers (the `flux` key): the power
 * per frequency through a plane, 1/2 Re sum (E x H*).n dA over its cells,
 * from the DFT maps of its four tangential components (each averaged to the
 * cell centres at its own sampling time, hd/fdtd_dft.h).  Under a plane
 * wave the incident field's flux through the same plane, by the same
 * averaging, comes in closed form (planewave.c) and needs no normalisation
 * run: then the scattered field's flux too (total less incident), and the
 * ratios a transmittance (total / incident beyond a scatterer) and a
 * reflectance (-scattered / incident before it).  The grid's plane wave
 * has H = E / eta at its own position and time exactly, and the averaging
 * scales every plane wave's flux alike, so the ratios carry no error of
 * the estimator's own. */
#include "fdtd_module.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planewave.h"

int fdtd_flux_parse(const fdtd_input *in, const char *text, fdtd_slice *planes, int *nplane, char *err, size_t n) {
  static const char *const comp_names[6] = {"ex", "ey", "ez", "hx", "hy", "hz"};
  char s[128], one[160], *w[3];
  double pos;
  int k, axis;
  snprintf(s, sizeof s, "%s", text);
  if (cli_words(s, w, 3) != 2 || strlen(w[0]) != 1 || !strchr("xyz", w[0][0]) || !cli_finite(w[1], &pos))
    return snprintf(err, n, "flux: expected 'x|y|z POS'"), -1;
  if (*nplane + 4 > FDTD_MAX_PLANES)
    return snprintf(err, n, "flux: at most %d planes in all with nearfield and nearline (a flux plane takes four)", FDTD_MAX_PLANES), -1;
  axis = w[0][0] - 'x';
  for (k = 0; k < 4; ++k) { /* E_u, E_v, H_u, H_v */
    const int u = axis == 0 ? 1 : 0, v = axis == 2 ? 1 : 2, c = (k % 2 ? v : u) + (k >= 2 ? 3 : 0);
    snprintf(one, sizeof one, "%s %c %.17g", comp_names[c], 'x' + axis, pos);
    if (fdtd_slice_parse(in, one, &planes[*nplane + k], err, n)) {
      char msg[512];
      snprintf(msg, sizeof msg, "flux%s", err + strlen("slice"));
      snprintf(err, n, "%s", msg);
      return -1;
    }
  }
  *nplane += 4;
  return 0;
}

/* 1/2 Re sum (E_u H_v* - E_v H_u*) dA (the normal's sign: +axis), f-th
 * frequency, of the four maps x[0..3] (re then im of each cell); sub:
 * less the maps y (NULL: none). */
static double flux_of(const fdtd_input *in, int axis, double *const *x, double *const *y, int f) {
  const int u = axis == 0 ? 1 : 0, v = axis == 2 ? 1 : 2;
  const long nu = in->n[u], nv = in->n[v], nc = nu * nv;
  const double sign = axis == 1 ? -1.0 : 1.0; /* (x, z, y) is left-handed */
  double sum = 0;
  long i, j;
  for (j = 0; j < nv; ++j)
    for (i = 0; i < nu; ++i) {
      const long c = j * nu + i, o = (long)2 * f * nc;
      double re[4], im[4];
      int q;
      for (q = 0; q < 4; ++q)
        re[q] = x[q][o + c] - (y ? y[q][o + c] : 0), im[q] = x[q][o + nc + c] - (y ? y[q][o + nc + c] : 0);
      sum += 0.5 * (re[0] * re[3] + im[0] * im[3] - re[1] * re[2] - im[1] * im[2]) * (in->node[u][i + 1] - in->node[u][i]) *
             (in->node[v][j + 1] - in->node[v][j]);
    }
  return sign * sum;
}

int fdtd_spectra_flux(const fdtd_cli *c, const fdtd_model *m, long steps, const fdtd_spectra_run *g, char *err, size_t en) {
  const int nf = c->sp.nfar, pw = c->pw.on;
  double *inc[4] = {NULL, NULL, NULL, NULL}, *tot[4];
  double *curve = (double *)malloc((size_t)(2 * c->nflux + 1) * nf * sizeof(double));
  char path[4200], names[2 * FDTD_MAX_PLANES / 4][32];
  hd_plot_curve cv[2 * FDTD_MAX_PLANES / 4];
  hd_out csv;
  int p, q, f, rc = -1, ncv = 0, open = 1;
  if (!curve) return snprintf(err, en, "flux: out of host memory"), -1;
  snprintf(path, sizeof path, "%s_flux.csv", c->com.output);
  if (hd_out_open(&csv, path, err, en)) return free(curve), -1;
  fprintf(csv.f, pw ? "frequency_hz,plane,axis,position,flux,incident,scattered,transmittance,reflectance\n"
                    : "frequency_hz,plane,axis,position,flux\n");
  for (f = 0; f < nf; ++f) curve[(size_t)2 * c->nflux * nf + f] = c->sp.freq[c->sp.far0 + f] / 1e9;
  for (p = 0; p < c->nflux; ++p) {
    const fdtd_slice *sl = &c->near[c->flux_first[p]];
    const int axis = sl->axis, u = axis == 0 ? 1 : 0, v = axis == 2 ? 1 : 2;
    const size_t cells = (size_t)2 * nf * c->in.n[u] * c->in.n[v];
    const double at = 0.5 * (c->in.node[axis][sl->layer] + c->in.node[axis][sl->layer + 1]);
    for (q = 0; q < 4; ++q) {
      tot[q] = g->planes[c->flux_first[p] + q];
      if (pw && !(inc[q] = (double *)calloc(cells, sizeof(double)))) {
        snprintf(err, en, "flux: out of host memory");
        goto done;
      }
      if (pw) { /* the total field where the grid holds the scattered one, and the incident alone */
        fdtd_planewave_add_incident(m, &c->in, sl + q, c->sp.freq + c->sp.far0, nf, steps, 0, tot[q]);
        fdtd_planewave_add_incident(m, &c->in, sl + q, c->sp.freq + c->sp.far0, nf, steps, 1, inc[q]);
      }
    }
    for (f = 0; f < nf; ++f) {
      const double fl = flux_of(&c->in, axis, tot, NULL, f), fr = c->sp.freq[c->sp.far0 + f];
      fprintf(csv.f, "%.9e,%d,%c,%.9g,%.9e", fr, p + 1, 'x' + axis, at, fl);
      if (pw) {
        const double fi = flux_of(&c->in, axis, inc, NULL, f), fs = flux_of(&c->in, axis, tot, inc, f);
        fprintf(csv.f, ",%.9e,%.9e,%.9g,%.9g", fi, fs, fl / fi, -fs / fi);
        curve[(size_t)2 * p * nf + f] = fl / fi, curve[(size_t)(2 * p + 1) * nf + f] = -fs / fi;
      } else {
        curve[(size_t)2 * p * nf + f] = fl;
      }
      fprintf(csv.f, "\n");
    }
    for (q = 0; q < (pw ? 2 : 1); ++q, ++ncv) {
      snprintf(names[ncv], sizeof names[ncv], pw ? (q ? "R%d" : "T%d") : "FLUX%d", p + 1);
      cv[ncv].x = curve + (size_t)2 * c->nflux * nf, cv[ncv].y = curve + (size_t)(2 * p + q) * nf, cv[ncv].n = nf;
      cv[ncv].label = names[ncv];
    }
    for (q = 0; q < 4; ++q) free(inc[q]), inc[q] = NULL;
  }
  open = 0;
  if (hd_out_commit(&csv, err, en)) goto done;
  printf("flux: %d plane%s at %d frequencies: %s\n", c->nflux, c->nflux > 1 ? "s" : "", nf, path);
  rc = fdtd_plots_lines(c->com.output, "_fluxes.png", pw ? "TRANSMITTANCE T AND REFLECTANCE R" : "POYNTING FLUX",
                        "FREQUENCY (GHZ)", pw ? "FRACTION OF THE INCIDENT" : "W S^2", cv, ncv, err, en);
done:
  if (open) hd_out_abort(&csv);
  for (q = 0; q < 4; ++q) free(inc[q]);
  free(curve);
  return rc;
}
