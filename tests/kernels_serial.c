/* SPDX-License-Identifier: BSD-3-Clause */
#define HD_SERIAL 1
#include "kernels_impl.h"
