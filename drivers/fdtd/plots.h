/* SPDX-License-Identifier: BSD-3-Clause */
/* The pictures a model asks for, by hd's keys (plot, plot-far0d,
 * plot-far1d, far1d-*) or OpenFDTD's plot keys translated to them: each a
 * PNG (where libpng is) beside a CSV of the numbers drawn.  The port,
 * point and far-field pictures are drawn where spectra.c has the numbers;
 * the waveforms and the convergence history here, from the CSV files the
 * run wrote, so that a restarted run draws its whole history. */
#ifndef HD_DRV_FDTD_PLOTS_H
#define HD_DRV_FDTD_PLOTS_H

#include <stddef.h>

#include "cli.h"
#include "fdtd_ops.h"
#include "model.h"
#include "plot.h"

enum {
  FDTD_PLOT_HISTORY = 1,         /* OpenFDTD's plotiter */
  FDTD_PLOT_FEED_WAVEFORMS = 2,  /* plotfeed */
  FDTD_PLOT_POINT_WAVEFORMS = 4, /* plotpoint */
  FDTD_PLOT_SMITH = 8,           /* plotsmith */
  FDTD_PLOT_IMPEDANCE = 16,      /* plotzin (drawn with any port) */
  FDTD_PLOT_ADMITTANCE = 32,     /* plotyin */
  FDTD_PLOT_REFLECTION = 64,     /* plotref (drawn with any port) */
  FDTD_PLOT_SPARAMETERS = 128,   /* plotspara: the points' S11, Sn1 */
  FDTD_PLOT_COUPLING = 256,      /* plotcoupling: the points' Cnf */
  FDTD_PLOT_FAR2D = 512          /* plotfar2d: the sphere as a map */
};
#define FDTD_PLOT_NAMES_DOC \
  "history, feed-waveforms, point-waveforms, smith, impedance, admittance, reflection, sparameters, coupling, far2d"
#define FDTD_MAX_CUTS 8
/* The far field's parts: |E|, E_theta, E_phi, the polarisation ellipse's
 * major and minor axes, right- and left-hand circular (IEEE, e^{jwt}:
 * E_R = (E_theta + j E_phi) / sqrt 2). */
#define FDTD_FAR_PARTS 7
#define FDTD_FAR_PARTS_DOC "total, theta, phi, major, minor, rhcp, lhcp"

typedef struct fdtd_cut {
  char plane; /* X (the yz plane), Y (zx), Z (xy), V (theta round at phi = angle), H (phi round at theta = angle) */
  int div;    /* points round the circle */
  double angle;
} fdtd_cut;

typedef struct fdtd_plots {
  unsigned want;        /* FDTD_PLOT_* */
  int far0d;            /* 1: the far field at (far0d_theta, far0d_phi) against frequency */
  double far0d_theta, far0d_phi; /* degrees */
  fdtd_cut cut[FDTD_MAX_CUTS];
  int ncut;
  int cartesian;        /* far1d-style: 0 polar, 1 against the angle */
  int component[FDTD_FAR_PARTS];     /* far1d-component: which parts (FDTD_FAR_PARTS_DOC) the cuts draw */
  int map_component[FDTD_FAR_PARTS]; /* far2d-component: the sphere's maps */
  int map_linear;                    /* far2d-db=no */
  double map_lo, map_hi;             /* far2d-scale (lo < hi), else 40 dB under the peak */
  int db;               /* far1d-db: 1 dB, 0 linear */
  int normalize;        /* far1d-normalize: each cut to its peak */
  double lo, hi;        /* far1d-scale: the value axis (lo < hi), else from the data */
  int line_db;          /* near1d-db: the lines in dB (20 log10 of the amplitude) */
  int map_db, contour, outline; /* near2d-db, near2d-contour, near2d-outline: the maps' scale and lines */
  double line_lo, line_hi, map_lo2, map_hi2; /* near1d-scale, near2d-scale (lo < hi), else from the values */
  int line_noinc, map_noinc; /* near1d-noinc, near2d-noinc: under a plane wave the scattered field alone */
  int zoom, frames;          /* near2d-zoom: the maps' window; near2d-frames: pictures of the field through a period */
  double zoom_u[2], zoom_v[2];
} fdtd_plots;

/* A cell layer normal to axis and a component on it (the slice, the
 * near-field maps' planes). */
typedef struct fdtd_slice {
  int comp, axis;
  long layer; /* cell layer normal to axis */
} fdtd_slice;

/* "ex|ey|ez|hx|hy|hz x|y|z POS" (commas too): 0 or -1 with a message. */
int fdtd_slice_parse(const fdtd_input *in, const char *text, fdtd_slice *sl, char *err, size_t n);

/* A near-field picture: a map on a plane (nearfield) or a line on one
 * (nearline), of one component or of |E| or |H| from three planes. */
