#define HD_REAL_FLOAT 1
#include "ns_impl.h"
