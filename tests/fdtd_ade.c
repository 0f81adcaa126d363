/* SPDX-License-Identifier: BSD-3-Clause */
/* Dispersive media and lumped loads (hd/fdtd_ade.h) against exact results:
 *   - an LC tank on one edge rings at 1/(2 pi sqrt(LC)) within 1 %;
 *   - a two-wire line: its impedance Z0 measured from the outgoing wave at
 *     the feed; a resistor R = Z0 at the far end reflects less than -30 dB,
 *     R = Z0/3 reflects (R - Z0)/(R + Z0) = -1/2 within 3 %;
 *   - a plane wave on a Debye, a Drude and a Lorentz half-space: |reflection|
 *     within 0.01 of |(1 - n)/(1 + n)|, n = sqrt(eps(w)) of the continuous
 *     model, from 1 to 6 GHz (40 cells a vacuum wavelength at 7.5 GHz); on
 *     slabs of them, |reflection| and |transmission| within 0.01 of the
 *     exact slab's (the slab as the grid holds it: half a cell more at each
 *     face, which the test resolves: a slab of its nominal thickness misses
 *     by 0.02-0.04);
 *   - a lossless Lorentz medium filling a PEC box keeps the energy the
 *     updates conserve (fields, oscillators and their coupling) to 1e-10
 *     over 3000 steps; with damping it loses it.
 * On the serial backend in double; the other backends are held to it by
 * fdtd_backends. */
#include "fdtd_common.h"

#include <hd/fdtd_ade.h>

static const double PI = 3.14159265358979323846;

static int run(fdtd_input *in, long steps, double **rec, long *row) {
  test_backend be[HD_B_COUNT];
  const int nb = test_backends_open(be);
  fdtd_model m;
  int okay;
  fd_build(in, &m);
  *row = m.nprobe + 2 * m.nfeed;
  *rec = (double *)calloc((size_t)(steps * *row), sizeof(double));
  if (!*rec) bail("out of memory");
  okay = fd_run(&be[0], fdtd_ops_get(HD_B_SERIAL, 0), &m, steps, *rec, NULL);
  test_backends_close(be, nb);
  return okay;
}

/* An LC tank: L and C on one edge, kicked by a soft source beside it. */
static void lc_tank(void) {
  const double L = 1e-9, C = 1e-11, f0 = 1.0 / (2.0 * PI * sqrt(L * C));
  fdtd_input in;
  double *rec, t0 = 0, t1 = 0, prev = 0;
  long row, k, n = 0;
  const long steps = 20000;
  fdtd_input_defaults(&in);
  fd_add(&in.xmesh, "-0.01 20 0.01"), fd_add(&in.ymesh, "-0.01 20 0.01"), fd_add(&in.zmesh, "-0.01 20 0.01");
  fd_add(&in.load, "Z 0 0 0.0005 L %g", L);
  fd_add(&in.load, "Z 0 0 0.0005 C %g", C);
  fd_add(&in.source, "Z 0.001 0 0.0005 1e-3");
  fd_add(&in.probe, "ez 0 0 0.0005");
  in.waveform = HD_FDTD_GAUSSIAN, in.freq = 5e9;
  if (!run(&in, steps, &rec, &row)) bail("LC run failed");
  fdtd_input_free(&in);
  for (k = steps / 10; k < steps; ++k) { /* upward zero crossings after the kick */
    const double v = rec[k * row];
    if (prev < 0 && v >= 0) {
      const double t = (double)k - v / (v - prev);
      if (!n++) t0 = t;
      t1 = t;
    }
    prev = v;
  }
  {
    const double dt = 0.99 / (HD_FDTD_C0 * sqrt(3.0) / 0.001), f = (double)(n - 1) / ((t1 - t0) * dt);
    ok(n > 20 && fabs(f / f0 - 1) < 0.01, "LC tank on one edge rings at %.6g Hz, 1/(2 pi sqrt(LC)) = %.6g Hz (%+.3f %%)", f,
       f0, 100 * (f / f0 - 1));
  }
  free(rec);
}

/* A two-wire line one cell apart along x, fed at one end, loaded at the
 * other; the gap voltage at the middle. */
