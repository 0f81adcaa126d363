/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/heat.h - explicit heat conduction, dT/dt = alpha lap(T) + q.
 *
 * Cell-centred grid with one ghost layer (hd_grid, ghost = 1): cell (i, j, k)
 * of the interior, i in [1, nx], has its centre at x = (i - 1/2) dx.  Forward
 * Euler in time with the 5-point (2-D) or 7-point (3-D) Laplacian.
 *
 * Boundaries act through the ghost layer, as in the CUDA heat-conduction blog code it grew from: a ghost holds the
 * value that makes the face condition hold, so every interior cell is updated
 * by the same branch-free formula.  With the face value (ghost + inner)/2
 * and the outward gradient (ghost - inner)/dx:
 *   adiabatic  ghost = inner cell          (zero flux through the face)
 *   fixed Tb   ghost = 2 Tb - inner cell   (face value Tb)
 *   convective -k dT/dn = h (T_face - T_inf) (Robin; k the conductivity):
 *              ghost = a inner + b, a = (k/dx - h/2) / (k/dx + h/2),
 *              b = h T_inf / (k/dx + h/2)
 *   flux q     q'' flowing in through the face: ghost = inner + q dx / k
 * (hd_heat_face).  Every linear ghost with |a| <= 1 keeps the stability
 * limit below: the boundary row's diagonal stays within [-3, -1].
 * A step is the interior update followed by the ghosts of the new field
 * (a thin pass over the faces); the tuned CUDA kernels fuse the two, the
 * thread of a face cell writing its ghost.  Either way the end of a launch
 * is the grid-wide barrier that blog code was missing.
 *
 * Discrete eigenmodes.  With adiabatic faces cos(k pi x / L), with fixed
 * faces (Tb = 0) sin(k pi x / L), sampled at cell centres, are exact
 * eigenvectors of the discrete operator; one step multiplies them by
 *   G = 1 - sum_d 4 c_d sin^2(k_d pi / (2 n_d)),   c_d = alpha dt / dx_d^2,
 * (hd_heat_mode_factor).  Stability of forward Euler needs sum_d c_d <= 1/2,
 * i.e. dt <= dx^2 / (2 alpha dim) on a cubic mesh (hd_heat_dt_max). */
#ifndef HD_HEAT_H
#define HD_HEAT_H

#include "context.h"
#include "index.h"
#include "launch.h"
#include "real.h"
#include "reduce.h"

/* HD_HEAT_HALO: a face shared with a neighbouring block, whose ghosts the
 * caller's halo exchange fills; steps read them and never write them. */
enum { HD_HEAT_ADIABATIC = 0, HD_HEAT_FIXED = 1, HD_HEAT_HALO = 2, HD_HEAT_CONVECTIVE = 3, HD_HEAT_FLUX = 4 };

typedef struct hd_heat_bc {
  int kind;       /* HD_HEAT_ADIABATIC, _FIXED, _HALO, _CONVECTIVE or _FLUX */
  hd_real value;  /* face temperature for HD_HEAT_FIXED */
  hd_real a, b;   /* convective and flux faces: ghost = a inner + b (hd_heat_face) */
  hd_real h, dx;  /* convective: h; both: the cell width across the face (hd/heat_media.h) */
} hd_heat_bc;

typedef struct hd_heat_args {
  const hd_real *t;   /* field at step n, ghosts valid */
  hd_real *t_next;    /* field at step n + 1, ghosts written too */
  const hd_real *q;   /* per-cell source (same layout) or NULL */
  hd_grid g;          /* ghost = 1 */
  hd_real c[3];       /* alpha dt / dx_d^2, 0 for inactive axes */
  hd_real dtq;        /* dt * uniform source */
  hd_real dt;         /* multiplies q[] */
  hd_heat_bc bc[HD_NFACES];
} hd_heat_args;

/* ---- physics of one cell ------------------------------------------------ */

/* s - 2 t, one rounding either way (2 t is exact): one FMA instruction on
 * the GPU, where the compiler otherwise takes 2 t once and subtracts it
 * from each axis's sum (a fourth instruction a cell). */
HD_FN hd_real hd_heat_less2(hd_real s, hd_real t) {
#if defined(__CUDA_ARCH__)
  return fma(HD_R(-2), t, s);
#else
  return s - HD_R(2) * t;
#endif
}

HD_FN hd_real hd_heat_update_2d(hd_real t, hd_real xm, hd_real xp, hd_real ym,
                                hd_real yp, const hd_real c[3], hd_real src) {
  return t + c[0] * hd_heat_less2(xm + xp, t) + c[1] * hd_heat_less2(ym + yp, t) + src;
}

HD_FN hd_real hd_heat_update_3d(hd_real t, hd_real xm, hd_real xp, hd_real ym,
                                hd_real yp, hd_real zm, hd_real zp,
                                const hd_real c[3], hd_real src) {
  return t + c[0] * hd_heat_less2(xm + xp, t) + c[1] * hd_heat_less2(ym + yp, t) +
         c[2] * hd_heat_less2(zm + zp, t) + src;
}

/* Ghost value that imposes the face condition given the adjacent cell. */
HD_FN hd_real hd_heat_ghost(const hd_heat_bc *bc, hd_real inner) {
  return bc->kind == HD_HEAT_FIXED ? HD_R(2) * bc->value - inner
         : bc->kind >= HD_HEAT_CONVECTIVE ? bc->a * inner + bc->b
                                          : inner;
}

/* A face condition (kind HD_HEAT_*): value is the face temperature (fixed),
 * the ambient temperature (convective, h the heat transfer coefficient) or
 * the heat flux into the domain (flux); k is the conductivity of the cells
 * beside the face and dx their width across it. */
HD_HOST_FN hd_heat_bc hd_heat_face(int kind, double value, double h, double k, double dx) {
  hd_heat_bc bc;
  bc.kind = kind;
  bc.value = (hd_real)value;
  bc.a = HD_R(1), bc.b = HD_R(0);
  bc.h = (hd_real)h, bc.dx = (hd_real)dx;
  if (kind == HD_HEAT_CONVECTIVE) {
    const double g = k / dx;
    bc.a = (hd_real)((g - 0.5 * h) / (g + 0.5 * h));
    bc.b = (hd_real)(h * value / (g + 0.5 * h));
  } else if (kind == HD_HEAT_FLUX) {
    bc.b = (hd_real)(value * dx / k);
  }
  return bc;
}

/* hd_heat_ghost as one linear map, ghost = g[0] inner + g[1]: the same bits
 * (a fixed face's -inner + 2 value is exact before its one rounding, an
 * adiabatic face's inner + -0 exact), for kernels that must not branch on
 * the kind (hd/heat_blocked.h). */
