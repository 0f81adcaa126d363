/* SPDX-License-Identifier: BSD-3-Clause */
/* Serial core: compiled with the same flags as OpenMP, loops on one thread. */
#define HD_SERIAL 1
#include "core_impl.h"
