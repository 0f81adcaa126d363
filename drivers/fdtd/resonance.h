/* SPDX-License-Identifier: BSD-3-Clause */
/* Resonances of a ringing record by the matrix pencil (resonance.c). */
#ifndef HD_DRV_FDTD_RESONANCE_H
#define HD_DRV_FDTD_RESONANCE_H

#include <stddef.h>

/* A mode: y(t) = amp e^{-decay t} cos(2 pi freq t + phase), t from the
 * record's first sample; q = pi freq / decay (a lossless mode's huge, of
 * either sign: rounding); err the relative change of
 * its complex frequency on two thirds of the record (a few 1e-9 for a
 * clean mode; large: not to be trusted). */
typedef struct fdtd_mode {
  double freq, q, amp, phase, err, decay;
} fdtd_mode;

/* The modes of y[0], y[stride], ... (n samples dt apart) with frequencies
 * in [flo, fhi], at most max, by frequency: their count, or -1 (bad
 * arguments, memory, no convergence). */
int fdtd_resonances(const double *y, long n, long stride, double dt, double flo, double fhi, fdtd_mode *out, int max);

/* `resonances = FLO FHI [T0]`: "" or a message. */
typedef struct fdtd_resonance_band {
  double flo, fhi, t0; /* t0 < 0: from the end of the sources' pulses */
  int on;
} fdtd_resonance_band;
int fdtd_resonance_parse(fdtd_resonance_band *b, const char *text, char *err, size_t n);

/* The modes of each probe's record (rec: steps rows of nrec, the probes
 * first), from step `first`: printed and written as PREFIX_resonances.csv.
 * 0, or -1 with a message. */
struct fdtd_input;
int fdtd_resonances_write(const fdtd_resonance_band *b, const struct fdtd_input *in, const double *rec, long nrec,
                          long steps, long first, double dt, const char *prefix, char *err, size_t n);

#endif
