/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/fdtd.h - 3-D Yee FDTD (OpenFDTD style), SI units.
 *
 * Mesh: node coordinates x_0 < ... < x_N per axis (non-uniform allowed).
 * All six components live on one padded node grid (hd_grid, x fastest,
 * ghost = pad); physical node p of an axis is padded index p + pad.  Yee
 * staggering, each component named by its node:
 *   Ex(i,j,k) at (x_i+1/2, y_j, z_k)     Hx(i,j,k) at (x_i, y_j+1/2, z_k+1/2)
 *   Ey(i,j,k) at (x_i, y_j+1/2, z_k)     Hy(i,j,k) at (x_i+1/2, y_j, z_k+1/2)
 *   Ez(i,j,k) at (x_i, y_j, z_k+1/2)     Hz(i,j,k) at (x_i+1/2, y_j+1/2, z_k)
 * Updates (per component, material index m of one byte per component):
 *   E = C1[m] E + C2[m] curl H,  C1 = (1 - s)/(1 + s), C2 = (dt/eps)/(1 + s),
 *                                s = sigma dt / (2 eps)
 *   H = D1[m] H - D2[m] curl E,  likewise with mu and sigma_m.
 * Differences over the dual cell use rn = 1/(dual width at a node), over
 * the primary cell rc = 1/(cell width).  Material 0 is vacuum, 1 is PEC
 * (C1 = C2 = 0: E stays 0).
 *
 * Boundaries per axis: PEC (tangential E on the faces stays 0), first-order
 * Mur on the tangential E of the faces or the tangential H outside them
 * (point lists), Berenger split-field PML of L layers outside the faces
 * continuing the media that reach them (point lists over the layers), or
 * periodic (ghost copies).  The fused E and H loops cover the physical
 * nodes; elo/ehi give, per axis, the nodes where E tangential to that
 * axis' faces is updated by them. */
#ifndef HD_FDTD_H
#define HD_FDTD_H

#include <math.h>

#include "context.h"
#include "index.h"
#include "launch.h"
#include "real.h"
#include "reduce.h"

enum { HD_FDTD_EX = 0, HD_FDTD_EY, HD_FDTD_EZ, HD_FDTD_HX, HD_FDTD_HY, HD_FDTD_HZ };
enum { HD_FDTD_VACUUM = 0, HD_FDTD_PEC = 1 };
enum { HD_FDTD_BC_PEC = 0, HD_FDTD_BC_MUR, HD_FDTD_BC_PML, HD_FDTD_BC_PERIODIC, HD_FDTD_BC_CPML };

#define HD_FDTD_C0 299792458.0
#define HD_FDTD_MU0 (4e-7 * 3.14159265358979323846)
#define HD_FDTD_EPS0 (1.0 / (HD_FDTD_MU0 * HD_FDTD_C0 * HD_FDTD_C0))

typedef struct hd_fdtd_args {
  hd_real *f[6];               /* ex ey ez hx hy hz */
  const unsigned char *m[6];   /* material index of each component */
  const hd_real *c1, *c2;      /* E coefficients by material */
  const hd_real *d1, *d2;      /* H coefficients by material */
  const hd_real *rn[3];        /* 1 / dual width at each padded node */
  const hd_real *rc[3];        /* 1 / width of the cell from padded node i to i+1 */
  hd_grid g;                   /* nodes: n = cells + 1 per axis; ghost = pad */
  hd_idx nc[3];                /* cells per axis */
  hd_idx elo[3], ehi[3];       /* physical nodes where tangential E is updated */
  /* CPU tuned rows (NULL: look each node's material up): each row of each
   * component as runs of one material, hd_fdtd_runs_build */
  const struct hd_fdtd_run *run[6];
  const int64_t *row_run[6];   /* row r's runs: run[c][row_run[c][r] .. row_run[c][r + 1]) */
  /* CUDA tuned marches (NULL: look each node's material up): the E (0)
   * and H (1) components' shared material by segments of rows,
   * hd_fdtd_uniform_build; useg, urow its strides */
  const unsigned char *uni[2];
  hd_idx useg, urow;
  /* CUDA tuned H march (NULL: none): the six components of every
   * physical node after it, stored at vbuf[c vspan + n - vfirst] (the
   * volume transform's sample, hd/fdtd_dft.h) */
  hd_real *vbuf;
  hd_idx vfirst, vspan;
} hd_fdtd_args;

/* A stretch of a row of one material: nodes from lo (padded x) to the next
 * run's lo or the row's end. */
typedef struct hd_fdtd_run {
  int32_t lo, m;
} hd_fdtd_run;

/* ---- the updates --------------------------------------------------------- */

/* One E (H) component from its old value, its material's coefficients and
 * the two differences of its curl with their reciprocal widths:
 *   E' = c1 E + c2 (ra da - rb db),   H' = d1 H - d2 (ra da - rb db).
 * Every path (generic loops, tuned kernels, PML) goes through these. */
