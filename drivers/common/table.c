/* SPDX-License-Identifier: BSD-3-Clause */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "table.h"
#include "input_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hd_table_load(hd_table *tab, const char *path, char *err, size_t n) {
  FILE *f = hd_fopen_input(path, "r");
  char line[1024];
  int lineno = 0, cap = 0;
  memset(tab, 0, sizeof *tab);
  if (!f) return snprintf(err, n, "%s: %s", path, hd_input_error()), -1;
  long len;
  while ((len = hd_read_line(f, line, sizeof line)) >= 0) {
    char *s = line, *end, *hash = strchr(line, '#');
    double t, v;
    ++lineno;
    if ((size_t)len != strlen(line)) {
      snprintf(err, n, "%s:%d: %s", path, lineno, (size_t)len >= sizeof line ? "line too long" : "binary data (a NUL byte)");
      goto fail;
    }
    if (hash) *hash = '\0';
    while (*s == ' ' || *s == '\t') ++s;
    if (*s == '\0' || *s == '\n' || *s == '\r') continue;
    t = strtod(s, &end);
    if (end == s) goto bad;
    s = end;
    while (*s == ' ' || *s == '\t' || *s == ',') ++s;
    v = strtod(s, &end);
    if (end == s) goto bad;
    for (s = end; *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'; ++s) {
    }
    if (*s || !isfinite(t) || !isfinite(v)) goto bad;
    if (tab->n && !(t > tab->t[tab->n - 1])) {
      snprintf(err, n, "%s:%d: time %g does not follow %g (times must increase)", path, lineno, t, tab->t[tab->n - 1]);
      goto fail;
    }
    if (tab->n == cap) {
      double *nt, *nv;
      cap = cap ? 2 * cap : 64;
      nt = (double *)realloc(tab->t, (size_t)cap * sizeof(double));
      if (nt) tab->t = nt;
      nv = nt ? (double *)realloc(tab->v, (size_t)cap * sizeof(double)) : NULL;
      if (nv) tab->v = nv;
      if (!nt || !nv) {
        snprintf(err, n, "%s: out of memory", path);
        goto fail;
      }
    }
    tab->t[tab->n] = t, tab->v[tab->n] = v, ++tab->n;
  }
  fclose(f);
  if (!tab->n) {
    snprintf(err, n, "%s: no 'TIME VALUE' rows", path);
    hd_table_free(tab);
    return -1;
  }
  return 0;
bad:
  snprintf(err, n, "%s:%d: expected 'TIME VALUE' (two finite numbers)", path, lineno);
fail:
  fclose(f);
  hd_table_free(tab);
  return -1;
}

double hd_table_at(const hd_table *tab, double t) {
  int lo = 0, hi = tab->n - 1;
  if (t <= tab->t[0]) return tab->v[0];
  if (t >= tab->t[hi]) return tab->v[hi];
  while (hi - lo > 1) { /* t[lo] < t < t[hi] */
    const int mid = (lo + hi) / 2;
    if (tab->t[mid] <= t) lo = mid;
    else hi = mid;
  }
  return tab->v[lo] + (tab->v[hi] - tab->v[lo]) * ((t - tab->t[lo]) / (tab->t[hi] - tab->t[lo]));
}

double hd_table_max_abs(const hd_table *tab) {
  double m = 0.0;
  int k;
  for (k = 0; k < tab->n; ++k) m = fmax(m, fabs(tab->v[k]));
  return m;
}

void hd_table_free(hd_table *tab) {
  free(tab->t), free(tab->v);
  memset(tab, 0, sizeof *tab);
}
