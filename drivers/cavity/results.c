/* SPDX-License-Identifier: BSD-3-Clause */
#include "results.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decomp.h"
#include "driver.h"
#include "ghia.h"
#include "output.h"
#include "plot.h"

double cavity_centre(const cavity_view *f, long n, int along_x, double s) {
  return ghia_sample_at(f->f, f->i0, f->j0, f->sy, n, along_x ? s : 0.5, along_x ? 0.5 : s);
}

/* One table's comparison: max |u - table| and max |v - table| over its
 * stations, and the extrema of the centrelines (u_min on x = 1/2, v_min
 * and v_max on y = 1/2, at the n + 1 node positions) against the extrema
 * of its stations, as NAME_... lines. */
static void compare_table(const cavity_results *r, long n, const char *name, int points, const double *ys,
                          const double *xs, const double *ut, const double *vt, int extrema_names) {
  double du = 0, dv = 0, ours[3] = {1e300, 1e300, -1e300}, theirs[3] = {1e300, 1e300, -1e300}, worst = 0.0;
  long j;
  int k;
  for (k = 0; k < points; ++k) {
    du = fmax(du, fabs(cavity_centre(&r->u, n, 0, ys[k]) - ut[k]));
    dv = fmax(dv, fabs(cavity_centre(&r->v, n, 1, xs[k]) - vt[k]));
    theirs[0] = fmin(theirs[0], ut[k]), theirs[1] = fmin(theirs[1], vt[k]), theirs[2] = fmax(theirs[2], vt[k]);
  }
  for (j = 0; j <= n; ++j) {
    const double s = (double)j / (double)n, uc = cavity_centre(&r->u, n, 0, s), vc = cavity_centre(&r->v, n, 1, s);
    ours[0] = fmin(ours[0], uc), ours[1] = fmin(ours[1], vc), ours[2] = fmax(ours[2], vc);
  }
  for (k = 0; k < 3; ++k) worst = fmax(worst, fabs(ours[k] / theirs[k] - 1.0));
  printf("%s_max_du: %.4f\n%s_max_dv: %.4f\n", name, du, name, dv);
  if (extrema_names) printf("u_min: %.5f\nv_min: %.5f\nv_max: %.5f\n", ours[0], ours[1], ours[2]);
  printf("%s_u_min: %.5f\n%s_v_min: %.5f\n%s_v_max: %.5f\n%s_extrema_deviation: %.4f\n", name, theirs[0], name,
         theirs[1], name, theirs[2], name, worst);
}

void cavity_print_published(const cavity_results *r, long n, double re) {
  const ghia_case *g = ghia_find(re);
  const erturk_case *e = erturk_find(re);
  if (g) {
    compare_table(r, n, "ghia", GHIA_POINTS, ghia_y, ghia_x, g->u, g->v, 1);
    if (g->psi_min != 0.0) printf("ghia_psi_min: %.6f\n", g->psi_min);
  }
  if (e) compare_table(r, n, "erturk", ERTURK_POINTS, erturk_y, erturk_x, e->u, e->v, !g);
}

static hd_plot_curve curve(const double *x, const double *y, int n, const char *label) {
  hd_plot_curve c;
  c.x = x, c.y = y, c.n = n, c.label = label;
  return c;
}

