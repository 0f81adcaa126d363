/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-fdtd's model from its input (input.c): the material index of every
 * component on this block's nodes, objects painted in order with the
 * surface rule at interfaces, the time step and the sources. */
#include "model.h"
#include "subpixel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Coordinate of component comp at physical index q along axis a. */
static double comp_coord(const fdtd_input *in, int comp, int a, long q) {
  const int along = a == comp % 3, half = comp < 3 ? along : !along;
  const double *x = in->node[a];
  return half ? 0.5 * (x[q] + x[q + 1]) : x[q];
}

/* (d / r)^2 with a tolerance: r widened by tol, a zero r a plane of width tol. */
static double ratio2(double d, double r, double tol) {
  const double q = d / (r + tol);
  return q * q;
}

int fdtd_object_inside(const fdtd_object *o, const double p[3], double tol) {
  const int a = o->axis, b = (a + 1) % 3, c = (a + 2) % 3;
  int d;
  if (o->shape == FDTD_BOX) {
    for (d = 0; d < 3; ++d)
      if (p[d] < o->v[2 * d] - tol || p[d] > o->v[2 * d + 1] + tol) return 0;
    return 1;
  }
  if (o->shape == FDTD_SPHERE) {
    double r2 = 0;
    for (d = 0; d < 3; ++d) r2 += (p[d] - o->v[d]) * (p[d] - o->v[d]);
    return r2 <= (o->v[3] + tol) * (o->v[3] + tol);
  }
  if (o->shape == FDTD_CYLINDER) {
    const int u = a == 0 ? 1 : 0, w = a == 2 ? 1 : 2;
    const double du = p[u] - o->v[0], dw = p[w] - o->v[1];
    return p[a] >= o->v[3] - tol && p[a] <= o->v[4] + tol && du * du + dw * dw <= (o->v[2] + tol) * (o->v[2] + tol);
  }
  if (o->shape == FDTD_ELLIPSOID || o->shape == FDTD_ECYLINDER) {
    double sum = 0;
    for (d = 0; d < 3; ++d) {
      const double lo = fmin(o->v[2 * d], o->v[2 * d + 1]), hi = fmax(o->v[2 * d], o->v[2 * d + 1]);
      if (o->shape == FDTD_ECYLINDER && d == a) {
        if (p[d] < lo - tol || p[d] > hi + tol) return 0;
      } else {
        sum += ratio2(p[d] - 0.5 * (lo + hi), 0.5 * (hi - lo), tol);
      }
    }
    return sum <= 1.0;
  }
  if (p[a] < fmin(o->v[0], o->v[1]) - tol || p[a] > fmax(o->v[0], o->v[1]) + tol) return 0;
  if (o->shape == FDTD_PILLAR) { /* barycentric coordinates in the triangle, widened by tol */
    const double x1 = o->v[2], x2 = o->v[3], x3 = o->v[4], y1 = o->v[5], y2 = o->v[6], y3 = o->v[7];
    const double det = (x2 - x1) * (y3 - y1) - (x3 - x1) * (y2 - y1);
    const double size = fabs(x2 - x1) + fabs(x3 - x1) + fabs(y2 - y1) + fabs(y3 - y1), e = tol / (size + tol);
    double s1, s2;
    if (fabs(det) <= 1e-12 * size * size) return 0;
    s1 = ((p[b] - x1) * (y3 - y1) - (p[c] - y1) * (x3 - x1)) / det;
    s2 = -((p[b] - x1) * (y2 - y1) - (p[c] - y1) * (x2 - x1)) / det;
    return s1 >= -e && s2 >= -e && s1 + s2 <= 1.0 + e;
  }
  {
    const double f = o->v[1] != o->v[0] ? (p[a] - o->v[0]) / (o->v[1] - o->v[0]) : 0.5;
    const double hb = 0.5 * (o->v[4] + f * (o->v[6] - o->v[4])), hc = 0.5 * (o->v[5] + f * (o->v[7] - o->v[5]));
    const double db = p[b] - o->v[2], dc = p[c] - o->v[3];
    if (o->shape == FDTD_PYRAMID) return fabs(db) <= hb + tol && fabs(dc) <= hc + tol;
    return ratio2(db, hb, tol) + ratio2(dc, hc, tol) <= 1.0;
  }
}

