/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/poisson.h - 2-D Poisson solvers on the nodes of a square of n x n cells
 * of width h:
 *   (4 u - u_E - u_W - u_N - u_S) / h^2 = f   at the interior nodes,
 * u given (and kept) on the boundary nodes.  Node (i, j), 0 <= i, j <= n,
 * lives at offset i + j (n + 1) of a "natural" array.
 *
 * Red-black SOR works on split colour arrays (Degawa's): node (i, j) is red
 * (colour 0) when i + j is even; row j of colour c holds the nodes
 * i = 2m + ((j + c) & 1), m = 0 .. w - 1, w = n/2 + 1, at offset m + j w.
 * A sweep of one colour then reads and writes unit-stride rows: the
 * east/west neighbours of (m, j) are other[m + p] and other[m - 1 + p]
 * (p = (j + c) & 1), north/south other[m +- w].
 *
 * Multigrid: V-cycles on the natural layout, red-black Gauss-Seidel
 * smoothing, full-weighting restriction, bilinear prolongation, vertex
 * coarsening n -> n/2 while n is even; the coarsest grid (n <= 64) is
 * solved by SOR sweeps.
 *
 * Both stop when max|residual| <= tol max|f| (deterministic reductions, so
 * every backend stops after the same number of iterations up to rounding),
 * checked every `check_every` SOR sweeps or every V-cycle.
 *
 * SOR also runs on a block of rows of a grid split over processes
 * (hd_pois_sor_create_block; multigrid too, hd_pois_mg_create_block,
 * below): its arrays hold rows row0 .. row0 + rows - 1
 * (the owned ones and a ghost row each side), every row index in the
 * point functions stays global, and the caller's hooks fill the ghost rows
 * of a colour after each sweep of it and take the maximum of the norms over
 * the processes.  Red-black updates within a colour are independent, so a
 * split grid iterates exactly as the whole one. */
#ifndef HD_POISSON_H
#define HD_POISSON_H

#include <math.h>

#include "context.h"
#include "launch.h"
#include "memory.h"
#include "real.h"
#include "reduce.h"

#define HD_POIS_MG_MAX_LEVELS 32
#define HD_POIS_MG_MAX_COARSE 64

/* ---- point functions ------------------------------------------------------ */

/* The Jacobi value of the 5-point equation from the four neighbours. */
HD_FN hd_real hd_pois_jacobi(hd_real h2f, hd_real e, hd_real w, hd_real n, hd_real s) {
  return (h2f + e + w + n + s) * HD_R(0.25);
}

/* The residual f - A u of the 5-point equation at a node of value c. */
HD_FN hd_real hd_pois_residual_of(hd_real f, hd_real c, hd_real e, hd_real w, hd_real n, hd_real s, hd_real h2) {
  return f - (HD_R(4) * c - e - w - n - s) / h2;
}

/* One SOR update of colour `colour` on the split arrays. */
typedef struct hd_pois_sor_args {
  hd_real *own;         /* this colour's u */
  const hd_real *other; /* the other colour's u */
  const hd_real *f;     /* this colour's right-hand side */
  hd_idx n, w;
  hd_idx row0;          /* global row of array row 0 */
  int colour;
  hd_real omega, h2;
} hd_pois_sor_args;

/* The relaxed value of a node u with right-hand side f from its east,
 * west, north and south neighbours. */
HD_FN hd_real hd_pois_sor_value(const hd_pois_sor_args *a, hd_real u, hd_real f, hd_real e, hd_real w, hd_real n,
                                hd_real s) {
  return u + a->omega * (hd_pois_jacobi(a->h2 * f, e, w, n, s) - u);
}

HD_FN void hd_pois_sor_pt(const hd_pois_sor_args *a, hd_idx m, hd_idx j) {
  const hd_idx p = (j + a->colour) & 1, i = 2 * m + p, o = m + (j - a->row0) * a->w;
  hd_real *HD_RESTRICT u = a->own;
  const hd_real *HD_RESTRICT v = a->other;
  if (i < 1 || i > a->n - 1) return;
  u[o] = hd_pois_sor_value(a, u[o], a->f[o], v[o + p], v[o - 1 + p], v[o + a->w], v[o - a->w]);
}

/* Natural <-> split copies of one array, both colours at once. */
typedef struct hd_pois_split_args {
  hd_real *nat;
  hd_real *col[2];
  hd_idx n, w, row0;
  int to_split;
} hd_pois_split_args;

HD_FN void hd_pois_split_pt(const hd_pois_split_args *a, hd_idx m, hd_idx j) {
  const hd_idx r = j - a->row0;
  int c;
  for (c = 0; c < 2; ++c) {
    const hd_idx i = 2 * m + ((j + c) & 1);
    if (i > a->n) continue;
    if (a->to_split)
      a->col[c][m + r * a->w] = a->nat[i + r * (a->n + 1)];
    else
      a->nat[i + r * (a->n + 1)] = a->col[c][m + r * a->w];
  }
}

/* Residual of the split arrays: k is the colour. */
typedef struct hd_pois_sor_pair {
  hd_pois_sor_args c[2];
} hd_pois_sor_pair;

HD_FN void hd_pois_sor_res_pt(const hd_pois_sor_pair *a, hd_idx m, hd_idx j, hd_idx k, hd_stats *acc) {
  const hd_pois_sor_args *s = &a->c[k];
  const hd_idx p = (j + s->colour) & 1, i = 2 * m + p, o = m + (j - s->row0) * s->w;
  const hd_real *u = s->own, *v = s->other;
  hd_real r;
  if (i < 1 || i > s->n - 1) return;
  r = hd_pois_residual_of(s->f[o], u[o], v[o + p], v[o - 1 + p], v[o + s->w], v[o - s->w], s->h2);
  hd_stats_add(acc, (double)r, o);
}

/* |f| of the split right-hand side at the interior nodes. */
HD_FN void hd_pois_sor_f_pt(const hd_pois_sor_pair *a, hd_idx m, hd_idx j, hd_idx k, hd_stats *acc) {
  const hd_pois_sor_args *s = &a->c[k];
  const hd_idx i = 2 * m + ((j + s->colour) & 1), o = m + (j - s->row0) * s->w;
  if (i < 1 || i > s->n - 1) return;
  hd_stats_add(acc, (double)s->f[o], o);
}

/* One level of the multigrid hierarchy, natural layout. */
typedef struct hd_pois_level {
  hd_real *u;       /* solution (finest) or correction (coarser) */
  const hd_real *f; /* right-hand side */
  hd_real *r;       /* residual; its boundary stays 0 */
  hd_idx n;
  hd_idx row0; /* global row of array row 0: 0 for a whole level, jlo less its ghost rows for a block */
  hd_real h2, omega;
  int colour;
} hd_pois_level;

/* Red-black (Gauss-Seidel or SOR) update over (m, j) as in the split
 * layout, on the natural arrays. */
HD_FN void hd_pois_smooth_pt(const hd_pois_level *a, hd_idx m, hd_idx j) {
  const hd_idx i = 2 * m + ((j + a->colour) & 1), sy = a->n + 1, o = i + (j - a->row0) * sy;
  hd_real *HD_RESTRICT u = a->u;
  if (i < 1 || i > a->n - 1) return;
  u[o] += a->omega * (hd_pois_jacobi(a->h2 * a->f[o], u[o + 1], u[o - 1], u[o + sy], u[o - sy]) - u[o]);
}

HD_FN hd_real hd_pois_residual(const hd_pois_level *a, hd_idx o) {
  const hd_idx sy = a->n + 1;
  const hd_real *u = a->u; /* read only while residuals are taken */
  const hd_real c = HD_LOAD(u + o), e = HD_LOAD(u + o + 1), w = HD_LOAD(u + o - 1);
  const hd_real nn = HD_LOAD(u + o + sy), s = HD_LOAD(u + o - sy);
  return hd_pois_residual_of(HD_LOAD(a->f + o), c, e, w, nn, s, a->h2);
}

HD_FN void hd_pois_residual_pt(const hd_pois_level *a, hd_idx i, hd_idx j) {
  const hd_idx o = i + (j - a->row0) * (a->n + 1);
  a->r[o] = hd_pois_residual(a, o);
}

HD_FN void hd_pois_res_norm_pt(const hd_pois_level *a, hd_idx i, hd_idx j, hd_idx k, hd_stats *acc) {
  const hd_idx o = i + (j - a->row0) * (a->n + 1);
  (void)k;
  hd_stats_add(acc, (double)hd_pois_residual(a, o), i + j * (a->n + 1));
}

HD_FN void hd_pois_abs_pt(const hd_pois_level *a, hd_idx i, hd_idx j, hd_idx k, hd_stats *acc) {
  const hd_idx o = i + (j - a->row0) * (a->n + 1);
  (void)k;
  hd_stats_add(acc, (double)a->f[o], i + j * (a->n + 1));
}

/* Fine residual (fine->r) to the coarse right-hand side by full weighting;
 * the coarse correction starts at 0.  (I, J) coarse interior; rows global
 * (a block reads the fine rows 2J - 1 .. 2J + 1). */
typedef struct hd_pois_transfer_args {
  hd_pois_level fine, coarse;
} hd_pois_transfer_args;

HD_FN void hd_pois_restrict_pt(const hd_pois_transfer_args *a, hd_idx ci, hd_idx cj) {
  const hd_idx sf = a->fine.n + 1, o = 2 * ci + (2 * cj - a->fine.row0) * sf;
  const hd_idx oc = ci + (cj - a->coarse.row0) * (a->coarse.n + 1);
  const hd_real *r = a->fine.r;
  hd_real *fc = (hd_real *)a->coarse.f;
  fc[oc] = (HD_R(4) * r[o] + HD_R(2) * (r[o + 1] + r[o - 1] + r[o + sf] + r[o - sf]) + r[o + 1 + sf] +
            r[o - 1 + sf] + r[o + 1 - sf] + r[o - 1 - sf]) *
           HD_R(0.0625);
  a->coarse.u[oc] = HD_R(0);
}

/* Add the bilinear interpolation of the coarse correction; (i, j) fine
 * interior. */
HD_FN void hd_pois_prolong_pt(const hd_pois_transfer_args *a, hd_idx i, hd_idx j) {
  const hd_idx sc = a->coarse.n + 1, i0 = i / 2, i1 = (i + 1) / 2;
  const hd_idx j0 = j / 2 - a->coarse.row0, j1 = (j + 1) / 2 - a->coarse.row0;
  const hd_real *e = a->coarse.u;
  a->fine.u[i + (j - a->fine.row0) * (a->fine.n + 1)] +=
      HD_R(0.25) * (e[i0 + j0 * sc] + e[i1 + j0 * sc] + e[i0 + j1 * sc] + e[i1 + j1 * sc]);
}

HD_DEFINE_FOR_2D(hd_pois_sor_loop, hd_pois_sor_pt, hd_pois_sor_args)
HD_DEFINE_FOR_2D(hd_pois_split_loop, hd_pois_split_pt, hd_pois_split_args)
HD_DEFINE_REDUCE_3D(hd_pois_sor_f_reduce, hd_pois_sor_pair, hd_stats, hd_pois_sor_f_pt, hd_stats_init,
                    hd_stats_merge)
HD_DEFINE_REDUCE_3D(hd_pois_sor_res_reduce, hd_pois_sor_pair, hd_stats, hd_pois_sor_res_pt, hd_stats_init,
                    hd_stats_merge)
HD_DEFINE_FOR_2D(hd_pois_smooth_loop, hd_pois_smooth_pt, hd_pois_level)
HD_DEFINE_FOR_2D(hd_pois_residual_loop, hd_pois_residual_pt, hd_pois_level)
HD_DEFINE_REDUCE_3D(hd_pois_res_reduce, hd_pois_level, hd_stats, hd_pois_res_norm_pt, hd_stats_init,
                    hd_stats_merge)
HD_DEFINE_REDUCE_3D(hd_pois_f_reduce, hd_pois_level, hd_stats, hd_pois_abs_pt, hd_stats_init, hd_stats_merge)
HD_DEFINE_FOR_2D(hd_pois_restrict_loop, hd_pois_restrict_pt, hd_pois_transfer_args)
HD_DEFINE_FOR_2D(hd_pois_prolong_loop, hd_pois_prolong_pt, hd_pois_transfer_args)

/* ---- solvers ---------------------------------------------------------------- */

typedef struct hd_pois_opts {
  double tol;      /* stop at max|r| <= tol max|f| */
  long max_iter;   /* sweeps (SOR) or V-cycles (multigrid) */
  int check_every; /* SOR: sweeps between residual checks */
  double omega;    /* SOR relaxation; 0: the optimum for the grid */
  int pre, post;   /* multigrid smoothing sweeps (0: 2 each) */
} hd_pois_opts;

typedef struct hd_pois_result {
  long iterations; /* sweeps or cycles done */
  long checks;     /* residual reductions */
  double residual; /* final max|r| / max|f| (0 when f = 0) */
} hd_pois_result;

/* The optimal SOR factor for the Dirichlet problem on n x n cells. */
HD_HOST_FN double hd_pois_omega_opt(hd_idx n) {
  return 2.0 / (1.0 + sin(3.14159265358979323846 / (double)n));
}

HD_HOST_FN hd_status hd_pois_check_size(hd_ctx *ctx, hd_idx n, double h) {
  if (n < 2) return hd_fail(ctx, HD_ERR_ARG, "poisson: need at least 2 x 2 cells, got n = %ld", (long)n);
  if (!(h > 0.0)) return hd_fail(ctx, HD_ERR_ARG, "poisson: spacing h = %g must be positive", h);
  return HD_OK;
}

/* max|x| from a reduction, or an error naming the first non-finite value. */
HD_HOST_FN hd_status hd_pois_norm(hd_ctx *ctx, const hd_stats *s, const char *what, double *out) {
  if (s->nonfinite)
    return hd_fail(ctx, HD_ERR_NONFINITE, "poisson: %s is not finite (first at offset %ld)", what,
                   (long)s->first_bad);
  *out = s->count ? fmax(fabs(s->min), fabs(s->max)) : 0.0;
  return HD_OK;
}

#if defined(HD_BACKEND_CUDA)
/* Tuned CUDA colour pass (Degawa's split arrays): a thread per column m
 * marches HD_POIS_SOR_MARCH rows, the other colour's rows j - 1, j, j + 1
 * in registers, so a node costs one new load of each array (own u, f, the
 * other colour's next row) and one store; the east or west neighbour comes
 * from the next lane by a shuffle.  Loads run HD_POIS_SOR_BATCH rows
 * ahead.  Threads past the row load its last node so that every lane takes
 * part in the shuffles; that node is a boundary node and is never written.
 * Shape measured on an H200 (doc/performance.md): batches of 8 rows, 16
 * rows a thread, 128 threads; two columns a thread gained nothing. */
#ifndef HD_POIS_SOR_THREADS
#define HD_POIS_SOR_THREADS 128
#endif
#ifndef HD_POIS_SOR_MARCH
#define HD_POIS_SOR_MARCH 16
#endif
#ifndef HD_POIS_SOR_BATCH
#define HD_POIS_SOR_BATCH 8
#endif

static __device__ __forceinline__ void hd_pois_sor_tuned_row(const hd_pois_sor_args *a, hd_real *HD_RESTRICT own,
                                                             hd_idx o, hd_idx m, hd_idx j, hd_real u, hd_real f,
                                                             hd_real s, hd_real c, hd_real n) {
  const unsigned lane = threadIdx.x & 31u;
  const int p = (int)((j + a->colour) & 1);
  hd_real side;
  if (p) {
    side = __shfl_down_sync(0xffffffffu, c, 1);
    if (lane == 31) side = a->other[o + 1];
  } else {
    side = __shfl_up_sync(0xffffffffu, c, 1);
    if (lane == 0) side = a->other[o - 1];
  }
  {
    const hd_idx i = 2 * m + p;
    if (m < a->w && i >= 1 && i <= a->n - 1)
      own[o] = hd_pois_sor_value(a, u, f, p ? side : c, p ? c : side, n, s);
  }
}

HD_KERNEL void __launch_bounds__(HD_POIS_SOR_THREADS)
    hd_pois_sor_tuned_kernel(HD_KPARAM(hd_pois_sor_args) a, hd_idx j0, hd_idx j1) {
  const hd_idx m = (hd_idx)blockIdx.x * blockDim.x + threadIdx.x;
  const hd_idx mm = m < a.w ? m : a.w - 1, w = a.w;
  const hd_idx jb = j0 + (hd_idx)blockIdx.y * HD_POIS_SOR_MARCH;
  const int rows = (int)((jb + HD_POIS_SOR_MARCH < j1 ? jb + HD_POIS_SOR_MARCH : j1) - jb);
  hd_real *HD_RESTRICT own = a.own;
  const hd_real *HD_RESTRICT v = a.other;
  const hd_real *HD_RESTRICT f = a.f;
  hd_idx o = mm + (jb - a.row0) * w;
  hd_real s = v[o - w], c = v[o];
  int r = 0, b;
  for (; r + HD_POIS_SOR_BATCH <= rows; r += HD_POIS_SOR_BATCH) {
    hd_real un[HD_POIS_SOR_BATCH], fn[HD_POIS_SOR_BATCH], vn[HD_POIS_SOR_BATCH];
#pragma unroll
    for (b = 0; b < HD_POIS_SOR_BATCH; ++b) {
      const hd_idx q = o + b * w;
      un[b] = own[q], fn[b] = f[q], vn[b] = v[q + w];
    }
#pragma unroll
    for (b = 0; b < HD_POIS_SOR_BATCH; ++b) {
      hd_pois_sor_tuned_row(&a, own, o, m, jb + r + b, un[b], fn[b], s, c, vn[b]);
      s = c, c = vn[b], o += w;
    }
  }
  for (; r < rows; ++r) {
    const hd_real n = v[o + w];
    hd_pois_sor_tuned_row(&a, own, o, m, jb + r, own[o], f[o], s, c, n);
    s = c, c = n, o += w;
  }
}

/* One colour pass over the rows of r (all columns m). */
HD_HOST_FN hd_status hd_pois_sor_tuned(hd_ctx *ctx, const hd_pois_sor_args *a, hd_range3 r) {
  const hd_idx rows = r.hi[1] - r.lo[1];
  dim3 grid, block(HD_POIS_SOR_THREADS, 1, 1);
  if (rows <= 0 || a->w <= 0) return HD_OK;
  grid.x = hd_grid_extent(a->w, HD_POIS_SOR_THREADS, 2147483647);
  grid.y = hd_grid_extent(rows, HD_POIS_SOR_MARCH, 65535);
  if ((hd_idx)grid.y * HD_POIS_SOR_MARCH < rows)
    return hd_fail(ctx, HD_ERR_ARG, "poisson: %ld rows are too many for the tuned SOR kernel", (long)rows);
  hd_pois_sor_tuned_kernel<<<grid, block, 0, hd_stream(ctx)>>>(*a, r.lo[1], r.hi[1]);
  return hd_check_launch(ctx, "hd_pois_sor_tuned", __FILE__, __LINE__);
}
#endif

typedef struct hd_pois_sor {
  hd_idx n, w;
  double h;
  hd_real *u[2], *f[2]; /* split colours */
  hd_idx row0, rows;    /* global row of array row 0; rows held */
  hd_idx jlo, jhi;      /* the rows this block updates and checks: [jlo, jhi) */
  /* split grids (NULL otherwise): fill colour array col's ghost rows;
   * replace *v by its maximum over the blocks; 0, or -1 on failure */
  int (*halo)(void *user, hd_real *col);
  int (*max)(void *user, double *v);
  void *user;
  int generic; /* CUDA: the generic loop instead of the tuned colour pass */
#if defined(HD_BACKEND_CUDA)
  /* a split grid's exchanges beside the inner rows (hd_pois_sor_sweeps):
   * the high-priority stream of the rim rows and the exchanges; events */
  cudaStream_t xs;
  cudaEvent_t rim_done, inner_done;
#endif
} hd_pois_sor;

HD_HOST_FN void hd_pois_sor_destroy(hd_ctx *ctx, hd_pois_sor *s) {
  int c;
  for (c = 0; c < 2; ++c) {
    hd_dev_free(ctx, s->u[c]), hd_dev_free(ctx, s->f[c]);
    s->u[c] = s->f[c] = NULL;
  }
#if defined(HD_BACKEND_CUDA)
  if (s->xs) cudaStreamDestroy(s->xs), cudaEventDestroy(s->rim_done), cudaEventDestroy(s->inner_done);
  s->xs = NULL;
#endif
}

/* A block of rows [jlo, jhi) of the grid, held with rows row0 ..
 * row0 + rows - 1; the hooks are set by the caller afterwards. */
HD_HOST_FN hd_status hd_pois_sor_create_block(hd_ctx *ctx, hd_pois_sor *s, hd_idx n, double h, hd_idx row0,
                                              hd_idx rows, hd_idx jlo, hd_idx jhi) {
  const size_t bytes = (size_t)((n / 2 + 1) * rows) * sizeof(hd_real);
  hd_status st = hd_pois_check_size(ctx, n, h);
  int c;
  s->n = n, s->w = n / 2 + 1, s->h = h;
  s->row0 = row0, s->rows = rows, s->jlo = jlo, s->jhi = jhi;
  s->halo = NULL, s->max = NULL, s->user = NULL, s->generic = 0;
  s->u[0] = s->u[1] = s->f[0] = s->f[1] = NULL;
#if defined(HD_BACKEND_CUDA)
  s->xs = NULL;
#endif
  /* zeroed: with n even the last slot of every other row holds no node,
     and the tuned pass reads (never uses) it */
  for (c = 0; c < 2 && st == HD_OK; ++c) {
    st = hd_dev_alloc(ctx, (void **)&s->u[c], bytes);
    if (st == HD_OK) st = hd_dev_zero(ctx, s->u[c], bytes);
    if (st == HD_OK) st = hd_dev_alloc(ctx, (void **)&s->f[c], bytes);
    if (st == HD_OK) st = hd_dev_zero(ctx, s->f[c], bytes);
  }
  if (st != HD_OK) hd_pois_sor_destroy(ctx, s);
  return st;
}

HD_HOST_FN hd_status hd_pois_sor_create(hd_ctx *ctx, hd_pois_sor *s, hd_idx n, double h) {
  return hd_pois_sor_create_block(ctx, s, n, h, 0, n + 1, 0, n + 1);
}

HD_HOST_FN hd_pois_sor_args hd_pois_sor_colour(const hd_pois_sor *s, int c, double omega) {
  hd_pois_sor_args a;
  a.own = s->u[c], a.other = s->u[1 - c], a.f = s->f[c];
  a.n = s->n, a.w = s->w, a.row0 = s->row0, a.colour = c;
  a.omega = (hd_real)omega, a.h2 = (hd_real)(s->h * s->h);
  return a;
}

/* The interior rows this block updates. */
HD_HOST_FN hd_range3 hd_pois_sor_rows(const hd_pois_sor *s, hd_idx k) {
  return hd_range3_make(0, s->w, s->jlo > 1 ? s->jlo : 1, s->jhi < s->n ? s->jhi : s->n, 0, k);
}

HD_HOST_FN hd_status hd_pois_sor_halo(hd_ctx *ctx, const hd_pois_sor *s, int c) {
  if (s->halo && s->halo(s->user, s->u[c])) return hd_fail(ctx, HD_ERR_IO, "poisson: the halo exchange failed");
  return HD_OK;
}

/* One colour pass over the rows of r. */
HD_HOST_FN hd_status hd_pois_sor_pass(hd_ctx *ctx, const hd_pois_sor *s, const hd_pois_sor_args *a, hd_range3 r) {
#if defined(HD_BACKEND_CUDA)
  if (!s->generic) return hd_pois_sor_tuned(ctx, a, r);
#else
  (void)s;
#endif
  return hd_pois_sor_loop(ctx, a, r);
}

/* Sweeps (red then black) with the split arrays as they are.  A split
 * grid's colour pass goes in two: the rim (the block's first and last
 * rows, which the neighbours read) and then its exchange, and beside them
 * the inner rows, which read no ghost row.  On CUDA the rim and the
 * exchange run on a high-priority stream, the inner rows on ctx's: a
 * colour's rim waits for the other colour's inner rows (its neighbours in
 * the block), its inner rows for the other colour's rim, not for that
 * rim's exchange; ctx's stream waits for the last exchange.  On CPUs the
 * same passes one after the other.  The same point updates on the same
 * values: the iterates are the unsplit sweeps' bit for bit. */
HD_HOST_FN hd_status hd_pois_sor_sweeps(hd_ctx *ctx, hd_pois_sor *s, double omega, long sweeps) {
  const hd_range3 r = hd_pois_sor_rows(s, 1);
  hd_range3 rim[2], in = r;
  hd_pois_sor_args a[2];
  hd_status st = HD_OK;
  long k;
  int c, b;
#if defined(HD_BACKEND_CUDA)
  void *const stream = ctx->stream;
#endif
  a[0] = hd_pois_sor_colour(s, 0, omega), a[1] = hd_pois_sor_colour(s, 1, omega);
  if (!s->halo || r.hi[1] - r.lo[1] < 3) { /* one block, or too few rows to split */
    for (k = 0; k < sweeps && st == HD_OK; ++k)
      for (c = 0; c < 2 && st == HD_OK; ++c)
        if ((st = hd_pois_sor_pass(ctx, s, &a[c], r)) == HD_OK) st = hd_pois_sor_halo(ctx, s, c);
    return st;
  }
  rim[0] = rim[1] = r, ++in.lo[1], --in.hi[1];
  rim[0].hi[1] = in.lo[1], rim[1].lo[1] = in.hi[1];
#if defined(HD_BACKEND_CUDA)
  if (!s->xs) {
    int least, greatest;
    HD_CUDA_TRY(ctx, cudaDeviceGetStreamPriorityRange(&least, &greatest));
    HD_CUDA_TRY(ctx, cudaStreamCreateWithPriority(&s->xs, cudaStreamNonBlocking, greatest));
    HD_CUDA_TRY(ctx, cudaEventCreateWithFlags(&s->rim_done, cudaEventDisableTiming));
    HD_CUDA_TRY(ctx, cudaEventCreateWithFlags(&s->inner_done, cudaEventDisableTiming));
  }
  HD_CUDA_TRY(ctx, cudaEventRecord(s->inner_done, hd_stream(ctx))); /* the work before */
#endif
  for (k = 0; k < sweeps && st == HD_OK; ++k)
    for (c = 0; c < 2 && st == HD_OK; ++c) {
#if defined(HD_BACKEND_CUDA)
      cudaError_t e = cudaStreamWaitEvent(s->xs, s->inner_done, 0);
      ctx->stream = (void *)s->xs;
      for (b = 0; b < 2 && st == HD_OK && e == cudaSuccess; ++b) st = hd_pois_sor_pass(ctx, s, &a[c], rim[b]);
      ctx->stream = stream;
      if (e == cudaSuccess && st == HD_OK) e = cudaEventRecord(s->rim_done, s->xs);
      if (e == cudaSuccess && st == HD_OK) e = cudaStreamWaitEvent(hd_stream(ctx), s->rim_done, 0);
      if (e == cudaSuccess && st == HD_OK) st = hd_pois_sor_pass(ctx, s, &a[c], in);
      if (e == cudaSuccess && st == HD_OK) e = cudaEventRecord(s->inner_done, hd_stream(ctx));
      if (e != cudaSuccess) return hd_cuda_fail(ctx, e, "split SOR sweep", __FILE__, __LINE__);
      ctx->stream = (void *)s->xs; /* the exchange after the rim, the inner rows running */
      if (st == HD_OK) st = hd_pois_sor_halo(ctx, s, c);
      ctx->stream = stream;
#else
      for (b = 0; b < 2 && st == HD_OK; ++b) st = hd_pois_sor_pass(ctx, s, &a[c], rim[b]);
      if (st == HD_OK) st = hd_pois_sor_halo(ctx, s, c);
      if (st == HD_OK) st = hd_pois_sor_pass(ctx, s, &a[c], in);
#endif
    }
#if defined(HD_BACKEND_CUDA)
  HD_CUDA_TRY(ctx, cudaEventRecord(s->rim_done, s->xs));
  HD_CUDA_TRY(ctx, cudaStreamWaitEvent(hd_stream(ctx), s->rim_done, 0));
#endif
  return st;
}

/* max|x| over the blocks from this block's reduction (the hook max takes
 * the maximum over the blocks; NULL: one block); a non-finite value on any
 * block is an error on every block. */
HD_HOST_FN hd_status hd_pois_block_norm(hd_ctx *ctx, int (*max)(void *, double *), void *user, const hd_stats *acc,
                                        const char *what, double *out) {
  double v = acc->nonfinite ? HUGE_VAL : acc->count ? fmax(fabs(acc->min), fabs(acc->max)) : 0.0;
  if (!max) return hd_pois_norm(ctx, acc, what, out);
  if (max(user, &v)) return hd_fail(ctx, HD_ERR_IO, "poisson: the global maximum failed");
  if (v == HUGE_VAL) return hd_fail(ctx, HD_ERR_NONFINITE, "poisson: %s is not finite", what);
  *out = v;
  return HD_OK;
}

HD_HOST_FN hd_status hd_pois_sor_norm(hd_ctx *ctx, const hd_pois_sor *s, const hd_stats *acc, const char *what,
                                      double *out) {
  return hd_pois_block_norm(ctx, s->max, s->user, acc, what, out);
}

HD_HOST_FN hd_status hd_pois_sor_residual(hd_ctx *ctx, const hd_pois_sor *s, double *out) {
  hd_pois_sor_pair a;
  hd_stats acc;
  hd_status st;
  a.c[0] = hd_pois_sor_colour(s, 0, 1.0), a.c[1] = hd_pois_sor_colour(s, 1, 1.0);
  st = hd_pois_sor_res_reduce(ctx, &a, hd_pois_sor_rows(s, 2), &acc);
  return st == HD_OK ? hd_pois_sor_norm(ctx, s, &acc, "the residual", out) : st;
}

/* All rows held, ghosts included. */
HD_HOST_FN hd_status hd_pois_split(hd_ctx *ctx, const hd_pois_sor *s, hd_real *nat, hd_real *const col[2],
                                   int to_split) {
  hd_pois_split_args a;
  a.nat = nat, a.col[0] = col[0], a.col[1] = col[1], a.n = s->n, a.w = s->w, a.row0 = s->row0, a.to_split = to_split;
  return hd_pois_split_loop(ctx, &a, hd_range3_make(0, s->w, s->row0, s->row0 + s->rows, 0, 1));
}

HD_HOST_FN hd_status hd_pois_f_norm(hd_ctx *ctx, hd_idx n, const hd_real *f, double *out) {
  hd_pois_level l;
  hd_stats acc;
  hd_status st;
  l.u = NULL, l.r = NULL, l.f = f, l.n = n, l.row0 = 0, l.h2 = 1, l.omega = 1, l.colour = 0;
  st = hd_pois_f_reduce(ctx, &l, hd_range3_make(1, n, 1, n, 0, 1), &acc);
  return st == HD_OK ? hd_pois_norm(ctx, &acc, "the right-hand side", out) : st;
}

/* Solve from the u given (its boundary kept); u and f natural arrays. */
HD_HOST_FN hd_status hd_pois_sor_solve(hd_ctx *ctx, hd_pois_sor *s, hd_real *u, const hd_real *f,
                                       const hd_pois_opts *o, hd_pois_result *res) {
  const double omega = o->omega > 0 ? o->omega : hd_pois_omega_opt(s->n);
  const long every = o->check_every > 0 ? o->check_every : 1;
  double fmax = 0.0, r = 0.0;
  hd_pois_sor_pair fa;
  hd_stats acc;
  hd_status st;
  res->iterations = 0, res->checks = 0, res->residual = 0.0;
  st = hd_pois_split(ctx, s, (hd_real *)f, s->f, 1);
  if (st == HD_OK) st = hd_pois_split(ctx, s, u, s->u, 1);
  fa.c[0] = hd_pois_sor_colour(s, 0, 1.0), fa.c[1] = hd_pois_sor_colour(s, 1, 1.0);
  if (st == HD_OK) st = hd_pois_sor_f_reduce(ctx, &fa, hd_pois_sor_rows(s, 2), &acc);
  if (st == HD_OK) st = hd_pois_sor_norm(ctx, s, &acc, "the right-hand side", &fmax);
  while (st == HD_OK) {
    st = hd_pois_sor_residual(ctx, s, &r);
    res->checks++;
    res->residual = fmax > 0 ? r / fmax : r;
    if (st != HD_OK || r <= o->tol * fmax) break;
    if (res->iterations >= o->max_iter) {
      st = hd_fail(ctx, HD_ERR_NOCONV, "poisson: SOR residual %.3g of max|f| after %ld sweeps (tolerance %g)",
                   res->residual, res->iterations, o->tol);
      break;
    }
    {
      const long k = every < o->max_iter - res->iterations ? every : o->max_iter - res->iterations;
      st = hd_pois_sor_sweeps(ctx, s, omega, k);
      res->iterations += k;
    }
  }
  if (st == HD_OK || st == HD_ERR_NOCONV) {
    const hd_status m = hd_pois_split(ctx, s, u, s->u, 0);
    if (m != HD_OK) st = m;
  }
  return st;
}

/* Multigrid also runs on a block of rows of a grid split over processes
 * (hd_pois_mg_create_block).  Level l < `gathered` holds this block's rows
 * [jlo[l], jhi[l]) — the rows J whose fine row 2J the finer level's block
 * holds, so that the restriction and the prolongation read no row beyond
 * the ghost rows — and `depth` ghost rows each side (array row 0 is global
 * row jlo[l] - depth), filled by the hook `halo`.  Level 0, the caller's
 * arrays, has one: its ghost rows are exchanged after each colour of a
 * sweep, after the residual (which the restriction reads) and after the
 * prolongation.  The coarser block levels, where the exchanges' latency
 * outweighs their work, have two and compute the first ghost row as their
 * neighbour does (the first colour of a sweep, the residual; the
 * prolongation both): exchanges after the restriction and after each
 * sweep, 5 a level instead of 10.  From level `gathered` on (the first of
 * at most gather_n cells a side, or where some block would hold fewer
 * rows than its depth) every block gathers the level's right-hand side and
 * runs the rest of the cycle on the whole level, as one process does.
 * Same operations on the same values: the split grid iterates exactly as
 * the whole one. */
#define HD_POIS_MG_GATHER_N 64

typedef struct hd_pois_mg {
  int levels;
  hd_idx n[HD_POIS_MG_MAX_LEVELS];
  double h;
  hd_real *u[HD_POIS_MG_MAX_LEVELS], *f[HD_POIS_MG_MAX_LEVELS], *r[HD_POIS_MG_MAX_LEVELS];
  int gathered;                          /* levels below are blocks of rows (0: the whole grid) */
  hd_idx jlo[HD_POIS_MG_MAX_LEVELS], jhi[HD_POIS_MG_MAX_LEVELS]; /* this block's rows of each level */
  /* split grids (NULL otherwise): fill the `depth` ghost rows each side of
   * a block level's array `width` values wide holding `rows` rows besides
   * them (each block's own `depth` rows next to its neighbours); replace *v
   * by its maximum over the blocks; fill every row of the whole host array
   * (`width` values a row) from the blocks, this one having filled rows
   * [lo, hi); 0, or -1 on failure */
  int (*halo)(void *user, hd_real *arr, hd_idx width, hd_idx rows, int depth);
  int (*max)(void *user, double *v);
  int (*gather)(void *user, hd_real *whole, hd_idx width, hd_idx lo, hd_idx hi);
  void *user;
  hd_real *host; /* the gathered level's right-hand side on the host */
  /* CUDA: the V-cycle recorded once as a graph (~100 small launches, so
     the cycle is launch-bound) and replayed while u, f and the sweeps stay
     the same (the whole grid only: a split one's exchanges go through the
     host); NULL elsewhere */
  void *graph;
  const void *graph_u, *graph_f;
  int graph_pre, graph_post;
} hd_pois_mg;

HD_HOST_FN void hd_pois_mg_forget_graph(hd_pois_mg *m) {
#if defined(HD_BACKEND_CUDA)
  if (m->graph) cudaGraphExecDestroy((cudaGraphExec_t)m->graph);
#endif
  m->graph = NULL, m->graph_u = m->graph_f = NULL;
}

HD_HOST_FN void hd_pois_mg_destroy(hd_ctx *ctx, hd_pois_mg *m) {
  int l;
  hd_pois_mg_forget_graph(m);
  for (l = 0; l < m->levels; ++l) {
    if (l > 0) hd_dev_free(ctx, m->u[l]), hd_dev_free(ctx, m->f[l]);
    hd_dev_free(ctx, m->r[l]);
    m->u[l] = m->f[l] = m->r[l] = NULL;
  }
  hd_host_free(m->host);
  m->host = NULL;
  m->levels = 0;
}

/* The levels n, n/2, ... while even and >= 4, without allocating; the
 * coarsest must be <= 64.  Returns the level count, or 0 after hd_fail. */
HD_HOST_FN int hd_pois_mg_plan(hd_ctx *ctx, hd_pois_mg *m, hd_idx n, double h) {
  int l;
  m->levels = 0, m->h = h, m->gathered = 0;
  m->halo = NULL, m->max = NULL, m->gather = NULL, m->user = NULL, m->host = NULL;
  m->graph = NULL, m->graph_u = m->graph_f = NULL;
  if (hd_pois_check_size(ctx, n, h) != HD_OK) return 0;
  m->n[0] = n;
  for (l = 1; m->n[l - 1] % 2 == 0 && m->n[l - 1] >= 4 && l < HD_POIS_MG_MAX_LEVELS; ++l) m->n[l] = m->n[l - 1] / 2;
  if (m->n[l - 1] > HD_POIS_MG_MAX_COARSE) {
    hd_fail(ctx, HD_ERR_ARG,
            "poisson: multigrid needs n = m 2^k with m <= %d; n = %ld coarsens only to %ld (use SOR, or a size "
            "such as %ld)",
            HD_POIS_MG_MAX_COARSE, (long)n, (long)m->n[l - 1], (long)(n / 64 * 64 > 0 ? n / 64 * 64 : 64));
    return 0;
  }
  return l;
}

/* Rows of level l of the block holding rows [lo, hi) of level 0. */
HD_HOST_FN hd_idx hd_pois_mg_row_at(hd_idx row, int l) {
  return (row + ((hd_idx)1 << l) - 1) >> l;
}

/* Ghost rows each side of level l (0: a whole level). */
HD_HOST_FN int hd_pois_mg_depth(const hd_pois_mg *m, int l) {
  return l >= m->gathered ? 0 : l == 0 ? 1 : 2;
}

/* Array rows of level l: a block's with its ghost rows, or the whole level's. */
HD_HOST_FN hd_idx hd_pois_mg_held(const hd_pois_mg *m, int l) {
  return l < m->gathered ? m->jhi[l] - m->jlo[l] + 2 * hd_pois_mg_depth(m, l) : m->n[l] + 1;
}

/* Block `part` of `parts` holding rows [lo[part], hi[part]) of the n + 1
 * node rows (the blocks in order, covering them); its level-0 arrays (the
 * caller's u and f) hold those rows and a ghost row each side.  The hooks
 * are set by the caller afterwards.  gather_n 0: HD_POIS_MG_GATHER_N. */
HD_HOST_FN hd_status hd_pois_mg_create_block(hd_ctx *ctx, hd_pois_mg *m, hd_idx n, double h, int parts, int part,
                                             const hd_idx *lo, const hd_idx *hi, hd_idx gather_n) {
  const int l = hd_pois_mg_plan(ctx, m, n, h);
  hd_status st = HD_OK;
  int k, p;
  if (l == 0) return HD_ERR_ARG;
  if (parts > 1 && (part < 0 || part >= parts || !lo || !hi))
    return hd_fail(ctx, HD_ERR_ARG, "poisson: block %d of %d blocks of rows", part, parts);
  if (gather_n <= 0) gather_n = HD_POIS_MG_GATHER_N;
  for (k = 0; k < l; ++k) {
    m->jlo[k] = parts > 1 ? hd_pois_mg_row_at(lo[part], k) : 0;
    m->jhi[k] = parts > 1 ? hd_pois_mg_row_at(hi[part], k) : m->n[k] + 1;
  }
  /* blocks while the level is larger than gather_n and every block holds two rows (level 0 always) */
  for (m->gathered = parts > 1 ? 1 : 0; parts > 1 && m->gathered < l - 1 && m->n[m->gathered] > gather_n;
       ++m->gathered) {
    for (p = 0; p < parts && hd_pois_mg_row_at(hi[p], m->gathered) >= hd_pois_mg_row_at(lo[p], m->gathered) + 2; ++p)
      ;
    if (p < parts) break;
  }
  for (m->levels = 0; m->levels < l && st == HD_OK; ++m->levels) {
    const int k = m->levels;
    const size_t bytes = (size_t)((m->n[k] + 1) * hd_pois_mg_held(m, k)) * sizeof(hd_real);
    m->u[k] = m->f[k] = m->r[k] = NULL;
    if (k > 0) {
      st = hd_dev_alloc(ctx, (void **)&m->u[k], bytes);
      if (st == HD_OK) st = hd_dev_zero(ctx, m->u[k], bytes);
      if (st == HD_OK) st = hd_dev_alloc(ctx, (void **)&m->f[k], bytes);
      if (st == HD_OK) st = hd_dev_zero(ctx, m->f[k], bytes);
    }
    if (st == HD_OK) st = hd_dev_alloc(ctx, (void **)&m->r[k], bytes);
    if (st == HD_OK) st = hd_dev_zero(ctx, m->r[k], bytes);
    if (st == HD_OK && k == m->gathered && m->gathered > 0 && !(m->host = (hd_real *)hd_host_alloc(bytes)))
      st = hd_fail(ctx, HD_ERR_NOMEM, "poisson: out of host memory for the gathered level");
  }
  if (st != HD_OK) hd_pois_mg_destroy(ctx, m);
  return st;
}

HD_HOST_FN hd_status hd_pois_mg_create(hd_ctx *ctx, hd_pois_mg *m, hd_idx n, double h) {
  return hd_pois_mg_create_block(ctx, m, n, h, 1, 0, NULL, NULL, 0);
}

HD_HOST_FN hd_pois_level hd_pois_mg_level(const hd_pois_mg *m, int l) {
  hd_pois_level a;
  const double h = m->h * (double)(m->n[0] / m->n[l]);
  a.u = m->u[l], a.f = m->f[l], a.r = m->r[l], a.n = m->n[l];
  a.row0 = l < m->gathered ? m->jlo[l] - hd_pois_mg_depth(m, l) : 0;
  a.h2 = (hd_real)(h * h), a.omega = 1, a.colour = 0;
  return a;
}

/* The interior rows of level l this block computes, its own and `ext` of
 * its ghost rows each side (all on a whole level); columns [i0, i1). */
HD_HOST_FN hd_range3 hd_pois_mg_rows(const hd_pois_mg *m, int l, hd_idx i0, hd_idx i1, int ext) {
  const hd_idx lo = l < m->gathered && m->jlo[l] - ext > 1 ? m->jlo[l] - ext : 1;
  const hd_idx hi = l < m->gathered && m->jhi[l] + ext < m->n[l] ? m->jhi[l] + ext : m->n[l];
  return hd_range3_make(i0, i1, lo, hi > lo ? hi : lo, 0, 1);
}

HD_HOST_FN hd_status hd_pois_mg_halo(hd_ctx *ctx, const hd_pois_mg *m, int l, hd_real *arr) {
  if (l >= m->gathered || !m->halo) return HD_OK;
  if (m->halo(m->user, arr, m->n[l] + 1, m->jhi[l] - m->jlo[l], hd_pois_mg_depth(m, l)))
    return hd_fail(ctx, HD_ERR_IO, "poisson: the multigrid halo exchange failed");
  return HD_OK;
}

HD_HOST_FN hd_status hd_pois_smooth(hd_ctx *ctx, const hd_pois_mg *m, int l, double omega, long sweeps) {
  hd_pois_level a = hd_pois_mg_level(m, l);
  const int deep = hd_pois_mg_depth(m, l) == 2; /* the first colour on the first ghost rows too */
  hd_status st = HD_OK;
  long k;
  a.omega = (hd_real)omega;
  for (k = 0; k < 2 * sweeps && st == HD_OK; ++k) {
    a.colour = (int)(k & 1);
    st = hd_pois_smooth_loop(ctx, &a, hd_pois_mg_rows(m, l, 0, a.n / 2 + 1, deep && !a.colour));
    if (st == HD_OK && (a.colour || !deep)) st = hd_pois_mg_halo(ctx, m, l, a.u);
  }
  return st;
}

/* The right-hand side of the first whole level from the blocks' rows of
 * it; its correction starts at 0 everywhere (as the restriction leaves it
 * on one process). */
HD_HOST_FN hd_status hd_pois_mg_gather(hd_ctx *ctx, const hd_pois_mg *m) {
  const int g = m->gathered;
  const hd_idx sy = m->n[g] + 1;
  const size_t row = (size_t)sy * sizeof(hd_real), whole = (size_t)sy * row;
  hd_status st = hd_dev_download(ctx, m->host + m->jlo[g] * sy, m->f[g] + m->jlo[g] * sy,
                                 (size_t)(m->jhi[g] - m->jlo[g]) * row);
  if (st == HD_OK && m->gather(m->user, m->host, sy, m->jlo[g], m->jhi[g]))
    st = hd_fail(ctx, HD_ERR_IO, "poisson: gathering the coarse multigrid level failed");
  if (st == HD_OK) st = hd_dev_upload(ctx, m->f[g], m->host, whole);
  if (st == HD_OK) st = hd_dev_zero(ctx, m->u[g], whole);
  return st;
}

HD_HOST_FN hd_status hd_pois_vcycle(hd_ctx *ctx, const hd_pois_mg *m, int l, int pre, int post) {
  const hd_pois_level a = hd_pois_mg_level(m, l);
  hd_pois_transfer_args t;
  hd_status st;
  if (l == m->levels - 1) /* coarsest (a whole level): one sweep is exact for one unknown */
    return hd_pois_smooth(ctx, m, l, hd_pois_omega_opt(a.n), a.n <= 2 ? 1 : 4 * a.n);
  const int deep = hd_pois_mg_depth(m, l) == 2;
  t.fine = a, t.coarse = hd_pois_mg_level(m, l + 1);
  st = hd_pois_smooth(ctx, m, l, 1.0, pre);
  if (st == HD_OK) st = hd_pois_residual_loop(ctx, &a, hd_pois_mg_rows(m, l, 1, a.n, deep));
  if (st == HD_OK && !deep) st = hd_pois_mg_halo(ctx, m, l, a.r);
  if (st == HD_OK && l + 1 < m->gathered) /* the ghost rows' correction starts at 0 too */
    st = hd_dev_zero(ctx, t.coarse.u, (size_t)((t.coarse.n + 1) * hd_pois_mg_held(m, l + 1)) * sizeof(hd_real));
  if (st == HD_OK) {
    hd_range3 r = hd_pois_mg_rows(m, l + 1, 1, t.coarse.n, 0);
    if (l + 1 == m->gathered) { /* this block's rows of the first whole level */
      r.lo[1] = m->jlo[l + 1] > 1 ? m->jlo[l + 1] : 1, r.hi[1] = m->jhi[l + 1] < t.coarse.n ? m->jhi[l + 1] : t.coarse.n;
      if (r.hi[1] < r.lo[1]) r.hi[1] = r.lo[1];
    }
    st = hd_pois_restrict_loop(ctx, &t, r);
  }
  if (st == HD_OK && l + 1 == m->gathered) st = hd_pois_mg_gather(ctx, m);
  if (st == HD_OK && l + 1 < m->gathered) st = hd_pois_mg_halo(ctx, m, l + 1, (hd_real *)t.coarse.f);
  if (st == HD_OK) st = hd_pois_vcycle(ctx, m, l + 1, pre, post);
  if (st == HD_OK) st = hd_pois_prolong_loop(ctx, &t, hd_pois_mg_rows(m, l, 1, a.n, 2 * deep));
  if (st == HD_OK && !deep) st = hd_pois_mg_halo(ctx, m, l, a.u);
  if (st == HD_OK) st = hd_pois_smooth(ctx, m, l, 1.0, post);
  return st;
}

/* One V-cycle from the finest level.  On CUDA the cycle's launches are
 * recorded once as a graph and replayed (the same kernels in the same
 * order, so the same bits) while u, f and the sweeps stay the same. */
typedef struct hd_pois_mg_cycle_args {
  hd_pois_mg *m;
  int pre, post;
} hd_pois_mg_cycle_args;

HD_HOST_FN hd_status hd_pois_mg_cycle_launches(hd_ctx *ctx, void *arg) {
  const hd_pois_mg_cycle_args *c = (const hd_pois_mg_cycle_args *)arg;
  return hd_pois_vcycle(ctx, c->m, 0, c->pre, c->post);
}

HD_HOST_FN hd_status hd_pois_mg_cycle(hd_ctx *ctx, hd_pois_mg *m, int pre, int post) {
  hd_pois_mg_cycle_args c;
  c.m = m, c.pre = pre, c.post = post;
#if defined(HD_BACKEND_CUDA) && !defined(HD_DEBUG)
  if (m->gathered) return hd_pois_mg_cycle_launches(ctx, &c);
  if (!m->graph || m->graph_u != m->u[0] || m->graph_f != m->f[0] || m->graph_pre != pre ||
      m->graph_post != post) {
    hd_status st;
    hd_pois_mg_forget_graph(m);
    st = hd_graph_record(ctx, hd_pois_mg_cycle_launches, &c, "recording the V-cycle as a CUDA graph", &m->graph);
    if (st != HD_OK) return st;
    m->graph_u = m->u[0], m->graph_f = m->f[0];
    m->graph_pre = pre, m->graph_post = post;
  }
  HD_CUDA_TRY(ctx, cudaGraphLaunch((cudaGraphExec_t)m->graph, hd_stream(ctx)));
  return HD_OK;
#else
  return hd_pois_mg_cycle_launches(ctx, &c);
#endif
}

/* Solve from the u given (its boundary kept); on a block, u's ghost rows
 * are filled first. */
HD_HOST_FN hd_status hd_pois_mg_solve(hd_ctx *ctx, hd_pois_mg *m, hd_real *u, const hd_real *f,
                                      const hd_pois_opts *o, hd_pois_result *res) {
  const int pre = o->pre > 0 ? o->pre : 2, post = o->post > 0 ? o->post : 2;
  double fmax = 0.0, r = 0.0;
  hd_status st;
  hd_pois_level top;
  hd_range3 rows;
  hd_stats acc;
  m->u[0] = u, m->f[0] = (hd_real *)f;
  top = hd_pois_mg_level(m, 0), rows = hd_pois_mg_rows(m, 0, 1, top.n, 0);
  res->iterations = 0, res->checks = 0, res->residual = 0.0;
  st = hd_pois_f_reduce(ctx, &top, rows, &acc);
  if (st == HD_OK) st = hd_pois_block_norm(ctx, m->max, m->user, &acc, "the right-hand side", &fmax);
  if (st == HD_OK) st = hd_pois_mg_halo(ctx, m, 0, u);
  while (st == HD_OK) {
    st = hd_pois_res_reduce(ctx, &top, rows, &acc);
    if (st == HD_OK) st = hd_pois_block_norm(ctx, m->max, m->user, &acc, "the residual", &r);
    res->checks++;
    res->residual = fmax > 0 ? r / fmax : r;
    if (st != HD_OK || r <= o->tol * fmax) break;
    if (res->iterations >= o->max_iter) {
      st = hd_fail(ctx, HD_ERR_NOCONV, "poisson: multigrid residual %.3g of max|f| after %ld V-cycles (tolerance %g)",
                   res->residual, res->iterations, o->tol);
      break;
    }
    st = hd_pois_mg_cycle(ctx, m, pre, post);
    res->iterations++;
  }
  m->u[0] = NULL, m->f[0] = NULL;
  return st;
}

#endif /* HD_POISSON_H */
