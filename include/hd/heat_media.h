/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/heat_media.h - heat conduction in a medium of several materials.
 *
 * Each cell has a material index m (one byte, the field's layout, ghosts
 * included: a ghost takes the material of the cell beside it; the low 7
 * bits, HD_HEAT_IFACE marking a cell with a neighbour of another material,
 * set by hd_heat_media_mark); material m
 * has conductivity k_m, volumetric heat capacity (rho c)_m and volumetric
 * source Q_m.  Finite volumes: the flux between neighbouring cells a and b
 * along axis d is K_ab (T_b - T_a) / dx_d^2 a unit volume with the harmonic
 * mean K_ab = 2 k_a k_b / (k_a + k_b) (the series resistance of the two half
 * cells: exact for a layered wall), so
 *   T' = T + dt/(rho c)_m [sum_d (K_m,- (T_- - T) + K_m,+ (T_+ - T)) / dx_d^2 + Q_m]
 *          + the uniform / per-cell source of hd_heat_args (a rate of T).
 * Heat sum_c (rho c)_c T_c is conserved by the interior (K symmetric).
 * A cell whose neighbours are all of its own material m (no HD_HEAT_IFACE)
 * steps as the uniform medium does (hd_heat_update_3d with c_d = r_m K_mm / dx_d^2,
 * hd/heat.h): the same sum in another order, one form for every backend
 * and kernel, and the cheap one inside each material.
 * Faces act through ghosts as in hd/heat.h, with the face cell's own k for
 * convective and flux faces (K_mm = k_m across the face).
 * Stability: the coefficients of the old values stay >= 0 when
 *   dt <= min_m (rho c)_m / (2 max_n K_mn sum_d dx_d^-2)
 * (hd_heat_media_dt_max; every neighbour at the largest conductance). */
#ifndef HD_HEAT_MEDIA_H
#define HD_HEAT_MEDIA_H

#include "heat.h"

#define HD_HEAT_MAX_MATERIALS 128
#define HD_HEAT_IFACE 0x80u /* the map's flag bit */
#define HD_HEAT_AT_FACE ((hd_idx)1 << 62) /* a list entry with a cell on a face of the grid */

typedef struct hd_heat_media {
  const unsigned char *m; /* material of every cell, ghosts included, flagged (hd_heat_media_mark) */
  const hd_real *kf;      /* nm x nm face conductances K_ab */
  const hd_real *k;       /* per material: k (the faces' ghosts) */
  const hd_real *r;       /* per material: dt / (rho c) */
  const hd_real *s;       /* per material: dt Q / (rho c) */
  const hd_real *c;       /* per material: 3 values r K_mm / dx_d^2 (0 for inactive axes) */
  const hd_idx *iface;    /* groups of cells holding flagged ones (hd_heat_media_ifaces), or NULL: tuned CUDA step */
  hd_idx niface;          /* entries of iface */
  int group;              /* cells an entry covers along x */
  /* the material of each group of `group` cells along x from cell 1 of a
     row, at (group's first cell) / group (hd_heat_media_groups), or NULL:
     the tuned CUDA step reads it instead of the map (a byte a group, not a
     cell) */
  const unsigned char *gm;
  int nm;
  hd_real rdx2[3];        /* 1 / dx_d^2, 0 for inactive axes */
} hd_heat_media;

typedef struct hd_heat_media_args {
  hd_heat_args a; /* t, t_next, g, bc, sources (its c[] unused) */
  hd_heat_media md;
} hd_heat_media_args;

/* The ghost of a face cell of conductivity k as a linear map of the
 * cell's value, ghost = g[0] inner + g[1], as hd_heat_face and
 * hd_heat_ghost_map give it for one material (the same bits in double),
 * so that a kernel can tabulate it a material ahead of its loop. */
HD_FN void hd_heat_media_ghost_map(const hd_heat_bc *bc, hd_real k, hd_real g[2]) {
  if (bc->kind == HD_HEAT_CONVECTIVE) {
    const hd_real gk = k / bc->dx;
    g[0] = (gk - HD_R(0.5) * bc->h) / (gk + HD_R(0.5) * bc->h);
    g[1] = bc->h * bc->value / (gk + HD_R(0.5) * bc->h);
  } else if (bc->kind == HD_HEAT_FLUX) {
    g[0] = HD_R(1), g[1] = bc->value * bc->dx / k;
  } else {
    hd_heat_ghost_map(bc, g);
  }
}

/* The ghost of a face cell of conductivity k. */
HD_FN hd_real hd_heat_media_ghost(const hd_heat_bc *bc, hd_real inner, hd_real k) {
  hd_real g[2];
  hd_heat_media_ghost_map(bc, k, g);
  return g[0] * inner + g[1];
}

/* The flux of one axis into a cell at t: neighbours tm, tp behind face
 * conductances km, kp. */
HD_FN hd_real hd_heat_media_axis(hd_real rdx2, hd_real t, hd_real km, hd_real tm, hd_real kp, hd_real tp) {
  return rdx2 * (km * (tm - t) + kp * (tp - t));
}

/* The new value of a cell from its summed flux; r = dt / (rho c) and
 * s = dt Q / (rho c) of its material. */
