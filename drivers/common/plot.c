/* SPDX-License-Identifier: BSD-3-Clause */
#include "plot.h"

#include "font.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 720
#define H 480

static const unsigned char palette[6][3] = {{31, 119, 180}, {214, 39, 40}, {44, 160, 44}, {255, 127, 14}, {148, 103, 189}, {23, 190, 207}};

typedef struct canvas {
  unsigned char px[W * H * 3];
} canvas;

static void dot(canvas *c, int x, int y, const unsigned char *rgb) {
  if (x < 0 || y < 0 || x >= W || y >= H) return;
  memcpy(c->px + 3 * ((size_t)y * W + x), rgb, 3);
}

static void line(canvas *c, double x0, double y0, double x1, double y1, const unsigned char *rgb, int thick) {
  const double len = fmax(fabs(x1 - x0), fabs(y1 - y0));
  const int steps = (int)ceil(len) + 1;
  int k, a, b;
  for (k = 0; k <= steps; ++k) {
    const double t = (double)k / steps, x = x0 + t * (x1 - x0), y = y0 + t * (y1 - y0);
    for (a = 0; a < thick; ++a)
      for (b = 0; b < thick; ++b) dot(c, (int)lround(x) + a - thick / 2, (int)lround(y) + b - thick / 2, rgb);
  }
}

/* Text at (x, y) (top left), scale s; `centre` centres it on x. */
static void text(canvas *c, int x, int y, const char *s, int scale, int centre, const unsigned char *rgb) {
  hd_font_text(c->px, W, H, x, y, s, scale, centre, rgb);
}

/* Tick step for a range: 1, 2 or 5 times a power of ten, about 6 ticks. */
static double tick_step(double span) {
  const double raw = span / 6, p = pow(10, floor(log10(raw))), f = raw / p;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

static void label(char *buf, size_t n, double v, double step) {
  if (fabs(v) < 1e-9 * step) v = 0;
  if (fabs(v) >= 1e5 || (fabs(v) < 1e-3 && v != 0)) snprintf(buf, n, "%.2g", v);
  else snprintf(buf, n, "%.*f", step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9), v);
}

static const unsigned char black[3] = {0, 0, 0}, grey[3] = {220, 220, 220}, dark[3] = {90, 90, 90};

static int finish(hd_out *o, canvas *c, char *err, size_t n) {
  const int rc = hd_png_write_rgb(o, W, H, c->px, err, n);
  free(c);
  return rc;
}

static canvas *blank(char *err, size_t n) {
  canvas *c = (canvas *)malloc(sizeof *c);
  if (!c) snprintf(err, n, "out of memory for a plot");
  else memset(c->px, 255, sizeof c->px);
  return c;
}

int hd_plot_lines(hd_out *o, const char *title, const char *xlabel, const char *ylabel, const hd_plot_curve *cv, int nc,
                  double lo, double hi, char *err, size_t n) {
  return hd_plot_marked(o, title, xlabel, ylabel, cv, nc, 0, lo, hi, err, n);
}

