/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared setup for the cavity tests: a problem at a given Re and grid, and
 * runs to a steady state (or a number of steps) returning the fields. */
#ifndef HD_TEST_CAVITY_COMMON_H
#define HD_TEST_CAVITY_COMMON_H

#include <float.h>
#include <math.h>
#include <string.h>

#include <hd/cavity.h>

#include "backends.h"
#include "cavity/cavity_ops.h"
#include "cavity/ghia.h"

/* Unit cavity, lid speed 1; dt at `dt_frac` of the stability limit (the
 * steady state does not depend on dt). */
TAP_FN cavity_problem cv_problem(long n, double re, int solver, double tol, double dt_frac) {
  cavity_problem p;
  memset(&p, 0, sizeof p);
  p.n = n, p.length = 1.0, p.lid = 1.0, p.nu = 1.0 / re, p.solver = solver;
  p.dt = dt_frac * hd_cav_dt_max(1.0 / n, p.nu, 1.0);
  p.pois.tol = tol, p.pois.max_iter = solver == CAVITY_SOR ? 100 * n : 100, p.pois.check_every = 10;
  return p;
}

/* Run until steady (change <= steady, checked every 50 steps) or `steps`
 * steps; psi, w, u, v each (n + 1)^2 doubles or NULL.  Returns the steps
 * run, or -1 on failure. */
TAP_FN long cv_run(test_backend *b, const cavity_ops *ops, const cavity_problem *p, long steps, double steady,
                   double *psi, double *w, double *u, double *v) {
  void *state = NULL;
  cavity_progress pr;
  long done = 0;
  int good = ops->create(&b->ctx, p, &state) == HD_OK;
  while (good && done < steps) {
    const long chunk = steps - done < 50 ? steps - done : 50;
    good = ops->advance(&b->ctx, state, chunk, 0.0, &pr) == HD_OK;
    done += pr.steps;
    if (steady > 0 && pr.change <= steady) break;
  }
  if (good) good = ops->fields(&b->ctx, state, psi, w, u, v) == HD_OK;
  if (state) ops->destroy(&b->ctx, state);
  if (!good) diag("%s/%s: %s", ops->backend, ops->precision, b->ctx.msg);
  return good ? done : -1;
}

#endif
