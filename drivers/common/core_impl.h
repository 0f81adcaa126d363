/* SPDX-License-Identifier: BSD-3-Clause */
/* The per-backend core table (hd_core_<backend>), compiled once per backend
 * by core_serial.c, core_openmp.c and core_cuda.cu. */
#include "backend.h"
#include "sys.h"

#include <hd/launch.h>
#include <hd/memory.h>

typedef struct core_copy_args {
  double *dst;
  const double *src;
} core_copy_args;

HD_FN void core_copy_pt(const core_copy_args *a, hd_idx i) { a->dst[i] = a->src[i]; }
HD_FN void core_fill_pt(const core_copy_args *a, hd_idx i) {
  a->dst[i] = 1.0 + 1e-9 * (double)(i & 1023); /* never time on zeros */
}
HD_DEFINE_FOR_1D(core_copy, core_copy_pt, core_copy_args)
HD_DEFINE_FOR_1D(core_fill, core_fill_pt, core_copy_args)

static hd_status core_init(hd_ctx *ctx, int device) { return hd_ctx_init(ctx, device); }
static void core_destroy(hd_ctx *ctx) { hd_ctx_destroy(ctx); }
static hd_status core_sync(hd_ctx *ctx) { return hd_ctx_sync(ctx); }
static hd_status core_mem_info(hd_ctx *ctx, size_t *f, size_t *t) {
  return hd_dev_mem_info(ctx, f, t);
}

static hd_status core_copy_bandwidth(hd_ctx *ctx, size_t bytes, int reps, double *bps) {
  const hd_idx n = (hd_idx)(bytes / sizeof(double));
  void *a = NULL, *b = NULL;
  core_copy_args args;
  double best = 0.0;
  hd_status s;
  int r;
  *bps = 0.0;
  if ((s = hd_dev_alloc(ctx, &a, (size_t)n * sizeof(double))) != HD_OK) return s;
  if ((s = hd_dev_alloc(ctx, &b, (size_t)n * sizeof(double))) != HD_OK) goto done;
  args.dst = (double *)a;
  args.src = NULL;
  if ((s = core_fill(ctx, &args, 0, n)) != HD_OK) goto done;
  args.dst = (double *)b;
  if ((s = core_fill(ctx, &args, 0, n)) != HD_OK) goto done;
  args.src = (const double *)a;
  for (r = 0; r <= reps; ++r) { /* the first pass is a warm-up */
    double t0, t;
    if ((s = hd_ctx_sync(ctx)) != HD_OK) goto done;
    t0 = hd_wtime();
    if ((s = core_copy(ctx, &args, 0, n)) != HD_OK) goto done;
    if ((s = hd_ctx_sync(ctx)) != HD_OK) goto done;
    t = hd_wtime() - t0;
    if (r > 0 && (best == 0.0 || t < best)) best = t;
#if defined(HD_BACKEND_CUDA)
    /* the runtime's own device-to-device copy may beat a plain loop: the
     * ceiling is whichever is faster */
    t0 = hd_wtime();
    if ((s = hd_dev_copy(ctx, b, a, (size_t)n * sizeof(double))) != HD_OK) goto done;
    if ((s = hd_ctx_sync(ctx)) != HD_OK) goto done;
    t = hd_wtime() - t0;
    if (r > 0 && t < best) best = t;
#endif
  }
  *bps = best > 0 ? 2.0 * (double)n * sizeof(double) / best : 0.0;
done:
  hd_dev_free(ctx, a);
  hd_dev_free(ctx, b);
  return s;
}

static int core_device_count(void) {
#if defined(HD_BACKEND_CUDA)
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
#else
  return 0;
#endif
}

#if defined(HD_BACKEND_CUDA)
#define CORE_TABLE hd_core_cuda
#elif defined(HD_BACKEND_OPENMP)
#define CORE_TABLE hd_core_openmp
#else
#define CORE_TABLE hd_core_serial
#endif

#if defined(HD_BACKEND_CUDA)
#define CORE_IPC \
  hd_ipc_export, hd_ipc_open, hd_ipc_close, hd_dev_signal, hd_dev_wait, hd_dev_copy_2d_queued, hd_dev_swap_queued
#else
#define CORE_IPC NULL, NULL, NULL, NULL, NULL, NULL, NULL /* host memory: nothing to map */
#endif

const hd_core_ops CORE_TABLE = {HD_BACKEND_NAME, HD_BACKEND_ID,   core_init,
                                core_destroy,    core_sync,       core_mem_info,
                                hd_dev_alloc,    hd_dev_free,     hd_dev_upload,
                                hd_dev_download, core_copy_bandwidth, hd_dev_copy_2d,
                                hd_pinned_alloc, hd_pinned_free, core_device_count,
                                CORE_IPC};