static void two_wire(double r, double z0, double *refl, double *z0_out) {
  fdtd_input in;
  double *rec, einc = 0, eref = 0, vi = 0, ii = 0;
  long row, k;
  const long steps = 1400; /* c dt = 0.5716 cells: the reflection has passed the middle by then */
  fdtd_input_defaults(&in);
  fd_add(&in.xmesh, "0 420 0.42"), fd_add(&in.ymesh, "-0.01 20 0.01"), fd_add(&in.zmesh, "-0.01 20 0.01");
  fd_add(&in.geometry, "1 box 0.01 0.41 0 0 0 0");
  fd_add(&in.geometry, "1 box 0.01 0.41 0.001 0.001 0 0");
  fd_add(&in.feed, "Y 0.01 0.0005 0 1 %.17g", z0);
  fd_add(&in.load, "Y 0.41 0.0005 0 R %.17g", r);
  fd_add(&in.probe, "ey 0.21 0.0005 0");
  in.waveform = HD_FDTD_GAUSSIAN, in.freq = 5e9; /* 60 cells a wavelength at F */
  if (!run(&in, steps, &rec, &row)) bail("two-wire run failed");
  fdtd_input_free(&in);
  for (k = 0; k + 1 < steps; ++k) {
    const double e = rec[k * row], v = rec[k * row + 1], i = 0.5 * (rec[k * row + 2] + rec[(k + 1) * row + 2]);
    if (k < 833) einc += e * e; /* the incident pulse has passed the middle by c t = 476 cells, the reflection not yet come */
    else eref += e * e;
    vi += v * i, ii += i * i; /* at the feed, the outgoing wave alone: the reflection returns after c t = 876 cells */
  }
  *refl = sqrt(eref / einc);
  *z0_out = vi / ii;
  free(rec);
}

/* A plane wave on a half-space (z >= 0.6 m) of material `mat`: |reflection|
 * at nf frequencies from 1 to 6 GHz against the continuous model. */
static void half_space(const char *name, const char *mat, const hd_fdtd_pole *pole, int npole, double eps_inf) {
  fdtd_input in;
  double *rec, worst = 0.0, at = 0.0;
  long row, k;
  const long steps = 3000, split = 962; /* incident before c t = 550 cells, reflection after */
  const double dt = 0.99 / (HD_FDTD_C0 * sqrt(3.0) / 0.001);
  int q;
  fdtd_input_defaults(&in);
  fd_add(&in.xmesh, "0 2 0.002"), fd_add(&in.ymesh, "0 2 0.002"), fd_add(&in.zmesh, "0 2000 2");
  strcpy(in.bc_all, "periodic"), strcpy(in.bc_axis[2], "mur");
  fd_add(&in.material, "%s", mat);
  fd_add(&in.geometry, "2 box 0 0.002 0 0.002 0.6 2");
  fd_add(&in.source, "X 0.0005 0 0.1 1e-3"), fd_add(&in.source, "X 0.0015 0 0.1 1e-3");
  fd_add(&in.source, "X 0.0005 0.001 0.1 1e-3"), fd_add(&in.source, "X 0.0015 0.001 0.1 1e-3");
  fd_add(&in.probe, "ex 0.0005 0 0.3");
  in.waveform = HD_FDTD_GAUSSIAN, in.freq = 7.5e9;
  if (!run(&in, steps, &rec, &row)) bail("%s run failed", name);
  fdtd_input_free(&in);
  for (q = 0; q <= 20; ++q) {
    const double f = 1e9 + 2.5e8 * q, w = 2 * PI * f;
    double ir = 0, ii = 0, rr = 0, ri = 0, er, ei, nr, ni, gr, gi, d, g;
    for (k = 0; k < steps; ++k) {
      const double c = cos(w * k * dt), s = sin(w * k * dt), v = rec[k * row];
      if (k < split) ir += v * c, ii -= v * s;
      else rr += v * c, ri -= v * s;
    }
    hd_fdtd_ade_eps(eps_inf, 0.0, pole, npole, w, &er, &ei);
    { /* n = sqrt(eps), the root with n'' <= 0 (e^{jwt}: a wave decaying into the medium) */
      const double mod = sqrt(er * er + ei * ei);
      nr = sqrt(0.5 * (mod + er)), ni = -sqrt(fmax(0.0, 0.5 * (mod - er)));
    }
    d = (1 + nr) * (1 + nr) + ni * ni;
    gr = ((1 - nr) * (1 + nr) - ni * ni) / d, gi = (-ni * (1 + nr) - (1 - nr) * ni) / d;
    g = sqrt((rr * rr + ri * ri) / (ir * ir + ii * ii));
    if (fabs(g - sqrt(gr * gr + gi * gi)) > worst) worst = fabs(g - sqrt(gr * gr + gi * gi)), at = f;
  }
  ok(worst < 0.01, "%s half-space: |reflection| within %.4f of the exact one from 1 to 6 GHz (worst at %.3g Hz; bound 0.01)",
     name, worst, at);
  free(rec);
}

