/* SPDX-License-Identifier: BSD-3-Clause */
#include "picture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int by_value(const void *a, const void *b) {
  const double u = *(const double *)a, v = *(const double *)b;
  return (u > v) - (u < v);
}

/* The median of v[0..n) (sorted in place). */
static double median(double *v, long n) {
  qsort(v, (size_t)n, sizeof *v, by_value);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int nbody_picture(hd_out *o, const double *x, const double *y, long n, int periodic, double t, char *err, size_t en) {
  const double side_f = fmin(512.0, fmax(64.0, 2.0 * sqrt((double)n)));
  const int side = (int)side_f;
  double *tmp = (double *)malloc((size_t)(n > 0 ? n : 1) * sizeof(double)), *img = (double *)calloc((size_t)side * side, sizeof(double));
  double cx = 0.5, cy = 0.5, half = 0.5, top = 0.0;
  long i;
  int rc;
  if (!tmp || !img) {
    free(tmp), free(img);
    return snprintf(err, en, "out of host memory for the picture"), -1;
  }
  if (!periodic && n > 0) {
    memcpy(tmp, x, (size_t)n * sizeof *tmp), cx = median(tmp, n);
    memcpy(tmp, y, (size_t)n * sizeof *tmp), cy = median(tmp, n);
    for (i = 0; i < n; ++i) tmp[i] = fmax(fabs(x[i] - cx), fabs(y[i] - cy));
    qsort(tmp, (size_t)n, sizeof *tmp, by_value);
    half = 1.05 * tmp[(long)(0.9 * (double)(n - 1))];
    if (!(half > 0)) half = 1.0;
  }
  for (i = 0; i < n; ++i) {
    const double u = (x[i] - cx + half) / (2 * half), v = (y[i] - cy + half) / (2 * half);
    if (u >= 0 && u < 1 && v >= 0 && v < 1) img[(side - 1 - (long)(v * side)) * side + (long)(u * side)] += 1; /* y up */
  }
  for (i = 0; i < (long)side * side; ++i) top = fmax(top, img[i] = log1p(img[i]));
  {
    char title[128], extent[128];
    hd_png_legend lg;
    snprintf(title, sizeof title, "%ld bodies at t = %.4g: log(1 + bodies a pixel)", n, t);
    snprintf(extent, sizeof extent, "x %.4g .. %.4g, y %.4g .. %.4g", cx - half, cx + half, cy - half, cy + half);
    lg.title = title, lg.units = "log(1+N)", lg.extent = extent;
    rc = hd_png_write_map(o, side, side, img, 0.0, top > 0 ? top : 1.0, HD_PNG_SEQUENTIAL, &lg, err, en);
  }
  free(tmp), free(img);
  return rc;
}
