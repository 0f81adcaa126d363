/* SPDX-License-Identifier: BSD-3-Clause */
/* A source waveform read from a file (waveform_file.c): the table of
 * hd/fdtd.h's HD_FDTD_TABLE. */
#ifndef HD_DRV_FDTD_WAVEFORM_FILE_H
#define HD_DRV_FDTD_WAVEFORM_FILE_H

#include <stddef.h>

/* Read `path`: a line a sample, its time in seconds and its value,
 * separated by blanks or a comma; '#' starts a comment; one header line
 * (say "time_s,value") may come first.  At least two samples, times
 * increasing.  *tab <- n times then n values (malloc'd; the caller frees
 * it), *n the count.  0, or -1 with "path:line: what is wrong" in err. */
int fdtd_waveform_read(const char *path, double **tab, long *n, char *err, size_t en);

#endif
