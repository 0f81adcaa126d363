/* SPDX-License-Identifier: BSD-3-Clause */
#include "kernels_impl.h"
