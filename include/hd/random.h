/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/random.h - counter-based random numbers.
 *
 * Value k of stream s is a pure function of (seed, s, k): the SplitMix64
 * finaliser of a Weyl sequence.  Integer arithmetic only, so every backend
 * and every thread order produces the same bits, and any element can be
 * drawn without drawing the ones before it. */
#ifndef HD_RANDOM_H
#define HD_RANDOM_H

#include <stdint.h>

#include "platform.h"

HD_FN uint64_t hd_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* 64 random bits: draw k of stream s under seed. */
HD_FN uint64_t hd_rand64(uint64_t seed, uint64_t s, uint64_t k) {
  return hd_mix64(hd_mix64(seed ^ hd_mix64(s + 0x9e3779b97f4a7c15ULL)) +
                  (k + 1) * 0x9e3779b97f4a7c15ULL);
}

/* Uniform double in [0, 1) with 53 random bits (exact conversion). */
HD_FN double hd_rand_unit(uint64_t seed, uint64_t s, uint64_t k) {
  return (double)(hd_rand64(seed, s, k) >> 11) * (1.0 / 9007199254740992.0);
}

#endif /* HD_RANDOM_H */
