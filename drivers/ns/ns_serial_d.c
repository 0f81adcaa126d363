#define HD_SERIAL 1
#include "ns_impl.h"
