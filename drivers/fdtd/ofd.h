/* SPDX-License-Identifier: BSD-3-Clause */
/* OpenFDTD's model files (.ofd, "OpenFDTD 4 x" header) read as hd-fdtd
 * input: each line is translated into hd-fdtd keys (doc/fdtd.md has the
 * table), so the usual checks and FILE:LINE messages apply. */
#ifndef HD_DRV_FDTD_OFD_H
#define HD_DRV_FDTD_OFD_H

#include "cli.h"

extern const cli_dialect fdtd_ofd_dialect;

/* The keys of the last translated file that hd-fdtd does not use, as one
 * line ("" when none). */
const char *fdtd_ofd_note(void);
void fdtd_ofd_add_note(const char *key, int line);

/* The line of the plotfar key a far field was set from (0: none); that far
 * field is dropped, with a note, where the model leaves it no room. */
int fdtd_ofd_farfield_line(void);

#endif
