/* SPDX-License-Identifier: BSD-3-Clause */
/* A closed PEC cavity, 1.0 x 0.8 x 0.6 m in cells of 5 cm, on every backend
 * and precision.
 *
 * Resonances.  The rectangular cavity's modes are f = (c/2) sqrt((m/a)^2 +
 * (n/b)^2 + (p/d)^2) (at most one index zero).  On the Yee mesh their
 * fields are exact discrete eigenvectors whose frequency obeys the scheme's
 * dispersion relation
 *   sin(pi f dt) / (c dt) = sqrt(sum_i sin^2(k_i D_i / 2) / D_i^2),  k = m pi / a, ...
 * so the simulated resonances must sit at those f_Yee, and therefore within
 * |f_Yee - f| of the analytic ones.  Three soft current sources (one per
 * axis, asymmetric points, a derivative-of-Gaussian pulse) excite the modes,
 * six probes record them for 16384 steps; each resonance is located as the
 * maximum of the Hann-windowed spectrum (a DTFT, not FFT bins).  For an
 * undamped sinusoid that maximum is unbiased; modes are checked only if no
 * other mode lies within 8 frequency bins (1/T), whose leakage through the
 * Hann side lobes then stays below 1e-4 of f.  Tolerance: 1e-4 f.
 *
 * Energy.  Without loss, sum eps E^n.E^n + mu H^(n-1/2).H^(n+1/2) (times the
 * cell volume, halved) is exactly conserved by the Yee scheme; after the
 * sources have died it may change only by rounding, at most about 4 eps W a
 * step: tolerance 4 N eps W over N steps. */
#include "fdtd_common.h"

#define STEPS 16384

typedef struct mode {
  int m, n, p;
  double f, fyee;
} mode;

static void cavity_input(fdtd_input *in) {
  fdtd_input_defaults(in);
  fd_add(&in->xmesh, "0 20 1.0");
  fd_add(&in->ymesh, "0 16 0.8");
  fd_add(&in->zmesh, "0 12 0.6");
  strcpy(in->bc_all, "pec");
  fd_add(&in->source, "X 0.33 0.21 0.37 1");
  fd_add(&in->source, "Y 0.71 0.29 0.13 1");
  fd_add(&in->source, "Z 0.23 0.53 0.27 1");
  fd_add(&in->probe, "ex 0.61 0.47 0.33");
  fd_add(&in->probe, "ey 0.13 0.62 0.41");
  fd_add(&in->probe, "ez 0.81 0.17 0.21");
  fd_add(&in->probe, "hx 0.41 0.27 0.47");
  fd_add(&in->probe, "hy 0.57 0.71 0.19");
  fd_add(&in->probe, "hz 0.29 0.37 0.53");
  in->freq = 5e8;
  in->waveform = HD_FDTD_DGAUSSIAN;
}

static int modes(double dt, mode *out) {
  const double pi = 3.14159265358979323846, c = HD_FDTD_C0, L[3] = {1.0, 0.8, 0.6}, D = 0.05;
  int m, n, p, k = 0;
  for (m = 0; m < 5; ++m)
    for (n = 0; n < 5; ++n)
      for (p = 0; p < 5; ++p) {
        const int idx[3] = {m, n, p};
        double sa = 0, sy = 0;
        int a;
        if ((m == 0) + (n == 0) + (p == 0) > 1) continue;
        for (a = 0; a < 3; ++a) {
          const double kk = idx[a] * pi / L[a], s = sin(0.5 * kk * D) / D;
          sa += kk * kk, sy += s * s;
        }
        out[k].m = m, out[k].n = n, out[k].p = p;
        out[k].f = c * sqrt(sa) / (2 * pi);
        out[k].fyee = asin(c * dt * sqrt(sy)) / (pi * dt);
        if (out[k].f < 4.8e8) ++k;
      }
  return k;
}

