/* SPDX-License-Identifier: BSD-3-Clause */
#define HD_REAL_FLOAT 1
#include "heat_impl.h"
