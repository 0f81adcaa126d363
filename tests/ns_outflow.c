/* SPDX-License-Identifier: BSD-3-Clause */
/* Degawa's vortex (Gamma = -0.0005, rc = 0.15, Re = 10^4, in units of
 * c_inf and the side l) leaves a unit box through characteristic faces
 * (fastest CPU backend, double).
 *
 * Its pressure dip is dp0 = Gamma^2 / (2 rc^2) = 5.6e-6, second order in
 * Gamma, while a face that mishandles the vortex's velocity (first order,
 * still 2 % of its peak at the faces) makes pressure waves of order
 * rho c u': a few dp0.  So the measures are in units of dp0, after the
 * vortex has gone (centre 3 rc past the outflow face):
 *   residual    max |p - p_inf| in the box
 *   reflection  max |p - p_big| against the same run in a box 5 (3 at
 *               Mach 1.1) times wider and taller around it, whose faces
 *               are too far to have answered yet
 *   velocity    max |(u, v) - (u, v)_big| in the box, in units of the
 *               vortex's peak speed
 * Thresholds (measured values in doc/validation.md), with about 2x margin:
 *   Mach 0.5, 48^2, t = 2.5: characteristic faces reflection <= 0.15 dp0;
 *     the same run with a zero-gradient outflow face at least 5x worse
 *   Mach 0.1, 32^2, t = 10: residual <= 0.025 dp0; zero-gradient at least
 *     1.5x worse (at low Mach the vortex leaves slowly and reflects less)
 *   Mach 1.1, 48^2, t = 2 (Degawa's case): reflection <= 0.55 dp0 (all
 *     waves leave through the supersonic outflow; what remains comes from
 *     the side faces, which the vortex's far field crosses at Mach 1.1),
 *     at most half the reflection of the earlier faces (sides relaxed as the
 *     others with the free stream's Mach number, the same beta; no relaxed
 *     entropy and vorticity waves at the inflow), and a velocity difference
 *     below 0.7 % of the peak speed (the target of issue 19; measured 0.62 %)
 *     and at most 0.6 of theirs (1.60 %); beside it the velocity difference
 *     of a big box whose vortex is clipped to the small box: what the far
 *     field beyond the small box alone accounts for (0.58 %). */
#include "ns_common.h"

static double dp0(void) { return 0.0005 * 0.0005 / (2 * 0.15 * 0.15); }

/* earlier: the faces as before issue 19 (the sides with sigma and beta of
 * the other faces and the free stream's Mach number; sigma_in unused) */
static ns_problem vortex(long n, double len, double mach, int outflow, double t_end, long *steps, int earlier) {
  ns_problem p = ns_square(n, len, HD_NS_NONREFLECTING, mach, 0.0, mach / 1e4);
  p.bc[HD_NS_XHI] = outflow;
  if (earlier) p.sigma_side = -1, p.beta_side = -1;
  p.ic.kind = HD_NS_IC_VORTEX, p.ic.strength = -0.0005, p.ic.rc = 0.15;
  *steps = (long)ceil(t_end / (1.5 * len / n / (mach + 2.0)));
  p.dt = t_end / (double)*steps;
  return p;
}

/* max |p - p_inf| over the box, and max |p - p_big| when big is given
 * (its nodes, `nb` a side, centred on the box). */
static void measure(const double *p, long n, const double *big, long nbig, double *res, double *refl) {
  const long off = (nbig - 1) / 2 - n / 2;
  long i, j;
  *res = 0, *refl = 0;
  for (j = 0; j <= n; ++j)
    for (i = 0; i <= n; ++i) {
      const double v = p[i + j * (n + 1)];
      *res = fmax(*res, fabs(v - 1 / 1.4));
      if (big) *refl = fmax(*refl, fabs(v - big[(i + off) + (j + off) * nbig]));
    }
}

/* p - p_inf, u, v of a run: out[0..2] */
static int run_p(test_backend *b, const ns_ops *ops, const ns_problem *p, long steps, double *out[3]) {
  int k;
  for (k = 0; k < 3; ++k) out[k] = ns_alloc(p);
  return ns_run(b, ops, p, steps, NULL, out[1], out[2], out[0], NULL);
}

