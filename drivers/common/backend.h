/* SPDX-License-Identifier: BSD-3-Clause */
/* Run-time backend choice for the drivers.
 *
 * Every driver links each backend configure enabled.  Backend code is
 * compiled once per backend and precision from one source (a two-line
 * wrapper per variant, see drivers/heat/), and exports a table of function
 * pointers named <module>_<backend>_<f|d>; this header names those tables
 * and picks one at run time. */
#ifndef HD_DRV_BACKEND_H
#define HD_DRV_BACKEND_H

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>

#include <hd/context.h>
#include <hd/error.h>
#include <stddef.h>

enum { HD_B_SERIAL = 0, HD_B_OPENMP = 1, HD_B_CUDA = 2, HD_B_COUNT = 3 };

/* --variant: hand-tuned kernels where a backend has them, or the generic
 * loops (the reference the tuned ones are tested against). */
enum { HD_VARIANT_AUTO = 0, HD_VARIANT_GENERIC = 1, HD_VARIANT_TUNED = 2 };

/* A backend state as arrays, for checkpoints: the name and size of array
 * k (host NULL), or a copy of it to (save) or from host memory. */
typedef hd_status (*hd_state_io_fn)(hd_ctx *ctx, void *state, int k, char name[16], uint64_t *bytes, void *host,
                                    int save);

HD_EXTERN_C_BEGIN

/* What every backend provides besides physics. */
struct hd_dev_swap; /* hd/memory.h */

typedef struct hd_core_ops {
  const char *name;
  int id;
  hd_status (*init)(hd_ctx *ctx, int device);
  void (*destroy)(hd_ctx *ctx);
  hd_status (*sync)(hd_ctx *ctx);
  hd_status (*mem_info)(hd_ctx *ctx, size_t *freeb, size_t *total);
  hd_status (*alloc)(hd_ctx *ctx, void **p, size_t bytes);
  void (*free)(hd_ctx *ctx, void *p);
  hd_status (*upload)(hd_ctx *ctx, void *dev, const void *host, size_t bytes);
  hd_status (*download)(hd_ctx *ctx, void *host, const void *dev, size_t bytes);
  /* Best-of-reps copy of `bytes` between two buffers, by the backend's own
   * loop and (CUDA) by cudaMemcpy, in bytes read plus written per second:
   * the bandwidth ceiling benchmarks are compared with. */
  hd_status (*copy_bandwidth)(hd_ctx *ctx, size_t bytes, int reps, double *bytes_per_s);
  /* strided copies between host and backend memory, or within backend
   * memory (hd_dev_copy_2d, kind HD_COPY_*): halo planes */
  hd_status (*copy_2d)(hd_ctx *ctx, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                       size_t rows, int kind);
  /* page-locked host memory (hd_pinned_alloc): halo staging buffers */
  hd_status (*pinned_alloc)(hd_ctx *ctx, void **p, size_t bytes);
  void (*pinned_free)(hd_ctx *ctx, void *p);
  int (*device_count)(void); /* GPUs this process sees (0 on CPU backends) */
  /* CUDA IPC (hd_ipc_export, hd_ipc_open, hd_ipc_close): halo planes read
   * straight from a neighbouring rank's device memory on the same node;
   * NULL on the CPU backends */
  hd_status (*ipc_export)(hd_ctx *ctx, const void *p, void *handle);
  hd_status (*ipc_open)(hd_ctx *ctx, const void *handle, void **p);
  void (*ipc_close)(hd_ctx *ctx, void *p);
  /* the exchange with such neighbours kept on the stream (hd_dev_signal,
   * hd_dev_wait, hd_dev_copy_2d_queued); NULL on the CPU backends */
  hd_status (*signal)(hd_ctx *ctx, unsigned long long *a, unsigned long long *b, unsigned long long value);
  hd_status (*wait)(hd_ctx *ctx, const unsigned long long *a, const unsigned long long *b, unsigned long long value);
  hd_status (*copy_2d_queued)(hd_ctx *ctx, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                              size_t rows);
  hd_status (*swap)(hd_ctx *ctx, const struct hd_dev_swap *s); /* all of that in one launch (hd_dev_swap_queued) */
} hd_core_ops;

extern const hd_core_ops hd_core_serial;
extern const hd_core_ops hd_core_openmp;
extern const hd_core_ops hd_core_cuda;

/* The core of backend id, NULL when this build lacks it. */
const hd_core_ops *hd_core_get(int id);
const char *hd_backend_name(int id);
/* id for "serial", "openmp", "cuda"; -1 for anything else. */
int hd_backend_parse(const char *name);
/* Space-separated list of the backends in this build. */
const char *hd_backends_built(void);

/* Initialise ctx on backend `want`, or with want < 0 on the fastest one that
 * works here (CUDA with a device, then OpenMP, then serial).  why gets a note
 * on the choice ("cuda: no CUDA device available; using openmp"). */
hd_status hd_backend_open(int want, int device, hd_ctx *ctx, const hd_core_ops **core,
                          char *why, size_t n);

HD_EXTERN_C_END

/* Inside a backend unit: the exported name of this unit's table. */
#if defined(HD_BACKEND_CUDA)
#define HD_BACKEND_TAG_ _cuda_
#elif defined(HD_BACKEND_OPENMP)
#define HD_BACKEND_TAG_ _openmp_
#else
#define HD_BACKEND_TAG_ _serial_
#endif
#define HD_OPS_NAME(prefix) HD_CAT(prefix, HD_CAT(HD_BACKEND_TAG_, HD_REAL_TAG))

/* Declarations of a module's six tables and its lookup function
 * <prefix>_get(backend, single), which is NULL for variants not built. */
#define HD_DECLARE_OPS(T, prefix)                                              \
  HD_EXTERN_C_BEGIN                                                            \
  extern const T prefix##_serial_d, prefix##_serial_f;                         \
  extern const T prefix##_openmp_d, prefix##_openmp_f;                         \
  extern const T prefix##_cuda_d, prefix##_cuda_f;                             \
  const T *prefix##_get(int backend, int single);                              \
  HD_EXTERN_C_END

#if defined(HD_HAVE_OPENMP)
#define HD_OPS_IF_OPENMP(x) &x
#else
#define HD_OPS_IF_OPENMP(x) NULL
#endif
#if defined(HD_HAVE_CUDA)
#define HD_OPS_IF_CUDA(x) &x
#else
#define HD_OPS_IF_CUDA(x) NULL
#endif

#define HD_DEFINE_OPS_GET(T, prefix)                                           \
  const T *prefix##_get(int backend, int single) {                             \
    static const T *const table[HD_B_COUNT][2] = {                             \
        {&prefix##_serial_d, &prefix##_serial_f},                              \
        {HD_OPS_IF_OPENMP(prefix##_openmp_d), HD_OPS_IF_OPENMP(prefix##_openmp_f)}, \
        {HD_OPS_IF_CUDA(prefix##_cuda_d), HD_OPS_IF_CUDA(prefix##_cuda_f)}};   \
    if (backend < 0 || backend >= HD_B_COUNT) return NULL;                     \
    return table[backend][single != 0];                                        \
  }

#endif
