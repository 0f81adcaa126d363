#include "kernels_impl.h"
