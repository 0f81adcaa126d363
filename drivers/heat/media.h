/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-heat's materials and regions (hd/heat_media.h): parsing the repeated
 * --material and --region values and painting the material map. */
#ifndef HD_DRV_HEAT_MEDIA_H
#define HD_DRV_HEAT_MEDIA_H

#include <stddef.h>

#include "cli.h"
#include "heat_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Materials 1.. from "K RHO CP [Q [T0]]" (T0 for --init=materials; default
 * p->base, material 0's) and regions from "M box X0 X1 Y0 Y1
 * [Z0 Z1]" or "M sphere X Y [Z] R" (later regions win), commas or spaces
 * between fields; material 0 is the background (k = p->k, rho c = k / alpha).
 * 0, or -1 with "WHERE: ..." in err. */
int heat_media_parse(const cli_list *materials, const cli_list *regions, heat_problem *p, char *err, size_t n);

/* The material of every cell of a block (n[] cells from global cell
 * origin[], of a grid of cells[]) with one ghost layer, x fastest, rows
 * `stride` apart (the padded layout): a ghost takes the material of the
 * nearest cell of the whole grid.  The regions paint over p->map_values
 * (else material 0). */
void heat_media_paint(const heat_problem *p, const long n[3], const long origin[3], const long cells[3],
                      long sy, long sz, unsigned char *map);

/* Whether a box (lo, hi per axis) or a sphere meets the domain [0, L]. */
int heat_box_meets(const heat_problem *p, const double *lohi);
int heat_sphere_meets(const heat_problem *p, const double *centre, double radius);

#ifdef __cplusplus
}
#endif

#endif
