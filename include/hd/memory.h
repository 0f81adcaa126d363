/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/memory.h - host and device buffers.
 *
 * "Device" memory is GPU memory in a CUDA unit and ordinary (64-byte
 * aligned) host memory in a CPU unit, so the same driver code allocates,
 * uploads and downloads on every backend.  A mirror is a device view of a
 * host buffer: on CPU backends it is the host buffer itself and copies to and
 * from it cost nothing. */
#ifndef HD_MEMORY_H
#define HD_MEMORY_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"

#define HD_ALIGN 64

/* 64-byte aligned host allocation without POSIX (works in strict C99):
 * the original pointer is stored just below the aligned block. */
HD_HOST_FN void *hd_host_alloc(size_t bytes) {
  size_t extra = HD_ALIGN + sizeof(void *);
  unsigned char *raw;
  uintptr_t p;
  if (bytes > SIZE_MAX - extra) return NULL;
  raw = (unsigned char *)malloc(bytes + extra);
  if (!raw) return NULL;
  p = ((uintptr_t)(raw + sizeof(void *)) + (HD_ALIGN - 1)) & ~(uintptr_t)(HD_ALIGN - 1);
  memcpy((void *)(p - sizeof(void *)), &raw, sizeof raw);
  return (void *)p;
}

HD_HOST_FN void hd_host_free(void *p) {
  void *raw;
  if (!p) return;
  memcpy(&raw, (unsigned char *)p - sizeof(void *), sizeof raw);
  free(raw);
}

#define HD_IPC_ALIGN ((size_t)2 << 20) /* cudaMalloc sub-allocates below this */
HD_HOST_FN hd_status hd_dev_alloc(hd_ctx *ctx, void **p, size_t bytes) {
  *p = NULL;
  if (bytes == 0) bytes = 1;
#if defined(HD_BACKEND_CUDA)
  if (ctx->ipc_sized && bytes <= (size_t)-1 - HD_IPC_ALIGN) bytes = (bytes + HD_IPC_ALIGN - 1) / HD_IPC_ALIGN * HD_IPC_ALIGN;
  {
    cudaError_t e = cudaMalloc(p, bytes);
    if (e != cudaSuccess) {
      size_t freeb = 0, total = 0;
      cudaGetLastError(); /* clear the sticky allocation error */
      cudaMemGetInfo(&freeb, &total);
      *p = NULL;
      return hd_fail(ctx, HD_ERR_NOMEM,
                     "cannot allocate %.3g GB on the GPU (%.3g GB free of %.3g GB)",
                     bytes / 1e9, freeb / 1e9, total / 1e9);
    }
  }
#else
  *p = hd_host_alloc(bytes);
  if (!*p)
    return hd_fail(ctx, HD_ERR_NOMEM, "cannot allocate %.3g GB of host memory",
                   bytes / 1e9);
#endif
  return HD_OK;
}

HD_HOST_FN void hd_dev_free(hd_ctx *ctx, void *p) {
  (void)ctx;
  if (!p) return;
#if defined(HD_BACKEND_CUDA)
  cudaFree(p);
#else
  hd_host_free(p);
#endif
}