/* A slab of material `mat` from z = 0.6 m, `cells` thick: |reflection| and
 * |transmission| against the exact slab of the continuous model,
 *   R = r (1 - z^2) / (1 - r^2 z^2),  T = (1 - r^2) z / (1 - r^2 z^2),
 *   r = (1 - n)/(1 + n), z = exp(-j k0 n d),
 * d the slab's extent on the grid: its E nodes at both faces take the
 * material, so it reaches half a cell beyond each (d = (cells + 1) dz). */
static void slab(const char *name, const char *mat, const hd_fdtd_pole *pole, int npole, double eps_inf, int cells) {
  fdtd_input in;
  double *rec, worst_r = 0.0, worst_t = 0.0;
  long row, k;
  const long steps = 3000, split = 962;
  const double dt = 0.99 / (HD_FDTD_C0 * sqrt(3.0) / 0.001), d = (cells + 1) * 0.001;
  int q;
  fdtd_input_defaults(&in);
  fd_add(&in.xmesh, "0 2 0.002"), fd_add(&in.ymesh, "0 2 0.002"), fd_add(&in.zmesh, "0 2000 2");
  strcpy(in.bc_all, "periodic"), strcpy(in.bc_axis[2], "mur");
  fd_add(&in.material, "%s", mat);
  fd_add(&in.geometry, "2 box 0 0.002 0 0.002 0.6 %.17g", 0.6 + cells * 0.001);
  fd_add(&in.source, "X 0.0005 0 0.1 1e-3"), fd_add(&in.source, "X 0.0015 0 0.1 1e-3");
  fd_add(&in.source, "X 0.0005 0.001 0.1 1e-3"), fd_add(&in.source, "X 0.0015 0.001 0.1 1e-3");
  fd_add(&in.probe, "ex 0.0005 0 0.3");
  fd_add(&in.probe, "ex 0.0005 0 1.0");
  in.waveform = HD_FDTD_GAUSSIAN, in.freq = 7.5e9;
  if (!run(&in, steps, &rec, &row)) bail("%s run failed", name);
  fdtd_input_free(&in);
  for (q = 0; q <= 20; ++q) {
    const double f = 1e9 + 2.5e8 * q, w = 2 * PI * f, k0 = w / HD_FDTD_C0;
    double ir = 0, ii = 0, rr = 0, ri = 0, tr = 0, ti = 0, er, ei, nr, ni;
    double complex_r[2], zz[2], num[2], den[2], rz[2], a, b;
    for (k = 0; k < steps; ++k) {
      const double c = cos(w * k * dt), s = sin(w * k * dt), v = rec[k * row], u = rec[k * row + 1];
      if (k < split) ir += v * c, ii -= v * s;
      else rr += v * c, ri -= v * s;
      tr += u * c, ti -= u * s;
    }
    hd_fdtd_ade_eps(eps_inf, 0.0, pole, npole, w, &er, &ei);
    {
      const double mod = sqrt(er * er + ei * ei);
      nr = sqrt(0.5 * (mod + er)), ni = -sqrt(fmax(0.0, 0.5 * (mod - er)));
    }
    { /* r = (1 - n)/(1 + n); z = exp(-j k0 n d) */
      const double dd = (1 + nr) * (1 + nr) + ni * ni;
      complex_r[0] = ((1 - nr) * (1 + nr) - ni * ni) / dd, complex_r[1] = (-ni * (1 + nr) - (1 - nr) * ni) / dd;
      a = exp(k0 * ni * d), b = -k0 * nr * d;
      zz[0] = a * cos(b), zz[1] = a * sin(b);
    }
    /* r^2 z^2 */
    {
      const double r2[2] = {complex_r[0] * complex_r[0] - complex_r[1] * complex_r[1], 2 * complex_r[0] * complex_r[1]};
      const double z2[2] = {zz[0] * zz[0] - zz[1] * zz[1], 2 * zz[0] * zz[1]};
      rz[0] = r2[0] * z2[0] - r2[1] * z2[1], rz[1] = r2[0] * z2[1] + r2[1] * z2[0];
      den[0] = 1 - rz[0], den[1] = -rz[1];
      /* R = r (1 - z^2) / den */
      num[0] = complex_r[0] * (1 - z2[0]) + complex_r[1] * z2[1], num[1] = complex_r[1] * (1 - z2[0]) - complex_r[0] * z2[1];
      {
        const double rmag = sqrt((num[0] * num[0] + num[1] * num[1]) / (den[0] * den[0] + den[1] * den[1]));
        /* T = (1 - r^2) z / den */
        const double t1[2] = {1 - r2[0], -r2[1]};
        const double tn[2] = {t1[0] * zz[0] - t1[1] * zz[1], t1[0] * zz[1] + t1[1] * zz[0]};
        const double tmag = sqrt((tn[0] * tn[0] + tn[1] * tn[1]) / (den[0] * den[0] + den[1] * den[1]));
        const double inc = sqrt(ir * ir + ii * ii);
        worst_r = fmax(worst_r, fabs(sqrt(rr * rr + ri * ri) / inc - rmag));
        worst_t = fmax(worst_t, fabs(sqrt(tr * tr + ti * ti) / inc - tmag));
      }
    }
  }
  ok(worst_r < 0.01 && worst_t < 0.01, "%s slab of %d cells: |R| within %.4f, |T| within %.4f of the exact slab, 1 to 6 GHz "
     "(bound 0.01)", name, cells, worst_r, worst_t);
  free(rec);
}

