/* SPDX-License-Identifier: BSD-3-Clause */
/* Compressible Navier-Stokes with characteristic boundaries (hd/ns.h,
 * hd/nscbc.h).  Units: rho_inf = c_inf = 1, so p_inf = 1/gamma.
 *
 * Uniform flow (every backend and precision): a uniform state is an exact
 * solution of the discrete equations with every face type (the centred
 * differences of constants vanish, the extrapolated ghosts equal the
 * state, the wave amplitudes are zero and p = p_inf): 50 steps, seven face
 * configurations, every node must keep its value to 4 eps.
 *
 * Conservation (every backend): with periodic faces the centred fluxes
 * telescope, so mass and energy change only by rounding: a viscous vortex,
 * 200 steps, |change| <= 8 N eps of the total.
 *
 * Order (fastest CPU backend, double): the isentropic vortex (strength 0.2,
 * radius 0.15, carried at Mach 0.5 through a periodic unit box, inviscid)
 * is an exact solution; after one period the max density error on 32^2,
 * 64^2, 128^2 must fall at order 1.8 to 2.2 (second-order scheme) and be
 * below 1e-3 on 128^2. */
#include "ns_common.h"

static void uniform(test_backend *b, const ns_ops *ops) {
  static const int faces[8][4] = {
      {HD_NS_PERIODIC, HD_NS_PERIODIC, HD_NS_PERIODIC, HD_NS_PERIODIC},
      {HD_NS_SUPERSONIC_IN, HD_NS_SUPERSONIC_OUT, HD_NS_NONREFLECTING, HD_NS_NONREFLECTING},
      {HD_NS_SUBSONIC_IN, HD_NS_NONREFLECTING, HD_NS_NONREFLECTING, HD_NS_NONREFLECTING},
      {HD_NS_SUBSONIC_IN, HD_NS_NONREFLECTING, HD_NS_SLIP_WALL, HD_NS_SLIP_WALL},
      {HD_NS_NOSLIP_WALL, HD_NS_NOSLIP_WALL, HD_NS_NOSLIP_WALL, HD_NS_NOSLIP_WALL},
      {HD_NS_ZERO_GRADIENT, HD_NS_ZERO_GRADIENT, HD_NS_PERIODIC, HD_NS_PERIODIC},
      {HD_NS_NONREFLECTING, HD_NS_NONREFLECTING, HD_NS_NONREFLECTING, HD_NS_NONREFLECTING},
      {HD_NS_NONREFLECTING, HD_NS_SUPERSONIC_OUT, HD_NS_NONREFLECTING, HD_NS_NONREFLECTING}};
  static const double flow[8][2] = {{0.3, 0.2}, {1.5, 0}, {0.5, 0}, {0.5, 0}, {0, 0}, {0.4, 0}, {0.5, 0.1}, {1.5, 0.2}};
  static const char *const names[8] = {"periodic", "supersonic in/out", "subsonic in, nonreflecting",
                                       "subsonic in/out, slip walls", "no-slip walls at rest",
                                       "zero-gradient x, periodic y", "nonreflecting, oblique flow",
                                       "nonreflecting supersonic inflow (relaxed entering waves), oblique"};
  const double eps = ops->real_size == 4 ? FLT_EPSILON : DBL_EPSILON;
  int k;
  for (k = 0; k < 8; ++k) {
    ns_problem p = ns_square(24, 1.0, HD_NS_PERIODIC, flow[k][0], flow[k][1], 1e-3);
    double *f[4], dev = 0.0;
    const double want[4] = {1.0, flow[k][0], flow[k][1], 1.0 / 1.4};
    long i, count;
    int c, good;
    memcpy(p.bc, faces[k], sizeof p.bc);
    p.n[1] = 20, p.length[1] = 20.0 / 24, p.origin[1] = -0.5 * p.length[1];
    count = ns_nodes(&p, 0) * ns_nodes(&p, 1);
    for (c = 0; c < 4; ++c) f[c] = ns_alloc(&p);
    good = ns_run(b, ops, &p, 50, f[0], f[1], f[2], f[3], NULL);
    for (c = 0; c < 4; ++c)
      for (i = 0; i < count; ++i) dev = fmax(dev, fabs(f[c][i] - want[c]));
    ok(good && dev <= 4 * eps, "%s/%s uniform flow, %s: largest change of rho, u, v, p after 50 steps %.2e",
       ops->backend, ops->precision, names[k], dev);
    for (c = 0; c < 4; ++c) free(f[c]);
  }
}