HD_FN hd_real hd_fdtd_e_value(hd_real e, hd_real c1, hd_real c2, hd_real ra, hd_real da, hd_real rb,
                              hd_real db) {
  return c1 * e + c2 * (ra * da - rb * db);
}
HD_FN hd_real hd_fdtd_h_value(hd_real h, hd_real d1, hd_real d2, hd_real ra, hd_real da, hd_real rb,
                              hd_real db) {
  return d1 * h - d2 * (ra * da - rb * db);
}

/* The six components at node offset n (padded coordinates i, j, k). */
HD_FN void hd_fdtd_update_ex(const hd_fdtd_args *a, hd_idx n, hd_idx j, hd_idx k) {
  const hd_idx sy = a->g.stride[1], sz = a->g.stride[2];
  const hd_real *hy = a->f[HD_FDTD_HY], *hz = a->f[HD_FDTD_HZ];
  const unsigned m = a->m[HD_FDTD_EX][n];
  a->f[HD_FDTD_EX][n] = hd_fdtd_e_value(a->f[HD_FDTD_EX][n], a->c1[m], a->c2[m], a->rn[1][j],
                                        hz[n] - hz[n - sy], a->rn[2][k], hy[n] - hy[n - sz]);
}
HD_FN void hd_fdtd_update_ey(const hd_fdtd_args *a, hd_idx n, hd_idx i, hd_idx k) {
  const hd_idx sz = a->g.stride[2];
  const hd_real *hx = a->f[HD_FDTD_HX], *hz = a->f[HD_FDTD_HZ];
  const unsigned m = a->m[HD_FDTD_EY][n];
  a->f[HD_FDTD_EY][n] = hd_fdtd_e_value(a->f[HD_FDTD_EY][n], a->c1[m], a->c2[m], a->rn[2][k],
                                        hx[n] - hx[n - sz], a->rn[0][i], hz[n] - hz[n - 1]);
}
HD_FN void hd_fdtd_update_ez(const hd_fdtd_args *a, hd_idx n, hd_idx i, hd_idx j) {
  const hd_idx sy = a->g.stride[1];
  const hd_real *hx = a->f[HD_FDTD_HX], *hy = a->f[HD_FDTD_HY];
  const unsigned m = a->m[HD_FDTD_EZ][n];
  a->f[HD_FDTD_EZ][n] = hd_fdtd_e_value(a->f[HD_FDTD_EZ][n], a->c1[m], a->c2[m], a->rn[0][i],
                                        hy[n] - hy[n - 1], a->rn[1][j], hx[n] - hx[n - sy]);
}
HD_FN void hd_fdtd_update_hx(const hd_fdtd_args *a, hd_idx n, hd_idx j, hd_idx k) {
  const hd_idx sy = a->g.stride[1], sz = a->g.stride[2];
  const hd_real *ey = a->f[HD_FDTD_EY], *ez = a->f[HD_FDTD_EZ];
  const unsigned m = a->m[HD_FDTD_HX][n];
  a->f[HD_FDTD_HX][n] = hd_fdtd_h_value(a->f[HD_FDTD_HX][n], a->d1[m], a->d2[m], a->rc[1][j],
                                        ez[n + sy] - ez[n], a->rc[2][k], ey[n + sz] - ey[n]);
}
HD_FN void hd_fdtd_update_hy(const hd_fdtd_args *a, hd_idx n, hd_idx i, hd_idx k) {
  const hd_idx sz = a->g.stride[2];
  const hd_real *ex = a->f[HD_FDTD_EX], *ez = a->f[HD_FDTD_EZ];
  const unsigned m = a->m[HD_FDTD_HY][n];
  a->f[HD_FDTD_HY][n] = hd_fdtd_h_value(a->f[HD_FDTD_HY][n], a->d1[m], a->d2[m], a->rc[2][k],
                                        ex[n + sz] - ex[n], a->rc[0][i], ez[n + 1] - ez[n]);
}
HD_FN void hd_fdtd_update_hz(const hd_fdtd_args *a, hd_idx n, hd_idx i, hd_idx j) {
  const hd_idx sy = a->g.stride[1];
  const hd_real *ex = a->f[HD_FDTD_EX], *ey = a->f[HD_FDTD_EY];
  const unsigned m = a->m[HD_FDTD_HZ][n];
  a->f[HD_FDTD_HZ][n] = hd_fdtd_h_value(a->f[HD_FDTD_HZ][n], a->d1[m], a->d2[m], a->rc[0][i],
                                        ey[n + 1] - ey[n], a->rc[1][j], ex[n + sy] - ex[n]);
}

/* Fused point functions over the physical nodes: every component whose
 * position at this node is in its update range. */
HD_FN int hd_fdtd_tangential(const hd_fdtd_args *a, int axis, hd_idx p) {
  return p >= a->elo[axis] && p <= a->ehi[axis];
}

