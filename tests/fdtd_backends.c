/* SPDX-License-Identifier: BSD-3-Clause */
/* Cross-backend equivalence of the FDTD module on models that use every
 * feature: lossy dielectric and magnetic materials, a dispersive one
 * (Debye, Drude and Lorentz poles), PEC box, sphere, cylinder, plate and
 * wire, OpenFDTD's ellipsoid, elliptic cylinder, pillar, pyramid and cone,
 * lumped R, L, C loads, a resistive feed, a soft source, probes and a
 * voltage point; with Mur on every face (on E, and on H with a released
 * feed), PML on every face, CPML on every face, periodic x, y with PML on
 * z, and a plane wave in the scattered-field form (periodic x, y, CPML z).
 *   OpenMP vs serial: same code, every update independent of order, so all
 *   six fields and every probe record are bit-identical at 1, 2, 3 threads;
 *   time blocks (--time-block) on both are bit-identical to single steps.
 *   CUDA vs serial, generic loops and tuned kernels: nvcc contracts multiply-adds, so each update may differ
 *   in the last ulps; the scheme is neutrally stable (no growth, no decay
 *   of differences in vacuum), so they add up at most linearly: tolerance
 *   8 N eps max|F| per component after N steps. */
#include "fdtd_common.h"

#include <hd/fdtd_tfsf.h>

enum { MUR, PML, PERIODIC, CPML, MUR_H, PLANE_WAVE, KINDS };

static void model(fdtd_input *in, int kind) {
  static const char *const bc[KINDS] = {"mur", "pml", "periodic", "cpml", "mur", "periodic"};
  fdtd_input_defaults(in);
  fd_add(&in->xmesh, kind == PML ? "-0.1 12 0.02 11 0.1" : "-0.1 12 0.02 10 0.1"); /* odd and even nx */
  fd_add(&in->ymesh, "-0.1 22 0.1");
  fd_add(&in->zmesh, "-0.08 18 0.08");
  strcpy(in->bc_all, bc[kind]);
  if (kind == PERIODIC) strcpy(in->bc_axis[2], "pml");
  if (kind == PLANE_WAVE) strcpy(in->bc_axis[2], "cpml");
  in->mur_h = in->feed_release = kind == MUR_H;
  in->pml[0] = 4, in->pml[1] = 3, in->pml[2] = 1e-4, in->npml = 3;
  fd_add(&in->material, "3 0.02 1 0");
  fd_add(&in->material, "1.5 0 2 300");
  fd_add(&in->material, "2 0.001 1 0 debye 1.5 5e-11 drude 2e9 1e9 lorentz 0.8 4e9 2e9");
  fd_add(&in->geometry, "2 box -0.06 0.0 -0.05 0.03 -0.05 0.0");
  fd_add(&in->geometry, "3 sphere 0.05 0.04 0.02 0.025");
  fd_add(&in->geometry, "1 cylinder z 0.04 -0.05 0.015 -0.04 0.01");
  fd_add(&in->geometry, "1 box -0.07 -0.02 0.05 0.08 0.03 0.03");
  fd_add(&in->geometry, "1 box 0 0 0 0 -0.03 0.03");
  fd_add(&in->geometry, "4 ellipsoid -0.09 -0.06 -0.09 -0.05 0.02 0.06");
  fd_add(&in->geometry, "4 43 0.03 0.07 -0.05 -0.06 0.04 0.03 0.01 0.01");
  fd_add(&in->geometry, "2 xcone -0.09 -0.05 0.06 -0.05 0.03 0.02 0 0");
  fd_add(&in->geometry, "3 ypillar -0.09 -0.07 0.02 0.05 0.03 0.05 0.07 0.08");
  fd_add(&in->geometry, "4 ycylinder 0.06 0.09 0.07 0.09 -0.07 -0.04");
  fd_add(&in->load, "Z 0.05 -0.05 0.03 R 50");
  fd_add(&in->load, "Z 0.05 -0.05 0.03 C 1e-12");
  fd_add(&in->load, "X -0.03 0.06 -0.04 L 5e-9");
  fd_add(&in->load, "Y 0.07 0.02 0.04 R 10");
  if (kind != PLANE_WAVE) { /* the scattered-field form takes none */
    fd_add(&in->feed, "Z 0 0 0.001 1 50");
    fd_add(&in->source, "Y -0.05 0.06 -0.03 0.01");
  }
  fd_add(&in->probe, "ez 0.03 0.02 0.0");
  fd_add(&in->probe, "hx -0.04 -0.03 0.05");
  fd_add(&in->point, "Z -0.02 0.04 0.02 +Y");
  in->freq = 3e9;
}

