/* hd-fdtd's plane-wave incidence: the `planewave` key, the total-field box
 * and the model's plane-wave fields (the physics is hd/fdtd_tfsf.h). */
#ifndef HD_DRV_FDTD_PLANEWAVE_H
#define HD_DRV_FDTD_PLANEWAVE_H

#include <stddef.h>

#include "model.h"
#include "spectra.h"

/* Gap between the Huygens box and the total-field box, in cells: the
 * Huygens surface's H half a cell inside must still be scattered field. */
#define FDTD_TFSF_GAP 2

typedef struct fdtd_planewave {
  int on, pol;         /* pol 1: E along -theta^ ("V"), 2: along phi^ ("H") */
  double theta, phi;   /* arrival direction, radians */
  double e0;           /* V/m */
} fdtd_planewave;

/* "THETA PHI V|H|1|2 [E0]" (degrees; the wave arrives from (THETA, PHI),
 * as OpenFDTD's planewave); 0 or -1 with a message. */
int fdtd_planewave_parse(fdtd_planewave *pw, const char *text, char *err, size_t n);

/* The model's plane-wave fields: direction, polarisation, the incident
 * line's cell (matched at the mean output frequency, or the waveform's),
 * the total-field box FDTD_TFSF_GAP cells inside the Huygens box (margin
 * cells from the faces).  Refuses a non-uniform mesh, periodic axes, a box
 * too small and any material outside the box (built model m).  0 or -1. */
int fdtd_planewave_setup(const fdtd_planewave *pw, const fdtd_input *in, const fdtd_spectra *sp, fdtd_model *m,
                         char *err, size_t n);

#endif
