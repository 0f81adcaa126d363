/* SPDX-License-Identifier: BSD-3-Clause */
/* Convective (Robin) and flux faces of the heat module, on every backend.
 *
 * Steady wall.  Fixed Tb at x = 0, convection -k dT/dx = h (T - T_inf) at
 * x = L, the other faces adiabatic: the linear profile T = Tb - h (Tb -
 * T_inf) x / (k + h L) satisfies both ghost relations exactly, so it is
 * the discrete steady state; runs converge to it to 1e-10 (double).
 *
 * Energy balance.  Flux faces q'' (heat flowing in) and a uniform source:
 * a flux face adds c_d q'' dx / k to each cell beside it every step and the
 * source dt q to every cell, so the total sum_c T_c grows by exactly those
 * terms; the tolerance is the rounding of the updates and of the sums (as
 * tests/heat_conserve.c).
 *
 * Robin eigenmode (library level, this unit's backend, double).  Along x,
 * convective faces at both ends with T_inf = 0 make the step the matrix
 * I + c M, M tridiagonal with 1, -2, 1 and -2 + a at the two ends (a the
 * ghost's factor, hd_heat_face).  Its eigenpairs come from Sturm bisection
 * in long double and the three-term recurrence; one step multiplies an
 * eigenvector by 1 + c lambda, so N steps from it must give
 * (1 + c lambda)^N times it, to 8 N eps. */
#include <float.h>
#include <math.h>

#include <hd/heat.h>

#include "heat_common.h"

static double eps_of(const heat_ops *ops) { return ops->real_size == 4 ? FLT_EPSILON : DBL_EPSILON; }

static void steady_wall(heat_backend *b, const heat_ops *ops, int dim) {
  const double tb = 1.0, tinf = -0.5, h = 3.0, k = 2.0, len = 1.0;
  heat_problem p;
  double *f, dx[3], err = 0.0, slope, tol = ops->real_size == 4 ? 3e-5 : 1e-10;
  long i, j, m = 0, steps;
  int d;
  heat_problem_default(&p, dim, 24, 3, 3);
  p.k = k;
  p.bc_kind[HD_XLO] = HD_HEAT_FIXED, p.bc_value[HD_XLO] = tb;
  p.bc_kind[HD_XHI] = HD_HEAT_CONVECTIVE, p.bc_value[HD_XHI] = tinf, p.bc_h[HD_XHI] = h;
  for (d = 0; d < 3; ++d) dx[d] = p.length[d] / (double)p.n[d];
  p.dt = 0.95 * hd_heat_dt_max(p.alpha, dx, dim);
  /* slowest mode about exp(-(pi/2L)^2 alpha t): 30 e-folds */
  steps = (long)(30.0 / (0.25 * M_PI * M_PI * p.alpha * p.dt));
  f = (double *)malloc((size_t)heat_cells(&p) * sizeof(double));
  if (!f) bail("out of memory");
  if (!heat_run(b, ops, &p, steps, f, NULL)) {
    ok(0, "%s/%s steady wall run", ops->backend, ops->precision);
    free(f);
    return;
  }
  slope = -h * (tb - tinf) / (k + h * len);
  for (j = 0; j < p.n[1] * p.n[2]; ++j)
    for (i = 0; i < p.n[0]; ++i) err = fmax(err, fabs(f[m++] - (tb + slope * (i + 0.5) * dx[0])) / fabs(tb));
  ok(err <= tol,
     "%s/%s %d-D wall, fixed %g and convective (h %g, T_inf %g, k %g): the exact linear steady profile to %.3g "
     "(tolerance %g, %ld steps)",
     ops->backend, ops->precision, dim, tb, h, tinf, k, err, tol, steps);
  free(f);
}

static void energy_balance(heat_backend *b, const heat_ops *ops, int dim) {
  const double qin[2] = {2.0, -0.75}, q = 0.4, k = 1.5;
  const long steps = 300;
  heat_problem p;
  hd_stats s0, s1;
  double dx[3], cells, per_step, expect, bound, c0;
  int d;
  heat_problem_default(&p, dim, 40, 30, 20);
  p.k = k;
  p.q = q;
  p.init_kind = dim == 2 ? HD_HEAT_INIT_BOX : HD_HEAT_INIT_SPHERE;
  p.base = 0.5, p.value = 2.0;
  p.bc_kind[HD_XLO] = HD_HEAT_FLUX, p.bc_value[HD_XLO] = qin[0];
  p.bc_kind[HD_YHI] = HD_HEAT_FLUX, p.bc_value[HD_YHI] = qin[1];
  for (d = 0; d < 3; ++d) dx[d] = p.length[d] / (double)p.n[d];
  p.dt = 0.8 * hd_heat_dt_max(p.alpha, dx, dim);
  cells = heat_cells(&p);
  if (!heat_run(b, ops, &p, 0, NULL, &s0) || !heat_run(b, ops, &p, steps, NULL, &s1)) {
    ok(0, "%s/%s energy balance runs", ops->backend, ops->precision);
    return;
  }
  /* each flux face: (cells on it) c_d q'' dx_d / k a step; the source dt q a cell */
  c0 = p.alpha * p.dt;
  per_step = cells / (double)p.n[0] * c0 / (dx[0] * dx[0]) * qin[0] * dx[0] / k +
             cells / (double)p.n[1] * c0 / (dx[1] * dx[1]) * qin[1] * dx[1] / k + cells * p.dt * q;
  expect = s0.sum + (double)steps * per_step;
  bound = (4.0 * steps * eps_of(ops) + cells * DBL_EPSILON) * (fabs(s1.sum) + fabs(s0.sum)) +
          4.0 * steps * eps_of(ops) * fabs(per_step) * (double)steps;
  ok(fabs(s1.sum - expect) <= bound,
     "%s/%s %d-D flux faces %g and %g, source %g: the heat gained after %ld steps is the inflow to %.3g (bound %.3g)",
     ops->backend, ops->precision, dim, qin[0], qin[1], q, steps, fabs(s1.sum - expect), bound);
}

