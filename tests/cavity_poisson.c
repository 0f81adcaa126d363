/* SPDX-License-Identifier: BSD-3-Clause */
/* The Poisson solvers of hd/poisson.h on every backend and precision.
 *
 * Exact discrete solution: u* is a smooth field, zero on the boundary
 * (sin(pi x) sin(2 pi y) + 4 x (1 - x) y (1 - y) e^x), and f = A u* with the
 * solvers' own 5-point operator, so u* solves the discrete problem exactly.
 * A solve stopped at max|r| <= tol max|f| is then within
 * max|A^-1| max|r| <= max|r| / 8 of u* (max|A^-1| = 1/8 on the unit square:
 * w = x (1 - x)/2 solves A w = 1 exactly), plus the rounding of u* itself.
 *
 * Multigrid: the residual falls by a factor per V(2,2) cycle that does not
 * grow with the grid (measured over cycles 2-6 at n = 32, 64, 128): each
 * factor <= 0.15 and the largest within 1.5x the smallest.  Sizes that are
 * not powers of two work (96 = 3 x 32 with multigrid, 100 and 33 with SOR);
 * multigrid refuses n = 130, whose coarsest grid would be 65.
 *
 * FFT (cuFFT on CUDA, FFTW3 on CPUs where built): any n (64, 100, 130 = 2 x 5 x 13, odd 99),
 * one direct solve in double precision (on CUDA at n = 2048 and 4096 too,
 * to the default 1e-8 and the bench's 1e-7); with boundary values u* + g, g =
 * 1 + x + 2y (A g = 0 inside), the boundary enters through the residual. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "backends.h"
#include "cavity/cavity_ops.h"

static double exact(double x, double y) {
  const double pi = 3.14159265358979323846;
  return sin(pi * x) * sin(2 * pi * y) + 4 * x * (1 - x) * y * (1 - y) * exp(x);
}

/* f = A u* on the interior; u* everywhere (plus g = 1 + x + 2y with lift). */
static void manufacture(long n, double *us, double *f, int lift) {
  const long sy = n + 1;
  const double h = 1.0 / (double)n;
  long i, j;
  for (j = 0; j <= n; ++j)
    for (i = 0; i <= n; ++i)
      us[i + j * sy] = ((i == 0 || j == 0 || i == n || j == n) ? 0.0 : exact(i * h, j * h)) +
                       (lift ? 1.0 + i * h + 2.0 * j * h : 0.0);
  memset(f, 0, (size_t)(sy * sy) * sizeof *f);
  for (j = 1; j < n; ++j)
    for (i = 1; i < n; ++i) {
      const long o = i + j * sy;
      f[o] = (4 * us[o] - us[o + 1] - us[o - 1] - us[o + sy] - us[o - sy]) / (h * h);
    }
}

static double fmax_abs(const double *f, long count) {
  double m = 0.0;
  long k;
  for (k = 0; k < count; ++k) m = fmax(m, fabs(f[k]));
  return m;
}

/* Solve from zero inside (u* on the boundary); 1 when the result is within the bound of u*. */
static int accuracy(test_backend *b, const cavity_ops *ops, long n, int solver, double tol, int lift) {
  const long count = (n + 1) * (n + 1);
  double *us = (double *)malloc((size_t)count * sizeof(double)), *f = (double *)malloc((size_t)count * sizeof(double));
  double *u = (double *)calloc((size_t)count, sizeof(double)), err = 0.0, bound, secs;
  const double eps = ops->real_size == 4 ? FLT_EPSILON : DBL_EPSILON;
  hd_pois_opts o;
  hd_pois_result r;
  int good;
  long k;
  static const char *name[3] = {"SOR", "multigrid", "FFT"}, *unit[3] = {"sweeps", "cycles", "solves"};
  if (!us || !f || !u) bail("out of memory");
  manufacture(n, us, f, lift);
  for (k = 0; k < count; ++k)
    if (k % (n + 1) == 0 || k % (n + 1) == n || k <= n || k >= count - n - 1) u[k] = us[k];
  memset(&o, 0, sizeof o);
  o.tol = tol, o.max_iter = solver == CAVITY_SOR ? 100 * n : 100, o.check_every = 10;
  good = ops->poisson(&b->ctx, n, 1.0 / n, solver, &o, f, u, &r, &secs) == HD_OK;
  for (k = 0; k < count; ++k) err = fmax(err, fabs(u[k] - us[k]));
  /* the rounding of u* in the working precision, amplified by A^-1 A */
  bound = 1.01 * tol * fmax_abs(f, count) / 8.0 + 8.0 * eps * fmax_abs(us, count);
  ok(good && r.residual <= tol && err <= bound && (solver != CAVITY_FFT || ops->real_size == 4 || r.iterations == 1),
     "%s/%s %s, n = %ld%s: residual %.2e of max|f| after %ld %s; max error %.2e (bound %.2e)", ops->backend,
     ops->precision, name[solver], n, lift ? ", boundary values 1 + x + 2y" : "", r.residual, r.iterations,
     unit[solver], err, bound);
  free(us), free(f), free(u);
  return good;
}