int fdtd_input_material_at(const fdtd_input *in, const double p[3], double tol) {
  int k, mat = 0;
  for (k = 0; k < in->nobj; ++k) /* later objects win */
    if (fdtd_object_inside(&in->obj[k], p, tol)) mat = in->obj[k].mat;
  return mat;
}

void fdtd_input_cell_materials(const fdtd_input *in, const long lo[3], const long cnt[3], double *out) {
  const size_t cells = (size_t)cnt[0] * cnt[1] * cnt[2];
  size_t q;
  int k, a;
  for (q = 0; q < cells; ++q) out[q] = 0;
  for (k = 0; k < in->nobj; ++k) { /* later objects win; each tries the cells of its bounding box only */
    double box[6];
    long first[3], last[3], i, j, l;
    fdtd_object_box(&in->obj[k], box);
    for (a = 0; a < 3; ++a) {
      first[a] = lo[a], last[a] = lo[a] + cnt[a] - 1;
      while (first[a] <= last[a] && 0.5 * (in->node[a][first[a]] + in->node[a][first[a] + 1]) < box[2 * a]) ++first[a];
      while (last[a] >= first[a] && 0.5 * (in->node[a][last[a]] + in->node[a][last[a] + 1]) > box[2 * a + 1]) --last[a];
    }
    for (l = first[2]; l <= last[2]; ++l)
      for (j = first[1]; j <= last[1]; ++j)
        for (i = first[0]; i <= last[0]; ++i) {
          const double p[3] = {0.5 * (in->node[0][i] + in->node[0][i + 1]), 0.5 * (in->node[1][j] + in->node[1][j + 1]),
                               0.5 * (in->node[2][l] + in->node[2][l + 1])};
          if (fdtd_object_inside(&in->obj[k], p, 0.0))
            out[((size_t)(l - lo[2]) * cnt[1] + (size_t)(j - lo[1])) * cnt[0] + (size_t)(i - lo[0])] = in->obj[k].mat;
        }
  }
}

/* Index range [lo, hi] of component positions within [a0 - tol, a1 + tol]. */
static void index_range(const fdtd_input *in, int comp, int a, double a0, double a1, double tol,
                        long *lo, long *hi) {
  const int along = a == comp % 3, half = comp < 3 ? along : !along;
  const long last = half ? in->n[a] - 1 : in->n[a];
  long k = 0;
  while (k <= last && comp_coord(in, comp, a, k) < a0 - tol) ++k;
  *lo = k;
  while (k <= last && comp_coord(in, comp, a, k) <= a1 + tol) ++k;
  *hi = k - 1;
}

/* The material an E edge takes from the four H faces around it: a face of
 * a conductor makes the edge a conductor, else the first dispersive face
 * lends its material (OpenFDTD's rule).  Without it a face inside a
 * curved conductor holds H = 0 while some of its edges carry E: a
 * magnetic wall that traps a slowly ringing field on the surface. */
static unsigned char surface_material(const fdtd_input *in, unsigned char e, const unsigned char h[4]) {
  int k;
  if (h[0] == e && h[1] == e && h[2] == e && h[3] == e) return e;
  for (k = 0; k < 4; ++k)
    if (h[k] == HD_FDTD_PEC) return HD_FDTD_PEC;
  if (e == HD_FDTD_PEC) return e;
  for (k = 0; k < 4; ++k)
    if (in->npole[h[k]] > 0) return h[k];
  return e;
}

/* Apply surface_material to every E edge of the block and its padding
 * whose four faces lie on the padded grid and inside the whole grid's
 * faces (the rule reads H materials only: the order does not matter). */
static void surface_rule(const fdtd_input *in, const hd_grid *g, const long off[3], const long ln[3], long pad,
                         unsigned char *mat[6]) {
  int c;
  for (c = 0; c < 3; ++c) {
    const int u = (c + 1) % 3, v = (c + 2) % 3; /* Ex: Hz steps along y, Hy along z */
    const hd_idx su = g->stride[u], sv = g->stride[v];
    long q[3];
    for (q[2] = 1 - pad; q[2] <= ln[2] + pad - 1; ++q[2])
      for (q[1] = 1 - pad; q[1] <= ln[1] + pad - 1; ++q[1])
        for (q[0] = 1 - pad; q[0] <= ln[0] + pad - 1; ++q[0]) {
          const long pu = q[u] + off[u], pv = q[v] + off[v];
          hd_idx n;
          unsigned char h[4];
          if (q[c] + off[c] < 0 || q[c] + off[c] >= in->n[c] || pu <= 0 || pu >= in->n[u] || pv <= 0 || pv >= in->n[v])
            continue;
          n = hd_grid_at(g, q[0] + pad, q[1] + pad, q[2] + pad);
          h[0] = mat[3 + v][n], h[1] = mat[3 + v][n - su], h[2] = mat[3 + u][n], h[3] = mat[3 + u][n - sv];
          mat[c][n] = surface_material(in, mat[c][n], h);
        }
  }
}

