/* SPDX-License-Identifier: BSD-3-Clause */
#include "kernels.h"

typedef struct mark_args {
  double *out;
  hd_idx sy, sz;
} mark_args;

HD_FN void mark3_pt(const mark_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_idx c = i + j * a->sy + k * a->sz;
  a->out[c] = (double)(c + 1);
}
HD_FN void mark2_pt(const mark_args *a, hd_idx i, hd_idx j) {
  const hd_idx c = i + j * a->sy;
  a->out[c] = (double)(c + 1);
}
HD_FN void mark1_pt(const mark_args *a, hd_idx i) { a->out[i] = (double)(i + 1); }
HD_FN void mark_rows_pt(const mark_args *a, hd_idx i, int row) { a->out[i + a->sy * row] = (double)(i + a->sy * row + 1); }

HD_DEFINE_FOR_3D(k_mark3, mark3_pt, mark_args)
HD_DEFINE_FOR_2D(k_mark2, mark2_pt, mark_args)
HD_DEFINE_FOR_1D(k_mark1, mark1_pt, mark_args)
HD_DEFINE_FOR_ROWS(k_mark_rows, mark_rows_pt, mark_args)

static hd_status t_mark3(hd_ctx *ctx, double *out, hd_idx sy, hd_idx sz, hd_range3 r) {
  mark_args a;
  a.out = out, a.sy = sy, a.sz = sz;
  return k_mark3(ctx, &a, r);
}
static hd_status t_mark2(hd_ctx *ctx, double *out, hd_idx sy, hd_range3 r) {
  mark_args a;
  a.out = out, a.sy = sy, a.sz = 0;
  return k_mark2(ctx, &a, r);
}
static hd_status t_mark1(hd_ctx *ctx, double *out, hd_idx i0, hd_idx i1) {
  mark_args a;
  a.out = out, a.sy = 0, a.sz = 0;
  return k_mark1(ctx, &a, i0, i1);
}
static hd_status t_mark_rows(hd_ctx *ctx, double *out, hd_idx n, int rows) {
  mark_args a;
  a.out = out, a.sy = n, a.sz = 0;
  return k_mark_rows(ctx, &a, n, rows);
}
static hd_status t_stats(hd_ctx *ctx, const double *f, const hd_grid *g, hd_range3 r,
                         hd_stats *out) {
  hd_field fld;
  fld.f = f;
  fld.g = *g;
  return hd_field_stats(ctx, &fld, r, out);
}

static hd_status t_heat_q(hd_ctx *ctx, int tuned, int halo, const double *t, double *tn, const double *q,
                          const hd_grid *g) {
  const double dx[3] = {0.1, 0.12, 0.09};
  hd_heat_args a;
  int f;
  hd_status s = hd_heat_setup(ctx, &a, g, 1.0, 0.9 * hd_heat_dt_max(1.0, dx, g->dim), dx, 0.5);
  if (s != HD_OK) return s;
  for (f = 0; f < HD_NFACES; ++f)
    a.bc[f].kind = halo >> f & 1 ? HD_HEAT_HALO : f % 2 ? HD_HEAT_FIXED : HD_HEAT_ADIABATIC, a.bc[f].value = 0.25 * f;
  a.t = t, a.t_next = tn, a.q = q;
  if (!tuned) return hd_heat_step(ctx, &a);
#if defined(HD_HEAT_HAS_TUNED)
#if defined(HD_BACKEND_CUDA)
  if (tuned == 3) { /* the vector kernel, which needs aligned rows and no source array */
    if (!hd_heat_vec_ok(&a, hd_grid_interior(g)) && !(halo & 3))
      return hd_fail(ctx, HD_ERR_ARG, "heat: rows not aligned");
    return hd_heat_step_tuned(ctx, &a);
  }
  if (tuned == 2 || tuned == 4) { /* box by box (4: aligned rows, the vector kernel's boxes) */
    static const int shared[HD_NFACES] = {0, 0, 1, 1, 1, 1};
    hd_range3 box[7];
    const int nbox = hd_heat_halo_split(g, shared, box);
    int b;
    if (tuned == 4 && !hd_heat_vec_ok(&a, box[0]) && !(halo & 3)) return hd_fail(ctx, HD_ERR_ARG, "heat: rows not aligned");
    for (b = nbox - 1; b >= 0 && s == HD_OK; --b) s = hd_heat_step_tuned_box(ctx, &a, box[b]);
    return s;
  }
#else
  if (tuned >= 2) return HD_ERR_UNSUPPORTED; /* CUDA's own variants */
#endif
  return hd_heat_step_tuned(ctx, &a);
#else
  return HD_ERR_UNSUPPORTED;
#endif
}

static hd_status t_sor(hd_ctx *ctx, int tuned, hd_idx n, double *u, const double *f, long sweeps) {
  const size_t bytes = (size_t)((n + 1) * (n + 1)) * sizeof(double);
  hd_pois_sor s;
  void *du = NULL, *df = NULL;
  hd_status st;
#if !defined(HD_BACKEND_CUDA)
  if (tuned) return HD_ERR_UNSUPPORTED;
#endif
  if ((st = hd_pois_sor_create(ctx, &s, n, 1.0 / (double)n)) != HD_OK) return st;
  s.generic = !tuned;
  st = hd_dev_alloc(ctx, &du, bytes);
  if (st == HD_OK) st = hd_dev_alloc(ctx, &df, bytes);
  if (st == HD_OK) st = hd_dev_upload(ctx, du, u, bytes);
  if (st == HD_OK) st = hd_dev_upload(ctx, df, f, bytes);
  if (st == HD_OK) st = hd_pois_split(ctx, &s, (double *)df, s.f, 1);
  if (st == HD_OK) st = hd_pois_split(ctx, &s, (double *)du, s.u, 1);
  if (st == HD_OK) st = hd_pois_sor_sweeps(ctx, &s, 1.5, sweeps);
  if (st == HD_OK) st = hd_pois_split(ctx, &s, (double *)du, s.u, 0);
  if (st == HD_OK) st = hd_dev_download(ctx, u, du, bytes);
  hd_dev_free(ctx, du), hd_dev_free(ctx, df);
  hd_pois_sor_destroy(ctx, &s);
  return st;
}

const testk_ops HD_OPS_NAME(testk) = {HD_BACKEND_NAME, t_mark3, t_mark2, t_mark1, t_mark_rows, t_stats,
                                      t_heat_q,        t_sor};
