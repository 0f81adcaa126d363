/* SPDX-License-Identifier: BSD-3-Clause */
/* Embedding the cavity module's streamfunction solver (hd/poisson.h): the
 * 5-point Poisson equation on a square of 256 x 256 cells with u = 0 on the
 * edge, solved by multigrid V-cycles on the backend the compiler picks
 * (build lines as for heat_embed.c).  The right-hand side is the discrete
 * eigenvalue times the mode phi = sin(pi x) sin(2 pi y), so phi itself is
 * the exact discrete solution; exit status 0 when the solver finds it. */
#include <hd/poisson.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NC 256

int main(void) {
  const double pi = 3.14159265358979323846, h = 1.0 / NC;
  const double lambda = 4 / (h * h) * (pow(sin(pi / (2 * NC)), 2) + pow(sin(2 * pi / (2 * NC)), 2));
  const size_t count = (size_t)(NC + 1) * (NC + 1);
  hd_real *host = (hd_real *)calloc(count, sizeof(hd_real)), *u, *f;
  double err = 0.0;
  hd_ctx ctx;
  hd_pois_mg mg;
  hd_pois_opts opts = {0};
  hd_pois_result res;
  size_t i, j;
  if (!host || hd_ctx_init(&ctx, 0) != HD_OK || hd_pois_mg_create(&ctx, &mg, NC, h) != HD_OK ||
      hd_dev_alloc(&ctx, (void **)&u, count * sizeof(hd_real)) != HD_OK ||
      hd_dev_alloc(&ctx, (void **)&f, count * sizeof(hd_real)) != HD_OK)
    return fprintf(stderr, "setup: %s\n", ctx.msg), 1;
  for (j = 0; j <= NC; ++j) /* node (i, j) at offset i + j (NC + 1) */
    for (i = 0; i <= NC; ++i) host[i + j * (NC + 1)] = (hd_real)(lambda * sin(pi * i * h) * sin(2 * pi * j * h));
  hd_dev_upload(&ctx, f, host, count * sizeof(hd_real));
  hd_dev_zero(&ctx, u, count * sizeof(hd_real)); /* the first guess, and the boundary values */
  opts.tol = sizeof(hd_real) == 4 ? 3e-3 : 1e-11; /* single: 4 u / h^2 cancels to ~1e-3 of f */
  opts.max_iter = 50;
  if (hd_pois_mg_solve(&ctx, &mg, u, f, &opts, &res) != HD_OK) return fprintf(stderr, "%s\n", ctx.msg), 1;
  hd_dev_download(&ctx, host, u, count * sizeof(hd_real));
  for (j = 0; j <= NC; ++j)
    for (i = 0; i <= NC; ++i) err = fmax(err, fabs(host[i + j * (NC + 1)] - sin(pi * i * h) * sin(2 * pi * j * h)));
  printf("%s backend: %ld V-cycles, residual %.2e of max|f|, max |u - phi| = %.2e\n", HD_BACKEND_NAME, res.iterations,
         res.residual, err);
  hd_dev_free(&ctx, u), hd_dev_free(&ctx, f);
  hd_pois_mg_destroy(&ctx, &mg);
  free(host);
  hd_ctx_destroy(&ctx);
  return err < (sizeof(hd_real) == 4 ? 1e-3 : 1e-9) ? 0 : 1;
}
