/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/launch.h - one loop definition, three expansions.
 *
 * C has no lambdas, so a parallel loop is written as a point function and a
 * by-value argument struct, and a macro turns them into a host entry point:
 *
 *   HD_FN void scale_pt(const scale_args *a, hd_idx i) { a->y[i] *= a->s; }
 *   HD_DEFINE_FOR_1D(scale, scale_pt, scale_args)
 *   ... hd_status s = scale(&ctx, &args, 0, n);
 *
 * In a CUDA unit the macro emits a __global__ kernel (grid-stride loops,
 * 64-bit indices) and a wrapper that sizes the grid, launches and checks; in
 * an OpenMP unit a `parallel for` loop nest (static schedule); in a serial
 * unit the same loop nest without the pragma.  Point functions of one loop
 * must be independent: iterations run concurrently and in any order.
 * In CUDA units the struct holds device pointers.
 *
 *   1-D: fn(const T *a, hd_idx i)                 name(ctx, &a, i0, i1)
 *   2-D: fn(const T *a, hd_idx i, hd_idx j)       name(ctx, &a, range) (k ignored)
 *   3-D: fn(const T *a, hd_idx i, hd_idx j, hd_idx k)   name(ctx, &a, range)
 *   rows: fn(const T *a, hd_idx i, int row)      name(ctx, &a, n, rows)
 * i is the contiguous (fastest) index. */
#ifndef HD_LAUNCH_H
#define HD_LAUNCH_H

#include "context.h"
#include "index.h"

#if defined(HD_BACKEND_CUDA)

#define HD_KERNEL static __global__ HD_UNUSED
/* Kernel parameters whose address the point function takes stay in the
 * constant parameter space instead of being copied to local memory. */
#if defined(__CUDACC_VER_MAJOR__) && (__CUDACC_VER_MAJOR__ >= 12)
#define HD_KPARAM(T) const __grid_constant__ T
#else
#define HD_KPARAM(T) const T
#endif

/* Block shape: the context's override, else 256 threads laid out along the
 * contiguous axis first. */
HD_HOST_FN void hd_block_shape(const hd_ctx *ctx, const hd_idx n[3], dim3 *block) {
  if (ctx->block[0] > 0) {
    block->x = (unsigned)ctx->block[0];
    block->y = (unsigned)(ctx->block[1] > 0 ? ctx->block[1] : 1);
    block->z = (unsigned)(ctx->block[2] > 0 ? ctx->block[2] : 1);
  } else if (n[1] == 1 && n[2] == 1) {
    block->x = 256, block->y = 1, block->z = 1;
  } else if (n[2] == 1) {
    block->x = 32, block->y = 8, block->z = 1;
  } else {
    block->x = 32, block->y = 4, block->z = 2;
  }
}

HD_HOST_FN unsigned hd_grid_extent(hd_idx n, unsigned b, hd_idx cap) {
  hd_idx g = (n + b - 1) / b;
  return (unsigned)(g < cap ? g : cap);
}

/* Most blocks a loop launches: about two waves of full occupancy.  The
 * grid-stride loops give each thread several cells, which spreads the
 * per-thread setup (parameters, 64-bit index arithmetic) over many cells. */
HD_HOST_FN hd_idx hd_max_blocks(const hd_ctx *ctx, const dim3 *block) {
  const hd_idx threads = (hd_idx)block->x * block->y * block->z;
  return ctx->sm_count > 0 ? ctx->sm_count * (4096 / threads + 1) : 65535;
}

/* Grid covering r (grid-stride loops cover what the caps cut off);
 * returns 0 for an empty range. */
HD_HOST_FN int hd_launch_dims(const hd_ctx *ctx, const hd_range3 *r, dim3 *grid,
                              dim3 *block) {
  hd_idx n[3], cap;
  int d;
  for (d = 0; d < 3; ++d) {
    n[d] = r->hi[d] - r->lo[d];
    if (n[d] <= 0) return 0;
  }
  hd_block_shape(ctx, n, block);
  cap = hd_max_blocks(ctx, block);
  grid->x = hd_grid_extent(n[0], block->x, cap < 2147483647 ? cap : 2147483647);
  cap = cap / grid->x > 0 ? cap / grid->x : 1;
  grid->y = hd_grid_extent(n[1], block->y, cap < 65535 ? cap : 65535);
  cap = cap / grid->y > 0 ? cap / grid->y : 1;
  grid->z = hd_grid_extent(n[2], block->z, cap < 65535 ? cap : 65535);
  return 1;
}

