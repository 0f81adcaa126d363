/* SPDX-License-Identifier: BSD-3-Clause */
/* Exact sums (xsum.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "xsum.h"

#include <math.h>
#include <string.h>

#if defined(HD_HAVE_MPI)
#include <mpi.h>
#endif

#define XS_BASE (-1126) /* weight 2^XS_BASE of digit 0's lowest bit */
#define XS_RADIX 4294967296.0

void hd_xsum_init(hd_xsum *s) { memset(s, 0, sizeof *s); }

/* Carries out of every digit but the top one: digits 0 .. N-2 end in
 * [0, 2^32), the top digit holds the sign. */
static void xs_normalise(hd_xsum *s) {
  int i;
  for (i = 0; i < HD_XSUM_DIGITS - 1; ++i) {
    const int64_t lo = (int64_t)((uint64_t)s->d[i] & 0xffffffffu);
    const int64_t carry = (s->d[i] - lo) / (int64_t)XS_RADIX; /* exact */
    s->d[i] = lo;
    s->d[i + 1] += carry;
  }
  s->adds = 0;
}

void hd_xsum_add(hd_xsum *s, double v) {
  int e, q, r;
  uint64_t mant, m0, m1, t0, t1;
  int64_t a0, a1, a2;
  if (v == 0.0 || !isfinite(v)) return;
  /* v = +-mant 2^(e - 53) with mant < 2^53 an integer */
  mant = (uint64_t)ldexp(fabs(frexp(v, &e)), 53);
  q = (e - 53 - XS_BASE) / 32, r = (e - 53 - XS_BASE) % 32;
  m0 = mant & 0xffffffffu, m1 = mant >> 32;
  t0 = m0 << r, t1 = m1 << r; /* < 2^64 and < 2^53 */
  a0 = (int64_t)(t0 & 0xffffffffu);
  a1 = (int64_t)((t0 >> 32) + (t1 & 0xffffffffu));
  a2 = (int64_t)(t1 >> 32);
  if (v < 0) a0 = -a0, a1 = -a1, a2 = -a2;
  s->d[q] += a0, s->d[q + 1] += a1, s->d[q + 2] += a2;
  /* each addend is below 2^33: int64 digits take 2^29 before a carry */
  if (++s->adds >= (1L << 29)) xs_normalise(s);
}

void hd_xsum_merge(hd_xsum *s, const hd_xsum *o) {
  hd_xsum t = *o;
  int i;
  xs_normalise(s);
  xs_normalise(&t);
  for (i = 0; i < HD_XSUM_DIGITS; ++i) s->d[i] += t.d[i];
  s->adds = 1;
}

/* The digits summed from the top, on the magnitude (all digits then
 * non-negative, so nothing cancels); the sign of a normalised sum is its
 * top digit's. */
double hd_xsum_value(hd_xsum *s) {
  hd_xsum t;
  double v = 0.0;
  int i, negative;
  xs_normalise(s);
  t = *s;
  negative = t.d[HD_XSUM_DIGITS - 1] < 0;
  if (negative) {
    for (i = 0; i < HD_XSUM_DIGITS; ++i) t.d[i] = -t.d[i];
    xs_normalise(&t);
  }
  for (i = HD_XSUM_DIGITS - 1; i >= 0; --i)
    if (t.d[i]) v += ldexp((double)t.d[i], XS_BASE + 32 * i);
  return negative ? -v : v;
}

int hd_xsum_allreduce(hd_xsum *s, int count) {
#if defined(HD_HAVE_MPI)
  int flag = 0, i;
  MPI_Initialized(&flag);
  if (!flag) return 0;
  for (i = 0; i < count; ++i) xs_normalise(&s[i]); /* digits below 2^32: any rank count fits */
  for (i = 0; i < count; ++i)
    if (MPI_Allreduce(MPI_IN_PLACE, s[i].d, HD_XSUM_DIGITS, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS)
      return -1;
  return 0;
#else
  (void)s, (void)count;
  return 0;
#endif
}
