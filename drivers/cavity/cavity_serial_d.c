#define HD_SERIAL 1
#include "cavity_impl.h"