int cavity_plot_centrelines(hd_out *o, const cavity_results *r, long n, double re, double lid, char *err,
                            size_t en) {
  const ghia_case *g = lid == 1.0 ? ghia_find(re) : NULL;
  const erturk_case *e = lid == 1.0 ? erturk_find(re) : NULL;
  double *s = (double *)malloc(3 * (size_t)(n + 1) * sizeof(double)), *u, *v;
  hd_plot_curve c[6];
  char title[96];
  int nc = 0, rc;
  long k;
  if (!s) {
    snprintf(err, en, "out of memory for the centreline plot");
    return -1;
  }
  u = s + n + 1, v = u + n + 1;
  for (k = 0; k <= n; ++k) {
    s[k] = (double)k / (double)n;
    u[k] = cavity_centre(&r->u, n, 0, s[k]), v[k] = cavity_centre(&r->v, n, 1, s[k]);
  }
  c[nc++] = curve(s, u, (int)n + 1, "u on x = 1/2 (y)");
  c[nc++] = curve(s, v, (int)n + 1, "v on y = 1/2 (x)");
  if (g) c[nc++] = curve(ghia_y, g->u, GHIA_POINTS, "Ghia 1982: u");
  if (g) c[nc++] = curve(ghia_x, g->v, GHIA_POINTS, "Ghia 1982: v");
  if (e) c[nc++] = curve(erturk_y, e->u, ERTURK_POINTS, "Erturk 2005: u");
  if (e) c[nc++] = curve(erturk_x, e->v, ERTURK_POINTS, "Erturk 2005: v");
  snprintf(title, sizeof title, "Cavity, Re = %g, %ld x %ld: centrelines", re, n, n);
  rc = hd_plot_marked(o, title, "y (for u) or x (for v)", "velocity / lid speed", c, nc, ~3u, 0, 0, err, en);
  free(s);
  return rc;
}

/* The vortex at node `best` refined by a parabola through its neighbours
 * in x and y (c, then west, east, south, north). */
static void vortex_refine(cavity_results *r, long n, long best, const double p[5]) {
  const double c = p[0], xm = p[1], xp = p[2], ym = p[3], yp = p[4];
  double dx = 0, dy = 0;
  if (xm + xp - 2 * c > 0) dx = 0.5 * (xm - xp) / (xm + xp - 2 * c);
  if (ym + yp - 2 * c > 0) dy = 0.5 * (ym - yp) / (ym + yp - 2 * c);
  r->pmin = c - 0.25 * ((xm - xp) * dx + (ym - yp) * dy);
  r->xmin = ((double)(best % (n + 1)) + dx) / (double)n;
  r->ymin = ((double)(best / (n + 1)) + dy) / (double)n;
}

/* The interior node of smallest psi among rows [lo, hi) (psi holding row
 * lo first), the first in storage order; -1 when the rows hold none. */
static long smallest(const double *psi, long n, long lo, long hi) {
  const long sy = n + 1;
  long i, j, best = -1;
  for (j = lo > 1 ? lo : 1; j < (hi < n ? hi : n); ++j)
    for (i = 1; i < n; ++i)
      if (best < 0 || psi[i + (j - lo) * sy] < psi[best - lo * sy]) best = i + j * sy;
  return best;
}

void cavity_results_whole(cavity_results *r, long n, const double *psi, const double *u, const double *v) {
  const long sy = n + 1, best = smallest(psi, n, 0, n + 1);
  const double p[5] = {psi[best], psi[best - 1], psi[best + 1], psi[best - sy], psi[best + sy]};
  r->strips = NULL;
  r->u.f = u, r->v.f = v;
  r->u.i0 = r->u.j0 = r->v.i0 = r->v.j0 = 0;
  r->u.sy = r->v.sy = sy;
  vortex_refine(r, n, best, p);
}