HD_FN hd_real hd_heat_media_new(hd_real r, hd_real s, hd_real t, hd_real flux, hd_real src) {
  return t + r * flux + s + src;
}

HD_FN unsigned hd_heat_mat(unsigned char b) { return b & (HD_HEAT_IFACE - 1u); }

/* The new value of a flagged cell of material m at t (the harmonic-mean
 * form): tn and mn hold its neighbours' values and material bytes in the
 * order -x, +x, -y, +y, -z, +z of the grid's dim axes. */
HD_FN hd_real hd_heat_media_iface_value(const hd_heat_media *md, int dim, unsigned m, hd_real t, const hd_real *tn,
                                        const unsigned char *mn, hd_real src) {
  const hd_real *kf = md->kf + m * (unsigned)md->nm;
  hd_real flux = HD_R(0);
  int d;
  for (d = 0; d < dim; ++d)
    flux += hd_heat_media_axis(md->rdx2[d], t, kf[hd_heat_mat(mn[2 * d])], tn[2 * d], kf[hd_heat_mat(mn[2 * d + 1])],
                               tn[2 * d + 1]);
  return hd_heat_media_new(md->r[m], md->s[m], t, flux, src);
}

/* The new value of interior cell c. */
HD_FN void hd_heat_media_cell(const hd_heat_media_args *p, hd_idx c) {
  const hd_heat_args *a = &p->a;
  const hd_heat_media *md = &p->md;
  const unsigned m = hd_heat_mat(md->m[c]);
  const hd_real t = a->t[c];
  const hd_real src = a->q ? a->dtq + a->dt * a->q[c] : a->dtq;
  hd_real tn[6];
  unsigned char mn[6];
  int d;
  if (!(md->m[c] & HD_HEAT_IFACE) && a->g.dim >= 2) {
    const hd_idx sy = a->g.stride[1], sz = a->g.stride[2];
    a->t_next[c] = a->g.dim == 3 ? hd_heat_update_3d(t, a->t[c - 1], a->t[c + 1], a->t[c - sy], a->t[c + sy],
                                                     a->t[c - sz], a->t[c + sz], md->c + 3 * m, md->s[m] + src)
                                 : hd_heat_update_2d(t, a->t[c - 1], a->t[c + 1], a->t[c - sy], a->t[c + sy],
                                                     md->c + 3 * m, md->s[m] + src);
    return;
  }
  for (d = 0; d < a->g.dim; ++d) {
    const hd_idx s = a->g.stride[d];
    tn[2 * d] = a->t[c - s], tn[2 * d + 1] = a->t[c + s];
    mn[2 * d] = md->m[c - s], mn[2 * d + 1] = md->m[c + s];
  }
  a->t_next[c] = hd_heat_media_iface_value(md, a->g.dim, m, t, tn, mn, src);
}

HD_FN void hd_heat_media_point(const hd_heat_media_args *p, hd_idx i, hd_idx j, hd_idx k) {
  hd_heat_media_cell(p, hd_grid_at(&p->a.g, i, j, k));
}

/* Ghosts of t_next on the two faces normal to `axis` along the line of
 * cells through (i, j, k). */
HD_FN void hd_heat_media_face_pair(const hd_heat_media_args *p, int axis, hd_idx i, hd_idx j, hd_idx k) {
  const hd_heat_args *a = &p->a;
  const hd_idx s = a->g.stride[axis];
  const hd_idx lo = hd_grid_at(&a->g, axis == 0 ? 1 : i, axis == 1 ? 1 : j, axis == 2 ? 1 : k);
  const hd_idx hi = lo + (a->g.n[axis] - 1) * s;
  const hd_heat_bc *bl = &a->bc[2 * axis], *bh = &a->bc[2 * axis + 1];
  if (bl->kind != HD_HEAT_HALO) a->t_next[lo - s] = hd_heat_media_ghost(bl, a->t_next[lo], p->md.k[hd_heat_mat(p->md.m[lo])]);
  if (bh->kind != HD_HEAT_HALO) a->t_next[hi + s] = hd_heat_media_ghost(bh, a->t_next[hi], p->md.k[hd_heat_mat(p->md.m[hi])]);
}
HD_FN void hd_heat_media_xfaces(const hd_heat_media_args *p, hd_idx i, hd_idx j, hd_idx k) {
  hd_heat_media_face_pair(p, 0, i, j, k);
}
HD_FN void hd_heat_media_yfaces(const hd_heat_media_args *p, hd_idx i, hd_idx j, hd_idx k) {
  hd_heat_media_face_pair(p, 1, i, j, k);
}
HD_FN void hd_heat_media_zfaces(const hd_heat_media_args *p, hd_idx i, hd_idx j, hd_idx k) {
  hd_heat_media_face_pair(p, 2, i, j, k);
}

HD_DEFINE_FOR_3D(hd_heat_media_loop, hd_heat_media_point, hd_heat_media_args)
HD_DEFINE_FOR_3D(hd_heat_media_xfaces_loop, hd_heat_media_xfaces, hd_heat_media_args)
HD_DEFINE_FOR_3D(hd_heat_media_yfaces_loop, hd_heat_media_yfaces, hd_heat_media_args)
HD_DEFINE_FOR_3D(hd_heat_media_zfaces_loop, hd_heat_media_zfaces, hd_heat_media_args)