static void resonances(test_backend *b, const fdtd_ops *ops, const fdtd_model *m) {
  const double T = STEPS * m->dt;
  mode md[128];
  double *rec = (double *)malloc((size_t)STEPS * (m->nprobe + 2 * m->nfeed) * sizeof(double));
  const int nm = modes(m->dt, md), stride = m->nprobe + 2 * m->nfeed;
  int k, checked = 0, bad = 0;
  double worst_yee = 0.0, worst_disp = 0.0;
  if (!rec) bail("out of memory");
  if (!fd_run(b, ops, m, STEPS, rec, NULL)) {
    ok(0, "%s/%s cavity run", ops->backend, ops->precision);
    free(rec);
    return;
  }
  for (k = 0; k < nm; ++k) {
    int j, p, bestp = 0, isolated = 1;
    double best = -1.0, fp;
    for (j = 0; j < nm; ++j)
      if (j != k && fabs(md[j].fyee - md[k].fyee) > 1e-9 * md[k].fyee && fabs(md[j].fyee - md[k].fyee) < 8.0 / T)
        isolated = 0;
    if (!isolated) continue;
    for (p = 0; p < m->nprobe; ++p) { /* the probe that sees this mode best */
      double s = fd_spectrum(rec + p, STEPS, stride, m->dt, md[k].fyee), mx = 0.0;
      long q;
      for (q = 0; q < STEPS; ++q) mx = fmax(mx, fabs(rec[q * stride + p]));
      if (mx > 0 && s / mx > best) best = s / mx, bestp = p;
    }
    fp = fd_peak(rec + bestp, STEPS, stride, m->dt, md[k].fyee - 2.0 / T, md[k].fyee + 2.0 / T);
    ++checked;
    worst_yee = fmax(worst_yee, fabs(fp - md[k].fyee) / md[k].fyee);
    worst_disp = fmax(worst_disp, fabs(md[k].fyee - md[k].f) / md[k].f);
    if (fabs(fp - md[k].fyee) > 1e-4 * md[k].fyee ||
        fabs(fp - md[k].f) > fabs(md[k].fyee - md[k].f) + 1e-4 * md[k].f) {
      ++bad;
      diag("mode %d%d%d: analytic %.6f MHz, Yee %.6f MHz, measured %.6f MHz", md[k].m, md[k].n, md[k].p,
           md[k].f / 1e6, md[k].fyee / 1e6, fp / 1e6);
    }
  }
  ok(checked >= 8 && bad == 0,
     "%s/%s PEC cavity: %d isolated modes below 480 MHz at their Yee frequencies (worst %.1e of f, "
     "tolerance 1e-4) and within the dispersion error of the analytic ones (up to %.1e of f)",
     ops->backend, ops->precision, checked, worst_yee, worst_disp);
  free(rec);
}

/* eps E.E + mu H_old.H_new summed, times cell volume / 2 */
static double energy(const double *const e[3], const double *const h0[3], const double *const h1[3], double n,
                     double vol) {
  long double we = 0, wh = 0;
  long i;
  int c;
  for (c = 0; c < 3; ++c)
    for (i = 0; i < (long)n; ++i) {
      we += (long double)e[c][i] * e[c][i];
      wh += (long double)h0[c][i] * h1[c][i];
    }
  return (double)(0.5 * vol * (HD_FDTD_EPS0 * we + HD_FDTD_MU0 * wh));
}

static void conservation(test_backend *b, const fdtd_ops *ops, const fdtd_model *m) {
  const double n = fd_total(m), vol = 0.05 * 0.05 * 0.05;
  const long n1 = 300, n2 = 2300;
  double *buf[12], w[2];
  void *state = NULL;
  int c, okay, t;
  for (c = 0; c < 12; ++c)
    if (!(buf[c] = (double *)malloc((size_t)n * sizeof(double)))) bail("out of memory");
  okay = ops->create(&b->ctx, m, &state) == HD_OK;
  for (t = 0; t < 2 && okay; ++t) {
    /* H^(n-1/2) into buf[3..5], then one step: E^n into 6..8, H^(n+1/2) into 9..11 */
    okay = ops->advance(&b->ctx, state, (t ? n2 - n1 : n1) - 1, NULL, NULL, NULL) == HD_OK;
    for (c = 0; c < 3 && okay; ++c) okay = ops->download(&b->ctx, state, 3 + c, buf[3 + c]) == HD_OK;
    okay = okay && ops->advance(&b->ctx, state, 1, NULL, NULL, NULL) == HD_OK;
    for (c = 0; c < 6 && okay; ++c) okay = ops->download(&b->ctx, state, c, buf[6 + c]) == HD_OK;
    if (okay) {
      const double *e[3] = {buf[6], buf[7], buf[8]}, *h0[3] = {buf[3], buf[4], buf[5]},
                   *h1[3] = {buf[9], buf[10], buf[11]};
      w[t] = energy(e, h0, h1, n, vol);
    }
  }
  if (state) ops->destroy(&b->ctx, state);
  {
    const double eps = ops->real_size == 4 ? FLT_EPSILON : DBL_EPSILON, tol = 4.0 * (n2 - n1) * eps;
    ok(okay && w[0] > 0 && fabs(w[1] - w[0]) <= tol * w[0],
       "%s/%s lossless cavity: discrete energy after the sources %.9e J, %ld steps later off by %.2e "
       "of it (tolerance %.2e)",
       ops->backend, ops->precision, okay ? w[0] : 0.0, n2 - n1, okay ? fabs(w[1] - w[0]) / w[0] : 0.0, tol);
  }
  for (c = 0; c < 12; ++c) free(buf[c]);
}

int main(void) {
  test_backend be[HD_B_COUNT];
  const int nb = test_backends_open(be);
  fdtd_input in;
  fdtd_model m;
  int k, single;
  skip_if_slow_unwanted();
  cavity_input(&in);
  fd_build(&in, &m);
  for (k = 0; k < nb; ++k)
    for (single = 0; single <= 1; ++single) {
      const fdtd_ops *ops = fdtd_ops_get(be[k].core->id, single);
      if (!ops) continue;
      resonances(&be[k], ops, &m);
      conservation(&be[k], ops, &m);
    }
  fdtd_input_free(&in);
  test_backends_close(be, nb);
  return done_testing();
}
