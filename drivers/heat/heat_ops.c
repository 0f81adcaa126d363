/* SPDX-License-Identifier: BSD-3-Clause */
#include "heat_ops.h"

HD_DEFINE_OPS_GET(heat_ops, heat_ops)