/* Sturm count: eigenvalues of the symmetric tridiagonal (diag, off 1) below x */
static int below(const long double *diag, int n, long double x) {
  long double q = diag[0] - x;
  int i, count = q < 0;
  for (i = 1; i < n; ++i) {
    q = diag[i] - x - 1.0L / (q != 0 ? q : 1e-300L);
    count += q < 0;
  }
  return count;
}

static void robin_mode(void) {
  const int nx = 37, ny = 2, which[2] = {0, 3}; /* the slowest mode and the fourth */
  const double h[2] = {0.7, 5.0}, k = 1.3, len = 1.0;
  hd_ctx ctx;
  hd_grid g;
  hd_heat_args a;
  hd_real *t0, *t1;
  long double diag[37], v[37];
  double dx[3] = {len / nx, 0.5 / ny, 1.0};
  int d, w;
  if (hd_ctx_init(&ctx, 0) != HD_OK || !hd_grid_init(&g, 2, nx, ny, 1, 1)) bail("setup");
  t0 = (hd_real *)calloc((size_t)g.total, sizeof(hd_real));
  t1 = (hd_real *)calloc((size_t)g.total, sizeof(hd_real));
  if (!t0 || !t1) bail("out of memory");
  for (w = 0; w < 2; ++w) {
    long double lo = -4.5L, hi = 0.5L, lambda, vmax = 0, factor;
    const long steps = 400;
    double err = 0.0, tol;
    int i, j, step;
    memset(&a, 0, sizeof a);
    if (hd_heat_setup(&ctx, &a, &g, 1.0, 0.9 * hd_heat_dt_max(1.0, dx, 2), dx, 0.0) != HD_OK) bail("%s", ctx.msg);
    for (d = 0; d < HD_NFACES; ++d) a.bc[d] = hd_heat_face(HD_HEAT_ADIABATIC, 0, 0, k, dx[d / 2]);
    a.bc[HD_XLO] = hd_heat_face(HD_HEAT_CONVECTIVE, 0.0, h[0], k, dx[0]);
    a.bc[HD_XHI] = hd_heat_face(HD_HEAT_CONVECTIVE, 0.0, h[1], k, dx[0]);
    for (i = 0; i < nx; ++i) diag[i] = -2.0L;
    diag[0] += (long double)a.bc[HD_XLO].a, diag[nx - 1] += (long double)a.bc[HD_XHI].a;
    /* eigenvalue number nx - 1 - which (from the top: the slowest first) */
    while (hi - lo > 1e-18L * 4) {
      const long double mid = 0.5L * (lo + hi);
      if (below(diag, nx, mid) > nx - 1 - which[w]) hi = mid;
      else lo = mid;
    }
    lambda = 0.5L * (lo + hi);
    v[0] = 1, v[1] = lambda - diag[0];
    for (i = 1; i + 1 < nx; ++i) v[i + 1] = (lambda - diag[i]) * v[i] - v[i - 1];
    for (i = 0; i < nx; ++i) vmax = fmaxl(vmax, fabsl(v[i]));
    for (j = 0; j < ny; ++j)
      for (i = 0; i < nx; ++i) t0[hd_grid_at(&g, i + 1, j + 1, 0)] = (hd_real)(v[i] / vmax);
    for (i = 0; i < nx; ++i) v[i] = (long double)(hd_real)(v[i] / vmax);
    /* ghosts of the initial field, then the steps */
    a.t_next = t0;
    if (hd_heat_fill_ghosts(&ctx, &a) != HD_OK) bail("%s", ctx.msg);
    for (step = 0; step < steps; ++step) {
      hd_real *tmp;
      a.t = t0, a.t_next = t1;
      if (hd_heat_step(&ctx, &a) != HD_OK) bail("%s", ctx.msg);
      tmp = t0, t0 = t1, t1 = tmp;
    }
    factor = powl(1.0L + (long double)a.c[0] * lambda, (long double)steps);
    for (j = 0; j < ny; ++j)
      for (i = 0; i < nx; ++i)
        err = fmax(err, (double)fabsl((long double)t0[hd_grid_at(&g, i + 1, j + 1, 0)] - factor * v[i]));
    tol = 8.0 * steps * DBL_EPSILON;
    ok(err <= tol,
       "Robin faces h = %g, %g (k %g): discrete eigenmode %d (lambda %.6Lg) decays by (1 + c lambda)^N = %.6Lg over "
       "%ld steps, error %.3g (tolerance %.3g)",
       h[0], h[1], k, which[w], lambda, factor, steps, err, tol);
  }
  free(t0), free(t1);
  hd_ctx_destroy(&ctx);
}

int main(void) {
  heat_backend be[HD_B_COUNT];
  int nb = heat_backends_open(be), b, single, dim;
  for (b = 0; b < nb; ++b)
    for (single = 0; single <= 1; ++single) {
      const heat_ops *ops = heat_ops_get(be[b].core->id, single);
      if (!ops) continue;
      for (dim = 2; dim <= 3; ++dim) {
        steady_wall(&be[b], ops, dim);
        energy_balance(&be[b], ops, dim);
      }
    }
  robin_mode();
  heat_backends_close(be, nb);
  return done_testing();
}
