/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-nbody's picture: the bodies seen along z, as a map of how many fall in
 * each pixel (log scale).  Separate from the snapshots: a glance, not data. */
#ifndef HD_NBODY_PICTURE_H
#define HD_NBODY_PICTURE_H

#include <stddef.h>

#include "output.h"

/* n bodies at x[i], y[i]; periodic: the unit square, else a square around
 * the median body holding nine in ten of them.  0, or -1 + message. */
int nbody_picture(hd_out *o, const double *x, const double *y, long n, int periodic, double t, char *err, size_t en);

#endif
