/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-ns: the run loop over the compressible-flow module (ns_module.c). */
#include "module.h"

extern const hd_drv_module hd_ns_module;

int main(int argc, char **argv) { return hd_drv_main(&hd_ns_module, argc, argv); }
