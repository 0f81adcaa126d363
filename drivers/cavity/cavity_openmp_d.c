#include "cavity_impl.h"
