/* SPDX-License-Identifier: BSD-3-Clause */
#include "ns3_ops.h"
#include "ns_ops.h"

HD_DEFINE_OPS_GET(ns_ops, ns_ops)
HD_DEFINE_OPS_GET(ns3_ops, ns3_ops)
