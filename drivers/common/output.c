/* SPDX-License-Identifier: BSD-3-Clause */
#include "output.h"

#include "font.h"

#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#if defined(HD_HAVE_PNG)
#include <png.h>
#endif

void hd_dirname(const char *path, char *dir, size_t n) {
  const char *slash = strrchr(path, '/');
  if (!slash) {
    snprintf(dir, n, ".");
  } else if (slash == path) {
    snprintf(dir, n, "/");
  } else {
    size_t len = (size_t)(slash - path);
    if (len >= n) len = n - 1;
    memcpy(dir, path, len);
    dir[len] = '\0';
  }
}

int hd_out_open(hd_out *o, const char *path, char *err, size_t n) {
  char dir[4096];
  const char *base = strrchr(path, '/');
  int fd;
  memset(o, 0, sizeof *o);
  if (strlen(path) >= sizeof o->path) {
    snprintf(err, n, "output path too long: %s", path);
    return -1;
  }
  strcpy(o->path, path);
  hd_dirname(path, dir, sizeof dir);
  base = base ? base + 1 : path;
  if (!*base) {
    snprintf(err, n, "output path '%s' names a directory, not a file", path);
    return -1;
  }
  if (strlen(dir) + strlen(base) + 10 >= sizeof o->tmp) {
    snprintf(err, n, "output path too long: %s", path);
    return -1;
  }
  memcpy(o->tmp, dir, strlen(dir));
  sprintf(o->tmp + strlen(dir), "/.%s.XXXXXX", base);
  fd = mkstemp(o->tmp);
  if (fd < 0 && errno == ENAMETOOLONG) { /* the file's name, not the directory */
    snprintf(err, n, "cannot write '%s': the name is too long for the file system (shorten --output)", path);
    o->tmp[0] = '\0';
    return -1;
  }
  if (fd < 0) {
    snprintf(err, n, "cannot write in directory '%s': %s", dir, strerror(errno));
    o->tmp[0] = '\0';
    return -1;
  }
  /* mkstemp creates 0600; outputs are ordinary files */
  {
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
  }
  o->f = fdopen(fd, "wb");
  if (!o->f) {
    snprintf(err, n, "cannot write '%s': %s", o->tmp, strerror(errno));
    close(fd);
    unlink(o->tmp);
    o->tmp[0] = '\0';
    return -1;
  }
  return 0;
}

int hd_out_write(hd_out *o, const void *p, size_t bytes) {
  return fwrite(p, 1, bytes, o->f) == bytes ? 0 : -1;
}

const char *hd_out_error(void) { return errno ? strerror(errno) : "write error"; }

int hd_out_rewind(hd_out *o, char *err, size_t n) {
  if (fflush(o->f) != 0 || ftruncate(fileno(o->f), 0) != 0 || fseeko(o->f, 0, SEEK_SET) != 0)
    return snprintf(err, n, "cannot rewrite '%.900s': %s", o->tmp, strerror(errno)), -1;
  return 0;
}

int hd_out_discard(hd_out *o, char *err, size_t n) {
  memset(o, 0, sizeof *o);
  if (!(o->f = fopen("/dev/null", "w"))) return snprintf(err, n, "cannot open /dev/null: %s", strerror(errno)), -1;
  return 0;
}

int hd_out_commit(hd_out *o, char *err, size_t n) {
  char dir[4096];
  int fd;
  if (!o->f) return 0;
  if (!o->tmp[0]) { /* a discarding sink */
    fclose(o->f);
    o->f = NULL;
    return 0;
  }
  if (o->footer) fputs(o->footer, o->f);
  if (fflush(o->f) != 0 || ferror(o->f) || fsync(fileno(o->f)) != 0) {
    snprintf(err, n, "cannot write '%s': %s", o->path, strerror(errno));
    hd_out_abort(o);
    return -1;
  }
  if (fclose(o->f) != 0) {
    o->f = NULL;
    snprintf(err, n, "cannot write '%s': %s", o->path, strerror(errno));
    hd_out_abort(o);
    return -1;
  }
  o->f = NULL;
  if (rename(o->tmp, o->path) != 0) {
    snprintf(err, n, "cannot rename '%s' to '%s': %s", o->tmp, o->path, strerror(errno));
    hd_out_abort(o);
    return -1;
  }
  o->tmp[0] = '\0';
  hd_dirname(o->path, dir, sizeof dir);
  fd = open(dir, O_RDONLY);
  if (fd >= 0) {
    fsync(fd); /* make the rename durable; some file systems refuse, harmlessly */
    close(fd);
  }
  return 0;
}

