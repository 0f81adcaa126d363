/* SPDX-License-Identifier: BSD-3-Clause */
/* Grid sequencing for hd-cavity (--init-from): a run's first state from a
 * one-rank checkpoint of the same cavity (Re, lid speed) on another grid,
 * so that a coarse grid's steady state starts a fine grid's run. */
#ifndef HD_DRV_CAVITY_INIT_FROM_H
#define HD_DRV_CAVITY_INIT_FROM_H

#include "backend.h"
#include "cavity_ops.h"

/* psi, omega (and the damping's filtered omega, from omega where the file
 * has none) of `path` interpolated bilinearly onto this run's nodes (exact
 * where the grids share nodes), into this rank's rows of the state.
 * 0, or -1 with "init-from: ..." in err. */
int cavity_init_from(const char *path, const cavity_problem *p, size_t real_size, hd_ctx *ctx, void *state,
                     int narrays, hd_state_io_fn io, char *err, size_t n);

#endif
