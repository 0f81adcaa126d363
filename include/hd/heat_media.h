/* hd/heat_media.h - heat conduction in a medium of several materials.
 *
 * Each cell has a material index m (one byte, the field's layout, ghosts
 * included: a ghost takes the material of the cell beside it); material m
 * has conductivity k_m, volumetric heat capacity (rho c)_m and volumetric
 * source Q_m.  Finite volumes: the flux between neighbouring cells a and b
 * along axis d is K_ab (T_b - T_a) / dx_d^2 a unit volume with the harmonic
 * mean K_ab = 2 k_a k_b / (k_a + k_b) (the series resistance of the two half
 * cells: exact for a layered wall), so
 *   T' = T + dt/(rho c)_m [sum_d (K_m,- (T_- - T) + K_m,+ (T_+ - T)) / dx_d^2 + Q_m]
 *          + the uniform / per-cell source of hd_heat_args (a rate of T).
 * Heat sum_c (rho c)_c T_c is conserved by the interior (K symmetric).
 * Faces act through ghosts as in hd/heat.h, with the face cell's own k for
 * convective and flux faces (K_mm = k_m across the face).
 * Stability: the coefficients of the old values stay >= 0 when
 *   dt <= min_m (rho c)_m / (2 max_n K_mn sum_d dx_d^-2)
 * (hd_heat_media_dt_max; every neighbour at the largest conductance). */
#ifndef HD_HEAT_MEDIA_H
#define HD_HEAT_MEDIA_H

#include "heat.h"

#define HD_HEAT_MAX_MATERIALS 256

typedef struct hd_heat_media {
  const unsigned char *m; /* material of every cell, ghosts included */
  const hd_real *kf;      /* nm x nm face conductances K_ab */
  const hd_real *k;       /* per material: k (the faces' ghosts) */
  const hd_real *r;       /* per material: dt / (rho c) */
  const hd_real *s;       /* per material: dt Q / (rho c) */
  int nm;
  hd_real rdx2[3];        /* 1 / dx_d^2, 0 for inactive axes */
} hd_heat_media;

typedef struct hd_heat_media_args {
  hd_heat_args a; /* t, t_next, g, bc, sources (its c[] unused) */
  hd_heat_media md;
} hd_heat_media_args;

/* The ghost of a face cell of conductivity k. */
HD_FN hd_real hd_heat_media_ghost(const hd_heat_bc *bc, hd_real inner, hd_real k) {
  if (bc->kind == HD_HEAT_CONVECTIVE) {
    const hd_real g = k / bc->dx;
    return ((g - HD_R(0.5) * bc->h) * inner + bc->h * bc->value) / (g + HD_R(0.5) * bc->h);
  }
  if (bc->kind == HD_HEAT_FLUX) return inner + bc->value * bc->dx / k;
  return hd_heat_ghost(bc, inner);
}

/* The flux of one axis into a cell at t of material row kfr (K_m,*):
 * neighbours tm, tp of materials mm, mp. */
HD_FN hd_real hd_heat_media_axis(const hd_real *kfr, hd_real rdx2, hd_real t, unsigned mm, hd_real tm, unsigned mp,
                                 hd_real tp) {
  return rdx2 * (kfr[mm] * (tm - t) + kfr[mp] * (tp - t));
}

/* The new value of a cell of material m from its summed flux. */
HD_FN hd_real hd_heat_media_new(const hd_heat_media *md, unsigned m, hd_real t, hd_real flux, hd_real src) {
  return t + md->r[m] * flux + md->s[m] + src;
}

HD_FN void hd_heat_media_point(const hd_heat_media_args *p, hd_idx i, hd_idx j, hd_idx k) {
  const hd_heat_args *a = &p->a;
  const hd_heat_media *md = &p->md;
  const hd_idx c = hd_grid_at(&a->g, i, j, k);
  const unsigned m = md->m[c];
  const hd_real *kf = md->kf + m * (unsigned)md->nm, t = a->t[c];
  hd_real flux = HD_R(0);
  int d;
  for (d = 0; d < a->g.dim; ++d) {
    const hd_idx s = a->g.stride[d];
    flux += hd_heat_media_axis(kf, md->rdx2[d], t, md->m[c - s], a->t[c - s], md->m[c + s], a->t[c + s]);
  }
  a->t_next[c] = hd_heat_media_new(md, m, t, flux, a->q ? a->dtq + a->dt * a->q[c] : a->dtq);
}

/* Ghosts of t_next on the two faces normal to `axis` along the line of
 * cells through (i, j, k). */