/* The media that reach the faces continued outwards: a position of the
 * padding beyond the whole grid takes the material of the nearest
 * position of its component inside (as OpenFDTD extends them into its
 * PML), so that absorbing layers and ghosts see the substrate or the
 * conductor that crosses the face.  Whether a medium (not vacuum, not a
 * conductor) reaches out. */
static int extend_materials(const fdtd_input *in, const hd_grid *g, const long off[3], const long ln[3], long pad,
                            unsigned char *mat[6]) {
  int c, a, media = 0;
  for (c = 0; c < 6; ++c) {
    long q[3], hi[3];
    for (a = 0; a < 3; ++a) hi[a] = (c < 3 ? a == c : a != c - 3) ? in->n[a] - 1 : in->n[a];
    for (q[2] = -pad; q[2] <= ln[2] + pad; ++q[2])
      for (q[1] = -pad; q[1] <= ln[1] + pad; ++q[1])
        for (q[0] = -pad; q[0] <= ln[0] + pad; ++q[0]) {
          long r[3];
          int out = 0, ok = 1;
          for (a = 0; a < 3; ++a) {
            const long p = q[a] + off[a], pc = p < 0 ? 0 : p > hi[a] ? hi[a] : p;
            out |= pc != p;
            r[a] = pc - off[a];
            ok &= r[a] >= -pad && r[a] <= ln[a] + pad;
          }
          if (out && ok) {
            const unsigned char k = mat[c][hd_grid_at(g, r[0] + pad, r[1] + pad, r[2] + pad)];
            mat[c][hd_grid_at(g, q[0] + pad, q[1] + pad, q[2] + pad)] = k;
            media |= k != HD_FDTD_VACUUM && k != HD_FDTD_PEC;
          }
        }
  }
  return media;
}

int fdtd_input_build(fdtd_input *in, fdtd_model *m, char *err, size_t n) {
  static const long off[3] = {0, 0, 0};
  return fdtd_input_build_block(in, m, off, in->n, err, n);
}