/* The plane wave arriving from +z (normal to the periodic axes). */
static void plane_wave(fdtd_model *m) {
  m->pw_e0 = 1.0, m->pw_sf = 1;
  hd_fdtd_plane_wave_dir(0.0, 0.0, 1, m->pw_k, m->pw_e, m->pw_h);
}

/* The CUDA marches' material segments (hd_fdtd_uniform_build) on a
 * model's materials: a segment says a material only where its nodes'
 * three components all have it, and says one wherever they do. */
static void uniform_segments(const fdtd_model *m) {
  hd_grid g;
  hd_idx nseg, useg, urow, t, j, k, x, named = 0, mixed = 0;
  int h, bad = 0;
  unsigned char *seg;
  if (!fdtd_node_grid(&g, m->n, fdtd_pad(m))) bail("no grid");
  hd_fdtd_uniform_shape(&g, &nseg, &useg, &urow);
  if (!(seg = (unsigned char *)malloc((size_t)(nseg * useg)))) bail("out of memory");
  for (h = 0; h < 2; ++h) {
    const unsigned char *const three[3] = {m->mat[3 * h], m->mat[3 * h + 1], m->mat[3 * h + 2]};
    hd_fdtd_uniform_build(&g, three, seg);
    for (k = 0; k < g.total / g.stride[2]; ++k)
      for (j = 0; j < g.stride[2] / g.stride[1]; ++j)
        for (t = 0; t < nseg; ++t) {
          const hd_idx n0 = k * g.stride[2] + j * g.stride[1], x0 = g.ghost + t * HD_FDTD_SEG;
          const unsigned u = seg[t * useg + j * urow + k], first = three[0][n0 + x0];
          int same = first < 255;
          for (x = x0; x < x0 + HD_FDTD_SEG && x < g.stride[1]; ++x) {
            const unsigned char *const *q = three;
            same = same && q[0][n0 + x] == first && q[1][n0 + x] == first && q[2][n0 + x] == first;
            if (u && (q[0][n0 + x] != u - 1 || q[1][n0 + x] != u - 1 || q[2][n0 + x] != u - 1)) bad = 1;
          }
          if (same != (u != 0)) bad = 1;
          named += u != 0, mixed += u == 0;
        }
  }
  free(seg);
  ok(!bad && named > 0 && mixed > 0,
     "CUDA material segments of %ld nodes: %ld name one material, %ld mixed, each as its nodes' E and H components", (long)HD_FDTD_SEG,
     (long)named, (long)mixed);
}