/* The ghosts beside interior cell c of p->a.t_next where it lies on a face
 * of the grid (from its new value). */
HD_FN void hd_heat_media_cell_ghosts(const hd_heat_media_args *p, hd_idx c) {
  const hd_heat_args *a = &p->a;
  const hd_idx sy = a->g.stride[1], sz = a->g.stride[2];
  const hd_idx k = a->g.dim == 3 ? c / sz : 0, j = (c - k * sz) / sy;
  const hd_idx ijk[3] = {c - k * sz - j * sy, j, k};
  const hd_real kc = p->md.k[hd_heat_mat(p->md.m[c])];
  int d;
  for (d = 0; d < a->g.dim; ++d) {
    const hd_heat_bc *lo = &a->bc[2 * d], *hi = &a->bc[2 * d + 1];
    if (ijk[d] == 1 && lo->kind != HD_HEAT_HALO) a->t_next[c - a->g.stride[d]] = hd_heat_media_ghost(lo, a->t_next[c], kc);
    if (ijk[d] == a->g.n[d] && hi->kind != HD_HEAT_HALO)
      a->t_next[c + a->g.stride[d]] = hd_heat_media_ghost(hi, a->t_next[c], kc);
  }
}

/* Ghosts of p->a.t_next from its interior and the face conditions. */
HD_HOST_FN hd_status hd_heat_media_fill_ghosts(hd_ctx *ctx, const hd_heat_media_args *p) {
  const hd_range3 r = hd_grid_interior(&p->a.g);
  hd_range3 f;
  hd_status s;
  int d;
  for (d = 0; d < p->a.g.dim; ++d) {
    f = r;
    f.hi[d] = f.lo[d] + 1;
    s = d == 0 ? hd_heat_media_xfaces_loop(ctx, p, f)
        : d == 1 ? hd_heat_media_yfaces_loop(ctx, p, f) : hd_heat_media_zfaces_loop(ctx, p, f);
    if (s != HD_OK) return s;
  }
  return HD_OK;
}

/* One step from p->a.t into p->a.t_next, ghosts included. */
HD_HOST_FN hd_status hd_heat_media_step(hd_ctx *ctx, const hd_heat_media_args *p) {
  const hd_status s = hd_heat_media_loop(ctx, p, hd_grid_interior(&p->a.g));
  return s != HD_OK ? s : hd_heat_media_fill_ghosts(ctx, p);
}

#if defined(HD_BACKEND_CUDA)
/* Tuned CUDA media step, 3-D on aligned rows (hd_heat_media_vec_ok), in two
 * launches.  The first is the uniform vector kernel's march (hd/heat.h),
 * each thread's HD_HEAT_VEC cells stepped with the uniform coefficients of
 * its first cell's material (a byte of the group map read beside the
 * temperatures, one byte a thread's cells instead of the map's byte a
 * cell; one shared-memory row of coefficients): right for every
 * group of cells of one material without interface cells, where the
 * generic point uses the same form.  The second recomputes the groups of
 * the list (hd_heat_media_ifaces with group HD_HEAT_VEC: every group
 * holding an interface cell, so every group of two materials too), a group
 * a thread, each cell by the point the generic loop gives it, and their
 * ghosts (hd_heat_media_list_kernel).  One material a thread keeps the march
 * as lean as the uniform kernel's; doc/performance.md has the figures. */
#ifndef HD_HEAT_MEDIA_MIN_BLOCKS
#if defined(HD_REAL_FLOAT)
#define HD_HEAT_MEDIA_MIN_BLOCKS 9 /* 56 registers, no spills; 8 measured slower, 10 spills */
#else
#define HD_HEAT_MEDIA_MIN_BLOCKS 10 /* 48 registers, no spills (ghost maps tabulated); 9 slower */
#endif
#endif

#ifndef HD_HEAT_MEDIA_INT_OFFSETS
/* the largest field for 32-bit offsets in the march (fewer registers: +2 %
   in double on the H200); 0 takes 64-bit offsets always, a test of them */
#define HD_HEAT_MEDIA_INT_OFFSETS INT32_MAX
#endif
#ifndef HD_HEAT_MEDIA_AHEAD
#define HD_HEAT_MEDIA_AHEAD 1 /* planes loaded ahead of the next one a thread needs; 2 measured slower */
#endif

/* The coefficients of material m: c_x, c_y, c_z and s + dtq, a 16-byte
 * aligned row of four in shared memory. */
static __device__ __forceinline__ void hd_heat_media_coef(const hd_real *row, hd_real c[4]) {
  const hd_heat_v16 lo = hd_heat_vld(row);
  int u;
#pragma unroll
  for (u = 0; u < HD_HEAT_VEC; ++u) c[u] = lo.e[u];
  if (HD_HEAT_VEC == 2) {
    const hd_heat_v16 hi = hd_heat_vld(row + 2);
    c[2] = hi.e[0], c[3] = hi.e[HD_HEAT_VEC - 1];
  }
}

/* The ghost map of face f and material m in the kernel's table: face
 * after face, a pair a material. */
static __device__ __forceinline__ const hd_real *hd_heat_media_face_map(const hd_real *gmap, int nm, int f,
                                                                        unsigned m) {
  return gmap + 2 * (f * nm + (int)m);
}

