/* SPDX-License-Identifier: BSD-3-Clause */
/* Accelerations of every backend, precision and kernel (generic loop and
 * tuned kernel) against a long-double all-pairs sum over the same bodies
 * (rounded to the working precision first), 3-D softened, 3-D unsoftened,
 * 2-D periodic with and without softening.
 *
 * Bound.  Each pair term m_j d / r^3 is computed with about 10 rounding
 * errors (the reciprocal square root is within 2 ulps on the GPU, its cube
 * and the products add a few more), so it is within 10 eps of exact; the sum
 * of n terms in any order adds at most n eps times the sum of their
 * magnitudes.  Per body: |a - a_ref| <= (n + 10) eps S, S = sum_j |a_ij|.
 * A wrong sign, a missing pair or a wrong power of r is off by far more. */
#include "nbody_common.h"

typedef struct ref_acc {
  double a[3], s; /* long-double sum rounded, and the sum of magnitudes */
} ref_acc;

static double round_to(double v, int single) { return single ? (double)(float)v : v; }

static void reference(const nbody_bodies *b, int periodic, double eps, int single, ref_acc *out) {
  long i, j;
  for (i = 0; i < b->n; ++i) {
    long double ax = 0, ay = 0, az = 0, s = 0;
    for (j = 0; j < b->n; ++j) {
      long double d[3], r2, inv3, m = round_to(b->m[j], single);
      int c;
      d[0] = (long double)round_to(b->x[j], single) - round_to(b->x[i], single);
      d[1] = (long double)round_to(b->y[j], single) - round_to(b->y[i], single);
      d[2] = periodic ? 0 : (long double)round_to(b->z[j], single) - round_to(b->z[i], single);
      if (periodic)
        for (c = 0; c < 2; ++c) d[c] -= floorl(d[c] + 0.5L);
      r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + (long double)round_to(eps * eps, single);
      if (r2 == 0) continue;
      inv3 = 1.0L / (r2 * sqrtl(r2));
      ax += m * d[0] * inv3, ay += m * d[1] * inv3, az += m * d[2] * inv3;
      s += m * sqrtl(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) * inv3;
    }
    out[i].a[0] = (double)ax, out[i].a[1] = (double)ay, out[i].a[2] = (double)az;
    out[i].s = (double)s;
  }
}

static void check(test_backend *be, int nb, long n, int periodic, double eps) {
  nbody_bodies b;
  ref_acc *ref[2];
  double *out = (double *)malloc((size_t)n * 9 * sizeof(double));
  int single, v, k;
  nb_random(&b, n, periodic, 7 + (uint64_t)periodic);
  for (single = 0; single <= 1; ++single) {
    ref[single] = (ref_acc *)malloc((size_t)n * sizeof(ref_acc));
    if (!out || !ref[single]) bail("out of memory");
    reference(&b, periodic, eps, single, ref[single]);
  }
  for (k = 0; k < nb; ++k)
    for (single = 0; single <= 1; ++single)
      for (v = NBODY_VARIANT_GENERIC; v <= NBODY_VARIANT_TUNED; ++v) {
        const nbody_ops *ops = nbody_ops_get(be[k].core->id, single);
        const double eps_r = single ? FLT_EPSILON : DBL_EPSILON;
        nbody_problem p;
        double worst = 0.0;
        long i, bad = 0;
        if (!ops) continue;
        nb_problem(&p, &b, periodic, eps, 1e-3);
        p.variant = v;
        if (!nb_run(&be[k], ops, &p, 0, out, NULL)) {
          ok(0, "%s/%s %s run", ops->backend, ops->precision, nb_variant_name(v));
          continue;
        }
        for (i = 0; i < n; ++i) {
          int c;
          for (c = 0; c < 3; ++c) {
            const double err = fabs(out[(6 + c) * n + i] - ref[single][i].a[c]);
            const double bound = (double)(n + 10) * eps_r * ref[single][i].s;
            if (err > bound) ++bad;
            if (ref[single][i].s > 0) worst = fmax(worst, err / ((double)(n + 10) * eps_r * ref[single][i].s));
          }
        }
        ok(bad == 0,
           "%s/%s %s, %ld bodies, %s, softening %g: accelerations within (n+10) eps S of long "
           "double (worst %.3g of the bound)",
           ops->backend, ops->precision, nb_variant_name(v), n,
           periodic ? "2-D periodic" : "3-D", eps, worst);
      }
  free(ref[0]);
  free(ref[1]);
  free(out);
  nbody_bodies_free(&b);
}

/* The header's pair function itself (this unit: double, host) on random
 * pairs over twelve decades of distance: relative error of the magnitude. */
static void pair_function(void) {
  int k, bad = 0;
  double worst = 0.0;
  for (k = 0; k < 20000; ++k) {
    const double scale = pow(10.0, 12.0 * hd_rand_unit(3, 0, (uint64_t)k) - 6.0);
    double d[3], ax = 0, ay = 0, az = 0, m = 0.5 + hd_rand_unit(3, 4, (uint64_t)k), eps2 = 0.0;
    long double r2, ref;
    int c;
    for (c = 0; c < 3; ++c) d[c] = scale * (2.0 * hd_rand_unit(3, 1 + c, (uint64_t)k) - 1.0);
    if (k % 2) eps2 = scale * scale * hd_rand_unit(3, 5, (uint64_t)k);
    hd_nbody_interaction(0.0, 0.0, 0.0, d[0], d[1], d[2], m, eps2, &ax, &ay, &az);
    r2 = (long double)d[0] * d[0] + (long double)d[1] * d[1] + (long double)d[2] * d[2];
    ref = m * sqrtl(r2) / powl(r2 + eps2, 1.5L);
    {
      const double got = sqrt(ax * ax + ay * ay + az * az), rel = fabs(got - (double)ref) / (double)ref;
      worst = fmax(worst, rel);
      if (rel > 10 * DBL_EPSILON) ++bad;
    }
  }
  ok(bad == 0, "hd_nbody_interaction (double) on 20000 random pairs, |d| from 1e-6 to 1e6: "
               "relative error of |a| below 10 eps (worst %.2g eps)", worst / DBL_EPSILON);
}

int main(void) {
  test_backend be[HD_B_COUNT];
  const int nb = test_backends_open(be);
  pair_function();
  check(be, nb, 300, 0, 0.01);
  check(be, nb, 300, 0, 0.0);
  check(be, nb, 300, 1, 0.02);
  check(be, nb, 300, 1, 0.0);
  check(be, nb, 1100, 0, 0.01); /* several tiles, padded last tile, partial CPU block */
  test_backends_close(be, nb);
  return done_testing();
}
