/* SPDX-License-Identifier: BSD-3-Clause */
/* One run at a time in an output prefix: two runs writing PREFIX's files
 * at once would leave a mix of both and prune each other's checkpoints. */
#ifndef HD_DRV_PREFIX_LOCK_H
#define HD_DRV_PREFIX_LOCK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Take the lock on PREFIX (the hidden file .NAME.lock beside its
 * outputs, locked with fcntl, so it goes with the process however that
 * ends).  The descriptor; -1 with a message when another run holds it
 * (naming its process); -2 when there is no lock to take (the directory
 * is not writable, which the outputs then report, or the file system
 * does not lock). */
int hd_prefix_lock(const char *prefix, char *err, size_t n);

/* Give the lock back and remove its file. */
void hd_prefix_unlock(int fd, const char *prefix);

#ifdef __cplusplus
}
#endif

#endif