HD_FN void hd_fdtd_e_point(const hd_fdtd_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_idx pad = a->g.ghost, pi = i - pad, pj = j - pad, pk = k - pad;
  const hd_idx n = hd_grid_at(&a->g, i, j, k);
  const int tx = hd_fdtd_tangential(a, 0, pi), ty = hd_fdtd_tangential(a, 1, pj),
            tz = hd_fdtd_tangential(a, 2, pk);
  if (pi < a->nc[0] && ty && tz) hd_fdtd_update_ex(a, n, j, k);
  if (pj < a->nc[1] && tx && tz) hd_fdtd_update_ey(a, n, i, k);
  if (pk < a->nc[2] && tx && ty) hd_fdtd_update_ez(a, n, i, j);
}

HD_FN void hd_fdtd_h_point(const hd_fdtd_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_idx pad = a->g.ghost, pi = i - pad, pj = j - pad, pk = k - pad;
  const hd_idx n = hd_grid_at(&a->g, i, j, k);
  if (pj < a->nc[1] && pk < a->nc[2]) hd_fdtd_update_hx(a, n, j, k);
  if (pi < a->nc[0] && pk < a->nc[2]) hd_fdtd_update_hy(a, n, i, k);
  if (pi < a->nc[0] && pj < a->nc[1]) hd_fdtd_update_hz(a, n, i, j);
}

HD_DEFINE_FOR_3D(hd_fdtd_e_loop, hd_fdtd_e_point, hd_fdtd_args)
HD_DEFINE_FOR_3D(hd_fdtd_h_loop, hd_fdtd_h_point, hd_fdtd_args)

/* The physical nodes in padded coordinates: the range of both loops. */
HD_HOST_FN hd_range3 hd_fdtd_nodes(const hd_fdtd_args *a) {
  const hd_idx p = a->g.ghost;
  return hd_range3_make(p, p + a->nc[0] + 1, p, p + a->nc[1] + 1, p, p + a->nc[2] + 1);
}

/* ---- first-order Mur ------------------------------------------------------- */

/* e[m0] is a boundary component, e[m1] the one a cell inwards along the
 * normal; g = (v dt - d)/(v dt + d) for the spacing d between them and the
 * medium's speed v; prev[p] holds point p's e[m1] of the previous step:
 *   E0^{n+1} = E1^n + g (E1^{n+1} - E0^n)   (after the update of that field)
 * The same on the tangential E of the faces (hd's) or on the tangential H
 * half a cell outside them (OpenFDTD's); f[] holds the three components.
 * The points are constant and the values they carry lie apart (prev), so
 * that a march taking the points by runs (the CPU rows) moves 4 bytes a
 * point of its own. */
typedef struct hd_fdtd_mur {
  hd_idx m0, m1;
  hd_real g;
  int comp;
} hd_fdtd_mur;

typedef struct hd_fdtd_mur_args {
  hd_real *f[3]; /* ex ey ez, or hx hy hz */
  const hd_fdtd_mur *pt;
  hd_real *prev;
} hd_fdtd_mur_args;

HD_FN hd_real hd_fdtd_mur_value(hd_real prev, hd_real g, hd_real e1, hd_real e0) { return prev + g * (e1 - e0); }

HD_FN void hd_fdtd_mur_pt(const hd_fdtd_mur_args *a, hd_idx p) {
  const hd_fdtd_mur *q = &a->pt[p];
  hd_real *e = a->f[q->comp];
  e[q->m0] = hd_fdtd_mur_value(a->prev[p], q->g, e[q->m1], e[q->m0]);
  a->prev[p] = e[q->m1];
}
HD_DEFINE_FOR_1D(hd_fdtd_mur_loop, hd_fdtd_mur_pt, hd_fdtd_mur_args)

/* Each point's e[m1] now, as hd_fdtd_mur_pt keeps it: after a march that
 * applied the points itself (the fused CUDA march, hd/fdtd_fused_cuda.h). */
HD_FN void hd_fdtd_mur_keep_pt(const hd_fdtd_mur_args *a, hd_idx p) { a->prev[p] = a->f[a->pt[p].comp][a->pt[p].m1]; }
HD_DEFINE_FOR_1D(hd_fdtd_mur_keep_loop, hd_fdtd_mur_keep_pt, hd_fdtd_mur_args)

/* ---- Berenger split-field PML -------------------------------------------- */

/* A component inside the PML layers: its padded node and split parts, one
 * for each transverse axis.  The layers continue the medium at the faces
 * (the material arrays are extended outwards), and each part follows
 *   perm ds/dt + (sigma + sigma_p perm / (n perm0)) s = +-d(curl term),
 * perm and sigma the material's (a conductor keeps s = 0), n its
 * refractive index, sigma_p the graded profile of the axis, so that the
 * layer is matched to the medium it continues and attenuates a wave by
 * the same factor a metre whatever the medium.  Central in time, with
 * S = sigma dt / (2 perm) + p / n,  p = sigma_p dt / (2 perm0):
 *   s' = ((1 - S) s + (dt/perm) D) / (1 + S).
 * Profiles p per axis at E nodes (index i) and at H half nodes (index i
 * for i + 1/2), graded sigma_p(d) = sigma_max (d / thickness)^M,
 * sigma_max = -(M + 1) ln(R0) / (2 eta0 thickness); H uses the same p
 * (the magnetic loss matched, sigma_m = sigma_p mu0/eps0). */
