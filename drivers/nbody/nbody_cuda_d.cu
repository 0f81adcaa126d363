#include "nbody_impl.h"