typedef struct fdtd_map {
  int field;     /* -1: the component of its plane; 0: |E|, 1: |H| (three planes: x, y, z) */
  int line;      /* a line along line_axis through row line_row of the plane */
  int line_axis;
  long line_row;
  int first, count; /* its planes */
} fdtd_map;

/* nearfield "COMP AXIS POS" (line 0) or nearline "COMP AXIS P1 P2" (line
 * 1: along AXIS at P1, P2 on the next two axes in cyclic order, as
 * OpenFDTD's plotnear1d), COMP ex ... hz, e or h: the map and its planes
 * appended to planes[*nplane] (at most FDTD_MAX_PLANES in all).  0 or -1. */
int fdtd_map_parse(const fdtd_input *in, const char *text, int line, fdtd_map *m, fdtd_slice *planes, int *nplane,
                   char *err, size_t n);

/* The keys as given, and their rows of the option table. */
typedef struct fdtd_plot_keys {
  cli_list plot, far1d;
  char far0d[64], component[64], scale[64], map_component[96], map_scale[64], line_scale[64], near_scale[64], zoom[128];
  int style, db, normalize, line_db, map_db, contour, outline, far2d_db, line_noinc, map_noinc;
  long frames;
} fdtd_plot_keys;
#define FDTD_PLOT_OPTIONS(k)                                                                                                   \
  {"plot", CLI_LIST, &(k).plot, "NAME[,NAME...]", "pictures, each beside a CSV of its numbers: " FDTD_PLOT_NAMES_DOC " (repeat; doc/fdtd.md)", 1, 0, 0, NULL, 0, 0, 0}, \
  {"plot-far0d", CLI_STRING, (k).far0d, "THETA PHI", "the far field in one direction (degrees) against frequency: PREFIX_far0d.png; needs farfield (default: none)", 1, 0, sizeof (k).far0d, NULL, 0, 0, 0}, \
  {"plot-far1d", CLI_LIST, &(k).far1d, "X|Y|Z|V|H DIV [ANGLE]", "a cut of the far field in DIV steps: the yz, zx or xy plane, theta round at phi = ANGLE (V) or phi round at theta = ANGLE (H): PREFIX_far1d_K.png; needs farfield (repeat, at most 8)", 1, 0, 0, NULL, 0, 0, 0}, \
  {"far1d-style", CLI_CHOICE, &(k).style, "polar|cartesian", "the cuts as polar diagrams (default) or against the angle", 1, 0, 0, NULL, 0, 0, 0}, \
  {"far1d-component", CLI_STRING, (k).component, "PART[,PART...]", "the parts of the field the cuts draw: " FDTD_FAR_PARTS_DOC " (default total)", 1, 0, sizeof (k).component, NULL, 0, 0, 0}, \
  {"far2d-component", CLI_STRING, (k).map_component, "PART[,PART...]", "the parts of the field drawn over the sphere (plot = far2d): " FDTD_FAR_PARTS_DOC ", a map each (default total)", 1, 0, sizeof (k).map_component, NULL, 0, 0, 0}, \
  {"far2d-db", CLI_FLAG, &(k).far2d_db, "yes|no", "the sphere's maps in dB (default yes) or linear", 1, 0, 0, NULL, 0, 0, 0}, \
  {"far2d-scale", CLI_STRING, (k).map_scale, "MIN MAX", "the sphere's maps' colour scale (default: 40 dB under the peak, or 0 to the peak)", 1, 0, sizeof (k).map_scale, NULL, 0, 0, 0}, \
  {"far1d-db", CLI_FLAG, &(k).db, "yes|no", "the cuts in dB (default yes) or linear", 1, 0, 0, NULL, 0, 0, 0}, \
  {"far1d-normalize", CLI_FLAG, &(k).normalize, "yes|no", "each cut to its own peak (default no)", 1, 0, 0, NULL, 0, 0, 0}, \
  {"far1d-scale", CLI_STRING, (k).scale, "MIN MAX", "the cuts' value axis (default: from the values; polar dB: 40 dB under the peak)", 1, 0, sizeof (k).scale, NULL, 0, 0, 0}, \
  {"near1d-db", CLI_FLAG, &(k).line_db, "yes|no", "nearline pictures in dB, 20 log10 of the amplitude (default no)", 1, 0, 0, NULL, 0, 0, 0}, \
  {"near2d-db", CLI_FLAG, &(k).map_db, "yes|no", "nearfield maps in dB, 40 dB under the peak (default no)", 1, 0, 0, NULL, 0, 0, 0}, \
  {"near2d-contour", CLI_FLAG, &(k).contour, "yes|no", "ten contour lines on the nearfield maps (default no)", 1, 0, 0, NULL, 0, 0, 0}, \
  {"near2d-outline", CLI_FLAG, &(k).outline, "yes|no", "the objects' outline on the nearfield maps (default no)", 1, 0, 0, NULL, 0, 0, 0}, \
  {"near1d-noinc", CLI_FLAG, &(k).line_noinc, "yes|no", "under a plane wave the nearline pictures of the scattered field alone (default no: the total field, as the probes)", 1, 0, 0, NULL, 0, 0, 0}, \
  {"near2d-noinc", CLI_FLAG, &(k).map_noinc, "yes|no", "under a plane wave the nearfield maps of the scattered field alone (default no: the total field, as the probes)", 1, 0, 0, NULL, 0, 0, 0}, \
  {"near2d-zoom", CLI_STRING, (k).zoom, "U0 U1 V0 V1", "the part of the nearfield maps drawn: U and V the plane's axes in order (y z, x z, x y) (default: all of it)", 1, 0, sizeof (k).zoom, NULL, 0, 0, 0}, \
  {"near2d-frames", CLI_INT, &(k).frames, "N", "N pictures of each nearfield map's field through a period at the first frequency, PREFIX_nearK_frameJ.png (default 0)", 0, 360, 0, NULL, 0, 0, 0}, \
  {"near1d-scale", CLI_STRING, (k).line_scale, "MIN MAX", "the nearline pictures' value axis (default: from the values)", 1, 0, sizeof (k).line_scale, NULL, 0, 0, 0}, \
  {"near2d-scale", CLI_STRING, (k).near_scale, "MIN MAX", "the nearfield maps' colour scale (default: 0 to the peak, in dB 40 dB under it)", 1, 0, sizeof (k).near_scale, NULL, 0, 0, 0}

