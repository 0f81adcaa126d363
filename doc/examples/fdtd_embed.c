/* SPDX-License-Identifier: BSD-3-Clause */
/* Embedding the FDTD module: a cubic PEC cavity of side 0.1 m in 24^3 Yee
 * cells, started on its TM110 mode, Ez = sin(pi x/L) sin(pi y/L), and
 * marched 300 steps by the library's H and E loops (build lines as for
 * heat_embed.c).  With H before E each step, the mode's amplitude after n
 * steps is exactly cos((n + 1/2) theta) / cos(theta / 2), where
 * 1 - cos theta = (c dt)^2 2 (2 sin(pi d/2L) / d)^2 / 2; a reduction
 * projects Ez on the mode to compare.  Exit status 0 when they agree. */
#include <hd/fdtd.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NC 24 /* cells a side */

typedef struct mode_args { const hd_real *ez; hd_grid g; } mode_args;
typedef struct proj { double up, pp; } proj;
HD_FN void proj_init(proj *p) { p->up = p->pp = 0.0; }
HD_FN void proj_merge(proj *p, const proj *o) { p->up += o->up, p->pp += o->pp; }
HD_FN void proj_pt(const mode_args *a, hd_idx i, hd_idx j, hd_idx k, proj *p) {
  const double phi = sin(3.14159265358979323846 * (double)(i - 1) / NC) * sin(3.14159265358979323846 * (double)(j - 1) / NC);
  p->up += phi * a->ez[hd_grid_at(&a->g, i, j, k)], p->pp += phi * phi;
}
HD_DEFINE_REDUCE_3D(project, mode_args, proj, proj_pt, proj_init, proj_merge)

static int fail(const hd_ctx *ctx) { return fprintf(stderr, "%s\n", ctx->msg), 1; }

int main(void) {
  const double len = 0.1, d = len / NC, dmin[3] = {d, d, d}, dt = 0.99 * hd_fdtd_dt_max(dmin);
  const double s = 2 * sin(3.14159265358979323846 * d / (2 * len)) / d;
  const double theta = acos(1 - 0.5 * pow(HD_FDTD_C0 * dt, 2) * 2 * s * s);
  hd_real tab[4], *coef, *mesh, *host, *f[6];
  unsigned char *mat;
  hd_ctx ctx;
  hd_fdtd_args a;
  mode_args ma;
  proj p;
  hd_idx i, j, k;
  int c, step, steps = 300;
  memset(&a, 0, sizeof a);
  if (hd_ctx_init(&ctx, 0) != HD_OK || !hd_grid_init(&a.g, 3, NC + 1, NC + 1, NC + 1, 1)) return fail(&ctx);
  host = (hd_real *)calloc((size_t)a.g.total, sizeof(hd_real));
  if (!host) return 1;
  for (c = 0; c < 6; ++c) { /* all fields zero but Ez, on the mode */
    if (hd_dev_alloc(&ctx, (void **)&f[c], (size_t)a.g.total * sizeof(hd_real)) != HD_OK) return fail(&ctx);
    if (c == HD_FDTD_EZ)
      for (k = 1; k <= NC; ++k) /* Ez lies between nodes k and k + 1 */
        for (j = 1; j <= NC + 1; ++j)
          for (i = 1; i <= NC + 1; ++i)
            host[hd_grid_at(&a.g, i, j, k)] = (hd_real)(sin(3.14159265358979323846 * (double)(i - 1) / NC) *
                                                        sin(3.14159265358979323846 * (double)(j - 1) / NC));
    hd_dev_upload(&ctx, f[c], host, (size_t)a.g.total * sizeof(hd_real));
    memset(host, 0, (size_t)a.g.total * sizeof(hd_real));
    a.f[c] = f[c];
  }
  /* every component in material 0 (vacuum); its E and H coefficients */
  hd_fdtd_coefficients(dt, HD_FDTD_EPS0, 0.0, &tab[0], &tab[1]);
  hd_fdtd_coefficients(dt, HD_FDTD_MU0, 0.0, &tab[2], &tab[3]);
  if (hd_dev_alloc(&ctx, (void **)&mat, (size_t)a.g.total) != HD_OK || hd_dev_zero(&ctx, mat, (size_t)a.g.total) != HD_OK ||
      hd_dev_mirror(&ctx, (void **)&coef, tab, sizeof tab) != HD_OK)
    return fail(&ctx);
  for (c = 0; c < 6; ++c) a.m[c] = mat;
  a.c1 = coef, a.c2 = coef + 1, a.d1 = coef + 2, a.d2 = coef + 3;
  for (i = 0; i < NC + 3; ++i) host[i] = (hd_real)(1 / d); /* 1/widths at every padded node: a uniform mesh */
  if (hd_dev_mirror(&ctx, (void **)&mesh, host, (NC + 3) * sizeof(hd_real)) != HD_OK) return fail(&ctx);
  for (c = 0; c < 3; ++c) {
    a.rn[c] = a.rc[c] = mesh;
    a.nc[c] = NC, a.elo[c] = 1, a.ehi[c] = NC - 1; /* PEC faces: tangential E stays 0 */
  }
  for (step = 0; step < steps; ++step)
    if (hd_fdtd_h_loop(&ctx, &a, hd_fdtd_nodes(&a)) != HD_OK || hd_fdtd_e_loop(&ctx, &a, hd_fdtd_nodes(&a)) != HD_OK)
      return fail(&ctx);
  ma.ez = f[HD_FDTD_EZ], ma.g = a.g;
  if (project(&ctx, &ma, hd_range3_make(1, NC + 2, 1, NC + 2, 1, NC + 1), &p) != HD_OK) return fail(&ctx);
  printf("%s backend: TM110 amplitude after %d steps %.9f, exact %.9f\n", HD_BACKEND_NAME, steps, p.up / p.pp,
         cos((steps + 0.5) * theta) / cos(theta / 2));
  for (c = 0; c < 6; ++c) hd_dev_free(&ctx, f[c]);
  hd_dev_free(&ctx, mat), hd_dev_unmirror(&ctx, coef, tab), hd_dev_unmirror(&ctx, mesh, host);
  free(host);
  hd_ctx_destroy(&ctx);
  return fabs(p.up / p.pp - cos((steps + 0.5) * theta) / cos(theta / 2)) < (sizeof(hd_real) == 4 ? 1e-4 : 1e-9) ? 0 : 1;
}
