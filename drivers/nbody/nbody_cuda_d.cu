/* SPDX-License-Identifier: BSD-3-Clause */
#include "nbody_impl.h"
