#define HD_SERIAL 1
#include "kernels_impl.h"