int cavity_results_blocks(cavity_results *r, const hd_decomp *d, long n, const double *psi, const double *u,
                          const double *v, char *err, size_t en) {
  const long sy = n + 1, lo = d->off[1], hi = d->off[1] + d->ln[1], bx = ghia_base(n, 0.5), by = bx;
  const long mine = smallest(psi, n, lo, hi);
  double m[2], p[5];
  long i, j, best;
  int k, bad;
  /* u's 4 columns around x = 1/2 on every row, v's 4 rows around y = 1/2 */
  r->strips = (double *)malloc(8 * (size_t)sy * sizeof(double));
  bad = hd_par_any(!r->strips);
  if (bad) return snprintf(err, en, "out of host memory for the centrelines"), -1;
  for (i = 0; i < 8 * sy; ++i) r->strips[i] = -0.0;
  for (j = lo; j < hi; ++j)
    for (k = 0; k < 4; ++k) r->strips[4 * j + k] = u[bx + k + (j - lo) * sy];
  for (j = by > lo ? by : lo; j < (by + 4 < hi ? by + 4 : hi); ++j)
    for (i = 0; i < sy; ++i) r->strips[4 * sy + i + (j - by) * sy] = v[i + (j - lo) * sy];
  r->u.f = r->strips, r->u.i0 = bx, r->u.j0 = 0, r->u.sy = 4;
  r->v.f = r->strips + 4 * sy, r->v.i0 = 0, r->v.j0 = by, r->v.sy = sy;
  /* the vortex: the smallest psi, then the first node holding it, then its neighbours */
  m[0] = mine < 0 ? -HUGE_VAL : -psi[mine - lo * sy];
  bad = hd_par_max_doubles(m, 1);
  m[1] = mine >= 0 && -psi[mine - lo * sy] == m[0] ? -(double)mine : -HUGE_VAL;
  bad = bad || hd_par_max_doubles(m + 1, 1);
  best = (long)-m[1];
  for (k = 0; k < 5; ++k) {
    const long at = best + (k == 0 ? 0 : k == 1 ? -1 : k == 2 ? 1 : k == 3 ? -sy : sy), row = at / sy;
    p[k] = row >= lo && row < hi ? psi[at - lo * sy] : -0.0;
  }
  /* each value one owner's, -0.0 from the others: the sums are exact, a zero's sign included */
  bad = bad || hd_par_sum_to_root(r->strips, 8 * sy) || hd_par_sum_to_root(p, 5);
  if (bad) return snprintf(err, en, "gathering the centrelines and the vortex failed"), -1;
  vortex_refine(r, n, best, p);
  return 0;
}

void cavity_results_free(cavity_results *r) {
  free(r->strips);
  r->strips = NULL;
}

int cavity_write_fields(hd_out *o, const hd_decomp *d, const char *prefix, long n, const double *const f[4],
                        int single, double t, long step, char *err, size_t en) {
  const long cells = d ? d->ln[0] * d->ln[1] : (n + 1) * (n + 1);
  double *x = (double *)malloc((size_t)(n + 2) * sizeof(double)), *zero = (double *)calloc((size_t)cells, sizeof(double));
  double *speed = (double *)malloc((size_t)cells * sizeof(double));
  const double z = 0.0;
  const double *xyz[3];
  const int64_t dims[3] = {n + 1, n + 1, 0}; /* a surface: one cell around each node */
  hd_vti_array arr[4];
  hd_vtk_meta meta = hd_vtk_meta_time(t);
  long k;
  int bad = !x || !zero || !speed;
  if (d) bad = hd_par_any(bad);
  if (bad) {
    free(x), free(zero), free(speed);
    return snprintf(err, en, "out of host memory"), -1;
  }
  hd_vtk_meta_add(&meta, "step", (double)step);
  for (k = 0; k <= n + 1; ++k) x[k] = ((double)k - 0.5) / (double)n;
  for (k = 0; k < cells; ++k) speed[k] = sqrt(f[2][k] * f[2][k] + f[3][k] * f[3][k]);
  xyz[0] = x, xyz[1] = x, xyz[2] = &z;
  memset(arr, 0, sizeof arr);
  arr[0].name = "psi", arr[0].data = f[0], arr[0].units = "U L";
  arr[1].name = "omega", arr[1].data = f[1], arr[1].units = "U/L";
  arr[2].name = "velocity", arr[2].comp[0] = f[2], arr[2].comp[1] = f[3], arr[2].comp[2] = zero, arr[2].units = "U";
  arr[3].name = "speed", arr[3].data = speed, arr[3].units = "U";
  for (k = 0; k < 4; ++k) arr[k].single = single;
  err[0] = 0;
  bad = d ? hd_drv_write_pieces(d, prefix, o, dims, NULL, NULL, xyz, arr, 4, &meta, err, en)
          : hd_vtr_write(o, dims, xyz, arr, 4, &meta);
  free(x), free(zero), free(speed);
  if (bad && !err[0]) snprintf(err, en, "cannot write %.900s: %s", o->path, hd_out_error());
  return bad ? -1 : 0;
}
