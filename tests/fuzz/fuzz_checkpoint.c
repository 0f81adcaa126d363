/* SPDX-License-Identifier: BSD-3-Clause */
/* The checkpoint reader (drivers/common/checkpoint.c) on arbitrary bytes,
 * expecting hd-heat's layout of a 6 x 6 grid. */
#include <string.h>

#include "checkpoint.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static hd_ckpt want;
  static double field[64];
  char err[512];
  memset(&want, 0, sizeof want);
  strcpy(want.driver, "hd-heat");
  want.real_size = 8, want.dims[0] = want.dims[1] = 6, want.dims[2] = 1;
  hd_ckpt_param(&want, "alpha", "%g", 1.0);
  want.narrays = 1;
  strcpy(want.arrays[0].name, "temperature");
  want.arrays[0].data = field, want.arrays[0].bytes = sizeof field;
  (void)hd_ckpt_read(fuzz_file(data, size), &want, err, sizeof err);
  return 0;
}
