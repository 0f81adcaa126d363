/* SPDX-License-Identifier: BSD-3-Clause */
#include "heat_ops.h"

#include <string.h>

HD_DEFINE_OPS_GET(heat_ops, heat_ops)

int heat_flow_face(const char *name) {
  static const char *const flow_names[6] = HEAT_FLOW_NAMES;
  int f;
  for (f = 0; f < 6; ++f)
    if (!strcmp(name, flow_names[f])) return f;
  return -1;
}
