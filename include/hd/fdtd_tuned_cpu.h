/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/fdtd_tuned_cpu.h - the tuned CPU half steps of hd/fdtd.h: a routine a
 * row of nodes, each component in its own vectorised loop, vacuum rows by
 * runs of one material; the absorbing layers' lists as runs of a row.  The
 * same value functions as the generic loops.  Empty on CUDA. */
#ifndef HD_FDTD_TUNED_CPU_H
#define HD_FDTD_TUNED_CPU_H

#include "fdtd.h"

#if !defined(HD_BACKEND_CUDA)
/* Tuned CPU half steps: one routine a row of nodes along x, each component
 * in its own loop over the nodes where it is updated (the fused point
 * function's tests, taken once a row), with restrict pointers so that the
 * loops vectorise (the material coefficients by gathers); compiled for
 * AVX-512 and AVX2 too (HD_CPU_CLONES_EXACT).  OpenMP threads take runs of
 * rows.  The same value functions and ranges as the generic loops: equal
 * bit for bit (tests). */
#define HD_FDTD_HAS_TUNED 1

/* c = c1 e + c2 (ra da - rb db) along a row: u[i] of material m[i],
 * da = pa[i] - pa[i - sa], db = pb[i] - pb[i - sb]; ra per node (rx) or
 * per row (rax, rx NULL), rb likewise. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline void hd_fdtd_cpu_e_row(hd_real *HD_RESTRICT u, const unsigned char *HD_RESTRICT m,
                                     const hd_real *HD_RESTRICT c1, const hd_real *HD_RESTRICT c2,
                                     const hd_real *HD_RESTRICT pa, hd_idx sa, const hd_real *HD_RESTRICT ra,
                                     hd_real rac, const hd_real *HD_RESTRICT pb, hd_idx sb,
                                     const hd_real *HD_RESTRICT rb, hd_real rbc, hd_idx lo, hd_idx hi) {
  hd_idx i;
  for (i = lo; i < hi; ++i)
    u[i] = hd_fdtd_e_value(u[i], c1[m[i]], c2[m[i]], ra ? ra[i] : rac, pa[i] - pa[i - sa], rb ? rb[i] : rbc,
                           pb[i] - pb[i - sb]);
}

/* The same for H: d1 h - d2 (ra da - rb db), da = pa[i + sa] - pa[i]. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline void hd_fdtd_cpu_h_row(hd_real *HD_RESTRICT u, const unsigned char *HD_RESTRICT m,
                                     const hd_real *HD_RESTRICT d1, const hd_real *HD_RESTRICT d2,
                                     const hd_real *HD_RESTRICT pa, hd_idx sa, const hd_real *HD_RESTRICT ra,
                                     hd_real rac, const hd_real *HD_RESTRICT pb, hd_idx sb,
                                     const hd_real *HD_RESTRICT rb, hd_real rbc, hd_idx lo, hd_idx hi) {
  hd_idx i;
  for (i = lo; i < hi; ++i)
    u[i] = hd_fdtd_h_value(u[i], d1[m[i]], d2[m[i]], ra ? ra[i] : rac, pa[i + sa] - pa[i], rb ? rb[i] : rbc,
                           pb[i + sb] - pb[i]);
}

/* The same with one material's coefficients k1, k2 for every node: a run
 * (no lookup: the coefficient gathers cost more than the rest of the
 * update, measured on AVX-512). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline void hd_fdtd_cpu_e_run(hd_real *HD_RESTRICT u, hd_real k1, hd_real k2, const hd_real *HD_RESTRICT pa,
                                     hd_idx sa, const hd_real *HD_RESTRICT ra, hd_real rac,
                                     const hd_real *HD_RESTRICT pb, hd_idx sb, const hd_real *HD_RESTRICT rb,
                                     hd_real rbc, hd_idx lo, hd_idx hi) {
  hd_idx i;
  for (i = lo; i < hi; ++i)
    u[i] = hd_fdtd_e_value(u[i], k1, k2, ra ? ra[i] : rac, pa[i] - pa[i - sa], rb ? rb[i] : rbc, pb[i] - pb[i - sb]);
}
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline void hd_fdtd_cpu_h_run(hd_real *HD_RESTRICT u, hd_real k1, hd_real k2, const hd_real *HD_RESTRICT pa,
                                     hd_idx sa, const hd_real *HD_RESTRICT ra, hd_real rac,
                                     const hd_real *HD_RESTRICT pb, hd_idx sb, const hd_real *HD_RESTRICT rb,
                                     hd_real rbc, hd_idx lo, hd_idx hi) {
  hd_idx i;
  for (i = lo; i < hi; ++i)
    u[i] = hd_fdtd_h_value(u[i], k1, k2, ra ? ra[i] : rac, pa[i + sa] - pa[i], rb ? rb[i] : rbc, pb[i + sb] - pb[i]);
}

/* Component c of row (j, k) over nodes [lo, hi): by its runs where the
 * arguments have them, else node by node. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline void hd_fdtd_cpu_component(const hd_fdtd_args *a, int c, hd_idx j, hd_idx k, const hd_real *pa,
                                         hd_idx sa, const hd_real *ra, hd_real rac, const hd_real *pb, hd_idx sb,
                                         const hd_real *rb, hd_real rbc, hd_idx lo, hd_idx hi) {
  const hd_idx row = hd_grid_at(&a->g, 0, j, k);
  hd_real *u = a->f[c] + row;
  const int e = c < 3;
  const hd_real *k1 = e ? a->c1 : a->d1, *k2 = e ? a->c2 : a->d2;
  pa += row, pb += row;
  if (a->run[c]) {
    const hd_idx r = j + k * (a->g.stride[2] / a->g.stride[1]);
    const hd_fdtd_run *run = a->run[c];
    int64_t q;
    for (q = a->row_run[c][r]; q < a->row_run[c][r + 1]; ++q) {
      const hd_idx x0 = run[q].lo > lo ? run[q].lo : lo;
      const hd_idx x1 = q + 1 < a->row_run[c][r + 1] && run[q + 1].lo < hi ? run[q + 1].lo : hi;
      if (x0 >= x1) continue;
      if (e)
        hd_fdtd_cpu_e_run(u, k1[run[q].m], k2[run[q].m], pa, sa, ra, rac, pb, sb, rb, rbc, x0, x1);
      else
        hd_fdtd_cpu_h_run(u, k1[run[q].m], k2[run[q].m], pa, sa, ra, rac, pb, sb, rb, rbc, x0, x1);
    }
  } else if (e) {
    hd_fdtd_cpu_e_row(u, a->m[c] + row, k1, k2, pa, sa, ra, rac, pb, sb, rb, rbc, lo, hi);
  } else {
    hd_fdtd_cpu_h_row(u, a->m[c] + row, k1, k2, pa, sa, ra, rac, pb, sb, rb, rbc, lo, hi);
  }
}

/* Row (j, k) (padded) of the E or H half step: the components and node
 * ranges of hd_fdtd_e_point / hd_fdtd_h_point. */
