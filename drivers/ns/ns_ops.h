/* SPDX-License-Identifier: BSD-3-Clause */
/* The compressible-flow driver's view of a backend: a problem in host
 * doubles, an opaque state, and a table built once per backend and
 * precision from ns_impl.h. */
#ifndef HD_DRV_NS_OPS_H
#define HD_DRV_NS_OPS_H

#include <hd/ns.h>

#include "backend.h"

typedef struct ns_problem {
  long n[2];           /* cells per axis */
  double origin[2], length[2];
  int bc[4];           /* HD_NS_* per face */
  double gamma, pr, mu_ref, suth, sigma, mach; /* mach: for the NSCBC relaxation */
  double sigma_side;   /* NSCBC relaxation of the faces the free stream runs along (< 0: as the others, with
                        * the free stream's Mach number: the form before issue 19) */
  double beta;         /* NSCBC transverse fraction kept (hd/nscbc.h) */
  double beta_side;    /* the same on the faces the free stream runs along (< 0: beta) */
  double sigma_in;     /* NSCBC on a supersonic inflow: its entering entropy and vorticity waves relaxed
                        * toward the free stream at sigma_in |u_n| / L (0: Poinsot-Lele's L2 = L3 = 0) */
  int viscous;
  int generic;         /* 1: the one-pass generic stage (the check for the tuned and two-pass ones) */
  hd_ns_ic ic;
  double dt;
  /* a block of a grid split over ranks (all 0: the whole grid): its
   * nodes and first node, its faces joined to neighbours, and the hook
   * that fills their ghost rows before every stage (0, or -1 on failure) */
  long block_nodes[2], block_off[2];
  int shared[4];
  int (*halo)(void *user, void *const q[4]);
  void *halo_user;
} ns_problem;

/* The NSCBC defaults for p->mach, measured on Degawa's vortex at Mach
 * 0.1, 0.5 and 1.1 (doc/validation.md): the faces the free stream runs
 * along relax with sigma_side and keep 1 - beta_side of their transverse
 * terms (a supersonic stream: more of both); a supersonic inflow relaxes
 * its entering entropy and vorticity waves with sigma_in. */
static inline void ns_nscbc_side_defaults(double mach, double *sigma_side, double *beta_side, double *sigma_in) {
  const int super = mach >= 1;
  *sigma_side = super ? 4.0 : 1.0;
  *beta_side = super ? 0.25 : 0.5;
  *sigma_in = 16.0;
}

static inline void ns_nscbc_defaults(ns_problem *p) {
  ns_nscbc_side_defaults(p->mach, &p->sigma_side, &p->beta_side, &p->sigma_in);
}

/* A face's NSCBC constants (hd/nscbc.h, hd/nscbc3.h): K = sigma (1 - M_n^2)
 * c / L, M_n the free stream's Mach number across the face (un; ut its
 * speed along it, len the box's length across); faces it runs along take
 * sigma_side and beta_side; a supersonic inflow relaxes its entering
 * entropy and vorticity waves at sigma_in / L.  sigma_side < 0: the
 * earlier K, every face with sigma and the free stream's Mach number
 * `mach`; beta_side < 0: beta there too. */
static inline void ns_nscbc_face(double sigma, double sigma_side, double beta, double beta_side, double sigma_in,
                                 double mach, double un, double ut, double len, double out[3]) {
  const int old = sigma_side < 0;
  const double n = old ? mach : un, t = old ? 0.0 : ut;
  const double m = n < 1 ? n : 1.0, s = n == 0 && t > 0 ? sigma_side : sigma;
  out[0] = s * (1.0 - m * m) / len;
  out[1] = n == 0 && t > 0 && beta_side >= 0 ? beta_side : beta;
  out[2] = !old && n >= 1 ? sigma_in / len : 0.0;
}

/* Nodes per axis of the whole grid: n (periodic) or n + 1. */
static inline long ns_nodes(const ns_problem *p, int axis) {
  return p->bc[2 * axis] == HD_NS_PERIODIC ? p->n[axis] : p->n[axis] + 1;
}

/* Nodes per axis of this block. */
static inline long ns_block_nodes(const ns_problem *p, int axis) {
  return p->block_nodes[axis] ? p->block_nodes[axis] : ns_nodes(p, axis);
}

#define NS_ROW 5

typedef struct ns_ops {
  const char *backend, *precision;
  size_t real_size;
  hd_status (*create)(hd_ctx *ctx, const ns_problem *p, void **state);
  hd_status (*advance)(hd_ctx *ctx, void *state, long steps);
  /* benchmarks: the same stages with the inner nodes alone (no boundary work) */
  hd_status (*advance_inner)(hd_ctx *ctx, void *state, long steps);
  /* mass and energy summed over the nodes (not yet times hx hy), max |p - p_inf| */
  hd_status (*sums)(hd_ctx *ctx, void *state, hd_ns_sums *out);
  /* the same per row of nodes (x order), NS_ROW values a row: mass,
   * energy, max |p - p_inf|, bad nodes, x index of the first bad one */
  hd_status (*row_sums)(hd_ctx *ctx, void *state, double *rows);
  /* rho, u, v, p, vorticity on the nodes, x fastest (any may be NULL) */
  hd_status (*fields)(hd_ctx *ctx, void *state, double *r, double *u, double *v, double *p, double *w);
  void (*destroy)(hd_ctx *ctx, void *state);
  int (*state_count)(void *state); /* checkpoints: the arrays of the state */
  hd_state_io_fn state_io;
} ns_ops;

HD_DECLARE_OPS(ns_ops, ns_ops)

#endif
