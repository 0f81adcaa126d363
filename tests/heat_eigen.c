/* SPDX-License-Identifier: BSD-3-Clause */
/* Discrete eigenmodes of the explicit scheme decay by exactly
 *   G = 1 - sum_d 4 c_d sin^2(k_d pi / (2 n_d)),  c_d = alpha dt / dx_d^2
 * per step (derivation in include/hd/heat.h).  Cosine modes with adiabatic
 * faces and sine modes with fixed faces, 2-D and 3-D, on every backend and
 * in both precisions: after N steps (G^N near 0.3) the field must equal
 * base + A G^N prod f(k pi x / L) to 1e-12 of the mode amplitude in double
 * and 1e-5 in single.  A wrong G, a wrong ghost formula or a wrong cell
 * centre shifts the result by far more than that. */
#include <math.h>

#include "heat_common.h"

static void run_case(heat_backend *b, int single, int dim, int sine, double tb) {
  const heat_ops *ops = heat_ops_get(b->core->id, single);
  const double pi = 3.14159265358979323846;
  heat_problem p;
  double dx[3], c[3], g, amp, err = 0.0, *field;
  hd_idx n[3];
  long steps, i, j, k, m = 0;
  int d, mode[3] = {2, 3, 1};
  if (!ops) return;
  heat_problem_default(&p, dim, 40, 24, 16);
  p.length[0] = 1.0, p.length[1] = 0.6, p.length[2] = 0.4; /* dx = 0.025 on every axis */
  for (d = 0; d < 6; ++d) {
    p.bc_kind[d] = sine ? HD_HEAT_FIXED : HD_HEAT_ADIABATIC;
    p.bc_value[d] = tb;
  }
  p.init_kind = sine ? HD_HEAT_INIT_SINE : HD_HEAT_INIT_COSINE;
  p.base = tb;
  p.value = 1.0;
  for (d = 0; d < 3; ++d) {
    p.mode[d] = mode[d];
    n[d] = p.n[d];
    dx[d] = p.length[d] / (double)p.n[d];
  }
  p.dt = 0.9 * hd_heat_dt_max(p.alpha, dx, dim);
  for (d = 0; d < 3; ++d) c[d] = d < dim ? p.alpha * p.dt / (dx[d] * dx[d]) : 0.0;
  g = hd_heat_mode_factor(c, p.mode, n, dim);
  steps = (long)ceil(log(0.3) / log(g));
  amp = pow(g, (double)steps);
  field = (double *)malloc((size_t)heat_cells(&p) * sizeof(double));
  if (!field) bail("out of memory");
  if (!heat_run(b, ops, &p, steps, field, NULL)) {
    ok(0, "%s/%s %d-D %s run", ops->backend, ops->precision, dim, sine ? "sine" : "cosine");
    free(field);
    return;
  }
  for (k = 0; k < p.n[2]; ++k)
    for (j = 0; j < p.n[1]; ++j)
      for (i = 0; i < p.n[0]; ++i) {
        double x[3], prod = 1.0, ref;
        x[0] = (i + 0.5) * dx[0], x[1] = (j + 0.5) * dx[1], x[2] = (k + 0.5) * dx[2];
        for (d = 0; d < dim; ++d) {
          double arg = p.mode[d] * pi * x[d] / p.length[d];
          prod *= sine ? sin(arg) : cos(arg);
        }
        ref = tb + amp * prod;
        err = fmax(err, fabs(field[m++] - ref));
      }
  err /= amp;
  {
    double tol = single ? 1e-5 : 1e-12;
    ok(err <= tol,
       "%s/%s %d-D %s mode with %s faces (Tb = %g): %ld steps, G = %.9f, G^N = %.4f, "
       "max error %.3g of the amplitude (tolerance %g)",
       ops->backend, ops->precision, dim, sine ? "sine" : "cosine", sine ? "fixed" : "adiabatic",
       tb, steps, g, amp, err, tol);
  }
  free(field);
}

int main(void) {
  heat_backend be[HD_B_COUNT];
  int nb = heat_backends_open(be), b, single, dim;
  for (b = 0; b < nb; ++b)
    for (single = 0; single <= 1; ++single)
      for (dim = 2; dim <= 3; ++dim) {
        run_case(&be[b], single, dim, 0, 0.0);
        run_case(&be[b], single, dim, 1, 0.0);
        if (!single) run_case(&be[b], single, dim, 1, 0.75); /* 2 Tb - T ghost with Tb != 0 */
      }
  heat_backends_close(be, nb);
  return done_testing();
}