/* The energy a lossless Lorentz medium's updates conserve, at step n: with
 * kappa = eps0 de w0^2 and each cell's volume (a uniform mesh),
 *   sum 1/2 eps E^n E^n + 1/2 mu0 H^{n+1/2} H^{n-1/2}
 *   + sum over the medium's edges of (1/kappa) [1/2 ((P^n - P^{n-1})/dt)^2
 *     + 1/2 w0^2 P^n P^{n-1}] + 1/2 E^n (P^n - P^{n-1})
 * (the Yee identity for the fields, the leapfrog one for the oscillators;
 * the last term closes the exchange between them). */
static double lorentz_energy(test_backend *b, const fdtd_ops *ops, void *state, const fdtd_model *m, double eps_inf,
                             double de, double w0, long *at, long to) {
  const double kappa = HD_FDTD_EPS0 * de * w0 * w0, vol = 1e-6, total = fd_total(m);
  double *f[6], *hold[3], w = 0, *ade = NULL;
  uint64_t bytes = 0;
  char name[16];
  long i;
  int c, k, found = -1;
  for (c = 0; c < 6; ++c) f[c] = (double *)malloc((size_t)total * sizeof(double));
  for (c = 0; c < 3; ++c) hold[c] = (double *)malloc((size_t)total * sizeof(double));
  if (ops->advance(&b->ctx, state, to - 1 - *at, NULL, NULL, NULL) != HD_OK) bail("advance: %s", b->ctx.msg);
  for (c = 0; c < 3; ++c)
    if (ops->download(&b->ctx, state, 3 + c, hold[c]) != HD_OK) bail("download");
  if (ops->advance(&b->ctx, state, 1, NULL, NULL, NULL) != HD_OK) bail("advance: %s", b->ctx.msg);
  *at = to;
  for (c = 0; c < 6; ++c)
    if (ops->download(&b->ctx, state, c, f[c]) != HD_OK) bail("download");
  for (i = 0; i < (long)total; ++i)
    for (c = 0; c < 3; ++c)
      w += 0.5 * vol * (HD_FDTD_EPS0 * eps_inf * f[c][i] * f[c][i] + HD_FDTD_MU0 * f[3 + c][i] * hold[c][i]);
  for (k = 0; k < ops->state_count(state); ++k) {
    ops->state_io(&b->ctx, state, k, name, &bytes, NULL, 1);
    if (!strcmp(name, "ade")) found = k;
  }
  if (found < 0) bail("no ADE state");
  ops->state_io(&b->ctx, state, found, name, &bytes, NULL, 1);
  ade = (double *)malloc((size_t)bytes);
  if (!ade || ops->state_io(&b->ctx, state, found, name, &bytes, ade, 1) != HD_OK) bail("ADE state");
  for (i = 0; i < (long)(bytes / (3 * sizeof(double))); ++i) { /* E^n, P^n, P^{n-1} an edge */
    const double e = ade[3 * i], p = ade[3 * i + 1], q = ade[3 * i + 2], dt = m->dt;
    w += vol * ((0.5 * (p - q) * (p - q) / (dt * dt) + 0.5 * w0 * w0 * p * q) / kappa + 0.5 * e * (p - q));
  }
  for (c = 0; c < 6; ++c) free(f[c]);
  for (c = 0; c < 3; ++c) free(hold[c]);
  free(ade);
  return w;
}

