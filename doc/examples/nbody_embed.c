/* SPDX-License-Identifier: BSD-3-Clause */
/* Embedding the N-body module: a Plummer sphere of 1024 bodies (Henon
 * units, softening 0.01) for 200 kick-drift-kick leapfrog steps of 1e-3,
 * from the headers alone, on the backend the compiler picks (build lines
 * as for heat_embed.c).  The total energy, from the potential and the
 * diagnostics reduction, must be conserved to 1e-6 (double) or 1e-5
 * (single) relative; exit status 0 when it is. */
#include <hd/nbody.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NB 1024

/* Total energy: potentials, then the deterministic reduction. */
static double energy(hd_ctx *ctx, hd_real *const b[10], double *phi) {
  hd_nbody_pot_args pa;
  hd_nbody_diag_args da;
  hd_nbody_diag d;
  pa.x = b[0], pa.y = b[1], pa.z = b[2], pa.m = b[6], pa.phi = phi, pa.n = NB, pa.eps2 = 1e-4, pa.periodic = 0;
  da.x = b[0], da.y = b[1], da.z = b[2], da.vx = b[3], da.vy = b[4], da.vz = b[5], da.m = b[6], da.phi = phi;
  if (hd_nbody_potential(ctx, &pa, 0, NB) != HD_OK || hd_nbody_diag_reduce(ctx, &da, 0, NB, &d) != HD_OK) return NAN;
  return d.kinetic + d.potential;
}

int main(void) {
  static double host[7][NB];
  hd_real *b[10], tmp[NB]; /* x y z vx vy vz m ax ay az */
  double *phi, e0, e1;
  hd_ctx ctx;
  hd_nbody_args f;
  hd_nbody_move_args mv;
  int k, i, step;
  if (hd_ctx_init(&ctx, 0) != HD_OK) return fprintf(stderr, "setup: %s\n", ctx.msg), 1;
  hd_nbody_ic_plummer(NB, 1, host[0], host[1], host[2], host[3], host[4], host[5], host[6]);
  for (k = 0; k < 10; ++k) {
    if (hd_dev_alloc(&ctx, (void **)&b[k], NB * sizeof(hd_real)) != HD_OK) return fprintf(stderr, "%s\n", ctx.msg), 1;
    for (i = 0; i < NB; ++i) tmp[i] = k < 7 ? (hd_real)host[k][i] : 0;
    hd_dev_upload(&ctx, b[k], tmp, sizeof tmp);
  }
  if (hd_dev_alloc(&ctx, (void **)&phi, NB * sizeof(double)) != HD_OK) return fprintf(stderr, "%s\n", ctx.msg), 1;
  f.x = b[0], f.y = b[1], f.z = b[2], f.m = b[6], f.ax = b[7], f.ay = b[8], f.az = b[9];
  f.n = NB, f.eps2 = (hd_real)1e-4, f.periodic = 0;
  mv.x = b[0], mv.y = b[1], mv.z = b[2], mv.vx = b[3], mv.vy = b[4], mv.vz = b[5];
  mv.ax = b[7], mv.ay = b[8], mv.az = b[9], mv.periodic = 0;
  e0 = energy(&ctx, b, phi);
  hd_nbody_accel_generic(&ctx, &f, 0, NB);
  for (step = 0; step < 200; ++step) { /* half kick and drift, forces, half kick */
    mv.kick = (hd_real)5e-4, mv.drift = (hd_real)1e-3;
    hd_nbody_kick_drift(&ctx, &mv, 0, NB);
    hd_nbody_accel_generic(&ctx, &f, 0, NB);
    if (hd_nbody_kick(&ctx, &mv, 0, NB) != HD_OK) return fprintf(stderr, "%s\n", ctx.msg), 1;
  }
  e1 = energy(&ctx, b, phi);
  printf("%s backend: energy %.9f -> %.9f, relative change %.2e\n", HD_BACKEND_NAME, e0, e1, fabs(e1 - e0) / fabs(e0));
  for (k = 0; k < 10; ++k) hd_dev_free(&ctx, b[k]);
  hd_dev_free(&ctx, phi);
  hd_ctx_destroy(&ctx);
  return fabs(e1 - e0) < (sizeof(hd_real) == 4 ? 1e-5 : 1e-6) * fabs(e0) ? 0 : 1;
}