HD_FN void hd_heat_ghost_map(const hd_heat_bc *bc, hd_real g[2]) {
  g[0] = bc->kind == HD_HEAT_FIXED ? HD_R(-1) : bc->kind >= HD_HEAT_CONVECTIVE ? bc->a : HD_R(1);
  g[1] = bc->kind == HD_HEAT_FIXED ? HD_R(2) * bc->value : bc->kind >= HD_HEAT_CONVECTIVE ? bc->b : HD_R(-0.0);
}

/* Store the ghost beside a face cell whose new value is `inner` (halo
 * ghosts are the caller's). */
HD_FN void hd_heat_set_ghost(const hd_heat_bc *bc, hd_real *at, hd_real inner) {
  if (bc->kind != HD_HEAT_HALO) *at = hd_heat_ghost(bc, inner);
}

HD_FN hd_real hd_heat_source(const hd_heat_args *a, hd_idx c) {
  return a->q ? a->dtq + a->dt * a->q[c] : a->dtq;
}

/* Write the ghosts of cell c (interior index i, j, k) from its value v into
 * out.  Cells away from faces write nothing. */
HD_FN void hd_heat_put_ghosts(const hd_heat_args *a, hd_real *out, hd_idx c,
                              hd_idx i, hd_idx j, hd_idx k, hd_real v) {
  const hd_grid *g = &a->g;
  if (i == 1) hd_heat_set_ghost(&a->bc[HD_XLO], out + c - 1, v);
  if (i == g->n[0]) hd_heat_set_ghost(&a->bc[HD_XHI], out + c + 1, v);
  if (g->dim >= 2) {
    if (j == 1) hd_heat_set_ghost(&a->bc[HD_YLO], out + c - g->stride[1], v);
    if (j == g->n[1]) hd_heat_set_ghost(&a->bc[HD_YHI], out + c + g->stride[1], v);
  }
  if (g->dim >= 3) {
    if (k == 1) hd_heat_set_ghost(&a->bc[HD_ZLO], out + c - g->stride[2], v);
    if (k == g->n[2]) hd_heat_set_ghost(&a->bc[HD_ZHI], out + c + g->stride[2], v);
  }
}

/* Interior updates.  The _q variants add the per-cell source array; two
 * variants keep the CPU inner loops free of the conditional load. */
HD_FN void hd_heat_point_2d(const hd_heat_args *a, hd_idx i, hd_idx j) {
  const hd_real *HD_RESTRICT t = a->t;
  const hd_idx sy = a->g.stride[1];
  const hd_idx c = i + j * sy;
  a->t_next[c] = hd_heat_update_2d(t[c], t[c - 1], t[c + 1], t[c - sy], t[c + sy], a->c, a->dtq);
}
HD_FN void hd_heat_point_2d_q(const hd_heat_args *a, hd_idx i, hd_idx j) {
  const hd_real *HD_RESTRICT t = a->t;
  const hd_idx sy = a->g.stride[1];
  const hd_idx c = i + j * sy;
  a->t_next[c] = hd_heat_update_2d(t[c], t[c - 1], t[c + 1], t[c - sy], t[c + sy], a->c,
                                   a->dtq + a->dt * a->q[c]);
}

HD_FN void hd_heat_point_3d(const hd_heat_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_real *HD_RESTRICT t = a->t;
  const hd_idx sy = a->g.stride[1], sz = a->g.stride[2];
  const hd_idx c = i + j * sy + k * sz;
  a->t_next[c] = hd_heat_update_3d(t[c], t[c - 1], t[c + 1], t[c - sy], t[c + sy], t[c - sz],
                                   t[c + sz], a->c, a->dtq);
}
HD_FN void hd_heat_point_3d_q(const hd_heat_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_real *HD_RESTRICT t = a->t;
  const hd_idx sy = a->g.stride[1], sz = a->g.stride[2];
  const hd_idx c = i + j * sy + k * sz;
  a->t_next[c] = hd_heat_update_3d(t[c], t[c - 1], t[c + 1], t[c - sy], t[c + sy], t[c - sz],
                                   t[c + sz], a->c, a->dtq + a->dt * a->q[c]);
}

/* Ghosts of a->t_next on the two faces normal to `axis`, for the line of
 * cells through (i, j, k) along that axis (its own coordinate ignored). */
HD_FN void hd_heat_face_pair(const hd_heat_args *a, int axis, hd_idx i, hd_idx j, hd_idx k) {
  const hd_idx s = a->g.stride[axis];
  const hd_idx lo = hd_grid_at(&a->g, axis == 0 ? 1 : i, axis == 1 ? 1 : j, axis == 2 ? 1 : k);
  const hd_idx hi = lo + (a->g.n[axis] - 1) * s;
  hd_heat_set_ghost(&a->bc[2 * axis], a->t_next + lo - s, a->t_next[lo]);
  hd_heat_set_ghost(&a->bc[2 * axis + 1], a->t_next + hi + s, a->t_next[hi]);
}
HD_FN void hd_heat_xfaces(const hd_heat_args *a, hd_idx i, hd_idx j, hd_idx k) {
  hd_heat_face_pair(a, 0, i, j, k);
}
HD_FN void hd_heat_yfaces(const hd_heat_args *a, hd_idx i, hd_idx j, hd_idx k) {
  hd_heat_face_pair(a, 1, i, j, k);
}
HD_FN void hd_heat_zfaces(const hd_heat_args *a, hd_idx i, hd_idx j, hd_idx k) {
  hd_heat_face_pair(a, 2, i, j, k);
}

/* ---- initial conditions ------------------------------------------------- */

enum {
  HD_HEAT_INIT_UNIFORM = 0, /* base everywhere */
  HD_HEAT_INIT_BOX,         /* value inside [lo, hi], base outside */
  HD_HEAT_INIT_SPHERE,      /* value within radius of center, base outside */
  HD_HEAT_INIT_COSINE,      /* base + value * prod cos(k pi x / L): adiabatic mode */
  HD_HEAT_INIT_SINE         /* base + value * prod sin(k pi x / L): fixed mode */
};

typedef struct hd_heat_init {
  int kind;
  hd_real base, value;
  hd_real lo[3], hi[3];      /* box corners */
  hd_real center[3], radius; /* sphere */
  int mode[3];               /* wave numbers k_d */
  hd_real length[3];         /* domain size L_d */
  /* A block of a larger grid (distributed runs): the global index of its
   * first cell and the global cell counts; zeros mean the grid is whole. */
  hd_idx origin[3], cells[3];
} hd_heat_init;

typedef struct hd_heat_init_args {
  hd_real *t;
  hd_grid g;
  hd_heat_init ic;
} hd_heat_init_args;

