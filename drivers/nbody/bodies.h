/* SPDX-License-Identifier: BSD-3-Clause */
/* Bodies on the host, in double: the driver's initial conditions and
 * snapshots.  Reading a CSV body file is driver I/O, not physics. */
#ifndef HD_DRV_NBODY_BODIES_H
#define HD_DRV_NBODY_BODIES_H

#include <stddef.h>

typedef struct nbody_bodies {
  long n;
  double *x, *y, *z, *vx, *vy, *vz, *m; /* one block of 7 n doubles */
} nbody_bodies;

/* 0 on success, -1 when out of memory. */
int nbody_bodies_alloc(nbody_bodies *b, long n);
void nbody_bodies_free(nbody_bodies *b);

/* Bodies from a CSV file, one per line "x,y,z,vx,vy,vz,m"; blank lines and
 * lines starting with '#' are skipped, and a first line that is not seven
 * numbers is taken as a header.  Returns 0, or -1 with "file:line: reason"
 * in err. */
int nbody_read_csv(const char *path, nbody_bodies *b, char *err, size_t n);

/* The relative RMS difference sqrt(sum |a - a_d|^2 / sum |a_d|^2) of the
 * accelerations acc (ax, ay, az: 3 blocks of n) from the direct sum in
 * double (softening eps), over `sample` bodies spread over the indices. */
double nbody_sample_error(const nbody_bodies *b, const double *acc, long sample, double eps);

#endif
