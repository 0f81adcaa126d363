#define HD_REAL_FLOAT 1
#include "cavity_impl.h"
