/* SPDX-License-Identifier: BSD-3-Clause */
/* Exact sums of doubles, whatever the order of the additions.
 *
 * A sum is held as fixed-point digits of 32 bits in int64 words covering
 * every double exponent, so adding is integer arithmetic: associative, and
 * therefore the same bits however the values are grouped — per rank, then
 * across ranks (hd_xsum_allreduce) — without gathering the values in one
 * place.  Used for the statistics of distributed grids (decomp.c).  The
 * final value is the exact sum rounded once (nearly: the digits are summed
 * from the top in double, a few ulps at worst), deterministic either way. */
#ifndef HD_DRV_XSUM_H
#define HD_DRV_XSUM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HD_XSUM_DIGITS 70 /* 2^-1126 .. 2^1114: every double and its mantissa */

typedef struct hd_xsum {
  int64_t d[HD_XSUM_DIGITS];
  long adds; /* since the last carry propagation */
} hd_xsum;

void hd_xsum_init(hd_xsum *s);
/* Adds v; non-finite values are the caller's business (not added). */
void hd_xsum_add(hd_xsum *s, double v);
void hd_xsum_merge(hd_xsum *s, const hd_xsum *o);
double hd_xsum_value(hd_xsum *s);
/* The sum over all ranks, on every rank (exact; no MPI: unchanged).
 * 0, or -1 when MPI fails. */
int hd_xsum_allreduce(hd_xsum *s, int count);

#ifdef __cplusplus
}
#endif

#endif
