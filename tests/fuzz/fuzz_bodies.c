/* SPDX-License-Identifier: BSD-3-Clause */
/* The N-body CSV reader (drivers/nbody/bodies.c) on arbitrary bytes. */
#include "fuzz_common.h"
#include "nbody/bodies.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  nbody_bodies b;
  char err[512];
  if (nbody_read_csv(fuzz_file(data, size), &b, err, sizeof err) == 0) nbody_bodies_free(&b);
  return 0;
}
