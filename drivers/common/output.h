/* SPDX-License-Identifier: BSD-3-Clause */
/* Driver outputs that never leave a half-written file behind.
 *
 * An hd_out writes into a temporary file in the target's directory; commit
 * flushes, fsyncs, renames it over the target and fsyncs the directory.
 * Drivers open all their outputs before the run (so an unwritable directory
 * is reported at once) and commit them together at the end; on any failure
 * they abort, which removes the temporaries and leaves old files untouched. */
#ifndef HD_DRV_OUTPUT_H
#define HD_DRV_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hd_out {
  FILE *f;
  char path[4096];
  char tmp[4096 + 16];
  const char *footer; /* written by commit (and by a series' publish): a .pvd's closing tags */
} hd_out;

int hd_out_open(hd_out *o, const char *path, char *err, size_t n);
int hd_out_commit(hd_out *o, char *err, size_t n);
/* A sink that takes writes and keeps nothing (ranks other than 0 of a
 * distributed run, which compute what rank 0 writes); commit and abort just
 * close it.  0, or -1 + message. */
int hd_out_discard(hd_out *o, char *err, size_t n);
void hd_out_abort(hd_out *o);
/* Empty an open output again.  0, or -1 + message. */
int hd_out_rewind(hd_out *o, char *err, size_t n);

/* Why the last write failed (errno's text), for messages. */
const char *hd_out_error(void);

/* Write bytes; returns 0 on success. */
int hd_out_write(hd_out *o, const void *p, size_t bytes);

/* One cell array of a VTK ImageData or RectilinearGrid file: a scalar
 * (data) or a vector of three components (comp, data NULL), ParaView's
 * glyphs and stream lines take without a Calculator. */
typedef struct hd_vti_array {
  const char *name;
  const double *data;    /* a scalar's values, x fastest */
  int single;            /* store as Float32 */
  const char *units;     /* listed in the dataset's "units" (NULL: none) */
  const double *comp[3]; /* a vector's components, each laid out as data */
} hd_vti_array;

/* What a dataset says of itself, as VTK field data: TimeValue (the time
 * ParaView shows), up to four named numbers (frequency_Hz, step, ...), one
 * named list (the frequencies of arrays NAME_f1, NAME_f2, ...), and a
 * "units" string array of "NAME: UNITS" for the arrays that give units. */
#define HD_VTK_META_MAX 4
typedef struct hd_vtk_meta {
  int has_time;
  double time;
  int nvalues;
  const char *key[HD_VTK_META_MAX];
  double value[HD_VTK_META_MAX];
  const char *list_key;
  const double *list;
  int nlist;
} hd_vtk_meta;

/* Meta data of a field at time t (a TimeValue only). */
hd_vtk_meta hd_vtk_meta_time(double t);
/* Add a named number; ignored past HD_VTK_META_MAX. */
void hd_vtk_meta_add(hd_vtk_meta *m, const char *key, double value);

/* Cell-centred image of n[0] x n[1] x n[2] cells (n[2] = 1 for 2-D) with
 * spacing dx, its first node at origin (NULL: 0), arrays in raw appended
 * binary; meta may be NULL. */
int hd_vti_write(hd_out *o, const int64_t n[3], const double origin[3], const double dx[3], const hd_vti_array *arrays,
                 int narrays, const hd_vtk_meta *meta);
/* The cells lo .. lo + cnt - 1 of that image as one piece (its own file),
 * and the index of a parallel image (.pvti) naming npieces such files
 * (src[k], relative to the index) with their blocks lo[3k..], cnt[3k..]:
 * ParaView opens the index as one dataset (its field data the pieces').
 * 0, or -1. */
int hd_vti_write_block(hd_out *o, const int64_t n[3], const int64_t lo[3], const int64_t cnt[3], const double origin[3],
                       const double dx[3], const hd_vti_array *arrays, int narrays, const hd_vtk_meta *meta);
int hd_pvti_write(hd_out *o, const int64_t n[3], const double origin[3], const double dx[3], const hd_vti_array *arrays,
                  int narrays, int npieces, const int64_t *lo, const int64_t *cnt, const char *const *src);

/* One point array of a VTK PolyData file: n * ncomp values, components
 * interleaved. */
typedef struct hd_vtk_points_array {
  const char *name;
  const double *data;
  int ncomp;
} hd_vtk_points_array;

