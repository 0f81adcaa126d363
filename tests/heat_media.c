/* SPDX-License-Identifier: BSD-3-Clause */
/* Heat conduction through several materials (hd/heat_media.h), on every
 * backend.
 *
 * Composite wall.  Three layers along x (cell faces between them), fixed
 * Tb at x = 0, convection (h, T_inf) at x = L: in the steady state the flux
 * F is the same through every face, so from the first cell outwards
 *   T_1 = Tb - F dx / (2 k_1),   T_{i+1} = T_i - F dx / K_{i,i+1},
 * and the convective ghost g = a T_n + b closes it, F = k_n (T_n - g) / dx:
 * a linear equation for F, solved in long double.  Runs converge to that
 * discrete profile to 1e-10 relative (double).
 *
 * Conservation.  Adiabatic faces, a layered block and a sphere of other
 * materials: the heat sum_c (rho c)_c T_c is constant up to rounding (the
 * harmonic conductances are symmetric), and with volumetric sources it
 * grows by dt sum_c Q_c a step.
 *
 * Balance.  Fixed, convective and flux faces, sources, with and without
 * materials: the heat content sum (rho c) V T after N steps equals the
 * initial one plus N times the sources' heat a step plus the heat in
 * through each face as hd/heat_balance.h counts it, to 10 N eps of the
 * terms' sizes; OpenMP gives serial's sums bit for bit.
 *
 * Backends.  The CPU rows bit-identical to the generic loop; OpenMP
 * bit-identical to serial at 1-3 threads; CUDA within 8 N eps max|T| (nvcc
 * contracts multiply-adds). */
#include <float.h>
#include <math.h>

#include "heat_common.h"
#include "heat/media.h"

static double eps_of(const heat_ops *ops) { return ops->real_size == 4 ? FLT_EPSILON : DBL_EPSILON; }

static void add_material(heat_problem *p, double k, double rhoc, double q) {
  if (!p->nmat) p->nmat = 1, p->mat_k[0] = p->k > 0 ? p->k : 1.0, p->mat_rhoc[0] = p->mat_k[0] / p->alpha;
  p->mat_k[p->nmat] = k, p->mat_rhoc[p->nmat] = rhoc, p->mat_q[p->nmat] = q;
  ++p->nmat;
}

static void add_box(heat_problem *p, int id, double x0, double x1) {
  heat_region *r = &p->region[p->nregion++];
  int d;
  r->id = id, r->shape = 0;
  for (d = 0; d < 3; ++d) r->v[2 * d] = -1, r->v[2 * d + 1] = 2;
  r->v[0] = x0, r->v[1] = x1;
}

static void set_dt(heat_problem *p, double fraction) {
  double dx[3];
  int d;
  for (d = 0; d < 3; ++d) dx[d] = p->length[d] / (double)p->n[d];
  p->dt = fraction * hd_heat_media_dt_max(p->nmat, p->mat_k, p->mat_rhoc, NULL, dx, p->dim);
}

static void wall(heat_backend *b, const heat_ops *ops, int dim) {
  const double tb = 2.0, tinf = -1.0, h = 4.0, k0 = 1.0;
  const long nx = 30;
  heat_problem p;
  long double kc[30], flux, t, r = 0, a, bb, g;
  double *f, dx, err = 0.0, prof[30], tol = ops->real_size == 4 ? 5e-5 : 1e-10;
  long i, j, steps;
  heat_problem_default(&p, dim, nx, 2, 2);
  p.k = k0;
  add_material(&p, 5.0, 2.0, 0.0);
  add_material(&p, 0.25, 0.5, 0.0);
  add_box(&p, 1, 0.3, 0.6), add_box(&p, 2, 0.6, 1.0); /* faces at cells 9 | 10 and 18 | 19 */
  p.bc_kind[HD_XLO] = HD_HEAT_FIXED, p.bc_value[HD_XLO] = tb;
  p.bc_kind[HD_XHI] = HD_HEAT_CONVECTIVE, p.bc_value[HD_XHI] = tinf, p.bc_h[HD_XHI] = h;
  set_dt(&p, 0.95);
  dx = 1.0 / nx;
  for (i = 0; i < nx; ++i) kc[i] = i < 9 ? k0 : i < 18 ? 5.0 : 0.25;
  /* T_n = tb - F R; F = k_n ((1 - a) T_n - b) / dx */
  for (i = 0; i + 1 < nx; ++i) r += dx / (2 * kc[i] * kc[i + 1] / (kc[i] + kc[i + 1]));
  r += dx / (2 * kc[0]);
  g = kc[nx - 1] / dx;
  a = (g - h / 2.0L) / (g + h / 2.0L), bb = h * tinf / (g + h / 2.0L);
  flux = kc[nx - 1] * ((1 - a) * tb - bb) / dx / (1 + kc[nx - 1] * (1 - a) * r / dx);
  t = tb - flux * dx / (2 * kc[0]);
  for (i = 0; i < nx; ++i) {
    prof[i] = (double)t;
    if (i + 1 < nx) t -= flux * dx / (2 * kc[i] * kc[i + 1] / (kc[i] + kc[i + 1]));
  }
  /* slowest time scale below the wall's heat capacity times its resistance
   * (to the ambient): 30 of those */
  steps = (long)(30.0 * (0.3 * 1.0 + 0.3 * 2.0 + 0.4 * 0.5) * ((double)r + 1.0 / h) / p.dt);
  f = (double *)malloc((size_t)heat_cells(&p) * sizeof(double));
  if (!f) bail("out of memory");
  if (!heat_run(b, ops, &p, steps, f, NULL)) {
    ok(0, "%s/%s composite wall run", ops->backend, ops->precision);
    free(f);
    return;
  }
  for (j = 0; j < (long)(heat_cells(&p) / nx); ++j)
    for (i = 0; i < nx; ++i) err = fmax(err, fabs(f[j * nx + i] - prof[i]) / tb);
  ok(err <= tol,
     "%s/%s %d-D wall of k = 1 | 5 | 0.25, fixed %g and convective (h %g, T_inf %g): the exact series-resistance "
     "steady profile (flux %.6Lg) to %.3g (tolerance %g, %ld steps)",
     ops->backend, ops->precision, dim, tb, h, tinf, flux, err, tol, steps);
  free(f);
}

