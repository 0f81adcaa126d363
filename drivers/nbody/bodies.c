/* SPDX-License-Identifier: BSD-3-Clause */
#include "bodies.h"
#include "input_file.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int nbody_bodies_alloc(nbody_bodies *b, long n) {
  double *p = n > 0 && (size_t)n <= ((size_t)-1) / (7 * sizeof(double))
                  ? (double *)calloc((size_t)n * 7, sizeof(double))
                  : NULL;
  b->n = n;
  b->x = p;
  if (!p) return -1;
  b->y = p + n, b->z = p + 2 * n, b->vx = p + 3 * n, b->vy = p + 4 * n, b->vz = p + 5 * n;
  b->m = p + 6 * n;
  return 0;
}

void nbody_bodies_free(nbody_bodies *b) {
  free(b->x);
  memset(b, 0, sizeof *b);
}

/* Seven comma-separated finite numbers; returns how many were read before
 * the first problem, with *bad set when a field is not a number. */
static int parse_row(char *s, double v[7], int *bad) {
  int k = 0;
  *bad = 0;
  for (;;) {
    char *end;
    while (isspace((unsigned char)*s)) ++s;
    if (k == 7) return *s ? (*bad = 1, 8) : 7;
    errno = 0;
    v[k] = strtod(s, &end);
    if (end == s || errno == ERANGE || !isfinite(v[k])) return *bad = 1, k;
    ++k;
    s = end;
    while (isspace((unsigned char)*s)) ++s;
    if (*s == ',') ++s;
    else if (*s) return *bad = 1, k;
    else return k;
  }
}

int nbody_read_csv(const char *path, nbody_bodies *b, char *err, size_t n) {
  static const char *const names[7] = {"x", "y", "z", "vx", "vy", "vz", "m"};
  FILE *f = hd_fopen_input(path, "rb");
  char line[4096];
  long cap = 0, count = 0;
  int lineno = 0, data_lines = 0;
  double *rows = NULL;
  memset(b, 0, sizeof *b);
  if (!f) {
    snprintf(err, n, "cannot open body file '%s': %s", path, hd_input_error());
    return -1;
  }
  long whole;
  while ((whole = hd_read_line(f, line, sizeof line)) >= 0) {
    size_t len = strlen(line);
    double v[7];
    int got, bad, k;
    char *s = line;
    ++lineno;
    if ((size_t)whole >= sizeof line) {
      snprintf(err, n, "%s:%d: line too long", path, lineno);
      goto fail;
    }
    if ((size_t)whole != len) {
      snprintf(err, n, "%s:%d: binary data in body file", path, lineno);
      goto fail;
    }
    for (k = 0; k < (int)len; ++k) {
      const unsigned char ch = (unsigned char)line[k];
      if ((ch < 32 && ch != '\t' && ch != '\r' && ch != '\n') || ch >= 127) {
        snprintf(err, n, "%s:%d: binary data in body file", path, lineno);
        goto fail;
      }
    }
    while (isspace((unsigned char)*s)) ++s;
    if (!*s || *s == '#') continue;
    got = parse_row(s, v, &bad);
    ++data_lines;
    if (got != 7 || bad) {
      if (data_lines == 1 && isalpha((unsigned char)*s)) continue; /* header */
      if (got < 7 && !bad)
        snprintf(err, n, "%s:%d: expected 7 values (x,y,z,vx,vy,vz,m), got %d", path, lineno, got);
      else if (got < 7)
        snprintf(err, n, "%s:%d: %s is not a finite number", path, lineno, names[got]);
      else
        snprintf(err, n, "%s:%d: more than 7 values (x,y,z,vx,vy,vz,m)", path, lineno);
      goto fail;
    }
    if (v[6] < 0.0) {
      snprintf(err, n, "%s:%d: negative mass %g", path, lineno, v[6]);
      goto fail;
    }
    if (count == cap) {
      double *r;
      cap = cap ? 2 * cap : 1024;
      r = (double *)realloc(rows, (size_t)cap * 7 * sizeof(double));
      if (!r) {
        snprintf(err, n, "%s: out of memory at line %d", path, lineno);
        goto fail;
      }
      rows = r;
    }
    for (k = 0; k < 7; ++k) rows[count * 7 + k] = v[k];
    ++count;
  }
  if (ferror(f)) {
    snprintf(err, n, "cannot read body file '%s'", path);
    goto fail;
  }
  fclose(f);
  f = NULL;
  if (count == 0) {
    snprintf(err, n, "body file '%s' has no bodies", path);
    goto fail;
  }
  if (nbody_bodies_alloc(b, count)) {
    snprintf(err, n, "%s: out of memory", path);
    goto fail;
  }
  {
    long i;
    double mt = 0.0;
    for (i = 0; i < count; ++i) {
      b->x[i] = rows[i * 7], b->y[i] = rows[i * 7 + 1], b->z[i] = rows[i * 7 + 2];
      b->vx[i] = rows[i * 7 + 3], b->vy[i] = rows[i * 7 + 4], b->vz[i] = rows[i * 7 + 5];
      b->m[i] = rows[i * 7 + 6];
      mt += b->m[i];
    }
    if (!(mt > 0.0)) {
      snprintf(err, n, "body file '%s': total mass is zero", path);
      nbody_bodies_free(b);
      goto fail;
    }
  }
  free(rows);
  return 0;
fail:
  if (f) fclose(f);
  free(rows);
  return -1;
}

double nbody_sample_error(const nbody_bodies *b, const double *acc, long sample, double eps) {
  const long n = b->n, k = sample < n ? sample : n;
  double num = 0.0, den = 0.0;
  long s, j;
  for (s = 0; s < k; ++s) {
    const long i = (long)((double)s * (double)n / (double)k);
    double a[3] = {0.0, 0.0, 0.0};
    int d;
    for (j = 0; j < n; ++j) {
      const double dx = b->x[j] - b->x[i], dy = b->y[j] - b->y[i], dz = b->z[j] - b->z[i];
      const double r2 = dx * dx + dy * dy + dz * dz + eps * eps, f = j == i ? 0.0 : b->m[j] / (r2 * sqrt(r2));
      a[0] += f * dx, a[1] += f * dy, a[2] += f * dz;
    }
    for (d = 0; d < 3; ++d) num += (acc[d * n + i] - a[d]) * (acc[d * n + i] - a[d]), den += a[d] * a[d];
  }
  return den > 0 ? sqrt(num / den) : 0.0;
}
