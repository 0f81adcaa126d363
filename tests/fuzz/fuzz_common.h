/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer harnesses read files, as the drivers do: the input goes to a
 * temporary file first. */
#ifndef HD_FUZZ_COMMON_H
#define HD_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *fuzz_file(const uint8_t *data, size_t size) {
  static char path[64];
  FILE *f;
  if (!path[0]) snprintf(path, sizeof path, "/tmp/hd-fuzz-%ld", (long)getpid());
  f = fopen(path, "wb");
  if (!f) abort();
  if (size && fwrite(data, 1, size, f) != size) abort();
  fclose(f);
  return path;
}

#endif
