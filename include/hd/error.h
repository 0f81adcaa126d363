/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/error.h - status codes.  Library code never exits: every host call
 * returns an hd_status and leaves a one-line message in its hd_ctx. */
#ifndef HD_ERROR_H
#define HD_ERROR_H

#include "platform.h"

typedef enum hd_status {
  HD_OK = 0,
  HD_ERR_ARG,         /* invalid argument or input */
  HD_ERR_NOMEM,       /* host or device allocation failed, or too large */
  HD_ERR_DEVICE,      /* CUDA runtime or launch failure, no device */
  HD_ERR_IO,          /* file system */
  HD_ERR_UNSTABLE,    /* time step above the stability limit */
  HD_ERR_NONFINITE,   /* NaN or Inf found in a field */
  HD_ERR_UNSUPPORTED, /* not available in this build or backend */
  HD_ERR_NOCONV       /* an iterative solver missed its tolerance */
} hd_status;

HD_HOST_FN const char *hd_status_str(hd_status s) {
  switch (s) {
    case HD_OK: return "ok";
    case HD_ERR_ARG: return "invalid argument";
    case HD_ERR_NOMEM: return "out of memory";
    case HD_ERR_DEVICE: return "device error";
    case HD_ERR_IO: return "i/o error";
    case HD_ERR_UNSTABLE: return "unstable time step";
    case HD_ERR_NONFINITE: return "non-finite value";
    case HD_ERR_UNSUPPORTED: return "unsupported";
    case HD_ERR_NOCONV: return "no convergence";
  }
  return "unknown status";
}

#endif /* HD_ERROR_H */
