#include "nbody_ops.h"

HD_DEFINE_OPS_GET(nbody_ops, nbody_ops)
