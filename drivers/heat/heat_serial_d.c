#define HD_SERIAL 1
#include "heat_impl.h"
