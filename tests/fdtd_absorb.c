/* SPDX-License-Identifier: BSD-3-Clause */
/* Absorbing boundaries: first-order Mur (on E and on H), the split-field
 * PML and the convolutional PML.
 *
 * Normal incidence, every axis and both faces: a plane-wave pulse (a sheet
 * of soft current sources, derivative of a Gaussian, 1/e bandwidth 1 GHz:
 * 30 cells of 1 cm per wavelength there) starts in the middle of a column
 * 120 cells long, periodic across with 2 x 2 cells, and runs into both
 * faces of the axis under test.  Probes 40 cells from each face record the
 * incident pulse and its reflection.  The reference is the same run in a
 * column 520 cells long, whose faces are so far that their echo arrives
 * after the window: the difference of the two records is the reflection,
 * quoted as 20 log10(max |diff| / max |ref|).  The same with a dielectric
 * half-space (eps_r 4, then also 0.01 S/m) filling the column from 10
 * cells past the sheet through the high face into the layers, whose
 * reflection the high probe sees; and in it, 100 000 steps later, no
 * field may have grown (the layers stable in a medium).
 *
 * Every angle: a line source 5 cells from two faces of a 40 x 40 cell
 * slab (periodic across, 2 cells), probes 2 to 5 cells from the faces and
 * the corner, against the same in a slab 240 cells wide: near fields and
 * grazing waves.
 *
 * The layers are 8 deep: the split-field PML graded as depth^4 to R0 1e-6,
 * the CPML with its defaults.  Bounds (doc/fdtd.md states the figures):
 * at normal incidence the layers below -80 dB (Mur about -53), in the
 * dielectric below -60 (Mur -30), in the lossy one the CPML below -60
 * and the split-field PML below -35 (its split parts are not exactly the
 * stretched lossy medium); below -65 dB at every angle. */
#include "fdtd_common.h"

#define EXTRA 200 /* cells added on each side for the reference */

/* The column: `bc` on the axis (mur_h: Mur on H), the medium (a material
 * line, or NULL) from cell 70 on. */
static void column(fdtd_input *in, int axis, long cells, long shift, const char *bc, int mur_h, const char *medium) {
  static const char *const names[3] = {"X", "Y", "Z"};
  const int c = (axis + 1) % 3, b = (axis + 2) % 3; /* source component, other transverse axis */
  const double d = 0.01;
  cli_list *mesh[3];
  double p[3];
  int u, v;
  fdtd_input_defaults(in);
  mesh[0] = &in->xmesh, mesh[1] = &in->ymesh, mesh[2] = &in->zmesh;
  fd_add(mesh[axis], "0 %ld %.17g", cells, cells * d);
  fd_add(mesh[c], "0 2 %.17g", 2 * d);
  fd_add(mesh[b], "0 2 %.17g", 2 * d);
  strcpy(in->bc_all, "periodic");
  strcpy(in->bc_axis[axis], bc);
  in->mur_h = mur_h;
  if (!strcmp(bc, "pml")) in->pml[0] = 8, in->pml[1] = 4, in->pml[2] = 1e-6, in->npml = 3; /* CPML: its defaults */
  if (medium) {
    double lo[3] = {0, 0, 0}, hi[3] = {2 * d, 2 * d, 2 * d};
    lo[axis] = (70 + shift) * d, hi[axis] = cells * d;
    fd_add(&in->material, "%s", medium);
    fd_add(&in->geometry, "2 box %.17g %.17g %.17g %.17g %.17g %.17g", lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]);
  }
  for (u = 0; u < 2; ++u) /* the sheet: every c edge of the plane through the middle */
    for (v = 0; v < 2; ++v) {
      p[axis] = (60 + shift) * d, p[c] = (u + 0.5) * d, p[b] = v * d;
      fd_add(&in->source, "%s %.17g %.17g %.17g 1", names[c], p[0], p[1], p[2]);
    }
  for (u = 0; u < 2; ++u) { /* probes 40 cells from each face */
    p[axis] = (u ? 80 + shift : 40 + shift) * d, p[c] = 0.5 * d, p[b] = d;
    fd_add(&in->probe, "e%c %.17g %.17g %.17g", 'x' + c, p[0], p[1], p[2]);
  }
  in->freq = 1e9;
  in->waveform = HD_FDTD_DGAUSSIAN;
}

/* Largest |difference| over the largest |reference| of probe k (rows of
 * `row` values), in dB. */
