/* SPDX-License-Identifier: BSD-3-Clause */
/* Every backend of this build that works here, for tests that run the same
 * case on each; the ones that do not (CUDA without a GPU) are TAP skips. */
#ifndef HD_TEST_BACKENDS_H
#define HD_TEST_BACKENDS_H

#include "backend.h"
#include "tap.h"

#if defined(HD_HAVE_FFTW) /* config.h, through backend.h */
#define TEST_HAVE_FFTW 1
#else
#define TEST_HAVE_FFTW 0
#endif

typedef struct test_backend {
  const hd_core_ops *core;
  hd_ctx ctx;
} test_backend;

static int test_backends_open(test_backend *be) {
  int id, nb = 0;
  for (id = 0; id < HD_B_COUNT; ++id) {
    const hd_core_ops *core = hd_core_get(id);
    if (!core) continue;
    if (core->init(&be[nb].ctx, 0) != HD_OK) {
      skip("%s backend unavailable: %s", core->name, be[nb].ctx.msg);
      continue;
    }
    be[nb++].core = core;
  }
  return nb;
}

static void test_backends_close(test_backend *be, int nb) {
  int b;
  for (b = 0; b < nb; ++b) be[b].core->destroy(&be[b].ctx);
}

#endif