int hd_plot_marked(hd_out *o, const char *title, const char *xlabel, const char *ylabel, const hd_plot_curve *cv, int nc,
                   unsigned marked, double lo, double hi, char *err, size_t n) {
  const int left = 80, right = W - 20, top = 40, bottom = H - 50;
  double x0 = HUGE_VAL, x1 = -HUGE_VAL, y0 = HUGE_VAL, y1 = -HUGE_VAL, sx, sy, v;
  canvas *c = blank(err, n);
  char buf[64];
  int k, i;
  if (!c) return -1;
  for (k = 0; k < nc; ++k)
    for (i = 0; i < cv[k].n; ++i) {
      if (!isfinite(cv[k].x[i]) || !isfinite(cv[k].y[i])) continue;
      x0 = fmin(x0, cv[k].x[i]), x1 = fmax(x1, cv[k].x[i]), y0 = fmin(y0, cv[k].y[i]), y1 = fmax(y1, cv[k].y[i]);
    }
  if (lo < hi) y0 = lo, y1 = hi;
  if (!(x1 > x0)) x0 -= 0.5, x1 += 0.5;
  if (!(y1 > y0)) y0 -= 0.5, y1 += 0.5;
  sy = tick_step(y1 - y0), y0 = floor(y0 / sy) * sy, y1 = ceil(y1 / sy) * sy;
  sx = tick_step(x1 - x0);
  for (v = ceil(x0 / sx) * sx; v <= x1 + 1e-9 * sx; v += sx) { /* grid and ticks */
    const double px = left + (v - x0) / (x1 - x0) * (right - left);
    line(c, px, top, px, bottom, grey, 1);
    label(buf, sizeof buf, v, sx);
    text(c, (int)px, bottom + 8, buf, 1, 1, black);
  }
  for (v = y0; v <= y1 + 1e-9 * sy; v += sy) {
    const double py = bottom - (v - y0) / (y1 - y0) * (bottom - top);
    line(c, left, py, right, py, grey, 1);
    label(buf, sizeof buf, v, sy);
    text(c, left - 8 - 6 * (int)strlen(buf), (int)py - 3, buf, 1, 0, black);
  }
  line(c, left, top, left, bottom, black, 1), line(c, left, bottom, right, bottom, black, 1);
  for (k = 0; k < nc; ++k) {
    const int marks = (marked >> k) & 1;
    for (i = 0; marks && i < cv[k].n; ++i) /* a square of 7 pixels at each point */
      if (isfinite(cv[k].y[i])) {
        const double px = left + (cv[k].x[i] - x0) / (x1 - x0) * (right - left),
                     py = bottom - (cv[k].y[i] - y0) / (y1 - y0) * (bottom - top);
        line(c, px, py, px, py, palette[k % 6], 7);
      }
    if (marks) {
      line(c, right - 140, top + 12 + 14 * k, right - 140, top + 12 + 14 * k, palette[k % 6], 7);
      text(c, right - 124, top + 9 + 14 * k, cv[k].label ? cv[k].label : "", 1, 0, black);
      continue;
    }
    for (i = 1; i < cv[k].n; ++i)
      if (isfinite(cv[k].y[i - 1]) && isfinite(cv[k].y[i]))
        line(c, left + (cv[k].x[i - 1] - x0) / (x1 - x0) * (right - left), bottom - (cv[k].y[i - 1] - y0) / (y1 - y0) * (bottom - top),
             left + (cv[k].x[i] - x0) / (x1 - x0) * (right - left), bottom - (cv[k].y[i] - y0) / (y1 - y0) * (bottom - top),
             palette[k % 6], 2);
    if (cv[k].n == 1) line(c, left + (cv[k].x[0] - x0) / (x1 - x0) * (right - left) - 3, bottom - (cv[k].y[0] - y0) / (y1 - y0) * (bottom - top),
                           left + (cv[k].x[0] - x0) / (x1 - x0) * (right - left) + 3, bottom - (cv[k].y[0] - y0) / (y1 - y0) * (bottom - top), palette[k % 6], 5);
    line(c, right - 150, top + 12 + 14 * k, right - 130, top + 12 + 14 * k, palette[k % 6], 3);
    text(c, right - 124, top + 9 + 14 * k, cv[k].label ? cv[k].label : "", 1, 0, black);
  }
  text(c, (left + right) / 2, 12, title, 2, 1, black);
  text(c, (left + right) / 2, H - 22, xlabel, 1, 1, dark);
  text(c, 8, top - 16, ylabel, 1, 0, dark);
  return finish(o, c, err, n);
}

int hd_plot_polar(hd_out *o, const char *title, const char *const *panel, const hd_plot_curve *const *cv, const int *nc,
                  int npanel, double top, double range, double step, char *err, size_t n) {
  const double pi = 3.14159265358979323846, r0 = 150;
  canvas *c = blank(err, n);
  char buf[32];
  int p, k, i, a;
  if (!c) return -1;
  for (p = 0; p < npanel && p < 2; ++p) {
    const double cx = npanel == 1 ? W / 2.0 : W / 4.0 + p * W / 2.0, cy = H / 2.0 + 20;
    double db;
    for (db = 0; db <= range * (1 + 1e-9); db += step) { /* circles every step */
      const double r = r0 * (1 - db / range);
      for (a = 0; a < 360; ++a)
        line(c, cx + r * sin(a * pi / 180), cy - r * cos(a * pi / 180), cx + r * sin((a + 1) * pi / 180),
             cy - r * cos((a + 1) * pi / 180), db == 0 ? black : grey, 1);
      snprintf(buf, sizeof buf, "%.3g", top - db); /* along 15 degrees, clear of the top spoke */
      if (db < range * (1 - 1e-9)) text(c, (int)(cx + r * sin(pi / 12) + 3), (int)(cy - r * cos(pi / 12) - 3), buf, 1, 0, dark);
    }
    for (a = 0; a < 360; a += 30) { /* spokes */
      line(c, cx, cy, cx + r0 * sin(a * pi / 180), cy - r0 * cos(a * pi / 180), grey, 1);
      snprintf(buf, sizeof buf, "%d", a);
      text(c, (int)(cx + (r0 + 14) * sin(a * pi / 180)), (int)(cy - (r0 + 14) * cos(a * pi / 180) - 3), buf, 1, 1, dark);
    }
    for (k = 0; k < nc[p]; ++k) {
      const hd_plot_curve *q = &cv[p][k];
      for (i = 1; i < q->n; ++i) {
        const double ra = r0 * fmax(0, 1 - (top - q->y[i - 1]) / range), rb = r0 * fmax(0, 1 - (top - q->y[i]) / range);
        line(c, cx + ra * sin(q->x[i - 1] * pi / 180), cy - ra * cos(q->x[i - 1] * pi / 180), cx + rb * sin(q->x[i] * pi / 180),
             cy - rb * cos(q->x[i] * pi / 180), palette[k % 6], 2);
      }
      line(c, cx - 176, 58 + 14 * k, cx - 160, 58 + 14 * k, palette[k % 6], 3);
      text(c, (int)(cx - 155), 55 + 14 * k, q->label ? q->label : "", 1, 0, black);
    }
    text(c, (int)cx, 38, panel[p], 1, 1, dark);
  }
  text(c, W / 2, 10, title, 2, 1, black);
  return finish(o, c, err, n);
}

