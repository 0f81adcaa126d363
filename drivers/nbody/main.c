/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-nbody: the run loop over the N-body module (nbody_module.c). */
#include "module.h"

extern const hd_drv_module hd_nbody_module;

int main(int argc, char **argv) { return hd_drv_main(&hd_nbody_module, argc, argv); }