/* Initial temperature at a point x (physical coordinates). */
HD_FN hd_real hd_heat_initial_value(const hd_heat_init *ic, int dim, const hd_real x[3]) {
  const hd_real pi = HD_R(3.14159265358979323846);
  hd_real p = HD_R(1), r2 = HD_R(0);
  int d, inside = 1;
  switch (ic->kind) {
    case HD_HEAT_INIT_BOX:
      for (d = 0; d < dim; ++d) inside = inside && x[d] >= ic->lo[d] && x[d] <= ic->hi[d];
      return inside ? ic->value : ic->base;
    case HD_HEAT_INIT_SPHERE:
      for (d = 0; d < dim; ++d) r2 += (x[d] - ic->center[d]) * (x[d] - ic->center[d]);
      return r2 <= ic->radius * ic->radius ? ic->value : ic->base;
    case HD_HEAT_INIT_COSINE:
    case HD_HEAT_INIT_SINE:
      for (d = 0; d < dim; ++d) {
        hd_real arg = (hd_real)ic->mode[d] * pi * x[d] / ic->length[d];
        p *= ic->kind == HD_HEAT_INIT_COSINE ? hd_cos(arg) : hd_sin(arg);
      }
      return ic->base + ic->value * p;
    default:
      return ic->base;
  }
}

HD_FN void hd_heat_init_point(const hd_heat_init_args *a, hd_idx i, hd_idx j, hd_idx k) {
  const hd_grid *g = &a->g;
  const hd_idx *o = a->ic.origin, *c = a->ic.cells;
  hd_real x[3];
  x[0] = ((hd_real)(i - 1 + o[0]) + HD_R(0.5)) * a->ic.length[0] / (hd_real)(c[0] ? c[0] : g->n[0]);
  x[1] = ((hd_real)(j - (g->dim >= 2) + o[1]) + HD_R(0.5)) * a->ic.length[1] / (hd_real)(c[1] ? c[1] : g->n[1]);
  x[2] = ((hd_real)(k - (g->dim >= 3) + o[2]) + HD_R(0.5)) * a->ic.length[2] / (hd_real)(c[2] ? c[2] : g->n[2]);
  a->t[hd_grid_at(g, i, j, k)] = hd_heat_initial_value(&a->ic, g->dim, x);
}

/* ---- scheme constants ---------------------------------------------------- */

/* Largest stable forward-Euler step: sum_d alpha dt / dx_d^2 <= 1/2. */
HD_FN double hd_heat_dt_max(double alpha, const double dx[3], int dim) {
  double s = 0.0;
  int d;
  for (d = 0; d < dim; ++d) s += 1.0 / (dx[d] * dx[d]);
  return 0.5 / (alpha * s);
}

/* Per-step amplification of the discrete eigenmode with wave numbers
 * mode[d] on n[d] cells (either family, cosine or sine). */
HD_FN double hd_heat_mode_factor(const double c[3], const int mode[3], const hd_idx n[3],
                                 int dim) {
  const double pi = 3.14159265358979323846;
  double g = 1.0;
  int d;
  for (d = 0; d < dim; ++d) {
    double s = sin(mode[d] * pi / (2.0 * (double)n[d]));
    g -= 4.0 * c[d] * s * s;
  }
  return g;
}

/* ---- loops and host entry points ---------------------------------------- */

HD_DEFINE_FOR_2D(hd_heat_step_2d, hd_heat_point_2d, hd_heat_args)
HD_DEFINE_FOR_2D(hd_heat_step_2d_q, hd_heat_point_2d_q, hd_heat_args)
HD_DEFINE_FOR_3D(hd_heat_step_3d, hd_heat_point_3d, hd_heat_args)
HD_DEFINE_FOR_3D(hd_heat_step_3d_q, hd_heat_point_3d_q, hd_heat_args)
HD_DEFINE_FOR_3D(hd_heat_xfaces_loop, hd_heat_xfaces, hd_heat_args)
HD_DEFINE_FOR_3D(hd_heat_yfaces_loop, hd_heat_yfaces, hd_heat_args)
HD_DEFINE_FOR_3D(hd_heat_zfaces_loop, hd_heat_zfaces, hd_heat_args)
HD_DEFINE_FOR_3D(hd_heat_init_loop, hd_heat_init_point, hd_heat_init_args)

/* Fill a's scheme constants for time step dt, thermal diffusivity alpha and
 * cell sizes dx; refuses a step above the stability limit. */
HD_HOST_FN hd_status hd_heat_setup(hd_ctx *ctx, hd_heat_args *a, const hd_grid *g,
                                   double alpha, double dt, const double dx[3],
                                   double q) {
  double dtmax;
  int d;
  if (g->dim < 2 || g->dim > 3 || g->ghost != 1)
    return hd_fail(ctx, HD_ERR_ARG, "heat: grid must be 2-D or 3-D with one ghost layer");
  if (!(alpha > 0.0))
    return hd_fail(ctx, HD_ERR_ARG, "heat: alpha = %g must be positive", alpha);
  for (d = 0; d < g->dim; ++d)
    if (!(dx[d] > 0.0))
      return hd_fail(ctx, HD_ERR_ARG, "heat: cell size dx[%d] = %g must be positive", d, dx[d]);
  if (!(dt > 0.0))
    return hd_fail(ctx, HD_ERR_ARG, "heat: dt = %g must be positive", dt);
  dtmax = hd_heat_dt_max(alpha, dx, g->dim);
  if (dt > dtmax)
    return hd_fail(ctx, HD_ERR_UNSTABLE,
                   "heat: dt = %g exceeds the explicit stability limit %g "
                   "(alpha = %g, sum alpha dt/dx^2 must be <= 1/2)", dt, dtmax, alpha);
  a->g = *g;
  for (d = 0; d < 3; ++d) a->c[d] = d < g->dim ? (hd_real)(alpha * dt / (dx[d] * dx[d])) : HD_R(0);
  a->dt = (hd_real)dt;
  a->dtq = (hd_real)(dt * q);
  return HD_OK;
}

/* Set the ghosts of a->t_next from its interior and the face conditions:
 * one thin loop per axis, over the face cells only. */
HD_HOST_FN hd_status hd_heat_fill_ghosts(hd_ctx *ctx, const hd_heat_args *a) {
  const hd_range3 r = hd_grid_interior(&a->g);
  hd_range3 f = r;
  hd_status s;
  f.hi[0] = f.lo[0] + 1;
  if ((s = hd_heat_xfaces_loop(ctx, a, f)) != HD_OK) return s;
  f = r;
  f.hi[1] = f.lo[1] + 1;
  if ((s = hd_heat_yfaces_loop(ctx, a, f)) != HD_OK) return s;
  if (a->g.dim < 3) return HD_OK;
  f = r;
  f.hi[2] = f.lo[2] + 1;
  return hd_heat_zfaces_loop(ctx, a, f);
}

/* One step from a->t into a->t_next: the interior update, a pure stencil
 * that CPU compilers vectorise, then the ghosts of the new field. */
