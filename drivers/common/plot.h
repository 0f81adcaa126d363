/* SPDX-License-Identifier: BSD-3-Clause */
/* Line plots and polar patterns as PNG pictures, labelled with a 5 x 7
 * pixel font: the curves a person would rather look at than read (|S11|
 * against frequency, an impedance, a radiation pattern).  Separate from
 * output.c, which writes data; this draws. */
#ifndef HD_DRV_PLOT_H
#define HD_DRV_PLOT_H

#include <stddef.h>

#include "output.h"

typedef struct hd_plot_curve {
  const double *x, *y; /* polar: x the angle in degrees clockwise from the top, y the value */
  int n;
  const char *label;
} hd_plot_curve;

/* Up to 6 curves on shared axes with ticks, grid and a legend; x from the
 * curves' range, y likewise (or lo..hi when lo < hi).  0 or -1 + message. */
int hd_plot_lines(hd_out *o, const char *title, const char *xlabel, const char *ylabel, const hd_plot_curve *c, int nc,
                  double lo, double hi, char *err, size_t n);

/* The same, curve k drawn as a square at each point where bit k of
 * `marked` is set (published values beside computed lines). */
int hd_plot_marked(hd_out *o, const char *title, const char *xlabel, const char *ylabel, const hd_plot_curve *c, int nc,
                   unsigned marked, double lo, double hi, char *err, size_t n);

/* Polar diagrams side by side (at most 2), each of up to 6 curves: the
 * rim at `top`, circles every `step` down to top - range (dB: 10 and 40;
 * linear: top / 4 and top). */
int hd_plot_polar(hd_out *o, const char *title, const char *const *panel, const hd_plot_curve *const *c, const int *nc,
                  int npanel, double top, double range, double step, char *err, size_t n);

/* A Smith chart of up to 6 curves of reflection coefficients (x the real
 * part, y the imaginary), each marked at its first point: resistance
 * circles and reactance arcs at 0.2, 0.5, 1, 2, 5. */
int hd_plot_smith(hd_out *o, const char *title, const hd_plot_curve *c, int nc, char *err, size_t n);

/* The numbers of a picture: "curve,XNAME,YNAME" and a row a point, so
 * that what is drawn can be read back (and is written where no PNG is). */
int hd_plot_csv(hd_out *o, const char *xname, const char *yname, const hd_plot_curve *c, int nc);

#endif