/* max |(u, v)_f - (u, v)_g| over the small box's (n + 1)^2 nodes at the
 * centre of both (nf, ng nodes a side), in units of the peak speed */
static double velocity(double *const f[3], long nf, double *const g[3], long ng, long n) {
  const long of = (nf - 1) / 2 - n / 2, og = (ng - 1) / 2 - n / 2;
  double d = 0;
  long i, j;
  for (j = 0; j <= n; ++j)
    for (i = 0; i <= n; ++i) {
      const long a = (i + of) + (j + of) * nf, c = (i + og) + (j + og) * ng;
      d = fmax(d, hypot(f[1][a] - g[1][c], f[2][a] - g[2][c]));
    }
  return d / (0.0005 / 0.15 * exp(-0.5));
}

/* Two runs side by side (same step; ps the small box or one as big as
 * pb), the velocity difference in the small box's window taken every
 * `every` steps: its largest value in *vmax; both runs' final p - p_inf,
 * u, v in f and big. */
static int lockstep(test_backend *b, const ns_ops *ops, const ns_problem *ps, const ns_problem *pb, long n,
                    long steps, long every, double *vmax, double *f[3], double *big[3]) {
  void *st[2] = {NULL, NULL};
  const long ns = ps->n[0] + 1, nbig = pb->n[0] + 1;
  long done = 0;
  int good, k;
  for (k = 0; k < 3; ++k) f[k] = ns_alloc(ps), big[k] = ns_alloc(pb);
  *vmax = 0;
  good = ops->create(&b->ctx, ps, &st[0]) == HD_OK && ops->create(&b->ctx, pb, &st[1]) == HD_OK;
  while (good && done < steps) {
    const long m = steps - done < every ? steps - done : every;
    good = ops->advance(&b->ctx, st[0], m) == HD_OK && ops->advance(&b->ctx, st[1], m) == HD_OK &&
           ops->fields(&b->ctx, st[0], NULL, f[1], f[2], f[0], NULL) == HD_OK &&
           ops->fields(&b->ctx, st[1], NULL, big[1], big[2], big[0], NULL) == HD_OK;
    done += m;
    if (good) *vmax = fmax(*vmax, velocity(f, ns, big, nbig, n));
  }
  if (!good) diag("%s/%s: %s", ops->backend, ops->precision, b->ctx.msg);
  for (k = 0; k < 2; ++k)
    if (st[k]) ops->destroy(&b->ctx, st[k]);
  return good;
}

static void release(double *f[3]) {
  int k;
  for (k = 0; k < 3; ++k) free(f[k]), f[k] = NULL;
}

