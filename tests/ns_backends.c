/* SPDX-License-Identifier: BSD-3-Clause */
/* Cross-backend equivalence of the compressible-flow module: an isentropic
 * vortex (strength 0.2, so the perturbations are large enough to compare)
 * carried through characteristic faces of every kind, viscous, 60 steps on
 * 150 x 36 cells, both precisions, in two boxes: at Mach 0.5 (subsonic
 * inflow, zero-gradient, slip wall, nonreflecting) and at Mach 1.2 (a
 * nonreflecting inflow relaxed toward the free stream, supersonic outflow,
 * no-slip wall, supersonic inflow).
 *   OpenMP vs serial: every node's update is independent of the others, so
 *   rho, u, v, p are bit-identical at 1, 2 and 3 threads.
 *   The serial stage computes each node's primitives once (two passes):
 *   bit-identical to the one-pass generic stage.
 *   CUDA (tuned and generic stages) vs serial: multiply-adds contract
 *   differently; RK4 with centred differences neither damps nor amplifies
 *   such differences much over a few steps, so they add up at most
 *   linearly: tolerance 16 N eps max|q|
 *   per field after N steps. */
#include "ns_common.h"

int main(void) {
  test_backend be[HD_B_COUNT];
  const int nb = test_backends_open(be);
  const long steps = 60;
  int single, k, t, c, super;
  for (super = 0; super <= 1; ++super)
  for (single = 0; single <= 1; ++single) {
    ns_problem p = ns_square(40, 1.0, HD_NS_NONREFLECTING, super ? 1.2 : 0.5, 0.0, 0.5 / 2000);
    const char *box = super ? "Mach 1.2" : "Mach 0.5";
    hd_ns_sums sums;
    long count;
    double *ref[4], *out[4];
    p.n[1] = 36, p.length[1] = 0.9, p.origin[1] = -0.45;
    p.n[0] = 150, p.length[0] = 3.75; /* two tiles of the CUDA stage along x, two marches along y */
    if (super)
      p.bc[HD_NS_XHI] = HD_NS_SUPERSONIC_OUT, p.bc[HD_NS_YLO] = HD_NS_NOSLIP_WALL,
      p.bc[HD_NS_YHI] = HD_NS_SUPERSONIC_IN;
    else
      p.bc[HD_NS_XLO] = HD_NS_SUBSONIC_IN, p.bc[HD_NS_YLO] = HD_NS_SLIP_WALL, p.bc[HD_NS_XHI] = HD_NS_ZERO_GRADIENT;
    p.ic.kind = HD_NS_IC_ISENTROPIC, p.ic.strength = 0.2, p.ic.rc = 0.12, p.ic.x0 = 0.2;
    count = ns_nodes(&p, 0) * ns_nodes(&p, 1);
    for (c = 0; c < 4; ++c) ref[c] = ns_alloc(&p), out[c] = ns_alloc(&p);
    if (!ns_run(&be[0], ns_ops_get(HD_B_SERIAL, single), &p, steps, ref[0], ref[1], ref[2], ref[3], &sums) ||
        sums.nonfinite)
      bail("%s: the serial run failed", box);
    { /* the two-pass stage (primitives once a node) against the one-pass one */
      int same;
      p.generic = 1;
      same = ns_run(&be[0], ns_ops_get(HD_B_SERIAL, single), &p, steps, out[0], out[1], out[2], out[3], NULL);
      p.generic = 0;
      for (c = 0; same && c < 4; ++c) same = !memcmp(ref[c], out[c], (size_t)count * sizeof(double));
      ok(same, "%s, serial/%s: the two-pass stage bit-identical to the one-pass stage after %ld steps", box,
         single ? "single" : "double", steps);
    }
    for (k = 1; k < nb; ++k) {
      const ns_ops *ops = ns_ops_get(be[k].core->id, single);
      if (!ops) continue;
      if (be[k].core->id == HD_B_OPENMP) {
        for (t = 1; t <= 3; ++t) {
          int same;
          be[k].ctx.threads = t;
          same = ns_run(&be[k], ops, &p, steps, out[0], out[1], out[2], out[3], NULL);
          for (c = 0; same && c < 4; ++c) same = !memcmp(ref[c], out[c], (size_t)count * sizeof(double));
          ok(same, "%s, openmp/%s, %d thread%s: rho, u, v, p after %ld steps bit-identical to serial", box,
             ops->precision, t, t > 1 ? "s" : "", steps);
        }
        be[k].ctx.threads = 0;
      } else { /* the tuned stage and the one-pass generic one */
        const double eps = single ? FLT_EPSILON : DBL_EPSILON;
        int generic;
        for (generic = 0; generic <= 1; ++generic) {
          double worst = 0.0;
          int ran;
          long i;
          p.generic = generic;
          ran = ns_run(&be[k], ops, &p, steps, out[0], out[1], out[2], out[3], NULL);
          p.generic = 0;
          for (c = 0; ran && c < 4; ++c) {
            double mx = 0.0, d = 0.0;
            for (i = 0; i < count; ++i) { /* a value that is not a number counts as infinitely far */
              const double e = fabs(out[c][i] - ref[c][i]);
              mx = fmax(mx, fabs(ref[c][i]));
              if (!(e <= d)) d = e == e ? e : HUGE_VAL;
            }
            if (mx > 0) worst = fmax(worst, d / (16.0 * steps * eps * mx));
          }
          ok(ran && worst <= 1.0,
             "%s, %s/%s (%s stage) vs serial after %ld steps: worst field at %.3g of the tolerance 16 N eps max|q|",
             box, ops->backend, ops->precision, generic ? "generic" : "tuned", steps, worst);
        }
      }
    }
    for (c = 0; c < 4; ++c) free(ref[c]), free(out[c]);
  }
  test_backends_close(be, nb);
  return done_testing();
}