int fdtd_input_build_block(fdtd_input *in, fdtd_model *m, const long off[3], const long ln[3], char *err, size_t n) {
  const double dtmax = fdtd_input_dt_max(in);
  double dmin = HUGE_VAL, tol;
  hd_grid g;
  long pad;
  int a, c, k;
  memset(m, 0, sizeof *m);
  for (a = 0; a < 3; ++a) {
    m->n[a] = ln[a];
    m->off[a] = off[a];
    m->gn[a] = in->n[a];
    m->halo[2 * a] = off[a] > 0;
    m->halo[2 * a + 1] = off[a] + ln[a] < in->n[a];
    m->node[a] = in->node[a];
    m->bc[a] = fdtd_input_bc(in, a);
    dmin = fmin(dmin, (in->node[a][in->n[a]] - in->node[a][0]) / (double)in->n[a]);
  }
  m->pml_layers = (int)in->pml[0], m->pml_order = (int)in->pml[1], m->pml_r0 = in->pml[2];
  m->cpml_kappa = in->cpml[0], m->cpml_alpha = in->cpml[1];
  m->mur_h = in->mur_h, m->feed_release = in->feed_release;
  m->dt = in->dt > 0 ? in->dt : in->courant * dtmax;
  if (m->dt > dtmax)
    return fdtd_input_fail(err, n, "%s%stimestep: %g exceeds the Courant limit %g of this mesh", in->dt_where,
                in->dt_where[0] ? ": " : "", m->dt, dtmax);
  for (k = 2; k < in->nmat; ++k) { /* the explicit Drude and Lorentz updates' bound */
    int q;
    for (q = 0; q < in->npole[k]; ++q)
      if (hd_fdtd_ade_stiffness(m->dt, in->eps_r[k], &in->pole[k][q]) > 1.0)
        return fdtd_input_fail(err, n, "%s: material: pole %d is too fast for the time step (w dt = %.3g > 1; w = wp/sqrt(eps_inf) "
                    "or w0 sqrt(1 + de/eps_inf)): a smaller timestep", in->material.where[k - 2], q + 1,
                    hd_fdtd_ade_stiffness(m->dt, in->eps_r[k], &in->pole[k][q]));
  }
  m->nmat = in->nmat;
  m->eps_r = in->eps_r, m->sigma = in->sigma, m->mu_r = in->mu_r, m->sigma_m = in->sigma_m;
  m->nfeed = in->nfeed, m->feed = in->feeds, m->nprobe = in->nprobe, m->probe = in->probes;
  m->npole = in->npole, m->pole = (const hd_fdtd_pole(*)[HD_FDTD_POLES])in->pole;
  m->nload = in->nload, m->load = in->loads;
  /* pulses: tau = 1/(pi f), centred at 4 tau (the spectrum is down by 1/e at f) */
  m->wave.kind = in->waveform;
  m->wave.freq = in->freq;
  m->wave.tau = in->freq > 0 ? 1.0 / (3.14159265358979323846 * in->freq) : 1.0;
  if (in->waveform == HD_FDTD_MGAUSSIAN) /* tau of the envelope: the spectrum down by 1/e at freq +- bandwidth */
    m->wave.tau = 1.0 / (3.14159265358979323846 * (in->bandwidth > 0 ? in->bandwidth : 0.5 * in->freq));
  m->wave.t0 = 4.0 * m->wave.tau;
  if (in->waveform == HD_FDTD_TABLE) /* its pulse is over (2 t0, as the others') where the table ends */
    m->wave.tab = in->wave_tab, m->wave.ntab = in->wave_ntab, m->wave.t0 = 0.5 * in->wave_tab[in->wave_ntab - 1];
  pad = fdtd_pad(m);
  if (!fdtd_node_grid(&g, ln, pad))
    return fdtd_input_fail(err, n, "mesh too large to index");
  tol = 1e-6 * dmin;
  for (c = 0; c < 6; ++c) {
    in->mat[c] = (unsigned char *)calloc((size_t)g.total, 1);
    if (!in->mat[c]) return fdtd_input_fail(err, n, "out of host memory for the material indices");
    m->mat[c] = in->mat[c];
  }
  for (k = 0; k < in->nobj; ++k) { /* later objects win */
    const fdtd_object *o = &in->obj[k];
    double box[6];
    fdtd_object_box(o, box);
    for (c = 0; c < 6; ++c) { /* the positions of this block and its padding */
      long lo[3], hi[3], q[3];
      for (a = 0; a < 3; ++a) {
        index_range(in, c, a, box[2 * a], box[2 * a + 1], tol, &lo[a], &hi[a]);
        if (lo[a] < off[a] - pad) lo[a] = off[a] - pad;
        if (hi[a] > off[a] + ln[a] + pad) hi[a] = off[a] + ln[a] + pad;
      }
      for (q[2] = lo[2]; q[2] <= hi[2]; ++q[2])
        for (q[1] = lo[1]; q[1] <= hi[1]; ++q[1])
          for (q[0] = lo[0]; q[0] <= hi[0]; ++q[0]) {
            double p[3];
            for (a = 0; a < 3; ++a) p[a] = comp_coord(in, c, a, q[a]);
            if (fdtd_object_inside(o, p, tol))
              in->mat[c][hd_grid_at(&g, q[0] - off[0] + pad, q[1] - off[1] + pad, q[2] - off[2] + pad)] =
                  (unsigned char)o->mat;
          }
    }
  }
  surface_rule(in, &g, off, ln, pad, in->mat);
  in->subpixel_done = 0;
  if (in->subpixel) {
    int levels;
    const int extra = fdtd_subpixel_tables(in, &levels);
    if (extra < 0)
      return fdtd_input_fail(err, n, "subpixel: %d materials leave too few indices to average every pair of media: subpixel = no, "
                             "or fewer materials", in->nmat);
    if (extra && (in->subpixel_done = fdtd_subpixel_apply(in, &g, off, ln, pad, levels, in->mat)) < 0)
      return fdtd_input_fail(err, n, "out of host memory for subpixel averaging");
    m->nmat = in->nmat + extra;
  }
  m->media_out = extend_materials(in, &g, off, ln, pad, in->mat);
  return 0;
}

