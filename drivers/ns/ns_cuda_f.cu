/* SPDX-License-Identifier: BSD-3-Clause */
#define HD_REAL_FLOAT 1
#include "ns_impl.h"
#include "ns3_impl.h"
