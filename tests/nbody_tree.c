/* SPDX-License-Identifier: BSD-3-Clause */
/* The Barnes-Hut tree (hd/nbody_tree.h) against the direct sum.
 *   - theta = 0 opens every cell: the direct sum in tree order, to 1e-13;
 *   - Plummer spheres of 2000 and 8000 bodies: the relative RMS error of
 *     the accelerations, sqrt(sum |a_tree - a_direct|^2 / sum |a_direct|^2),
 *     at most 1e-3 at theta = 0.5 and falling as theta falls (0.7, 0.5,
 *     0.3);
 *   - bodies on one point (keys all equal: one deep leaf past the leaf
 *     size) and a single body: the direct sum;
 *   - the tree's potential energy within 1e-4 of the direct one at 0.5;
 *   - 1000 leapfrog steps of a 1000-body Plummer sphere: the energy error
 *     below 1e-4 at theta = 0.5 and smaller at 0.3 (the direct method's is
 *     printed beside it: the tree's forces are not exactly conservative);
 *   - OpenMP equals serial bit for bit (1, 2, 3 threads); CUDA within 64
 *     eps of the accelerations' RMS (the same tree from the same keys; nvcc
 *     contracts multiply-adds in the moments and the walk). */
#include "nbody_common.h"

static double rms_rel(const double *a, const double *ref, long n) {
  double num = 0.0, den = 0.0;
  long i;
  for (i = 0; i < 3 * n; ++i) num += (a[6 * n + i] - ref[6 * n + i]) * (a[6 * n + i] - ref[6 * n + i]),
                              den += ref[6 * n + i] * ref[6 * n + i];
  return sqrt(num / den);
}

/* Bodies and accelerations (no step) of method/theta on a backend. */
static int forces(test_backend *b, const nbody_ops *ops, const nbody_bodies *bd, int method, double theta, double *out,
                  hd_nbody_diag *dg) {
  nbody_problem p;
  nb_problem(&p, bd, 0, 0.01, 1e-3);
  p.method = method, p.theta = theta, p.leaf = 16;
  return nb_run(b, ops, &p, 0, out, dg);
}

