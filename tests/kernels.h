/* SPDX-License-Identifier: BSD-3-Clause */
/* Loop and reduction kernels the core test runs on every backend (double
 * precision), built from kernels_impl.h like the drivers' tables. */
#ifndef HD_TEST_KERNELS_H
#define HD_TEST_KERNELS_H

#include <hd/heat.h>
#include <hd/poisson.h>
#include <hd/reduce.h>

#include "backend.h"

typedef struct testk_ops {
  const char *backend;
  /* out[c] = c + 1 for every cell c of the range (padded strides sy, sz) */
  hd_status (*mark3)(hd_ctx *ctx, double *out, hd_idx sy, hd_idx sz, hd_range3 r);
  hd_status (*mark2)(hd_ctx *ctx, double *out, hd_idx sy, hd_range3 r);
  hd_status (*mark1)(hd_ctx *ctx, double *out, hd_idx i0, hd_idx i1);
  hd_status (*mark_rows)(hd_ctx *ctx, double *out, hd_idx n, int rows); /* out[i + n row] = i + n row + 1 */
  hd_status (*stats)(hd_ctx *ctx, const double *f, const hd_grid *g, hd_range3 r, hd_stats *out);
  /* one heat step of t into tn (device memory) with the per-cell source q
   * and alternating adiabatic and fixed faces: the generic loop (tuned 0),
   * the backend's tuned kernel (1), or the tuned kernel box by box as an
   * overlapped halo step runs it, y and z faces shared (2), or the CUDA
   * vector kernel (3: q NULL, rows aligned, HD_ERR_ARG if they are not;
   * the scalar one where an x face is a halo); HD_ERR_UNSUPPORTED where
   * there is no such kernel.  Faces f with bit f of `halo` set are
   * HD_HEAT_HALO. */
  hd_status (*heat_q)(hd_ctx *ctx, int tuned, int halo, const double *t, double *tn, const double *q,
                      const hd_grid *g);
  /* `sweeps` red-black SOR sweeps (omega 1.5) on the (n+1)^2 natural
   * arrays u (in and out, host memory) and f: the generic loop (tuned 0)
   * or the tuned colour pass (HD_ERR_UNSUPPORTED where there is none) */
  hd_status (*sor)(hd_ctx *ctx, int tuned, hd_idx n, double *u, const double *f, long sweeps);
} testk_ops;

HD_EXTERN_C_BEGIN
extern const testk_ops testk_serial_d, testk_openmp_d, testk_cuda_d;
const testk_ops *testk_get(int backend);
HD_EXTERN_C_END

#endif
