/* SPDX-License-Identifier: BSD-3-Clause */
#include "waveform_file.h"

#include "input_file.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Two numbers separated by blanks or a comma, nothing after: 1, else 0. */
static int sample(const char *s, double *t, double *v) {
  char *end;
  errno = 0;
  *t = strtod(s, &end);
  if (end == s) return 0;
  s = end;
  while (isspace((unsigned char)*s)) ++s;
  if (*s == ',') ++s;
  *v = strtod(s, &end);
  if (end == s || errno == ERANGE) return 0;
  for (s = end; *s; ++s)
    if (!isspace((unsigned char)*s)) return 0;
  return 1;
}

int fdtd_waveform_read(const char *path, double **tab, long *n, char *err, size_t en) {
  FILE *f = hd_fopen_input(path, "r"); /* a regular file: a FIFO would block */
  char line[512];
  double *t = NULL, *v = NULL;
  long count = 0, cap = 0, lineno = 0, k;
  int rc = -1, header_ok = 1;
  *tab = NULL, *n = 0;
  if (!f) return snprintf(err, en, "waveform-file: cannot open '%.3800s': %s", path, hd_input_error()), -1;
  while (fgets(line, sizeof line, f)) {
    char *hash = strchr(line, '#'), *s = line;
    double x, y;
    ++lineno;
    if (!strchr(line, '\n') && !feof(f)) {
      snprintf(err, en, "%.3900s:%ld: line longer than %d characters", path, lineno, (int)sizeof line - 2);
      goto done;
    }
    if (hash) *hash = '\0';
    while (isspace((unsigned char)*s)) ++s;
    if (!*s) continue;
    if (!sample(s, &x, &y)) {
      if (header_ok) { /* a header line before the first sample */
        header_ok = 0;
        continue;
      }
      snprintf(err, en, "%.3900s:%ld: expected 'TIME VALUE' (seconds, and the source's factor), got '%.60s'", path,
               lineno, strtok(s, "\r\n"));
      goto done;
    }
    header_ok = 0;
    if (!isfinite(x) || !isfinite(y)) {
      snprintf(err, en, "%.3900s:%ld: the time and the value must be finite", path, lineno);
      goto done;
    }
    if (count && !(x > t[count - 1])) {
      snprintf(err, en, "%.3900s:%ld: time %.9g is not after the sample before it (%.9g): times must increase", path,
               lineno, x, t[count - 1]);
      goto done;
    }
    if (count == cap) {
      double *nt, *nv;
      cap = cap ? 2 * cap : 1024;
      nt = (double *)realloc(t, (size_t)cap * sizeof *t);
      if (nt) t = nt;
      nv = nt ? (double *)realloc(v, (size_t)cap * sizeof *v) : NULL;
      if (nv) v = nv;
      if (!nt || !nv) {
        snprintf(err, en, "waveform-file: out of memory reading '%.3900s'", path);
        goto done;
      }
    }
    t[count] = x, v[count++] = y;
  }
  if (ferror(f)) {
    snprintf(err, en, "waveform-file: cannot read '%.3900s'", path);
    goto done;
  }
  if (count < 2) {
    snprintf(err, en, "%.3900s: %ld sample%s: a waveform needs at least two (TIME VALUE a line)", path, count,
             count == 1 ? "" : "s");
    goto done;
  }
  if (!(*tab = (double *)malloc((size_t)2 * (size_t)count * sizeof **tab))) {
    snprintf(err, en, "waveform-file: out of memory reading '%.3900s'", path);
    goto done;
  }
  for (k = 0; k < count; ++k) (*tab)[k] = t[k], (*tab)[count + k] = v[k];
  *n = count, rc = 0;
done:
  fclose(f);
  free(t), free(v);
  return rc;
}
