/* SPDX-License-Identifier: BSD-3-Clause */
/* TeaLeaf's decks as hd-heat keys (drivers/heat/tea.c) on arbitrary
 * text. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "heat/tea.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = (char *)malloc(size + 1), *out = NULL, err[512];
  int *lines = NULL;
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  if (heat_tea_dialect.translate("fuzz.in", text, &out, &lines, err, sizeof err) == 0) free(out), free(lines);
  free(text);
  return 0;
}