HD_HOST_FN hd_status hd_heat_step(hd_ctx *ctx, const hd_heat_args *a) {
  const hd_range3 r = hd_grid_interior(&a->g);
  hd_status s = a->g.dim == 2 ? (a->q ? hd_heat_step_2d_q(ctx, a, r) : hd_heat_step_2d(ctx, a, r))
                              : (a->q ? hd_heat_step_3d_q(ctx, a, r) : hd_heat_step_3d(ctx, a, r));
  return s != HD_OK ? s : hd_heat_fill_ghosts(ctx, a);
}

/* The interior as the slabs one cell thick beside the faces marked in
 * `shared` (faces whose ghosts another rank fills) and what is left
 * inside: box[0] is the inside (it may be empty), box[1..] the slabs.
 * Returns the number of boxes (at most 7).  Updating the slabs first lets
 * a caller send them while the inside is updated. */
HD_HOST_FN int hd_heat_halo_split(const hd_grid *g, const int shared[HD_NFACES],
                                  hd_range3 box[7]) {
  hd_range3 rest = hd_grid_interior(g);
  int a, side, n = 1;
  for (a = 0; a < g->dim; ++a)
    for (side = 0; side < 2; ++side)
      if (shared[2 * a + side] && rest.hi[a] > rest.lo[a]) {
        box[n] = rest;
        if (side) box[n].lo[a] = --rest.hi[a];
        else box[n].hi[a] = ++rest.lo[a];
        ++n;
      }
  box[0] = rest;
  return n;
}

/* Initial field into t (interior only; call hd_heat_fill_ghosts after). */
HD_HOST_FN hd_status hd_heat_initialise(hd_ctx *ctx, hd_real *t, const hd_grid *g,
                                        const hd_heat_init *ic) {
  hd_heat_init_args a;
  a.t = t;
  a.g = *g;
  a.ic = *ic;
  return hd_heat_init_loop(ctx, &a, hd_grid_interior(g));
}

#if defined(HD_BACKEND_CUDA)
/* Tuned CUDA steps.  Both march each thread along the slowest axis (y in
 * 2-D, z in 3-D) keeping the previous, current and next value along it in
 * registers, so that axis costs one new load per cell, and both call the
 * same physics functions as the generic loop, which stays as the check
 * (tests compare the two).
 *   2-D: x neighbours come from the neighbouring lanes by warp shuffles, so
 *        a cell costs one global load; HD_HEAT_BATCH loads along y are
 *        issued together.  Blocks are whole warps along x.
 *   3-D: x and y neighbours are plain loads that hit L1; the plane after
 *        next is loaded a step ahead, so two loads per thread are in flight.
 * Profiled on an H200 (doc/performance.md), the first versions issued
 * ~85 instructions a cell and were issue-bound in single precision, so the
 * loops walk pointers, the face tests leave the loop (ghosts of the faces
 * across the march are written after it from the thread's own new values;
 * blocks away from the other faces run a loop without their tests; the
 * source-array test is a loop of its own), and register caps (launch
 * bounds) buy occupancy.
 * Threads past the end of a 2-D row load the ghost so that all lanes take
 * part in the shuffles. */
#define HD_HEAT_HAS_TUNED 1
#define HD_HEAT_BATCH 8
#define HD_HEAT_MAX_THREADS 128
#ifndef HD_HEAT_MIN_BLOCKS_2D
#if defined(HD_REAL_FLOAT)
#define HD_HEAT_MIN_BLOCKS_2D 16 /* 32 registers */
#else
#define HD_HEAT_MIN_BLOCKS_2D 12 /* 40 registers */
#endif
#endif
#ifndef HD_HEAT_MIN_BLOCKS_3D
#define HD_HEAT_MIN_BLOCKS_3D 12 /* 40 registers */
#endif
/* 3-D cells a thread along x on aligned rows: float4, double2 (16 bytes) */
#define HD_HEAT_VEC (16 / (int)sizeof(hd_real))
#ifndef HD_HEAT_MIN_BLOCKS_VEC
#define HD_HEAT_MIN_BLOCKS_VEC 10 /* 48 registers, no spills; 11 spills */
#endif

/* The column loops take the block's situation as template arguments:
 * FACES (the block touches a face normal to an axis across the march:
 * its threads on that face write the ghost beside each cell) and HAS_Q (a
 * source array).  Each combination is its own loop; ordinary arguments
 * with literal values were measured to compile worse (register spills). */

/* One 2-D cell at p (field), o (new field), s (source). */
template <int FACES, int HAS_Q>
static __device__ __forceinline__ void hd_heat_tuned2d_cell(
    const hd_heat_args *a, const hd_real *HD_RESTRICT p, hd_real *HD_RESTRICT o,
    const hd_real *HD_RESTRICT s, int inside, int xlo, int xhi, hd_real prev, hd_real cur,
    hd_real next) {
  const unsigned lane = threadIdx.x & 31u;
  hd_real left = __shfl_up_sync(0xffffffffu, cur, 1);
  hd_real right = __shfl_down_sync(0xffffffffu, cur, 1);
  if (lane == 0) left = p[-1];
  if (lane == 31) right = p[1];
  if (inside) {
    const hd_real v = hd_heat_update_2d(cur, left, right, prev, next, a->c,
                                        HAS_Q ? a->dtq + a->dt * s[0] : a->dtq);
    o[0] = v;
    if (FACES && xlo) hd_heat_set_ghost(&a->bc[HD_XLO], o - 1, v);
    if (FACES && xhi) hd_heat_set_ghost(&a->bc[HD_XHI], o + 1, v);
  }
}

/* `rows` cells up a column, HD_HEAT_BATCH loads at a time. */
template <int FACES, int HAS_Q>
static __device__ __forceinline__ void hd_heat_tuned2d_column(
    const hd_heat_args *a, const hd_real *HD_RESTRICT p, hd_real *HD_RESTRICT o,
    const hd_real *HD_RESTRICT s, hd_idx sy, int rows, int inside, int xlo, int xhi) {
  hd_real prev = p[-sy], cur = p[0];
  int r = 0, u;
  for (; r + HD_HEAT_BATCH <= rows; r += HD_HEAT_BATCH) {
    hd_real next[HD_HEAT_BATCH];
#pragma unroll
    for (u = 0; u < HD_HEAT_BATCH; ++u) next[u] = p[(u + 1) * sy];
#pragma unroll
    for (u = 0; u < HD_HEAT_BATCH; ++u) {
      hd_heat_tuned2d_cell<FACES, HAS_Q>(a, p, o, s, inside, xlo, xhi, prev, cur, next[u]);
      prev = cur, cur = next[u];
      p += sy, o += sy;
      if (HAS_Q) s += sy;
    }
  }
  for (; r < rows; ++r) {
    const hd_real next = p[sy];
    hd_heat_tuned2d_cell<FACES, HAS_Q>(a, p, o, s, inside, xlo, xhi, prev, cur, next);
    prev = cur, cur = next;
    p += sy, o += sy;
    if (HAS_Q) s += sy;
  }
}

