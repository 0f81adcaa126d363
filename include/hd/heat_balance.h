/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/heat_balance.h - the heat that steps move through the faces of the
 * grid, as the scheme moves it: energy accounting for hd/heat.h and
 * hd/heat_media.h.
 *
 * A face cell c beside face f (axis d) gains in one step, from outside,
 *   dt k_c (T_ghost - T_c) V / dx_d^2
 * (k_c its conductivity, V the cell volume); the interior exchanges cancel
 * in pairs (the conductances are symmetric), so sum_c (rho c)_c V T_c
 * changes by the faces' terms plus the sources'.  hd_heat_flow_step adds
 * every face cell's term, in double, to an accumulator of its own: the
 * totals can then be summed in any order (exactly, on the host). */
#ifndef HD_HEAT_BALANCE_H
#define HD_HEAT_BALANCE_H

#include "heat_media.h"

typedef struct hd_heat_flow_args {
  const hd_real *t;          /* the field before the step, ghosts valid */
  hd_grid g;
  const unsigned char *m;    /* material map (hd/heat_media.h), or NULL: conductivity k0 */
  const hd_real *k;          /* per material conductivity */
  double k0;
  double w[3];               /* dt V / dx_d^2 */
  double *acc[HD_NFACES];    /* per face: a double per face cell, the other two axes in order, the first
                                fastest; NULL: the face is not counted (adiabatic, halo) */
} hd_heat_flow_args;

/* The face cells of the line through (i, j, k) along `axis`. */
HD_FN void hd_heat_flow_pair(const hd_heat_flow_args *a, int axis, hd_idx i, hd_idx j, hd_idx k) {
  const hd_idx ijk[3] = {i, j, k}, s = a->g.stride[axis];
  const int b0 = axis == 0 ? 1 : 0, b1 = axis == 2 ? 1 : 2;
  const hd_idx at = (ijk[b0] - (b0 < a->g.dim ? 1 : 0)) + (ijk[b1] - (b1 < a->g.dim ? 1 : 0)) * a->g.n[b0];
  const hd_idx lo = hd_grid_at(&a->g, axis == 0 ? 1 : i, axis == 1 ? 1 : j, axis == 2 ? 1 : k);
  const hd_idx hi = lo + (a->g.n[axis] - 1) * s;
  double *al = a->acc[2 * axis], *ah = a->acc[2 * axis + 1];
  if (al) {
    const double kc = a->m ? (double)a->k[hd_heat_mat(a->m[lo])] : a->k0;
    al[at] += kc * ((double)a->t[lo - s] - (double)a->t[lo]) * a->w[axis];
  }
  if (ah) {
    const double kc = a->m ? (double)a->k[hd_heat_mat(a->m[hi])] : a->k0;
    ah[at] += kc * ((double)a->t[hi + s] - (double)a->t[hi]) * a->w[axis];
  }
}
HD_FN void hd_heat_flow_x(const hd_heat_flow_args *a, hd_idx i, hd_idx j, hd_idx k) { hd_heat_flow_pair(a, 0, i, j, k); }
HD_FN void hd_heat_flow_y(const hd_heat_flow_args *a, hd_idx i, hd_idx j, hd_idx k) { hd_heat_flow_pair(a, 1, i, j, k); }
HD_FN void hd_heat_flow_z(const hd_heat_flow_args *a, hd_idx i, hd_idx j, hd_idx k) { hd_heat_flow_pair(a, 2, i, j, k); }
HD_DEFINE_FOR_3D(hd_heat_flow_x_loop, hd_heat_flow_x, hd_heat_flow_args)
HD_DEFINE_FOR_3D(hd_heat_flow_y_loop, hd_heat_flow_y, hd_heat_flow_args)
HD_DEFINE_FOR_3D(hd_heat_flow_z_loop, hd_heat_flow_z, hd_heat_flow_args)

/* Adds the heat the next step from a->t moves in through each counted
 * face. */
HD_HOST_FN hd_status hd_heat_flow_step(hd_ctx *ctx, const hd_heat_flow_args *a) {
  const hd_range3 r = hd_grid_interior(&a->g);
  hd_range3 f;
  hd_status s = HD_OK;
  int d;
  for (d = 0; d < a->g.dim && s == HD_OK; ++d) {
    if (!a->acc[2 * d] && !a->acc[2 * d + 1]) continue;
    f = r;
    f.hi[d] = f.lo[d] + 1;
    s = d == 0 ? hd_heat_flow_x_loop(ctx, a, f) : d == 1 ? hd_heat_flow_y_loop(ctx, a, f) : hd_heat_flow_z_loop(ctx, a, f);
  }
  return s;
}

/* The heat content of each row of interior cells (y, z; y fastest),
 * sum_i (rho c)_i V T_i in double, into rows. */
typedef struct hd_heat_energy_args {
  const hd_real *t;
  hd_grid g;
  const unsigned char *m; /* or NULL: rhoc0 */
  const double *rhoc;     /* per material */
  double rhoc0, vol;
  double *rows;
} hd_heat_energy_args;

HD_FN void hd_heat_energy_row(const hd_heat_energy_args *a, hd_idx j, hd_idx k) {
  const hd_range3 r = hd_grid_interior(&a->g);
  const hd_idx c0 = hd_grid_at(&a->g, r.lo[0], r.lo[1] + j, r.lo[2] + k);
  double s = 0.0;
  hd_idx i;
  for (i = 0; i < a->g.n[0]; ++i)
    s += (a->m ? a->rhoc[hd_heat_mat(a->m[c0 + i])] : a->rhoc0) * (double)a->t[c0 + i];
  a->rows[j + k * a->g.n[1]] = s * a->vol;
}
HD_DEFINE_FOR_2D(hd_heat_energy_loop, hd_heat_energy_row, hd_heat_energy_args)

#endif /* HD_HEAT_BALANCE_H */