typedef struct hd_fdtd_pml_point {
  hd_idx n;
  int i, j, k; /* padded node */
} hd_fdtd_pml_point;

/* A run of a layer list (the CPU rows): points p0 .. p0 + len of the
 * list, nodes n0 .. n0 + len of row (j, k) from x = i0 (padded), all of
 * material m. */
typedef struct hd_fdtd_layer_run {
  hd_idx p0, n0;
  int32_t i0, j, k, len, m;
} hd_fdtd_layer_run;

/* The runs of a list of count points whose nodes have materials mat (the
 * component's indices; run NULL: count only); returns how many. */
HD_HOST_FN hd_idx hd_fdtd_layer_runs(const hd_fdtd_pml_point *pt, hd_idx count, const unsigned char *mat,
                                     hd_fdtd_layer_run *run) {
  hd_idx p, n = 0;
  for (p = 0; p < count; ++p) {
    if (p && pt[p].n == pt[p - 1].n + 1 && pt[p].j == pt[p - 1].j && pt[p].k == pt[p - 1].k &&
        mat[pt[p].n] == mat[pt[p - 1].n]) {
      if (run) ++run[n - 1].len;
      continue;
    }
    if (run)
      run[n].p0 = p, run[n].n0 = pt[p].n, run[n].i0 = pt[p].i, run[n].j = pt[p].j, run[n].k = pt[p].k, run[n].len = 1,
      run[n].m = mat[pt[p].n];
    ++n;
  }
  return n;
}

typedef struct hd_fdtd_pml_args {
  hd_fdtd_args f;
  const hd_fdtd_pml_point *pt;
  hd_real *s1, *s2;            /* split parts, one each per point */
  const hd_real *pe[3];        /* profiles p at nodes (E) */
  const hd_real *ph[3];        /* and at half nodes (H) */
  const hd_real *mat;          /* per material of this field: 1/n, dt/perm (0: a conductor), sigma dt/(2 perm) */
  int comp;
} hd_fdtd_pml_args;

/* One split part s with profile p, the material's three numbers k and
 * the signed difference d over its width. */
HD_FN hd_real hd_fdtd_pml_part(hd_real s, hd_real p, const hd_real *k, hd_real d) {
  const hd_real S = k[2] + p * k[0];
  return ((1 - S) * s + k[1] * d) / (1 + S);
}

HD_FN void hd_fdtd_pml_pt(const hd_fdtd_pml_args *a, hd_idx p) {
  const hd_fdtd_pml_point q = a->pt[p];
  const hd_fdtd_args *f = &a->f;
  const hd_idx n = q.n, sy = f->g.stride[1], sz = f->g.stride[2];
  hd_real *const *F = f->f;
  const hd_real *k = a->mat + 3 * f->m[a->comp][n];
  hd_real s1 = a->s1[p], s2 = a->s2[p];
  switch (a->comp) {
    case HD_FDTD_EX:
      s1 = hd_fdtd_pml_part(s1, a->pe[1][q.j], k, f->rn[1][q.j] * (F[HD_FDTD_HZ][n] - F[HD_FDTD_HZ][n - sy]));
      s2 = hd_fdtd_pml_part(s2, a->pe[2][q.k], k, -f->rn[2][q.k] * (F[HD_FDTD_HY][n] - F[HD_FDTD_HY][n - sz]));
      break;
    case HD_FDTD_EY:
      s1 = hd_fdtd_pml_part(s1, a->pe[2][q.k], k, f->rn[2][q.k] * (F[HD_FDTD_HX][n] - F[HD_FDTD_HX][n - sz]));
      s2 = hd_fdtd_pml_part(s2, a->pe[0][q.i], k, -f->rn[0][q.i] * (F[HD_FDTD_HZ][n] - F[HD_FDTD_HZ][n - 1]));
      break;
    case HD_FDTD_EZ:
      s1 = hd_fdtd_pml_part(s1, a->pe[0][q.i], k, f->rn[0][q.i] * (F[HD_FDTD_HY][n] - F[HD_FDTD_HY][n - 1]));
      s2 = hd_fdtd_pml_part(s2, a->pe[1][q.j], k, -f->rn[1][q.j] * (F[HD_FDTD_HX][n] - F[HD_FDTD_HX][n - sy]));
      break;
    case HD_FDTD_HX:
      s1 = hd_fdtd_pml_part(s1, a->ph[1][q.j], k, -f->rc[1][q.j] * (F[HD_FDTD_EZ][n + sy] - F[HD_FDTD_EZ][n]));
      s2 = hd_fdtd_pml_part(s2, a->ph[2][q.k], k, f->rc[2][q.k] * (F[HD_FDTD_EY][n + sz] - F[HD_FDTD_EY][n]));
      break;
    case HD_FDTD_HY:
      s1 = hd_fdtd_pml_part(s1, a->ph[2][q.k], k, -f->rc[2][q.k] * (F[HD_FDTD_EX][n + sz] - F[HD_FDTD_EX][n]));
      s2 = hd_fdtd_pml_part(s2, a->ph[0][q.i], k, f->rc[0][q.i] * (F[HD_FDTD_EZ][n + 1] - F[HD_FDTD_EZ][n]));
      break;
    default: /* HZ */
      s1 = hd_fdtd_pml_part(s1, a->ph[0][q.i], k, -f->rc[0][q.i] * (F[HD_FDTD_EY][n + 1] - F[HD_FDTD_EY][n]));
      s2 = hd_fdtd_pml_part(s2, a->ph[1][q.j], k, f->rc[1][q.j] * (F[HD_FDTD_EX][n + sy] - F[HD_FDTD_EX][n]));
      break;
  }
  a->s1[p] = s1;
  a->s2[p] = s2;
  F[a->comp][n] = s1 + s2;
}
HD_DEFINE_FOR_1D(hd_fdtd_pml_loop, hd_fdtd_pml_pt, hd_fdtd_pml_args)

