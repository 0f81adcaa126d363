/* SPDX-License-Identifier: BSD-3-Clause */
/* The 3-D compressible-flow driver's view of a backend (hd/ns3.h): a
 * problem in host doubles, an opaque state, and a table built once per
 * backend and precision from ns3_impl.h. */
#ifndef HD_DRV_NS3_OPS_H
#define HD_DRV_NS3_OPS_H

#include <hd/ns3.h>

#include "backend.h"
#include "ns_ops.h"

typedef struct ns3_problem {
  long n[3];            /* cells per axis: n nodes on a periodic axis, else n + 1 (both faces) */
  double origin[3], length[3];
  int bc[6];            /* HD_NS_* per face: x lo, x hi, y lo, y hi, z lo, z hi */
  double sigma, sigma_side, beta, beta_side, sigma_in, mach; /* NSCBC, as ns_problem's */
  double u_inf[3];      /* the free stream (the faces' NSCBC constants, their relaxation targets) */
  int corners;          /* edges and corners: 1 coupled (Lodato et al.), 0 each face alone (as 2-D) */
  double gamma, pr, mu_ref, suth; /* suth < 0: constant viscosity */
  int viscous;
  int split;            /* inviscid fluxes in the split form (hd_ns3_split_flux), else the divergence form */
  int generic;          /* 1: the one-pass stage (the check for the two-pass one) */
  hd_ns3_ic ic;
  double dt;
  /* a block of a grid split over ranks along y and z (all 0: the whole
   * grid): its nodes and first node, its faces joined to neighbours (no
   * condition; their ghosts come from them), and the hook that exchanges
   * the halos of the five variables across them (0, or -1 on failure) */
  long block_nodes[3], block_off[3];
  int shared[6];
  int (*halo)(void *user, void *const q[5]);
  void *halo_user;
} ns3_problem;

/* Nodes per axis of the whole grid: n (periodic) or n + 1. */
static inline long ns3_nodes(const ns3_problem *p, int axis) {
  return p->bc[2 * axis] == HD_NS_PERIODIC ? p->n[axis] : p->n[axis] + 1;
}

/* Nodes per axis of this block. */
static inline long ns3_block_nodes(const ns3_problem *p, int axis) {
  return p->block_nodes[axis] ? p->block_nodes[axis] : ns3_nodes(p, axis);
}

typedef struct ns3_ops {
  const char *backend, *precision;
  size_t real_size;
  hd_status (*create)(hd_ctx *ctx, const ns3_problem *p, void **state);
  hd_status (*advance)(hd_ctx *ctx, void *state, long steps);
  /* HD_NS3_ROW values per row of nodes (j, k) of the block, rows in order j + k ny */
  hd_status (*row_sums)(hd_ctx *ctx, void *state, double *rows);
  /* rho, u, v, w, p, omega_x, omega_y, omega_z on the block's nodes, x fastest (any may be NULL) */
  hd_status (*fields)(hd_ctx *ctx, void *state, double *const out[8]);
  void (*destroy)(hd_ctx *ctx, void *state);
  int (*state_count)(void *state); /* checkpoints: the arrays of the state */
  hd_state_io_fn state_io;
} ns3_ops;

HD_DECLARE_OPS(ns3_ops, ns3_ops)

#endif
