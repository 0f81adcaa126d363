/* SPDX-License-Identifier: BSD-3-Clause */
#include "ns_ops.h"

HD_DEFINE_OPS_GET(ns_ops, ns_ops)
