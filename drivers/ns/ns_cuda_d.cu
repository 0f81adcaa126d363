#include "ns_impl.h"
