/* SPDX-License-Identifier: BSD-3-Clause */
/* What the input dialects (another program's format as a driver's keys,
 * cli.h's cli_dialect) share: the keys they write, each with the line of
 * the file behind it, and the one line naming the keys a driver does not
 * use.  Its own file so that the fuzzing harnesses link it alone. */
#ifndef HD_DRV_DIALECT_H
#define HD_DRV_DIALECT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The translation: text, '\n' after every key, line[k] the file's line
 * behind key k + 1 (both malloc'd; cli_dialect's out and lines). */
typedef struct hd_dialect_out {
  char *text;
  size_t len, cap;
  int *line, nline, lcap;
} hd_dialect_out;

/* Appends a key (printf format) from the file's line `line`; 0, or -1 when
 * out of memory. */
int hd_dialect_emit(hd_dialect_out *o, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Adds " key (line N)" to note (size bytes; each key once, a comma
 * between), the keys a driver does not use. */
void hd_dialect_note(char *note, size_t size, const char *key, int line);

#ifdef __cplusplus
}
#endif

#endif