HD_KERNEL void __launch_bounds__(HD_HEAT_MAX_THREADS, HD_HEAT_MIN_BLOCKS_2D)
    hd_heat_tuned2d_kernel(HD_KPARAM(hd_heat_args) a, hd_range3 box, int march) {
  const hd_idx nx = a.g.n[0], ny = a.g.n[1], sy = a.g.stride[1];
  const hd_idx i0 = box.lo[0] + (hd_idx)blockIdx.x * blockDim.x, i = i0 + threadIdx.x;
  const hd_idx j0 = box.lo[1] + (hd_idx)blockIdx.y * march;
  const int inside = i < box.hi[0];
  const int rows = (int)((j0 + march < box.hi[1] ? j0 + march : box.hi[1]) - j0);
  const hd_idx c = (i <= nx ? i : nx + 1) + j0 * sy;
  const int faces = i0 == 1 || i0 + blockDim.x > nx, xlo = i == 1, xhi = i == nx;
  const hd_real *p = a.t + c, *s = a.q ? a.q + c : p;
  hd_real *o = a.t_next + c;
  if (a.q) {
    if (faces) hd_heat_tuned2d_column<1, 1>(&a, p, o, s, sy, rows, inside, xlo, xhi);
    else hd_heat_tuned2d_column<0, 1>(&a, p, o, s, sy, rows, inside, 0, 0);
  } else {
    if (faces) hd_heat_tuned2d_column<1, 0>(&a, p, o, s, sy, rows, inside, xlo, xhi);
    else hd_heat_tuned2d_column<0, 0>(&a, p, o, s, sy, rows, inside, 0, 0);
  }
  /* ghosts of the faces across the march, from this thread's new values */
  if (inside && j0 == 1) hd_heat_set_ghost(&a.bc[HD_YLO], a.t_next + i, a.t_next[i + sy]);
  if (inside && j0 + rows == ny + 1) {
    const hd_idx e = i + ny * sy;
    hd_heat_set_ghost(&a.bc[HD_YHI], a.t_next + e + sy, a.t_next[e]);
  }
}

/* `planes` cells along z, the plane after next loaded a step ahead;
 * far_ok says the planes past the segment may be read (they stop at the
 * ghost plane). */
template <int FACES, int HAS_Q>
static __device__ __forceinline__ void hd_heat_tuned3d_column(
    const hd_heat_args *a, const hd_real *HD_RESTRICT p, hd_real *HD_RESTRICT o,
    const hd_real *HD_RESTRICT s, hd_idx sy, hd_idx sz, int planes, int far_ok, int xlo,
    int xhi, int ylo, int yhi) {
  hd_real w[4]; /* planes k - 1, k, k + 1, k + 2 (an array: scalars spilled) */
  int r, u;
  w[0] = p[-sz], w[1] = p[0], w[2] = p[sz];
  w[3] = planes > 1 || far_ok ? p[2 * sz] : HD_R(0);
  for (r = 0; r < planes; ++r) {
    hd_real ahead = HD_R(0), v;
    if (r + 2 < planes || far_ok) ahead = p[3 * sz];
    v = hd_heat_update_3d(w[1], p[-1], p[1], p[-sy], p[sy], w[0], w[2], a->c,
                          HAS_Q ? a->dtq + a->dt * s[0] : a->dtq);
    o[0] = v;
    if (FACES) {
      if (xlo) hd_heat_set_ghost(&a->bc[HD_XLO], o - 1, v);
      if (xhi) hd_heat_set_ghost(&a->bc[HD_XHI], o + 1, v);
      if (ylo) hd_heat_set_ghost(&a->bc[HD_YLO], o - sy, v);
      if (yhi) hd_heat_set_ghost(&a->bc[HD_YHI], o + sy, v);
    }
#pragma unroll
    for (u = 0; u < 3; ++u) w[u] = w[u + 1];
    w[3] = ahead;
    p += sz, o += sz;
    if (HAS_Q) s += sz;
  }
}

HD_KERNEL void __launch_bounds__(HD_HEAT_MAX_THREADS, HD_HEAT_MIN_BLOCKS_3D)
    hd_heat_tuned3d_kernel(HD_KPARAM(hd_heat_args) a, hd_range3 box, int march) {
  const hd_idx nx = a.g.n[0], ny = a.g.n[1], nz = a.g.n[2];
  const hd_idx sy = a.g.stride[1], sz = a.g.stride[2];
  const hd_idx i0 = box.lo[0] + (hd_idx)blockIdx.x * blockDim.x, i = i0 + threadIdx.x;
  const hd_idx j0 = box.lo[1] + (hd_idx)blockIdx.y * blockDim.y, j = j0 + threadIdx.y;
  const hd_idx k0 = box.lo[2] + (hd_idx)blockIdx.z * march;
  const int planes = (int)((k0 + march < box.hi[2] ? k0 + march : box.hi[2]) - k0);
  const int far_ok = k0 + planes + 1 <= nz;
  const int faces = i0 == 1 || i0 + blockDim.x > nx || j0 == 1 || j0 + blockDim.y > ny;
  hd_idx c;
  const hd_real *p, *s;
  hd_real *o;
  if (i >= box.hi[0] || j >= box.hi[1]) return;
  c = i + j * sy + k0 * sz;
  p = a.t + c, o = a.t_next + c, s = a.q ? a.q + c : p;
#define HD_HEAT_COLUMN3D(F, Q) \
  hd_heat_tuned3d_column<F, Q>(&a, p, o, s, sy, sz, planes, far_ok, i == 1, i == nx, j == 1, j == ny)
  if (a.q) {
    if (faces) HD_HEAT_COLUMN3D(1, 1);
    else HD_HEAT_COLUMN3D(0, 1);
  } else {
    if (faces) HD_HEAT_COLUMN3D(1, 0);
    else HD_HEAT_COLUMN3D(0, 0);
  }
#undef HD_HEAT_COLUMN3D
  /* ghosts of the faces across the march, from this thread's new values */
  if (k0 == 1) hd_heat_set_ghost(&a.bc[HD_ZLO], a.t_next + c - sz, a.t_next[c]);
  if (k0 + planes == nz + 1) {
    const hd_idx e = c + (hd_idx)(planes - 1) * sz;
    hd_heat_set_ghost(&a.bc[HD_ZHI], a.t_next + e + sz, a.t_next[e]);
  }
}