HD_FN void hd_heat_media_face_pair(const hd_heat_media_args *p, int axis, hd_idx i, hd_idx j, hd_idx k) {
  const hd_heat_args *a = &p->a;
  const hd_idx s = a->g.stride[axis];
  const hd_idx lo = hd_grid_at(&a->g, axis == 0 ? 1 : i, axis == 1 ? 1 : j, axis == 2 ? 1 : k);
  const hd_idx hi = lo + (a->g.n[axis] - 1) * s;
  const hd_heat_bc *bl = &a->bc[2 * axis], *bh = &a->bc[2 * axis + 1];
  if (bl->kind != HD_HEAT_HALO) a->t_next[lo - s] = hd_heat_media_ghost(bl, a->t_next[lo], p->md.k[p->md.m[lo]]);
  if (bh->kind != HD_HEAT_HALO) a->t_next[hi + s] = hd_heat_media_ghost(bh, a->t_next[hi], p->md.k[p->md.m[hi]]);
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
/* Tuned CUDA media step, 3-D on aligned rows (hd_heat_media_vec_ok): the
 * uniform vector kernel's march (hd/heat.h) with the material bytes beside
 * the temperatures (HD_HEAT_VEC of each a thread, one 4- or 2-byte load),
 * the face conductance table in shared memory, and the same axis and
 * update functions as the generic point.  The x neighbours at warp ends
 * and the ghosts are read from memory; the face ghosts are a pass of their
 * own afterwards (O(n^2)). */
#define HD_HEAT_MEDIA_SMEM 64 /* materials whose table fits shared memory */

typedef struct __align__(HD_HEAT_VEC) hd_heat_mv {
  unsigned char e[HD_HEAT_VEC];
} hd_heat_mv;

static __device__ __forceinline__ hd_heat_mv hd_heat_mld(const unsigned char *p) { return *(const hd_heat_mv *)p; }

HD_KERNEL void __launch_bounds__(HD_HEAT_MAX_THREADS)
    hd_heat_media_vec_kernel(HD_KPARAM(hd_heat_media_args) pa, int march) {
  extern __shared__ unsigned char hd_heat_media_smem[];
  const hd_heat_args *a = &pa.a;
  const int V = HD_HEAT_VEC, nm = pa.md.nm;
  const unsigned lane = threadIdx.x & 31u;
  const hd_idx nx = a->g.n[0], ny = a->g.n[1], nz = a->g.n[2], sy = a->g.stride[1], sz = a->g.stride[2];
  const hd_idx i = 1 + ((hd_idx)blockIdx.x * blockDim.x + threadIdx.x) * V;
  const hd_idx j = 1 + (hd_idx)blockIdx.y * blockDim.y + threadIdx.y, k0 = 1 + (hd_idx)blockIdx.z * march;
  const int planes = (int)((k0 + march < nz + 1 ? k0 + march : nz + 1) - k0);
  const int active = i <= nx, far_ok = k0 + planes + 1 <= nz, shared = nm <= HD_HEAT_MEDIA_SMEM;
  const hd_idx c = (active ? i : nx + 1 - V) + j * sy + k0 * sz;
  hd_heat_media md = pa.md;
  const hd_real *HD_RESTRICT p;
  const unsigned char *HD_RESTRICT mp;
  hd_real *HD_RESTRICT o;
  hd_heat_v16 w0, w1, w2, w3;
  hd_heat_mv m0, m1, m2;
  int r, u;
  if (shared) { /* the table, every thread of the block helping */
    hd_real *kf = (hd_real *)hd_heat_media_smem;
    for (r = threadIdx.x + threadIdx.y * blockDim.x; r < nm * nm; r += blockDim.x * blockDim.y) kf[r] = md.kf[r];
    md.kf = kf;
    __syncthreads();
  }
  if (j > ny) return; /* whole warps: a warp lies in one row */
  p = a->t + c, mp = md.m + c, o = a->t_next + c;
  w0 = hd_heat_vld(p - sz), w1 = hd_heat_vld(p), w2 = hd_heat_vld(p + sz);
  w3 = planes > 1 || far_ok ? hd_heat_vld(p + 2 * sz) : w2;
  m0 = hd_heat_mld(mp - sz), m1 = hd_heat_mld(mp), m2 = hd_heat_mld(mp + sz);
  for (r = 0; r < planes; ++r) {
    hd_heat_v16 ahead = w3, ym, yp, v;
    hd_heat_mv mym, myp, mnext = m2;
    hd_real xm = __shfl_up_sync(0xffffffffu, w1.e[V - 1], 1), xp = __shfl_down_sync(0xffffffffu, w1.e[0], 1);
    unsigned mxm = __shfl_up_sync(0xffffffffu, (unsigned)m1.e[V - 1], 1);
    unsigned mxp = __shfl_down_sync(0xffffffffu, (unsigned)m1.e[0], 1);
    if (r + 2 < planes || far_ok) ahead = hd_heat_vld(p + 3 * sz);
    if (r + 1 < planes || far_ok) mnext = hd_heat_mld(mp + 2 * sz);
    if (lane == 0) xm = p[-1], mxm = mp[-1];
    if (lane == 31 || i + V - 1 == nx) xp = p[V], mxp = mp[V];
    ym = hd_heat_vld(p - sy), yp = hd_heat_vld(p + sy);
    mym = hd_heat_mld(mp - sy), myp = hd_heat_mld(mp + sy);
#pragma unroll
    for (u = 0; u < V; ++u) {
      const unsigned m = m1.e[u];
      const hd_real *kfr = md.kf + m * (unsigned)nm, t = w1.e[u];
      hd_real flux = HD_R(0);
      flux += hd_heat_media_axis(kfr, md.rdx2[0], t, u > 0 ? m1.e[u > 0 ? u - 1 : 0] : mxm,
                                 u > 0 ? w1.e[u > 0 ? u - 1 : 0] : xm, u < V - 1 ? m1.e[u < V - 1 ? u + 1 : 0] : mxp,
                                 u < V - 1 ? w1.e[u < V - 1 ? u + 1 : 0] : xp);
      flux += hd_heat_media_axis(kfr, md.rdx2[1], t, mym.e[u], ym.e[u], myp.e[u], yp.e[u]);
      flux += hd_heat_media_axis(kfr, md.rdx2[2], t, m0.e[u], w0.e[u], m2.e[u], w2.e[u]);
      v.e[u] = hd_heat_media_new(&md, m, t, flux, a->dtq);
    }
    if (active) *(hd_heat_v16 *)o = v;
    w0 = w1, w1 = w2, w2 = w3, w3 = ahead;
    m0 = m1, m1 = m2, m2 = mnext;
    p += sz, mp += sz, o += sz;
  }
}

/* The tuned media step applies to a whole 3-D grid without a source array
 * whose rows are aligned as hd_heat_vec_ok asks, the map's rows too (cell 1
 * of every row on a HD_HEAT_VEC-byte boundary). */
HD_HOST_FN int hd_heat_media_vec_ok(const hd_heat_media_args *p) {
  const hd_heat_args *a = &p->a;
  const hd_idx v = HD_HEAT_VEC;
  return a->g.dim == 3 && !a->q && a->g.n[0] % v == 0 && a->g.stride[1] % v == 0 && a->g.stride[2] % v == 0 &&
         (uintptr_t)(a->t + 1) % 16 == 0 && (uintptr_t)(a->t_next + 1) % 16 == 0 &&
         (uintptr_t)(p->md.m + 1) % (uintptr_t)v == 0;
}

/* One step, tuned where it applies (else the generic loop).  ctx->block =
 * {x, y, march} as for hd_heat_step_tuned (default 32 x 4, 8 planes). */
HD_HOST_FN hd_status hd_heat_media_step_tuned(hd_ctx *ctx, const hd_heat_media_args *p) {
  const hd_grid *g = &p->a.g;
  const unsigned bx = ctx->block[0] > 0 ? (unsigned)ctx->block[0] : 32u;
  const unsigned by = ctx->block[1] > 0 ? (unsigned)ctx->block[1] : 4u;
  const int march = ctx->block[2] > 0 ? ctx->block[2] : 8;
  const size_t smem = p->md.nm <= HD_HEAT_MEDIA_SMEM ? (size_t)(p->md.nm * p->md.nm) * sizeof(hd_real) : 0;
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
  hd_heat_media_vec_kernel<<<grid, block, smem, hd_stream(ctx)>>>(*p, march);
  if ((s = hd_check_launch(ctx, "hd_heat_media_step_tuned", __FILE__, __LINE__)) != HD_OK) return s;
  return hd_heat_media_fill_ghosts(ctx, p);
}
#else
HD_HOST_FN hd_status hd_heat_media_step_tuned(hd_ctx *ctx, const hd_heat_media_args *p) {
  return hd_heat_media_step(ctx, p);
}
#endif

/* The host tables for nm materials (k, rho c, Q each nm long) at step dt:
 * kf (nm * nm), r and s (nm each). */
HD_HOST_FN void hd_heat_media_tables(int nm, const double *k, const double *rhoc, const double *q, double dt,
                                     hd_real *kf, hd_real *r, hd_real *s) {
  int a, b;
  for (a = 0; a < nm; ++a) {
    for (b = 0; b < nm; ++b) kf[a * nm + b] = (hd_real)(2.0 * k[a] * k[b] / (k[a] + k[b]));
    r[a] = (hd_real)(dt / rhoc[a]);
    s[a] = (hd_real)(dt * q[a] / rhoc[a]);
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
