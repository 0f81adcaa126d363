/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-fdtd's frequency-domain results, from the running DFTs the backend
 * gathered (hd/fdtd_dft.h): port quantities of every feed (impedance,
 * reflection, return loss, VSWR, accepted power, the S-parameter column of
 * the driven port, Touchstone), and the far field of the Huygens surface
 * (pattern, directivity, gain, efficiency).  Separate from main.c: the run
 * is one story, what it is for another. */
#ifndef HD_DRV_FDTD_SPECTRA_H
#define HD_DRV_FDTD_SPECTRA_H

#include <stddef.h>

#include "model.h"
#include "output.h"
#include "plots.h"

#define HD_FDTD_MAX_PORTS 64 /* excite=all */

typedef struct fdtd_spectra {
  int nfreq;
  double *freq;       /* every frequency the run transforms: the ports' (the first nport), then the fields' own if given */
  int nport, far0, nfar; /* the far field, maps and volume at freq + far0, nfar of them */
  int ntheta, nphi;   /* far-field divisions of theta in [0, 180] and phi in [0, 360); 0: none */
  long margin;        /* cells between the Huygens box and the boundary faces */
  int periodic[3];    /* periodic axes: the box spans them whole and their faces do not radiate (a cell of the array) */
  int outside_h;      /* H half a cell outside every face is live (PML, Mur on H, periodic): the box may be the faces */
  double z0;          /* reference impedance; 0: each feed's own resistance */
  double dt;          /* the run's time step */
  int excite_all;     /* one run per port, the S-parameter matrix */
  double pw_theta, pw_phi; /* a plane wave's arrival direction (radians): the monostatic RCS */
  const fdtd_plots *plots;  /* the pictures asked for beyond the default ones (may be NULL) */
  int matching_loss;        /* gain against the power the ports' sources make available (realised gain) */
} fdtd_spectra;

/* The ports: feeds with a resistance (soft sources are none). */
int fdtd_spectra_ports_count(const fdtd_input *in);

/* "F" or "F0 F1 N" (N frequencies from F0 to F1), and the same for the
 * far field, maps and volume where given (fields: NULL or "": the same),
 * and "NTHETA NPHI"; 0 or -1 with a message. */
int fdtd_spectra_frequencies(fdtd_spectra *s, const char *text, const char *fields, char *err, size_t n);
int fdtd_spectra_farfield(fdtd_spectra *s, const char *text, char *err, size_t n);
void fdtd_spectra_free(fdtd_spectra *s);

/* The Huygens box of the grid of n cells: physical nodes margin .. n -
 * margin an axis (0 .. n along periodic axes); 0 or -1 with a message
 * when the grid is too small. */
int fdtd_spectra_box(const fdtd_spectra *s, const long n[3], long lo[3], long hi[3], char *err, size_t en);

/* Write PREFIX_ports.csv (and PREFIX.s1p for a single feed) from the feed
 * spectra (4 x nfreq x nfeed); print a summary line per feed at the first
 * frequency on stdout.  0 or -1 with a message. */
int fdtd_spectra_ports(const fdtd_spectra *s, const fdtd_input *in, const double *acc, const char *prefix,
                       char *err, size_t en);

/* The voltage points (in->npoint, OpenFDTD's point): from the probe
 * spectra (2 x nfreq x nprobe) and the feeds' (may be NULL), the first
 * point's line split into its waves by the point and its two neighbours,
 * S11 = V- / V+ and Sn1 = V_n / V+, and the couplings Cnf = V_n / V_feed f,
 * written as PREFIX_points.csv (frequency, name, dB, degrees).  0 or -1. */
int fdtd_spectra_points(const fdtd_spectra *s, const fdtd_input *in, const double *probes, const double *feeds,
                        const char *prefix, char *err, size_t en);

/* From one run per port (runs[j]: the feed spectra of the run that drove
 * port j alone): S = B A^-1 at each frequency, written as PREFIX_sparams.csv
 * and the Touchstone file PREFIX.sNp.  0 or -1 with a message. */
int fdtd_spectra_smatrix(const fdtd_spectra *s, const fdtd_input *in, double *const *runs, const char *prefix,
                         char *err, size_t en);

/* Near-field map k (1-based) m on its planes pl (one, or x, y, z of |E|
 * or |H|), acc their spectra: PREFIX_nearK.vtr (amplitude and phase in
 * degrees at each frequency, and |E| or |H|) and PREFIX_nearK.png (the
 * amplitude at the first); a line (m->line): PREFIX_lineK.png beside its
 * CSV.  0 or -1 with a message. */
int fdtd_spectra_nearfield(const fdtd_spectra *s, const fdtd_input *in, int k, const fdtd_map *m, const fdtd_slice *pl,
                           const double *const *acc, const char *prefix, char *err, size_t en);

/* The power the ports accept at frequency k (of all), or with the matching
 * loss what their sources make available (realised gain). */
double fdtd_spectra_feeds_power(const fdtd_spectra *s, const fdtd_input *in, const double *feeds, int k);

/* Write PREFIX_farfield.csv from the surface spectra (8 x nfreq x points
 * of the box lo..hi) and print directivity, gain and efficiency a
 * frequency; feeds (may be NULL) give the accepted power; incident (may be
 * NULL: 2 x nfreq, a plane wave's E phasor) adds the radar cross-section
 * (columns, a summary line a frequency, PREFIX_rcs.png).  0 or -1. */
int fdtd_spectra_farfield_write(const fdtd_spectra *s, const fdtd_input *in, const long lo[3], const long hi[3],
                                const double *surface, const double *feeds, const double *incident, const char *prefix,
                                char *err, size_t en);

#endif
