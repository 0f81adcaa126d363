/* SPDX-License-Identifier: BSD-3-Clause */
#include "nbody_ops.h"

HD_DEFINE_OPS_GET(nbody_ops, nbody_ops)