#define HD_GRID_LOOP_3D(r, body)                                                   \
  do {                                                                             \
    const hd_idx hd_si_ = (hd_idx)blockDim.x * gridDim.x;                          \
    const hd_idx hd_sj_ = (hd_idx)blockDim.y * gridDim.y;                          \
    const hd_idx hd_sk_ = (hd_idx)blockDim.z * gridDim.z;                          \
    hd_idx i, j, k;                                                                \
    for (k = (r).lo[2] + (hd_idx)blockIdx.z * blockDim.z + threadIdx.z;            \
         k < (r).hi[2]; k += hd_sk_)                                               \
      for (j = (r).lo[1] + (hd_idx)blockIdx.y * blockDim.y + threadIdx.y;          \
           j < (r).hi[1]; j += hd_sj_)                                             \
        for (i = (r).lo[0] + (hd_idx)blockIdx.x * blockDim.x + threadIdx.x;        \
             i < (r).hi[0]; i += hd_si_) {                                         \
          body;                                                                    \
        }                                                                          \
  } while (0)

#define HD_DEFINE_FOR_3D(name, fn, T)                                              \
  HD_KERNEL void name##_hd_kernel(HD_KPARAM(T) a, hd_range3 r) {                   \
    HD_GRID_LOOP_3D(r, fn(&a, i, j, k));                                           \
  }                                                                                \
  HD_HOST_FN hd_status name(hd_ctx *ctx, const T *a, hd_range3 r) {                \
    dim3 grid, block;                                                              \
    if (!hd_launch_dims(ctx, &r, &grid, &block)) return HD_OK;                     \
    name##_hd_kernel<<<grid, block, 0, hd_stream(ctx)>>>(*a, r);                   \
    return hd_check_launch(ctx, #name, __FILE__, __LINE__);                        \
  }

#define HD_DEFINE_FOR_1D(name, fn, T) HD_DEFINE_FOR_1D_THREADS(name, fn, T, 256u)

/* The same with another default block size: short loops of long
 * iterations (boundary nodes) spread over more multiprocessors in
 * smaller blocks. */
#define HD_DEFINE_FOR_1D_THREADS(name, fn, T, threads)                             \
  HD_KERNEL void name##_hd_kernel(HD_KPARAM(T) a, hd_idx i0, hd_idx i1) {          \
    const hd_idx stride = (hd_idx)blockDim.x * gridDim.x;                          \
    hd_idx i;                                                                      \
    for (i = i0 + (hd_idx)blockIdx.x * blockDim.x + threadIdx.x; i < i1; i += stride) \
      fn(&a, i);                                                                   \
  }                                                                                \
  HD_HOST_FN hd_status name(hd_ctx *ctx, const T *a, hd_idx i0, hd_idx i1) {       \
    dim3 block(ctx->block[0] > 0 ? (unsigned)ctx->block[0] : (threads), 1, 1);     \
    if (i1 <= i0) return HD_OK;                                                    \
    name##_hd_kernel<<<hd_grid_extent(i1 - i0, block.x, hd_max_blocks(ctx, &block)), \
                       block, 0, hd_stream(ctx)>>>(*a, i0, i1);                    \
    return hd_check_launch(ctx, #name, __FILE__, __LINE__);                        \
  }

/* Rows of a stream: fn(a, i, row) for i in [0, n) and row in [0, rows), on
 * the GPU one thread an element over the whole grid (x along i, y the
 * row).  For kernels that only stream: the capped grid-stride loop of
 * HD_DEFINE_FOR_1D holds them to 60-75 % of this one's bandwidth (measured
 * on an H200, doc/performance.md). */
#define HD_ROWS_THREADS 256
#define HD_DEFINE_FOR_ROWS(name, fn, T)                                            \
  HD_KERNEL void __launch_bounds__(HD_ROWS_THREADS, 6) name##_hd_kernel(HD_KPARAM(T) a, hd_idx n, int rows) { \
    const hd_idx stride = (hd_idx)blockDim.x * gridDim.x;                          \
    int row;                                                                       \
    for (row = (int)blockIdx.y; row < rows; row += (int)gridDim.y) {               \
      hd_idx i;                                                                    \
      for (i = (hd_idx)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)  \
        fn(&a, i, row);                                                            \
    }                                                                              \
  }                                                                                \
  HD_HOST_FN hd_status name(hd_ctx *ctx, const T *a, hd_idx n, int rows) {         \
    dim3 block(HD_ROWS_THREADS, 1, 1);                                             \
    dim3 grid(hd_grid_extent(n, block.x, 2147483647), rows < 65535 ? (unsigned)rows : 65535u, 1); \
    if (n <= 0 || rows <= 0) return HD_OK;                                         \
    name##_hd_kernel<<<grid, block, 0, hd_stream(ctx)>>>(*a, n, rows);             \
    return hd_check_launch(ctx, #name, __FILE__, __LINE__);                        \
  }

/* Record the launches fn(ctx', arg) makes, ctx' a copy of ctx on a private
 * stream, as a CUDA graph to replay on ctx's stream (*exec, which the
 * caller destroys with cudaGraphExecDestroy).  For sequences of many small
 * launches that repeat unchanged: the replay costs one launch.  A debug
 * build (HD_DEBUG waits after every launch, which a capture forbids) has
 * no use for it. */
typedef hd_status (*hd_record_fn)(hd_ctx *ctx, void *arg);

HD_HOST_FN hd_status hd_graph_record(hd_ctx *ctx, hd_record_fn fn, void *arg, const char *what, void **exec) {
  cudaStream_t cs;
  cudaGraph_t g = NULL;
  cudaGraphExec_t e = NULL;
  cudaError_t ce;
  hd_ctx cap = *ctx;
  hd_status st;
  *exec = NULL;
  HD_CUDA_TRY(ctx, cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
  cap.stream = (void *)cs;
  ce = cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal);
  if (ce != cudaSuccess) {
    cudaStreamDestroy(cs);
    return hd_cuda_fail(ctx, ce, "cudaStreamBeginCapture", __FILE__, __LINE__);
  }
  st = fn(&cap, arg);
  ce = cudaStreamEndCapture(cs, &g); /* ends the capture even after a failure */
  cudaStreamDestroy(cs);
  if (st != HD_OK) {
    if (g) cudaGraphDestroy(g);
    return hd_fail(ctx, st, "%s", cap.msg);
  }
  if (ce == cudaSuccess) ce = cudaGraphInstantiate(&e, g, 0);
  if (g) cudaGraphDestroy(g);
  if (ce != cudaSuccess) return hd_cuda_fail(ctx, ce, what, __FILE__, __LINE__);
  *exec = (void *)e;
  return HD_OK;
}

#else /* CPU backends: OpenMP and serial share the loop nest */

/* The arguments are copied to a local whose address does not escape, so
 * the compiler knows stores through the struct's pointers cannot change the
 * struct: its fields stay in registers and the inner loop vectorises. */

#define HD_DEFINE_FOR_3D(name, fn, T)                                              \
  HD_HOST_FN hd_status name(hd_ctx *ctx, const T *a, hd_range3 r) {                \
    const T la = *a;                                                               \
    hd_idx k, j;                                                                   \
    (void)ctx;                                                                     \
    if (hd_range3_count(&r) == 0) return HD_OK;                                    \
    HD_OMP_FOR(collapse(2) schedule(static) num_threads(hd_ctx_threads(ctx)))      \
    for (k = r.lo[2]; k < r.hi[2]; ++k)                                            \
      for (j = r.lo[1]; j < r.hi[1]; ++j) {                                        \
        hd_idx i;                                                                  \
        for (i = r.lo[0]; i < r.hi[0]; ++i) fn(&la, i, j, k);                      \
      }                                                                            \
    return HD_OK;                                                                  \
  }

#define HD_DEFINE_FOR_1D_THREADS(name, fn, T, threads) HD_DEFINE_FOR_1D(name, fn, T)

#define HD_DEFINE_FOR_1D(name, fn, T)                                              \
  HD_HOST_FN hd_status name(hd_ctx *ctx, const T *a, hd_idx i0, hd_idx i1) {       \
    const T la = *a;                                                               \
    hd_idx i;                                                                      \
    (void)ctx;                                                                     \
    HD_OMP_FOR(schedule(static) num_threads(hd_ctx_threads(ctx)))                 \
    for (i = i0; i < i1; ++i) fn(&la, i);                                          \
    return HD_OK;                                                                  \
  }

#define HD_DEFINE_FOR_ROWS(name, fn, T)                                            \
  HD_HOST_FN hd_status name(hd_ctx *ctx, const T *a, hd_idx n, int rows) {         \
    const T la = *a;                                                               \
    hd_idx i;                                                                      \
    int row;                                                                       \
    (void)ctx;                                                                     \
    HD_OMP_FOR(collapse(2) schedule(static) num_threads(hd_ctx_threads(ctx)))      \
    for (row = 0; row < rows; ++row)                                               \
      for (i = 0; i < n; ++i) fn(&la, i, row);                                     \
    return HD_OK;                                                                  \
  }

#endif

/* 2-D loops are 3-D loops over a single k plane. */
#define HD_DEFINE_FOR_2D(name, fn, T)                                              \
  HD_FN void name##_hd_pt3(const T *a, hd_idx i, hd_idx j, hd_idx k) {             \
    (void)k;                                                                       \
    fn(a, i, j);                                                                   \
  }                                                                                \
  HD_DEFINE_FOR_3D(name##_hd_3d, name##_hd_pt3, T)                                 \
  HD_HOST_FN hd_status name(hd_ctx *ctx, const T *a, hd_range3 r) {                \
    r.lo[2] = 0;                                                                   \
    r.hi[2] = 1;                                                                   \
    return name##_hd_3d(ctx, a, r);                                                \
  }

#endif /* HD_LAUNCH_H */
