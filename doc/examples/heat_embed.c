/* SPDX-License-Identifier: BSD-3-Clause */
/* Embedding hd in your own code: the heat module from the headers alone.
 * The same file builds three ways (see README.md):
 *   cc  -O2 -I$HD/include heat_embed.c -lm             serial loops
 *   cc  -O2 -fopenmp -I$HD/include heat_embed.c -lm    OpenMP loops
 *   nvcc -O2 -x cu -I$HD/include heat_embed.c           CUDA kernels
 * It runs a cosine eigenmode for 100 steps and checks the decay against the
 * scheme's exact factor; exit status 0 when it matches. */
#include <hd/heat.h>

#include <math.h>
#include <stdio.h>

int main(void) {
  hd_ctx ctx;
  hd_grid g;
  hd_heat_args a;
  hd_heat_init ic;
  hd_stats st;
  hd_field f;
  const double dx[3] = {1.0 / 64, 1.0 / 64, 1.0};
  const int mode[3] = {1, 2, 0};
  double c[3], expect;
  hd_real *t0, *t1;
  int step, d;

  if (hd_ctx_init(&ctx, 0) != HD_OK || !hd_grid_init(&g, 2, 64, 64, 1, 1)) {
    fprintf(stderr, "setup: %s\n", ctx.msg);
    return 1;
  }
  /* device memory: GPU memory in a CUDA build, host memory otherwise */
  if (hd_dev_alloc(&ctx, (void **)&t0, g.total * sizeof(hd_real)) != HD_OK ||
      hd_dev_alloc(&ctx, (void **)&t1, g.total * sizeof(hd_real)) != HD_OK) {
    fprintf(stderr, "%s\n", ctx.msg);
    return 1;
  }
  memset(&a, 0, sizeof a);
  memset(&ic, 0, sizeof ic);
  if (hd_heat_setup(&ctx, &a, &g, 1.0, 0.2 * hd_heat_dt_max(1.0, dx, 2), dx, 0.0) != HD_OK) {
    fprintf(stderr, "%s\n", ctx.msg);
    return 1;
  }
  for (d = 0; d < HD_NFACES; ++d) a.bc[d].kind = HD_HEAT_ADIABATIC;
  ic.kind = HD_HEAT_INIT_COSINE;
  ic.value = 1;
  ic.length[0] = ic.length[1] = ic.length[2] = 1;
  ic.mode[0] = mode[0], ic.mode[1] = mode[1];
  hd_heat_initialise(&ctx, t0, &g, &ic);
  a.t = a.t_next = t0;
  hd_heat_fill_ghosts(&ctx, &a);
  for (step = 0; step < 100; ++step) {
    hd_real *tmp;
    a.t = t0, a.t_next = t1;
    if (hd_heat_step(&ctx, &a) != HD_OK) {
      fprintf(stderr, "%s\n", ctx.msg);
      return 1;
    }
    tmp = t0, t0 = t1, t1 = tmp;
  }
  f.f = t0;
  f.g = g;
  hd_field_stats(&ctx, &f, hd_grid_interior(&g), &st);
  for (d = 0; d < 3; ++d) c[d] = (double)a.c[d];
  expect = pow(hd_heat_mode_factor(c, mode, g.n, 2), 100);
  /* the peak cell sits half a cell from the crest: cos(pi/128) cos(2 pi/128) */
  expect *= cos(3.14159265358979323846 / 128) * cos(2 * 3.14159265358979323846 / 128);
  printf("%s backend: max T after 100 steps %.9f, expected %.9f\n", HD_BACKEND_NAME, st.max, expect);
  hd_dev_free(&ctx, t0);
  hd_dev_free(&ctx, t1);
  hd_ctx_destroy(&ctx);
  return fabs(st.max - expect) < 1e-5 ? 0 : 1;
}
