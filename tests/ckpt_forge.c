/* SPDX-License-Identifier: BSD-3-Clause */
/* A checkpoint forger for tests/restart.sh: reads IN (any driver's), changes
 * what the arguments say and writes OUT with every CRC valid again, as a
 * tool that means harm would (the driver's name at byte 16, its precision
 * after it: checkpoint.h).  Usage:
 *   ckpt_forge IN OUT [step=N] [time=step] [pad]
 * step=N: the header's step; time=step: the time made step x dt to match;
 * pad: bytes after the first array's name, where the name ends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"

int main(int argc, char **argv) {
  static hd_ckpt c;
  char err[1024], path[4200], prefix[4200];
  FILE *f;
  int k;
  if (argc < 3) return fprintf(stderr, "usage: ckpt_forge IN OUT [step=N] [time=step] [pad]\n"), 2;
  c.dims[0] = -1, c.narrays = -1; /* whatever the file holds, and its driver and precision: */
  if (!(f = fopen(argv[1], "rb"))) return fprintf(stderr, "ckpt_forge: cannot open '%s'\n", argv[1]), 1;
  k = fseek(f, 16, SEEK_SET) == 0 && fread(c.driver, 1, 16, f) == 16 && fread(&c.real_size, 4, 1, f) == 1;
  fclose(f);
  if (!k) return fprintf(stderr, "ckpt_forge: '%s' is too short\n", argv[1]), 1;
  if (hd_ckpt_read(argv[1], &c, err, sizeof err)) return fprintf(stderr, "ckpt_forge: %s\n", err), 1;
  for (k = 3; k < argc; ++k) {
    if (!strncmp(argv[k], "step=", 5)) c.step = strtoll(argv[k] + 5, NULL, 10);
    else if (!strcmp(argv[k], "time=step")) c.time = (double)c.step * c.dt;
    else if (!strcmp(argv[k], "pad") && c.narrays > 0) memcpy(c.arrays[0].name + strlen(c.arrays[0].name) + 1, "x", 1);
    else return fprintf(stderr, "ckpt_forge: unknown change '%s'\n", argv[k]), 2;
  }
  /* hd_ckpt_write names its file PREFIX.ckpt.STEP: write there, then move */
  snprintf(prefix, sizeof prefix, "%s.forge", argv[2]);
  if (hd_ckpt_write(&c, prefix, path, sizeof path, err, sizeof err)) return fprintf(stderr, "ckpt_forge: %s\n", err), 1;
  if (rename(path, argv[2])) return perror("ckpt_forge: rename"), 1;
  return 0;
}