/* sum_c (rho c)_c T_c of a downloaded field */
static double heat_content(const heat_problem *p, const double *f) {
  const long n[3] = {p->n[0], p->n[1], p->n[2]}, o[3] = {0, 0, 0};
  const long sy = n[0] + 2, sz = sy * (n[1] + 2);
  unsigned char *map = (unsigned char *)malloc((size_t)(sz * (n[2] + 2)));
  double sum = 0.0;
  long i, j, k, m = 0;
  if (!map) bail("out of memory");
  heat_media_paint(p, n, o, n, sy, p->dim == 3 ? sz : 0, map);
  for (k = 0; k < n[2]; ++k)
    for (j = 0; j < n[1]; ++j)
      for (i = 0; i < n[0]; ++i) sum += p->mat_rhoc[map[(i + 1) + (j + 1) * sy + (p->dim == 3 ? k + 1 : 0) * sz]] * f[m++];
  free(map);
  return sum;
}

static void media_problem(heat_problem *p, int dim, double q) {
  heat_region *s;
  heat_problem_default(p, dim, 33, 27, 19);
  p->k = 0.8;
  add_material(p, 3.0, 2.5, q);
  add_material(p, 0.1, 0.7, 0.0);
  add_box(p, 1, 0.2, 0.45);
  s = &p->region[p->nregion++];
  s->id = 2, s->shape = 1, s->v[0] = 0.6, s->v[1] = 0.5, s->v[2] = dim == 3 ? 0.4 : 0.3, s->v[3] = 0.3;
  p->init_kind = dim == 2 ? HD_HEAT_INIT_BOX : HD_HEAT_INIT_SPHERE;
  p->base = 0.5, p->value = 3.0;
  set_dt(p, 0.9);
}

static void conserve(heat_backend *b, const heat_ops *ops, int dim, double q) {
  heat_problem p;
  const long steps = 200;
  double *f0, *f1, e0, e1, expect, bound, cells, gain = 0.0;
  long i;
  media_problem(&p, dim, q);
  cells = heat_cells(&p);
  f0 = (double *)malloc((size_t)cells * sizeof(double)), f1 = (double *)malloc((size_t)cells * sizeof(double));
  if (!f0 || !f1) bail("out of memory");
  if (!heat_run(b, ops, &p, 0, f0, NULL) || !heat_run(b, ops, &p, steps, f1, NULL)) {
    ok(0, "%s/%s conservation runs", ops->backend, ops->precision);
    free(f0), free(f1);
    return;
  }
  e0 = heat_content(&p, f0), e1 = heat_content(&p, f1);
  if (q != 0) { /* (rho c) times dt Q / (rho c) in every cell of material 1 */
    heat_problem one = p;
    for (i = 0; i < (long)cells; ++i) f0[i] = 1.0;
    one.mat_rhoc[0] = one.mat_rhoc[2] = 0.0;
    gain = heat_content(&one, f0) / p.mat_rhoc[1] * p.dt * q;
  }
  expect = e0 + (double)steps * gain;
  for (bound = 0.0, i = 0; i < (long)cells; ++i) bound += fabs(f1[i]) + fabs(f0[i]);
  bound *= (8.0 * steps * eps_of(ops) + cells * DBL_EPSILON) * 2.5;
  ok(fabs(e1 - expect) <= bound,
     "%s/%s %d-D three materials, adiabatic, Q = %g: sum (rho c) T after %ld steps off by %.3g (bound %.3g)",
     ops->backend, ops->precision, dim, q, steps, fabs(e1 - expect), bound);
  free(f0), free(f1);
}