/* 3-D on aligned rows (hd_heat_vec_ok): each thread takes HD_HEAT_VEC
 * cells along x with 16-byte loads and stores, the x neighbours of its end
 * cells from the neighbouring lanes (or memory at warp ends and at the
 * last cells of a row).  Measured on an H200: the scalar march is held to
 * ~76 % (single) of the copy bandwidth by its 128-byte rows even without
 * neighbour loads; 16-byte accesses lift that limit to ~96 %.  Lanes past
 * the row work on the row's last cells (valid loads, full warps for the
 * shuffles) and store nothing. */
typedef struct __align__(16) hd_heat_v16 {
  hd_real e[HD_HEAT_VEC];
} hd_heat_v16;

static __device__ __forceinline__ hd_heat_v16 hd_heat_vld(const hd_real *p) {
  return *(const hd_heat_v16 *)p;
}

/* The new x ghost at g beside a face cell of new value v.  wide: the
 * ghost's whole 32-byte sector is stored, the rest of it row padding on the
 * side away from the row (hd_heat_vec_wide); a lone element would leave
 * L2 a partial sector to merge with DRAM. */
static __device__ __forceinline__ void hd_heat_vec_xghost(const hd_heat_bc *bc, hd_real *g, int away, hd_real v,
                                                          int wide) {
  const int V = HD_HEAT_VEC;
  const hd_real x = hd_heat_ghost(bc, v);
  hd_heat_v16 w;
  int u;
  if (!wide) {
    *g = x;
    return;
  }
#pragma unroll
  for (u = 0; u < V; ++u) w.e[u] = x;
  if (away < 0) g += 1 - 2 * V;
  *(hd_heat_v16 *)g = w, *(hd_heat_v16 *)(g + V) = w;
}

/* X: the warp holds cell 1 or cell nx of its row.  Its x ghosts are read
 * as the face conditions of those cells (the x faces are no halo:
 * hd_heat_vec_ok), not loaded, and the new ones are stored; each ghost is
 * a DRAM sector of its own.  Warps inside the row run a loop without those
 * tests. */
template <int X>
static __device__ __forceinline__ void hd_heat_vec3d_column(const hd_heat_args *a, const hd_real *HD_RESTRICT p,
                                                            hd_real *HD_RESTRICT o, hd_idx sy, hd_idx sz,
                                                            int planes, int far_ok, int active, int xlo,
                                                            int last, int wide) {
  const unsigned lane = threadIdx.x & 31u;
  const int V = HD_HEAT_VEC;
  hd_heat_v16 w0 = hd_heat_vld(p - sz), w1 = hd_heat_vld(p), w2 = hd_heat_vld(p + sz);
  hd_heat_v16 w3 = planes > 1 || far_ok ? hd_heat_vld(p + 2 * sz) : w2;
  int r, u;
  for (r = 0; r < planes; ++r) {
    hd_heat_v16 ahead = w3, ym, yp, v;
    hd_real xm = __shfl_up_sync(0xffffffffu, w1.e[V - 1], 1), xp = __shfl_down_sync(0xffffffffu, w1.e[0], 1);
    if (r + 2 < planes || far_ok) ahead = hd_heat_vld(p + 3 * sz);
    if (lane == 0) xm = X && xlo ? hd_heat_ghost(&a->bc[HD_XLO], w1.e[0]) : p[-1];
    if (lane == 31 || (X && last)) xp = X && last ? hd_heat_ghost(&a->bc[HD_XHI], w1.e[V - 1]) : p[V];
    ym = hd_heat_vld(p - sy), yp = hd_heat_vld(p + sy);
#pragma unroll
    for (u = 0; u < V; ++u)
      v.e[u] = hd_heat_update_3d(w1.e[u], u > 0 ? w1.e[u > 0 ? u - 1 : 0] : xm,
                                 u < V - 1 ? w1.e[u < V - 1 ? u + 1 : 0] : xp, ym.e[u], yp.e[u], w0.e[u],
                                 w2.e[u], a->c, a->dtq);
    if (active) *(hd_heat_v16 *)o = v;
    if (X && xlo) hd_heat_vec_xghost(&a->bc[HD_XLO], o - 1, -1, v.e[0], wide);
    if (X && last) hd_heat_vec_xghost(&a->bc[HD_XHI], o + V, 1, v.e[V - 1], wide);
    w0 = w1, w1 = w2, w2 = w3, w3 = ahead;
    p += sz, o += sz;
  }
}

/* Ghost of face f beside the V cells at o (new values), at o + d. */
static __device__ __forceinline__ void hd_heat_vec_ghosts(const hd_heat_args *a, int f, hd_real *o, hd_idx d) {
  const hd_heat_v16 v = hd_heat_vld(o);
  hd_heat_v16 g;
  int u;
  if (a->bc[f].kind == HD_HEAT_HALO) return;
#pragma unroll
  for (u = 0; u < HD_HEAT_VEC; ++u) g.e[u] = hd_heat_ghost(&a->bc[f], v.e[u]);
  *(hd_heat_v16 *)(o + d) = g;
}

/* The cells a vector thread owns in the rows from j_lo and the planes
 * [k_lo, k_hi) of a box spanning whole rows: first cell i (lanes past the
 * row take its last cells and store nothing), row j, planes from k0. */
static __device__ __forceinline__ hd_idx hd_heat_vec_in(const hd_heat_args *a, hd_idx j_lo, hd_idx k_lo, hd_idx k_hi,
                                                        int march, int *active, int *last, int *planes, hd_idx *i,
                                                        hd_idx *j, hd_idx *k0) {
  const hd_idx nx = a->g.n[0];
  *i = 1 + ((hd_idx)blockIdx.x * blockDim.x + threadIdx.x) * HD_HEAT_VEC;
  *j = j_lo + (hd_idx)blockIdx.y * blockDim.y + threadIdx.y;
  *k0 = k_lo + (hd_idx)blockIdx.z * march;
  *planes = (int)((*k0 + march < k_hi ? *k0 + march : k_hi) - *k0);
  *active = *i <= nx, *last = *active && *i + HD_HEAT_VEC - 1 == nx;
  return (*active ? *i : nx + 1 - HD_HEAT_VEC) + *j * a->g.stride[1] + *k0 * a->g.stride[2];
}
/* The same over the whole interior. */
static __device__ __forceinline__ hd_idx hd_heat_vec_at(const hd_heat_args *a, int march, int *active, int *last,
                                                        int *planes, hd_idx *i, hd_idx *j, hd_idx *k0) {
  return hd_heat_vec_in(a, 1, 1, a->g.n[2] + 1, march, active, last, planes, i, j, k0);
}

/* The rows [box.lo[1], box.hi[1]) and planes [box.lo[2], box.hi[2]) of
 * whole rows (hd_heat_vec_ok); the y and z ghosts of the faces the box
 * touches written too. */