/* ---- convolutional PML (Roden & Gedney 2000) ------------------------------ */

/* The same layers and points as the split-field PML, each component
 * updated whole with its own medium's coefficients (the medium continues
 * through the layers as it is) and the stretched differences
 *   D_a / kappa_a + psi_a,   psi_a' = b_a psi_a + c_a D_a,
 * b = exp(-(sigma/kappa + alpha) dt / eps0), c = sigma (b - 1) / (sigma kappa
 * + kappa^2 alpha): kappa > 1 stretches evanescent and grazing waves
 * into the layer, alpha > 0 keeps low frequencies from being absorbed
 * badly (the profiles at E nodes and H half nodes of each axis; psi 0
 * where sigma is). Storage: two psi a point, as the split parts. */
typedef struct hd_fdtd_cpml_args {
  hd_fdtd_args f;
  const hd_fdtd_pml_point *pt;
  hd_real *psi1, *psi2;
  const hd_real *b[3], *c[3], *ik[3]; /* this field's profiles: b, c and 1/kappa */
  int comp;
} hd_fdtd_cpml_args;

/* A layer component's update from its value x, its medium's k1, k2 (c1,
 * c2 for E; d1, d2 for H) and the curl's two differences du (+) and dv
 * (-), each over its width: both psi stepped (b psi + c d) and the curl
 * stretched (d / kappa + psi).  The point loop and the CPU rows both. */
HD_FN hd_real hd_fdtd_cpml_value(int efield, hd_real x, hd_real k1, hd_real k2, hd_real du, hd_real dv, hd_real bu,
                                 hd_real cu, hd_real iku, hd_real bv, hd_real cv, hd_real ikv, hd_real *psi1,
                                 hd_real *psi2) {
  const hd_real p1 = bu * *psi1 + cu * du, p2 = bv * *psi2 + cv * dv;
  const hd_real curl = iku * du + p1 - (ikv * dv + p2);
  *psi1 = p1, *psi2 = p2;
  return efield ? k1 * x + k2 * curl : k1 * x - k2 * curl;
}

HD_FN void hd_fdtd_cpml_pt(const hd_fdtd_cpml_args *a, hd_idx p) {
  const hd_fdtd_pml_point q = a->pt[p];
  const hd_fdtd_args *f = &a->f;
  const hd_idx n = q.n, sy = f->g.stride[1], sz = f->g.stride[2];
  const int idx[3] = {q.i, q.j, q.k}, c = a->comp % 3, u = (c + 1) % 3, v = (c + 2) % 3;
  hd_real *const *F = f->f;
  hd_real du, dv; /* the curl's two terms, each over its width: + along u, - along v */
  const hd_real *x = F[a->comp];
  const unsigned m = f->m[a->comp][n];
  hd_real p1 = a->psi1[p], p2 = a->psi2[p];
  switch (a->comp) {
    case HD_FDTD_EX:
      du = f->rn[1][q.j] * (F[HD_FDTD_HZ][n] - F[HD_FDTD_HZ][n - sy]), dv = f->rn[2][q.k] * (F[HD_FDTD_HY][n] - F[HD_FDTD_HY][n - sz]);
      break;
    case HD_FDTD_EY:
      du = f->rn[2][q.k] * (F[HD_FDTD_HX][n] - F[HD_FDTD_HX][n - sz]), dv = f->rn[0][q.i] * (F[HD_FDTD_HZ][n] - F[HD_FDTD_HZ][n - 1]);
      break;
    case HD_FDTD_EZ:
      du = f->rn[0][q.i] * (F[HD_FDTD_HY][n] - F[HD_FDTD_HY][n - 1]), dv = f->rn[1][q.j] * (F[HD_FDTD_HX][n] - F[HD_FDTD_HX][n - sy]);
      break;
    case HD_FDTD_HX:
      du = f->rc[1][q.j] * (F[HD_FDTD_EZ][n + sy] - F[HD_FDTD_EZ][n]), dv = f->rc[2][q.k] * (F[HD_FDTD_EY][n + sz] - F[HD_FDTD_EY][n]);
      break;
    case HD_FDTD_HY:
      du = f->rc[2][q.k] * (F[HD_FDTD_EX][n + sz] - F[HD_FDTD_EX][n]), dv = f->rc[0][q.i] * (F[HD_FDTD_EZ][n + 1] - F[HD_FDTD_EZ][n]);
      break;
    default: /* HZ */
      du = f->rc[0][q.i] * (F[HD_FDTD_EY][n + 1] - F[HD_FDTD_EY][n]), dv = f->rc[1][q.j] * (F[HD_FDTD_EX][n + sy] - F[HD_FDTD_EX][n]);
      break;
  }
  F[a->comp][n] = hd_fdtd_cpml_value(a->comp < 3, x[n], a->comp < 3 ? f->c1[m] : f->d1[m], a->comp < 3 ? f->c2[m] : f->d2[m],
                                     du, dv, a->b[u][idx[u]], a->c[u][idx[u]], a->ik[u][idx[u]], a->b[v][idx[v]],
                                     a->c[v][idx[v]], a->ik[v][idx[v]], &p1, &p2);
  a->psi1[p] = p1, a->psi2[p] = p2;
}
HD_DEFINE_FOR_1D(hd_fdtd_cpml_loop, hd_fdtd_cpml_pt, hd_fdtd_cpml_args)

