#include "heat_impl.h"
