#define HD_SERIAL 1
#include "nbody_impl.h"
