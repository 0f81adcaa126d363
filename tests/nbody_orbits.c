/* SPDX-License-Identifier: BSD-3-Clause */
/* Dynamics of the N-body module on every backend.
 *
 * Kepler.  Two bodies of mass 1/2, semi-major axis 1, eccentricity 1/2,
 * period T = 2 pi, no softening, leapfrog with dt = T/N_T for 10 periods.
 * Leapfrog is second order and symplectic: the errors in energy, period and
 * eccentricity are O((dt/tau)^2) with tau = r_p / v_p the time scale of the
 * pericentre passage (the fastest part of the orbit), and the energy error
 * oscillates without drift.  The test requires each error below
 * (dt/tau)^2, and halving dt must cut the period error by 3 to 5 (second
 * order).  The period is measured from the direction of the separation at
 * t = 10 T: a phase lag dphi means a period longer by dphi / (10 omega_a),
 * omega_a the angular speed at apocentre.
 *
 * Conservation.  Pair forces are equal and opposite up to rounding, so
 * momentum changes by at most steps dt (n + 16) eps sum_i m_i sum_j |a_ij|;
 * the same bound with |x_i| inside holds for the angular momentum of
 * central forces.  Plummer sphere: the virial ratio 2K/|W| starts and stays
 * near 1 (1024 bodies: fluctuations of a few per cent).
 *
 * 2-D periodic: on a 7 x 7 lattice every body's pull cancels (to the
 * rounding bound of nbody_forces.c); accelerations do not change when every
 * body is shifted (and wrapped) or one body is moved by a lattice vector. */
#include "nbody_common.h"

static const double pi = 3.14159265358979323846;

typedef struct kepler_result {
  double period_err, ecc_err, energy_max_first, energy_max_last;
} kepler_result;

static int kepler(test_backend *b, const nbody_ops *ops, int steps_per_period, kepler_result *res) {
  nbody_bodies bd;
  nbody_problem p;
  void *state = NULL;
  double h[18], e0 = 0.0;
  const double period = 2.0 * pi;
  int k, okay = 1;
  if (nbody_bodies_alloc(&bd, 2)) bail("out of memory");
  hd_nbody_ic_kepler(0.5, 0.5, 0.5, bd.x, bd.y, bd.z, bd.vx, bd.vy, bd.vz, bd.m);
  nb_problem(&p, &bd, 0, 0.0, period / steps_per_period);
  res->energy_max_first = res->energy_max_last = 0.0;
  okay = ops->create(&b->ctx, &p, &state) == HD_OK;
  for (k = 0; okay && k <= 10 * steps_per_period; k += steps_per_period / 50) {
    hd_nbody_diag d;
    double rel;
    if (k > 0) okay = ops->advance(&b->ctx, state, steps_per_period / 50) == HD_OK;
    okay = okay && ops->diagnostics(&b->ctx, state, &d) == HD_OK;
    if (!okay) break;
    if (k == 0) e0 = d.kinetic + d.potential;
    rel = fabs((d.kinetic + d.potential - e0) / e0);
    if (k <= steps_per_period) res->energy_max_first = fmax(res->energy_max_first, rel);
    if (k >= 9 * steps_per_period) res->energy_max_last = fmax(res->energy_max_last, rel);
  }
  okay = okay && ops->download(&b->ctx, state, h) == HD_OK;
  if (okay) {
    /* relative orbit: r = x1 - x0, v = v1 - v0, total mass 1 */
    const double rx = h[1] - h[0], ry = h[3] - h[2], vx = h[7] - h[6], vy = h[9] - h[8];
    const double r = sqrt(rx * rx + ry * ry), hz = rx * vy - ry * vx;
    const double energy = 0.5 * (vx * vx + vy * vy) - 1.0 / r;
    const double ecc = sqrt(1.0 + 2.0 * energy * hz * hz);
    const double phase = atan2(ry, rx), omega_a = hz / (r * r); /* lag: negative phase */
    res->ecc_err = fabs(ecc - 0.5);
    res->period_err = fabs(-phase / omega_a / 10.0) / period;
  } else {
    diag("%s/%s: %s", ops->backend, ops->precision, b->ctx.msg);
  }
  if (state) ops->destroy(&b->ctx, state);
  nbody_bodies_free(&bd);
  return okay;
}

