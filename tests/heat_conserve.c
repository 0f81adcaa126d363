/* SPDX-License-Identifier: BSD-3-Clause */
/* Conservation and exact steady states of the heat scheme on every backend.
 *
 * With every face adiabatic the discrete Laplacian telescopes, so the total
 * heat sum_c T_c changes only by rounding: at most about 4 eps |T_c| per
 * cell and step (a handful of roundings in the update), plus n eps sum|T|
 * for the double-precision sum itself.  That worst case,
 *   (4 N eps_real + n eps_double) sum|T|,
 * is the tolerance.  A uniform source q adds exactly N dt q per cell.
 * A linear profile between two fixed faces and a uniform field at the
 * fixed temperature are exact discrete steady states. */
#include <float.h>
#include <math.h>

#include <hd/heat.h>

#include "heat_common.h"

static double eps_of(const heat_ops *ops) { return ops->real_size == 4 ? FLT_EPSILON : DBL_EPSILON; }

static void conserve(heat_backend *b, const heat_ops *ops, int dim, double q) {
  heat_problem p;
  hd_stats s0, s1;
  const long steps = 500;
  double dx[3], expect, bound, cells;
  int d;
  heat_problem_default(&p, dim, 64, 48, 24);
  p.init_kind = dim == 2 ? HD_HEAT_INIT_BOX : HD_HEAT_INIT_SPHERE;
  p.base = 0.5;
  p.value = 2.0;
  p.q = q;
  for (d = 0; d < 3; ++d) dx[d] = p.length[d] / (double)p.n[d];
  p.dt = 0.8 * hd_heat_dt_max(p.alpha, dx, dim);
  cells = heat_cells(&p);
  if (!heat_run(b, ops, &p, 0, NULL, &s0) || !heat_run(b, ops, &p, steps, NULL, &s1)) {
    ok(0, "%s/%s conservation runs", ops->backend, ops->precision);
    return;
  }
  /* the source as the scheme applies it: dt*q rounded to the precision */
  expect = s0.sum + (double)steps * cells *
                        (ops->real_size == 4 ? (double)(float)(p.dt * q) : p.dt * q);
  bound = (4.0 * steps * eps_of(ops) + cells * DBL_EPSILON) * (fabs(s1.sum) + fabs(s0.sum));
  ok(fabs(s1.sum - expect) <= bound,
     "%s/%s %d-D adiabatic, q = %g: total heat after %ld steps off by %.3g (bound %.3g)",
     ops->backend, ops->precision, dim, q, steps, fabs(s1.sum - expect), bound);
}

/* T = Tb everywhere with every face fixed at Tb is an exact fixed point:
 * the ghost 2 Tb - Tb is Tb and every difference is zero. */
static void steady(heat_backend *b, const heat_ops *ops, int dim) {
  heat_problem p;
  double *f, err = 0.0, dx[3];
  long i;
  int d;
  heat_problem_default(&p, dim, 32, 20, 12);
  for (d = 0; d < 6; ++d) p.bc_kind[d] = HD_HEAT_FIXED, p.bc_value[d] = 0.5;
  p.init_kind = HD_HEAT_INIT_UNIFORM;
  p.base = 0.5;
  for (d = 0; d < 3; ++d) dx[d] = p.length[d] / (double)p.n[d];
  p.dt = 0.9 * hd_heat_dt_max(p.alpha, dx, dim);
  f = (double *)malloc((size_t)heat_cells(&p) * sizeof(double));
  if (!f) bail("out of memory");
  if (!heat_run(b, ops, &p, 300, f, NULL)) {
    ok(0, "%s/%s steady run", ops->backend, ops->precision);
    free(f);
    return;
  }
  for (i = 0; i < (long)heat_cells(&p); ++i) err = fmax(err, fabs(f[i] - 0.5));
  ok(err == 0.0, "%s/%s %d-D uniform field at the fixed face temperature stays exact (%.3g)",
     ops->backend, ops->precision, dim, err);
  free(f);
}

/* A linear profile between fixed faces is an exact discrete steady state
 * (the fixed-face ghost 2 Tb - T1 continues the line), so the run converges
 * to it, not to something near it. */
