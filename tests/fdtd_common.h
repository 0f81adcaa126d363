/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared setup for the FDTD tests: models built from input lines, runs on
 * one backend/precision returning probe records and the six fields. */
#ifndef HD_TEST_FDTD_COMMON_H
#define HD_TEST_FDTD_COMMON_H

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "backends.h"
#include "fdtd/fdtd_ops.h"
#include "fdtd/model.h"

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
TAP_FN void fd_add(cli_list *l, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (fdtd_input_add(l, buf, "test")) bail("out of memory");
}

/* Parse and build (bails on any error: a test model must be valid). */
TAP_FN void fd_build(fdtd_input *in, fdtd_model *m) {
  char err[512];
  if (fdtd_input_parse(in, err, sizeof err) || fdtd_input_build(in, m, err, sizeof err)) bail("model: %s", err);
}

/* Run `steps` steps; rec gets steps x (probes + 2 feeds) values, fields (if
 * not NULL) the six components on the padded grid, each g.total doubles. */
TAP_FN int fd_run(test_backend *b, const fdtd_ops *ops, const fdtd_model *m, long steps, double *rec,
                  double *fields[6]) {
  void *state = NULL;
  int okay = ops->create(&b->ctx, m, &state) == HD_OK && ops->advance(&b->ctx, state, steps, rec, NULL, NULL) == HD_OK;
  int c;
  for (c = 0; okay && fields && c < 6; ++c) okay = ops->download(&b->ctx, state, c, fields[c]) == HD_OK;
  if (!okay) diag("%s/%s: %s", ops->backend, ops->precision, b->ctx.msg);
  if (state) ops->destroy(&b->ctx, state);
  return okay;
}

TAP_FN double fd_total(const fdtd_model *m) {
  hd_grid g;
  return fdtd_node_grid(&g, m->n, fdtd_pad(m)) ? (double)g.total : 0.0;
}

/* |sum_k v_k w_k e^{-2 pi i f k dt}| with a Hann window w: the spectrum of a
 * record at any frequency (a DTFT, not bound to FFT bins). */
TAP_FN double fd_spectrum(const double *v, long count, long stride, double dt, double f) {
  const double pi = 3.14159265358979323846;
  double re = 0.0, im = 0.0;
  long k;
  for (k = 0; k < count; ++k) {
    const double w = 0.5 - 0.5 * cos(2.0 * pi * k / (count - 1)), ph = 2.0 * pi * f * k * dt;
    re += v[k * stride] * w * cos(ph);
    im -= v[k * stride] * w * sin(ph);
  }
  return sqrt(re * re + im * im);
}

/* The frequency of the spectrum's maximum within [lo, hi] (golden section,
 * after a coarse scan). */
TAP_FN double fd_peak(const double *v, long count, long stride, double dt, double lo, double hi) {
  const double gr = 0.5 * (sqrt(5.0) - 1.0);
  double best = lo, bv = -1.0, a, b, c, d;
  int k;
  for (k = 0; k <= 200; ++k) {
    const double f = lo + (hi - lo) * k / 200.0, s = fd_spectrum(v, count, stride, dt, f);
    if (s > bv) bv = s, best = f;
  }
  a = best - (hi - lo) / 200.0, b = best + (hi - lo) / 200.0;
  c = b - gr * (b - a), d = a + gr * (b - a);
  for (k = 0; k < 60; ++k) {
    if (fd_spectrum(v, count, stride, dt, c) > fd_spectrum(v, count, stride, dt, d)) b = d;
    else a = c;
    c = b - gr * (b - a), d = a + gr * (b - a);
  }
  return 0.5 * (a + b);
}

#endif