HD_CPU_CLONES_EXACT static HD_UNUSED void hd_fdtd_cpu_row(const hd_fdtd_args *a, hd_idx j, hd_idx k, int efield) {
  const hd_idx pad = a->g.ghost, pj = j - pad, pk = k - pad, sy = a->g.stride[1], sz = a->g.stride[2];
  const hd_idx nx = a->nc[0];
  hd_real *const *f = a->f;
  if (efield) {
    const int ty = hd_fdtd_tangential(a, 1, pj), tz = hd_fdtd_tangential(a, 2, pk);
    const hd_idx lo = pad + a->elo[0], hi = pad + a->ehi[0] + 1; /* tangential x */
    if (ty && tz)
      hd_fdtd_cpu_component(a, HD_FDTD_EX, j, k, f[HD_FDTD_HZ], sy, NULL, a->rn[1][j], f[HD_FDTD_HY], sz, NULL,
                            a->rn[2][k], pad, pad + nx);
    if (pj < a->nc[1] && tz)
      hd_fdtd_cpu_component(a, HD_FDTD_EY, j, k, f[HD_FDTD_HX], sz, NULL, a->rn[2][k], f[HD_FDTD_HZ], 1, a->rn[0], 0,
                            lo, hi);
    if (pk < a->nc[2] && ty)
      hd_fdtd_cpu_component(a, HD_FDTD_EZ, j, k, f[HD_FDTD_HY], 1, a->rn[0], 0, f[HD_FDTD_HX], sy, NULL, a->rn[1][j],
                            lo, hi);
  } else {
    if (pj < a->nc[1] && pk < a->nc[2])
      hd_fdtd_cpu_component(a, HD_FDTD_HX, j, k, f[HD_FDTD_EZ], sy, NULL, a->rc[1][j], f[HD_FDTD_EY], sz, NULL,
                            a->rc[2][k], pad, pad + nx + 1);
    if (pk < a->nc[2])
      hd_fdtd_cpu_component(a, HD_FDTD_HY, j, k, f[HD_FDTD_EX], sz, NULL, a->rc[2][k], f[HD_FDTD_EZ], 1, a->rc[0], 0,
                            pad, pad + nx);
    if (pj < a->nc[1])
      hd_fdtd_cpu_component(a, HD_FDTD_HZ, j, k, f[HD_FDTD_EY], 1, a->rc[0], 0, f[HD_FDTD_EX], sy, NULL, a->rc[1][j],
                            pad, pad + nx);
  }
}

