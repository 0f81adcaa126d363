/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared setup for the compressible-flow tests: problems in the units of
 * hd/ns.h (rho_inf = c_inf = 1) and runs returning the fields. */
#ifndef HD_TEST_NS_COMMON_H
#define HD_TEST_NS_COMMON_H

#include <float.h>
#include <math.h>
#include <string.h>

#include "backends.h"
#include "ns/ns_ops.h"

/* A square [-L/2, L/2]^2 of n x n cells with every face `bc`, uniform flow
 * (u, v), air (gamma 1.4, Pr 0.72, Sutherland 0.3831), dt at CFL 1 of the
 * RK4 limit's measure. */
TAP_FN ns_problem ns_square(long n, double len, int bc, double u, double v, double mu) {
  ns_problem p;
  int f;
  memset(&p, 0, sizeof p);
  p.n[0] = p.n[1] = n;
  p.origin[0] = p.origin[1] = -0.5 * len;
  p.length[0] = p.length[1] = len;
  for (f = 0; f < 4; ++f) p.bc[f] = bc;
  p.gamma = 1.4, p.pr = 0.72, p.suth = 110.4 / 288.15, p.sigma = 0.25;
  p.mu_ref = mu, p.viscous = mu > 0;
  p.mach = sqrt(u * u + v * v);
  p.beta = p.mach < 1 ? p.mach : 1.0;
  ns_nscbc_defaults(&p);
  p.ic.kind = HD_NS_IC_UNIFORM, p.ic.gamma = p.gamma, p.ic.u_inf = u, p.ic.v_inf = v, p.ic.rc = 1;
  p.dt = 1.0 * len / n / (fabs(u) + fabs(v) + 2.0);
  return p;
}

/* Node coordinates of the problem's grid (x of column i, y of row j). */
TAP_FN double ns_x(const ns_problem *p, int axis, long i) {
  return p->origin[axis] + (double)i * p->length[axis] / (double)p->n[axis];
}

/* Run `steps` steps and fetch the fields (any may be NULL); 1 on success. */
TAP_FN int ns_run(test_backend *b, const ns_ops *ops, const ns_problem *p, long steps, double *r, double *u,
                  double *v, double *pr, hd_ns_sums *sums) {
  void *state = NULL;
  int good = ops->create(&b->ctx, p, &state) == HD_OK && ops->advance(&b->ctx, state, steps) == HD_OK;
  if (good && sums) good = ops->sums(&b->ctx, state, sums) == HD_OK;
  if (good) good = ops->fields(&b->ctx, state, r, u, v, pr, NULL) == HD_OK;
  if (!good) diag("%s/%s: %s", ops->backend, ops->precision, b->ctx.msg);
  if (state) ops->destroy(&b->ctx, state);
  return good;
}

TAP_FN double *ns_alloc(const ns_problem *p) {
  double *x = (double *)calloc((size_t)(ns_nodes(p, 0) * ns_nodes(p, 1)), sizeof(double));
  if (!x) bail("out of memory");
  return x;
}

#endif
