/* SPDX-License-Identifier: BSD-3-Clause */
#include "fdtd_ops.h"

#include <stdio.h>
#include <string.h>

#include "driver.h"

HD_DEFINE_OPS_GET(fdtd_ops, fdtd_ops)

int fdtd_ckpt_kind(const char *name, char keys[16], long *elem) {
  static const char *const same[7] = {"step", "inc_e", "inc_h", "inc_n", "inc_aux", "dft_incident", "probe_records"};
  static const struct {
    const char *prefix, *keys; /* keys: "" the key array's name is the prefix's with the last digit dropped */
    long elem;
  } list[] = {{"pml_", "", -1},           {"mur_f", "key_mur", -1},     {"ade", "key_ade", 0},
              {"dft_probes", "key_probes", 8}, {"dft_feeds", "key_feeds", 8}, {"dft_surface", "key_surface", 8},
              {"dft_samples", "key_surface", -1}, {"dft_volume", "key_volume", -1}, {"dft_plane", "", 8}};
  size_t k;
  keys[0] = '\0', *elem = 0;
  if (!strncmp(name, "i_", 2)) { /* a Bloch-periodic cell's imaginary part: as the real's, its own keys */
    const int kind = fdtd_ckpt_kind(name + 2, keys, elem);
    if (keys[0]) {
      char own[24];
      snprintf(own, sizeof own, "i_%s", keys);
      memcpy(keys, own, 15), keys[15] = '\0';
    }
    return kind;
  }
  if (!strncmp(name, "key_", 4)) return HD_DRV_KEYS;
  for (k = 0; k < sizeof same / sizeof *same; ++k)
    if (!strcmp(name, same[k])) return HD_DRV_SAME;
  for (k = 0; k < sizeof list / sizeof *list; ++k) {
    if (strncmp(name, list[k].prefix, strlen(list[k].prefix))) continue;
    if (list[k].keys[0]) snprintf(keys, 16, "%s", list[k].keys);
    else if (list[k].elem < 0) snprintf(keys, 16, "key_%.*s", (int)strlen(name) - 1, name); /* pml_ex1 -> key_pml_ex */
    else snprintf(keys, 16, "key_%s", name + 4);                                             /* dft_plane3 -> key_plane3 */
    *elem = list[k].elem;
    return HD_DRV_LIST;
  }
  return HD_DRV_ROWS;
}
