#include "core_impl.h"