/* The loop of a CPML run (hd_fdtd_cpml_pt's update): x of one material
 * (its coefficients k1, k2: no gathers),
 * its curl's differences of pu along u (stride su) and pv along v, over
 * the widths ru, rv and with the profiles bu, cu, iku along u and bv, cv,
 * ikv along v, per node where xu (xv: the axis is x), else their first
 * entry for the whole run; psi1, psi2 the run's own.  z1 (z2): along u
 * (v) the run lies outside the layers (its profile c zero), so that psi
 * stays +0: neither read nor written (a point of a face's slab moves x
 * and one psi, not two), the same bits.  Restrict pointer arguments: the
 * loop vectorises. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline void hd_fdtd_cpu_cpml_loop(int e, int xu, int xv, int z1, int z2, hd_idx len, hd_real *HD_RESTRICT x,
                                         hd_real *HD_RESTRICT psi1, hd_real *HD_RESTRICT psi2, hd_real k1, hd_real k2,
                                         const hd_real *HD_RESTRICT pu, hd_idx su,
                                         const hd_real *HD_RESTRICT pv, hd_idx sv, const hd_real *HD_RESTRICT ru,
                                         const hd_real *HD_RESTRICT rv, const hd_real *HD_RESTRICT bu,
                                         const hd_real *HD_RESTRICT cu, const hd_real *HD_RESTRICT iku,
                                         const hd_real *HD_RESTRICT bv, const hd_real *HD_RESTRICT cv,
                                         const hd_real *HD_RESTRICT ikv) {
  const hd_real ru0 = ru[0], bu0 = bu[0], cu0 = cu[0], iku0 = iku[0], rv0 = rv[0], bv0 = bv[0], cv0 = cv[0], ikv0 = ikv[0];
  hd_idx t;
  HD_OMP_SIMD
  for (t = 0; t < len; ++t) {
    const hd_real du = (xu ? ru[t] : ru0) * (e ? pu[t] - pu[t - su] : pu[t + su] - pu[t]);
    const hd_real dv = (xv ? rv[t] : rv0) * (e ? pv[t] - pv[t - sv] : pv[t + sv] - pv[t]);
    hd_real q1 = z1 ? HD_R(0) : psi1[t], q2 = z2 ? HD_R(0) : psi2[t];
    x[t] = hd_fdtd_cpml_value(e, x[t], k1, k2, du, dv, xu ? bu[t] : bu0, xu ? cu[t] : cu0, xu ? iku[t] : iku0,
                              xv ? bv[t] : bv0, xv ? cv[t] : cv0, xv ? ikv[t] : ikv0, &q1, &q2);
    if (!z1) psi1[t] = q1;
    if (!z2) psi2[t] = q2;
  }
}

/* The same for the split-field PML (hd_fdtd_pml_pt's update): parts s1,
 * s2 with the profiles pru, prv and the run's medium's three numbers k. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline void hd_fdtd_cpu_pml_loop(int e, int xu, int xv, hd_idx len, hd_real *HD_RESTRICT x,
                                        hd_real *HD_RESTRICT s1, hd_real *HD_RESTRICT s2, const hd_real *HD_RESTRICT k,
                                        const hd_real *HD_RESTRICT pu, hd_idx su, const hd_real *HD_RESTRICT pv,
                                        hd_idx sv, const hd_real *HD_RESTRICT ru, const hd_real *HD_RESTRICT rv,
                                        const hd_real *HD_RESTRICT pru, const hd_real *HD_RESTRICT prv) {
  const hd_real ru0 = ru[0], rv0 = rv[0], pru0 = pru[0], prv0 = prv[0];
  hd_idx t;
  HD_OMP_SIMD
  for (t = 0; t < len; ++t) {
    const hd_real du = (xu ? ru[t] : ru0) * (e ? pu[t] - pu[t - su] : pu[t + su] - pu[t]);
    const hd_real dv = (xv ? rv[t] : rv0) * (e ? pv[t] - pv[t - sv] : pv[t + sv] - pv[t]);
    const hd_real a = hd_fdtd_pml_part(s1[t], xu ? pru[t] : pru0, k, e ? du : -du);
    const hd_real b = hd_fdtd_pml_part(s2[t], xv ? prv[t] : prv0, k, e ? -dv : dv);
    s1[t] = a, s2[t] = b, x[t] = a + b;
  }
}

/* A component's layers for the CPU rows: the CPML's arguments, or the
 * split-field PML's (pml not NULL; its own fields and parts). */
