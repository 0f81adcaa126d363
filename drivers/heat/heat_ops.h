/* SPDX-License-Identifier: BSD-3-Clause */
/* The heat driver's view of a backend: a problem in plain doubles, an
 * opaque state, and a table of operations built once per backend and
 * precision from heat_impl.h. */
#ifndef HD_DRV_HEAT_OPS_H
#define HD_DRV_HEAT_OPS_H

#include <hd/heat_solve.h>

#include "backend.h"
#include "xsum.h"

#define HEAT_MAX_REGIONS 64

typedef struct heat_region {
  int id, shape; /* material; 0 box (lo, hi per axis), 1 sphere (centre, radius) */
  double v[7];
} heat_region;

typedef struct heat_problem {
  int dim;
  long n[3];
  double length[3];
  double alpha, dt, q;
  double k;       /* conductivity (convective and flux faces; 0: 1) */
  int bc_kind[6]; /* HD_HEAT_*, per face */
  double bc_value[6]; /* fixed: temperature; convective: ambient temperature; flux: inflow */
  double bc_h[6];     /* convective: heat transfer coefficient */
  int nmat;           /* materials (hd/heat_media.h, drivers/heat/media.h); 0: a uniform medium */
  double mat_k[HD_HEAT_MAX_MATERIALS], mat_rhoc[HD_HEAT_MAX_MATERIALS], mat_q[HD_HEAT_MAX_MATERIALS];
  int nregion;
  heat_region region[HEAT_MAX_REGIONS];
  int init_kind; /* HD_HEAT_INIT_* */
  double base, value;
  double box_lo[3], box_hi[3], center[3], radius;
  int mode[3];
  long origin[3], cells[3]; /* a block of a distributed grid: see hd_heat_init */
  /* fields read from files (drivers/common/field_file.h), for this block,
     x fastest, or NULL: the initial temperature and the volumetric source
     Q (its cells), the material of each cell (its cells and a ghost layer,
     the nearest cell of the whole grid) */
  const double *init_values, *source_values, *map_values;
  double source_field_max; /* max |Q| / (rho c) of the source field over the whole grid (growth bound) */
  int balance;  /* count the heat through the faces (heat_ops.balance) */
  int variant;  /* HD_VARIANT_* */
  int block[3]; /* CUDA launch shape of the step kernels; 0 = default */
  int time_block; /* steps a sweep (hd/heat_blocked.h) where the step allows: uniform medium, no balance, no
                     halo faces; 0 or 1: one */
  /* a block of a distributed grid stepped in time blocks (advance_halo):
     time_block - 1 cells beyond each face shared with a neighbour, which
     the halo exchange fills time_block cells deep (hd_decomp_halo_deep);
     zeros: none */
  long overlap[6];
  /* implicit steps and steady states (hd/heat_implicit.h, hd/heat_solve.h) */
  int scheme;          /* HEAT_SCHEME_* */
  int solver;          /* HD_HEAT_SOLVER_* */
  double tol, tol_abs; /* stop at a residual tol x the first, or tol_abs */
  long max_iters;
  int presteps, inner; /* Chebyshev and PPCG: CG steps of the eigenvalue estimate; PPCG's inner steps */
  int face_mean;       /* the face conductance of two materials: 0 harmonic mean, 1 arithmetic (TeaLeaf's) */
  int init_materials;  /* the initial field: each cell its material's mat_t0 */
  double mat_t0[HD_HEAT_MAX_MATERIALS];
} heat_problem;

enum { HEAT_SCHEME_EXPLICIT = 0, HEAT_SCHEME_IMPLICIT = 1, HEAT_SCHEME_CN = 2, HEAT_SCHEME_STEADY = 3 };

/* The solves so far of an implicit run. */
typedef struct heat_solves {
  long count, iters;   /* solves, their iterations in all */
  long iters_last;     /* the last solve's */
  double res0, res;    /* its first and last residual norms */
} heat_solves;