static double gap_db(const double *r1, const double *r2, long steps, long row, int k) {
  double dmax = 0.0, rmax = 0.0;
  long t;
  for (t = 0; t < steps; ++t) {
    dmax = fmax(dmax, fabs(r1[row * t + k] - r2[row * t + k]));
    rmax = fmax(rmax, fabs(r2[row * t + k]));
  }
  return 20.0 * log10(fmax(dmax, 1e-300) / rmax);
}

/* Reflection in dB of each face (lo, hi) for a boundary on one axis; with
 * a medium, late (if not NULL) gets the largest field of the last 10 000
 * of 100 000 more steps over the largest before, in dB. */
static int reflection(test_backend *b, const fdtd_ops *ops, int axis, const char *bc, int mur_h, const char *medium,
                      double db[2], double *late) {
  fdtd_input in, ref;
  fdtd_model m, mr;
  long steps;
  double *r1, *r2;
  int face, okay;
  column(&in, axis, 120, 0, bc, mur_h, medium);
  column(&ref, axis, 120 + 2 * EXTRA, EXTRA, bc, mur_h, medium);
  fd_build(&in, &m);
  fd_build(&ref, &mr);
  /* the pulse's peak (4 tau) plus its tail, 100 cells out and back to the probe (at half speed in the medium) */
  steps = (long)((8.0 / (3.14159265358979323846 * 1e9) + (medium ? 200 : 100) * 0.01 / HD_FDTD_C0) / m.dt) + 1;
  r1 = (double *)malloc((size_t)(late ? 100000 + steps : steps) * (m.nprobe + 2 * m.nfeed) * sizeof(double));
  r2 = (double *)malloc((size_t)steps * (mr.nprobe + 2 * mr.nfeed) * sizeof(double));
  if (!r1 || !r2) bail("out of memory");
  okay = fd_run(b, ops, &m, late ? 100000 + steps : steps, r1, NULL) && fd_run(b, ops, &mr, steps, r2, NULL);
  for (face = 0; okay && face < 2; ++face) db[face] = gap_db(r1, r2, steps, m.nprobe + 2 * m.nfeed, face);
  if (okay && late) { /* the fields left in the column: both probes, the last tenth against the first window */
    const long row = m.nprobe + 2 * m.nfeed, end = 100000 + steps;
    double early = 0.0, tail = 0.0;
    long t;
    for (t = 0; t < end; ++t)
      for (face = 0; face < 2; ++face) {
        const double v = fabs(r1[row * t + face]);
        if (t < steps) early = fmax(early, v);
        else if (t >= end - 10000) tail = fmax(tail, v);
      }
    *late = 20.0 * log10(fmax(tail, 1e-300) / early);
  }
  free(r1), free(r2);
  fdtd_input_free(&in), fdtd_input_free(&ref);
  return okay;
}

/* The slab: 2n x 2n cells, a line source 5 cells from the low x and y
 * faces, probes at 2 to 5 cells from them and the corner. */
static void slab(fdtd_input *in, long n, long shift, const char *bc, int mur_h) {
  const double d = 0.01, x0 = -20 * d; /* the small slab's low corner: its source and probes in both */
  static const double probe[4][2] = {{2, 2}, {20, 2}, {2, 20}, {5, 5}};
  int k;
  fdtd_input_defaults(in);
  fd_add(&in->xmesh, "%.17g %ld %.17g", x0 - shift * d, 2 * n, x0 + (2 * n - shift) * d);
  fd_add(&in->ymesh, "%.17g %ld %.17g", x0 - shift * d, 2 * n, x0 + (2 * n - shift) * d);
  fd_add(&in->zmesh, "0 2 %.17g", 2 * d);
  strcpy(in->bc_all, bc);
  strcpy(in->bc_axis[2], "periodic");
  in->mur_h = mur_h;
  if (!strcmp(bc, "pml")) in->pml[0] = 8, in->pml[1] = 4, in->pml[2] = 1e-6, in->npml = 3;
  for (k = 0; k < 2; ++k) fd_add(&in->source, "Z %.17g %.17g %.17g 1", x0 + 5 * d, x0 + 5 * d, k * d);
  for (k = 0; k < 4; ++k) fd_add(&in->probe, "ez %.17g %.17g 0", x0 + probe[k][0] * d, x0 + probe[k][1] * d);
  in->freq = 1e9;
  in->waveform = HD_FDTD_DGAUSSIAN;
}