/* kappa, sigma and alpha at depth d into layers of thickness t (d <= 0:
 * outside them): kappa and sigma graded as (d/t)^order from 1 and 0,
 * alpha falling linearly from alpha_max at the layers' face to 0. */
HD_HOST_FN void hd_fdtd_cpml_profile(double d, double t, int order, double r0, double kappa_max, double alpha_max, double *kappa,
                                     double *sigma, double *alpha) {
  const double eta0 = HD_FDTD_MU0 * HD_FDTD_C0, x = d <= 0.0 ? 0.0 : d > t ? 1.0 : d / t;
  const double g = pow(x, (double)order);
  *kappa = 1.0 + (kappa_max - 1.0) * g;
  *sigma = -(order + 1) * log(r0) / (2.0 * eta0 * t) * g;
  *alpha = d <= 0.0 ? 0.0 : alpha_max * (1.0 - x);
}

/* sigma at depth d into a PML of thickness t (d <= 0 outside the PML). */
HD_FN double hd_fdtd_pml_sigma(double d, double t, int order, double r0) {
  const double eta0 = HD_FDTD_MU0 * HD_FDTD_C0;
  if (d <= 0.0) return 0.0;
  if (d > t) d = t;
  return -(order + 1) * log(r0) / (2.0 * eta0 * t) * pow(d / t, (double)order);
}

/* ---- periodic boundaries: ghost copies ------------------------------------ */

/* dst[n] = src[n + shift] for one component over a face range. */
typedef struct hd_fdtd_copy_args {
  hd_real *f;
  hd_grid g;
  hd_idx shift;
} hd_fdtd_copy_args;

HD_FN void hd_fdtd_copy_pt(const hd_fdtd_copy_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_idx n = hd_grid_at(&a->g, i, j, k);
  a->f[n] = a->f[n + a->shift];
}
HD_DEFINE_FOR_3D(hd_fdtd_copy_loop, hd_fdtd_copy_pt, hd_fdtd_copy_args)

/* Bloch-periodic: the complex field re + i im of one component over a
 * face range takes its value `shift` nodes on times e^{i phi}, (c, s) =
 * (cos phi, sin phi): phi = beta L for E at node N from node 0, -beta L
 * for H at node -1 from N - 1 (hd/fdtd_sf.h). */
typedef struct hd_fdtd_bloch_args {
  hd_real *re, *im;
  hd_grid g;
  hd_idx shift;
  double c, s;
} hd_fdtd_bloch_args;

HD_FN void hd_fdtd_bloch_pt(const hd_fdtd_bloch_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_idx n = hd_grid_at(&a->g, i, j, k);
  const double r = (double)a->re[n + a->shift], m = (double)a->im[n + a->shift];
  a->re[n] = (hd_real)(a->c * r - a->s * m);
  a->im[n] = (hd_real)(a->s * r + a->c * m);
}
HD_DEFINE_FOR_3D(hd_fdtd_bloch_loop, hd_fdtd_bloch_pt, hd_fdtd_bloch_args)

/* ---- sources -------------------------------------------------------------- */

enum { HD_FDTD_GAUSSIAN = 0, HD_FDTD_DGAUSSIAN, HD_FDTD_SINE, HD_FDTD_MGAUSSIAN, HD_FDTD_TABLE };

/* Source waveform w(t), peak magnitude 1: a Gaussian exp(-((t - t0)/tau)^2),
 * its derivative scaled to peak 1, sin(2 pi f t) ramped up over its first
 * two periods with sin^2, or the Gaussian modulated by sin(2 pi f (t - t0))
 * (peak about 1: its spectrum centred on f, tau its width's).  Or a table
 * (a user's file): ntab increasing times tab[0..ntab) then their values,
 * linear between them and 0 outside; tab in the memory of whoever
 * evaluates it (the backend's for kernels, the host's for the host). */
