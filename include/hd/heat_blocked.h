/* hd/heat_blocked.h - temporal blocking for the heat step of hd/heat.h:
 * several time steps per sweep of memory, bit-identical to single steps.
 *
 * hd_heat_step_blocked(ctx, a, steps, &in_next) advances a->t by `steps`
 * steps using both fields of a (t, t_next): the result, ghosts included,
 * lies in a->t_next when in_next comes back 1 and in a->t when 0, equal bit
 * for bit to `steps` single steps (the same update and ghost functions with
 * the same arguments in the same order).
 *
 * CPU backends: a wavefront over slabs of the last axis (planes in 3-D,
 * rows in 2-D).  At wave w, step s (1 .. steps, in that order) updates
 * slab w - (s - 1): the slab above it has just been brought to step s - 1
 * in the same wave, the one below a wave earlier, and the values step s
 * overwrites (step s - 2's) have been read by every step s - 1 that needs
 * them.  A wave touches about steps + 2 slabs of each field; slabs are
 * sized so that this stays in HD_HEAT_BLOCK_CACHE bytes, or ctx->block[2]
 * units thick when set.
 *
 * Faces shared with a neighbouring block (HD_HEAT_HALO) need a halo
 * exchange between steps: HD_ERR_UNSUPPORTED (step singly).
 *
 * CUDA: up to HD_HEAT_TB_MAX steps a launch, tiles streamed along the last
 * axis in segments, one level of registers and shared memory a step
 * (hd_heat_tb_kernel); ctx->block is its block shape and segment length
 * (the single steps of a source array or of the last step keep their
 * defaults). */
#ifndef HD_HEAT_BLOCKED_H
#define HD_HEAT_BLOCKED_H

#include "heat.h"

/* Cache a CPU wave should stay within (bytes). */
#ifndef HD_HEAT_BLOCK_CACHE
#define HD_HEAT_BLOCK_CACHE ((hd_idx)1 << 20)
#endif

/* Slab thickness (units of the last axis) for `steps` steps a wave. */
HD_HOST_FN hd_idx hd_heat_block_slab(const hd_heat_args *a, int steps) {
  const hd_grid *g = &a->g;
  const hd_idx unit = g->stride[g->dim == 3 ? 2 : 1] * (hd_idx)sizeof(hd_real);
  const hd_idx slab = unit > 0 ? HD_HEAT_BLOCK_CACHE / (2 * (steps + 2) * unit) : 1;
  return slab > 0 ? slab : 1;
}

#if defined(HD_BACKEND_CUDA)

/* Steps one launch takes (its levels live in registers and shared memory),
 * and planes level 0 loads ahead (to cover the memory's latency). */
#define HD_HEAT_TB_MAX 8
#ifndef HD_HEAT_TB_AHEAD
#define HD_HEAT_TB_AHEAD 4
#endif

/* One launch, T steps from a->t into a->t_next.  A block of BX x BY
 * threads (2-D: BX x 1) holds a tile of columns, T cells of halo on each
 * side, and streams the tile along the last axis.  Level 0 loads plane z;
 * level l (1 .. T) updates plane z - l from level l - 1's planes z - l - 1,
 * z - l, z - l + 1, the first two a shift register per level (a thread's
 * own column: the neighbours across the planes) and the middle one also in
 * shared memory (the neighbours within the plane, written an iteration
 * earlier, two buffers a level); level T's tile interior is stored with
 * its face ghosts.  The halo's cells come out wrong by one more cell each
 * level and are never stored.  Ghosts at levels 1 .. T - 1 are not stored
 * either: a face cell takes hd_heat_ghost of its own value in place of the
 * neighbour it lacks, as the single step would have stored it.  The update
 * is hd_heat_update_2d/3d with the single step's arguments in its order. */
