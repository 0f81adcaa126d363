/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-fdtd's plane-wave incidence: the `planewave` key, the total-field box
 * and the model's plane-wave fields (the physics is hd/fdtd_tfsf.h). */
#ifndef HD_DRV_FDTD_PLANEWAVE_H
#define HD_DRV_FDTD_PLANEWAVE_H

#include <stddef.h>

#include "model.h"
#include "plots.h"
#include "spectra.h"

/* Gap between the Huygens box and the total-field box, in cells: the
 * Huygens surface's H half a cell inside must still be scattered field. */
#define FDTD_TFSF_GAP 2

/* The forms, as --planewave-form spells them; sf-closed: the scattered
 * field's incident wave in closed form (travelling at c, OpenFDTD's),
 * where sf takes the grid's own wave from a line (hd/fdtd_sf.h). */
enum { FDTD_PW_AUTO = 0, FDTD_PW_TFSF, FDTD_PW_SF, FDTD_PW_SF_CLOSED };

typedef struct fdtd_planewave {
  int on, pol;         /* pol 1: E along -theta^ ("V"), 2: along phi^ ("H") */
  double theta, phi;   /* arrival direction, radians */
  double e0;           /* V/m */
  int form;            /* FDTD_PW_*: the total-field box, the scattered-field form, or the box where it can be */
} fdtd_planewave;

/* "THETA PHI V|H|1|2 [E0]" (degrees; the wave arrives from (THETA, PHI),
 * as OpenFDTD's planewave); 0 or -1 with a message. */
int fdtd_planewave_parse(fdtd_planewave *pw, const char *text, char *err, size_t n);

/* The form a run takes (FDTD_PW_TFSF, _SF or _SF_CLOSED), the same on every
 * rank: the box where asked, or under auto where the mesh is uniform, no
 * axis periodic and every object inside the box; else the scattered-field
 * form, which takes no feeds or sources (then -1 with a message, as for a
 * wave that is not periodic along a periodic axis). */
int fdtd_planewave_form(const fdtd_planewave *pw, const fdtd_input *in, const fdtd_spectra *sp, char *err, size_t n);

/* Whether the wave k (e, h) is oblique along a periodic axis: 0 not, 1
 * yes (a Bloch-periodic cell: *line the axis the incident line runs
 * along, *axis the periodic one, where not NULL), -1 with a message where
 * hd cannot take it (two such axes, no axis to travel along, neither E
 * nor H normal to the plane of incidence, a non-uniform mesh). */
int fdtd_planewave_bloch(const double k[3], const double e[3], const double h[3], const fdtd_input *in, int *line, int *axis,
                         char *err, size_t n);

/* The model's plane-wave fields in that form: direction, polarisation,
 * amplitude; the incident line's cell (matched at the mean output
 * frequency, or the waveform's; the scattered-field form's line along an
 * axis takes that axis' cells, and on a non-uniform mesh another direction
 * takes the closed form); for the box also the total-field box
 * FDTD_TFSF_GAP cells inside the Huygens box (margin cells from the
 * faces), refusing a non-uniform mesh, periodic axes, a box too small and
 * any material outside the box (built model m).  0 or -1. */
int fdtd_planewave_setup(const fdtd_planewave *pw, int form, const fdtd_input *in, const fdtd_spectra *sp, fdtd_model *m,
                         char *err, size_t n);

/* The incident wave added to the spectra of a near-field plane (acc: re,
 * im of each cell a frequency), so that the map shows the total field as
 * the probes record it: each cell the mean over the component's positions
 * the map averages, at the maps' sampling times over `steps` steps; in
 * the total-field box's form only outside the box (the grid holds the
 * total field inside it), unless everywhere (the incident field alone). */
void fdtd_planewave_add_incident(const fdtd_model *m, const fdtd_input *in, const fdtd_slice *pl, const double *freq, int nf,
                                 long steps, int everywhere, double *acc);

#endif
