/* SPDX-License-Identifier: BSD-3-Clause */
/* Subpixel averaging of eps and sigma at material interfaces (the `subpixel`
 * key): a staircase puts a face that falls on an E node wholly on one side,
 * a first-order error in the interface's position; averaging the medium
 * over each E component's cell makes it second order (Farjadpour et al.,
 * Opt. Lett. 31, 2972, 2006, as Meep).  For component c, with n the
 * interface's normal in the cell,
 *     1/eps_c = n_c^2 <1/eps> + (1 - n_c^2) / <eps>,
 * the diagonal of the anisotropic average (its off-diagonal terms need a
 * tensor the Yee update does not have).  sigma takes the same weight
 * between the two media as eps.
 *
 * The march stays as it is: it reads a material index per component, so
 * the averaged values become derived materials, a fixed set for every
 * pair of media the objects can bring together (vacuum and the non-
 * dispersive materials; conductors and dispersive media keep their
 * staircase), each pair's eps quantised to SUBPIXEL_LEVELS steps.  The set
 * depends on the input alone, so every rank has the same tables. */
#include "subpixel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SUBPIXEL_LEVELS 64 /* steps of a pair's eps (fewer where the pairs are many) */
#define SUBPIXEL_SAMPLES 8 /* per axis of a component's cell */

/* Media that take part: vacuum and every non-dispersive material an object uses. */
static int media_of(const fdtd_input *in, int *media) {
  int used[256] = {0}, k, n = 0;
  used[HD_FDTD_VACUUM] = 1;
  for (k = 0; k < in->nobj; ++k) used[in->obj[k].mat] = 1;
  for (k = 0; k < in->nmat; ++k)
    if (used[k] && k != HD_FDTD_PEC && in->npole[k] <= 0) media[n++] = k;
  return n;
}

int fdtd_subpixel_tables(fdtd_input *in, int *levels) {
  int media[256], n = media_of(in, media), pairs = n * (n - 1) / 2, L, p, a, b, q, id = in->nmat;
  if (pairs < 1) return *levels = 0, 0;
  L = (256 - in->nmat) / pairs + 1; /* L - 1 derived materials a pair */
  if (L > SUBPIXEL_LEVELS) L = SUBPIXEL_LEVELS;
  L -= L % 2; /* a face on a node (half and half) exactly */
  if (L < 4) return *levels = 0, -1;
  for (p = 0, a = 0; a < n; ++a)
    for (b = a + 1; b < n; ++b, ++p)
      for (q = 1; q < L; ++q, ++id) {
        const double f = (double)q / L;
        const int A = media[a], B = media[b];
        in->eps_r[id] = in->eps_r[A] + f * (in->eps_r[B] - in->eps_r[A]);
        in->sigma[id] = in->sigma[A] + f * (in->sigma[B] - in->sigma[A]);
        in->mu_r[id] = in->mu_r[A], in->sigma_m[id] = in->sigma_m[A]; /* E components only */
        in->npole[id] = 0;
      }
  *levels = L;
  return id - in->nmat;
}

/* The derived material between media A and B (positions in media[]) for
 * an averaged eps. */
static int derived(const fdtd_input *in, const int *media, int n, int L, int a, int b, double eps) {
  int p = 0, x, q;
  double f;
  if (a > b) x = a, a = b, b = x;
  for (x = 0; x < a; ++x) p += n - 1 - x;
  p += b - a - 1;
  f = (eps - in->eps_r[media[a]]) / (in->eps_r[media[b]] - in->eps_r[media[a]]);
  q = (int)floor(f * L + 0.5);
  if (q <= 0) return media[a];
  if (q >= L) return media[b];
  return in->nmat + p * (L - 1) + q - 1;
}

/* Bounds of component comp's cell along axis a at physical index i: its
 * edge (along it) or halfway to the neighbouring nodes (across), within
 * the grid (objects that reach a face are often cut there). */
static void cell_bounds(const fdtd_input *in, int comp, int a, long i, double *lo, double *hi) {
  const double *x = in->node[a];
  const long n = in->n[a];
  if (a == comp) {
    *lo = x[i], *hi = x[i + 1];
    return;
  }
  *lo = i > 0 ? 0.5 * (x[i - 1] + x[i]) : x[0];
  *hi = i < n ? 0.5 * (x[i] + x[i + 1]) : x[n];
}

/* The material at p: the last object holding it (objects whose boxes miss
 * the cell skipped), 0 vacuum. */
static int material_near(const fdtd_input *in, const int *near, int nnear, const double p[3]) {
  int k, mat = 0;
  for (k = 0; k < nnear; ++k)
    if (fdtd_object_inside(&in->obj[near[k]], p, 0.0)) mat = in->obj[near[k]].mat;
  return mat;
}

