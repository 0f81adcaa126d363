/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/index.h - 64-bit indices, index ranges and padded grids.
 *
 * Any index that can pass 2^31 is an hd_idx (int64_t): cell counts, array
 * offsets, body counts.  Grids are stored x-fastest with a ghost layer of
 * width g on every face of the active dimensions; cell (i, j, k) of the
 * interior has i in [g, nx + g), and so on. */
#ifndef HD_INDEX_H
#define HD_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "platform.h"

typedef int64_t hd_idx;

/* Half-open box [lo, hi) in up to three dimensions. */
typedef struct hd_range3 {
  hd_idx lo[3];
  hd_idx hi[3];
} hd_range3;

HD_FN hd_range3 hd_range3_make(hd_idx i0, hd_idx i1, hd_idx j0, hd_idx j1,
                               hd_idx k0, hd_idx k1) {
  hd_range3 r;
  r.lo[0] = i0;
  r.hi[0] = i1;
  r.lo[1] = j0;
  r.hi[1] = j1;
  r.lo[2] = k0;
  r.hi[2] = k1;
  return r;
}

HD_FN hd_idx hd_range3_count(const hd_range3 *r) {
  hd_idx n = 1;
  int d;
  for (d = 0; d < 3; ++d) {
    if (r->hi[d] <= r->lo[d]) return 0;
    n *= r->hi[d] - r->lo[d];
  }
  return n;
}

/* Faces of a box, in the order boundary arrays use. */
enum { HD_XLO = 0, HD_XHI, HD_YLO, HD_YHI, HD_ZLO, HD_ZHI, HD_NFACES };

/* A structured grid with ghost layers.  dim is 1, 2 or 3; unused axes have
 * n = 1 and no ghosts. */
typedef struct hd_grid {
  int dim;
  hd_idx n[3];     /* interior cells per axis */
  hd_idx ghost;    /* ghost width on each face of an active axis */
  hd_idx stride[3]; /* element strides: 1, padded nx, padded nx*ny */
  hd_idx total;    /* elements including ghosts */
} hd_grid;

/* Multiply with overflow check; returns 0 on overflow. */
HD_HOST_FN int hd_mul_ok(hd_idx a, hd_idx b, hd_idx *out) {
#if defined(__GNUC__) || defined(__clang__)
  return !__builtin_mul_overflow(a, b, out);
#else
  if (a != 0 && b > INT64_MAX / a) return 0;
  *out = a * b;
  return 1;
#endif
}

/* Fills g; returns 0 if a size is not positive or the element count
 * overflows 64 bits. */
HD_HOST_FN int hd_grid_init(hd_grid *g, int dim, hd_idx nx, hd_idx ny, hd_idx nz,
                       hd_idx ghost) {
  hd_idx pad[3], n[3];
  int d;
  if (dim < 1 || dim > 3 || ghost < 0) return 0;
  n[0] = nx;
  n[1] = dim >= 2 ? ny : 1;
  n[2] = dim >= 3 ? nz : 1;
  g->dim = dim;
  g->ghost = ghost;
  for (d = 0; d < 3; ++d) {
    if (n[d] < 1) return 0;
    g->n[d] = n[d];
    pad[d] = n[d] + (d < dim ? 2 * ghost : 0);
    if (pad[d] < n[d]) return 0;
  }
  g->stride[0] = 1;
  if (!hd_mul_ok(pad[0], 1, &g->stride[1])) return 0;
  if (!hd_mul_ok(pad[0], pad[1], &g->stride[2])) return 0;
  if (!hd_mul_ok(g->stride[2], pad[2], &g->total)) return 0;
  return 1;
}

/* Pad g's rows to a multiple of `multiple` elements (stride[1]; planes and
 * the total follow), e.g. for aligned vector access; the extra elements
 * after each row's last ghost belong to no cell.  Returns 0 on overflow. */
HD_HOST_FN int hd_grid_align_rows(hd_grid *g, hd_idx multiple) {
  const hd_idx rows = g->stride[2] / g->stride[1], planes = g->total / g->stride[2];
  hd_idx pitch;
  if (multiple < 1 || g->stride[1] > INT64_MAX - multiple) return 0;
  pitch = (g->stride[1] + multiple - 1) / multiple * multiple;
  g->stride[1] = pitch;
  return hd_mul_ok(pitch, rows, &g->stride[2]) && hd_mul_ok(g->stride[2], planes, &g->total);
}

/* Offset of cell (i, j, k) in padded coordinates (ghosts at index 0). */
HD_FN hd_idx hd_grid_at(const hd_grid *g, hd_idx i, hd_idx j, hd_idx k) {
  return i + j * g->stride[1] + k * g->stride[2];
}

/* The interior cells as a range in padded coordinates. */
HD_FN hd_range3 hd_grid_interior(const hd_grid *g) {
  hd_idx gx = g->ghost;
  hd_idx gy = g->dim >= 2 ? g->ghost : 0;
  hd_idx gz = g->dim >= 3 ? g->ghost : 0;
  return hd_range3_make(gx, gx + g->n[0], gy, gy + g->n[1], gz, gz + g->n[2]);
}

/* Split n items into nchunks nearly equal parts; start of part c.  The
 * split depends on n and nchunks only, never on the thread count. */
HD_FN hd_idx hd_chunk_begin(hd_idx n, hd_idx nchunks, hd_idx c) {
  hd_idx q = n / nchunks, r = n % nchunks;
  return q * c + (c < r ? c : r);
}

#endif /* HD_INDEX_H */
