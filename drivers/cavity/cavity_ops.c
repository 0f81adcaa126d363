/* SPDX-License-Identifier: BSD-3-Clause */
#include "cavity_ops.h"

HD_DEFINE_OPS_GET(cavity_ops, cavity_ops)