static void test_kepler(test_backend *be, int nb) {
  /* tau = r_p / v_p = 0.5 / sqrt(3) */
  const double tau = 0.5 / sqrt(3.0);
  int k, single;
  for (k = 0; k < nb; ++k)
    for (single = 0; single <= 1; ++single) {
      const nbody_ops *ops = nbody_ops_get(be[k].core->id, single);
      const int n1 = 2000;
      const double dt = 2.0 * pi / n1, bound = (dt / tau) * (dt / tau);
      /* single precision adds its own round-off floor over 20000 steps */
      const double floor_r = single ? 20000 * FLT_EPSILON : 0.0;
      kepler_result r1, r2;
      if (!ops) continue;
      if (!kepler(&be[k], ops, n1, &r1) || !kepler(&be[k], ops, 2 * n1, &r2)) {
        ok(0, "%s/%s Kepler runs", ops->backend, ops->precision);
        continue;
      }
      ok(r1.period_err <= bound + floor_r && r1.ecc_err <= bound + floor_r,
         "%s/%s Kepler e = 0.5, dt = T/%d, 10 periods: period off by %.2e, eccentricity by %.2e "
         "(bound (dt/tau)^2 = %.2e)",
         ops->backend, ops->precision, n1, r1.period_err, r1.ecc_err, bound);
      ok(r1.energy_max_first <= bound + floor_r && r1.energy_max_last <= 1.5 * r1.energy_max_first + floor_r,
         "%s/%s leapfrog energy error bounded: max %.2e in the first period, %.2e in the tenth",
         ops->backend, ops->precision, r1.energy_max_first, r1.energy_max_last);
      if (!single)
        ok(r1.period_err / r2.period_err > 3.0 && r1.period_err / r2.period_err < 5.0,
           "%s/%s second order: halving dt cuts the period error by %.2f (3 to 5)", ops->backend,
           ops->precision, r1.period_err / r2.period_err);
    }
}

/* sum_i m_i sum_j |a_ij| and the same with |x_i|, in long double */
static void pull_sums(const nbody_bodies *b, double eps, double *s_p, double *s_l) {
  long double sp = 0, sl = 0;
  long i, j;
  for (i = 0; i < b->n; ++i) {
    long double s = 0;
    for (j = 0; j < b->n; ++j) {
      const long double dx = b->x[j] - b->x[i], dy = b->y[j] - b->y[i], dz = b->z[j] - b->z[i];
      const long double r2 = dx * dx + dy * dy + dz * dz + eps * eps;
      if (j != i) s += b->m[j] * sqrtl(dx * dx + dy * dy + dz * dz) / (r2 * sqrtl(r2));
    }
    sp += b->m[i] * s;
    sl += b->m[i] * s * sqrtl((long double)b->x[i] * b->x[i] + (long double)b->y[i] * b->y[i] +
                              (long double)b->z[i] * b->z[i]);
  }
  *s_p = (double)sp, *s_l = (double)sl;
}

static void test_conservation(test_backend *be, int nb) {
  nbody_bodies b;
  const long n = 256, steps = 200;
  const double eps = 0.01, dt = 1e-3;
  double sp, sl;
  int k, single, integ;
  if (nbody_bodies_alloc(&b, n)) bail("out of memory");
  hd_nbody_ic_plummer(n, 11, b.x, b.y, b.z, b.vx, b.vy, b.vz, b.m);
  pull_sums(&b, eps, &sp, &sl);
  for (k = 0; k < nb; ++k)
    for (single = 0; single <= 1; ++single)
      for (integ = NBODY_LEAPFROG; integ <= NBODY_EULER; ++integ) {
        const nbody_ops *ops = nbody_ops_get(be[k].core->id, single);
        const double e = single ? FLT_EPSILON : DBL_EPSILON;
        const double bp = steps * dt * (n + 16) * e * sp, bl = steps * dt * (n + 16) * e * sl;
        nbody_problem p;
        hd_nbody_diag d0, d1;
        double dp = 0, dl = 0;
        int c;
        if (!ops) continue;
        nb_problem(&p, &b, 0, eps, dt);
        p.integrator = integ;
        if (!nb_run(&be[k], ops, &p, 0, NULL, &d0) || !nb_run(&be[k], ops, &p, steps, NULL, &d1)) {
          ok(0, "%s/%s conservation runs", ops->backend, ops->precision);
          continue;
        }
        for (c = 0; c < 3; ++c) dp = fmax(dp, fabs(d1.p[c] - d0.p[c])), dl = fmax(dl, fabs(d1.l[c] - d0.l[c]));
        ok(dp <= bp && dl <= bl,
           "%s/%s %s, %ld Plummer bodies, %ld steps: momentum moved %.2e (bound %.2e), angular "
           "momentum %.2e (bound %.2e)",
           ops->backend, ops->precision, integ == NBODY_LEAPFROG ? "leapfrog" : "Euler", n, steps,
           dp, bp, dl, bl);
      }
  nbody_bodies_free(&b);
}

