#define HD_REAL_FLOAT 1
#include "heat_impl.h"
