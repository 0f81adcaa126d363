/* SPDX-License-Identifier: BSD-3-Clause */
/* Cross-backend equivalence of the cavity module: 300 steps of Re = 400
 * from rest (the lid's start is the most violent stretch), every solver,
 * both precisions, on grids that are not powers of two (SOR and FFT on
 * 45^2, multigrid on 48^2 = 3 x 16; FFT on CUDA, and on CPUs where FFTW3
 * is built), and multigrid with selective frequency damping.
 *   OpenMP vs serial: every update of a colour or a level is independent
 *   of the others and the reductions fix their association, so psi and w
 *   are bit-identical at 1, 2 and 3 threads.
 *   CUDA vs serial: multiply-adds contract differently and the residual
 *   checks may stop an iteration apart, so each step's psi may differ by
 *   about the solver tolerance (1e-12 double, 1e-3 single, of max|w|/8);
 *   the flow is dissipative, so these do not grow: tolerance on
 *   max|psi - psi_serial| / max|psi| and the same for w of 1e-8 in double
 *   and 5e-3 in single. */
#include "cavity_common.h"

int main(void) {
  test_backend be[HD_B_COUNT];
  const int nb = test_backends_open(be);
  const long steps = 300;
  int cs, solver, single, k, t;
  for (cs = 0; cs < 4; ++cs) /* each solver, and multigrid with selective frequency damping */
    for (single = 0; single <= 1; ++single) {
      const long n = cs == 1 || cs == 3 ? 48 : 45;
      const size_t count = (size_t)((n + 1) * (n + 1));
      cavity_problem p = cv_problem(n, 400, cs == 3 ? CAVITY_MG : cs, single ? 1e-3 : 1e-12, 0.5);
      const char *sname = cs == 0 ? "SOR" : cs == 1 ? "multigrid" : cs == 2 ? "FFT" : "multigrid + damping";
      solver = p.solver;
      if (cs == 3) p.sfd_chi = 0.5, p.sfd_delta = 2.0;
      double *ref[2], *out[2];
      for (k = 0; k < 2; ++k) {
        ref[k] = (double *)malloc(count * sizeof(double)), out[k] = (double *)malloc(count * sizeof(double));
        if (!ref[k] || !out[k]) bail("out of memory");
      }
      if (solver == CAVITY_FFT && !TEST_HAVE_FFTW) { /* no CPU reference */
        for (k = 0; k < 2; ++k) free(ref[k]), free(out[k]);
        continue;
      }
      if (cv_run(&be[0], cavity_ops_get(HD_B_SERIAL, single), &p, steps, 0, ref[0], ref[1], NULL, NULL) != steps)
        bail("serial run failed");
      for (k = 1; k < nb; ++k) {
        const cavity_ops *ops = cavity_ops_get(be[k].core->id, single);
        if (!ops) continue;
        if (be[k].core->id == HD_B_OPENMP) {
          for (t = 1; t <= 3; ++t) {
            int same;
            be[k].ctx.threads = t;
            same = cv_run(&be[k], ops, &p, steps, 0, out[0], out[1], NULL, NULL) == steps &&
                   !memcmp(ref[0], out[0], count * sizeof(double)) && !memcmp(ref[1], out[1], count * sizeof(double));
            ok(same, "openmp/%s %s, %d thread%s: psi and w after %ld steps bit-identical to serial", ops->precision,
               sname, t, t > 1 ? "s" : "", steps);
          }
          be[k].ctx.threads = 0;
        } else {
          const double tol = single ? 5e-3 : 1e-8;
          double worst[2] = {0, 0};
          const int ran = cv_run(&be[k], ops, &p, steps, 0, out[0], out[1], NULL, NULL) == steps;
          int f;
          size_t i;
          for (f = 0; ran && f < 2; ++f) {
            double mx = 0.0, d = 0.0;
            for (i = 0; i < count; ++i) mx = fmax(mx, fabs(ref[f][i])), d = fmax(d, fabs(out[f][i] - ref[f][i]));
            worst[f] = mx > 0 ? d / mx : d;
          }
          ok(ran && worst[0] <= tol && worst[1] <= tol,
             "%s/%s %s vs serial after %ld steps: psi off by %.2e, w by %.2e of their maxima (tolerance %g)",
             ops->backend, ops->precision, sname, steps, worst[0], worst[1], tol);
        }
      }
      for (k = 0; k < 2; ++k) free(ref[k]), free(out[k]);
    }
  test_backends_close(be, nb);
  return done_testing();
}