void fdtd_plot_keys_defaults(fdtd_plot_keys *k);
void fdtd_plot_keys_free(fdtd_plot_keys *k);

/* The keys into p, messages led by where each was given (input, the
 * option lines from opts); 0 or -1 with "WHERE: message". */
int fdtd_plots_parse(fdtd_plots *p, const fdtd_plot_keys *k, cli_opt *opts, const char *input, char *err, size_t n);

void fdtd_plots_defaults(fdtd_plots *p);

/* "NAME[,NAME...]" of FDTD_PLOT_NAMES_DOC (blanks or commas) into want;
 * "THETA PHI"; "X|Y|Z|V|H DIV [ANGLE]"; parts of FDTD_FAR_PARTS_DOC into
 * part (key names the key in messages); "MIN MAX": 0 or -1 with a
 * message. */
int fdtd_plots_names(fdtd_plots *p, const char *text, char *err, size_t n);
int fdtd_plots_far0d(fdtd_plots *p, const char *text, char *err, size_t n);
int fdtd_plots_cut(fdtd_plots *p, const char *text, char *err, size_t n);
int fdtd_plots_parts(int part[FDTD_FAR_PARTS], const char *key, const char *text, char *err, size_t n);
int fdtd_plots_range(double *lo, double *hi, const char *key, const char *text, char *err, size_t n);

/* |E_part|^2 of the seven parts from r E_theta, r E_phi (re, im, re, im). */
void fdtd_plots_far_parts(const double e[4], double part[FDTD_FAR_PARTS]);

/* The cut's direction i of div + 1 (radians), OpenFDTD's convention:
 * theta beyond pi is the far side of the plane. */
void fdtd_plots_cut_direction(const fdtd_cut *c, int i, double *theta, double *phi);

/* PREFIX + suffix as a PNG of curves against x (where libpng is) and as
 * CSV (always), each named on a "plot:" line; polar: a polar diagram
 * (x in degrees) of top, range and step.  0 or -1 with a message. */
int fdtd_plots_lines(const char *prefix, const char *suffix, const char *title, const char *xlabel, const char *ylabel,
                     const hd_plot_curve *c, int nc, char *err, size_t en);
/* ... with the value axis lo..hi (lo < hi; else from the values). */
int fdtd_plots_lines_in(const char *prefix, const char *suffix, const char *title, const char *xlabel, const char *ylabel,
                        const hd_plot_curve *c, int nc, double lo, double hi, char *err, size_t en);
int fdtd_plots_polar(const char *prefix, const char *suffix, const char *title, const char *panel, const hd_plot_curve *c,
                     int nc, double top, double range, double step, char *err, size_t en);
int fdtd_plots_smith(const char *prefix, const hd_plot_curve *c, int nc, char *err, size_t en);

/* From PREFIX_average.csv and PREFIX_probes.csv, as the model asks: the
 * averages against the step (log scale), the feeds' |V| and |I| against
 * time (log scale), the points' voltages against time.  0 or -1. */
int fdtd_plots_series(const fdtd_plots *p, const fdtd_input *in, const char *prefix, char *err, size_t en);

#endif
