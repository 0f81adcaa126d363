/* SPDX-License-Identifier: BSD-3-Clause */
/* The FDTD model as the user describes it (keys of an input file, in the
 * spirit of OpenFDTD's .ofd): mesh lines, materials, geometry, feeds,
 * sources, probes.  Parsing checks everything and reports file:line;
 * building rasterises the geometry onto the padded grid per component. */
#ifndef HD_DRV_FDTD_MODEL_H
#define HD_DRV_FDTD_MODEL_H

#include <stddef.h>

#include "cli.h"
#include "fdtd_ops.h"

/* Shapes: hd's sphere and cylinder, and OpenFDTD's numbered ones (box 1,
 * ellipsoid 2, elliptic cylinders 11-13, triangular pillars 31-33,
 * pyramids 41-43, cones 51-53 along x, y, z). */
enum { FDTD_BOX = 1, FDTD_SPHERE, FDTD_CYLINDER, FDTD_ELLIPSOID, FDTD_ECYLINDER, FDTD_PILLAR, FDTD_PYRAMID, FDTD_CONE };

typedef struct fdtd_object {
  int mat, shape, axis; /* axis: cylinders, pillars, pyramids, cones */
  double v[8];          /* box, ellipsoid, elliptic cylinder: x1 x2 y1 y2 z1 z2; sphere: xc yc zc r;
                           cylinder: c1 c2 r lo hi; pillar: a1 a2, the vertices' b then c coordinates;
                           pyramid, cone: a1 a2 bc cc wb1 wc1 wb2 wc2 (b, c: the axes after a, cyclic) */
} fdtd_object;

#define FDTD_MAX_POINTS 64 /* voltage points */
/* The convolutional layers' defaults, the balance of the reflections
 * doc/fdtd.md gives (normal and grazing incidence, media, a waveguide near
 * cutoff): 8 layers graded as depth^3 to R0 1e-6, kappa_max 2, alpha_max
 * 0.005 S/m. */
#define FDTD_CPML_LAYERS 8
#define FDTD_CPML_ORDER 3
#define FDTD_CPML_R0 1e-6
#define FDTD_CPML_KAPPA 2.0
#define FDTD_CPML_ALPHA 0.005

/* The object's bounding box x1 x2 y1 y2 z1 z2. */
void fdtd_object_box(const fdtd_object *o, double box[6]);
/* Whether the object holds point p (its surface widened by tol). */
int fdtd_object_inside(const fdtd_object *o, const double p[3], double tol);

typedef struct fdtd_input {
  /* as given */
  cli_list xmesh, ymesh, zmesh, material, geometry, feed, source, probe, load, point;
  char bc_all[32], bc_axis[3][32];
  double pml[3]; /* layers, order, R0 */
  int npml;
  double cpml[2]; /* convolutional layers: kappa_max, alpha_max (S/m) */
  int ncpml;
  int waveform;  /* HD_FDTD_GAUSSIAN ... */
  char wave_file[4096]; /* waveform-file, its path resolved ("": none; waveform_file.h) */
  int mur_h;     /* 1: Mur on the tangential H half a cell outside the faces */
  int feed_release; /* 1: feeds off conductors released after their pulse (OpenFDTD's) */
  int subpixel;     /* 1: eps and sigma averaged at interfaces (subpixel.c) */
  double freq, bandwidth, dt, courant, converge;
  char decay[128];   /* stop-when-decayed "COMP X Y Z FACTOR" ("": none) */
  int decay_probe;   /* its probe (-1: none) and factor */
  double decay_factor;
  char dt_where[256]; /* where timestep was given ("file:line"), for messages */
  long steps, average_every;
  /* built */
  double *node[3];
  long n[3];
  int nmat;
  double eps_r[256], sigma[256], mu_r[256], sigma_m[256];
  int npole[256];               /* dispersive materials (hd/fdtd_ade.h) */
  hd_fdtd_pole pole[256][HD_FDTD_POLES];
  fdtd_load *loads;             /* lumped loads, R, L, C on one edge merged in parallel */
  int nload;
  fdtd_object *obj;
  int nobj;
  fdtd_point *feeds, *probes; /* feeds then soft sources; probes, then the points and the first one's two neighbours */
  int nfeed, nprobe;
  int npoint, point_first;    /* voltage points: probes point_first .. + npoint, then the neighbours downstream and upstream */
  unsigned char *mat[6];      /* on the padded grid */
  long subpixel_done;         /* E components of this block averaged */
  double *wave_tab;           /* waveform-file's times then values (HD_FDTD_TABLE) */
  long wave_ntab;
} fdtd_input;

void fdtd_input_defaults(fdtd_input *in);

/* The material of the geometry at p (the last object holding it within
 * tol; 0 vacuum): the outlines on pictures. */
int fdtd_input_material_at(const fdtd_input *in, const double p[3], double tol);
/* The material at the centre of each cell lo .. lo + cnt - 1 (x fastest):
 * the FDTD volume's "material" array. */
void fdtd_input_cell_materials(const fdtd_input *in, const long lo[3], const long cnt[3], double *out);
void fdtd_input_free(fdtd_input *in);

/* Parse mesh, materials, geometry, feeds, sources, probes and boundaries;
 * 0 or -1 with "where: message" in err. */
int fdtd_input_parse(fdtd_input *in, char *err, size_t n);

/* Append a value to a key's list as if read at `where` (programs and tests
 * that build models); 0 or -1 when out of memory. */
int fdtd_input_add(cli_list *l, const char *value, const char *where);

/* The built-in benchmark of N^3 cells (see doc/fdtd.md), as if parsed. */
int fdtd_input_benchmark(fdtd_input *in, long n, char *err, size_t errn);

/* Fill a model (m->dt set from the input or the Courant limit; the dt above
 * the limit is refused) and rasterise the geometry.  0 or -1 with err. */
int fdtd_input_build(fdtd_input *in, fdtd_model *m, char *err, size_t n);
/* The same for the block of ln cells from cell off of a decomposed grid
 * (materials rasterised on the block and its padding only; feeds,
 * probes and loads left global for the caller to select). */
int fdtd_input_build_block(fdtd_input *in, fdtd_model *m, const long off[3], const long ln[3], char *err, size_t n);

/* The boundary kind (HD_FDTD_BC_*) of axis a of a parsed input. */
int fdtd_input_bc(const fdtd_input *in, int a);

/* Largest stable dt of the input's mesh. */
double fdtd_input_dt_max(const fdtd_input *in);

/* Bytes the model needs on the backend (fields, indices, PML) for a real
 * type of `real_size` bytes, for the whole grid or a block of ln cells. */
double fdtd_model_bytes(const fdtd_input *in, const long ln[3], size_t real_size);

/* err <- the message; returns -1 (input.c and model.c's refusals). */
int fdtd_input_fail(char *err, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