/* nx x ... cells: 33 leaves rows unaligned, 64 lets the tuned CUDA media
 * kernel run (hd_heat_media_vec_ok); CUDA runs both variants. */
static void backends(heat_backend *be, int nb, int dim, int single, long nx) {
  const long steps = 41;
  const heat_ops *ref_ops = heat_ops_get(HD_B_SERIAL, single);
  heat_problem p;
  double *ref, *f, tmax = 0.0;
  size_t cells, i;
  int k, t, v;
  media_problem(&p, dim, 0.7);
  p.n[0] = nx;
  set_dt(&p, 0.9);
  p.bc_kind[HD_XLO] = HD_HEAT_CONVECTIVE, p.bc_value[HD_XLO] = 1.5, p.bc_h[HD_XLO] = 3.0;
  p.bc_kind[HD_YHI] = HD_HEAT_FLUX, p.bc_value[HD_YHI] = 2.0;
  p.bc_kind[HD_XHI] = HD_HEAT_FIXED, p.bc_value[HD_XHI] = -0.5;
  if (dim == 3) { /* every kind on some face: the tuned CUDA kernel writes each ghost itself */
    p.bc_kind[HD_ZLO] = HD_HEAT_FLUX, p.bc_value[HD_ZLO] = -1.0;
    p.bc_kind[HD_ZHI] = HD_HEAT_CONVECTIVE, p.bc_value[HD_ZHI] = 0.3, p.bc_h[HD_ZHI] = 1.0;
    p.bc_kind[HD_YLO] = HD_HEAT_FIXED, p.bc_value[HD_YLO] = 0.25;
  }
  cells = (size_t)heat_cells(&p);
  ref = (double *)malloc(cells * sizeof(double)), f = (double *)malloc(cells * sizeof(double));
  if (!ref || !f) bail("out of memory");
  if (!heat_run(&be[0], ref_ops, &p, steps, ref, NULL)) bail("serial media run failed");
  for (i = 0; i < cells; ++i) tmax = fmax(tmax, fabs(ref[i]));
  p.variant = HD_VARIANT_GENERIC; /* the CPU rows (the reference) against the generic loop */
  ok(heat_run(&be[0], ref_ops, &p, steps, f, NULL) && !memcmp(f, ref, cells * sizeof(double)),
     "serial/%s %d-D three materials, nx %ld: tuned rows bit-identical to the generic loop", ref_ops->precision, dim, nx);
  p.variant = HD_VARIANT_AUTO;
  for (k = 1; k < nb; ++k) {
    const heat_ops *ops = heat_ops_get(be[k].core->id, single);
    if (!ops) continue;
    if (be[k].core->id == HD_B_OPENMP) {
      for (t = 1; t <= 3; ++t) {
        be[k].ctx.threads = t;
        ok(heat_run(&be[k], ops, &p, steps, f, NULL) && !memcmp(f, ref, cells * sizeof(double)),
           "openmp/%s %d-D three materials, mixed faces, nx %ld, %d thread%s: bit-identical to serial", ops->precision,
           dim, nx, t, t > 1 ? "s" : "");
      }
      be[k].ctx.threads = 0;
    } else {
      for (v = HD_VARIANT_GENERIC; v <= HD_VARIANT_TUNED; ++v) {
        const double tol = 8.0 * steps * eps_of(ops) * tmax;
        double err = 0.0;
        int ran;
        p.variant = v;
        ran = heat_run(&be[k], ops, &p, steps, f, NULL);
        for (i = 0; ran && i < cells; ++i) err = fmax(err, fabs(f[i] - ref[i]));
        ok(ran && err <= tol, "%s/%s %s %d-D three materials, nx %ld, vs serial: max |difference| %.3g (tolerance %.3g)",
           ops->backend, ops->precision, v == HD_VARIANT_TUNED ? "tuned" : "generic", dim, nx, err, tol);
      }
    }
  }
  free(ref), free(f);
}