int hd_plot_smith(hd_out *o, const char *title, const hd_plot_curve *cv, int nc, char *err, size_t n) {
  static const double marks[5] = {0.2, 0.5, 1, 2, 5};
  const double pi = 3.14159265358979323846, r0 = 200, cx = W / 2.0, cy = H / 2.0 + 15;
  canvas *c = blank(err, n);
  char buf[16];
  int k, i, a;
  if (!c) return -1;
  /* z = r + jx maps to gamma = (z - 1) / (z + 1): resistance r is the circle
   * of centre r / (1 + r) and radius 1 / (1 + r); reactance x the arc of
   * centre (1, 1 / x) and radius 1 / |x|, inside the unit circle */
  for (k = -1; k < 5; ++k) {
    const double r = k < 0 ? 0 : marks[k], ccx = r / (1 + r), rad = 1 / (1 + r);
    for (a = 0; a < 360; ++a)
      line(c, cx + r0 * (ccx + rad * cos(a * pi / 180)), cy - r0 * rad * sin(a * pi / 180),
           cx + r0 * (ccx + rad * cos((a + 1) * pi / 180)), cy - r0 * rad * sin((a + 1) * pi / 180), k < 0 ? black : grey, 1);
    if (k >= 0) {
      snprintf(buf, sizeof buf, "%g", r);
      text(c, (int)(cx + r0 * (ccx - rad)) + 2, (int)cy + 4, buf, 1, 0, dark);
    }
  }
  for (k = 0; k < 10; ++k) {
    const double x = (k % 2 ? -1 : 1) * marks[k / 2];
    double prev[2] = {1, 0};
    for (a = 1; a <= 400; ++a) { /* z = jx + r for r from 0 up: the arc from the rim to gamma = 1 */
      const double r = a < 400 ? tan(a * pi / 800) * 0.25 : 1e9, dr = (r + 1) * (r + 1) + x * x;
      const double gr = (r * r + x * x - 1) / dr, gi = 2 * x / dr;
      if (a > 1) line(c, cx + r0 * prev[0], cy - r0 * prev[1], cx + r0 * gr, cy - r0 * gi, grey, 1);
      prev[0] = gr, prev[1] = gi;
    }
    { /* the label where the arc meets the rim: r = 0 */
      const double dr = 1 + x * x, gr = (x * x - 1) / dr, gi = 2 * x / dr;
      snprintf(buf, sizeof buf, "%+g", x);
      text(c, (int)(cx + (r0 + 16) * gr), (int)(cy - (r0 + 12) * gi) - 3, buf, 1, 1, dark);
    }
  }
  line(c, cx - r0, cy, cx + r0, cy, grey, 1);
  for (k = 0; k < nc; ++k) {
    for (i = 1; i < cv[k].n; ++i)
      line(c, cx + r0 * cv[k].x[i - 1], cy - r0 * cv[k].y[i - 1], cx + r0 * cv[k].x[i], cy - r0 * cv[k].y[i], palette[k % 6], 2);
    if (cv[k].n > 0) line(c, cx + r0 * cv[k].x[0] - 3, cy - r0 * cv[k].y[0], cx + r0 * cv[k].x[0] + 3, cy - r0 * cv[k].y[0], palette[k % 6], 6);
    line(c, 20, 58 + 14 * k, 40, 58 + 14 * k, palette[k % 6], 3);
    text(c, 46, 55 + 14 * k, cv[k].label ? cv[k].label : "", 1, 0, black);
  }
  text(c, 20, H - 20, "SQUARE: FIRST FREQUENCY", 1, 0, dark);
  text(c, W / 2, 10, title, 2, 1, black);
  return finish(o, c, err, n);
}

int hd_plot_csv(hd_out *o, const char *xname, const char *yname, const hd_plot_curve *cv, int nc) {
  int k, i;
  fprintf(o->f, "curve,%s,%s\n", xname, yname);
  for (k = 0; k < nc; ++k)
    for (i = 0; i < cv[k].n; ++i) fprintf(o->f, "%s,%.9g,%.9g\n", cv[k].label ? cv[k].label : "", cv[k].x[i], cv[k].y[i]);
  return ferror(o->f) ? -1 : 0;
}
