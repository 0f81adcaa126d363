/* SPDX-License-Identifier: BSD-3-Clause */
#include "dialect.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hd_dialect_emit(hd_dialect_out *o, int line, const char *fmt, ...) {
  char buf[2048];
  va_list ap;
  size_t n;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  n = strlen(buf);
  if (o->len + n + 2 > o->cap) {
    const size_t cap = 2 * o->cap + n + 4096;
    char *t = (char *)realloc(o->text, cap);
    if (!t) return -1;
    o->text = t, o->cap = cap;
  }
  if (o->nline == o->lcap) {
    const int cap = 2 * o->lcap + 64;
    int *l = (int *)realloc(o->line, (size_t)cap * sizeof *l);
    if (!l) return -1;
    o->line = l, o->lcap = cap;
  }
  memcpy(o->text + o->len, buf, n);
  o->len += n;
  o->text[o->len++] = '\n';
  o->text[o->len] = '\0';
  o->line[o->nline++] = line;
  return 0;
}

void hd_dialect_note(char *note, size_t size, const char *key, int line) {
  char item[160], seen[96];
  snprintf(seen, sizeof seen, " %s (", key);
  if (strstr(note, seen)) return; /* each key once */
  snprintf(item, sizeof item, "%s %s (line %d)", note[0] ? "," : "", key, line);
  if (strlen(note) + strlen(item) + 1 < size) strcat(note, item);
}
