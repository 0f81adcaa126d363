/* SPDX-License-Identifier: BSD-3-Clause */
/* The cavity driver's view of a backend: a problem in host doubles, an
 * opaque state, and a table built once per backend and precision from
 * cavity_impl.h.  The Poisson solvers are also offered alone (tests,
 * benchmarks). */
#ifndef HD_DRV_CAVITY_OPS_H
#define HD_DRV_CAVITY_OPS_H

#include <hd/poisson.h>

#include "backend.h"

/* the --solver choices, in order; auto resolves to one of the others */
enum { CAVITY_SOR = 0, CAVITY_MG = 1, CAVITY_FFT = 2, CAVITY_AUTO = 3 };

/* The hooks of a grid split over ranks (NULL on one; 0, or -1 on failure):
 * cavity_problem says what each does. */
typedef struct cavity_hooks {
  int (*halo)(void *user, void *arr, long width);
  int (*max)(void *user, double *v, int count);
  int (*gather)(void *user, void *whole, long width);
  int (*alltoall)(void *user, const void *send, void *recv, const long *counts);
  int (*halo_rows)(void *user, void *arr, long width, long rows, int depth);
  int (*gather_rows)(void *user, void *whole, long width, long lo, long hi);
  void *user;
} cavity_hooks;

typedef struct cavity_problem {
  long n;          /* cells per side */
  double length, lid, nu, dt;
  int solver;      /* CAVITY_SOR, CAVITY_MG or CAVITY_FFT */
  double local;    /* local pseudo-time steps, fraction of each node's limit (0: dt everywhere) */
  double sfd_chi, sfd_delta; /* selective frequency damping: gain and filter width (chi 0: off) */
  hd_pois_opts pois;
  /* a block of rows [jlo, jhi) of a grid split over ranks (rows 0: the
   * whole grid), held with a ghost row each side; hooks that fill the
   * ghost rows of an array `width` values wide, take the maximum of count
   * values over the blocks, (multigrid, FFT on CUDA) fill every row of a
   * whole host array of n + 1 rows `width` values wide from the blocks
   * that own them, each block having filled its own, and (FFT on CPUs)
   * exchange counts[r] reals with every block r, shares in block order
   * (0, or -1 on failure).  Block r updates rows [part_lo[r], part_hi[r])
   * of `parts`; this one is `part`.  Multigrid's coarser levels: fill
   * the `depth` ghost rows each side of an array holding `rows` rows
   * besides them, and every row of a whole host array from the blocks,
   * this one having filled [lo, hi); levels of mg_gather cells a side or
   * fewer are gathered (0: the library's default). */
  long jlo, jhi, rows;
  int parts, part;
  const long *part_lo, *part_hi;
  cavity_hooks hook;
  long mg_gather;
} cavity_problem;

/* What a stretch of steps did. */
typedef struct cavity_progress {
  long steps;          /* steps done by this call */
  long iterations;     /* Poisson sweeps or cycles, summed */
  long checks;         /* Poisson residual reductions, summed */
  double change;       /* max|w(n+1) - w(n)| / (dt max|w|) at the last step */
  double residual;     /* last Poisson residual / max|f| */
} cavity_progress;

typedef struct cavity_ops {
  const char *backend, *precision;
  size_t real_size;
  hd_status (*create)(hd_ctx *ctx, const cavity_problem *p, void **state);
  /* up to `steps` steps; stops early (after the step) once the change
   * rate is <= steady (0: never) */
  hd_status (*advance)(hd_ctx *ctx, void *state, long steps, double steady, cavity_progress *out);
  /* psi, w, u, v on the (n + 1)^2 nodes, or a block's rows [jlo, jhi) (any may be NULL) */
  hd_status (*fields)(hd_ctx *ctx, void *state, double *psi, double *w, double *u, double *v);
  void (*destroy)(hd_ctx *ctx, void *state);
  /* One Poisson solve on n x n cells of width h: u (boundary kept) from f,
   * natural layout, with the time of the solve alone in *seconds (the
   * median of up to 5 solves of the same problem after a first, which
   * records the CUDA graphs). */
  hd_status (*poisson)(hd_ctx *ctx, long n, double h, int solver, const hd_pois_opts *o, const double *f,
                       double *u, hd_pois_result *res, double *seconds);
  int (*state_count)(void *state); /* checkpoints: the arrays of the state */
  hd_state_io_fn state_io;
} cavity_ops;

HD_DECLARE_OPS(cavity_ops, cavity_ops)

#endif