HD_HOST_FN hd_status hd_dev_upload(hd_ctx *ctx, void *dst, const void *src, size_t bytes) {
#if defined(HD_BACKEND_CUDA)
  HD_CUDA_TRY(ctx, cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
#else
  if (bytes > (size_t)PTRDIFF_MAX) return hd_fail(ctx, HD_ERR_ARG, "copy of %zu bytes is too large", bytes);
  if (dst != src && bytes) memcpy(dst, src, bytes);
#endif
  return HD_OK;
}

HD_HOST_FN hd_status hd_dev_download(hd_ctx *ctx, void *dst, const void *src, size_t bytes) {
#if defined(HD_BACKEND_CUDA)
  HD_CUDA_TRY(ctx, cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
#else
  if (bytes > (size_t)PTRDIFF_MAX) return hd_fail(ctx, HD_ERR_ARG, "copy of %zu bytes is too large", bytes);
  if (dst != src && bytes) memcpy(dst, src, bytes);
#endif
  return HD_OK;
}

/* Directions of hd_dev_copy_2d. */
enum { HD_COPY_TO_HOST = 0, HD_COPY_TO_DEVICE = 1, HD_COPY_ON_DEVICE = 2, HD_COPY_PEER = 3 };

/* Strided copy between host and device memory, or within device memory
 * (kind: HD_COPY_*; HD_COPY_PEER: between device memory of this process
 * and memory of another device or process mapped by hd_ipc_open): `rows`
 * runs of `width` bytes, `spitch` bytes apart in the source and `dpitch` in
 * the destination (a plane of a field, packed for a halo exchange or
 * unpacked after it).  Complete on return. */
HD_HOST_FN hd_status hd_dev_copy_2d(hd_ctx *ctx, void *dst, size_t dpitch, const void *src, size_t spitch,
                                    size_t width, size_t rows, int kind) {
#if defined(HD_BACKEND_CUDA)
  static const cudaMemcpyKind how[4] = {cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToDevice,
                                        cudaMemcpyDefault};
  if (kind < 0 || kind > 3) return hd_fail(ctx, HD_ERR_ARG, "copy_2d: unknown direction %d", kind);
  if (width && rows) {
    HD_CUDA_TRY(ctx, cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, rows, how[kind], hd_stream(ctx)));
    HD_CUDA_TRY(ctx, cudaStreamSynchronize(hd_stream(ctx)));
  }
#else
  size_t r;
  (void)ctx, (void)kind;
  for (r = 0; r < rows && width; ++r) memcpy((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
#endif
  return HD_OK;
}

/* Page-locked host memory where the backend has it (CUDA: copies to and
 * from it run at full speed and asynchronously), plain host memory else. */
HD_HOST_FN hd_status hd_pinned_alloc(hd_ctx *ctx, void **p, size_t bytes) {
  *p = NULL;
  if (bytes == 0) bytes = 1;
#if defined(HD_BACKEND_CUDA)
  if (cudaMallocHost(p, bytes) != cudaSuccess) {
    cudaGetLastError();
    *p = NULL;
    return hd_fail(ctx, HD_ERR_NOMEM, "cannot allocate %.3g GB of page-locked host memory", bytes / 1e9);
  }
#else
  if (!(*p = hd_host_alloc(bytes)))
    return hd_fail(ctx, HD_ERR_NOMEM, "cannot allocate %.3g GB of host memory", bytes / 1e9);
#endif
  return HD_OK;
}

HD_HOST_FN void hd_pinned_free(hd_ctx *ctx, void *p) {
  (void)ctx;
  if (!p) return;
#if defined(HD_BACKEND_CUDA)
  cudaFreeHost(p);
#else
  hd_host_free(p);
#endif
}

/* CUDA IPC: the ranks of one node read each other's halo planes directly.
 * hd_ipc_export writes the handle of the allocation that starts at p
 * (HD_IPC_BYTES opaque bytes, for another process); hd_ipc_open maps such
 * a handle here; hd_ipc_close unmaps.  cudaMalloc places small allocations
 * inside larger blocks and IPC maps the whole block, so p must come from
 * hd_dev_alloc with ctx->ipc_sized set (refused unless HD_IPC_ALIGN
 * aligned).  HD_ERR_UNSUPPORTED on CPU backends. */
#define HD_IPC_BYTES 64
HD_HOST_FN hd_status hd_ipc_export(hd_ctx *ctx, const void *p, void *handle) {
#if defined(HD_BACKEND_CUDA)
  cudaIpcMemHandle_t h;
  static_assert(sizeof h == HD_IPC_BYTES, "CUDA IPC handle size");
  if ((uintptr_t)p % HD_IPC_ALIGN)
    return hd_fail(ctx, HD_ERR_ARG, "CUDA IPC: %p is not the start of a whole block", p);
  HD_CUDA_TRY(ctx, cudaIpcGetMemHandle(&h, (void *)p));
  memcpy(handle, &h, sizeof h);
  return HD_OK;
#else
  (void)p, (void)handle;
  return hd_fail(ctx, HD_ERR_UNSUPPORTED, "CUDA IPC needs the cuda backend");
#endif
}
HD_HOST_FN hd_status hd_ipc_open(hd_ctx *ctx, const void *handle, void **p) {
  *p = NULL;
#if defined(HD_BACKEND_CUDA)
  {
    cudaIpcMemHandle_t h;
    memcpy(&h, handle, sizeof h);
    HD_CUDA_TRY(ctx, cudaIpcOpenMemHandle(p, h, cudaIpcMemLazyEnablePeerAccess));
  }
  return HD_OK;
#else
  (void)handle;
  return hd_fail(ctx, HD_ERR_UNSUPPORTED, "CUDA IPC needs the cuda backend");
#endif
}
HD_HOST_FN void hd_ipc_close(hd_ctx *ctx, void *p) {
  (void)ctx;
#if defined(HD_BACKEND_CUDA)
  if (p && cudaIpcCloseMemHandle(p) != cudaSuccess) cudaGetLastError();
#else
  (void)p;
#endif
}

/* A halo exchange between GPUs of one node that stays on the streams, with
 * no host waiting for a device: each side signals "my planes are final" by
 * writing a rising sequence number into a flag in the neighbour's memory
 * (mapped by hd_ipc_open), waits on its own flags, copies the neighbour's
 * planes, and signals again once it has read them.
 * hd_dev_signal: after the stream's earlier work, each non-NULL flag (this
 * GPU's memory or a peer's) gets `value`.  hd_dev_wait: the stream's later
 * work waits until each non-NULL flag (this GPU's memory) is at least
 * `value` (a one-thread kernel polls it).  hd_dev_copy_2d_queued: as
 * hd_dev_copy_2d, queued on the stream and not waited for; SM loads rather
 * than a copy engine, which is slow on planes of short rows from a peer.
 * The first two are HD_ERR_UNSUPPORTED on CPU backends, where the copy is
 * done on return. */
#if defined(HD_BACKEND_CUDA)
static __global__ HD_UNUSED void hd_signal_kernel(unsigned long long *a, unsigned long long *b,
                                                  unsigned long long value) {
  __threadfence_system();
  if (a) *(volatile unsigned long long *)a = value;
  if (b) *(volatile unsigned long long *)b = value;
}
static __global__ HD_UNUSED void hd_wait_kernel(const unsigned long long *a, const unsigned long long *b,
                                                unsigned long long value) {
  while (a && *(const volatile unsigned long long *)a < value) __nanosleep(100);
  while (b && *(const volatile unsigned long long *)b < value) __nanosleep(100);
  __threadfence_system();
}
template <typename W>
static __global__ HD_UNUSED void hd_copy_2d_kernel(char *dst, size_t dpitch, const char *src, size_t spitch,
                                                   size_t words, size_t rows) {
  const size_t total = words * rows, step = (size_t)gridDim.x * blockDim.x;
  size_t t;
  for (t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += step) {
    const size_t r = t / words, w = t - r * words;
    ((W *)(dst + r * dpitch))[w] = ((const W *)(src + r * spitch))[w];
  }
}
template <typename W>
HD_HOST_FN cudaError_t hd_copy_2d_launch(cudaStream_t s, void *dst, size_t dpitch, const void *src, size_t spitch,
                                         size_t width, size_t rows) {
  const size_t words = width / sizeof(W), blocks = (words * rows + 255) / 256;
  hd_copy_2d_kernel<W><<<(unsigned)(blocks < 1024 ? blocks : 1024), 256, 0, s>>>((char *)dst, dpitch,
                                                                               (const char *)src, spitch, words, rows);
  return cudaGetLastError();
}
#endif

/* A halo exchange with the neighbours on this node in one launch, for
 * planes small enough for one block, where the five launches of signal,
 * wait, copy, signal, wait cost more than the bytes: set the peers'
 * `ready` flags to seq, wait for this side's, copy every plane, set the
 * peers' `read` flags and wait for this side's (neither side then changes
 * a plane the other still reads).  NULL flags are skipped. */
#define HD_DEV_SWAP_COPIES 8
#define HD_DEV_SWAP_BYTES (256 * 1024) /* at most this many bytes in all */
typedef struct hd_dev_swap {
  unsigned long long *peer_ready[2], *peer_read[2];
  const unsigned long long *own_ready[2], *own_read[2];
  unsigned long long seq;
  int copies;
  char *dst[HD_DEV_SWAP_COPIES];
  const char *src[HD_DEV_SWAP_COPIES];
  size_t dpitch[HD_DEV_SWAP_COPIES], spitch[HD_DEV_SWAP_COPIES], width[HD_DEV_SWAP_COPIES], rows[HD_DEV_SWAP_COPIES];
} hd_dev_swap;

#if defined(HD_BACKEND_CUDA)
static __device__ HD_UNUSED void hd_swap_flags(unsigned long long *const *set, const unsigned long long *const *wait,
                                               unsigned long long seq) {
  int b;
  __threadfence_system();
  for (b = 0; b < 2; ++b)
    if (set[b]) *(volatile unsigned long long *)set[b] = seq;
  for (b = 0; b < 2; ++b)
    while (wait[b] && *(const volatile unsigned long long *)wait[b] < seq) __nanosleep(100);
  __threadfence_system();
}
template <typename W>
static __global__ HD_UNUSED void hd_swap_kernel(const hd_dev_swap s) {
  int c;
  if (threadIdx.x == 0) hd_swap_flags(s.peer_ready, s.own_ready, s.seq);
  __syncthreads();
  for (c = 0; c < s.copies; ++c) {
    const size_t words = s.width[c] / sizeof(W), total = words * s.rows[c];
    size_t t;
    for (t = threadIdx.x; t < total; t += blockDim.x) {
      const size_t r = t / words, w = t - r * words;
      ((W *)(s.dst[c] + r * s.dpitch[c]))[w] = ((const volatile W *)(s.src[c] + r * s.spitch[c]))[w];
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) hd_swap_flags(s.peer_read, s.own_read, s.seq);
}
#endif

HD_HOST_FN hd_status hd_dev_swap_queued(hd_ctx *ctx, const hd_dev_swap *s) {
#if defined(HD_BACKEND_CUDA)
  uintptr_t all = 0;
  size_t bytes = 0;
  int c;
  if (s->copies < 0 || s->copies > HD_DEV_SWAP_COPIES) return hd_fail(ctx, HD_ERR_ARG, "swap: %d copies", s->copies);
  for (c = 0; c < s->copies; ++c) {
    all |= (uintptr_t)s->dst[c] | (uintptr_t)s->src[c] | s->dpitch[c] | s->spitch[c] | s->width[c];
    bytes += s->width[c] * s->rows[c];
  }
  if (bytes > HD_DEV_SWAP_BYTES) return hd_fail(ctx, HD_ERR_ARG, "swap: %zu bytes are too many for one block", bytes);
  if (all % 8 == 0) hd_swap_kernel<unsigned long long><<<1, 512, 0, hd_stream(ctx)>>>(*s);
  else if (all % 4 == 0) hd_swap_kernel<unsigned><<<1, 512, 0, hd_stream(ctx)>>>(*s);
  else hd_swap_kernel<unsigned char><<<1, 512, 0, hd_stream(ctx)>>>(*s);
  HD_CUDA_TRY(ctx, cudaGetLastError());
  return HD_OK;
#else
  (void)s;
  return hd_fail(ctx, HD_ERR_UNSUPPORTED, "stream-ordered exchanges need the cuda backend");
#endif
}

HD_HOST_FN hd_status hd_dev_signal(hd_ctx *ctx, unsigned long long *a, unsigned long long *b,
                                   unsigned long long value) {
#if defined(HD_BACKEND_CUDA)
  hd_signal_kernel<<<1, 1, 0, hd_stream(ctx)>>>(a, b, value);
  HD_CUDA_TRY(ctx, cudaGetLastError());
  return HD_OK;
#else
  (void)a, (void)b, (void)value;
  return hd_fail(ctx, HD_ERR_UNSUPPORTED, "stream-ordered signals need the cuda backend");
#endif
}
HD_HOST_FN hd_status hd_dev_wait(hd_ctx *ctx, const unsigned long long *a, const unsigned long long *b,
                                 unsigned long long value) {
#if defined(HD_BACKEND_CUDA)
  hd_wait_kernel<<<1, 1, 0, hd_stream(ctx)>>>(a, b, value);
  HD_CUDA_TRY(ctx, cudaGetLastError());
  return HD_OK;
#else
  (void)a, (void)b, (void)value;
  return hd_fail(ctx, HD_ERR_UNSUPPORTED, "stream-ordered waits need the cuda backend");
#endif
}
HD_HOST_FN hd_status hd_dev_copy_2d_queued(hd_ctx *ctx, void *dst, size_t dpitch, const void *src, size_t spitch,
                                           size_t width, size_t rows) {
#if defined(HD_BACKEND_CUDA)
  const uintptr_t all = (uintptr_t)dst | (uintptr_t)src | dpitch | spitch | width;
  if (!width || !rows) return HD_OK;
  if (all % 16 == 0) HD_CUDA_TRY(ctx, hd_copy_2d_launch<uint4>(hd_stream(ctx), dst, dpitch, src, spitch, width, rows));
  else if (all % 8 == 0) HD_CUDA_TRY(ctx, hd_copy_2d_launch<uint2>(hd_stream(ctx), dst, dpitch, src, spitch, width, rows));
  else if (all % 4 == 0) HD_CUDA_TRY(ctx, hd_copy_2d_launch<unsigned>(hd_stream(ctx), dst, dpitch, src, spitch, width, rows));
  else HD_CUDA_TRY(ctx, cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, rows, cudaMemcpyDefault, hd_stream(ctx)));
  return HD_OK;
#else
  return hd_dev_copy_2d(ctx, dst, dpitch, src, spitch, width, rows, HD_COPY_ON_DEVICE);
#endif
}

/* Device to device. */
HD_HOST_FN hd_status hd_dev_copy(hd_ctx *ctx, void *dst, const void *src, size_t bytes) {
#if defined(HD_BACKEND_CUDA)
  HD_CUDA_TRY(ctx, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice,
                                   hd_stream(ctx)));
#else
  if (bytes > (size_t)PTRDIFF_MAX) return hd_fail(ctx, HD_ERR_ARG, "copy of %zu bytes is too large", bytes);
  if (dst != src && bytes) memcpy(dst, src, bytes);
#endif
  return HD_OK;
}

HD_HOST_FN hd_status hd_dev_zero(hd_ctx *ctx, void *p, size_t bytes) {
#if defined(HD_BACKEND_CUDA)
  HD_CUDA_TRY(ctx, cudaMemsetAsync(p, 0, bytes, hd_stream(ctx)));
#else
  /* the bound also tells GCC's object-size checks that bytes is sane */
  if (bytes > (size_t)PTRDIFF_MAX) return hd_fail(ctx, HD_ERR_ARG, "fill of %zu bytes is too large", bytes);
  if (bytes) memset(p, 0, bytes);
#endif
  return HD_OK;
}

/* Device view of a host buffer: allocates and uploads on CUDA, aliases on
 * CPU backends.  Release with hd_dev_unmirror. */
HD_HOST_FN hd_status hd_dev_mirror(hd_ctx *ctx, void **dev, void *host, size_t bytes) {
#if defined(HD_BACKEND_CUDA)
  hd_status s = hd_dev_alloc(ctx, dev, bytes);
  if (s != HD_OK) return s;
  s = hd_dev_upload(ctx, *dev, host, bytes);
  if (s != HD_OK) {
    hd_dev_free(ctx, *dev);
    *dev = NULL;
  }
  return s;
#else
  (void)ctx;
  (void)bytes;
  *dev = host;
  return HD_OK;
#endif
}

HD_HOST_FN void hd_dev_unmirror(hd_ctx *ctx, void *dev, void *host) {
  if (dev != host) hd_dev_free(ctx, dev);
}

/* Free and total device memory in bytes; CPU backends answer unsupported
 * (the caller knows its own host better than a portable header can). */
HD_HOST_FN hd_status hd_dev_mem_info(hd_ctx *ctx, size_t *freeb, size_t *total) {
#if defined(HD_BACKEND_CUDA)
  HD_CUDA_TRY(ctx, cudaMemGetInfo(freeb, total));
  return HD_OK;
#else
  *freeb = *total = 0;
  return hd_fail(ctx, HD_ERR_UNSUPPORTED, "no device memory on the %s backend",
                 HD_BACKEND_NAME);
#endif
}

/* Scratch of at least `bytes` in device memory, kept in the context. */
HD_HOST_FN hd_status hd_ctx_scratch(hd_ctx *ctx, size_t bytes, void **p) {
  if (ctx->scratch_bytes < bytes) {
    hd_status s;
    hd_dev_free(ctx, ctx->scratch);
    ctx->scratch = NULL;
    ctx->scratch_bytes = 0;
    s = hd_dev_alloc(ctx, &ctx->scratch, bytes);
    if (s != HD_OK) return s;
    ctx->scratch_bytes = bytes;
  }
  *p = ctx->scratch;
  return HD_OK;
}

/* Release what the context owns (reduction scratch).  Safe to call twice. */
HD_HOST_FN void hd_ctx_destroy(hd_ctx *ctx) {
  hd_dev_free(ctx, ctx->scratch);
  ctx->scratch = NULL;
  ctx->scratch_bytes = 0;
}

#endif /* HD_MEMORY_H */