/* The x ghost at g of a face cell of new value v by its material's ghost
 * map (hd_heat_media_ghost_map), as hd_heat_vec_xghost stores it (a whole
 * sector where wide). */
static __device__ __forceinline__ void hd_heat_media_xghost(const hd_heat_bc *bc, hd_real *g, int away, hd_real v,
                                                            const hd_real *map, int wide) {
  const int V = HD_HEAT_VEC;
  hd_heat_v16 w;
  hd_real x;
  int u;
  if (bc->kind == HD_HEAT_HALO) return;
  x = map[0] * v + map[1];
  if (!wide) {
    *g = x;
    return;
  }
#pragma unroll
  for (u = 0; u < V; ++u) w.e[u] = x;
  if (away < 0) g += 1 - 2 * V;
  *(hd_heat_v16 *)g = w, *(hd_heat_v16 *)(g + V) = w;
}

/* The ghosts of face f beside the V cells at o (new values) by their
 * material's ghost map, at o + d, one vector store. */
static __device__ __forceinline__ void hd_heat_media_vghosts(const hd_heat_bc *bc, hd_real *o, const hd_real *map,
                                                             hd_idx d) {
  const hd_heat_v16 v = hd_heat_vld(o);
  hd_heat_v16 g;
  int u;
  if (bc->kind == HD_HEAT_HALO) return;
#pragma unroll
  for (u = 0; u < HD_HEAT_VEC; ++u) g.e[u] = map[0] * v.e[u] + map[1];
  *(hd_heat_v16 *)(o + d) = g;
}

/* The march of one thread from cell e, as hd_heat_vec3d_column<X> with
 * the material of each plane (the group map's byte) a plane ahead of its
 * use.  One offset
 * into the fields and the map (the same layout) rather than three
 * pointers: their bases stay kernel parameters, not registers.  I is int
 * where every offset fits: fewer registers. */
template <int X, typename I>
static __device__ __forceinline__ void hd_heat_media_column(const hd_heat_media_args *pa, I e,
                                                            const hd_real *coef, const hd_real *gmap, int planes,
                                                            int far_ok, int active, int xlo, int last, int wide) {
  const hd_heat_args *a = &pa->a;
  const hd_real *HD_RESTRICT t = a->t;
  const unsigned char *HD_RESTRICT gm = pa->md.gm; /* e / V: e is a group's first cell */
  hd_real *HD_RESTRICT out = a->t_next;
  const I sy = (I)a->g.stride[1], sz = (I)a->g.stride[2];
  const unsigned lane = threadIdx.x & 31u;
  const int V = HD_HEAT_VEC;
  hd_heat_v16 w[3 + HD_HEAT_MEDIA_AHEAD]; /* planes r - 1 .. r + 1 + AHEAD */
  /* plane k0 + 1 is at most the ghost plane */
  unsigned m1 = gm[(unsigned long long)e / V], m2 = gm[(unsigned long long)(e + sz) / V];
  int r, u;
#pragma unroll
  for (u = 0; u < 3 + HD_HEAT_MEDIA_AHEAD; ++u)
    w[u] = u <= 2 || u - 1 <= planes || far_ok ? hd_heat_vld(t + e + (u - 1) * sz) : w[2];
  for (r = 0; r < planes; ++r, e += sz) {
    hd_heat_v16 ahead = w[2 + HD_HEAT_MEDIA_AHEAD], ym, yp, v;
    const unsigned mahead = r + 2 <= planes || far_ok ? gm[(unsigned long long)(e + 2 * sz) / V] : m2, m = m1;
    hd_real xm = __shfl_up_sync(0xffffffffu, w[1].e[V - 1], 1), xp = __shfl_down_sync(0xffffffffu, w[1].e[0], 1);
    hd_real cm[4];
    if (r + 2 + HD_HEAT_MEDIA_AHEAD <= planes || far_ok) ahead = hd_heat_vld(t + e + (2 + HD_HEAT_MEDIA_AHEAD) * sz);
    if (lane == 0) xm = t[e - 1];
    if (lane == 31 || (X && last)) xp = t[e + V];
    ym = hd_heat_vld(t + e - sy), yp = hd_heat_vld(t + e + sy);
    hd_heat_media_coef(coef + 4 * m, cm);
#pragma unroll
    for (u = 0; u < V; ++u)
      v.e[u] = hd_heat_update_3d(w[1].e[u], u > 0 ? w[1].e[u > 0 ? u - 1 : 0] : xm,
                                 u < V - 1 ? w[1].e[u < V - 1 ? u + 1 : 0] : xp, ym.e[u], yp.e[u], w[0].e[u],
                                 w[2].e[u], cm, cm[3]);
    if (active) *(hd_heat_v16 *)(out + e) = v;
    if (X && xlo)
      hd_heat_media_xghost(&a->bc[HD_XLO], out + e - 1, -1, v.e[0], hd_heat_media_face_map(gmap, pa->md.nm, HD_XLO, m),
                           wide);
    if (X && last)
      hd_heat_media_xghost(&a->bc[HD_XHI], out + e + V, 1, v.e[V - 1],
                           hd_heat_media_face_map(gmap, pa->md.nm, HD_XHI, m), wide);
#pragma unroll
    for (u = 0; u < 2 + HD_HEAT_MEDIA_AHEAD; ++u) w[u] = w[u + 1];
    w[2 + HD_HEAT_MEDIA_AHEAD] = ahead;
    m1 = m2, m2 = mahead;
  }
}

