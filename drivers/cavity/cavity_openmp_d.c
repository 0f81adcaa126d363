/* SPDX-License-Identifier: BSD-3-Clause */
#include "cavity_impl.h"