typedef struct hd_fdtd_cpu_layer_args {
  hd_fdtd_cpml_args cpml;
  const hd_fdtd_pml_args *pml;
} hd_fdtd_cpu_layer_args;

/* A run of layer points of component c: xu, xv whether the curl's axis u
 * or v is x.  Constant arguments: a loop a component. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline void hd_fdtd_cpu_layer_run(const hd_fdtd_cpu_layer_args *l, const hd_fdtd_layer_run *r, int c, int xu,
                                        int xv, hd_idx len) {
  const hd_fdtd_cpml_args *a = &l->cpml;
  const hd_fdtd_args *f = &a->f;
  const int e = c < 3, ca = c % 3, u = (ca + 1) % 3, v = (ca + 2) % 3, idx[3] = {r->i0, r->j, r->k};
  const hd_idx s[3] = {1, f->g.stride[1], f->g.stride[2]};
  if (l->pml) {
    const hd_fdtd_pml_args *p = l->pml;
    const hd_real *pr[3] = {e ? p->pe[0] : p->ph[0], e ? p->pe[1] : p->ph[1], e ? p->pe[2] : p->ph[2]};
    hd_fdtd_cpu_pml_loop(e, xu, xv, len, f->f[c] + r->n0, p->s1 + r->p0, p->s2 + r->p0, p->mat + 3 * r->m,
                         f->f[e ? 3 + v : v] + r->n0, s[u], f->f[e ? 3 + u : u] + r->n0, s[v],
                         (e ? f->rn[u] : f->rc[u]) + idx[u], (e ? f->rn[v] : f->rc[v]) + idx[v], pr[u] + idx[u],
                         pr[v] + idx[v]);
    return;
  }
  {
    const int z1 = !xu && a->c[u][idx[u]] == HD_R(0), z2 = !xv && a->c[v][idx[v]] == HD_R(0);
    const hd_real k1 = (e ? f->c1 : f->d1)[r->m], k2 = (e ? f->c2 : f->d2)[r->m];
#define HD_FDTD_CPU_CPML_RUN(Z1, Z2)                                                                                  \
  hd_fdtd_cpu_cpml_loop(e, xu, xv, Z1, Z2, len, f->f[c] + r->n0, a->psi1 + r->p0, a->psi2 + r->p0, k1, k2,          \
                        f->f[e ? 3 + v : v] + r->n0, s[u],                                                         \
                        f->f[e ? 3 + u : u] + r->n0, s[v], (e ? f->rn[u] : f->rc[u]) + idx[u],                     \
                        (e ? f->rn[v] : f->rc[v]) + idx[v], a->b[u] + idx[u], a->c[u] + idx[u], a->ik[u] + idx[u], \
                        a->b[v] + idx[v], a->c[v] + idx[v], a->ik[v] + idx[v])
    if (z1 && z2) HD_FDTD_CPU_CPML_RUN(1, 1);
    else if (z1) HD_FDTD_CPU_CPML_RUN(1, 0);
    else if (z2) HD_FDTD_CPU_CPML_RUN(0, 1);
    else HD_FDTD_CPU_CPML_RUN(0, 0);
#undef HD_FDTD_CPU_CPML_RUN
  }
}

/* Runs q0 .. q1 of component c (x is u for z components, v for y ones);
 * the x faces' runs of 8 (the default layers) by a loop of that length. */