/* The list's groups, one a thread: every value and material byte of the
 * group and its neighbours is loaded before anything is stored, so the
 * loads overlap (a store to t_next might alias t for the compiler), then
 * each cell is stepped by the point of its kind, as hd_heat_media_cell
 * does, and the face ghosts written. */
HD_KERNEL void hd_heat_media_list_kernel(HD_KPARAM(hd_heat_media_args) pa) {
  const hd_heat_args *a = &pa.a;
  const hd_heat_media *md = &pa.md;
  const hd_idx n = (hd_idx)blockIdx.x * blockDim.x + threadIdx.x;
  const int V = HD_HEAT_VEC;
  hd_idx entry, c, sy, sz;
  hd_heat_v16 tc, tn[4], v;
  hd_real xm, xp;
  unsigned char mc[HD_HEAT_VEC + 2], mn[4][HD_HEAT_VEC];
  int u, d;
  if (n >= md->niface) return;
  entry = md->iface[n], c = entry & (HD_HEAT_AT_FACE - 1), sy = a->g.stride[1], sz = a->g.stride[2];
  tc = hd_heat_vld(a->t + c), xm = a->t[c - 1], xp = a->t[c + V];
  tn[0] = hd_heat_vld(a->t + c - sy), tn[1] = hd_heat_vld(a->t + c + sy);
  tn[2] = hd_heat_vld(a->t + c - sz), tn[3] = hd_heat_vld(a->t + c + sz);
#pragma unroll
  for (u = 0; u < V + 2; ++u) mc[u] = md->m[c - 1 + u];
#pragma unroll
  for (u = 0; u < V; ++u)
    mn[0][u] = md->m[c - sy + u], mn[1][u] = md->m[c + sy + u], mn[2][u] = md->m[c - sz + u],
    mn[3][u] = md->m[c + sz + u];
#pragma unroll
  for (u = 0; u < V; ++u) {
    const unsigned m = hd_heat_mat(mc[u + 1]);
    const hd_real t = tc.e[u], tm = u > 0 ? tc.e[u > 0 ? u - 1 : 0] : xm;
    const hd_real tp = u < V - 1 ? tc.e[u < V - 1 ? u + 1 : 0] : xp;
    if (!(mc[u + 1] & HD_HEAT_IFACE)) {
      v.e[u] = hd_heat_update_3d(t, tm, tp, tn[0].e[u], tn[1].e[u], tn[2].e[u], tn[3].e[u], md->c + 3 * m,
                                 md->s[m] + a->dtq);
    } else {
      const hd_real tv[6] = {tm, tp, tn[0].e[u], tn[1].e[u], tn[2].e[u], tn[3].e[u]};
      const unsigned char mv[6] = {mc[u], mc[u + 2], mn[0][u], mn[1][u], mn[2][u], mn[3][u]};
      v.e[u] = hd_heat_media_iface_value(md, 3, m, t, tv, mv, a->dtq);
    }
  }
  *(hd_heat_v16 *)(a->t_next + c) = v;
  if (entry & HD_HEAT_AT_FACE)
    for (d = 0; d < V; ++d) hd_heat_media_cell_ghosts(&pa, c + d);
}

template <typename I>
HD_KERNEL void __launch_bounds__(HD_HEAT_MAX_THREADS, HD_HEAT_MEDIA_MIN_BLOCKS)
    hd_heat_media_vec_kernel(HD_KPARAM(hd_heat_media_args) pa, int march, int wide) {
  /* 4 coefficients of each material, then the ghost maps of each face and material */
  extern __shared__ __align__(16) hd_real hd_heat_media_smem[];
  const hd_heat_args *a = &pa.a;
  const int nm = pa.md.nm;
  const hd_idx ny = a->g.n[1], nz = a->g.n[2], sy = a->g.stride[1], sz = a->g.stride[2];
  const hd_real *coef = hd_heat_media_smem, *gmap = coef + 4 * nm;
  hd_idx i, j, k0, c;
  int active, last, planes, r, far_ok;
  for (r = threadIdx.x + threadIdx.y * blockDim.x; r < 4 * nm; r += blockDim.x * blockDim.y)
    hd_heat_media_smem[r] = (r & 3) < 3 ? pa.md.c[3 * (r >> 2) + (r & 3)] : pa.md.s[r >> 2] + a->dtq;
  for (r = threadIdx.x + threadIdx.y * blockDim.x; r < HD_NFACES * nm; r += blockDim.x * blockDim.y)
    hd_heat_media_ghost_map(&a->bc[r / nm], pa.md.k[r % nm], hd_heat_media_smem + 4 * nm + 2 * r);
  __syncthreads();
  c = hd_heat_vec_at(a, march, &active, &last, &planes, &i, &j, &k0);
  if (j > ny) return; /* whole warps: a warp lies in one row */
  far_ok = k0 + planes + HD_HEAT_MEDIA_AHEAD <= nz;
  if (__any_sync(0xffffffffu, i == 1 || last))
    hd_heat_media_column<1, I>(&pa, (I)c, coef, gmap, planes, far_ok, active, i == 1, last, wide);
  else
    hd_heat_media_column<0, I>(&pa, (I)c, coef, gmap, planes, far_ok, active, 0, 0, 0);
  /* ghosts of the y and z faces (few threads), from this thread's new
     values read back */
  c = hd_heat_vec_at(a, march, &active, &last, &planes, &i, &j, &k0);
  if (!active) return;
  for (r = 0; (j == 1 || j == ny) && r < planes; ++r) {
    const hd_idx e = c + (hd_idx)r * sz;
    const unsigned me = hd_heat_mat(pa.md.m[e]);
    if (j == 1) hd_heat_media_vghosts(&a->bc[HD_YLO], a->t_next + e, hd_heat_media_face_map(gmap, nm, HD_YLO, me), -sy);
    if (j == ny) hd_heat_media_vghosts(&a->bc[HD_YHI], a->t_next + e, hd_heat_media_face_map(gmap, nm, HD_YHI, me), sy);
  }
  if (k0 == 1)
    hd_heat_media_vghosts(&a->bc[HD_ZLO], a->t_next + c,
                          hd_heat_media_face_map(gmap, nm, HD_ZLO, hd_heat_mat(pa.md.m[c])), -sz);
  if (k0 + planes == nz + 1) {
    const hd_idx e = c + (hd_idx)(planes - 1) * sz;
    hd_heat_media_vghosts(&a->bc[HD_ZHI], a->t_next + e,
                          hd_heat_media_face_map(gmap, nm, HD_ZHI, hd_heat_mat(pa.md.m[e])), sz);
  }
}