static void lorentz_cavity(double damping, double *drift) {
  const double eps_inf = 2.0, de = 1.5, f0 = 2e9, w0 = 2 * PI * f0;
  test_backend be[HD_B_COUNT];
  const int nb = test_backends_open(be);
  const fdtd_ops *ops = fdtd_ops_get(HD_B_SERIAL, 0);
  fdtd_input in;
  fdtd_model m;
  void *state = NULL;
  long at = 0;
  double w1, w2;
  fdtd_input_defaults(&in);
  fd_add(&in.xmesh, "0 12 0.12"), fd_add(&in.ymesh, "0 12 0.12"), fd_add(&in.zmesh, "0 12 0.12");
  strcpy(in.bc_all, "pec");
  fd_add(&in.material, "%g 0 1 0 lorentz %g %g %.17g", eps_inf, de, f0, damping * w0);
  fd_add(&in.geometry, "2 box 0 0.12 0 0.12 0 0.12");
  fd_add(&in.source, "Z 0.035 0.045 0.055 1e-3");
  in.waveform = HD_FDTD_GAUSSIAN, in.freq = 1e10;
  fd_build(&in, &m);
  if (ops->create(&be[0].ctx, &m, &state) != HD_OK) bail("create: %s", be[0].ctx.msg);
  w1 = lorentz_energy(&be[0], ops, state, &m, eps_inf, de, w0, &at, 100); /* the pulse is over by step 20 */
  w2 = lorentz_energy(&be[0], ops, state, &m, eps_inf, de, w0, &at, 3000);
  *drift = w2 / w1 - 1;
  if (!(w1 > 0)) bail("no energy in the cavity");
  ops->destroy(&be[0].ctx, state);
  fdtd_input_free(&in);
  test_backends_close(be, nb);
}

int main(void) {
  double z0, refl, zz, refl3;
  lc_tank();
  two_wire(100.0, 100.0, &refl, &z0); /* the line's impedance from the outgoing wave */
  two_wire(z0, z0, &refl, &zz);
  ok(20 * log10(refl) < -30, "two-wire line (Z0 = %.2f ohm measured) ended in R = Z0 reflects %.1f dB (bound -30 dB)", z0,
     20 * log10(refl));
  two_wire(z0 / 3, z0, &refl3, &zz);
  ok(fabs(refl3 / 0.5 - 1) < 0.03, "ended in R = Z0/3 it reflects %.4f of the wave, |R - Z0|/(R + Z0) = 0.5", refl3);
  {
    const hd_fdtd_pole debye = {HD_FDTD_DEBYE, 3.0, 1.0 / (2 * PI * 3e9), 0};
    const hd_fdtd_pole drude = {HD_FDTD_DRUDE, 2 * PI * 5e9, 2e9, 0};
    const hd_fdtd_pole lorentz = {HD_FDTD_LORENTZ, 1.5, 2 * PI * 3.5e9, 0.3 * 2 * PI * 3.5e9};
    char mat[256];
    snprintf(mat, sizeof mat, "2 0 1 0 debye 3 %.17g", debye.b);
    half_space("Debye (eps_inf 2, de 3, f_c 3 GHz)", mat, &debye, 1, 2.0);
    slab("Debye", mat, &debye, 1, 2.0, 20);
    snprintf(mat, sizeof mat, "1 0 1 0 drude 5e9 2e9");
    half_space("Drude (f_p 5 GHz, gamma 2e9/s)", mat, &drude, 1, 1.0);
    slab("Drude", mat, &drude, 1, 1.0, 10);
    snprintf(mat, sizeof mat, "2 0 1 0 lorentz 1.5 3.5e9 %.17g", lorentz.c);
    half_space("Lorentz (eps_inf 2, de 1.5, f_0 3.5 GHz, gamma 0.3 w0)", mat, &lorentz, 1, 2.0);
    slab("Lorentz", mat, &lorentz, 1, 2.0, 20);
  }
  {
    double drift, lossy;
    lorentz_cavity(0.0, &drift);
    ok(fabs(drift) < 1e-10, "lossless Lorentz medium in a PEC box: the conserved energy changes by %.2e from step 100 to "
       "3000 (bound 1e-10)", drift);
    lorentz_cavity(0.01, &lossy);
    ok(lossy < -0.1, "with damping 0.01 w0 it falls by %.1f %% (the measure sees loss)", -100 * lossy);
  }
  return done_testing();
}
