/* SPDX-License-Identifier: BSD-3-Clause */
#include "fdtd_ops.h"

HD_DEFINE_OPS_GET(fdtd_ops, fdtd_ops)