/* Residual reduction factor per V-cycle: geometric mean over cycles 2-6. */
static double mg_factor(test_backend *b, const cavity_ops *ops, long n) {
  const long count = (n + 1) * (n + 1);
  double *us = (double *)malloc((size_t)count * sizeof(double)), *f = (double *)malloc((size_t)count * sizeof(double));
  double *u = (double *)calloc((size_t)count, sizeof(double)), r1 = 0.0, r6 = 0.0, secs;
  hd_pois_opts o;
  hd_pois_result r;
  hd_status s;
  if (!us || !f || !u) bail("out of memory");
  manufacture(n, us, f, 0);
  memset(&o, 0, sizeof o);
  o.tol = 0.0, o.max_iter = 1;
  s = ops->poisson(&b->ctx, n, 1.0 / n, CAVITY_MG, &o, f, u, &r, &secs); /* one cycle from zero */
  r1 = r.residual;
  o.max_iter = 5;
  if (s == HD_OK || s == HD_ERR_NOCONV) s = ops->poisson(&b->ctx, n, 1.0 / n, CAVITY_MG, &o, f, u, &r, &secs);
  r6 = r.residual;
  free(us), free(f), free(u);
  if (s != HD_ERR_NOCONV) return -1.0;
  return pow(r6 / r1, 1.0 / 5.0);
}

int main(void) {
  test_backend be[HD_B_COUNT];
  const int nb = test_backends_open(be);
  int k, single;
  for (k = 0; k < nb; ++k)
    for (single = 0; single <= 1; ++single) {
      const cavity_ops *ops = cavity_ops_get(be[k].core->id, single);
      /* single precision cannot take the residual much below 0.4 eps n^2 (2e-4 at n = 64) */
      const double tol = single ? 1e-3 : 1e-10;
      static const long sizes[3] = {32, 64, 128};
      double fac[3], lo = 1e9, hi = 0;
      int i;
      if (!ops) continue;
      accuracy(&be[k], ops, 64, CAVITY_SOR, tol, 0);
      accuracy(&be[k], ops, single ? 33 : 100, CAVITY_SOR, tol, 0);
      accuracy(&be[k], ops, 64, CAVITY_MG, tol, 0);
      accuracy(&be[k], ops, 96, CAVITY_MG, tol, 1);
      if (TEST_HAVE_FFTW || be[k].core->id == HD_B_CUDA) {
        accuracy(&be[k], ops, 64, CAVITY_FFT, tol, 0);
        accuracy(&be[k], ops, 100, CAVITY_FFT, tol, 1);
        accuracy(&be[k], ops, 130, CAVITY_FFT, single ? 3e-3 : tol, 0);
        accuracy(&be[k], ops, 99, CAVITY_FFT, tol, 1);
        /* one solve at the default tolerance on a large grid, where the transforms' rounding grows */
        if (be[k].core->id == HD_B_CUDA && !single) {
          accuracy(&be[k], ops, 2048, CAVITY_FFT, 1e-8, 0);
          accuracy(&be[k], ops, 4096, CAVITY_FFT, 1e-7, 0);
        }
      }
      if (single) continue;
      for (i = 0; i < 3; ++i) {
        fac[i] = mg_factor(&be[k], ops, sizes[i]);
        lo = fmin(lo, fac[i]), hi = fmax(hi, fac[i]);
      }
      ok(lo > 0 && hi <= 0.15 && hi <= 1.5 * lo,
         "%s/%s multigrid V(2,2): residual factor per cycle %.3f, %.3f, %.3f at n = 32, 64, 128 (need <= 0.15, "
         "spread <= 1.5x)", ops->backend, ops->precision, fac[0], fac[1], fac[2]);
    }
  {
    /* n = 130 coarsens to 65 only: multigrid is refused with a message */
    hd_pois_mg m;
    const int refused = hd_pois_mg_create(&be[0].ctx, &m, 130, 1.0 / 130) == HD_ERR_ARG;
    ok(refused && strstr(be[0].ctx.msg, "n = 130 coarsens only to 65") != NULL,
       "multigrid on n = 130 is refused: %s", be[0].ctx.msg);
  }
  test_backends_close(be, nb);
  return done_testing();
}
