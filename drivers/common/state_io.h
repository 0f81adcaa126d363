/* SPDX-License-Identifier: BSD-3-Clause */
/* For the *_impl.h backend units: a backend state listed as named device
 * arrays, copied to and from host buffers for checkpoints (the
 * hd_state_io_fn of backend.h). */
#ifndef HD_DRV_STATE_IO_H
#define HD_DRV_STATE_IO_H

#include <stdio.h>
#include <string.h>

#include <hd/memory.h>

#include "checkpoint.h"

typedef struct hd_state_entry {
  const char *name;
  void *dev;   /* backend memory, or host memory when `host` is set */
  size_t bytes;
  int host;    /* a host-side scalar of the state (a step counter) */
  /* computed on the way (a list's keys, a field of its entries): io(ctx,
   * state, which, host buffer, save) instead of a copy */
  hd_status (*io)(hd_ctx *ctx, void *state, int which, void *host, int save);
  int which;
  void *owner; /* the state io acts on where not the one given (NULL: that one) */
} hd_state_entry;

static inline hd_status hd_state_entry_io(hd_ctx *ctx, void *state, const hd_state_entry *e, char name[16],
                                          uint64_t *bytes, void *host, int save) {
  snprintf(name, 16, "%s", e->name);
  *bytes = e->bytes;
  if (!host || !e->bytes) return HD_OK;
  if (e->io) return e->io(ctx, e->owner ? e->owner : state, e->which, host, save);
  if (e->host) {
    memcpy(save ? host : e->dev, save ? e->dev : host, e->bytes);
    return HD_OK;
  }
  return save ? hd_dev_download(ctx, host, e->dev, e->bytes) : hd_dev_upload(ctx, e->dev, host, e->bytes);
}

#endif