static void conservation(test_backend *b, const ns_ops *ops) {
  const double eps = ops->real_size == 4 ? FLT_EPSILON : DBL_EPSILON;
  ns_problem p = ns_square(32, 1.0, HD_NS_PERIODIC, 0.5, 0.0, 0.5 / 1e4);
  hd_ns_sums s0, s1;
  void *state = NULL;
  int good;
  p.ic.kind = HD_NS_IC_VORTEX, p.ic.strength = -0.05, p.ic.rc = 0.15;
  good = ops->create(&b->ctx, &p, &state) == HD_OK && ops->sums(&b->ctx, state, &s0) == HD_OK &&
         ops->advance(&b->ctx, state, 200) == HD_OK && ops->sums(&b->ctx, state, &s1) == HD_OK;
  if (state) ops->destroy(&b->ctx, state);
  ok(good && fabs(s1.mass - s0.mass) <= 8 * 200 * eps * s0.mass &&
         fabs(s1.energy - s0.energy) <= 8 * 200 * eps * s0.energy,
     "%s/%s periodic vortex, 200 steps: mass changed by %.2e, energy by %.2e of the total (tolerance %.1e)",
     ops->backend, ops->precision, good ? fabs(s1.mass / s0.mass - 1) : -1.0,
     good ? fabs(s1.energy / s0.energy - 1) : -1.0, 8 * 200 * eps);
}

static double isentropic_error(test_backend *b, const ns_ops *ops, long n) {
  ns_problem p = ns_square(n, 1.0, HD_NS_PERIODIC, 0.5, 0.0, 0.0);
  double *r = ns_alloc(&p), err = 0.0;
  long steps, i;
  p.ic.kind = HD_NS_IC_ISENTROPIC, p.ic.strength = 0.2, p.ic.rc = 0.15;
  steps = (long)ceil(2.0 * n * 2.5); /* one period (t = 2) at dt = h / 2.5 */
  p.dt = 2.0 / (double)steps;
  if (!ns_run(b, ops, &p, steps, r, NULL, NULL, NULL, NULL)) return -1.0;
  for (i = 0; i < n * n; ++i) {
    double q[4];
    hd_ns_ic_state(&p.ic, ns_x(&p, 0, i % n), ns_x(&p, 1, i / n), q);
    err = fmax(err, fabs(r[i] - q[0]));
  }
  free(r);
  return err;
}

int main(void) {
  test_backend be[HD_B_COUNT];
  const int nb = test_backends_open(be);
  test_backend *fast = &be[0];
  int k, single;
  skip_if_slow_unwanted();
  for (k = 0; k < nb; ++k) {
    if (be[k].core->id != HD_B_CUDA) fast = &be[k];
    for (single = 0; single <= 1; ++single) {
      const ns_ops *ops = ns_ops_get(be[k].core->id, single);
      if (!ops) continue;
      uniform(&be[k], ops);
      conservation(&be[k], ops);
    }
  }
  {
    const ns_ops *ops = ns_ops_get(fast->core->id, 0);
    const double e32 = isentropic_error(fast, ops, 32), e64 = isentropic_error(fast, ops, 64),
                 e128 = isentropic_error(fast, ops, 128);
    const double p1 = log2(e32 / e64), p2 = log2(e64 / e128);
    ok(e32 > 0 && p1 >= 1.8 && p1 <= 2.2 && p2 >= 1.8 && p2 <= 2.2 && e128 < 1e-3,
       "isentropic vortex, one period: max density error %.3e, %.3e, %.3e on 32^2, 64^2, 128^2: order %.2f, %.2f",
       e32, e64, e128, p1, p2);
  }
  test_backends_close(be, nb);
  return done_testing();
}
