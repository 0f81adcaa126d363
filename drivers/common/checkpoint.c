/* SPDX-License-Identifier: BSD-3-Clause */
#include "checkpoint.h"
#include "input_file.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output.h"

static const char magic[8] = {'H', 'D', 'C', 'K', 'P', 'T', '\r', '\n'};

uint32_t hd_crc32(uint32_t crc, const void *data, size_t n) {
  static uint32_t table[256];
  static int ready;
  const unsigned char *p = (const unsigned char *)data;
  size_t i;
  if (!ready) { /* a race here writes the same values twice */
    uint32_t k, c;
    int b;
    for (k = 0; k < 256; ++k) {
      for (c = k, b = 0; b < 8; ++b) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      table[k] = c;
    }
    ready = 1;
  }
  crc = ~crc;
  for (i = 0; i < n; ++i) crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

uint64_t hd_fnv1a(const char *s) {
  uint64_t h = 14695981039346656037ull;
  for (; *s; ++s) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

void hd_ckpt_param(hd_ckpt *c, const char *key, const char *fmt, ...) {
  const size_t used = strlen(c->params);
  va_list ap;
  if (used + 2 >= sizeof c->params) return;
  snprintf(c->params + used, sizeof c->params - used, "%s=", key);
  {
    const size_t u2 = strlen(c->params);
    va_start(ap, fmt);
    vsnprintf(c->params + u2, sizeof c->params - u2, fmt, ap);
    va_end(ap);
  }
  {
    const size_t u3 = strlen(c->params);
    if (u3 + 1 < sizeof c->params) c->params[u3] = ';', c->params[u3 + 1] = '\0';
  }
}

void hd_ckpt_set_value(hd_ckpt *c, const char *name, double v) {
  int k;
  for (k = 0; k < c->nvalues && strncmp(c->values[k].name, name, sizeof c->values[k].name); ++k) continue;
  if (k == HD_CKPT_MAX_VALUES) return;
  memset(c->values[k].name, 0, sizeof c->values[k].name);
  snprintf(c->values[k].name, sizeof c->values[k].name, "%s", name);
  c->values[k].value = v;
  if (k == c->nvalues) ++c->nvalues;
}

int hd_ckpt_get_value(const hd_ckpt *c, const char *name, double *v) {
  int k;
  for (k = 0; k < c->nvalues; ++k)
    if (!strncmp(c->values[k].name, name, sizeof c->values[k].name)) return *v = c->values[k].value, 1;
  return 0;
}

/* ---- writing ------------------------------------------------------------- */

typedef struct sink {
  hd_out *o;
  uint32_t crc;
  int bad;
} sink;

static void put(sink *s, const void *p, size_t n) {
  if (s->bad) return;
  s->crc = hd_crc32(s->crc, p, n);
  if (hd_out_write(s->o, p, n)) s->bad = 1;
}

static void put_u32(sink *s, uint32_t v) { put(s, &v, sizeof v); }
static void put_u64(sink *s, uint64_t v) { put(s, &v, sizeof v); }

void hd_ckpt_prune(const char *prefix, int keep, const long *own, int nown, long upto) {
  char dir[4096], base[4096], path[2 * 4096 + 32]; /* never truncates */
  const char *slash = strrchr(prefix, '/');
  long *steps = NULL;
  size_t count = 0, cap = 0, i, j, blen;
  DIR *d;
  struct dirent *e;
  hd_dirname(prefix, dir, sizeof dir);
  snprintf(base, sizeof base, "%s.ckpt.", slash ? slash + 1 : prefix);
  blen = strlen(base);
  if (!(d = opendir(dir))) return;
  while ((e = readdir(d)) != NULL) {
    char *end;
    long s;
    if (strncmp(e->d_name, base, blen) || strlen(e->d_name) != blen + 12) continue;
    s = strtol(e->d_name + blen, &end, 10);
    if (*end) continue;
    if (s > upto) { /* not the continued run's: this run's own, or left alone */
      int k;
      for (k = 0; k < nown && own[k] != s; ++k) continue;
      if (k == nown) continue;
    }
    if (count == cap) {
      long *m = (long *)realloc(steps, (cap = cap ? 2 * cap : 16) * sizeof *steps);
      if (!m) break;
      steps = m;
    }
    steps[count++] = s;
  }
  closedir(d);
  for (i = 0; i < count; ++i) { /* newest first */
    for (j = i + 1; j < count; ++j)
      if (steps[j] > steps[i]) {
        const long t = steps[i];
        steps[i] = steps[j], steps[j] = t;
      }
    if ((int)i >= keep) {
      snprintf(path, sizeof path, "%s/%s%012ld", dir, base, steps[i]);
      unlink(path);
    }
  }
  free(steps);
}

int hd_ckpt_write(const hd_ckpt *c, const char *prefix, char *path, size_t pn, char *err, size_t n) {
  hd_out o;
  sink s;
  const uint32_t plen = (uint32_t)strlen(c->params);
  int k;
  snprintf(path, pn, "%s.ckpt.%012lld", prefix, (long long)c->step);
  if (hd_out_open(&o, path, err, n)) return -1;
  s.o = &o, s.crc = 0, s.bad = 0;
  put(&s, magic, sizeof magic);
  put_u32(&s, HD_CKPT_VERSION);
  put_u32(&s, 0x01020304u);
  put(&s, c->driver, sizeof c->driver);
  put_u32(&s, c->real_size);
  put_u32(&s, (uint32_t)c->narrays);
  put(&s, c->dims, sizeof c->dims);
  put(&s, &c->step, sizeof c->step);
  put(&s, &c->time, sizeof c->time);
  put(&s, &c->dt, sizeof c->dt);
  put_u64(&s, hd_fnv1a(c->params));
  put_u32(&s, plen);
  put(&s, c->params, plen);
  put_u32(&s, (uint32_t)c->nseries);
  for (k = 0; k < c->nseries; ++k) {
    put(&s, c->series[k].name, sizeof c->series[k].name);
    put_u64(&s, c->series[k].bytes);
    put_u32(&s, c->series[k].crc);
  }
  put_u32(&s, (uint32_t)c->nvalues);
  for (k = 0; k < c->nvalues; ++k) {
    put(&s, c->values[k].name, sizeof c->values[k].name);
    put(&s, &c->values[k].value, sizeof c->values[k].value);
  }
  put_u32(&s, s.crc);
  for (k = 0; k < c->narrays && !s.bad; ++k) {
    const hd_ckpt_array *a = &c->arrays[k];
    put(&s, a->name, sizeof a->name);
    put_u64(&s, a->bytes);
    put_u32(&s, hd_crc32(0, a->data, (size_t)a->bytes));
    put(&s, a->data, (size_t)a->bytes);
  }
  if (s.bad) {
    snprintf(err, n, "writing %.900s failed: %s", path, strerror(errno));
    hd_out_abort(&o);
    return -1;
  }
  return hd_out_commit(&o, err, n);
}

/* ---- reading ------------------------------------------------------------- */

typedef struct source {
  FILE *f;
  uint32_t crc;
  int short_read;
} source;

static int get(source *s, void *p, size_t n) {
  if (s->short_read || fread(p, 1, n, s->f) != n) return s->short_read = 1, -1;
  s->crc = hd_crc32(s->crc, p, n);
  return 0;
}

/* The first key whose value differs between two parameter texts. */
static void param_diff(const char *a, const char *b, char *out, size_t n) {
  while (*a || *b) {
    const char *ea = strchr(a, ';'), *eb = strchr(b, ';');
    const size_t la = ea ? (size_t)(ea - a) : strlen(a), lb = eb ? (size_t)(eb - b) : strlen(b);
    if (la != lb || strncmp(a, b, la)) {
      if (!la || !lb) /* a key one side has and the other not */
        snprintf(out, n, "'%.*s' %s", (int)(la + lb > 200 ? 200 : la + lb), la ? a : b,
                 la ? "in the checkpoint, not in this run" : "in this run, not in the checkpoint");
      else
        snprintf(out, n, "'%.*s' in the checkpoint, '%.*s' now", (int)(la > 200 ? 200 : la), a,
                 (int)(lb > 200 ? 200 : lb), b);
      return;
    }
    a += la + (ea ? 1 : 0), b += lb + (eb ? 1 : 0);
  }
  snprintf(out, n, "(texts equal)");
}

/* A name field as written: the name, then zeros to its end (the bytes no
 * CRC covers). */
static int padded(const char *name, size_t n) {
  size_t k = strnlen(name, n);
  if (k == n) return 0;
  while (k < n && name[k] == '\0') ++k;
  return k == n;
}

int hd_ckpt_read(const char *path, hd_ckpt *want, char *err, size_t n) {
  source s;
  char m[8], driver[16], params[HD_CKPT_MAX_PARAMS], diff[512];
  uint32_t version, endian, real_size, narrays, plen, hcrc, nseries, nvalues;
  hd_ckpt_series series[HD_CKPT_MAX_SERIES];
  hd_ckpt_value values[HD_CKPT_MAX_VALUES];
  uint64_t hash;
  int64_t dims[3], step;
  double time, dt;
  int k, any = 0;
  s.f = hd_fopen_input(path, "rb"), s.crc = 0, s.short_read = 0;
  if (!s.f) return snprintf(err, n, "cannot open checkpoint '%.900s': %s", path, hd_input_error()), -1;
#define FAIL(...) do { snprintf(err, n, __VA_ARGS__); fclose(s.f); return -1; } while (0)
  if (get(&s, m, sizeof m) || memcmp(m, magic, sizeof m)) FAIL("%.900s: not an hd checkpoint", path);
  if (get(&s, &version, 4) || get(&s, &endian, 4)) FAIL("%.900s: truncated header", path);
  if (endian != 0x01020304u) FAIL("%.900s: written on a machine of the other byte order", path);
  if (version < 1 || version > HD_CKPT_VERSION)
    FAIL("%.900s: format version %u, this build reads 1 to %d", path, version, HD_CKPT_VERSION);
  if (get(&s, driver, sizeof driver) || get(&s, &real_size, 4) || get(&s, &narrays, 4) || get(&s, dims, sizeof dims) ||
      get(&s, &step, 8) || get(&s, &time, 8) || get(&s, &dt, 8) || get(&s, &hash, 8) || get(&s, &plen, 4))
    FAIL("%.900s: truncated header", path);
  if (plen >= sizeof params) FAIL("%.900s: corrupted header (parameter text of %u bytes)", path, plen);
  if (get(&s, params, plen)) FAIL("%.900s: truncated header", path);
  params[plen] = '\0';
  nseries = nvalues = 0;
  if (version >= 2) {
    if (get(&s, &nseries, 4)) FAIL("%.900s: truncated header", path);
    if (nseries > HD_CKPT_MAX_SERIES) FAIL("%.900s: corrupted header (%u series)", path, nseries);
    for (k = 0; k < (int)nseries; ++k)
      if (get(&s, series[k].name, sizeof series[k].name) || get(&s, &series[k].bytes, 8) || get(&s, &series[k].crc, 4))
        FAIL("%.900s: truncated header", path);
    if (get(&s, &nvalues, 4)) FAIL("%.900s: truncated header", path);
    if (nvalues > HD_CKPT_MAX_VALUES) FAIL("%.900s: corrupted header (%u values)", path, nvalues);
    for (k = 0; k < (int)nvalues; ++k)
      if (get(&s, values[k].name, sizeof values[k].name) || get(&s, &values[k].value, 8))
        FAIL("%.900s: truncated header", path);
  }
  {
    const uint32_t expect = s.crc;
    if (fread(&hcrc, 4, 1, s.f) != 1) FAIL("%.900s: truncated header", path);
    if (hcrc != expect || hash != hd_fnv1a(params)) FAIL("%.900s: corrupted header (CRC mismatch)", path);
  }
  /* what a CRC cannot tell: a header forged with a new one */
  if (step < 0 || time != (double)step * dt)
    FAIL("%.900s: corrupted header (step %lld at time %.17g with dt %.17g)", path, (long long)step, time, dt);
  driver[sizeof driver - 1] = '\0';
  if (strncmp(driver, want->driver, sizeof driver))
    FAIL("%.900s: written by %s, not %s", path, driver, want->driver);
  if (real_size != want->real_size)
    FAIL("%.900s: %s precision, this run is %s", path, real_size == 4 ? "single" : "double",
         want->real_size == 4 ? "single" : "double");
  for (k = 0; k < 3 && want->dims[0] >= 0; ++k)
    if (dims[k] != want->dims[k])
      FAIL("%.900s: grid %lld x %lld x %lld, this run %lld x %lld x %lld", path, (long long)dims[0], (long long)dims[1],
           (long long)dims[2], (long long)want->dims[0], (long long)want->dims[1], (long long)want->dims[2]);
  if (want->params[0] && strcmp(params, want->params)) {
    param_diff(params, want->params, diff, sizeof diff);
    FAIL("%.900s: parameters differ: %s", path, diff);
  }
  if (want->narrays < 0) { /* whatever arrays the file holds */
    if (narrays > HD_CKPT_MAX_ARRAYS) FAIL("%.900s: %u arrays, at most %d", path, narrays, HD_CKPT_MAX_ARRAYS);
    want->narrays = (int)narrays, any = 1;
    for (k = 0; k < want->narrays; ++k) want->arrays[k].data = NULL;
  }
  if ((int)narrays != want->narrays) FAIL("%.900s: %u arrays, expected %d", path, narrays, want->narrays);
  for (k = 0; k < want->narrays; ++k) {
    hd_ckpt_array *a = &want->arrays[k];
    char name[16];
    uint64_t bytes;
    uint32_t crc;
    if (get(&s, name, sizeof name) || get(&s, &bytes, 8) || get(&s, &crc, 4))
      FAIL("%.900s: truncated before array %d", path, k + 1);
    if (!padded(name, sizeof name)) FAIL("%.900s: corrupted record of array %d", path, k + 1);
    if (any) memcpy(a->name, name, sizeof name);
    if (!a->data && !strncmp(name, a->name, sizeof name)) { /* any size: the file's, in a buffer of ours */
      const long at = ftell(s.f);
      long end;
      if (at < 0 || fseek(s.f, 0, SEEK_END) || (end = ftell(s.f)) < 0 || fseek(s.f, at, SEEK_SET))
        FAIL("%.900s: cannot seek", path);
      if (bytes > (uint64_t)(end - at)) FAIL("%.900s: truncated in array '%s'", path, name);
      if (!(a->data = malloc(bytes ? (size_t)bytes : 1))) FAIL("%.900s: out of host memory for array '%s'", path, name);
      a->bytes = bytes;
    }
    if (strncmp(name, a->name, sizeof name) || bytes != a->bytes)
      FAIL("%.900s: array %d is '%s' of %llu bytes, expected '%s' of %llu", path, k + 1, name,
           (unsigned long long)bytes, a->name, (unsigned long long)a->bytes);
    if (fread(a->data, 1, (size_t)bytes, s.f) != (size_t)bytes) FAIL("%.900s: truncated in array '%s'", path, name);
    if (hd_crc32(0, a->data, (size_t)bytes) != crc) FAIL("%.900s: array '%s' is corrupted (CRC mismatch)", path, name);
  }
  if (fgetc(s.f) != EOF) FAIL("%.900s: trailing bytes after the last array", path);
#undef FAIL
  fclose(s.f);
  want->step = step, want->time = time, want->dt = dt;
  if (want->dims[0] < 0) memcpy(want->dims, dims, sizeof dims);
  if (!want->params[0]) memcpy(want->params, params, plen + 1);
  want->nseries = (int)nseries, want->nvalues = (int)nvalues;
  for (k = 0; k < want->nseries; ++k) {
    want->series[k] = series[k];
    want->series[k].name[sizeof series[k].name - 1] = '\0';
  }
  for (k = 0; k < want->nvalues; ++k) {
    want->values[k] = values[k];
    want->values[k].name[sizeof values[k].name - 1] = '\0';
  }
  return 0;
}
