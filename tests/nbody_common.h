/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared setup for the N-body tests: bodies on the host, a run on one
 * backend/precision/variant returning the bodies (9 blocks of n doubles: x,
 * y, z, vx, vy, vz, ax, ay, az) and the diagnostics. */
#ifndef HD_TEST_NBODY_COMMON_H
#define HD_TEST_NBODY_COMMON_H

#include <float.h>
#include <math.h>
#include <string.h>

#include "backends.h"
#include "nbody/bodies.h"
#include "nbody/nbody_ops.h"

TAP_FN void nb_problem(nbody_problem *p, const nbody_bodies *b, int periodic, double eps, double dt) {
  memset(p, 0, sizeof *p);
  p->n = b->n;
  p->periodic = periodic;
  p->eps = eps;
  p->dt = dt;
  p->x = b->x, p->y = b->y, p->z = b->z, p->vx = b->vx, p->vy = b->vy, p->vz = b->vz, p->m = b->m;
}

/* Random bodies: positions in the unit square/cube [0,1), masses 0.5 to 1.5
 * over n, small random velocities. */
TAP_FN void nb_random(nbody_bodies *b, long n, int periodic, uint64_t seed) {
  long i;
  if (nbody_bodies_alloc(b, n)) bail("out of memory");
  for (i = 0; i < n; ++i) {
    b->x[i] = hd_rand_unit(seed, 0, (uint64_t)i);
    b->y[i] = hd_rand_unit(seed, 1, (uint64_t)i);
    b->z[i] = periodic ? 0.0 : hd_rand_unit(seed, 2, (uint64_t)i);
    b->vx[i] = 0.1 * (hd_rand_unit(seed, 3, (uint64_t)i) - 0.5);
    b->vy[i] = 0.1 * (hd_rand_unit(seed, 4, (uint64_t)i) - 0.5);
    b->vz[i] = periodic ? 0.0 : 0.1 * (hd_rand_unit(seed, 5, (uint64_t)i) - 0.5);
    b->m[i] = (0.5 + hd_rand_unit(seed, 6, (uint64_t)i)) / (double)n;
  }
}

/* Create, advance `steps`, download into out (9 n doubles) and take the
 * diagnostics (either may be NULL).  Returns 1 on success. */
TAP_FN int nb_run(test_backend *b, const nbody_ops *ops, const nbody_problem *p, long steps,
                  double *out, hd_nbody_diag *dg) {
  void *state = NULL;
  int okay = ops->create(&b->ctx, p, &state) == HD_OK &&
             ops->advance(&b->ctx, state, steps) == HD_OK &&
             (!out || ops->download(&b->ctx, state, out) == HD_OK) &&
             (!dg || ops->diagnostics(&b->ctx, state, dg) == HD_OK);
  if (!okay) diag("%s/%s: %s", ops->backend, ops->precision, b->ctx.msg);
  if (state) ops->destroy(&b->ctx, state);
  return okay;
}

TAP_FN const char *nb_variant_name(int v) { return v == NBODY_VARIANT_GENERIC ? "generic" : "tuned"; }

#endif
