/* SPDX-License-Identifier: BSD-3-Clause */
/* Embedding the compressible-flow module: an isentropic vortex (an exact
 * steady solution of the Euler equations) carried at u = 0.5 through a
 * periodic unit square of 64 x 64 nodes for one period, by the library's
 * four Runge-Kutta stages, on the backend the compiler picks (build lines
 * as for heat_embed.c).  In a periodic box the central fluxes telescope:
 * mass and energy must be conserved to round-off, and the vortex must come
 * back with its pressure dip.  Exit status 0 when both hold. */
#include <hd/nscbc.h>

#include <math.h>
#include <stdio.h>

#define NN 64

static int fail(const hd_ctx *ctx) { return fprintf(stderr, "%s\n", ctx->msg), 1; }

int main(void) {
  const double gamma = 1.4, u_inf = 0.5, h = 1.0 / NN;
  const double dt_max = hd_ns_dt_max(u_inf + 1.3, 1.3, h, h, 0.0); /* |u| + c, c <= 1.3 in the vortex */
  const long steps = (long)ceil(1.0 / u_inf / (0.5 * dt_max));
  hd_real *buf[4][4]; /* q0, accumulator, stage A, stage B */
  hd_ctx ctx;
  hd_ns_args a = {0};
  hd_ns_init_args ia = {0};
  hd_ns_sums s0, s1;
  const hd_range3 nodes = hd_range3_make(1, NN + 1, 1, NN + 1, 0, 1);
  long n;
  int b, c, k;
  if (hd_ctx_init(&ctx, 0) != HD_OK || !hd_grid_init(&a.g, 2, NN, NN, 1, 1)) return fail(&ctx);
  for (b = 0; b < 4; ++b)
    for (c = 0; c < 4; ++c)
      if (hd_dev_alloc(&ctx, (void **)&buf[b][c], (size_t)a.g.total * sizeof(hd_real)) != HD_OK ||
          hd_dev_zero(&ctx, buf[b][c], (size_t)a.g.total * sizeof(hd_real)) != HD_OK)
        return fail(&ctx);
  for (k = 0; k < 4; ++k) a.bc[k] = HD_NS_PERIODIC;
  a.dt = (hd_real)(1.0 / u_inf / steps), a.rhx = a.rhy = (hd_real)NN, a.gamma = (hd_real)gamma;
  a.p_inf = (hd_real)(1.0 / gamma); /* inviscid: viscous = 0 */
  for (c = 0; c < 4; ++c) a.q0[c] = buf[0][c], a.q[c] = buf[0][c], a.acc[c] = buf[1][c], ia.q[c] = buf[0][c];
  ia.g = a.g, ia.x0 = ia.y0 = -0.5, ia.hx = ia.hy = h;
  ia.ic.kind = HD_NS_IC_ISENTROPIC, ia.ic.gamma = gamma, ia.ic.u_inf = u_inf, ia.ic.strength = 0.3, ia.ic.rc = 0.1;
  if (hd_ns_init_loop(&ctx, &ia, nodes) != HD_OK || hd_ns_sums_reduce(&ctx, &a, nodes, &s0) != HD_OK) return fail(&ctx);
  for (n = 0; n < steps; ++n) /* stage k reads in[k], writes out[k]; the last writes q0 */
    for (k = 0; k < 4; ++k) {
      hd_real **in[4] = {buf[0], buf[2], buf[3], buf[2]}, **out[4] = {buf[2], buf[3], buf[2], buf[0]};
      a.stage = k;
      for (c = 0; c < 4; ++c) a.q[c] = in[k][c], a.out[c] = out[k][c];
      if (hd_ns_stage(&ctx, &a) != HD_OK) return fail(&ctx);
    }
  for (c = 0; c < 4; ++c) a.q[c] = buf[0][c];
  if (hd_ns_sums_reduce(&ctx, &a, nodes, &s1) != HD_OK) return fail(&ctx);
  printf("%s backend: %ld steps; mass %.3e, energy %.3e relative change; pressure dip %.6f -> %.6f\n", HD_BACKEND_NAME,
         steps, s1.mass / s0.mass - 1, s1.energy / s0.energy - 1, s0.dpmax, s1.dpmax);
  for (b = 0; b < 4; ++b)
    for (c = 0; c < 4; ++c) hd_dev_free(&ctx, buf[b][c]);
  hd_ctx_destroy(&ctx);
  return fabs(s1.mass / s0.mass - 1) < (sizeof(hd_real) == 4 ? 1e-5 : 1e-12) &&
                 fabs(s1.energy / s0.energy - 1) < (sizeof(hd_real) == 4 ? 1e-5 : 1e-12) &&
                 fabs(s1.dpmax / s0.dpmax - 1) < 0.05
             ? 0
             : 1;
}
