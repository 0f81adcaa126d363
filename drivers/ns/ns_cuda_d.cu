/* SPDX-License-Identifier: BSD-3-Clause */
#include "ns_impl.h"
#include "ns3_impl.h"