typedef struct hd_fdtd_wave {
  int kind;
  double t0, tau, freq;
  const double *tab;
  hd_idx ntab;
} hd_fdtd_wave;

HD_FN double hd_fdtd_wave_table(const double *tab, hd_idx n, double t) {
  hd_idx lo = 0, hi = n - 1;
  if (!(t >= tab[0] && t <= tab[n - 1])) return 0.0;
  if (t == tab[n - 1]) return tab[2 * n - 1]; /* each sample exactly at its own time, the last too */
  while (hi - lo > 1) { /* tab[lo] <= t <= tab[hi] */
    const hd_idx mid = lo + (hi - lo) / 2;
    if (tab[mid] <= t) lo = mid;
    else hi = mid;
  }
  return tab[n + lo] + (t - tab[lo]) / (tab[hi] - tab[lo]) * (tab[n + hi] - tab[n + lo]);
}

HD_FN double hd_fdtd_waveform(const hd_fdtd_wave *w, double t) {
  const double x = (t - w->t0) / w->tau, pi = 3.14159265358979323846;
  if (w->kind == HD_FDTD_GAUSSIAN) return exp(-x * x);
  if (w->kind == HD_FDTD_DGAUSSIAN) return -sqrt(2.0 * exp(1.0)) * x * exp(-x * x);
  if (w->kind == HD_FDTD_MGAUSSIAN) return exp(-x * x) * sin(2.0 * pi * w->freq * (t - w->t0));
  if (w->kind == HD_FDTD_TABLE) return hd_fdtd_wave_table(w->tab, w->ntab, t);
  {
    const double ramp_t = 2.0 / w->freq;
    const double s = t >= ramp_t ? 1.0 : sin(0.5 * pi * t / ramp_t) * sin(0.5 * pi * t / ramp_t);
    return s * sin(2.0 * pi * w->freq * t);
  }
}

/* A delta-gap feed on one E edge, voltage v * w(t - delay) behind resistance r:
 * the edge's E is set to -(V - r I) / length, I the loop integral of H
 * around the edge (Ampere), so the gap voltage is V - r I.  A soft current
 * source adds current `amp * w(t)` along the edge instead (r < 0 marks it).
 * A released feed (hold 0, OpenFDTD's feed on an edge that is no
 * conductor) sets its edge only while |w| > HD_FDTD_FEED_RELEASE and leaves
 * it to the update after, recording V - r I all the same. */
#define HD_FDTD_FEED_RELEASE 1e-6
typedef struct hd_fdtd_feed {
  hd_idx n;
  int comp, i, j, k; /* padded node */
  hd_real amp, r;    /* volts (feed) or amperes (soft source); r < 0: soft */
  double delay;      /* of the waveform (s) */
  int hold;          /* the edge is set at every step */
} hd_fdtd_feed;

typedef struct hd_fdtd_feed_args {
  hd_fdtd_args f;
  const hd_fdtd_feed *feed;
  hd_fdtd_wave wave;
  double t;       /* time of the E being set */
  hd_real *rec;   /* gap voltage and current of each feed: 2 values, or NULL */
} hd_fdtd_feed_args;

/* The feed's edge after the E update: e its value then, cur the loop
 * integral of H around it (its two differences, each over its width: H_v
 * along u, then H_u along v), wd the waveform at the edge's time, c2 its
 * material's coefficient, ru rv the transverse reciprocal widths, rc the
 * edge's.  Returns the new E; v and i get the gap's voltage and current.
 * One place for hd_fdtd_feed_pt and the fused CUDA march. */
HD_FN hd_real hd_fdtd_feed_value(const hd_fdtd_feed *q, hd_real e, hd_real dhv, hd_real dhu, hd_real ru, hd_real rv,
                                 hd_real rc, hd_real c2, double wd, hd_real *v, hd_real *i) {
  const hd_real w = (hd_real)wd, cur = dhv / rv - dhu / ru;
  const int set = q->r >= 0 && (q->hold || fabs(wd) > HD_FDTD_FEED_RELEASE);
  if (q->r < 0) /* soft current source: the edge's current density */
    e -= c2 * q->amp * w * ru * rv;
  else if (set)
    e = -(q->amp * w - q->r * cur) * rc;
  *v = q->r < 0 || set ? -e / rc : q->amp * w - q->r * cur;
  *i = cur;
  return e;
}