int main(void) {
  test_backend be[HD_B_COUNT];
  const int nb = test_backends_open(be);
  const nbody_ops *ser = nbody_ops_get(HD_B_SERIAL, 0);
  static const long sizes[2] = {2000, 8000};
  int s, k, t;
  for (s = 0; s < 2; ++s) {
    const long n = sizes[s];
    nbody_bodies b;
    double *ref = (double *)malloc((size_t)n * 9 * sizeof(double)), *out = (double *)malloc((size_t)n * 9 * sizeof(double));
    double err[3];
    hd_nbody_diag dd, dt;
    static const double thetas[3] = {0.7, 0.5, 0.3};
    if (!ref || !out || nbody_bodies_alloc(&b, n)) bail("out of memory");
    hd_nbody_ic_plummer(n, 5 + s, b.x, b.y, b.z, b.vx, b.vy, b.vz, b.m);
    if (!forces(&be[0], ser, &b, NBODY_DIRECT, 0, ref, &dd)) bail("direct forces failed");
    if (s == 0) {
      if (!forces(&be[0], ser, &b, NBODY_TREE, 0.0, out, NULL)) bail("tree forces failed");
      ok(rms_rel(out, ref, n) < 1e-13, "theta = 0 (every cell opened): the direct sum to %.2e (bound 1e-13)", rms_rel(out, ref, n));
    }
    for (k = 0; k < 3; ++k) {
      if (!forces(&be[0], ser, &b, NBODY_TREE, thetas[k], out, k == 1 ? &dt : NULL)) bail("tree forces failed");
      err[k] = rms_rel(out, ref, n);
    }
    ok(err[1] <= 1e-3 && err[2] < err[1] && err[1] < err[0],
       "Plummer N = %ld: relative RMS force error %.2e / %.2e / %.2e at theta = 0.7 / 0.5 / 0.3 (at most 1e-3 at 0.5, "
       "falling with theta)", n, err[0], err[1], err[2]);
    ok(fabs(dt.potential / dd.potential - 1) < 1e-4, "Plummer N = %ld: the tree's potential energy within %.2e of the direct "
       "sum's at theta = 0.5 (bound 1e-4)", n, fabs(dt.potential / dd.potential - 1));
    /* the other backends, the same tree */
    for (t = 0; t < 2; ++t) {
      const int single = t;
      const nbody_ops *r = nbody_ops_get(HD_B_SERIAL, single);
      if (!forces(&be[0], r, &b, NBODY_TREE, 0.5, ref, NULL)) bail("serial tree failed");
      for (k = 1; k < nb; ++k) {
        const nbody_ops *ops = nbody_ops_get(be[k].core->id, single);
        if (!ops) continue;
        if (be[k].core->id == HD_B_OPENMP) {
          int th;
          for (th = 1; th <= 3; ++th) {
            be[k].ctx.threads = th;
            ok(forces(&be[k], ops, &b, NBODY_TREE, 0.5, out, NULL) && !memcmp(out, ref, (size_t)n * 9 * sizeof(double)),
               "openmp/%s tree, N = %ld, %d thread%s: bodies and accelerations bit-identical to serial", ops->precision, n, th,
               th > 1 ? "s" : "");
          }
          be[k].ctx.threads = 0;
        } else {
          const double eps = single ? FLT_EPSILON : DBL_EPSILON;
          const double d = forces(&be[k], ops, &b, NBODY_TREE, 0.5, out, NULL) ? rms_rel(out, ref, n) : 1.0;
          ok(d <= 64 * eps, "%s/%s tree, N = %ld: accelerations within %.2e of serial, RMS (bound 64 eps = %.2e)", ops->backend,
             ops->precision, n, d, 64 * eps);
        }
      }
    }
    nbody_bodies_free(&b);
    free(ref), free(out);
  }
  { /* 40 bodies on one point among 60 others, and one body alone */
    nbody_bodies b;
    double *ref = (double *)malloc(100 * 9 * sizeof(double)), *out = (double *)malloc(100 * 9 * sizeof(double));
    double d[2];
    if (!ref || !out || nbody_bodies_alloc(&b, 100)) bail("out of memory");
    hd_nbody_ic_plummer(100, 3, b.x, b.y, b.z, b.vx, b.vy, b.vz, b.m);
    for (k = 60; k < 100; ++k) b.x[k] = b.x[0], b.y[k] = b.y[0], b.z[k] = b.z[0];
    if (!forces(&be[0], ser, &b, NBODY_DIRECT, 0, ref, NULL) || !forces(&be[0], ser, &b, NBODY_TREE, 0.5, out, NULL))
      bail("coincident bodies failed");
    d[0] = rms_rel(out, ref, 100);
    b.n = 1;
    if (!forces(&be[0], ser, &b, NBODY_TREE, 0.5, out, NULL)) bail("one body failed");
    d[1] = fabs(out[6]) + fabs(out[7]) + fabs(out[8]);
    b.n = 100;
    ok(d[0] < 1e-3 && d[1] == 0, "41 bodies on one point among 59 others: the tree within %.2e of the direct sum; one body "
       "alone: acceleration %.1e", d[0], d[1]);
    nbody_bodies_free(&b);
    free(ref), free(out);
  }
  { /* energy over 1000 leapfrog steps: direct, tree at 0.5 and 0.3 */
    const long n = 1000, steps = 1000;
    static const double thetas[3] = {0, 0.5, 0.3};
    nbody_bodies b;
    hd_nbody_diag d0, d1;
    double drift[3];
    int m;
    if (nbody_bodies_alloc(&b, n)) bail("out of memory");
    hd_nbody_ic_plummer(n, 11, b.x, b.y, b.z, b.vx, b.vy, b.vz, b.m);
    for (m = 0; m < 3; ++m) {
      nbody_problem p;
      nb_problem(&p, &b, 0, 0.01, 1e-3);
      p.method = m ? NBODY_TREE : NBODY_DIRECT, p.theta = thetas[m], p.leaf = 16;
      if (!nb_run(&be[0], ser, &p, 0, NULL, &d0) || !nb_run(&be[0], ser, &p, steps, NULL, &d1)) bail("energy run failed");
      drift[m] = fabs((d1.kinetic + d1.potential) / (d0.kinetic + d0.potential) - 1);
    }
    ok(drift[1] < 1e-4 && drift[2] < drift[1], "1000 leapfrog steps of a 1000-body Plummer sphere: energy error %.2e with the "
       "tree at theta 0.5 (bound 1e-4), %.2e at 0.3, %.2e direct: the tree's force error, falling with theta", drift[1],
       drift[2], drift[0]);
    nbody_bodies_free(&b);
  }
  test_backends_close(be, nb);
  return done_testing();
}
