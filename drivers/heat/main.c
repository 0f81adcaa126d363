/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-heat: the run loop over the heat-conduction module (heat_module.c). */
#include "module.h"

extern const hd_drv_module hd_heat_module;

int main(int argc, char **argv) { return hd_drv_main(&hd_heat_module, argc, argv); }
