/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/hd.h - everything: the core headers and every physics module. */
#ifndef HD_HD_H
#define HD_HD_H

#include "version.h"
#include "platform.h"
#include "real.h"
#include "index.h"
#include "error.h"
#include "context.h"
#include "memory.h"
#include "launch.h"
#include "reduce.h"
#include "heat.h"
#include "heat_media.h"
#include "heat_balance.h"

#endif /* HD_HD_H */
