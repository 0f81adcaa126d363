/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/real.h - the floating-point type of a translation unit.
 *
 * hd_real is double unless HD_REAL_FLOAT is defined before the first hd
 * include.  A program that needs both precisions compiles its backend code
 * twice, once per precision (the drivers do; see doc/design.md), so every
 * physics function exists in float and in double without templates.
 * Reductions always accumulate in double (hd_acc). */
#ifndef HD_REAL_H
#define HD_REAL_H

#include <math.h>

#include "platform.h"

#if defined(HD_REAL_FLOAT)
typedef float hd_real;
#define HD_REAL_TAG f
#define HD_REAL_NAME "single"
#define HD_REAL_EPS 1.1920928955078125e-07
#else
typedef double hd_real;
#define HD_REAL_TAG d
#define HD_REAL_NAME "double"
#define HD_REAL_EPS 2.220446049250313e-16
#endif

typedef double hd_acc;

/* Literal in the unit's precision: HD_R(0.5) is 0.5f or 0.5. */
#define HD_R(x) ((hd_real)(x))

/* Precision-correct math: plain C would promote float to double. */
#if defined(HD_REAL_FLOAT)
HD_FN hd_real hd_sqrt(hd_real x) { return sqrtf(x); }
HD_FN hd_real hd_exp(hd_real x) { return expf(x); }
HD_FN hd_real hd_fabs(hd_real x) { return fabsf(x); }
HD_FN hd_real hd_sin(hd_real x) { return sinf(x); }
HD_FN hd_real hd_cos(hd_real x) { return cosf(x); }
HD_FN hd_real hd_pow(hd_real x, hd_real y) { return powf(x, y); }
HD_FN hd_real hd_floor(hd_real x) { return floorf(x); }
#else
HD_FN hd_real hd_sqrt(hd_real x) { return sqrt(x); }
HD_FN hd_real hd_exp(hd_real x) { return exp(x); }
HD_FN hd_real hd_fabs(hd_real x) { return fabs(x); }
HD_FN hd_real hd_sin(hd_real x) { return sin(x); }
HD_FN hd_real hd_cos(hd_real x) { return cos(x); }
HD_FN hd_real hd_pow(hd_real x, hd_real y) { return pow(x, y); }
HD_FN hd_real hd_floor(hd_real x) { return floor(x); }
#endif

/* 1 / sqrt(x) for x > 0.  Host: a correctly rounded sqrt and a division.
 * CUDA, single: the hardware approximation rsqrt.approx.ftz (relative error
 * below 2^-22, about two ulps; subnormal inputs flushed to zero, so callers
 * keep x at or above FLT_MIN, as softening does).  CUDA, double: the
 * library rsqrt (about one ulp). */
HD_FN hd_real hd_rsqrt(hd_real x) {
#if HD_ON_DEVICE && defined(HD_REAL_FLOAT)
  float r;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
#elif HD_ON_DEVICE
  return rsqrt(x);
#else
  return HD_R(1) / hd_sqrt(x);
#endif
}

HD_FN hd_real hd_min(hd_real a, hd_real b) { return a < b ? a : b; }
HD_FN hd_real hd_max(hd_real a, hd_real b) { return a > b ? a : b; }

/* Finite test that survives any header mix (C99 macro, C++ overloads, CUDA):
 * x - x is 0 for finite x and NaN for Inf or NaN.  Not valid under
 * -ffast-math, which hd does not support. */
HD_FN int hd_isfinite(double x) { return (x - x) == 0.0; }

#endif /* HD_REAL_H */
