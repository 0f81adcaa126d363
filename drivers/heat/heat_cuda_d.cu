/* SPDX-License-Identifier: BSD-3-Clause */
#include "heat_impl.h"
