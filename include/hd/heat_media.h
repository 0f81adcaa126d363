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
    flux += md->rdx2[d] * (kf[md->m[c - s]] * (a->t[c - s] - t) + kf[md->m[c + s]] * (a->t[c + s] - t));
  }
  a->t_next[c] = t + md->r[m] * flux + md->s[m] + (a->q ? a->dtq + a->dt * a->q[c] : a->dtq);
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