template <int T, int D>
static __global__ void __launch_bounds__(1024) hd_heat_tb_kernel(HD_KPARAM(hd_heat_args) a, int segment) {
  extern __shared__ unsigned char hd_heat_tb_smem[];
  hd_real *sh = (hd_real *)hd_heat_tb_smem; /* [T][2][BY][BX] */
  const int tx = (int)threadIdx.x, ty = (int)threadIdx.y, bx = (int)blockDim.x, by = (int)blockDim.y;
  const int plane = bx * by;
  const hd_idx nx = a.g.n[0], ny = D == 3 ? a.g.n[1] : 1, ns = a.g.n[D - 1];
  const hd_idx sy = a.g.stride[1], ss = a.g.stride[D - 1];
  const hd_idx i = (hd_idx)blockIdx.x * (bx - 2 * T) + tx - T + 1;
  const hd_idx j = D == 3 ? (hd_idx)blockIdx.y * (by - 2 * T) + ty - T + 1 : 0;
  const hd_idx ic = i < 0 ? 0 : i > nx + 1 ? nx + 1 : i, jc = D == 3 ? (j < 0 ? 0 : j > ny + 1 ? ny + 1 : j) : 0;
  /* this block's planes [z0, z1), and the planes before and after them its
     levels need: level 0 loads from zs on */
  const int z0 = 1 + (int)blockIdx.z * segment, z1 = z0 + segment < (int)ns + 1 ? z0 + segment : (int)ns + 1;
  const int zs = z0 - T > 0 ? z0 - T : 0, top = (int)ns + 1;
  const int inside = i >= 1 && i <= nx && (D == 2 || (j >= 1 && j <= ny));
  const int store = inside && tx >= T && tx < bx - T && (D == 2 || (ty >= T && ty < by - T));
  const int xlo = inside && i == 1, xhi = inside && i == nx;
  const int ylo = D == 3 && inside && j == 1, yhi = D == 3 && inside && j == ny;
  const int me = tx + bx * ty, w_ = tx > 0 ? me - 1 : me, e_ = tx < bx - 1 ? me + 1 : me;
  const int s_ = D == 3 && ty > 0 ? me - bx : me, n_ = D == 3 && ty < by - 1 ? me + bx : me;
  /* warps holding a face cell take the face branches (a warp-uniform test) */
  const int edge = __any_sync(0xffffffffu, xlo || xhi || ylo || yhi);
  const hd_real *src = a.t + ic + jc * sy;
  hd_real *dst = a.t_next + ic + jc * sy;
  hd_real w[T][3]; /* level l's planes q - 2, q - 1, q, q its latest */
  hd_real ahead[HD_HEAT_TB_AHEAD]; /* level 0's next planes: loads in flight across iterations */
  int z, l, u;
#pragma unroll
  for (u = 0; u < HD_HEAT_TB_AHEAD; ++u) ahead[u] = zs + u <= top ? src[(hd_idx)(zs + u) * ss] : HD_R(0);
#pragma unroll
  for (l = 0; l < T; ++l) {
#pragma unroll
    for (u = 0; u < 3; ++u) w[l][u] = HD_R(0);
    sh[(2 * l) * plane + me] = sh[(2 * l + 1) * plane + me] = HD_R(0);
  }
  __syncthreads();
  for (z = zs; z < z1 + T; ++z) {
#pragma unroll
    for (l = 0; l <= T; ++l) {
      const int p = z - l; /* the plane level l works on */
      hd_real v;
      if (p < zs || p > top || (l == T && p < z0)) continue;
      if (l == 0) {
        v = ahead[0];
#pragma unroll
        for (u = 0; u + 1 < HD_HEAT_TB_AHEAD; ++u) ahead[u] = ahead[u + 1];
        if (p + HD_HEAT_TB_AHEAD <= top) ahead[HD_HEAT_TB_AHEAD - 1] = src[(hd_idx)(p + HD_HEAT_TB_AHEAD) * ss];
      } else if (p < 1 || p >= top) {
        v = HD_R(0); /* a ghost plane above level 0: never read */
      } else {
        const hd_real *in = sh + ((l - 1) * 2 + (int)(p & 1)) * plane;
        const hd_real c = w[l - 1][1];
        hd_real xm = in[w_], xp = in[e_], zm = w[l - 1][0], zp = w[l - 1][2];
        hd_real ym = D == 3 ? in[s_] : HD_R(0), yp = D == 3 ? in[n_] : HD_R(0);
        if (l > 1 && (edge || p == 1 || p == top - 1)) { /* level l - 1's ghosts: the face conditions of this cell */
          if (xlo) xm = hd_heat_ghost(&a.bc[HD_XLO], c);
          if (xhi) xp = hd_heat_ghost(&a.bc[HD_XHI], c);
          if (ylo) ym = hd_heat_ghost(&a.bc[HD_YLO], c);
          if (yhi) yp = hd_heat_ghost(&a.bc[HD_YHI], c);
          if (p == 1) zm = hd_heat_ghost(&a.bc[2 * D - 2], c);
          if (p == top - 1) zp = hd_heat_ghost(&a.bc[2 * D - 1], c);
        }
        if (D == 3) {
          v = hd_heat_update_3d(c, xm, xp, ym, yp, zm, zp, a.c, a.dtq);
        } else {
          v = hd_heat_update_2d(c, xm, xp, zm, zp, a.c, a.dtq);
        }
      }
      if (l == T) {
        if (store) {
          hd_real *o = dst + (hd_idx)p * ss;
          *o = v;
          if (edge || p == 1 || p == top - 1) {
            if (xlo) hd_heat_set_ghost(&a.bc[HD_XLO], o - 1, v);
            if (xhi) hd_heat_set_ghost(&a.bc[HD_XHI], o + 1, v);
            if (ylo) hd_heat_set_ghost(&a.bc[HD_YLO], o - sy, v);
            if (yhi) hd_heat_set_ghost(&a.bc[HD_YHI], o + sy, v);
            if (p == 1) hd_heat_set_ghost(&a.bc[2 * D - 2], o - ss, v);
            if (p == top - 1) hd_heat_set_ghost(&a.bc[2 * D - 1], o + ss, v);
          }
        }
      } else {
        const int k = l < T ? l : 0; /* l < T here */
        w[k][0] = w[k][1], w[k][1] = w[k][2], w[k][2] = v;
        sh[(k * 2 + (int)(p & 1)) * plane + me] = v;
      }
    }
    __syncthreads();
  }
}