/* The tuned media step applies to a whole 3-D grid without a source array
 * whose rows are aligned as hd_heat_vec_ok asks, with its list in groups
 * of HD_HEAT_VEC cells. */
HD_HOST_FN int hd_heat_media_vec_ok(const hd_heat_media_args *p) {
  const hd_heat_args *a = &p->a;
  const hd_idx v = HD_HEAT_VEC;
  return a->g.dim == 3 && !a->q && p->md.iface && p->md.gm && p->md.group == HD_HEAT_VEC && a->g.n[0] % v == 0 &&
         a->g.stride[1] % v == 0 && a->g.stride[2] % v == 0 && (uintptr_t)(a->t + 1) % 16 == 0 &&
         (uintptr_t)(a->t_next + 1) % 16 == 0;
}

/* One step, tuned where it applies (else the generic loop).  ctx->block =
 * {x, y, march} as for hd_heat_step_tuned (default 32 x 4, 8 planes). */
HD_HOST_FN hd_status hd_heat_media_step_tuned(hd_ctx *ctx, const hd_heat_media_args *p) {
  const hd_grid *g = &p->a.g;
  const unsigned bx = ctx->block[0] > 0 ? (unsigned)ctx->block[0] : 32u;
  const unsigned by = ctx->block[1] > 0 ? (unsigned)ctx->block[1] : 4u;
  const int march = ctx->block[2] > 0 ? ctx->block[2] : 8;
  const size_t smem = (size_t)((4 + 2 * HD_NFACES) * p->md.nm) * sizeof(hd_real); /* hd_heat_media_vec_kernel's */
  dim3 grid, block(bx, by, 1);
  hd_status s;
  if (!hd_heat_media_vec_ok(p)) return hd_heat_media_step(ctx, p);
  if (bx % 32u || bx * by > HD_HEAT_MAX_THREADS)
    return hd_fail(ctx, HD_ERR_ARG, "heat: tuned blocks must be whole warps in x, at most %d threads (%u x %u)",
                   HD_HEAT_MAX_THREADS, bx, by);
  grid.x = hd_grid_extent(g->n[0] / HD_HEAT_VEC, bx, 2147483647);
  grid.y = hd_grid_extent(g->n[1], by, 65535);
  grid.z = hd_grid_extent(g->n[2], (unsigned)march, 65535);
  if ((hd_idx)grid.y * by < g->n[1] || (hd_idx)grid.z * march < g->n[2])
    return hd_fail(ctx, HD_ERR_ARG, "heat: grid too tall for the tuned media kernel with march %d", march);
  /* every offset the march forms fits an int */
  if (g->total <= HD_HEAT_MEDIA_INT_OFFSETS - (3 + HD_HEAT_MEDIA_AHEAD) * g->stride[2])
    hd_heat_media_vec_kernel<int><<<grid, block, smem, hd_stream(ctx)>>>(*p, march, hd_heat_vec_wide(&p->a));
  else
    hd_heat_media_vec_kernel<hd_idx><<<grid, block, smem, hd_stream(ctx)>>>(*p, march, hd_heat_vec_wide(&p->a));
  if ((s = hd_check_launch(ctx, "hd_heat_media_step_tuned", __FILE__, __LINE__)) != HD_OK || !p->md.niface) return s;
  if ((p->md.niface + 127) / 128 > 2147483647)
    return hd_fail(ctx, HD_ERR_ARG, "heat: %lld interface groups, too many for one launch", (long long)p->md.niface);
  hd_heat_media_list_kernel<<<(unsigned)((p->md.niface + 127) / 128), 128, 0, hd_stream(ctx)>>>(*p);
  return hd_check_launch(ctx, "hd_heat_media_list_kernel", __FILE__, __LINE__);
}
#else
/* Tuned CPU media step: each row of cells in runs of one material away
 * from interfaces, each run a vectorisable loop of the uniform form with
 * its material's coefficients, the interface cells one by one with the
 * generic point.  The same functions in the same order as the generic
 * loop: equal bit for bit (tests/heat_media).  As the uniform rows
 * (hd/heat.h): compiled for AVX-512 and AVX2 too, each row first asks for
 * the lines HD_HEAT_CPU_AHEAD ahead in the row that streams from memory,
 * its map bytes and the output, and writes its own ghosts while it is in
 * cache. */
