/* SPDX-License-Identifier: BSD-3-Clause */
/* Cross-backend equivalence of the N-body module.
 *   OpenMP vs serial: the same code, bodies in the same order, each body's
 *   sum over j in order: bodies after 15 steps are bit-identical at 1, 2 and
 *   3 threads, for both kernels and both integrators.
 *   CUDA vs serial: accelerations within twice the rounding bound of
 *   nbody_forces.c ((n + 10) eps S each); after k steps positions differ by
 *   at most k^2 dt^2 times that plus 4 k eps |x| of rounding in the drifts
 *   (15 steps of a smooth system: no chaotic growth yet). */
#include "nbody_common.h"

static void compare(test_backend *be, int nb, int periodic, int integrator) {
  const long n = 700, steps = 15;
  const double eps = 0.02, dt = 1e-3;
  nbody_bodies b;
  double *ref = (double *)malloc((size_t)n * 9 * sizeof(double));
  double *out = (double *)malloc((size_t)n * 9 * sizeof(double));
  int single, v, k, t;
  if (!ref || !out) bail("out of memory");
  if (periodic) {
    nb_random(&b, n, 1, 3);
  } else {
    if (nbody_bodies_alloc(&b, n)) bail("out of memory");
    hd_nbody_ic_plummer(n, 3, b.x, b.y, b.z, b.vx, b.vy, b.vz, b.m);
  }
  for (single = 0; single <= 1; ++single)
    for (v = NBODY_VARIANT_GENERIC; v <= NBODY_VARIANT_TUNED; ++v) {
      const nbody_ops *ref_ops = nbody_ops_get(HD_B_SERIAL, single);
      const double er = single ? FLT_EPSILON : DBL_EPSILON;
      nbody_problem p;
      double amax = 0.0, xmax = 0.0;
      long i;
      nb_problem(&p, &b, periodic, eps, dt);
      p.variant = v;
      p.integrator = integrator;
      if (!nb_run(&be[0], ref_ops, &p, steps, ref, NULL)) bail("serial run failed");
      for (i = 0; i < 3 * n; ++i) xmax = fmax(xmax, fabs(ref[i])), amax = fmax(amax, fabs(ref[6 * n + i]));
      for (k = 1; k < nb; ++k) {
        const nbody_ops *ops = nbody_ops_get(be[k].core->id, single);
        if (!ops) continue;
        if (be[k].core->id == HD_B_OPENMP) {
          for (t = 1; t <= 3; ++t) {
            be[k].ctx.threads = t;
            ok(nb_run(&be[k], ops, &p, steps, out, NULL) && !memcmp(out, ref, (size_t)n * 9 * sizeof(double)),
               "openmp/%s %s, %s, %s, %d thread%s: bodies after %ld steps bit-identical to serial",
               ops->precision, nb_variant_name(v), periodic ? "2-D periodic" : "3-D Plummer",
               integrator == NBODY_LEAPFROG ? "leapfrog" : "Euler", t, t > 1 ? "s" : "", steps);
          }
          be[k].ctx.threads = 0;
        } else {
          /* S <= sum_j m_j / r_eps^2 <= 1 / eps^2 (unit total mass) */
          const double abound = 2.0 * (n + 10) * er / (eps * eps);
          const double xbound = steps * steps * dt * dt * abound + 4.0 * steps * er * xmax;
          double da = 0.0, dx = 0.0;
          int ran = nb_run(&be[k], ops, &p, steps, out, NULL);
          for (i = 0; ran && i < 3 * n; ++i) {
            dx = fmax(dx, fabs(out[i] - ref[i]));
            da = fmax(da, fabs(out[6 * n + i] - ref[6 * n + i]));
          }
          ok(ran && da <= abound && dx <= xbound,
             "%s/%s %s, %s vs serial after %ld steps: accelerations %.2e apart (bound %.2e), "
             "positions %.2e (bound %.2e)",
             ops->backend, ops->precision, nb_variant_name(v), periodic ? "2-D periodic" : "3-D Plummer",
             steps, da, abound, dx, xbound);
        }
      }
    }
  nbody_bodies_free(&b);
  free(ref);
  free(out);
}

int main(void) {
  test_backend be[HD_B_COUNT];
  const int nb = test_backends_open(be);
  compare(be, nb, 0, NBODY_LEAPFROG);
  compare(be, nb, 0, NBODY_EULER);
  compare(be, nb, 1, NBODY_EULER);
  test_backends_close(be, nb);
  return done_testing();
}