/* E1 - E0 - N source - sum in, and the size of the terms; 0 if a call fails. */
static int balance_run(heat_backend *b, const heat_ops *ops, const heat_problem *p, long steps, double out[9],
                       double *size) {
  void *state = NULL;
  hd_xsum e0, e1, faces[6], field;
  double counts[HD_HEAT_MAX_MATERIALS], src = 0.0, vol = p->dt;
  int ok_run, f;
  ok_run = ops->create(&b->ctx, p, &state) == HD_OK && ops->balance(&b->ctx, state, &e0, faces, counts, &field) == HD_OK &&
           ops->advance(&b->ctx, state, steps) == HD_OK && ops->balance(&b->ctx, state, &e1, faces, counts, &field) == HD_OK;
  if (state) ops->destroy(&b->ctx, state);
  if (!ok_run) return 0;
  for (f = 0; f < p->dim; ++f) vol *= p->length[f] / (double)p->n[f];
  for (f = 0; f < (p->nmat ? p->nmat : 1); ++f)
    src += counts[f] * vol * (p->nmat ? p->mat_q[f] + p->mat_rhoc[f] * p->q : p->k / p->alpha * p->q);
  src += hd_xsum_value(&field);
  out[0] = hd_xsum_value(&e1) - hd_xsum_value(&e0) - (double)steps * src;
  *size = fabs(hd_xsum_value(&e1)) + fabs(hd_xsum_value(&e0)) + fabs((double)steps * src);
  for (f = 0; f < 6; ++f) {
    out[1 + f] = hd_xsum_value(&faces[f]);
    out[0] -= out[1 + f];
    *size += fabs(out[1 + f]);
  }
  out[7] = hd_xsum_value(&e1), out[8] = src;
  return 1;
}

static void balance(heat_backend *be, int nb, int dim, int single, int materials) {
  const long steps = 60;
  const heat_ops *ref_ops = heat_ops_get(HD_B_SERIAL, single);
  heat_problem p;
  double ref[9], v[9], size;
  int k, t;
  if (materials) {
    media_problem(&p, dim, 0.7);
  } else {
    heat_problem_default(&p, dim, 33, 27, 19);
    p.k = 0.8, p.q = 0.3, p.init_kind = HD_HEAT_INIT_BOX, p.base = 0.5, p.value = 3.0;
    p.dt = 0.9 * hd_heat_dt_max(p.alpha, (const double[3]){1.0 / 33, 1.0 / 27, 1.0 / 19}, dim);
  }
  p.balance = 1;
  p.bc_kind[HD_XLO] = HD_HEAT_CONVECTIVE, p.bc_value[HD_XLO] = 1.5, p.bc_h[HD_XLO] = 3.0;
  p.bc_kind[HD_XHI] = HD_HEAT_FIXED, p.bc_value[HD_XHI] = -0.5;
  p.bc_kind[HD_YHI] = HD_HEAT_FLUX, p.bc_value[HD_YHI] = 2.0;
  if (dim == 3) p.bc_kind[HD_ZLO] = HD_HEAT_FLUX, p.bc_value[HD_ZLO] = -1.0;
  if (!balance_run(&be[0], ref_ops, &p, steps, ref, &size)) bail("serial balance run failed");
  for (k = 0; k < nb; ++k) {
    const heat_ops *ops = heat_ops_get(be[k].core->id, single);
    const double bound = 10.0 * steps * eps_of(ops) * size;
    if (!ops) continue;
    for (t = 1; t <= (be[k].core->id == HD_B_OPENMP ? 3 : 1); ++t) {
      int ran;
      be[k].ctx.threads = be[k].core->id == HD_B_OPENMP ? t : 0;
      ran = balance_run(&be[k], ops, &p, steps, v, &size);
      ok(ran && fabs(v[0]) <= bound,
         "%s/%s %d-D %s, every face kind, sources: heat after %ld steps = initial + sources + faces to %.3g "
         "(bound %.3g; faces in %.4g %.4g %.4g %.4g)", ops->backend, ops->precision, dim,
         materials ? "three materials" : "uniform", steps, v[0], bound, v[1], v[2], v[3], v[4]);
      if (be[k].core->id == HD_B_OPENMP)
        ok(ran && !memcmp(v, ref, sizeof v), "openmp/%s %d-D %s, %d thread%s: balance sums equal serial's bit for bit",
           ops->precision, dim, materials ? "materials" : "uniform", t, t > 1 ? "s" : "");
    }
    be[k].ctx.threads = 0;
  }
}

int main(void) {
  heat_backend be[HD_B_COUNT];
  int nb = heat_backends_open(be), b, single, dim;
  for (b = 0; b < nb; ++b)
    for (single = 0; single <= 1; ++single) {
      const heat_ops *ops = heat_ops_get(be[b].core->id, single);
      if (!ops) continue;
      for (dim = 2; dim <= 3; ++dim) {
        wall(&be[b], ops, dim);
        conserve(&be[b], ops, dim, 0.0);
        conserve(&be[b], ops, dim, 0.6);
      }
    }
  for (single = 0; single <= 1; ++single) {
    for (dim = 2; dim <= 3; ++dim) backends(be, nb, dim, single, 33);
    backends(be, nb, 3, single, 64);
    for (dim = 2; dim <= 3; ++dim) balance(be, nb, dim, single, 0), balance(be, nb, dim, single, 1);
  }
  heat_backends_close(be, nb);
  return done_testing();
}
