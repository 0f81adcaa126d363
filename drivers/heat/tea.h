/* SPDX-License-Identifier: BSD-3-Clause */
/* TeaLeaf's decks as hd-heat keys (tea.c): the input dialect of
 * --input=tea.in. */
#ifndef HD_DRV_HEAT_TEA_H
#define HD_DRV_HEAT_TEA_H

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const cli_dialect heat_tea_dialect;

/* The deck's keys hd does not use, as " key (line N)," items ("" when
 * none), for the one line that names them. */
const char *heat_tea_note(void);

#ifdef __cplusplus
}
#endif

#endif
