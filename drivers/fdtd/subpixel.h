/* SPDX-License-Identifier: BSD-3-Clause */
/* Subpixel averaging of eps and sigma at interfaces (subpixel.c). */
#ifndef HD_DRV_FDTD_SUBPIXEL_H
#define HD_DRV_FDTD_SUBPIXEL_H

#include "model.h"

/* The derived materials after in's nmat: their number (0: no pair of
 * media to average; -1: too many pairs for the 256 indices), levels the
 * steps of each pair's eps. */
int fdtd_subpixel_tables(fdtd_input *in, int *levels);

/* Averages the E components of this block (off, ln, pad as
 * fdtd_input_build_block) whose staircase differs from a neighbour's:
 * the number changed, -1 out of memory. */
long fdtd_subpixel_apply(const fdtd_input *in, const hd_grid *g, const long off[3], const long ln[3], long pad, int levels,
                         unsigned char *mat[6]);

#endif
