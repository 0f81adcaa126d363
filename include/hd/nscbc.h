/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/nscbc.h - Navier-Stokes characteristic boundary conditions (Poinsot &
 * Lele, J. Comput. Phys. 101, 1992; Degawa's case) for hd/ns.h.
 *
 * At a node on a face normal to axis a, with outward normal sign s (-1 at
 * the low face, +1 at the high one), normal velocity u_n and tangential u_t,
 * the wave amplitudes from one-sided second-order derivatives along a are
 *   L1 = (u_n - c)(p_n - rho c u_n,n)   L2 = u_n (c^2 rho_n - p_n)
 *   L3 = u_n u_t,n                      L5 = (u_n + c)(p_n + rho c u_n,n)
 * (L4 belongs to the third velocity, absent in 2-D).  Wave i with speed
 * lambda_i (u_n - c, u_n, u_n, u_n + c) enters the domain when
 * lambda_i s < 0; the face type fixes the entering ones:
 *
 *   supersonic-in    everything held (the node keeps its initial state)
 *   supersonic-out   all L from the interior
 *   nonreflecting    entering L2, L3 = 0, or relaxed toward the free stream
 *                    at eta = relax_in |u_n| (the driver: on a supersonic
 *                    inflow, where every wave enters and the face's state is
 *                    the upstream's: L2 = eta (c^2 (rho - 1) - (p - p_inf)),
 *                    L3 = eta (u_t - u_t,inf), an upwind difference against
 *                    the free stream that lets the vortex's far field go
 *                    instead of freezing it on the face); the entering
 *                    acoustic wave K (p - p_inf) - (1 - beta) T, K = sigma (1 - M^2) c / L
 *                    (Poinsot-Lele's pressure relaxation), T the wave's
 *                    transverse terms (for L1: u_t p_t + gamma p u_t,t
 *                    - rho c u_t u_n,t; L5 with + rho c): a vortex crossing
 *                    the face drives its acoustic characteristic through
 *                    them at first order in its strength, so dropping them
 *                    (beta = 1, the 1992 form) reflects it; beta = M keeps
 *                    that fraction (Yoo & Im 2007, Lodato et al. 2008).
 *                    K and beta are per face (the driver: M the free
 *                    stream's Mach number across the face; on faces it
 *                    runs along sigma = 1 and beta = 0.5, or 4 and 0.25 in
 *                    a supersonic stream, measured on Degawa's vortex,
 *                    doc/validation.md)
 *   subsonic-in      u, v, T held: entering acoustic = leaving acoustic,
 *                    L3 = 0, L2 = (gamma - 1)/2 (L1 + L5); momentum and
 *                    energy then follow the density (u, v, T exact)
 *   slip-wall        u_n = 0: entering acoustic = leaving, normal momentum held
 *   noslip-wall      u = v = 0: as slip, both momenta held (adiabatic:
 *                    the energy keeps its viscous terms)
 *   zero-gradient    the naive outflow, for comparison: after each stage
 *                    the face node copies its inner neighbour
 *
 * With the d's of Degawa, d1 = (L2 + (L5 + L1)/2)/c^2, d2 = (L5 + L1)/2,
 * d3 = (L5 - L1)/(2 rho c), d4 = L3, the normal inviscid terms become
 *   (d1, u_n d1 + rho d3, u_t d1 + rho d4,
 *    |u|^2/2 d1 + d2/(gamma - 1) + rho u_n d3 + rho u_t d4)
 * (normal and tangential momentum mapped back to x and y); they replace the
 * centred flux difference the interior formula used for that axis.
 * Tangential and viscous terms stay as the interior formula computes them
 * with the extrapolated ghosts.
 *
 * Corners: each face replaces its own axis' terms (x then y), then the
 * holds apply: supersonic inflow on either face holds everything, walls
 * hold their velocities, subsonic inflow u, v and T. */
#ifndef HD_NSCBC_H
#define HD_NSCBC_H

#include "ns.h"

/* Face node p (0 .. hd_ns_face_count - 1) in padded coordinates: the x faces
 * first (all their rows), then the y faces without the corners already
 * counted.  Faces shared with a neighbouring block have none (only y faces
 * are ever shared: blocks hold whole rows). */
HD_FN int hd_ns_y_faces(const hd_ns_args *a) {
  return a->bc[HD_NS_YLO] == HD_NS_PERIODIC ? 0 : !a->shared[HD_NS_YLO] + !a->shared[HD_NS_YHI];
}

HD_FN hd_idx hd_ns_face_count(const hd_ns_args *a) {
  const int xs = a->bc[HD_NS_XLO] != HD_NS_PERIODIC;
  const hd_idx nx = a->g.n[0], ny = a->g.n[1];
  return (xs ? 2 * ny : 0) + hd_ns_y_faces(a) * (xs ? nx - 2 : nx);
}

HD_FN void hd_ns_face_node(const hd_ns_args *a, hd_idx p, hd_idx *i, hd_idx *j) {
  const int xs = a->bc[HD_NS_XLO] != HD_NS_PERIODIC;
  const hd_idx nx = a->g.n[0], ny = a->g.n[1], cx = xs ? 2 * ny : 0;
  if (p < cx) {
    *i = p / ny ? nx : 1;
    *j = p % ny + 1;
  } else {
    const hd_idx q = p - cx, per = xs ? nx - 2 : nx;
    *i = q % per + (xs ? 2 : 1);
    *j = q / per || a->shared[HD_NS_YLO] ? ny : 1;
  }
}

/* Replace the normal inviscid terms of axis `ax` at face `side` in k;
 * the node's 3 x 3 neighbours' primitives as the right-hand side read them
 * (rows rs, rc0, rn below, at and above it, each at its column), the
 * second node inwards loaded here. */
HD_FN void hd_ns_characteristic(const hd_ns_args *a, hd_idx n, int ax, int side, const hd_ns_prim *rs,
                                const hd_ns_prim *rc0, const hd_ns_prim *rn, hd_real k[4]) {
  const int type = a->bc[2 * ax + side];
  const hd_idx st = a->g.stride[ax];
  const hd_real sgn = side ? HD_R(1) : HD_R(-1), rh = ax == 0 ? a->rhx : a->rhy;
  const hd_ns_prim w0 = rc0[0], wp = ax == 0 ? rc0[1] : rn[0], wm = ax == 0 ? rc0[-1] : rs[0];
  const hd_ns_prim w1 = side ? wm : wp, w2 = hd_ns_load(a, n - 2 * (side ? st : -st));
  const hd_real h2 = HD_R(0.5) * rh * sgn;
  const hd_real un = ax == 0 ? w0.u : w0.v, ut = ax == 0 ? w0.v : w0.u;
  const hd_real dr = h2 * (HD_R(3) * w0.r - HD_R(4) * w1.r + w2.r), dp = h2 * (HD_R(3) * w0.p - HD_R(4) * w1.p + w2.p);
  const hd_real dun = ax == 0 ? h2 * (HD_R(3) * w0.u - HD_R(4) * w1.u + w2.u)
                              : h2 * (HD_R(3) * w0.v - HD_R(4) * w1.v + w2.v);
  const hd_real dut = ax == 0 ? h2 * (HD_R(3) * w0.v - HD_R(4) * w1.v + w2.v)
                              : h2 * (HD_R(3) * w0.u - HD_R(4) * w1.u + w2.u);
  const hd_real c = hd_sqrt(w0.t), rc = w0.r * c;
  hd_real L1 = (un - c) * (dp - rc * dun), L2 = un * (c * c * dr - dp), L3 = un * dut, L5 = (un + c) * (dp + rc * dun);
  const int in1 = (un - c) * sgn < 0, in2 = un * sgn < 0, in5 = (un + c) * sgn < 0;
  hd_real fp[4], fm[4], d1, d2, d3, d4, dn[4];
  int q;
  if (type == HD_NS_NONREFLECTING) {
    /* transverse terms of the acoustic characteristics, centred along the
     * face (one-sided through the ghosts at corners) */
    const hd_ns_prim tp = ax == 0 ? rn[0] : rc0[1], tm = ax == 0 ? rs[0] : rc0[-1];
    const hd_real rt = HD_R(0.5) * (ax == 0 ? a->rhy : a->rhx);
    const hd_real pt = (tp.p - tm.p) * rt, utt = (ax == 0 ? tp.v - tm.v : tp.u - tm.u) * rt;
    const hd_real unt = (ax == 0 ? tp.u - tm.u : tp.v - tm.v) * rt;
    const hd_real common = ut * pt + a->gamma * w0.p * utt, cross = rc * ut * unt;
    const hd_real relax = a->relax[2 * ax + side] * c * (w0.p - a->p_inf), keep = HD_R(1) - a->beta[2 * ax + side];
    if (in1) L1 = relax - keep * (common - cross);
    if (in5) L5 = relax - keep * (common + cross);
    if (in2) {
      const hd_real eta = a->relax_in[2 * ax + side] * (un < 0 ? -un : un);
      L2 = eta * (c * c * (w0.r - HD_R(1)) - (w0.p - a->p_inf));
      L3 = eta * (ut - (ax == 0 ? a->v_inf : a->u_inf));
    }
  } else if (type == HD_NS_SUBSONIC_IN || type == HD_NS_SLIP_WALL || type == HD_NS_NOSLIP_WALL) {
    if (side) L1 = L5; /* the acoustic wave entering mirrors the leaving one */
    else L5 = L1;
    L3 = HD_R(0);
    L2 = type == HD_NS_SUBSONIC_IN ? HD_R(0.5) * (a->gamma - HD_R(1)) * (L1 + L5) : HD_R(0);
  }
  d1 = (L2 + HD_R(0.5) * (L5 + L1)) / (c * c);
  d2 = HD_R(0.5) * (L5 + L1);
  d3 = (L5 - L1) / (HD_R(2) * rc);
  d4 = L3;
  dn[0] = d1;
  dn[3] = HD_R(0.5) * (w0.u * w0.u + w0.v * w0.v) * d1 + d2 / (a->gamma - HD_R(1)) + w0.r * (un * d3 + ut * d4);
  dn[1 + ax] = un * d1 + w0.r * d3;
  dn[2 - ax] = ut * d1 + w0.r * d4;
  hd_ns_flux(a->gamma, &wp, ax, fp), hd_ns_flux(a->gamma, &wm, ax, fm);
  for (q = 0; q < 4; ++q) k[q] += HD_R(0.5) * (fp[q] - fm[q]) * rh - dn[q];
}

/* The right-hand side of face node (i, j) at offset n with its conditions
 * and holds applied, from its 3 x 3 neighbours' primitives (rows rs, rc0,
 * rn below, at and above it, each at its column). */
HD_FN void hd_ns_face_rhs(const hd_ns_args *a, hd_idx i, hd_idx j, hd_idx n, const hd_ns_prim *rs,
                          const hd_ns_prim *rc0, const hd_ns_prim *rn, hd_real k[4]) {
  int ax, hold_all = 0, hold_u = 0, hold_v = 0, hold_uvt = 0, q;
  hd_ns_rhs_rows(a, rs, rc0, rn, k);
  for (ax = 0; ax < 2; ++ax) {
    const hd_idx at = ax == 0 ? i : j, last = a->g.n[ax];
    int side, type;
    if (a->bc[2 * ax] == HD_NS_PERIODIC || (at != 1 && at != last)) continue;
    side = at == last;
    if (a->shared[2 * ax + side]) continue;
    type = a->bc[2 * ax + side];
    if (type == HD_NS_SUPERSONIC_IN) hold_all = 1;
    else if (type != HD_NS_ZERO_GRADIENT) hd_ns_characteristic(a, n, ax, side, rs, rc0, rn, k);
    if (type == HD_NS_SLIP_WALL || type == HD_NS_NOSLIP_WALL) {
      if (ax == 0 || type == HD_NS_NOSLIP_WALL) hold_u = 1;
      if (ax == 1 || type == HD_NS_NOSLIP_WALL) hold_v = 1;
    }
    if (type == HD_NS_SUBSONIC_IN) hold_uvt = 1;
  }
  if (hold_uvt) { /* u, v, T fixed: momentum and energy follow rho */
    const hd_ns_prim *c = rc0;
    k[1] = c->u * k[0], k[2] = c->v * k[0];
    k[3] = (c->t / (a->gamma * (a->gamma - HD_R(1))) + HD_R(0.5) * (c->u * c->u + c->v * c->v)) * k[0];
  }
  if (hold_u) k[1] = HD_R(0);
  if (hold_v) k[2] = HD_R(0);
  if (hold_all)
    for (q = 0; q < 4; ++q) k[q] = HD_R(0);
}

/* Right-hand side and update of face node p. */
HD_FN void hd_ns_face_pt(const hd_ns_args *a, hd_idx p) {
  hd_idx i, j, n;
  hd_real k[4];
  hd_ns_prim w[3][3];
  hd_ns_face_node(a, p, &i, &j);
  n = hd_grid_at(&a->g, i, j, 0);
  hd_ns_neighbours(a, n, w);
  hd_ns_face_rhs(a, i, j, n, &w[0][1], &w[1][1], &w[2][1], k);
  hd_ns_update(a, n, k);
}

/* Zero-gradient faces: copy the inner neighbour's stage output. */
HD_FN void hd_ns_zero_gradient_pt(const hd_ns_args *a, hd_idx p) {
  hd_idx i, j, si, sj;
  int q;
  hd_ns_face_node(a, p, &i, &j);
  si = i, sj = j;
  if (a->bc[HD_NS_XLO] == HD_NS_ZERO_GRADIENT && i == 1) si = 2;
  if (a->bc[HD_NS_XHI] == HD_NS_ZERO_GRADIENT && i == a->g.n[0]) si = i - 1;
  if (a->bc[HD_NS_YLO] == HD_NS_ZERO_GRADIENT && !a->shared[HD_NS_YLO] && j == 1) sj = 2;
  if (a->bc[HD_NS_YHI] == HD_NS_ZERO_GRADIENT && !a->shared[HD_NS_YHI] && j == a->g.n[1]) sj = j - 1;
  if (si == i && sj == j) return;
  for (q = 0; q < 4; ++q) a->out[q][hd_grid_at(&a->g, i, j, 0)] = a->out[q][hd_grid_at(&a->g, si, sj, 0)];
}

/* 32 threads a block: a face's few thousand nodes over as many
 * multiprocessors as they fill (each node's work is long; the x faces'
 * loads are a column's, one sector each). */
HD_DEFINE_FOR_1D_THREADS(hd_ns_face_loop, hd_ns_face_pt, hd_ns_args, 32u)
HD_DEFINE_FOR_1D(hd_ns_zero_gradient_loop, hd_ns_zero_gradient_pt, hd_ns_args)

/* The nodes the interior loops update: all but the faces with conditions. */
HD_HOST_FN hd_range3 hd_ns_inner(const hd_ns_args *a) {
  const int xs = a->bc[HD_NS_XLO] != HD_NS_PERIODIC, ys = a->bc[HD_NS_YLO] != HD_NS_PERIODIC;
  const int ylo = ys && !a->shared[HD_NS_YLO], yhi = ys && !a->shared[HD_NS_YHI];
  return hd_range3_make(xs ? 2 : 1, xs ? a->g.n[0] : a->g.n[0] + 1, ylo ? 2 : 1, yhi ? a->g.n[1] : a->g.n[1] + 1,
                        0, 1);
}

/* The stage's input ghosts (those of shared faces already filled by the
 * caller).  Only the face nodes read them unless an axis is periodic. */
HD_HOST_FN hd_status hd_ns_ghosts(hd_ctx *ctx, const hd_ns_args *a) {
  const int periodic[2] = {a->bc[HD_NS_XLO] == HD_NS_PERIODIC, a->bc[HD_NS_YLO] == HD_NS_PERIODIC};
  return hd_ns_fill_ghosts(ctx, (hd_real *const *)a->q, &a->g, periodic, a->shared);
}

/* Inner nodes (of hd_ns_inner) by the backend's fastest form (a->generic:
 * one pass). */
HD_HOST_FN hd_status hd_ns_interior_in(hd_ctx *ctx, const hd_ns_args *a, hd_range3 inner) {
  if (a->generic) return hd_ns_interior_loop(ctx, a, inner);
#if defined(HD_NS_HAS_TUNED)
  return hd_ns_march_loop(ctx, a, inner);
#else
  if (a->prims) { /* the primitives of the inner nodes and their neighbours */
    const hd_status s =
        hd_ns_prims_loop(ctx, a, hd_range3_make(inner.lo[0] - 1, inner.hi[0] + 1, inner.lo[1] - 1, inner.hi[1] + 1, 0, 1));
    return s == HD_OK ? hd_ns_interior_prims_loop(ctx, a, inner) : s;
  }
  return hd_ns_interior_loop(ctx, a, inner);
#endif
}

HD_HOST_FN hd_status hd_ns_interior(hd_ctx *ctx, const hd_ns_args *a) { return hd_ns_interior_in(ctx, a, hd_ns_inner(a)); }

/* The face nodes (after the ghosts). */
HD_HOST_FN hd_status hd_ns_faces(hd_ctx *ctx, const hd_ns_args *a) {
  const hd_idx faces = hd_ns_face_count(a);
  return faces ? hd_ns_face_loop(ctx, a, 0, faces) : HD_OK;
}

#if defined(HD_BACKEND_CUDA)
/* The tuned face step (CUDA): a block takes HD_NS_FACE_SEG nodes of one
 * face and its threads first compute the primitives of the 3 x (SEG + 2)
 * nodes around them in parallel, the ghosts among them extrapolated from
 * the rows here (and written, when asked, as hd_ns_ghosts would: the same
 * functions); then a node a thread, the face's right-hand side and update
 * from shared memory.  One launch instead of the ghosts and the faces, and
 * each thread's chain one conversion long instead of ten: the boundary
 * step runs beside the inner nodes and must end before they do. */
#ifndef HD_NS_FACE_SEG
#define HD_NS_FACE_SEG 32
#endif
#ifndef HD_NS_FACE_THREADS
#define HD_NS_FACE_THREADS 64
#endif
#if HD_NS_FACE_SEG > HD_NS_FACE_THREADS
#error "HD_NS_FACE_SEG: at most HD_NS_FACE_THREADS nodes a segment (a thread each)"
#endif

/* Variable c at padded node (i, j), ghosts computed (hd_ns_ghost_pt). */
HD_FN hd_real hd_ns_q_at(const hd_ns_args *a, int c, hd_idx i, hd_idx j) {
  const int px = a->bc[HD_NS_XLO] == HD_NS_PERIODIC, py = a->bc[HD_NS_YLO] == HD_NS_PERIODIC;
  if (j == 0 && !a->shared[HD_NS_YLO]) return hd_ns_yghost(&a->g, px, py, a->q[c], i, 0);
  if (j == a->g.n[1] + 1 && !a->shared[HD_NS_YHI]) return hd_ns_yghost(&a->g, px, py, a->q[c], i, 1);
  return hd_ns_ghost_src(&a->g, px, a->q[c], i, j * a->g.stride[1]);
}

/* Block b's face segment: axis ax of the face's normal, side, the face's
 * coordinate along ax, the first node along the face and the count. */
typedef struct hd_ns_face_seg {
  int ax, side;
  hd_idx at, t0, m;
} hd_ns_face_seg;

HD_FN hd_idx hd_ns_face_segs(const hd_ns_args *a, hd_idx *per_x, hd_idx *per_y) {
  const int xs = a->bc[HD_NS_XLO] != HD_NS_PERIODIC;
  const hd_idx ylen = xs ? a->g.n[0] - 2 : a->g.n[0];
  *per_x = xs ? (a->g.n[1] + HD_NS_FACE_SEG - 1) / HD_NS_FACE_SEG : 0;
  *per_y = (ylen + HD_NS_FACE_SEG - 1) / HD_NS_FACE_SEG;
  return 2 * *per_x + hd_ns_y_faces(a) * *per_y;
}

HD_FN hd_ns_face_seg hd_ns_face_seg_of(const hd_ns_args *a, hd_idx b) {
  const int xs = a->bc[HD_NS_XLO] != HD_NS_PERIODIC;
  hd_idx per_x, per_y, end;
  hd_ns_face_seg f;
  hd_ns_face_segs(a, &per_x, &per_y);
  if (b < 2 * per_x) {
    f.ax = 0, f.side = (int)(b / per_x), f.at = f.side ? a->g.n[0] : 1;
    f.t0 = 1 + b % per_x * HD_NS_FACE_SEG, end = a->g.n[1];
  } else {
    b -= 2 * per_x;
    f.ax = 1, f.side = (int)(b / per_y) || a->shared[HD_NS_YLO], f.at = f.side ? a->g.n[1] : 1;
    f.t0 = (xs ? 2 : 1) + b % per_y * HD_NS_FACE_SEG, end = xs ? a->g.n[0] - 1 : a->g.n[0];
  }
  f.m = end - f.t0 + 1 < HD_NS_FACE_SEG ? end - f.t0 + 1 : HD_NS_FACE_SEG;
  return f;
}

/* Segment b; tile: y faces rows across the face, x along it; x faces the
 * transpose, so that both give the right-hand side rows with x neighbours
 * at +-1. */
static __device__ __forceinline__ void hd_ns_face_tile(const hd_ns_args *a, hd_idx b, hd_ns_prim *tile,
                                                       int write_ghosts) {
  const hd_ns_face_seg f = hd_ns_face_seg_of(a, b);
  const hd_idx sy = a->g.stride[1], nx = a->g.n[0], ny = a->g.n[1];
  const int w = HD_NS_FACE_SEG + 2;
  const int tx = (int)threadIdx.x;
  hd_real q0[4], acc[4];
  hd_idx i = 0, j = 0, n = 0;
  int p;
  if (tx < f.m) { /* the node's old values in flight through the first phase */
    i = f.ax == 0 ? f.at : f.t0 + tx, j = f.ax == 0 ? f.t0 + tx : f.at;
    n = hd_grid_at(&a->g, i, j, 0);
    hd_ns_update_old(a, n, q0, acc);
  }
  for (p = tx; p < 3 * w; p += HD_NS_FACE_THREADS) {
    const int d = p / (int)w, u = p % (int)w;
    const hd_idx along = f.t0 - 1 + u, across = f.at + d - 1;
    const hd_idx pi = f.ax == 0 ? across : along, pj = f.ax == 0 ? along : across;
    hd_real q[4];
    int c;
    if (u > f.m + 1) continue;
    for (c = 0; c < 4; ++c) q[c] = hd_ns_q_at(a, c, pi, pj);
    tile[f.ax == 0 ? u * 3 + d : d * w + u] = hd_ns_node_of(a, q);
    if (write_ghosts && (pi == 0 || pi == nx + 1 || (pj == 0 && !a->shared[HD_NS_YLO]) ||
                         (pj == ny + 1 && !a->shared[HD_NS_YHI])))
      for (c = 0; c < 4; ++c) ((hd_real *)a->q[c])[pi + pj * sy] = q[c];
  }
  __syncthreads();
  if (tx < f.m) {
    const int u = tx + 1;
    const hd_ns_prim *rs = f.ax == 0 ? &tile[(u - 1) * 3 + 1] : &tile[u];
    const hd_ns_prim *rc0 = f.ax == 0 ? &tile[u * 3 + 1] : &tile[w + u];
    const hd_ns_prim *rn = f.ax == 0 ? &tile[(u + 1) * 3 + 1] : &tile[2 * w + u];
    hd_real k[4];
    hd_ns_face_rhs(a, i, j, n, rs, rc0, rn, k);
    hd_ns_update_from(a, n, k, q0, acc);
  }
}

/* A block a segment: the segments' chains are long beside the inner
 * nodes, and fewer blocks taking several in turn made the stage longer
 * (2048^2, H100: 6.2 / 13.6 / 24 % of it at 128 / 64 / 32 blocks). */
HD_KERNEL void __launch_bounds__(HD_NS_FACE_THREADS) hd_ns_face_tiles(HD_KPARAM(hd_ns_args) a, int write_ghosts) {
  __shared__ hd_ns_prim tile[3 * (HD_NS_FACE_SEG + 2)];
  hd_ns_face_tile(&a, blockIdx.x, tile, write_ghosts);
}

/* The face nodes and, with write_ghosts, the stage input's ghosts (not
 * with a periodic axis: those ghosts come first, for the inner nodes). */
HD_HOST_FN hd_status hd_ns_face_tiles_loop(hd_ctx *ctx, const hd_ns_args *a, int write_ghosts) {
  hd_idx per_x, per_y;
  const hd_idx segs = hd_ns_face_segs(a, &per_x, &per_y);
  if (segs <= 0) return HD_OK;
  hd_ns_face_tiles<<<(unsigned)segs, HD_NS_FACE_THREADS, 0, hd_stream(ctx)>>>(*a, write_ghosts);
  return hd_check_launch(ctx, "hd_ns_face_tiles", __FILE__, __LINE__);
}
#endif

/* The zero-gradient copies (after the inner and the face nodes). */
HD_HOST_FN hd_status hd_ns_zero_gradient(hd_ctx *ctx, const hd_ns_args *a) {
  int f, zg = 0;
  for (f = 0; f < 4; ++f) zg |= a->bc[f] == HD_NS_ZERO_GRADIENT;
  return zg ? hd_ns_zero_gradient_loop(ctx, a, 0, hd_ns_face_count(a)) : HD_OK;
}

/* One Runge-Kutta stage in order: ghosts, inner nodes, face nodes, the
 * zero-gradient copies. */
HD_HOST_FN hd_status hd_ns_stage(hd_ctx *ctx, const hd_ns_args *a) {
  hd_status s = hd_ns_ghosts(ctx, a);
  if (s == HD_OK) s = hd_ns_interior(ctx, a);
  if (s == HD_OK) s = hd_ns_faces(ctx, a);
  if (s == HD_OK) s = hd_ns_zero_gradient(ctx, a);
  return s;
}

#endif /* HD_NSCBC_H */