static void leave(test_backend *b, const ns_ops *ops, double mach, long n, double t_end, int big_factor,
                  double max_measure, double worse) {
  double *pb[3] = {NULL, NULL, NULL}, *pc[3] = {NULL, NULL, NULL}, *pz[3] = {NULL, NULL, NULL};
  double *po[3] = {NULL, NULL, NULL}, rc, fc, rz, fz, ro, fo;
  long steps, nbig = n * big_factor + 1;
  int good = 1;
  if (big_factor) {
    const ns_problem q = vortex(n * big_factor, big_factor, mach, HD_NS_NONREFLECTING, t_end, &steps, 0);
    good = run_p(b, ops, &q, steps, pb);
  }
  {
    const ns_problem q =
        vortex(n, 1.0, mach, mach > 1 ? HD_NS_SUPERSONIC_OUT : HD_NS_NONREFLECTING, t_end, &steps, 0);
    good = good && run_p(b, ops, &q, steps, pc);
  }
  {
    const ns_problem q = vortex(n, 1.0, mach, HD_NS_ZERO_GRADIENT, t_end, &steps, 0);
    good = good && run_p(b, ops, &q, steps, pz);
  }
  if (good) {
    measure(pc[0], n, pb[0], nbig, &rc, &fc);
    measure(pz[0], n, pb[0], nbig, &rz, &fz);
    rc /= dp0(), fc /= dp0(), rz /= dp0(), fz /= dp0();
  }
  if (big_factor && worse > 0)
    ok(good && fc <= max_measure && fz >= worse * fc,
       "Mach %.1f, %ld^2, t = %g: reflection %.3f dp0 with characteristic faces (<= %.2f), %.3f with a zero-gradient "
       "outflow (%.1fx; need >= %.0fx); residual %.3f / %.3f dp0",
       mach, n, t_end, good ? fc : -1, max_measure, good ? fz : -1, good ? fz / fc : -1, worse, good ? rc : -1,
       good ? rz : -1);
  else if (big_factor) { /* against the earlier side faces, the velocity over the whole run */
    const ns_problem qb = vortex(n * big_factor, big_factor, mach, HD_NS_NONREFLECTING, t_end, &steps, 0);
    const ns_problem qc = vortex(n, 1.0, mach, HD_NS_SUPERSONIC_OUT, t_end, &steps, 0);
    const ns_problem qo = vortex(n, 1.0, mach, HD_NS_SUPERSONIC_OUT, t_end, &steps, 1);
    ns_problem qt = qb; /* the big box without the far field beyond the small one */
    double *pb2[3] = {NULL, NULL, NULL}, *pt[3] = {NULL, NULL, NULL}, vc = -1, vo = -1, vt = -1;
    qt.ic.clip = 0.5 + 0.25 / n;
    good = good && lockstep(b, ops, &qo, &qb, n, steps, 50, &vo, po, pb2);
    release(pc), release(pb2);
    good = good && lockstep(b, ops, &qc, &qb, n, steps, 50, &vc, pc, pb2);
    release(pb2);
    good = good && lockstep(b, ops, &qt, &qb, n, steps, 50, &vt, pt, pb2);
    release(pb2), release(pt);
    if (good) {
      measure(po[0], n, pb[0], nbig, &ro, &fo);
      ro /= dp0(), fo /= dp0();
    }
    ok(good && fc <= max_measure && fo >= 2 * fc && vc <= 0.007 && vc <= 0.6 * vo,
       "Mach %.1f, %ld^2, t = %g: reflection %.3f dp0 (<= %.2f; the earlier side faces %.3f, need >= 2x), residual "
       "%.3f dp0; velocity difference at most %.2f %% of the peak speed over the run (<= 0.70; earlier %.2f %%, need <= 0.6x; "
       "the big box without the far field beyond the small one: %.2f %%); zero-gradient outflow %.3f / %.3f",
       mach, n, t_end, good ? fc : -1, max_measure, good ? fo : -1, good ? rc : -1, 100 * vc, 100 * vo, 100 * vt,
       good ? fz : -1, good ? rz : -1);
  } else
    ok(good && rc <= max_measure && rz >= worse * rc,
       "Mach %.1f, %ld^2, t = %g: residual %.3f dp0 with characteristic faces (<= %.2f), %.3f with a zero-gradient "
       "outflow (%.1fx; need >= %.1fx)",
       mach, n, t_end, good ? rc : -1, max_measure, good ? rz : -1, good ? rz / rc : -1, worse);
  release(pb), release(pc), release(pz), release(po);
}

int main(void) {
  test_backend be[HD_B_COUNT];
  const int nb = test_backends_open(be);
  test_backend *fast = &be[0];
  const ns_ops *ops;
  int k;
  skip_if_slow_unwanted();
  for (k = 0; k < nb; ++k)
    if (be[k].core->id != HD_B_CUDA) fast = &be[k];
  ops = ns_ops_get(fast->core->id, 0);
  leave(fast, ops, 0.5, 48, 2.5, 5, 0.15, 5.0);
  leave(fast, ops, 0.1, 32, 10.0, 0, 0.025, 1.5);
  leave(fast, ops, 1.1, 48, 2.0, 3, 0.55, 0.0);
  test_backends_close(be, nb);
  return done_testing();
}
