/* SPDX-License-Identifier: BSD-3-Clause */
/* Cross-backend equivalence of the heat module.
 *   OpenMP vs serial: the same code on the same data in the same order, so
 *   fields and statistics must be identical bit for bit at 1, 2 and 3 threads.
 *   CUDA vs serial: nvcc contracts a*b+c into fused multiply-adds where the
 *   CPU build rounds twice, so each update may differ by a few units in the
 *   last place; diffusion is contractive (|G| <= 1), so differences add up at
 *   most linearly: tolerance 8 N eps max|T| per element after N steps.
 * Mixed boundaries (fixed, convective, flux, adiabatic), a source term and an odd step count (buffers swapped).
 * 3-D runs three times: nx = 67 (the scalar tuned kernel), and nx = 68 and
 * 72, whose rows the driver aligns for the CUDA vector kernel (partial last
 * warps; x ghosts as whole sectors at 72 in both precisions, at 68 in
 * double). */
#include <float.h>
#include <math.h>

#include "heat_common.h"

static void mixed_problem(heat_problem *p, int dim, long nx) {
  double dx[3];
  int d;
  heat_problem_default(p, dim, nx, 45, 23);
  p->bc_kind[HD_XLO] = HD_HEAT_FIXED, p->bc_value[HD_XLO] = 1.0;
  p->bc_kind[HD_YLO] = HD_HEAT_FIXED, p->bc_value[HD_YLO] = -0.5;
  p->bc_kind[HD_XHI] = HD_HEAT_CONVECTIVE, p->bc_value[HD_XHI] = 0.4, p->bc_h[HD_XHI] = 6.0;
  p->bc_kind[HD_YHI] = HD_HEAT_FLUX, p->bc_value[HD_YHI] = -1.5;
  p->k = 2.5;
  if (dim == 3) p->bc_kind[HD_ZHI] = HD_HEAT_FIXED, p->bc_value[HD_ZHI] = 0.25;
  p->init_kind = dim == 2 ? HD_HEAT_INIT_BOX : HD_HEAT_INIT_SPHERE;
  p->base = 0.1;
  p->value = 2.0;
  p->q = 0.3;
  p->length[1] = 0.8;
  for (d = 0; d < 3; ++d) dx[d] = p->length[d] / (double)p->n[d];
  p->dt = 0.95 * hd_heat_dt_max(p->alpha, dx, dim);
}

int main(void) {
  heat_backend be[HD_B_COUNT];
  int nb = heat_backends_open(be), b, single, dim, t, c;
  const long steps = 57;
  for (single = 0; single <= 1; ++single)
    for (c = 0; c < 4; ++c) {
      const long nx = c < 2 ? 67 : c == 2 ? 68 : 72;
      heat_problem p;
      const heat_ops *ref_ops = heat_ops_get(HD_B_SERIAL, single);
      size_t cells;
      double *ref, *f, tmax = 0.0;
      hd_stats ref_st, st;
      size_t i;
      dim = c ? 3 : 2;
      mixed_problem(&p, dim, nx);
      cells = (size_t)heat_cells(&p);
      ref = (double *)malloc(cells * sizeof(double));
      f = (double *)malloc(cells * sizeof(double));
      if (!ref || !f) bail("out of memory");
      if (!heat_run(&be[0], ref_ops, &p, steps, ref, &ref_st)) bail("serial reference run failed");
      for (i = 0; i < cells; ++i) tmax = fmax(tmax, fabs(ref[i]));
      if (ref_ops->has_tuned) { /* the reference ran the tuned rows; the generic loops agree bit for bit */
        heat_problem q = p;
        q.variant = HD_VARIANT_GENERIC;
        ok(heat_run(&be[0], ref_ops, &q, steps, f, &st) && !memcmp(f, ref, cells * sizeof(double)),
           "serial/%s %d-D nx=%ld: tuned rows bit-identical to the generic loops", ref_ops->precision, dim, nx);
      }
      for (b = 1; b < nb; ++b) {
        const heat_ops *ops = heat_ops_get(be[b].core->id, single);
        if (!ops) continue;
        if (be[b].core->id == HD_B_OPENMP) {
          for (t = 1; t <= 3; ++t) {
            be[b].ctx.threads = t;
            ok(heat_run(&be[b], ops, &p, steps, f, &st) && !memcmp(f, ref, cells * sizeof(double)) &&
                   !memcmp(&st.sum, &ref_st.sum, sizeof st.sum) && st.min == ref_st.min &&
                   st.max == ref_st.max,
               "openmp/%s %d-D nx=%ld, %d thread%s: field and stats bit-identical to serial",
               ops->precision, dim, nx, t, t > 1 ? "s" : "");
          }
          if (ops->has_tuned) {
            heat_problem q = p;
            q.variant = HD_VARIANT_GENERIC;
            be[b].ctx.threads = 2;
            ok(heat_run(&be[b], ops, &q, steps, f, NULL) && !memcmp(f, ref, cells * sizeof(double)),
               "openmp/%s %d-D nx=%ld, 2 threads: generic loops bit-identical to the serial tuned rows",
               ops->precision, dim, nx);
          }
          be[b].ctx.threads = 0;
        } else {
          double eps = single ? FLT_EPSILON : DBL_EPSILON, tol = 8.0 * steps * eps * tmax, err = 0.0;
          int ran = heat_run(&be[b], ops, &p, steps, f, &st);
          for (i = 0; ran && i < cells; ++i) err = fmax(err, fabs(f[i] - ref[i]));
          ok(ran && err <= tol, "%s/%s %d-D nx=%ld vs serial: max |difference| %.3g (tolerance %.3g)",
             ops->backend, ops->precision, dim, nx, err, tol);
          ok(ran && fabs(st.sum - ref_st.sum) <= tol * (double)cells,
             "%s/%s %d-D nx=%ld total vs serial: %.3g apart (tolerance %.3g)", ops->backend,
             ops->precision, dim, nx, fabs(st.sum - ref_st.sum), tol * (double)cells);
          if (ops->has_tuned) {
            /* the tuned kernel against the generic one, with the default
             * shape and with a short march that splits the slow axis into
             * uneven pieces */
            static const int shapes[2][3] = {{0, 0, 0}, {64, 2, 5}};
            int sh;
            for (sh = 0; sh < 2; ++sh) {
              heat_problem q = p;
              double *g = (double *)malloc(cells * sizeof(double));
              int ran2;
              if (!g) bail("out of memory");
              q.variant = HD_VARIANT_GENERIC;
              memcpy(q.block, shapes[sh], sizeof shapes[sh]);
              ran2 = heat_run(&be[b], ops, &q, steps, g, NULL);
              q.variant = HD_VARIANT_TUNED;
              ran2 = ran2 && heat_run(&be[b], ops, &q, steps, f, NULL);
              for (err = 0.0, i = 0; ran2 && i < cells; ++i) err = fmax(err, fabs(f[i] - g[i]));
              ok(ran2 && err <= tol,
                 "%s/%s %d-D nx=%ld tuned kernel (block %d,%d, march %d) vs generic: max |difference| "
                 "%.3g (tolerance %.3g)",
                 ops->backend, ops->precision, dim, nx, shapes[sh][0], shapes[sh][1], shapes[sh][2],
                 err, tol);
              free(g);
            }
          }
        }
      }
      free(ref);
      free(f);
    }
  heat_backends_close(be, nb);
  return done_testing();
}
