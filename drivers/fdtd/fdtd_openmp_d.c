#include "fdtd_impl.h"
