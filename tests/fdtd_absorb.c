/* Absorbing boundaries at normal incidence, every axis and both faces.
 *
 * A plane-wave pulse (a sheet of soft current sources, derivative of a
 * Gaussian, 1/e bandwidth 1 GHz: 30 cells of 1 cm per wavelength there)
 * starts in the middle of a column 120 cells long, periodic across with 2 x
 * 2 cells, and runs into both faces of the axis under test.  Probes 40
 * cells from each face record the incident pulse and its reflection.  The
 * reference is the same run in a column 520 cells long, whose faces are so
 * far that their echo arrives after the window: the difference of the two
 * records is the reflection, quoted as 20 log10(max |diff| / max |ref|).
 * Requirements (the issue's): 8-layer PML at least 30 dB below first-order
 * Mur, and below -40 dB. */
#include "fdtd_common.h"

#define EXTRA 200 /* cells added on each side for the reference */

static void column(fdtd_input *in, int axis, long cells, long shift, const char *bc) {
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
  in->pml[0] = 8, in->pml[1] = 4, in->pml[2] = 1e-6, in->npml = 3;
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

/* Reflection in dB of each face (lo, hi) for a boundary type on one axis. */
static int reflection(test_backend *b, const fdtd_ops *ops, int axis, const char *bc, double db[2]) {
  fdtd_input in, ref;
  fdtd_model m, mr;
  long steps, t;
  double *r1, *r2;
  int face, okay;
  column(&in, axis, 120, 0, bc);
  column(&ref, axis, 120 + 2 * EXTRA, EXTRA, bc);
  fd_build(&in, &m);
  fd_build(&ref, &mr);
  /* the pulse's peak (4 tau) plus its tail, 100 cells out and back to the probe */
  steps = (long)((8.0 / (3.14159265358979323846 * 1e9) + 100 * 0.01 / HD_FDTD_C0) / m.dt) + 1;
  r1 = (double *)malloc((size_t)steps * (m.nprobe + 2 * m.nfeed) * sizeof(double));
  r2 = (double *)malloc((size_t)steps * (mr.nprobe + 2 * mr.nfeed) * sizeof(double));
  if (!r1 || !r2) bail("out of memory");
  okay = fd_run(b, ops, &m, steps, r1, NULL) && fd_run(b, ops, &mr, steps, r2, NULL);
  for (face = 0; okay && face < 2; ++face) {
    double dmax = 0.0, rmax = 0.0;
    const long row = m.nprobe + 2 * m.nfeed; /* probes first, then the sources' V and I */
    for (t = 0; t < steps; ++t) {
      dmax = fmax(dmax, fabs(r1[row * t + face] - r2[row * t + face]));
      rmax = fmax(rmax, fabs(r2[row * t + face]));
    }
    db[face] = 20.0 * log10(fmax(dmax, 1e-300) / rmax);
  }
  free(r1), free(r2);
  fdtd_input_free(&in), fdtd_input_free(&ref);
  return okay;
}

int main(void) {
  test_backend be[HD_B_COUNT];
  const int nb = test_backends_open(be);
  int k, single, axis;
  for (k = 0; k < nb; ++k)
    for (single = 0; single <= 1; ++single) {
      const fdtd_ops *ops = fdtd_ops_get(be[k].core->id, single);
      if (!ops || (be[k].core->id == HD_B_OPENMP && single)) continue; /* OpenMP = serial bits */
      for (axis = 0; axis < 3; ++axis) {
        double mur[2], pml[2];
        if (!reflection(&be[k], ops, axis, "mur", mur) || !reflection(&be[k], ops, axis, "pml", pml)) {
          ok(0, "%s/%s reflection runs", ops->backend, ops->precision);
          continue;
        }
        ok(pml[0] <= -40 && pml[1] <= -40 && pml[0] <= mur[0] - 30 && pml[1] <= mur[1] - 30,
           "%s/%s %c faces, normal incidence: Mur %.1f / %.1f dB, 8-layer PML %.1f / %.1f dB (need "
           "<= -40 and 30 dB below Mur)",
           ops->backend, ops->precision, 'x' + axis, mur[0], mur[1], pml[0], pml[1]);
      }
    }
  test_backends_close(be, nb);
  return done_testing();
}