/* Points (x, y, z: n values each) as XML PolyData (.vtp, raw appended
 * binary; meta may be NULL) or legacy binary VTK (.vtk), single or double
 * precision. */
int hd_vtp_write(hd_out *o, int64_t n, const double *x, const double *y, const double *z,
                 const hd_vtk_points_array *arrays, int narrays, int single, const hd_vtk_meta *meta);
int hd_vtk_legacy_points_write(hd_out *o, int64_t n, const double *x, const double *y,
                               const double *z, const hd_vtk_points_array *arrays, int narrays,
                               int single);

/* Cell data on a rectilinear grid (.vtr): node coordinates x[a][0..n[a]],
 * arrays of cell values, x fastest.  An axis with n[a] = 0 is flat: one
 * coordinate x[a][0], one layer of values, and the grid a surface (a 2-D
 * field, a slice), which ParaView draws as one. */
int hd_vtr_write(hd_out *o, const int64_t n[3], const double *const x[3], const hd_vti_array *arrays,
                 int narrays, const hd_vtk_meta *meta);
/* The cells lo .. lo + cnt - 1 of that grid as one piece (x: the whole
 * grid's node coordinates; cnt[a] = 0 on a flat axis), and the index of a
 * parallel rectilinear grid (.pvtr) naming npieces such files, as
 * hd_pvti_write.  0, or -1. */
int hd_vtr_write_block(hd_out *o, const int64_t n[3], const int64_t lo[3], const int64_t cnt[3],
                       const double *const x[3], const hd_vti_array *arrays, int narrays, const hd_vtk_meta *meta);
int hd_pvtr_write(hd_out *o, const int64_t n[3], const hd_vti_array *arrays, int narrays, int npieces,
                  const int64_t *lo, const int64_t *cnt, const char *const *src);

/* A structured grid (.vts) of n[0] x n[1] x n[2] points (xyz interleaved,
 * x fastest) with point arrays (hd_vti_array laid out on the points): the
 * far-field sphere. */
int hd_vts_write(hd_out *o, const int64_t n[3], const double *xyz, const hd_vti_array *arrays, int narrays,
                 const hd_vtk_meta *meta);

/* What a field picture says around its map: a title above (the field, its
 * units, the time), a colour bar on the right with its numbers (and the
 * units above it), and a line below (what the map spans: its scale).
 * Strings may be NULL. */
typedef struct hd_png_legend {
  const char *title, *units, *extent;
} hd_png_legend;

/* An 8-bit RGB PNG of a w x h scalar map (row 0 at the top) with a
 * blue-white-red scale symmetric about 0 (|v| <= vmax) and, given a legend,
 * its title, colour bar and extent; returns -1 with a message in err when
 * libpng is missing or the write fails. */
int hd_png_write(hd_out *o, int w, int h, const double *v, double vmax, const hd_png_legend *legend, char *err,
                 size_t n);

/* The same with the scale lo..hi in one of two colour maps. */
enum { HD_PNG_DIVERGING, HD_PNG_SEQUENTIAL };
int hd_png_write_map(hd_out *o, int w, int h, const double *v, double lo, double hi, int map,
                     const hd_png_legend *legend, char *err, size_t n);
/* ... with `contours` iso-lines evenly spaced over lo..hi (0: none) and,
 * where region (w x h ids, may be NULL) changes between cells, a black
 * outline (the objects on a field map). */
int hd_png_write_map_lines(hd_out *o, int w, int h, const double *v, double lo, double hi, int map, int contours,
                           const unsigned char *region, const hd_png_legend *legend, char *err, size_t n);

/* A w x h picture of 8-bit RGB triplets, row 0 at the top. */
int hd_png_write_rgb(hd_out *o, int w, int h, const unsigned char *rgb, char *err, size_t n);

/* Whether this build writes PNGs, and what to say when it does not. */
#if defined(HD_HAVE_PNG)
#define HD_PNG_BUILT 1
#else
#define HD_PNG_BUILT 0
#endif
#define HD_NO_PNG "this build has no PNG output (configure found no libpng)"

/* Directory part of a path ("." when there is none), for messages. */
void hd_dirname(const char *path, char *dir, size_t n);

#ifdef __cplusplus
}
#endif

#endif