#define HD_FDTD_CPU_LAYER_RUNS(a, run, q0, q1, c, xu, xv)                                       \
  do {                                                                                      \
    hd_idx q_;                                                                              \
    for (q_ = (q0); q_ < (q1); ++q_) {                                                      \
      if ((run)[q_].len == 8) hd_fdtd_cpu_layer_run((a), &(run)[q_], (c), (xu), (xv), 8);     \
      else hd_fdtd_cpu_layer_run((a), &(run)[q_], (c), (xu), (xv), (run)[q_].len);            \
    }                                                                                       \
  } while (0)

HD_CPU_CLONES_EXACT static HD_UNUSED void hd_fdtd_cpu_layers_any(const hd_fdtd_cpu_layer_args *a,
                                                                 const hd_fdtd_layer_run *run, hd_idx q0, hd_idx q1) {
  switch (a->cpml.comp) {
    case HD_FDTD_EX: HD_FDTD_CPU_LAYER_RUNS(a, run, q0, q1, HD_FDTD_EX, 0, 0); break;
    case HD_FDTD_EY: HD_FDTD_CPU_LAYER_RUNS(a, run, q0, q1, HD_FDTD_EY, 0, 1); break;
    case HD_FDTD_EZ: HD_FDTD_CPU_LAYER_RUNS(a, run, q0, q1, HD_FDTD_EZ, 1, 0); break;
    case HD_FDTD_HX: HD_FDTD_CPU_LAYER_RUNS(a, run, q0, q1, HD_FDTD_HX, 0, 0); break;
    case HD_FDTD_HY: HD_FDTD_CPU_LAYER_RUNS(a, run, q0, q1, HD_FDTD_HY, 0, 1); break;
    default: HD_FDTD_CPU_LAYER_RUNS(a, run, q0, q1, HD_FDTD_HZ, 1, 0); break;
  }
}

/* The layer points of one component by their runs: a loop a run that
 * vectorises, where hd_fdtd_cpml_loop and hd_fdtd_pml_loop take a point
 * at a time. */
HD_HOST_FN hd_status hd_fdtd_layers_tuned(hd_ctx *ctx, const hd_fdtd_cpu_layer_args *a, const hd_fdtd_layer_run *run,
                                          hd_idx nrun) {
  hd_idx q;
  (void)ctx;
  HD_OMP_FOR(schedule(static) num_threads(hd_ctx_threads(ctx)))
  for (q = 0; q < nrun; ++q) hd_fdtd_cpu_layers_any(a, run, q, q + 1);
  return HD_OK;
}

/* Mur points p .. p + len - 1 of one component and one g whose boundary
 * and inner values (from m0, m1) both step by one node along x (a y or z
 * face's stretch of a row; an x face's points are runs of one), with the
 * points' numbers: a row's points are one stream of these. */
typedef struct hd_fdtd_mur_run {
  hd_idx m0, m1, p, len;
  hd_real g;
  int comp;
} hd_fdtd_mur_run;

#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline void hd_fdtd_cpu_mur_run(const hd_fdtd_mur_args *a, const hd_fdtd_mur_run *r) {
  hd_real *HD_RESTRICT e0 = a->f[r->comp] + r->m0, *HD_RESTRICT prev = a->prev + r->p;
  const hd_real *HD_RESTRICT e1 = a->f[r->comp] + r->m1;
  const hd_real g = r->g;
  hd_idx t;
  if (r->len == 1) { /* an x face's: no loop to set up */
    const hd_real b = e1[0];
    e0[0] = hd_fdtd_mur_value(prev[0], g, b, e0[0]), prev[0] = b;
    return;
  }
  HD_OMP_SIMD
  for (t = 0; t < r->len; ++t) {
    const hd_real b = e1[t];
    e0[t] = hd_fdtd_mur_value(prev[t], g, b, e0[t]), prev[t] = b;
  }
}

/* What a row takes with it while it is in cache (a pass of their own
 * reads every row's ends back from memory): the layers' runs that lie on
 * the rows of the physical nodes (the x faces' layers, short runs at both
 * ends of every row; row[c][r] .. row[c][r + 1]: padded row r's runs of
 * component c), and the Mur points of this half step's field that read
 * padded row r, by runs mrun[mrow[r] .. mrow[r + 1]). */
