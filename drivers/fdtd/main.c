/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-fdtd: the run loop over the FDTD module (fdtd_module.c). */
#include "module.h"

extern const hd_drv_module hd_fdtd_module;

int main(int argc, char **argv) { return hd_drv_main(&hd_fdtd_module, argc, argv); }
