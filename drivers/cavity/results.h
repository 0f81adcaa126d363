/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-cavity's results from the final fields: the fields file, the
 * centrelines and the primary vortex — from the whole grid on rank 0, or
 * (--pieces) from the ranks' rows, no rank holding more than its own and
 * strips of a few rows or columns. */
#ifndef HD_DRV_CAVITY_RESULTS_H
#define HD_DRV_CAVITY_RESULTS_H

#include <stddef.h>

struct hd_decomp;
struct hd_out;

/* A field's nodes as an array holding node (i, j) at (i - i0) + (j - j0) sy. */
typedef struct cavity_view {
  const double *f;
  long i0, j0, sy;
} cavity_view;

typedef struct cavity_results {
  cavity_view u, v;        /* u around x = 1/2, v around y = 1/2 */
  double pmin, xmin, ymin; /* the primary vortex: psi's minimum refined, and where */
  double *strips;          /* the views' arrays when gathered */
} cavity_results;

/* u at x = 1/2, y = s (along_x 0) or v at x = s, y = 1/2 (along_x 1). */
double cavity_centre(const cavity_view *f, long n, int along_x, double s);

/* From the whole grid (n + 1 nodes a side) on this rank. */
void cavity_results_whole(cavity_results *r, long n, const double *psi, const double *u, const double *v);

/* From every rank's rows (psi, u, v of the rows its block owns); the
 * answer on rank 0.  Collective; 0, or -1 + message (every rank). */
int cavity_results_blocks(cavity_results *r, const struct hd_decomp *d, long n, const double *psi, const double *u,
                          const double *v, char *err, size_t en);

void cavity_results_free(cavity_results *r);

/* Where Ghia's or Erturk's tables hold this Reynolds number (lid speed 1):
 * the largest deviations from their centreline stations, Ghia's psi_min,
 * and the centrelines' extrema against the tables', as summary lines. */
void cavity_print_published(const cavity_results *r, long n, double re);

/* u on x = 1/2 and v on y = 1/2 against the published tables of this
 * Reynolds number (lid speed 1), as a PNG line plot into o.  0, or -1 +
 * message. */
int cavity_plot_centrelines(struct hd_out *o, const cavity_results *r, long n, double re, double lid, char *err,
                            size_t en);

/* psi, omega, the velocity (u, v: f) and the speed as cells centred on the
 * nodes of a surface, at time t of step `step`: with d, every rank's rows
 * as PREFIX_pR.vtr and on rank 0 the index o (PREFIX.pvtr), collective;
 * without, the whole grid into o (.vtr).  0, or -1 + message. */
int cavity_write_fields(struct hd_out *o, const struct hd_decomp *d, const char *prefix, long n,
                        const double *const f[4], int single, double t, long step, char *err, size_t en);

#endif
