/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/context.h - the execution context every host call takes.
 *
 * An hd_ctx holds what a backend needs between calls (CUDA device, stream,
 * reduction scratch, OpenMP thread count) and the message of the last
 * failure.  Its layout has plain types only, so one context can be made by a
 * CUDA unit and handed through C code compiled without CUDA.  Error state
 * lives here rather than in a global: each unit that includes a header-only
 * library gets its own copy of every static. */
#ifndef HD_CONTEXT_H
#define HD_CONTEXT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "platform.h"

typedef struct hd_ctx {
  int backend;          /* HD_BACKEND_ID of the unit that initialised it */
  int device;           /* CUDA device ordinal, -1 on CPU backends */
  int sm_count;         /* CUDA multiprocessors, 0 on CPU backends */
  int threads;          /* OpenMP threads; 0 = the OpenMP runtime default */
  int block[3];         /* CUDA block shape override; 0 = built-in default */
  int ipc_sized;        /* CUDA: round allocations up to HD_IPC_ALIGN bytes, so
                         * that none shares a block with another (CUDA IPC
                         * maps whole blocks; set for halo reads across ranks) */
  void *stream;         /* cudaStream_t; NULL = the default stream */
  void *scratch;        /* device scratch for reductions */
  size_t scratch_bytes;
  char device_name[128];
  hd_status status;     /* last failure */
  char msg[512];        /* its message, one line */
} hd_ctx;

/* Record a failure in ctx and return it, so callers can write
 * `return hd_fail(ctx, HD_ERR_ARG, "n = %ld must be positive", n);` */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 3, 4)))
#endif
HD_HOST_FN hd_status hd_fail(hd_ctx *ctx, hd_status s, const char *fmt, ...) {
  va_list ap;
  if (!ctx) return s;
  ctx->status = s;
  va_start(ap, fmt);
  vsnprintf(ctx->msg, sizeof ctx->msg, fmt, ap);
  va_end(ap);
  return s;
}

#if defined(HD_BACKEND_CUDA)
HD_HOST_FN hd_status hd_cuda_fail(hd_ctx *ctx, cudaError_t e, const char *what,
                                  const char *file, int line) {
  return hd_fail(ctx, e == cudaErrorMemoryAllocation ? HD_ERR_NOMEM : HD_ERR_DEVICE,
                 "CUDA error %s (%s) in %s at %s:%d", cudaGetErrorName(e),
                 cudaGetErrorString(e), what, file, line);
}

/* Evaluate a CUDA runtime call; on failure record it and return. */
#define HD_CUDA_TRY(ctx, expr)                                          \
  do {                                                                  \
    cudaError_t hd_e_ = (expr);                                         \
    if (hd_e_ != cudaSuccess)                                           \
      return hd_cuda_fail((ctx), hd_e_, #expr, __FILE__, __LINE__);     \
  } while (0)

HD_HOST_FN cudaStream_t hd_stream(const hd_ctx *ctx) {
  return (cudaStream_t)ctx->stream;
}

/* After every launch: the launch error now; with HD_DEBUG (configure
 * --enable-debug) also the kernel's own error, by waiting for it. */
HD_HOST_FN hd_status hd_check_launch(hd_ctx *ctx, const char *kernel,
                                     const char *file, int line) {
  cudaError_t e = cudaGetLastError();
#if defined(HD_DEBUG)
  if (e == cudaSuccess) e = cudaStreamSynchronize(hd_stream(ctx));
#endif
  if (e != cudaSuccess) return hd_cuda_fail(ctx, e, kernel, file, line);
  return HD_OK;
}
#endif

/* Prepare ctx for this unit's backend.  device is the CUDA ordinal (ignored
 * on CPU backends). */
HD_HOST_FN hd_status hd_ctx_init(hd_ctx *ctx, int device) {
  memset(ctx, 0, sizeof *ctx);
  ctx->backend = HD_BACKEND_ID;
  ctx->device = -1;
#if defined(HD_BACKEND_CUDA)
  {
    int count = 0;
    struct cudaDeviceProp prop;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
      return hd_fail(ctx, HD_ERR_DEVICE, "no CUDA device available (%s)",
                     e != cudaSuccess ? cudaGetErrorString(e) : "count is 0");
    if (device < 0 || device >= count)
      return hd_fail(ctx, HD_ERR_ARG, "CUDA device %d does not exist (%d present)",
                     device, count);
    HD_CUDA_TRY(ctx, cudaSetDevice(device));
    HD_CUDA_TRY(ctx, cudaGetDeviceProperties(&prop, device));
    HD_CUDA_TRY(ctx, cudaFree(0)); /* create the context now, not in a timing */
    ctx->device = device;
    ctx->sm_count = prop.multiProcessorCount;
    snprintf(ctx->device_name, sizeof ctx->device_name, "%.96s (sm_%d%d, %d SMs)",
             prop.name, prop.major, prop.minor, prop.multiProcessorCount);
  }
#elif defined(HD_BACKEND_OPENMP)
  (void)device;
  snprintf(ctx->device_name, sizeof ctx->device_name, "CPU, OpenMP, %d thread%s", omp_get_max_threads(),
           omp_get_max_threads() == 1 ? "" : "s");
#else
  (void)device;
  snprintf(ctx->device_name, sizeof ctx->device_name, "CPU, serial");
#endif
  return HD_OK;
}

/* Wait for all queued work; reports errors of kernels that already ran. */
HD_HOST_FN hd_status hd_ctx_sync(hd_ctx *ctx) {
#if defined(HD_BACKEND_CUDA)
  HD_CUDA_TRY(ctx, cudaStreamSynchronize(hd_stream(ctx)));
#else
  (void)ctx;
#endif
  return HD_OK;
}

/* Threads an OpenMP loop of this context uses. */
HD_HOST_FN int hd_ctx_threads(const hd_ctx *ctx) {
#if defined(HD_BACKEND_OPENMP)
  return ctx->threads > 0 ? ctx->threads : omp_get_max_threads();
#else
  (void)ctx;
  return 1;
#endif
}

#endif /* HD_CONTEXT_H */