HD_KERNEL void __launch_bounds__(HD_HEAT_MAX_THREADS, HD_HEAT_MIN_BLOCKS_VEC)
    hd_heat_vec3d_kernel(HD_KPARAM(hd_heat_args) a, hd_range3 box, int march, int wide) {
  const hd_idx ny = a.g.n[1], nz = a.g.n[2], sy = a.g.stride[1], sz = a.g.stride[2];
  hd_idx i, j, k0, c;
  int active, last, planes, r;
  c = hd_heat_vec_in(&a, box.lo[1], box.lo[2], box.hi[2], march, &active, &last, &planes, &i, &j, &k0);
  if (j >= box.hi[1]) return; /* whole warps: a warp lies in one row */
  if (__any_sync(0xffffffffu, i == 1 || last))
    hd_heat_vec3d_column<1>(&a, a.t + c, a.t_next + c, sy, sz, planes, k0 + planes + 1 <= nz, active, i == 1, last,
                            wide);
  else
    hd_heat_vec3d_column<0>(&a, a.t + c, a.t_next + c, sy, sz, planes, k0 + planes + 1 <= nz, active, 0, 0, 0);
  /* ghosts of the y and z faces (few threads), from this thread's new
     values read back; indices recomputed rather than kept live across the
     loop */
  c = hd_heat_vec_in(&a, box.lo[1], box.lo[2], box.hi[2], march, &active, &last, &planes, &i, &j, &k0);
  if (!active) return;
  for (r = 0; (j == 1 || j == ny) && r < planes; ++r) {
    if (j == 1) hd_heat_vec_ghosts(&a, HD_YLO, a.t_next + c + (hd_idx)r * sz, -sy);
    if (j == ny) hd_heat_vec_ghosts(&a, HD_YHI, a.t_next + c + (hd_idx)r * sz, sy);
  }
  if (k0 == 1) hd_heat_vec_ghosts(&a, HD_ZLO, a.t_next + c, -sz);
  if (k0 + planes == nz + 1) hd_heat_vec_ghosts(&a, HD_ZHI, a.t_next + c + (hd_idx)(planes - 1) * sz, sz);
}

/* The vector kernel applies to a box of whole rows (the split of
 * hd_heat_halo_split along y and z too) of a 3-D grid without a source array
 * whose rows are aligned: cell 1 of every row on a 16-byte boundary in
 * both fields (strides and nx multiples of HD_HEAT_VEC), and whose x faces
 * are no halo.  Drivers get such rows from hd_grid_align_rows and an
 * allocation offset (doc/heat.md). */
HD_HOST_FN int hd_heat_vec_ok(const hd_heat_args *a, hd_range3 box) {
  const hd_grid *g = &a->g;
  const hd_range3 in = hd_grid_interior(g);
  const hd_idx v = HD_HEAT_VEC;
  if (g->dim != 3 || a->q || g->n[0] % v || g->stride[1] % v || g->stride[2] % v) return 0;
  if (a->bc[HD_XLO].kind == HD_HEAT_HALO || a->bc[HD_XHI].kind == HD_HEAT_HALO) return 0;
  if ((uintptr_t)(a->t + 1) % 16 || (uintptr_t)(a->t_next + 1) % 16) return 0;
  return box.lo[0] == in.lo[0] && box.hi[0] == in.hi[0];
}

/* Whole-sector x ghosts in the vector kernel: cell 1 of every row of
 * t_next on a 32-byte boundary, nx a multiple of a sector, and two sectors
 * of room between cell nx and the next row's cell 1 (ghosts included), so
 * the two ghosts' sectors hold nothing else.  The padding gets copies of
 * the ghost. */
HD_HOST_FN int hd_heat_vec_wide(const hd_heat_args *a) {
  const hd_idx s = 32 / (hd_idx)sizeof(hd_real), nx = a->g.n[0], sy = a->g.stride[1];
  return (uintptr_t)(a->t_next + 1) % 32 == 0 && nx % s == 0 && sy % s == 0 && a->g.stride[2] % s == 0 &&
         sy - nx >= 2 * s;
}

/* One step over the cells of `box` (part of the interior; ghosts of the
 * faces it touches written too), e.g. the boxes of hd_heat_halo_split.
 * Block shape and march length: ctx->block = {x, y, march} overrides the
 * defaults (2-D: 128 x 1 threads, 3-D: 32 x 4; 8 cells marched).  x must be
 * a multiple of 32 (whole warps), x * y at most HD_HEAT_MAX_THREADS. */
HD_HOST_FN hd_status hd_heat_step_tuned_box(hd_ctx *ctx, const hd_heat_args *a, hd_range3 box) {
  const hd_grid *g = &a->g;
  const int three = g->dim == 3;
  const unsigned bx = ctx->block[0] > 0 ? (unsigned)ctx->block[0] : (three ? 32u : 128u);
  const unsigned by = three ? (ctx->block[1] > 0 ? (unsigned)ctx->block[1] : 4u) : 1u;
  const int march = ctx->block[2] > 0 ? ctx->block[2] : 8;
  const hd_idx ycells = three ? (hd_idx)by : march; /* y cells per block */
  const hd_idx along = three ? box.hi[2] - box.lo[2] : box.hi[1] - box.lo[1];
  const hd_range3 in = hd_grid_interior(g);
  dim3 grid, block(bx, by, 1);
  int d;
  if (bx % 32u)
    return hd_fail(ctx, HD_ERR_ARG, "heat: tuned blocks must be whole warps in x (x = %u)", bx);
  if (bx * by > HD_HEAT_MAX_THREADS)
    return hd_fail(ctx, HD_ERR_ARG, "heat: tuned block %u x %u exceeds %d threads", bx, by,
                   HD_HEAT_MAX_THREADS);
  for (d = 0; d < g->dim; ++d)
    if (box.lo[d] < in.lo[d] || box.hi[d] > in.hi[d])
      return hd_fail(ctx, HD_ERR_ARG, "heat: box [%ld, %ld) along axis %d leaves the interior",
                     (long)box.lo[d], (long)box.hi[d], d);
  if (hd_range3_count(&box) <= 0) return HD_OK;
  grid.x = hd_grid_extent(box.hi[0] - box.lo[0], bx, 2147483647);
  grid.y = hd_grid_extent(box.hi[1] - box.lo[1], (unsigned)ycells, 65535);
  grid.z = three ? hd_grid_extent(along, (unsigned)march, 65535) : 1;
  if ((hd_idx)grid.y * ycells < box.hi[1] - box.lo[1] || (three && (hd_idx)grid.z * march < along))
    return hd_fail(ctx, HD_ERR_ARG,
                   "heat: grid too tall for the tuned kernel with march %d; use the generic one",
                   march);
  if (three && hd_heat_vec_ok(a, box)) {
    grid.x = hd_grid_extent((box.hi[0] - box.lo[0]) / HD_HEAT_VEC, bx, 2147483647);
    hd_heat_vec3d_kernel<<<grid, block, 0, hd_stream(ctx)>>>(*a, box, march, hd_heat_vec_wide(a));
  } else if (three)
    hd_heat_tuned3d_kernel<<<grid, block, 0, hd_stream(ctx)>>>(*a, box, march);
  else
    hd_heat_tuned2d_kernel<<<grid, block, 0, hd_stream(ctx)>>>(*a, box, march);
  return hd_check_launch(ctx, "hd_heat_step_tuned", __FILE__, __LINE__);
}