int main(void) {
  test_backend be[HD_B_COUNT];
  const int nb = test_backends_open(be);
  const long steps = 60;
  int kind, single, k, t, c;
  for (kind = 0; kind < KINDS; ++kind) {
    static const char *const names[KINDS] = {"Mur", "PML", "periodic x, y + PML z", "CPML", "Mur on H, a released feed",
                                             "plane wave (scattered field), periodic x, y + CPML z"};
    fdtd_input in;
    fdtd_model m;
    double total, *ref[6], *out[6], *rr, *ro;
    long row, i;
    model(&in, kind);
    fd_build(&in, &m);
    if (kind == PLANE_WAVE) plane_wave(&m);
    if (kind == MUR) uniform_segments(&m);
    total = fd_total(&m);
    row = m.nprobe + 2 * m.nfeed;
    rr = (double *)malloc((size_t)steps * row * sizeof(double));
    ro = (double *)malloc((size_t)steps * row * sizeof(double));
    for (c = 0; c < 6; ++c) {
      ref[c] = (double *)malloc((size_t)total * sizeof(double));
      out[c] = (double *)malloc((size_t)total * sizeof(double));
      if (!ref[c] || !out[c] || !rr || !ro) bail("out of memory");
    }
    for (single = 0; single <= 1; ++single) {
      if (!fd_run(&be[0], fdtd_ops_get(HD_B_SERIAL, single), &m, steps, rr, ref)) bail("serial run failed");
      for (k = 0; k < nb; ++k) { /* the reference ran the CPU's tuned rows: the generic loops agree bit for bit */
        const fdtd_ops *ops = fdtd_ops_get(be[k].core->id, single);
        int same;
        if (!ops || be[k].core->id == HD_B_CUDA || !ops->has_tuned) continue;
        m.variant = HD_VARIANT_GENERIC;
        be[k].ctx.threads = 2;
        same = fd_run(&be[k], ops, &m, steps, ro, out) && !memcmp(rr, ro, (size_t)steps * row * sizeof(double));
        for (c = 0; same && c < 6; ++c) same = !memcmp(ref[c], out[c], (size_t)total * sizeof(double));
        ok(same, "%s/%s %s model: generic loops bit-identical to the serial tuned rows", ops->backend,
           ops->precision, names[kind]);
        m.variant = 0;
        be[k].ctx.threads = 0;
      }
      for (k = 0; k < nb; ++k) { /* time blocks (CPU): bit-identical to single steps */
        const fdtd_ops *ops = fdtd_ops_get(be[k].core->id, single);
        const char *why;
        int same;
        void *state = NULL;
        if (!ops || be[k].core->id == HD_B_CUDA) continue;
        m.time_block = 7; /* blocks of 7, the last of 4 */
        be[k].ctx.threads = 3;
        same = fd_run(&be[k], ops, &m, steps, ro, out) && !memcmp(rr, ro, (size_t)steps * row * sizeof(double));
        for (c = 0; same && c < 6; ++c) same = !memcmp(ref[c], out[c], (size_t)total * sizeof(double));
        same = same && ops->create(&be[k].ctx, &m, &state) == HD_OK && ops->time_block(state, &why) == 7;
        if (state) ops->destroy(&be[k].ctx, state);
        ok(same, "%s/%s %s model, blocks of 7 steps%s: fields and probes bit-identical to single steps", ops->backend,
           ops->precision, names[kind], be[k].core->id == HD_B_OPENMP ? " on 3 threads" : "");
        m.time_block = 0;
        be[k].ctx.threads = 0;
      }
      for (k = 1; k < nb; ++k) {
        const fdtd_ops *ops = fdtd_ops_get(be[k].core->id, single);
        if (!ops) continue;
        if (be[k].core->id == HD_B_OPENMP) {
          for (t = 1; t <= 3; ++t) {
            int same;
            be[k].ctx.threads = t;
            same = fd_run(&be[k], ops, &m, steps, ro, out) && !memcmp(rr, ro, (size_t)steps * row * sizeof(double));
            for (c = 0; same && c < 6; ++c) same = !memcmp(ref[c], out[c], (size_t)total * sizeof(double));
            ok(same, "openmp/%s %s model, %d thread%s: fields and probes after %ld steps bit-identical to serial",
               ops->precision, names[kind], t, t > 1 ? "s" : "", steps);
          }
          be[k].ctx.threads = 0;
        } else {
          /* generic loops, tuned kernels at the default shape (in single,
           * two nodes a thread on the driver's aligned rows), at one that
           * leaves partial blocks and marches on every axis (x not whole
           * warps: one node a thread), and whole warps with uneven marches */
          static const int shapes[4][4] = {{HD_VARIANT_GENERIC, 0, 0, 0}, {HD_VARIANT_TUNED, 0, 0, 0},
                                           {HD_VARIANT_TUNED, 8, 3, 5}, {HD_VARIANT_TUNED, 32, 2, 3}};
          const double eps = single ? FLT_EPSILON : DBL_EPSILON;
          int v;
          for (v = 0; v < (ops->has_tuned ? 4 : 1); ++v) {
            double worst = 0.0;
            int ran;
            m.variant = shapes[v][0];
            for (c = 0; c < 3; ++c) m.block[c] = shapes[v][1 + c];
            ran = fd_run(&be[k], ops, &m, steps, ro, out);
            for (c = 0; ran && c < 6; ++c) {
              double mx = 0.0, d = 0.0;
              for (i = 0; i < (long)total; ++i) mx = fmax(mx, fabs(ref[c][i])), d = fmax(d, fabs(out[c][i] - ref[c][i]));
              if (mx > 0) worst = fmax(worst, d / (8.0 * steps * eps * mx));
            }
            ok(ran && worst <= 1.0, "%s/%s %s kernels (block %d,%d,%d), %s model vs serial after %ld steps: worst "
               "component at %.3g of the tolerance 8 N eps max|F|", ops->backend, ops->precision,
               v ? "tuned" : "generic", shapes[v][1], shapes[v][2], shapes[v][3], names[kind], steps, worst);
          }
          m.variant = 0;
          memset(m.block, 0, sizeof m.block);
        }
      }
    }
    for (c = 0; c < 6; ++c) free(ref[c]), free(out[c]);
    free(rr), free(ro);
    fdtd_input_free(&in);
  }
  test_backends_close(be, nb);
  return done_testing();
}