static void test_virial(test_backend *be, int nb) {
  /* physics of the initial condition: the fastest backend, double */
  test_backend *b = &be[nb - 1];
  const nbody_ops *ops = nbody_ops_get(b->core->id, 0);
  nbody_bodies bd;
  nbody_problem p;
  hd_nbody_diag d0, d1;
  if (nbody_bodies_alloc(&bd, 1024)) bail("out of memory");
  hd_nbody_ic_plummer(1024, 5, bd.x, bd.y, bd.z, bd.vx, bd.vy, bd.vz, bd.m);
  nb_problem(&p, &bd, 0, 0.01, 2e-3);
  if (nb_run(b, ops, &p, 0, NULL, &d0) && nb_run(b, ops, &p, 1000, NULL, &d1)) {
    const double q0 = -2 * d0.kinetic / d0.potential, q1 = -2 * d1.kinetic / d1.potential;
    const double e0 = d0.kinetic + d0.potential, de = fabs((d1.kinetic + d1.potential - e0) / e0);
    ok(fabs(e0 + 0.25) < 0.02, "%s: Plummer sphere of 1024 bodies in Henon units: E = %.4f (-1/4)",
       ops->backend, e0);
    ok(fabs(q0 - 1) < 0.05 && fabs(q1 - 1) < 0.1 && de < 1e-3,
       "%s: virial ratio 2K/|W| = %.3f at t = 0 and %.3f at t = 2; energy kept to %.1e",
       ops->backend, q0, q1, de);
  } else {
    ok(0, "Plummer runs");
  }
  nbody_bodies_free(&bd);
}

/* Accelerations of a periodic system (download: blocks 6..8). */
static int periodic_accel(test_backend *b, const nbody_ops *ops, const nbody_bodies *bd, double eps,
                          int variant, double *out) {
  nbody_problem p;
  nb_problem(&p, bd, 1, eps, 1e-3);
  p.variant = variant;
  return nb_run(b, ops, &p, 0, out, NULL);
}

/* Per body, in long double with minimum images: S = sum_j |a_ij| and
 * R = sum_j m_j / r_eps^3 (how much a pull changes per unit of position). */
static void periodic_sums(const nbody_bodies *b, double eps, double *S, double *R) {
  long i, j;
  for (i = 0; i < b->n; ++i) {
    long double s = 0, r = 0;
    for (j = 0; j < b->n; ++j) {
      long double dx = (long double)b->x[j] - b->x[i], dy = (long double)b->y[j] - b->y[i], d2, r2;
      if (j == i) continue;
      dx -= floorl(dx + 0.5L), dy -= floorl(dy + 0.5L);
      d2 = dx * dx + dy * dy;
      r2 = d2 + (long double)eps * eps;
      s += b->m[j] * sqrtl(d2) / (r2 * sqrtl(r2));
      r += b->m[j] / (r2 * sqrtl(r2));
    }
    S[i] = (double)s, R[i] = (double)r;
  }
}

/* Largest |a - ref| over the bound (n + 10) eps S + 6 eps R (>1 fails). */
static double worst_ratio(const double *a, const double *ref, long n, const double *S,
                          const double *R, double er, int shifted) {
  double w = 0.0;
  long i;
  int c;
  for (c = 0; c < 2; ++c)
    for (i = 0; i < n; ++i) {
      const double bound = (double)(n + 10) * er * S[i] * (shifted ? 2.0 : 1.0) + (shifted ? 6.0 * er * R[i] : 0.0);
      w = fmax(w, fabs(a[(6 + c) * n + i] - (ref ? ref[(6 + c) * n + i] : 0.0)) / bound);
    }
  return w;
}

