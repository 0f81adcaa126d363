/* SPDX-License-Identifier: BSD-3-Clause */
/* Time series files (CSV rows, .pvd frame lists) that continue across a
 * restart, byte for byte.
 *
 * A series is written into its hd_out as the run goes.  At each checkpoint
 * the content so far is published: copied, with the output's footer, to
 * TARGET.partial (atomically, like every output), and its length and CRC-32
 * go into the checkpoint; the target itself is replaced only by the complete
 * series at the end of the run, which then removes the .partial file, so a
 * run that fails leaves an earlier run's complete series in place.  A restart
 * starts the new output with that many bytes of TARGET.partial, or of TARGET
 * (a finished run's series, which begins with every checkpoint's), after
 * checking their CRC: rows up to the checkpoint are kept, rows written after
 * it dropped, new rows follow. */
#ifndef HD_DRV_SERIES_H
#define HD_DRV_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "output.h"

#ifdef __cplusplus
extern "C" {
#endif

/* TARGET.partial, the series published so far. */
void hd_series_partial(const char *target, char *path, size_t n);

/* Publish what o holds so far (length and CRC-32 to *bytes, *crc) and its
 * footer at o->path's .partial; o goes on collecting.  0, or -1 with a
 * message. */
int hd_series_publish(hd_out *o, uint64_t *bytes, uint32_t *crc, char *err, size_t n);

/* Start the empty output o with the first `bytes` bytes of `from`.partial,
 * or else of `from`, which must have CRC-32 `crc`.  0, or -1 with a message
 * naming the file (missing, shorter, or other content). */
int hd_series_resume(hd_out *o, const char *from, uint64_t bytes, uint32_t crc, char *err, size_t n);

#ifdef __cplusplus
}
#endif

#endif