typedef struct hd_fdtd_cpu_extras {
  hd_fdtd_cpu_layer_args arg[6];
  const hd_fdtd_layer_run *run[6];
  const hd_idx *row[6]; /* NULL: none of that component */
  hd_fdtd_mur_args mur;
  const hd_fdtd_mur_run *mrun;
  const hd_idx *mrow; /* NULL: no Mur points with this half step */
} hd_fdtd_cpu_extras;

/* The tuned half step over the rows of r as hd_fdtd_half_step_tuned_box,
 * each row's extras after it in the order of the passes they stand for:
 * the layers, Mur after them on E and before them on H (bit for bit the
 * same: no update reads another of its own field, and a Mur point reads
 * a value of this row and its own boundary value, which no march writes). */
HD_HOST_FN hd_status hd_fdtd_half_step_tuned_extras(hd_ctx *ctx, const hd_fdtd_args *a, const hd_fdtd_cpu_extras *l,
                                                    int efield, hd_range3 r) {
  const hd_idx rows = a->g.stride[2] / a->g.stride[1];
  hd_idx j, k;
  (void)ctx;
  HD_OMP_FOR(collapse(2) schedule(static) num_threads(hd_ctx_threads(ctx)))
  for (k = r.lo[2]; k < r.hi[2]; ++k)
    for (j = r.lo[1]; j < r.hi[1]; ++j) {
      const hd_idx row = j + k * rows;
      hd_idx p;
      int c;
      if (l->mrow) HD_PREFETCH(&l->mrun[l->mrow[row + 1]]); /* the next row's: in cache after this march */
      hd_fdtd_cpu_row(a, j, k, efield);
      if (l->mrow && !efield)
        for (p = l->mrow[row]; p < l->mrow[row + 1]; ++p) hd_fdtd_cpu_mur_run(&l->mur, &l->mrun[p]);
      for (c = efield ? 0 : 3; c < (efield ? 3 : 6); ++c)
        if (l->row[c] && l->row[c][row] < l->row[c][row + 1])
          hd_fdtd_cpu_layers_any(&l->arg[c], l->run[c], l->row[c][row], l->row[c][row + 1]);
      if (l->mrow && efield)
        for (p = l->mrow[row]; p < l->mrow[row + 1]; ++p) hd_fdtd_cpu_mur_run(&l->mur, &l->mrun[p]);
    }
  return HD_OK;
}

/* The runs of one component's material array m over every padded row of
 * g: row_run (rows + 1 entries) and run (NULL: count only).  Returns the
 * number of runs. */
HD_HOST_FN int64_t hd_fdtd_runs_build(const hd_grid *g, const unsigned char *m, int64_t *row_run, hd_fdtd_run *run) {
  const hd_idx nx = g->n[0] + 2 * g->ghost, rows = g->stride[2] / g->stride[1] * (g->n[2] + 2 * g->ghost);
  int64_t count = 0;
  hd_idx r, i;
  for (r = 0; r < rows; ++r) {
    const unsigned char *x = m + r * g->stride[1];
    if (row_run) row_run[r] = count;
    for (i = 0; i < nx; ++i)
      if (i == 0 || x[i] != x[i - 1]) {
        if (run) run[count].lo = (int32_t)i, run[count].m = x[i];
        ++count;
      }
  }
  if (row_run) row_run[rows] = count;
  return count;
}

/* The half step over the rows (j, k) of r (padded nodes, within
 * hd_fdtd_nodes; every row whole along x). */
HD_HOST_FN hd_status hd_fdtd_half_step_tuned_box(hd_ctx *ctx, const hd_fdtd_args *a, int efield, hd_range3 r) {
  hd_idx j, k;
  (void)ctx;
  HD_OMP_FOR(collapse(2) schedule(static) num_threads(hd_ctx_threads(ctx)))
  for (k = r.lo[2]; k < r.hi[2]; ++k)
    for (j = r.lo[1]; j < r.hi[1]; ++j) hd_fdtd_cpu_row(a, j, k, efield);
  return HD_OK;
}

/* The tuned E (efield) or H half step over every physical node. */
HD_HOST_FN hd_status hd_fdtd_half_step_tuned(hd_ctx *ctx, const hd_fdtd_args *a, int efield) {
  return hd_fdtd_half_step_tuned_box(ctx, a, efield, hd_fdtd_nodes(a));
}
#endif

#endif /* HD_FDTD_TUNED_CPU_H */