/* Threads of a block and planes a block: 2-D 256 x 1 and 256 rows, 3-D
 * 32 x 32 and 64 planes, or ctx->block. */
template <int T, int D>
HD_HOST_FN hd_status hd_heat_tb_launch(hd_ctx *ctx, const hd_heat_args *a) {
  const unsigned bx = ctx->block[0] > 0 ? (unsigned)ctx->block[0] : (D == 3 ? 32u : 256u);
  const unsigned by = D == 3 ? (ctx->block[1] > 0 ? (unsigned)ctx->block[1] : 32u) : 1u;
  const int segment = ctx->block[2] > 0 ? ctx->block[2] : (D == 3 ? 64 : 256);
  const size_t smem = (size_t)T * 2 * bx * by * sizeof(hd_real);
  dim3 block(bx, by, 1), grid;
  if (bx <= 2 * T || (D == 3 && by <= 2 * T) || bx * by > 1024)
    return hd_fail(ctx, HD_ERR_ARG, "heat: time blocks of %d steps need blocks wider than %d threads (%u x %u)", T,
                   2 * T, bx, by);
  grid.x = hd_grid_extent(a->g.n[0], bx - 2 * T, 2147483647);
  grid.y = D == 3 ? hd_grid_extent(a->g.n[1], by - 2 * T, 65535) : 1;
  grid.z = hd_grid_extent(a->g.n[D - 1], (unsigned)segment, 65535);
  if ((hd_idx)grid.z * segment < a->g.n[D - 1] || (D == 3 && (hd_idx)grid.y * (by - 2 * T) < a->g.n[1]))
    return hd_fail(ctx, HD_ERR_ARG, "heat: grid too large for time blocks of %d planes", segment);
  if (smem > 48 * 1024)
    HD_CUDA_TRY(ctx, cudaFuncSetAttribute(hd_heat_tb_kernel<T, D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          (int)smem));
  hd_heat_tb_kernel<T, D><<<grid, block, smem, hd_stream(ctx)>>>(*a, segment);
  return hd_check_launch(ctx, "hd_heat_step_blocked", __FILE__, __LINE__);
}

template <int D>
HD_HOST_FN hd_status hd_heat_tb_dispatch(hd_ctx *ctx, const hd_heat_args *a, int t) {
  switch (t) {
    case 2: return hd_heat_tb_launch<2, D>(ctx, a);
    case 3: return hd_heat_tb_launch<3, D>(ctx, a);
    case 4: return hd_heat_tb_launch<4, D>(ctx, a);
    case 5: return hd_heat_tb_launch<5, D>(ctx, a);
    case 6: return hd_heat_tb_launch<6, D>(ctx, a);
    case 7: return hd_heat_tb_launch<7, D>(ctx, a);
    default: return hd_heat_tb_launch<8, D>(ctx, a);
  }
}

