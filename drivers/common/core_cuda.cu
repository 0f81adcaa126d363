/* SPDX-License-Identifier: BSD-3-Clause */
#include "core_impl.h"