static void test_periodic(test_backend *be, int nb) {
  const long k7 = 7, n = k7 * k7, nr = 200;
  nbody_bodies lat, rnd, sh;
  double *out = (double *)malloc((size_t)nr * 9 * sizeof(double));
  double *ref = (double *)malloc((size_t)nr * 9 * sizeof(double));
  double *S = (double *)malloc((size_t)nr * 2 * sizeof(double)), *R = S + nr;
  double *Sl = (double *)malloc((size_t)n * 2 * sizeof(double)), *Rl = Sl + n;
  long i;
  int k, single, v, e;
  if (!out || !ref || !S || !Sl || nbody_bodies_alloc(&lat, n) || nbody_bodies_alloc(&sh, nr))
    bail("out of memory");
  for (i = 0; i < n; ++i) {
    lat.x[i] = ((double)(i % k7) + 0.5) / (double)k7;
    lat.y[i] = ((double)(i / k7) + 0.5) / (double)k7;
    lat.m[i] = 1.0 / (double)n;
  }
  nb_random(&rnd, nr, 1, 21);
  for (e = 0; e <= 1; ++e) {
    const double eps = e ? 0.02 : 0.0;
    periodic_sums(&lat, eps, Sl, Rl);
    periodic_sums(&rnd, eps, S, R);
    for (k = 0; k < nb; ++k)
      for (single = 0; single <= 1; ++single)
        for (v = NBODY_VARIANT_GENERIC; v <= NBODY_VARIANT_TUNED; ++v) {
          const nbody_ops *ops = nbody_ops_get(be[k].core->id, single);
          const double er = single ? FLT_EPSILON : DBL_EPSILON;
          if (!ops) continue;
          if (periodic_accel(&be[k], ops, &lat, eps, v, out))
            ok(worst_ratio(out, NULL, n, Sl, Rl, er, 0) <= 1.0,
               "%s/%s %s, softening %g: 7 x 7 lattice, every net pull within the rounding bound "
               "(worst %.2g of it)",
               ops->backend, ops->precision, nb_variant_name(v), eps, worst_ratio(out, NULL, n, Sl, Rl, er, 0));
          if (!periodic_accel(&be[k], ops, &rnd, eps, v, ref)) continue;
          for (i = 0; i < nr; ++i) { /* every body by (0.37, 0.81), wrapped */
            sh.x[i] = rnd.x[i] + 0.37, sh.y[i] = rnd.y[i] + 0.81;
            sh.x[i] -= floor(sh.x[i]), sh.y[i] -= floor(sh.y[i]);
            sh.z[i] = sh.vx[i] = sh.vy[i] = sh.vz[i] = 0, sh.m[i] = rnd.m[i];
          }
          if (periodic_accel(&be[k], ops, &sh, eps, v, out))
            ok(worst_ratio(out, ref, nr, S, R, er, 1) <= 1.0,
               "%s/%s %s, softening %g: shifting every body leaves accelerations within the "
               "rounding bound (worst %.2g of it)", ops->backend, ops->precision,
               nb_variant_name(v), eps, worst_ratio(out, ref, nr, S, R, er, 1));
          memcpy(sh.x, rnd.x, nr * sizeof(double));
          memcpy(sh.y, rnd.y, nr * sizeof(double));
          sh.x[0] += 1.0, sh.y[0] -= 1.0; /* one body by a lattice vector */
          if (periodic_accel(&be[k], ops, &sh, eps, v, out))
            ok(worst_ratio(out, ref, nr, S, R, er, 1) <= 1.0,
               "%s/%s %s, softening %g: moving one body by a lattice vector leaves "
               "accelerations within the rounding bound (worst %.2g of it)", ops->backend,
               ops->precision, nb_variant_name(v), eps, worst_ratio(out, ref, nr, S, R, er, 1));
        }
  }
  nbody_bodies_free(&lat);
  nbody_bodies_free(&rnd);
  nbody_bodies_free(&sh);
  free(out), free(ref), free(S), free(Sl);
}

int main(void) {
  test_backend be[HD_B_COUNT];
  const int nb = test_backends_open(be);
  test_kepler(be, nb);
  test_conservation(be, nb);
  test_virial(be, nb);
  test_periodic(be, nb);
  test_backends_close(be, nb);
  return done_testing();
}