HD_FN void hd_fdtd_feed_pt(const hd_fdtd_feed_args *a, hd_idx p) {
  const hd_fdtd_feed q = a->feed[p];
  const hd_fdtd_args *f = &a->f;
  const int c = q.comp, u = (c + 1) % 3, v = (c + 2) % 3; /* the two transverse axes */
  const hd_idx su = f->g.stride[u], sv = f->g.stride[v];
  const int idx[3] = {q.i, q.j, q.k};
  /* loop integral around the edge: H_v steps along u, H_u along v */
  const hd_real *hu = f->f[3 + u], *hv = f->f[3 + v];
  hd_real *e = f->f[c], volt, cur;
  e[q.n] = hd_fdtd_feed_value(&q, e[q.n], hv[q.n] - hv[q.n - su], hu[q.n] - hu[q.n - sv], f->rn[u][idx[u]],
                              f->rn[v][idx[v]], f->rc[c][idx[c]], f->c2[f->m[c][q.n]],
                              hd_fdtd_waveform(&a->wave, a->t - q.delay), &volt, &cur);
  if (a->rec) a->rec[2 * p] = volt, a->rec[2 * p + 1] = cur;
}
HD_DEFINE_FOR_1D(hd_fdtd_feed_loop, hd_fdtd_feed_pt, hd_fdtd_feed_args)

/* ---- probes ----------------------------------------------------------------- */

typedef struct hd_fdtd_probe {
  hd_idx n;
  int comp;
} hd_fdtd_probe;

typedef struct hd_fdtd_probe_args {
  hd_real *f[6]; /* by value: kernel arguments must not point to host memory */
  const hd_fdtd_probe *probe;
  hd_real *rec;
} hd_fdtd_probe_args;

HD_FN void hd_fdtd_probe_pt(const hd_fdtd_probe_args *a, hd_idx p) {
  a->rec[p] = a->f[a->probe[p].comp][a->probe[p].n];
}
HD_DEFINE_FOR_1D(hd_fdtd_probe_loop, hd_fdtd_probe_pt, hd_fdtd_probe_args)

/* ---- averages and energy (reductions in double) ----------------------------- */

/* OpenFDTD's field averages over the cells: |sum of the four Ex edges| +
 * |Ey| + |Ez| (divided by 4 later) and |sum of the two Hx faces| + ... (by 2). */
typedef struct hd_fdtd_avg {
  double e, h;
} hd_fdtd_avg;

HD_FN void hd_fdtd_avg_init(hd_fdtd_avg *s) { s->e = s->h = 0.0; }
HD_FN void hd_fdtd_avg_merge(hd_fdtd_avg *s, const hd_fdtd_avg *o) { s->e += o->e, s->h += o->h; }

HD_FN void hd_fdtd_avg_pt(const hd_fdtd_args *a, hd_idx i, hd_idx j, hd_idx k, hd_fdtd_avg *s) {
  const hd_idx n = hd_grid_at(&a->g, i, j, k), sy = a->g.stride[1], sz = a->g.stride[2];
  hd_real *const *F = a->f;
  s->e += fabs((double)F[HD_FDTD_EX][n] + F[HD_FDTD_EX][n + sy] + F[HD_FDTD_EX][n + sz] + F[HD_FDTD_EX][n + sy + sz]) +
          fabs((double)F[HD_FDTD_EY][n] + F[HD_FDTD_EY][n + sz] + F[HD_FDTD_EY][n + 1] + F[HD_FDTD_EY][n + 1 + sz]) +
          fabs((double)F[HD_FDTD_EZ][n] + F[HD_FDTD_EZ][n + 1] + F[HD_FDTD_EZ][n + sy] + F[HD_FDTD_EZ][n + 1 + sy]);
  s->h += fabs((double)F[HD_FDTD_HX][n] + F[HD_FDTD_HX][n + 1]) +
          fabs((double)F[HD_FDTD_HY][n] + F[HD_FDTD_HY][n + sy]) +
          fabs((double)F[HD_FDTD_HZ][n] + F[HD_FDTD_HZ][n + sz]);
}
HD_DEFINE_REDUCE_3D(hd_fdtd_avg_reduce, hd_fdtd_args, hd_fdtd_avg, hd_fdtd_avg_pt, hd_fdtd_avg_init,
                    hd_fdtd_avg_merge)

/* ---- host helpers -------------------------------------------------------------- */

/* Update coefficients of a material: (c1, c2) for E or (d1, d2) for H from
 * (permittivity or permeability in F/m or H/m, conductivity).  PEC is
 * c1 = c2 = 0. */
HD_HOST_FN void hd_fdtd_coefficients(double dt, double perm, double sigma, hd_real *k1, hd_real *k2) {
  const double s = sigma * dt / (2.0 * perm);
  *k1 = (hd_real)((1.0 - s) / (1.0 + s));
  *k2 = (hd_real)(dt / perm / (1.0 + s));
}

/* Largest stable step: dt <= 1 / (c sqrt(sum 1/dmin^2)), dmin the smallest
 * cell width per axis. */
HD_HOST_FN double hd_fdtd_dt_max(const double dmin[3]) {
  return 1.0 / (HD_FDTD_C0 * sqrt(1.0 / (dmin[0] * dmin[0]) + 1.0 / (dmin[1] * dmin[1]) +
                                  1.0 / (dmin[2] * dmin[2])));
}

/* The tuned half steps, each backend's (hd_fdtd_half_step_tuned). */
#include "fdtd_tuned_cuda.h"
#include "fdtd_tuned_cpu.h"

#endif /* HD_FDTD_H */