/* Averaged material of E component comp at physical node i (-1: keep). */
static int average(const fdtd_input *in, const int *media, int nmedia, int L, int comp, const long i[3], int *near) {
  const int S = SUBPIXEL_SAMPLES;
  double lo[3], hi[3], c[3], nrm[3] = {0, 0, 0}, sum = 0, inv = 0, len = 0, eps, n2;
  int slot[256], cnt[256] = {0}, nnear = 0, k, a, s0, s1, s2, first = -1, second = -1;
  for (a = 0; a < 3; ++a) cell_bounds(in, comp, a, i[a], &lo[a], &hi[a]), c[a] = 0.5 * (lo[a] + hi[a]);
  for (k = 0; k < in->nobj; ++k) {
    double box[6];
    fdtd_object_box(&in->obj[k], box);
    if (box[0] <= hi[0] && box[1] >= lo[0] && box[2] <= hi[1] && box[3] >= lo[1] && box[4] <= hi[2] && box[5] >= lo[2])
      near[nnear++] = k;
  }
  for (k = 0; k < 256; ++k) slot[k] = -1;
  for (k = 0; k < nmedia; ++k) slot[media[k]] = k;
  for (s2 = 0; s2 < S; ++s2)
    for (s1 = 0; s1 < S; ++s1)
      for (s0 = 0; s0 < S; ++s0) {
        const int sv[3] = {s0, s1, s2};
        double p[3], e;
        int m;
        for (a = 0; a < 3; ++a) p[a] = lo[a] + (sv[a] + 0.5) / S * (hi[a] - lo[a]);
        m = material_near(in, near, nnear, p);
        if (slot[m] < 0) return -1; /* a conductor or a dispersive medium: the staircase */
        ++cnt[m];
        e = in->eps_r[m];
        sum += e, inv += 1.0 / e;
        for (a = 0; a < 3; ++a) nrm[a] += e * (p[a] - c[a]) / ((hi[a] - lo[a]) * (hi[a] - lo[a])); /* the gradient's direction */
      }
  for (k = 0; k < 256; ++k) { /* the two media: the most and the next most common */
    if (!cnt[k]) continue;
    if (cnt[k] == S * S * S) return -1; /* all one medium */
    if (first < 0 || cnt[k] > cnt[first]) second = first, first = k;
    else if (second < 0 || cnt[k] > cnt[second]) second = k;
  }
  if (second < 0 || in->eps_r[first] == in->eps_r[second]) return -1;
  sum /= S * S * S, inv /= S * S * S;
  for (a = 0; a < 3; ++a) len += nrm[a] * nrm[a];
  n2 = len > 0 ? nrm[comp] * nrm[comp] / len : 1.0 / 3.0;
  eps = 1.0 / (n2 * inv + (1.0 - n2) / sum);
  return derived(in, media, nmedia, L, slot[first], slot[second], eps);
}

long fdtd_subpixel_apply(const fdtd_input *in, const hd_grid *g, const long off[3], const long ln[3], long pad, int L,
                         unsigned char *mat[6]) {
  int media[256], nmedia = media_of(in, media), *near = (int *)malloc((size_t)(in->nobj + 1) * sizeof(int)), c;
  unsigned char *was = NULL;
  long done = 0;
  if (!near || !L) return free(near), near ? 0 : -1;
  if (!(was = (unsigned char *)malloc((size_t)g->total))) return free(near), -1;
  for (c = 0; c < 3; ++c) {
    const hd_idx st[3] = {g->stride[0], g->stride[1], g->stride[2]};
    long q[3];
    memcpy(was, mat[c], (size_t)g->total); /* the staircase the neighbours compare */
    for (q[2] = 1 - pad; q[2] <= ln[2] + pad - 1; ++q[2])
      for (q[1] = 1 - pad; q[1] <= ln[1] + pad - 1; ++q[1])
        for (q[0] = 1 - pad; q[0] <= ln[0] + pad - 1; ++q[0]) {
          const hd_idx n = hd_grid_at(g, q[0] + pad, q[1] + pad, q[2] + pad);
          const unsigned char m = was[n];
          long p[3];
          int a, edge = 0, inside = 1, k;
          for (a = 0; a < 3; ++a) {
            p[a] = q[a] + off[a];
            inside &= p[a] >= 0 && p[a] <= (a == c ? in->n[a] - 1 : in->n[a]);
            edge |= was[n - st[a]] != m || was[n + st[a]] != m;
          }
          if (!inside || !edge || m == HD_FDTD_PEC) continue;
          k = average(in, media, nmedia, L, c, p, near);
          if (k >= 0 && k != m) mat[c][n] = (unsigned char)k, ++done;
        }
  }
  free(near), free(was);
  return done;
}
