#include "fdtd_ops.h"

HD_DEFINE_OPS_GET(fdtd_ops, fdtd_ops)
