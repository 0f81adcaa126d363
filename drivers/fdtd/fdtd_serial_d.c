#define HD_SERIAL 1
#include "fdtd_impl.h"
