/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-cavity: the run loop over the lid-driven cavity module (cavity_module.c). */
#include "module.h"

extern const hd_drv_module hd_cavity_module;

int main(int argc, char **argv) { return hd_drv_main(&hd_cavity_module, argc, argv); }
