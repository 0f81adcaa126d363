/* SPDX-License-Identifier: BSD-3-Clause */
/* A plane wave in a lossy dielectric (eps_r = 2, sigma = 0.0278 S/m: loss
 * tangent 1/2 at 500 MHz) decays at the analytic rate.
 *
 * A column periodic across (2 x 2 cells of 1 cm) and 200 cells long, Mur at
 * both ends; a sinusoidal current sheet at z = 0.2 m; the lossy medium fills
 * z >= 0.4 m to the end (so the wave reaching the end is down 5e-3 and its
 * echo is negligible).  After 40 periods the amplitude at four probes 20
 * cells apart (Fourier amplitude at 500 MHz over the last 10 whole periods)
 * decays as exp(-alpha z); alpha is fitted.
 *
 * Continuous theory: gamma = sqrt(j w mu (sigma + j w eps)), alpha = Re gamma.
 * The Yee scheme's own rate follows from putting E = E0 z^n e^{-gamma k dz},
 * z = e^{j w dt}, into its lossy updates:
 *   (2 S / dz)^2 = 2 j sin(w dt/2) mu (e^{j w dt/2} - C1 e^{-j w dt/2}) / (C2 dt),
 *   S = sinh(gamma dz / 2),
 * with C1, C2 the material's E coefficients.  The fitted rate must match the
 * scheme's to 1e-3 (reflections and transients are far below that) and lie
 * within |alpha_Yee - alpha| + 1e-3 alpha of the continuous one. */
#include <complex.h>

#include "fdtd_common.h"

static const double F = 5e8, EPSR = 2.0;

static void lossy_input(fdtd_input *in, double sigma) {
  int u, v;
  fdtd_input_defaults(in);
  fd_add(&in->xmesh, "0 2 0.02");
  fd_add(&in->ymesh, "0 2 0.02");
  fd_add(&in->zmesh, "0 200 2.0");
  strcpy(in->bc_all, "periodic");
  strcpy(in->bc_axis[2], "mur");
  fd_add(&in->material, "%.17g %.17g 1 0", EPSR, sigma);
  fd_add(&in->geometry, "2 box 0 0.02 0 0.02 0.4 2.0");
  for (u = 0; u < 2; ++u)
    for (v = 0; v < 2; ++v) fd_add(&in->source, "X %.17g %.17g 0.2 1", (u + 0.5) * 0.01, v * 0.01);
  for (u = 0; u < 4; ++u) fd_add(&in->probe, "ex 0.005 0.01 %.17g", 0.6 + 0.2 * u);
  in->freq = F;
  in->waveform = HD_FDTD_SINE;
}

int main(void) {
  test_backend be[HD_B_COUNT];
  const int nb = test_backends_open(be);
  const double pi = 3.14159265358979323846, w = 2 * pi * F, eps = EPSR * HD_FDTD_EPS0, mu = HD_FDTD_MU0;
  const double sigma = 0.5 * w * eps; /* loss tangent 1/2 */
  const double complex gc = csqrt(I * w * mu * (sigma + I * w * eps));
  fdtd_input in;
  fdtd_model m;
  int k, single;
  lossy_input(&in, sigma);
  fd_build(&in, &m);
  for (k = 0; k < nb; ++k)
    for (single = 0; single <= 1; ++single) {
      const fdtd_ops *ops = fdtd_ops_get(be[k].core->id, single);
      const long steps = (long)(40.0 / (F * m.dt)), row = m.nprobe + 2 * m.nfeed;
      double *rec, amp[4], sx = 0, sy = 0, sxx = 0, sxy = 0, alpha, ayee;
      double complex s2, sh;
      hd_real c1, c2;
      int p;
      if (!ops || (be[k].core->id == HD_B_OPENMP && single)) continue;
      rec = (double *)malloc((size_t)steps * row * sizeof(double));
      if (!rec) bail("out of memory");
      if (!fd_run(&be[k], ops, &m, steps, rec, NULL)) {
        ok(0, "%s/%s lossy run", ops->backend, ops->precision);
        free(rec);
        continue;
      }
      for (p = 0; p < 4; ++p) { /* Fourier amplitude over the last 10 periods (exact window) */
        const double t1 = steps * m.dt, t0 = t1 - 10.0 / F;
        double complex acc = 0;
        long t, n = 0;
        for (t = 0; t < steps; ++t) {
          const double tt = (t + 1) * m.dt;
          if (tt <= t0) continue;
          acc += rec[t * row + p] * cexp(-I * w * tt);
          ++n;
        }
        amp[p] = 2.0 * cabs(acc) / (double)n;
      }
      for (p = 0; p < 4; ++p) {
        const double z = 0.6 + 0.2 * p, y = log(amp[p]);
        sx += z, sy += y, sxx += z * z, sxy += z * y;
      }
      alpha = -(4 * sxy - sx * sy) / (4 * sxx - sx * sx);
      /* the scheme's own rate, with its coefficients rounded as the run did */
      hd_fdtd_coefficients(m.dt, eps, sigma, &c1, &c2);
      s2 = 0.25 * 0.01 * 0.01 * 2.0 * I * sin(0.5 * w * m.dt) * mu *
           (cexp(0.5 * I * w * m.dt) - (double)c1 * cexp(-0.5 * I * w * m.dt)) / ((double)c2 * m.dt);
      sh = csqrt(s2);
      ayee = fabs(creal(2.0 / 0.01 * casinh(sh)));
      ok(fabs(alpha - ayee) <= 1e-3 * ayee && fabs(alpha - creal(gc)) <= fabs(ayee - creal(gc)) + 1e-3 * creal(gc),
         "%s/%s plane wave in a lossy dielectric: decay %.6f Np/m, Yee scheme %.6f, continuous "
         "theory %.6f (tolerance 1e-3 of it beyond the scheme's own difference)",
         ops->backend, ops->precision, alpha, ayee, creal(gc));
      free(rec);
    }
  fdtd_input_free(&in);
  test_backends_close(be, nb);
  return done_testing();
}
