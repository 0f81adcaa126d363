/* SPDX-License-Identifier: BSD-3-Clause */
/* Minimal TAP producer for automake's tap-driver.sh.  Tests print their plan
 * at the end (done_testing), so the count follows what actually ran. */
#ifndef HD_TAP_H
#define HD_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define TAP_FN static __attribute__((unused))
#else
#define TAP_FN static
#endif

static int tap_count, tap_failed;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
TAP_FN int ok(int cond, const char *fmt, ...) {
  va_list ap;
  ++tap_count;
  printf("%s %d - ", cond ? "ok" : "not ok", tap_count);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
  if (!cond) ++tap_failed;
  return cond;
}

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
TAP_FN void skip(const char *fmt, ...) {
  va_list ap;
  ++tap_count;
  printf("ok %d # SKIP ", tap_count);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
}

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
TAP_FN void diag(const char *fmt, ...) {
  va_list ap;
  printf("# ");
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
}

/* Abort the whole test (setup failure): TAP "Bail out!". */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2), noreturn))
#endif
TAP_FN void bail(const char *fmt, ...) {
  va_list ap;
  printf("Bail out! ");
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  exit(1);
}

/* Long validation runs (minutes) skip themselves when HD_TESTS_SKIP_SLOW is
 * set: CI sets it for the builds that repeat the suite (sanitizers,
 * distcheck) after it has run in full. */
TAP_FN int slow_wanted(void) {
  const char *v = getenv("HD_TESTS_SKIP_SLOW");
  return !(v && *v && strcmp(v, "0"));
}
TAP_FN void skip_if_slow_unwanted(void) {
  if (!slow_wanted()) {
    printf("1..0 # SKIP slow validation run (HD_TESTS_SKIP_SLOW is set)\n");
    exit(0);
  }
}

TAP_FN int done_testing(void) {
  printf("1..%d\n", tap_count);
  return tap_failed ? 1 : 0;
}

#endif
