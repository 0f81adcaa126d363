/* SPDX-License-Identifier: BSD-3-Clause */
#include "fdtd_impl.h"
