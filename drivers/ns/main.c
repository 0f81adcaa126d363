/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-ns: the run loop over the compressible-flow module, 2-D
 * (ns_module.c) or, given --dim=3 on the command line, 3-D
 * (ns3_module.c). */
#include <string.h>

#include "module.h"

extern const hd_drv_module hd_ns_module, hd_ns3_module;

static int three_d(int argc, char **argv) {
  int i;
  for (i = 1; i < argc && strcmp(argv[i], "--"); ++i)
    if (!strcmp(argv[i], "--dim=3") || (!strcmp(argv[i], "--dim") && i + 1 < argc && !strcmp(argv[i + 1], "3")))
      return 1;
  return 0;
}

int main(int argc, char **argv) { return hd_drv_main(three_d(argc, argv) ? &hd_ns3_module : &hd_ns_module, argc, argv); }
