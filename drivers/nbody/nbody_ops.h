/* SPDX-License-Identifier: BSD-3-Clause */
/* The N-body driver's view of a backend: initial bodies in host doubles, an
 * opaque state on the backend, and a table built once per backend and
 * precision from nbody_impl.h. */
#ifndef HD_DRV_NBODY_OPS_H
#define HD_DRV_NBODY_OPS_H

#include <hd/nbody.h>
#include <hd/nbody_tree.h>

#include "backend.h"

enum { NBODY_LEAPFROG = 0, NBODY_EULER = 1 };
enum { NBODY_VARIANT_AUTO = 0, NBODY_VARIANT_GENERIC = 1, NBODY_VARIANT_TUNED = 2 };
enum { NBODY_DIRECT = 0, NBODY_TREE = 1 };
/* A tree step's phases: the build's (hd/nbody_tree.h), the walk, the rest */
enum { NBODY_PHASE_WALK = HD_NBODY_TREE_PHASES, NBODY_PHASE_UPDATE, NBODY_PHASES };

typedef struct nbody_problem {
  long n;
  int periodic;   /* 2-D periodic unit square */
  int integrator; /* NBODY_LEAPFROG or NBODY_EULER */
  int variant;    /* NBODY_VARIANT_* */
  int splits;     /* CUDA: j-range splits of the tuned kernel, 0 = sized from the SMs */
  int method;     /* NBODY_DIRECT or NBODY_TREE (hd/nbody_tree.h: 3-D) */
  double theta;   /* the tree's opening angle */
  int leaf;       /* the tree's most bodies a leaf */
  double dt, eps;
  const double *x, *y, *z, *vx, *vy, *vz, *m; /* n each; z, vz zero in 2-D */
  /* Distributed runs (CPU backends): every rank holds all bodies but
   * computes forces and potentials of [lo, hi) only (the tree: of blocks
   * balanced by the walks' seconds); share_start begins filling in the
   * other ranks' parts of count arrays (an in-place allgather of n items
   * of elem bytes, bounds and part as hd_par_gather_start) and share_wait
   * completes it (0 or -1).  NULL: all bodies here. */
  long lo, hi;
  int rank, size;
  int (*share_start)(void **handle, void *const *arr, int count, size_t elem, long n, const long *bounds, int part);
  int (*share_wait)(void *handle);
} nbody_problem;

typedef struct nbody_ops {
  const char *backend, *precision;
  size_t real_size;
  int has_tuned;
  /* uploads the bodies and computes their accelerations */
  hd_status (*create)(hd_ctx *ctx, const nbody_problem *p, void **state);
  hd_status (*advance)(hd_ctx *ctx, void *state, long steps);
  hd_status (*accelerations)(hd_ctx *ctx, void *state); /* again, for timing */
  hd_status (*diagnostics)(hd_ctx *ctx, void *state, hd_nbody_diag *out);
  /* x, y, z, vx, vy, vz, ax, ay, az into out: 9 blocks of n doubles */
  hd_status (*download)(hd_ctx *ctx, void *state, double *out);
  void (*destroy)(hd_ctx *ctx, void *state);
  int (*state_count)(void *state); /* checkpoints: the arrays of the state */
  hd_state_io_fn state_io;
  /* tree: phase timing on or off; seconds[NBODY_PHASES] (or NULL) gets
   * the seconds since the last call */
  void (*timing)(void *state, int on, double *seconds);
} nbody_ops;

HD_DECLARE_OPS(nbody_ops, nbody_ops)

#endif