/* The worst reflection over the slab's probes, in dB. */
static int angles(test_backend *b, const fdtd_ops *ops, const char *bc, int mur_h, double *db) {
  fdtd_input in, ref;
  fdtd_model m, mr;
  long steps;
  double *r1, *r2;
  int k, okay;
  slab(&in, 20, 0, bc, mur_h);
  slab(&ref, 120, 100, "pec", 0);
  fd_build(&in, &m);
  fd_build(&ref, &mr);
  /* the pulse and its echoes in the small slab, before the large one's walls answer (208 cells out and back) */
  steps = (long)(190 * 0.01 / HD_FDTD_C0 / m.dt);
  r1 = (double *)malloc((size_t)steps * (m.nprobe + 2 * m.nfeed) * sizeof(double));
  r2 = (double *)malloc((size_t)steps * (mr.nprobe + 2 * mr.nfeed) * sizeof(double));
  if (!r1 || !r2) bail("out of memory");
  okay = fd_run(b, ops, &m, steps, r1, NULL) && fd_run(b, ops, &mr, steps, r2, NULL);
  for (*db = -400, k = 0; okay && k < 4; ++k) *db = fmax(*db, gap_db(r1, r2, steps, m.nprobe + 2 * m.nfeed, k));
  free(r1), free(r2);
  fdtd_input_free(&in), fdtd_input_free(&ref);
  return okay;
}

int main(void) {
  static const char *const kinds[4] = {"mur", "mur", "pml", "cpml"};
  static const char *const media[2] = {"4 0 1 0", "4 0.01 1 0"};
  test_backend be[HD_B_COUNT];
  const int nb = test_backends_open(be);
  int k, single, axis, q, w;
  for (k = 0; k < nb; ++k)
    for (single = 0; single <= 1; ++single) {
      const fdtd_ops *ops = fdtd_ops_get(be[k].core->id, single);
      if (!ops || (be[k].core->id == HD_B_OPENMP && single)) continue; /* OpenMP = serial bits */
      for (axis = 0; axis < 3; ++axis) {
        double r[4][2];
        for (q = 0; q < 4; ++q)
          if (!reflection(&be[k], ops, axis, kinds[q], q == 1, NULL, r[q], NULL)) bail("reflection runs");
        ok(r[0][0] <= -50 && r[0][1] <= -50 && r[1][0] <= -50 && r[1][1] <= -50 && r[2][0] <= -80 && r[2][1] <= -80 &&
               r[3][0] <= -80 && r[3][1] <= -80,
           "%s/%s %c faces, normal incidence: Mur on E %.1f / %.1f dB, on H %.1f / %.1f, PML %.1f / %.1f, CPML "
           "%.1f / %.1f (need <= -50, the layers <= -80)",
           ops->backend, ops->precision, 'x' + axis, r[0][0], r[0][1], r[1][0], r[1][1], r[2][0], r[2][1], r[3][0], r[3][1]);
      }
      for (w = 0; w < 2; ++w) { /* the media through the high x face */
        double r[4][2], late[4];
        const int slow = !single && w == 0 && be[k].core->id == HD_B_SERIAL && slow_wanted(); /* the long run once */
        for (q = 0; q < 4; ++q)
          if (!reflection(&be[k], ops, 0, kinds[q], q == 1, media[w], r[q], slow ? &late[q] : NULL)) bail("reflection runs");
        ok(r[0][1] <= -30 && r[1][1] <= -30 && r[2][1] <= (w ? -35 : -60) && r[3][1] <= -60,
           "%s/%s a half-space of eps_r 4%s through the face: Mur on E %.1f dB, on H %.1f, PML %.1f, CPML %.1f "
           "(need Mur <= -30, PML <= %d, CPML <= -60)",
           ops->backend, ops->precision, w ? " and 0.01 S/m" : "", r[0][1], r[1][1], r[2][1], r[3][1], w ? -35 : -60);
        if (slow)
          ok(late[0] < -60 && late[1] < -60 && late[2] < -60 && late[3] < -60,
             "%s/%s and 100 000 steps on, the fields left: Mur on E %.0f dB, on H %.0f, PML %.0f, CPML %.0f of the pulse "
             "(need < -60: nothing grows)",
             ops->backend, ops->precision, late[0], late[1], late[2], late[3]);
      }
      {
        double a[4];
        for (q = 0; q < 4; ++q)
          if (!angles(&be[k], ops, kinds[q], q == 1, &a[q])) bail("slab runs");
        ok(a[2] <= -65 && a[3] <= -65,
           "%s/%s every angle (a line source 5 cells from two faces, probes 2 to 5 cells from them): Mur on E %.1f dB, "
           "on H %.1f, PML %.1f, CPML %.1f (need the layers <= -65)",
           ops->backend, ops->precision, a[0], a[1], a[2], a[3]);
      }
    }
  test_backends_close(be, nb);
  return done_testing();
}