static void linear_profile(heat_backend *b, const heat_ops *ops, int dim) {
  heat_problem p;
  double *f, err = 0.0, dx[3];
  long i, j, k, m = 0;
  int d;
  heat_problem_default(&p, dim, 32, 20, 12);
  p.bc_kind[HD_XLO] = HD_HEAT_FIXED, p.bc_value[HD_XLO] = -1.0;
  p.bc_kind[HD_XHI] = HD_HEAT_FIXED, p.bc_value[HD_XHI] = 3.0;
  /* start uniform and run until the slowest deviation has decayed */
  p.init_kind = HD_HEAT_INIT_UNIFORM;
  p.base = 1.0;
  for (d = 0; d < 3; ++d) dx[d] = p.length[d] / (double)p.n[d];
  p.dt = hd_heat_dt_max(p.alpha, dx, dim) * 0.9;
  f = (double *)malloc((size_t)heat_cells(&p) * sizeof(double));
  if (!f) bail("out of memory");
  /* slowest deviation: the k = 1 sine mode in x (amplitude below 3), factor
   * G = 1 - 4 c sin^2(pi / 64) per step; N = ln(1e-11) / ln(G) leaves < 3e-11 */
  {
    double c = p.alpha * p.dt / (dx[0] * dx[0]), s = sin(3.14159265358979323846 / 64.0);
    double g = 1.0 - 4.0 * c * s * s;
    long steps = (long)ceil(log(1e-11) / log(g));
    double tol = ops->real_size == 4 ? 2e-5 : 1e-9;
    if (!heat_run(b, ops, &p, steps, f, NULL)) {
      ok(0, "%s/%s linear profile run", ops->backend, ops->precision);
      free(f);
      return;
    }
    for (k = 0; k < p.n[2]; ++k)
      for (j = 0; j < p.n[1]; ++j)
        for (i = 0; i < p.n[0]; ++i) err = fmax(err, fabs(f[m++] - (-1.0 + 4.0 * (i + 0.5) * dx[0])));
    ok(err <= tol,
       "%s/%s %d-D converges to the linear profile between fixed faces -1 and 3 "
       "(%ld steps, error %.3g, tolerance %g)",
       ops->backend, ops->precision, dim, steps, err, tol);
  }
  free(f);
}

/* A per-cell source array equal to the uniform source gives the same bits
 * (library level, this unit's backend). */
static void source_field(void) {
  hd_ctx ctx;
  hd_grid g;
  hd_heat_args a, aq;
  hd_real *t0, *t1, *u0, *u1, *q;
  double dx[3] = {0.1, 0.1, 0.1};
  hd_idx c;
  int d, step, same = 1;
  if (hd_ctx_init(&ctx, 0) != HD_OK || !hd_grid_init(&g, 2, 10, 10, 1, 1)) bail("setup");
  t0 = (hd_real *)calloc((size_t)g.total, sizeof(hd_real));
  t1 = (hd_real *)calloc((size_t)g.total, sizeof(hd_real));
  u0 = (hd_real *)calloc((size_t)g.total, sizeof(hd_real));
  u1 = (hd_real *)calloc((size_t)g.total, sizeof(hd_real));
  q = (hd_real *)calloc((size_t)g.total, sizeof(hd_real));
  if (!t0 || !t1 || !u0 || !u1 || !q) bail("out of memory");
  memset(&a, 0, sizeof a);
  if (hd_heat_setup(&ctx, &a, &g, 1.0, 1e-3, dx, 2.5) != HD_OK) bail("%s", ctx.msg);
  aq = a;
  aq.dtq = 0;
  for (c = 0; c < g.total; ++c) q[c] = (hd_real)2.5, t0[c] = u0[c] = (hd_real)(c % 7);
  aq.q = q;
  for (d = 0; d < HD_NFACES; ++d) a.bc[d].kind = aq.bc[d].kind = HD_HEAT_ADIABATIC;
  for (step = 0; step < 20; ++step) {
    hd_real *tmp;
    a.t = t0, a.t_next = t1, aq.t = u0, aq.t_next = u1;
    if (hd_heat_step(&ctx, &a) != HD_OK || hd_heat_step(&ctx, &aq) != HD_OK) bail("%s", ctx.msg);
    tmp = t0, t0 = t1, t1 = tmp;
    tmp = u0, u0 = u1, u1 = tmp;
  }
  for (c = 0; c < g.total; ++c) same = same && t0[c] == u0[c];
  ok(same, "a per-cell source array equal to the uniform source gives identical fields");
  free(t0), free(t1), free(u0), free(u1), free(q);
}

int main(void) {
  heat_backend be[HD_B_COUNT];
  int nb = heat_backends_open(be), b, single, dim;
  for (b = 0; b < nb; ++b)
    for (single = 0; single <= 1; ++single) {
      const heat_ops *ops = heat_ops_get(be[b].core->id, single);
      if (!ops) continue;
      for (dim = 2; dim <= 3; ++dim) {
        conserve(&be[b], ops, dim, 0.0);
        conserve(&be[b], ops, dim, 0.75);
        steady(&be[b], ops, dim);
        linear_profile(&be[b], ops, dim);
      }
    }
  source_field();
  heat_backends_close(be, nb);
  return done_testing();
}