/* Launches of up to HD_HEAT_TB_MAX steps, each from t into t_next, the
 * fields swapped after each; a source array steps singly. */
HD_HOST_FN hd_status hd_heat_step_blocked(hd_ctx *ctx, const hd_heat_args *a, int steps, int *in_next) {
  hd_heat_args b = *a;
  int f;
  *in_next = 0;
  for (f = 0; f < HD_NFACES; ++f)
    if (a->bc[f].kind == HD_HEAT_HALO) return hd_fail(ctx, HD_ERR_UNSUPPORTED, "heat: time blocks take no halo faces");
  while (steps > 0) {
    const int t = b.q || b.g.dim == 1 ? 1 : steps < HD_HEAT_TB_MAX ? steps : HD_HEAT_TB_MAX;
    hd_real *swap = b.t_next;
    hd_status st;
    if (t == 1) { /* the single step's own launch shape */
      int shape[3];
      memcpy(shape, ctx->block, sizeof shape);
      memset(ctx->block, 0, sizeof shape);
      st = hd_heat_step_tuned(ctx, &b);
      memcpy(ctx->block, shape, sizeof shape);
    } else {
      st = b.g.dim == 3 ? hd_heat_tb_dispatch<3>(ctx, &b, t) : hd_heat_tb_dispatch<2>(ctx, &b, t);
    }
    if (st != HD_OK) return st;
    b.t_next = (hd_real *)b.t, b.t = swap;
    *in_next ^= 1, steps -= t;
  }
  return HD_OK;
}

#elif !defined(HD_HEAT_HAS_TUNED)

HD_HOST_FN hd_status hd_heat_step_blocked(hd_ctx *ctx, const hd_heat_args *a, int steps, int *in_next) {
  (void)ctx, (void)a, (void)steps, (void)in_next;
  return hd_fail(ctx, HD_ERR_UNSUPPORTED, "heat: time blocks need the tuned step");
}

#else /* CPU backends */

HD_HOST_FN hd_status hd_heat_step_blocked(hd_ctx *ctx, const hd_heat_args *a, int steps, int *in_next) {
  const hd_grid *g = &a->g;
  const int three = g->dim == 3;
  const hd_range3 r = hd_grid_interior(g);
  const hd_idx units = three ? g->n[2] : g->n[1], rows = three ? g->n[1] : 1;
  void (*row)(const hd_heat_args *, hd_idx, hd_idx) =
      three ? (a->q ? hd_heat_cpu_row_3d_q : hd_heat_cpu_row_3d) : (a->q ? hd_heat_cpu_row_2d_q : hd_heat_cpu_row_2d);
  hd_heat_args by[2];
  hd_idx w, slab, nslab;
  int f;
  *in_next = steps > 0 && steps % 2;
  for (f = 0; f < HD_NFACES; ++f)
    if (a->bc[f].kind == HD_HEAT_HALO) return hd_fail(ctx, HD_ERR_UNSUPPORTED, "heat: time blocks take no halo faces");
  if (steps < 1 || units < 1) return HD_OK;
  slab = ctx->block[2] > 0 ? ctx->block[2] : hd_heat_block_slab(a, steps);
  nslab = (units + slab - 1) / slab;
  by[0] = *a; /* odd steps read t and write t_next, even ones the reverse */
  by[1] = *a, by[1].t = a->t_next, by[1].t_next = (hd_real *)a->t;
#if defined(HD_BACKEND_OPENMP)
#pragma omp parallel num_threads(hd_ctx_threads(ctx)) private(w)
#endif
  for (w = 0; w < nslab + steps - 1; ++w) {
    int s;
    for (s = 1; s <= steps; ++s) {
      const hd_idx sl = w - (s - 1), u0 = sl * slab, u1 = u0 + slab < units ? u0 + slab : units;
      const hd_heat_args *b = &by[(s - 1) % 2];
      hd_idx m;
      if (sl < 0 || sl >= nslab) continue;
      /* rows of the slab; the loop's end is the wave's barrier */
#if defined(HD_BACKEND_OPENMP)
#pragma omp for schedule(static)
#endif
      for (m = 0; m < (u1 - u0) * rows; ++m) {
        const hd_idx u = r.lo[three ? 2 : 1] + u0 + m / rows;
        row(b, three ? r.lo[1] + m % rows : u, three ? u : r.lo[2]);
      }
    }
  }
  return HD_OK;
}

#endif

#endif /* HD_HEAT_BLOCKED_H */
