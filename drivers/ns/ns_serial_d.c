/* SPDX-License-Identifier: BSD-3-Clause */
#define HD_SERIAL 1
#include "ns_impl.h"
#include "ns3_impl.h"
