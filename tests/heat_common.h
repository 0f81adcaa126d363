/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared setup for the heat tests: the backends of this build, and a run of
 * a problem on one backend/precision that returns the interior as doubles. */
#ifndef HD_TEST_HEAT_COMMON_H
#define HD_TEST_HEAT_COMMON_H

#include <string.h>

#include "backends.h"
#include "heat/heat_ops.h"

typedef test_backend heat_backend;
#define heat_backends_open test_backends_open
#define heat_backends_close test_backends_close

/* A problem with every face adiabatic and default geometry. */
static void heat_problem_default(heat_problem *p, int dim, long nx, long ny, long nz) {
  int d;
  memset(p, 0, sizeof *p);
  p->dim = dim;
  p->n[0] = nx, p->n[1] = dim >= 2 ? ny : 1, p->n[2] = dim >= 3 ? nz : 1;
  for (d = 0; d < 3; ++d) {
    p->length[d] = 1.0;
    p->mode[d] = 1;
    p->box_lo[d] = 0.25, p->box_hi[d] = 0.75, p->center[d] = 0.5;
  }
  p->alpha = 1.0;
  p->value = 1.0;
  p->radius = 0.3;
}

static double heat_cells(const heat_problem *p) {
  return (double)p->n[0] * (double)p->n[1] * (double)p->n[2];
}

/* Run `steps` steps; out gets the interior (caller allocates cells values),
 * stats the final statistics.  Returns 1 on success. */
static int heat_run(heat_backend *b, const heat_ops *ops, const heat_problem *p, long steps,
                    double *out, hd_stats *stats) {
  void *state = NULL;
  int okay = ops->create(&b->ctx, p, &state) == HD_OK && ops->advance(&b->ctx, state, steps) == HD_OK &&
             (!stats || ops->stats(&b->ctx, state, stats) == HD_OK) &&
             (!out || ops->download(&b->ctx, state, out) == HD_OK);
  if (!okay) diag("%s/%s: %s", ops->backend, ops->precision, b->ctx.msg);
  if (state) ops->destroy(&b->ctx, state);
  return okay;
}

#endif