HD_HOST_FN hd_status hd_heat_step_tuned(hd_ctx *ctx, const hd_heat_args *a) {
  return hd_heat_step_tuned_box(ctx, a, hd_grid_interior(&a->g));
}

#else /* CPU backends */

/* Tuned CPU steps: one routine a row of cells along x, its loop vectorised
 * (compiled for AVX-512 and AVX2 too, HD_CPU_CLONES_EXACT), that also
 * writes the row's ghosts while the row is in cache: the generic step's
 * separate face passes touch a cache line for each x ghost.  OpenMP threads
 * take contiguous runs of rows.  Same update and ghost functions as the
 * generic loops, so the fields are equal bit for bit (tests). */
#define HD_HEAT_HAS_TUNED 1
/* Rows go in chunks, each first asking for the lines 4 KB ahead in the
 * row that streams from memory and in the output: +15 % on 2 cores,
 * where the hardware prefetchers alone left the stencil at 2/3 of a copy
 * (doc/performance.md). */
#define HD_HEAT_CPU_CHUNK 64
#define HD_HEAT_CPU_AHEAD (4096 / (hd_idx)sizeof(hd_real))

/* The ghosts beside a face row of cells o[0 .. n-1], `step` elements away. */
HD_HOST_FN void hd_heat_cpu_ghost_row(const hd_heat_bc *bc, hd_real *HD_RESTRICT o, hd_idx n, hd_idx step) {
  hd_idx i;
  if (bc->kind == HD_HEAT_HALO) return;
  HD_OMP_SIMD
  for (i = 0; i < n; ++i) o[i + step] = hd_heat_ghost(bc, o[i]);
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline void hd_heat_cpu_row(const hd_heat_args *a, hd_idx j, hd_idx k, int three, int has_q) {
  const hd_grid *g = &a->g;
  const hd_idx n = g->n[0], sy = g->stride[1], sz = three ? g->stride[2] : 0, c0 = hd_grid_at(g, 1, j, k);
  const hd_real *HD_RESTRICT t = a->t + c0;
  const hd_real *HD_RESTRICT q = has_q ? a->q + c0 : NULL;
  hd_real *HD_RESTRICT o = a->t_next + c0;
  const hd_real c[3] = {a->c[0], a->c[1], a->c[2]}, dtq = a->dtq, dt = a->dt;
  const hd_real *lead = t + (three ? sz : sy) + HD_HEAT_CPU_AHEAD; /* the row read for the first time */
  hd_idx i0, i, p;
  for (i0 = 0; i0 < n; i0 += HD_HEAT_CPU_CHUNK) {
    const hd_idx i1 = i0 + HD_HEAT_CPU_CHUNK < n ? i0 + HD_HEAT_CPU_CHUNK : n;
    for (p = i0; p < i1; p += 64 / (hd_idx)sizeof(hd_real)) {
      HD_PREFETCH(lead + p);
      HD_PREFETCH_W(o + HD_HEAT_CPU_AHEAD + p);
    }
    HD_OMP_SIMD
    for (i = i0; i < i1; ++i) {
      const hd_real src = has_q ? dtq + dt * q[i] : dtq;
      o[i] = three ? hd_heat_update_3d(t[i], t[i - 1], t[i + 1], t[i - sy], t[i + sy], t[i - sz], t[i + sz], c, src)
                   : hd_heat_update_2d(t[i], t[i - 1], t[i + 1], t[i - sy], t[i + sy], c, src);
    }
  }
  hd_heat_set_ghost(&a->bc[HD_XLO], o - 1, o[0]);
  hd_heat_set_ghost(&a->bc[HD_XHI], o + n, o[n - 1]);
  if (j == 1) hd_heat_cpu_ghost_row(&a->bc[HD_YLO], o, n, -sy);
  if (j == g->n[1]) hd_heat_cpu_ghost_row(&a->bc[HD_YHI], o, n, sy);
  if (three && k == 1) hd_heat_cpu_ghost_row(&a->bc[HD_ZLO], o, n, -sz);
  if (three && k == g->n[2]) hd_heat_cpu_ghost_row(&a->bc[HD_ZHI], o, n, sz);
}

/* One multiversioned entry per case of a row routine row(a, j, k, three,
 * has_q): dimension and source are constants inside, so the loop has no
 * branches.  Entries prefix_2d, prefix_2d_q, prefix_3d, prefix_3d_q. */
#define HD_HEAT_CPU_ROW_ENTRY(name, row, T, three, has_q)                                        \
  HD_CPU_CLONES_EXACT static HD_UNUSED void name(const T *a, hd_idx j, hd_idx k) { row(a, j, k, three, has_q); }
#define HD_HEAT_CPU_ROW_ENTRIES(prefix, row, T)           \
  HD_HEAT_CPU_ROW_ENTRY(prefix##_2d, row, T, 0, 0)        \
  HD_HEAT_CPU_ROW_ENTRY(prefix##_2d_q, row, T, 0, 1)      \
  HD_HEAT_CPU_ROW_ENTRY(prefix##_3d, row, T, 1, 0)        \
  HD_HEAT_CPU_ROW_ENTRY(prefix##_3d_q, row, T, 1, 1)
HD_HEAT_CPU_ROW_ENTRIES(hd_heat_cpu_row, hd_heat_cpu_row, hd_heat_args)

HD_HOST_FN hd_status hd_heat_step_tuned(hd_ctx *ctx, const hd_heat_args *a) {
  const hd_range3 r = hd_grid_interior(&a->g);
  void (*row)(const hd_heat_args *, hd_idx, hd_idx) =
      a->g.dim == 3 ? (a->q ? hd_heat_cpu_row_3d_q : hd_heat_cpu_row_3d)
                    : (a->q ? hd_heat_cpu_row_2d_q : hd_heat_cpu_row_2d);
  hd_idx j, k;
  (void)ctx;
  HD_OMP_FOR(collapse(2) schedule(static) num_threads(hd_ctx_threads(ctx)))
  for (k = r.lo[2]; k < r.hi[2]; ++k)
    for (j = r.lo[1]; j < r.hi[1]; ++j) row(a, j, k);
  return HD_OK;
}
#endif

#endif /* HD_HEAT_H */
