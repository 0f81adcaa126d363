/* SPDX-License-Identifier: BSD-3-Clause */
/* Your own kernel: the 2-D wave equation u_tt = c^2 lap(u), written once
 * and run as serial loops, OpenMP loops or CUDA kernels (build lines as for
 * heat_embed.c).  A point function and HD_DEFINE_FOR_2D make the step; a
 * point function with an accumulator and HD_DEFINE_REDUCE_2D make a
 * deterministic reduction.  Leapfrog on a square with u = 0 on the edge,
 * started on the eigenmode phi = sin(pi mx i/(N+1)) sin(pi my j/(N+1)):
 * u^n = cos(n theta) phi exactly, cos theta = 1 - mu/2.  Exit 0 if so. */
#include <hd/hd.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N 126 /* interior nodes a side; the edge nodes stay 0 */

typedef struct wave_args {
  const hd_real *prev, *u;
  hd_real *next;
  hd_real c2; /* (c dt / h)^2 */
} wave_args;

HD_FN void wave_pt(const wave_args *a, hd_idx i, hd_idx j) {
  const hd_idx n = j * (N + 2) + i;
  const hd_real lap = a->u[n + 1] + a->u[n - 1] + a->u[n + N + 2] + a->u[n - N - 2] - 4 * a->u[n];
  a->next[n] = 2 * a->u[n] - a->prev[n] + a->c2 * lap;
}
HD_DEFINE_FOR_2D(wave_step, wave_pt, wave_args)

typedef struct proj_args { const hd_real *u, *phi; } proj_args;
typedef struct proj { double up, pp; } proj; /* <u, phi>, <phi, phi> */
HD_FN void proj_init(proj *p) { p->up = p->pp = 0.0; }
HD_FN void proj_merge(proj *p, const proj *o) { p->up += o->up, p->pp += o->pp; }
HD_FN void proj_pt(const proj_args *a, hd_idx i, hd_idx j, proj *p) {
  const hd_idx n = j * (N + 2) + i;
  p->up += (double)a->u[n] * a->phi[n], p->pp += (double)a->phi[n] * a->phi[n];
}
HD_DEFINE_REDUCE_2D(project, proj_args, proj, proj_pt, proj_init, proj_merge)

int main(void) {
  const size_t bytes = (size_t)(N + 2) * (N + 2) * sizeof(hd_real);
  const double pi = 3.14159265358979323846, c2 = 0.25, kx = pi * 2 / (N + 1), ky = pi * 3 / (N + 1);
  const double mu = 4 * c2 * (sin(kx / 2) * sin(kx / 2) + sin(ky / 2) * sin(ky / 2)), theta = acos(1 - mu / 2);
  const hd_range3 inner = hd_range3_make(1, N + 1, 1, N + 1, 0, 1);
  hd_real *host = (hd_real *)calloc((size_t)(N + 2) * (N + 2), sizeof(hd_real)), *f[4];
  hd_ctx ctx;
  wave_args w;
  proj_args pa;
  proj p;
  int i, j, step, steps = 400;
  if (!host || hd_ctx_init(&ctx, 0) != HD_OK) return fprintf(stderr, "setup: %s\n", ctx.msg), 1;
  for (i = 0; i < 4; ++i) /* phi, then three time levels */
    if (hd_dev_alloc(&ctx, (void **)&f[i], bytes) != HD_OK) return fprintf(stderr, "%s\n", ctx.msg), 1;
  for (j = 1; j <= N; ++j)
    for (i = 1; i <= N; ++i) host[j * (N + 2) + i] = (hd_real)(sin(kx * i) * sin(ky * j));
  hd_dev_upload(&ctx, f[0], host, bytes), hd_dev_upload(&ctx, f[2], host, bytes); /* phi, u^0 */
  for (i = 0; i < (N + 2) * (N + 2); ++i) host[i] = (hd_real)(cos(theta) * host[i]);
  hd_dev_upload(&ctx, f[1], host, bytes), hd_dev_upload(&ctx, f[3], host, bytes); /* u^-1; edges 0 */
  w.c2 = (hd_real)c2;
  w.prev = f[1], w.u = f[2], w.next = f[3];
  for (step = 0; step < steps; ++step) {
    hd_real *spent = (hd_real *)w.prev;
    if (wave_step(&ctx, &w, inner) != HD_OK) return fprintf(stderr, "%s\n", ctx.msg), 1;
    w.prev = w.u, w.u = w.next, w.next = spent; /* the levels rotate */
  }
  pa.u = w.u, pa.phi = f[0];
  if (project(&ctx, &pa, inner, &p) != HD_OK) return fprintf(stderr, "%s\n", ctx.msg), 1;
  printf("%s backend: amplitude after %d steps %.9f, exact %.9f\n", HD_BACKEND_NAME, steps, p.up / p.pp,
         cos(steps * theta));
  for (i = 0; i < 4; ++i) hd_dev_free(&ctx, f[i]);
  free(host);
  hd_ctx_destroy(&ctx);
  return fabs(p.up / p.pp - cos(steps * theta)) < (sizeof(hd_real) == 4 ? 1e-3 : 1e-9) ? 0 : 1;
}
