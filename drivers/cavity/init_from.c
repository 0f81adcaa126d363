/* SPDX-License-Identifier: BSD-3-Clause */
#include "init_from.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"

static hd_ckpt_array *array_named(hd_ckpt *c, const char *name) {
  int a;
  for (a = 0; a < c->narrays; ++a)
    if (!strncmp(c->arrays[a].name, name, sizeof c->arrays[a].name)) return &c->arrays[a];
  return NULL;
}

static double value_at(const void *v, size_t real_size, size_t k) {
  return real_size == 4 ? (double)((const float *)v)[k] : ((const double *)v)[k];
}

/* The old field (m + 1 nodes a side) at node (i, j) of this grid (n cells a side). */
static double interpolate(const void *old, size_t real_size, long m, long n, long i, long j) {
  const double x = (double)i * (double)m / (double)n, y = (double)j * (double)m / (double)n;
  long i0 = (long)floor(x), j0 = (long)floor(y);
  double fx, fy;
  if (i0 >= m) i0 = m - 1;
  if (j0 >= m) j0 = m - 1;
  fx = x - (double)i0, fy = y - (double)j0;
  if (fx == 0 && fy == 0) return value_at(old, real_size, (size_t)(i0 + j0 * (m + 1))); /* a shared node: its value */
  return (1 - fy) * ((1 - fx) * value_at(old, real_size, (size_t)(i0 + j0 * (m + 1))) +
                     fx * value_at(old, real_size, (size_t)(i0 + 1 + j0 * (m + 1)))) +
         fy * ((1 - fx) * value_at(old, real_size, (size_t)(i0 + (j0 + 1) * (m + 1))) +
               fx * value_at(old, real_size, (size_t)(i0 + 1 + (j0 + 1) * (m + 1))));
}

int cavity_init_from(const char *path, const cavity_problem *p, size_t real_size, hd_ctx *ctx, void *state,
                     int narrays, hd_state_io_fn io, char *err, size_t n) {
  static hd_ckpt old; /* large; one at a time */
  char want[128];
  long m = 0, first = p->rows ? p->jlo - 1 : 0, i, j;
  int a, bad, rc = -1;
  memset(&old, 0, sizeof old);
  snprintf(old.driver, sizeof old.driver, "hd-cavity");
  old.real_size = (uint32_t)real_size, old.dims[0] = -1, old.narrays = -1; /* any grid, any parameters */
  if (hd_ckpt_read(path, &old, err, n)) {
    char why[1024];
    snprintf(why, sizeof why, "%s", err);
    snprintf(err, n, "init-from: %s", why);
    goto done;
  }
  m = (long)old.dims[0] - 1;
  if (old.dims[1] != old.dims[0] || old.dims[2] != 1 || m < 2 || m > 1L << 24) { /* (m + 1)^2 values fit, unwrapped */
    snprintf(err, n, "init-from: %s is not a square cavity's grid (2 to 2^24 cells a side)", path);
    goto done;
  }
  snprintf(want, sizeof want, "nu=%.17g;lid=%.17g;", p->nu, p->lid);
  if (strncmp(old.params, want, strlen(want))) { /* the flow's parameters come first (ckpt_template) */
    snprintf(err, n, "init-from: %s is of another flow (%.60s), this run %s", path, old.params, want);
    goto done;
  }
  for (a = 0; a < narrays; ++a) {
    char name[16];
    uint64_t bytes;
    const hd_ckpt_array *o;
    void *buf;
    size_t rows, r;
    if (io(ctx, state, a, name, &bytes, NULL, 1) != HD_OK) {
      snprintf(err, n, "init-from: %s", ctx->msg);
      goto done;
    }
    o = array_named(&old, name);
    if (!o && !strcmp(name, "omega_bar")) o = array_named(&old, "omega"); /* damping starts from the flow itself */
    if (!o || o->bytes != (uint64_t)((m + 1) * (m + 1)) * real_size) {
      snprintf(err, n, "init-from: %s has no '%s' of its whole grid (a one-rank checkpoint is needed)", path, name);
      goto done;
    }
    rows = (size_t)(bytes / ((uint64_t)(p->n + 1) * real_size));
    if (!(buf = calloc(rows ? rows * (size_t)(p->n + 1) : 1, real_size))) {
      snprintf(err, n, "init-from: out of host memory");
      goto done;
    }
    for (r = 0; r < rows; ++r) {
      j = first + (long)r;
      for (i = 0; j >= 0 && j <= p->n && i <= p->n; ++i) {
        const double v = interpolate(o->data, real_size, m, p->n, i, j);
        if (real_size == 4) ((float *)buf)[r * (size_t)(p->n + 1) + (size_t)i] = (float)v;
        else ((double *)buf)[r * (size_t)(p->n + 1) + (size_t)i] = v;
      }
    }
    bad = io(ctx, state, a, name, &bytes, buf, 0) != HD_OK;
    free(buf);
    if (bad) {
      snprintf(err, n, "init-from: %s", ctx->msg);
      goto done;
    }
  }
  rc = 0;
done:
  for (a = 0; a < HD_CKPT_MAX_ARRAYS; ++a) free(old.arrays[a].data);
  return rc;
}