/* The halo exchange of a shared grid, called after each step with the new
 * field's planes beside the shared faces final (heat_ops.advance_halo). */
typedef hd_status (*heat_halo_fn)(hd_ctx *ctx, void *arg);

typedef struct heat_ops {
  const char *backend, *precision;
  size_t real_size;
  int has_tuned; /* a hand-tuned kernel exists on this backend */
  hd_status (*create)(hd_ctx *ctx, const heat_problem *p, void **state);
  hd_status (*advance)(hd_ctx *ctx, void *state, long steps);
  /* steps on a block of a shared grid, each followed by halo(ctx, arg);
     shared marks the faces whose ghosts the halo fills.  The tuned CUDA
     step overlaps the exchange with the update of the cells away from
     those faces (two streams); elsewhere a step, then the exchange. */
  hd_status (*advance_halo)(hd_ctx *ctx, void *state, long steps, const int shared[6], heat_halo_fn halo,
                            void *arg);
  hd_status (*stats)(hd_ctx *ctx, void *state, hd_stats *out);
  /* statistics of each row of interior cells (y, z; y fastest), folded in
     x order with global cell offsets: n[1]*n[2] values */
  hd_status (*row_stats)(hd_ctx *ctx, void *state, hd_stats *rows);
  /* interior cells as doubles, x fastest: n[0]*n[1]*n[2] values */
  hd_status (*download)(hd_ctx *ctx, void *state, double *out);
  void (*destroy)(hd_ctx *ctx, void *state);
  /* the current field for halo exchanges (backend memory): its
     allocation's start, the overlap included; *lead elements from there to
     the ghost corner, *pitch elements a row */
  void *(*field)(void *state, long *lead, long *pitch);
  int (*state_count)(void *state); /* checkpoints: the arrays of the state */
  hd_state_io_fn state_io;
  /* the face values from now on (fixed: temperature, convective: ambient
     temperature, flux: inflow), for time tables; adiabatic and halo faces
     keep theirs */
  hd_status (*set_faces)(hd_ctx *ctx, void *state, const double value[6]);
  /* the temperature of interior cell ijk (0-based, of this block) */
  hd_status (*probe)(hd_ctx *ctx, void *state, const long ijk[3], double *out);
  /* with problem.balance: the heat content sum (rho c) V T, the heat in
     through each face so far (hd/heat_balance.h), both as exact sums, and
     the interior cells of each material (HD_HEAT_MAX_MATERIALS values;
     uniform: all in the first), whose sources add heat every step, and
     the heat a step of the source field adds (exact) */
  hd_status (*balance)(hd_ctx *ctx, void *state, hd_xsum *energy, hd_xsum faces[6], double *counts,
                       hd_xsum *field_source);
  /* with materials: sum V w_m T over the cells (w per material, exact)
     and the interior cells of each material (HD_HEAT_MAX_MATERIALS) */
  hd_status (*material_sums)(hd_ctx *ctx, void *state, const double *w, hd_xsum *sum, double *counts);
  /* an implicit run's solves so far */
  void (*solves)(void *state, heat_solves *out);
  /* an implicit run on a block of a shared grid: its solver's exchange of
     a vector's ghosts, its sums over every rank's rows, its multigrid's
     gather of level `dist` (hd/heat_solve.h) */
  void (*solver_comm)(void *state, hd_heat_halo_fn halo, hd_heat_rowsum_fn rowsum, hd_heat_gather_fn gather, int dist,
                      void *arg);
} heat_ops;

HD_DECLARE_OPS(heat_ops, heat_ops)

/* The checkpoint names of the face accumulators (--balance), face f =
 * 2 axis + side, and the face of a name (-1: not one). */
#define HEAT_FLOW_NAMES {"flow_xlo", "flow_xhi", "flow_ylo", "flow_yhi", "flow_zlo", "flow_zhi"}
int heat_flow_face(const char *name);

#endif