HD_HOST_FN void hd_heat_media_cpu_ghost_row(const hd_heat_bc *bc, const hd_real *kt, const unsigned char *HD_RESTRICT m,
                                            hd_real *HD_RESTRICT o, hd_idx n, hd_idx step) {
  hd_idx i;
  if (bc->kind == HD_HEAT_HALO) return;
  for (i = 0; i < n; ++i) o[i + step] = hd_heat_media_ghost(bc, o[i], kt[hd_heat_mat(m[i])]);
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline void hd_heat_media_cpu_row(const hd_heat_media_args *p, hd_idx j, hd_idx k, int three, int has_q) {
  const hd_heat_args *a = &p->a;
  const hd_heat_media *md = &p->md;
  const hd_grid *g = &a->g;
  const hd_idx n = g->n[0], sy = g->stride[1], sz = three ? g->stride[2] : 0, c0 = hd_grid_at(g, 1, j, k);
  const hd_idx next = three ? sz : sy, line = 64 / (hd_idx)sizeof(hd_real);
  const unsigned char *HD_RESTRICT m = md->m + c0;
  const hd_real *HD_RESTRICT t = a->t + c0;
  const hd_real *HD_RESTRICT q = has_q ? a->q + c0 : NULL;
  hd_real *HD_RESTRICT o = a->t_next + c0;
  hd_idx i = 0, i0, u;
  for (u = 0; u < n; u += line) {
    HD_PREFETCH(t + next + HD_HEAT_CPU_AHEAD + u);
    HD_PREFETCH_W(o + HD_HEAT_CPU_AHEAD + u);
    if (u % 64 == 0) HD_PREFETCH(m + next + HD_HEAT_CPU_AHEAD + u);
  }
  while (i < n) {
    const unsigned char b = m[i];
    if (b & HD_HEAT_IFACE) {
      hd_heat_media_cell(p, c0 + i++);
      continue;
    }
    for (i0 = i; i < n && m[i] == b; ++i) {
    }
    {
      const hd_real *c = md->c + 3 * b, s = md->s[b], dtq = a->dtq, dt = a->dt;
      if (three && !has_q) {
        HD_OMP_SIMD
        for (u = i0; u < i; ++u)
          o[u] = hd_heat_update_3d(t[u], t[u - 1], t[u + 1], t[u - sy], t[u + sy], t[u - sz], t[u + sz], c, s + dtq);
      } else if (!has_q) {
        HD_OMP_SIMD
        for (u = i0; u < i; ++u) o[u] = hd_heat_update_2d(t[u], t[u - 1], t[u + 1], t[u - sy], t[u + sy], c, s + dtq);
      } else {
        for (u = i0; u < i; ++u)
          o[u] = three ? hd_heat_update_3d(t[u], t[u - 1], t[u + 1], t[u - sy], t[u + sy], t[u - sz], t[u + sz], c,
                                           s + (dtq + dt * q[u]))
                       : hd_heat_update_2d(t[u], t[u - 1], t[u + 1], t[u - sy], t[u + sy], c, s + (dtq + dt * q[u]));
      }
    }
  }
  hd_heat_media_cpu_ghost_row(&a->bc[HD_XLO], md->k, m, o, 1, -1);
  hd_heat_media_cpu_ghost_row(&a->bc[HD_XHI], md->k, m + n - 1, o + n - 1, 1, 1);
  if (j == 1) hd_heat_media_cpu_ghost_row(&a->bc[HD_YLO], md->k, m, o, n, -sy);
  if (j == g->n[1]) hd_heat_media_cpu_ghost_row(&a->bc[HD_YHI], md->k, m, o, n, sy);
  if (three && k == 1) hd_heat_media_cpu_ghost_row(&a->bc[HD_ZLO], md->k, m, o, n, -sz);
  if (three && k == g->n[2]) hd_heat_media_cpu_ghost_row(&a->bc[HD_ZHI], md->k, m, o, n, sz);
}

HD_HEAT_CPU_ROW_ENTRIES(hd_heat_media_cpu_row, hd_heat_media_cpu_row, hd_heat_media_args)

HD_HOST_FN hd_status hd_heat_media_step_tuned(hd_ctx *ctx, const hd_heat_media_args *p) {
  const hd_range3 r = hd_grid_interior(&p->a.g);
  void (*row)(const hd_heat_media_args *, hd_idx, hd_idx) =
      p->a.g.dim == 3 ? (p->a.q ? hd_heat_media_cpu_row_3d_q : hd_heat_media_cpu_row_3d)
                      : (p->a.q ? hd_heat_media_cpu_row_2d_q : hd_heat_media_cpu_row_2d);
  hd_idx j, k;
  if (p->a.g.dim < 2) return hd_heat_media_step(ctx, p);
  HD_OMP_FOR(collapse(2) schedule(static) num_threads(hd_ctx_threads(ctx)))
  for (k = r.lo[2]; k < r.hi[2]; ++k)
    for (j = r.lo[1]; j < r.hi[1]; ++j) row(p, j, k);
  return HD_OK;
}
#endif

/* Sets HD_HEAT_IFACE on every interior cell of a host map (g's layout,
 * materials below HD_HEAT_IFACE, ghosts filled) that has a neighbour of
 * another material, and clears it elsewhere. */
HD_HOST_FN void hd_heat_media_mark(unsigned char *map, const hd_grid *g) {
  const hd_range3 r = hd_grid_interior(g);
  hd_idx i, j, k;
  int d;
  for (k = r.lo[2]; k < r.hi[2]; ++k)
    for (j = r.lo[1]; j < r.hi[1]; ++j)
      for (i = r.lo[0]; i < r.hi[0]; ++i) {
        const hd_idx c = hd_grid_at(g, i, j, k);
        const unsigned m = hd_heat_mat(map[c]);
        unsigned flag = 0;
        for (d = 0; d < g->dim; ++d)
          if (hd_heat_mat(map[c - g->stride[d]]) != m || hd_heat_mat(map[c + g->stride[d]]) != m) flag = HD_HEAT_IFACE;
        map[c] = (unsigned char)(m | flag);
      }
}

/* The groups of `group` cells along x (from cell 1; n[0] a multiple of
 * group) of a marked host map (hd_heat_media_mark) that hold a flagged
 * cell, in order, into out (NULL: count only) as their first cells, those
 * with a cell on a face of the grid marked HD_HEAT_AT_FACE; their number. */
HD_HOST_FN hd_idx hd_heat_media_ifaces(const unsigned char *map, const hd_grid *g, int group, hd_idx *out) {
  const hd_range3 r = hd_grid_interior(g);
  hd_idx i, j, k, n = 0;
  int u, flagged;
  for (k = r.lo[2]; k < r.hi[2]; ++k)
    for (j = r.lo[1]; j < r.hi[1]; ++j)
      for (i = r.lo[0]; i < r.hi[0]; i += group) {
        const hd_idx c = hd_grid_at(g, i, j, k);
        for (flagged = 0, u = 0; u < group; ++u) flagged |= map[c + u] & HD_HEAT_IFACE;
        if (flagged) {
          const int face = i == 1 || i + group - 1 == g->n[0] || (g->dim > 1 && (j == 1 || j == g->n[1])) ||
                           (g->dim > 2 && (k == 1 || k == g->n[2]));
          if (out) out[n] = c | (face ? HD_HEAT_AT_FACE : 0);
          ++n;
        }
      }
  return n;
}

/* The group map of a marked host map: out[e / group] = the material of
 * cell e for every e = 1 mod group of the padded grid (every row's groups
 * from cell 1; strides multiples of group), g->total / group + 1 bytes. */
HD_HOST_FN void hd_heat_media_groups(const unsigned char *map, const hd_grid *g, int group, unsigned char *out) {
  hd_idx e;
  for (e = 1; e < g->total; e += group) out[e / group] = (unsigned char)hd_heat_mat(map[e]);
}

/* The host tables for nm materials (k, rho c, Q each nm long) at step dt
 * on cells dx[] of a dim-D grid: kf (nm * nm), r, s (nm each) and c
 * (3 nm). */
HD_HOST_FN void hd_heat_media_tables(int nm, const double *k, const double *rhoc, const double *q, double dt,
                                     const double dx[3], int dim, hd_real *kf, hd_real *r, hd_real *s, hd_real *c) {
  int a, b;
  for (a = 0; a < nm; ++a) {
    for (b = 0; b < nm; ++b) kf[a * nm + b] = (hd_real)(2.0 * k[a] * k[b] / (k[a] + k[b]));
    r[a] = (hd_real)(dt / rhoc[a]);
    s[a] = (hd_real)(dt * q[a] / rhoc[a]);
    for (b = 0; b < 3; ++b) c[3 * a + b] = b < dim ? (hd_real)(dt / rhoc[a] * k[a] / (dx[b] * dx[b])) : HD_R(0);
  }
}

/* The stability limit of the materials in use[] (1 = present; NULL: all). */
HD_HOST_FN double hd_heat_media_dt_max(int nm, const double *k, const double *rhoc, const unsigned char *use,
                                       const double dx[3], int dim) {
  double sum = 0.0, best = -1.0;
  int a, b, d;
  for (d = 0; d < dim; ++d) sum += 1.0 / (dx[d] * dx[d]);
  for (a = 0; a < nm; ++a) {
    double kmax = 0.0, lim;
    if (use && !use[a]) continue;
    for (b = 0; b < nm; ++b)
      if (!use || use[b]) kmax = fmax(kmax, 2.0 * k[a] * k[b] / (k[a] + k[b]));
    lim = rhoc[a] / (2.0 * kmax * sum);
    if (best < 0 || lim < best) best = lim;
  }
  return best;
}

#endif /* HD_HEAT_MEDIA_H */