void hd_out_abort(hd_out *o) {
  if (o->f) fclose(o->f);
  o->f = NULL;
  if (o->tmp[0]) unlink(o->tmp);
  o->tmp[0] = '\0';
}

#if defined(HD_HAVE_PNG)
static void png_error_fn(png_structp p, png_const_charp msg) {
  (void)msg;
  longjmp(png_jmpbuf(p), 1);
}
#endif

#if defined(HD_HAVE_PNG)
/* RGB of t in [0, 1]: blue-white-red, or viridis through five of its
 * colours (sequential: dark low, bright high, readable in grey too). */
static void colour(double t, int map, unsigned char *px) {
  static const unsigned char vir[5][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  if (!(t == t)) t = 0.5;
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  if (map == HD_PNG_DIVERGING) {
    const double d = 2 * t - 1; /* -1 blue, 0 white, 1 red */
    px[0] = (unsigned char)(d < 0 ? 255 * (1 + d) : 255);
    px[1] = (unsigned char)(255 * (1 - fabs(d)));
    px[2] = (unsigned char)(d > 0 ? 255 * (1 - d) : 255);
  } else {
    const double x = 4 * t;
    const int k = x >= 4 ? 3 : (int)x;
    const double f = x - k;
    int c;
    for (c = 0; c < 3; ++c) px[c] = (unsigned char)(vir[k][c] + f * (vir[k + 1][c] - vir[k][c]) + 0.5);
  }
}

#endif

int hd_png_write(hd_out *o, int w, int h, const double *v, double vmax, const hd_png_legend *legend, char *err,
                 size_t n) {
  return hd_png_write_map(o, w, h, v, -vmax, vmax, HD_PNG_DIVERGING, legend, err, n);
}

#if defined(HD_HAVE_PNG)
/* An RGB PNG of W x H pixels whose rows `row` fills; 0 or -1 + message. */
typedef void (*png_row_fn)(const void *user, int y, unsigned char *rgb);
static int png_rows(hd_out *o, int w, int h, png_row_fn row_fn, const void *user, char *err, size_t n) {
  png_structp p = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, png_error_fn, NULL);
  png_infop info = p ? png_create_info_struct(p) : NULL;
  unsigned char *row = (unsigned char *)malloc((size_t)w * 3);
  int y;
  if (!p || !info || !row) {
    if (p) png_destroy_write_struct(&p, info ? &info : NULL);
    free(row);
    snprintf(err, n, "out of memory for a PNG");
    return -1;
  }
  if (setjmp(png_jmpbuf(p))) {
    png_destroy_write_struct(&p, &info);
    free(row);
    snprintf(err, n, "cannot write the PNG %s", o->path);
    return -1;
  }
  png_init_io(p, o->f);
  png_set_IHDR(p, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(p, info);
  for (y = 0; y < h; ++y) {
    row_fn(user, y, row);
    png_write_row(p, row);
  }
  png_write_end(p, NULL);
  png_destroy_write_struct(&p, &info);
  free(row);
  return 0;
}

typedef struct map_rows {
  const double *v;
  const unsigned char *region;
  int w, h, zoom, map, contours;
  double lo, span;
} map_rows;

/* The contour level of pixel (x, y): the cell values bilinear between the
 * cell centres, so the lines run smooth across the magnified cells. */
static int level(const map_rows *m, int x, int y) {
  const double fx = (x + 0.5) / m->zoom - 0.5, fy = (y + 0.5) / m->zoom - 0.5;
  const int x0 = fx < 0 ? 0 : fx >= m->w - 1 ? m->w - 1 : (int)fx, y0 = fy < 0 ? 0 : fy >= m->h - 1 ? m->h - 1 : (int)fy;
  const int x1 = x0 + 1 < m->w ? x0 + 1 : x0, y1 = y0 + 1 < m->h ? y0 + 1 : y0;
  const double tx = fx - x0 < 0 ? 0 : fx - x0 > 1 ? 1 : fx - x0, ty = fy - y0 < 0 ? 0 : fy - y0 > 1 ? 1 : fy - y0;
  const double *v = m->v;
  const double a = v[(size_t)y0 * m->w + x0] + tx * (v[(size_t)y0 * m->w + x1] - v[(size_t)y0 * m->w + x0]);
  const double b = v[(size_t)y1 * m->w + x0] + tx * (v[(size_t)y1 * m->w + x1] - v[(size_t)y1 * m->w + x0]);
  const double t = ((a + ty * (b - a)) - m->lo) / m->span;
  return (int)floor((t < 0 ? 0 : t > 1 ? 1 : t) * m->contours * (1 - 1e-12));
}

static void map_row(const void *user, int y, unsigned char *rgb) {
  const map_rows *m = (const map_rows *)user;
  const int cy = y / m->zoom;
  int x;
  for (x = 0; x < m->w * m->zoom; ++x) {
    const int cx = x / m->zoom;
    colour((m->v[(size_t)cy * m->w + cx] - m->lo) / m->span, m->map, rgb + 3 * x);
    if (m->contours > 0) { /* a dark pixel where the level steps to the right or below */
      const int l = level(m, x, y);
      if ((x + 1 < m->w * m->zoom && level(m, x + 1, y) != l) || (y + 1 < m->h * m->zoom && level(m, x, y + 1) != l))
        rgb[3 * x] = rgb[3 * x + 1] = rgb[3 * x + 2] = 64;
    }
    if (m->region) { /* black along the edges between cells of different regions */
      const unsigned char r = m->region[(size_t)cy * m->w + cx];
      const int right = x % m->zoom == m->zoom - 1 && cx + 1 < m->w && m->region[(size_t)cy * m->w + cx + 1] != r;
      const int left = x % m->zoom == 0 && cx > 0 && m->region[(size_t)cy * m->w + cx - 1] != r;
      const int down = y % m->zoom == m->zoom - 1 && cy + 1 < m->h && m->region[(size_t)(cy + 1) * m->w + cx] != r;
      const int up = y % m->zoom == 0 && cy > 0 && m->region[(size_t)(cy - 1) * m->w + cx] != r;
      if (right || left || down || up) rgb[3 * x] = rgb[3 * x + 1] = rgb[3 * x + 2] = 0;
    }
  }
}

typedef struct rgb_rows {
  const unsigned char *rgb;
  int w;
} rgb_rows;

static void rgb_row(const void *user, int y, unsigned char *rgb) {
  const rgb_rows *r = (const rgb_rows *)user;
  memcpy(rgb, r->rgb + (size_t)y * r->w * 3, (size_t)r->w * 3);
}
#endif

int hd_png_write_map(hd_out *o, int w, int h, const double *v, double lo, double hi, int map,
                     const hd_png_legend *legend, char *err, size_t n) {
  return hd_png_write_map_lines(o, w, h, v, lo, hi, map, 0, NULL, legend, err, n);
}

#if defined(HD_HAVE_PNG)
/* The map with its legend on one white canvas: title above, colour bar
 * with five numbers to the right, extent below; the font doubled on maps
 * past 1200 pixels. */
static int legend_picture(hd_out *o, const map_rows *m, const hd_png_legend *lg, double hi, char *err, size_t n) {
  static const unsigned char black[3] = {0, 0, 0};
  const int mw = m->w * m->zoom, mh = m->h * m->zoom, fs = mw >= 1200 || mh >= 1200 ? 2 : 1, line = 11 * fs;
  const int left = 8 * fs, top = 2 * line + 2 * fs, bottom = line + 4 * fs, gap = 12 * fs, bw = 16 * fs;
  const int bx = left + mw + gap; /* the bar's left edge */
  char num[5][32];
  int k, x, y, lw = 0, cw, ch;
  unsigned char *px;
  for (k = 0; k < 5; ++k) {
    const double v = m->lo + m->span * k / 4.0;
    snprintf(num[k], sizeof num[k], "%.3g", fabs(v) < 1e-12 * (fabs(m->lo) + fabs(hi)) ? 0.0 : v);
    if (hd_font_width(num[k], fs) > lw) lw = hd_font_width(num[k], fs);
  }
  if (lg->units && hd_font_width(lg->units, fs) > lw + bw) lw = hd_font_width(lg->units, fs) - bw;
  cw = bx + bw + 6 * fs + lw + 8 * fs, ch = top + mh + bottom;
  if (lg->title && left + hd_font_width(lg->title, fs) + 8 * fs > cw) cw = left + hd_font_width(lg->title, fs) + 8 * fs;
  if (lg->extent && left + hd_font_width(lg->extent, fs) + 8 * fs > cw) cw = left + hd_font_width(lg->extent, fs) + 8 * fs;
  if (!(px = (unsigned char *)malloc((size_t)cw * ch * 3))) return snprintf(err, n, "out of memory for a picture"), -1;
  memset(px, 255, (size_t)cw * ch * 3);
  for (y = 0; y < mh; ++y) map_row(m, y, px + 3 * ((size_t)(top + y) * cw + left));
  for (y = 0; y < mh; ++y) /* the bar: hi at the top, lo at the bottom, framed */
    for (x = 0; x < bw; ++x) {
      unsigned char *p = px + 3 * ((size_t)(top + y) * cw + bx + x);
      if (x == 0 || x == bw - 1 || y == 0 || y == mh - 1) memcpy(p, black, 3);
      else colour(1.0 - (double)y / (mh > 1 ? mh - 1 : 1), m->map, p);
    }
  for (k = 0; k < 5; ++k) { /* ticks and numbers */
    const int ty = top + (int)lround((mh - 1) * (1.0 - k / 4.0));
    for (x = 0; x < 4 * fs; ++x)
      if (ty >= 0 && ty < ch) memcpy(px + 3 * ((size_t)ty * cw + bx + bw + x), black, 3);
    hd_font_text(px, cw, ch, bx + bw + 6 * fs, ty - HD_FONT_HEIGHT * fs / 2, num[k], fs, 0, black);
  }
  if (lg->title) hd_font_text(px, cw, ch, left, 3 * fs, lg->title, fs, 0, black);
  if (lg->units) hd_font_text(px, cw, ch, bx, line + 3 * fs, lg->units, fs, 0, black);
  if (lg->extent) hd_font_text(px, cw, ch, left, top + mh + 4 * fs, lg->extent, fs, 0, black);
  k = hd_png_write_rgb(o, cw, ch, px, err, n);
  free(px);
  return k;
}
#endif

int hd_png_write_map_lines(hd_out *o, int w, int h, const double *v, double lo, double hi, int map, int contours,
                           const unsigned char *region, const hd_png_legend *legend, char *err, size_t n) {
#if defined(HD_HAVE_PNG)
  /* small maps are magnified (nearest neighbour) to at least 512 pixels */
  const int big = w > h ? w : h, zoom = big >= 512 ? 1 : (512 + big - 1) / big;
  map_rows m;
  m.v = v, m.region = region, m.w = w, m.h = h, m.zoom = zoom, m.map = map, m.contours = contours;
  m.lo = lo, m.span = hi > lo ? hi - lo : 1.0;
  if (legend) return legend_picture(o, &m, legend, m.lo + m.span, err, n);
  return png_rows(o, w * zoom, h * zoom, map_row, &m, err, n);
#else
  (void)o, (void)w, (void)h, (void)v, (void)lo, (void)hi, (void)map, (void)contours, (void)region, (void)legend;
  snprintf(err, n, "%s", HD_NO_PNG);
  return -1;
#endif
}

int hd_png_write_rgb(hd_out *o, int w, int h, const unsigned char *rgb, char *err, size_t n) {
#if defined(HD_HAVE_PNG)
  rgb_rows r;
  r.rgb = rgb, r.w = w;
  return png_rows(o, w, h, rgb_row, &r, err, n);
#else
  (void)o, (void)w, (void)h, (void)rgb;
  snprintf(err, n, "%s", HD_NO_PNG);
  return -1;
#endif
}
