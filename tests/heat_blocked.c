/* SPDX-License-Identifier: BSD-3-Clause */
/* Temporal blocking (hd/heat_blocked.h): T steps a sweep against T single
 * steps, bit for bit, on every backend and precision.
 *
 * Odd sizes in 2-D and 3-D, every face kind but halo at once (fixed,
 * convective, flux, adiabatic), a uniform source or a source field, and
 * 13 steps in blocks of 2, 3, 4, 5 and 13 (blocks that do not divide the
 * steps end in a shorter one; CUDA launches take at most 8).  On the CPU
 * the slab thickness is forced to 1, 2 and 3 cells (ctx->block[2]) so that
 * every wave holds several slabs, and left to the cache rule; on CUDA the
 * default blocks and blocks of 32 x 4 threads (3-D: 64 x 4 R cells, R = 3
 * rows a thread in single precision and 2 in double, launches of at most 5
 * and 3 steps; 2-D: a warp a block, at most 8 steps) streaming
 * segments of 16 planes (several tiles along each axis, two segments).
 * The fields after the steps must equal those of single steps exactly.  A
 * halo face is refused. */
#include <hd/heat_blocked.h>

#include "heat_common.h"

static void faces(heat_problem *p) {
  p->k = 1.5;
  p->bc_kind[HD_XLO] = HD_HEAT_FIXED, p->bc_value[HD_XLO] = 1.25;
  p->bc_kind[HD_XHI] = HD_HEAT_CONVECTIVE, p->bc_value[HD_XHI] = -0.5, p->bc_h[HD_XHI] = 4.0;
  p->bc_kind[HD_YLO] = HD_HEAT_FLUX, p->bc_value[HD_YLO] = 0.75;
  p->bc_kind[HD_ZLO] = HD_HEAT_CONVECTIVE, p->bc_value[HD_ZLO] = 0.25, p->bc_h[HD_ZLO] = 1.0;
  p->bc_kind[HD_ZHI] = HD_HEAT_FIXED, p->bc_value[HD_ZHI] = -1.0;
}

int main(void) {
  heat_backend be[HD_B_COUNT];
  const int nb = heat_backends_open(be);
  static const int blocks[5] = {2, 3, 4, 5, 13}, slabs[4] = {1, 2, 3, 0};
  const long steps = 13;
  int k, prec, dim, src;
  for (k = 0; k < nb; ++k)
    for (prec = 0; prec < 2; ++prec)
      for (dim = 2; dim <= 3; ++dim)
        for (src = 0; src < 2; ++src) {
          const heat_ops *ops = heat_ops_get(be[k].core->id, prec);
          const int cpu = be[k].core->id != HD_B_CUDA;
          heat_problem p;
          double dx[3], *ref, *out, *q = NULL, cells;
          int b, sl, bad = 0, runs = 0;
          long c;
          if (!ops) continue;
          heat_problem_default(&p, dim, dim == 3 ? 77 : 241, 29, 19); /* two tiles along x or more (3-D: 64 cells, 2-D: 32 C) */
          faces(&p);
          p.init_kind = dim == 2 ? HD_HEAT_INIT_BOX : HD_HEAT_INIT_SPHERE;
          p.base = 0.5, p.value = 2.0;
          for (c = 0; c < 3; ++c) dx[c] = p.length[c] / (double)p.n[c];
          p.dt = 0.9 * hd_heat_dt_max(p.alpha, dx, dim);
          cells = heat_cells(&p);
          ref = (double *)malloc((size_t)cells * sizeof(double)), out = (double *)malloc((size_t)cells * sizeof(double));
          if (!ref || !out) bail("out of memory");
          if (src) { /* a source field, else a uniform source */
            q = (double *)malloc((size_t)cells * sizeof(double));
            if (!q) bail("out of memory");
            for (c = 0; c < (long)cells; ++c) q[c] = 0.3 * (double)((c * 7919) % 11) - 1.0;
            p.source_values = q, p.source_field_max = 2.0;
          } else {
            p.q = 0.4;
          }
          if (!heat_run(&be[k], ops, &p, steps, ref, NULL)) bail("single steps failed");
          for (b = 0; b < 5; ++b)
            for (sl = 0; sl < (cpu ? 4 : 2); ++sl) {
              heat_problem pb = p;
              pb.time_block = blocks[b];
              if (cpu) pb.block[2] = slabs[sl];
              else if (sl) pb.block[0] = 32, pb.block[1] = 4, pb.block[2] = 16;
              ++runs;
              if (!heat_run(&be[k], ops, &pb, steps, out, NULL) || memcmp(out, ref, (size_t)cells * sizeof(double))) {
                ++bad;
                diag("%s/%s %d-D: blocks of %d, %s %d differ", ops->backend, ops->precision, dim, blocks[b],
                     cpu ? "slab" : "shape", cpu ? slabs[sl] : sl);
              }
            }
          ok(!bad, "%s/%s %d-D %dx%dx%d, %s, 13 steps in blocks of 2, 3, 4, 5, 13%s: bit-identical to single steps (%d runs)",
             ops->backend, ops->precision, dim, (int)p.n[0], (int)p.n[1], (int)p.n[2],
             src ? "a source field" : "a uniform source",
             cpu ? " (slabs of 1, 2, 3 cells and the cache's)" : " (default blocks, and 32 x 4 in 16-plane segments)",
             runs);
          free(ref), free(out), free(q);
        }
  { /* a halo face is refused */
    hd_ctx ctx;
    hd_heat_args a;
    hd_status s;
    int in_next;
    memset(&a, 0, sizeof a);
    hd_ctx_init(&ctx, 0);
    a.bc[HD_YHI].kind = HD_HEAT_HALO;
    s = hd_heat_step_blocked(&ctx, &a, 2, &in_next);
    ok(s == HD_ERR_UNSUPPORTED && strstr(ctx.msg, "halo"), "a halo face: refused (%s)", ctx.msg);
  }
  heat_backends_close(be, nb);
  return done_testing();
}
