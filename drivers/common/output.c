/* SPDX-License-Identifier: BSD-3-Clause */
#include "output.h"

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

static int little_endian(void) {
  const uint16_t one = 1;
  return *(const unsigned char *)&one == 1;
}

int hd_vti_write_block(hd_out *o, const int64_t n[3], const int64_t lo[3], const int64_t cnt[3], const double origin[3],
                       const double dx[3], const hd_vti_array *arrays, int narrays) {
  const int64_t cells = cnt[0] * cnt[1] * cnt[2];
  const double zero[3] = {0, 0, 0}, *x0 = origin ? origin : zero;
  uint64_t offset = 0;
  int a, dim3 = n[2] > 1;
  FILE *f = o->f;
  fprintf(f,
          "<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"ImageData\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\">\n"
          "  <ImageData WholeExtent=\"0 %lld 0 %lld 0 %lld\" Origin=\"%.17g %.17g %.17g\" "
          "Spacing=\"%.17g %.17g %.17g\">\n"
          "    <Piece Extent=\"%lld %lld %lld %lld %lld %lld\">\n      <CellData Scalars=\"%s\">\n",
          little_endian() ? "LittleEndian" : "BigEndian", (long long)n[0], (long long)n[1],
          dim3 ? (long long)n[2] : 0LL, x0[0], x0[1], dim3 ? x0[2] : 0.0, dx[0], dx[1], dim3 ? dx[2] : dx[0],
          (long long)lo[0], (long long)(lo[0] + cnt[0]),
          (long long)lo[1], (long long)(lo[1] + cnt[1]), dim3 ? (long long)lo[2] : 0LL,
          dim3 ? (long long)(lo[2] + cnt[2]) : 0LL, arrays[0].name);
  for (a = 0; a < narrays; ++a) {
    fprintf(f,
            "        <DataArray type=\"%s\" Name=\"%s\" format=\"appended\" offset=\"%llu\"/>\n",
            arrays[a].single ? "Float32" : "Float64", arrays[a].name,
            (unsigned long long)offset);
    offset += sizeof(uint64_t) + (uint64_t)cells * (arrays[a].single ? 4 : 8);
  }
  fprintf(f, "      </CellData>\n    </Piece>\n  </ImageData>\n  <AppendedData encoding=\"raw\">\n_");
  for (a = 0; a < narrays; ++a) {
    const uint64_t bytes = (uint64_t)cells * (arrays[a].single ? 4 : 8);
    int64_t c;
    if (hd_out_write(o, &bytes, sizeof bytes)) return -1;
    if (!arrays[a].single) {
      if (hd_out_write(o, arrays[a].data, (size_t)bytes)) return -1;
    } else {
      float buf[4096];
      for (c = 0; c < cells;) {
        int m = 0;
        for (; m < 4096 && c < cells; ++m, ++c) buf[m] = (float)arrays[a].data[c];
        if (hd_out_write(o, buf, (size_t)m * sizeof(float))) return -1;
      }
    }
  }
  fprintf(f, "\n  </AppendedData>\n</VTKFile>\n");
  return ferror(f) ? -1 : 0;
}

int hd_vti_write(hd_out *o, const int64_t n[3], const double origin[3], const double dx[3], const hd_vti_array *arrays,
                 int narrays) {
  const int64_t lo[3] = {0, 0, 0};
  return hd_vti_write_block(o, n, lo, n, origin, dx, arrays, narrays);
}

int hd_pvti_write(hd_out *o, const int64_t n[3], const double origin[3], const double dx[3], const hd_vti_array *arrays,
                  int narrays, int npieces, const int64_t *lo, const int64_t *cnt, const char *const *src) {
  const double zero[3] = {0, 0, 0}, *x0 = origin ? origin : zero;
  int a, k, dim3 = n[2] > 1;
  FILE *f = o->f;
  fprintf(f,
          "<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"PImageData\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\">\n"
          "  <PImageData WholeExtent=\"0 %lld 0 %lld 0 %lld\" GhostLevel=\"0\" Origin=\"%.17g %.17g %.17g\" "
          "Spacing=\"%.17g %.17g %.17g\">\n    <PCellData Scalars=\"%s\">\n",
          little_endian() ? "LittleEndian" : "BigEndian", (long long)n[0], (long long)n[1],
          dim3 ? (long long)n[2] : 0LL, x0[0], x0[1], dim3 ? x0[2] : 0.0, dx[0], dx[1], dim3 ? dx[2] : dx[0],
          arrays[0].name);
  for (a = 0; a < narrays; ++a)
    fprintf(f, "      <PDataArray type=\"%s\" Name=\"%s\"/>\n", arrays[a].single ? "Float32" : "Float64",
            arrays[a].name);
  fprintf(f, "    </PCellData>\n");
  for (k = 0; k < npieces; ++k) {
    const int64_t *l = lo + 3 * k, *c = cnt + 3 * k;
    fprintf(f, "    <Piece Extent=\"%lld %lld %lld %lld %lld %lld\" Source=\"%s\"/>\n", (long long)l[0],
            (long long)(l[0] + c[0]), (long long)l[1], (long long)(l[1] + c[1]), dim3 ? (long long)l[2] : 0LL,
            dim3 ? (long long)(l[2] + c[2]) : 0LL, src[k]);
  }
  fprintf(f, "  </PImageData>\n</VTKFile>\n");
  return ferror(f) ? -1 : 0;
}

/* Values as Float32 or Float64 in host byte order (swap: big-endian). */
static int write_values(hd_out *o, const double *v, int64_t count, int stride, int offset,
                        int single, int swap) {
  unsigned char buf[8 * 1024];
  int64_t c = 0;
  const size_t w = single ? 4 : 8;
  while (c < count) {
    size_t m = 0;
    for (; m + w <= sizeof buf && c < count; ++c, m += w) {
      const double d = v[c * stride + offset];
      unsigned char tmp[8];
      size_t b;
      if (single) {
        const float f = (float)d;
        memcpy(tmp, &f, 4);
      } else {
        memcpy(tmp, &d, 8);
      }
      for (b = 0; b < w; ++b) buf[m + b] = tmp[swap ? w - 1 - b : b];
    }
    if (hd_out_write(o, buf, m)) return -1;
  }
  return 0;
}

int hd_vtp_write(hd_out *o, int64_t n, const double *x, const double *y, const double *z,
                 const hd_vtk_points_array *arrays, int narrays, int single) {
  const char *type = single ? "Float32" : "Float64";
  const uint64_t w = single ? 4 : 8;
  uint64_t offset = 0, bytes;
  int64_t i;
  int a;
  FILE *f = o->f;
  const int wide = n > 2147483647; /* the vertex cell's indices: Int64 past 2^31 points */
  fprintf(f,
          "<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\">\n"
          "  <PolyData>\n    <Piece NumberOfPoints=\"%lld\" NumberOfVerts=\"%d\" NumberOfLines=\"0\" "
          "NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n      <PointData>\n",
          little_endian() ? "LittleEndian" : "BigEndian", (long long)n, n > 0);
  for (a = 0; a < narrays; ++a) {
    fprintf(f,
            "        <DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\" "
            "format=\"appended\" offset=\"%llu\"/>\n",
            type, arrays[a].name, arrays[a].ncomp, (unsigned long long)offset);
    offset += 8 + (uint64_t)n * arrays[a].ncomp * w;
  }
  fprintf(f,
          "      </PointData>\n      <Points>\n        <DataArray type=\"%s\" "
          "NumberOfComponents=\"3\" format=\"appended\" offset=\"%llu\"/>\n      </Points>\n",
          type, (unsigned long long)offset);
  offset += 8 + (uint64_t)n * 3 * w;
  if (n > 0) /* every point in one poly-vertex cell: what ParaView draws */
    fprintf(f,
            "      <Verts>\n        <DataArray type=\"%s\" Name=\"connectivity\" format=\"appended\" offset=\"%llu\"/>\n"
            "        <DataArray type=\"Int64\" Name=\"offsets\" format=\"appended\" offset=\"%llu\"/>\n      </Verts>\n",
            wide ? "Int64" : "Int32", (unsigned long long)offset,
            (unsigned long long)(offset + 8 + (uint64_t)n * (wide ? 8 : 4)));
  fprintf(f, "    </Piece>\n  </PolyData>\n  <AppendedData encoding=\"raw\">\n_");
  for (a = 0; a < narrays; ++a) {
    bytes = (uint64_t)n * arrays[a].ncomp * w;
    if (hd_out_write(o, &bytes, sizeof bytes) ||
        write_values(o, arrays[a].data, n * arrays[a].ncomp, 1, 0, single, 0))
      return -1;
  }
  bytes = (uint64_t)n * 3 * w;
  if (hd_out_write(o, &bytes, sizeof bytes)) return -1;
  for (i = 0; i < n; ++i) { /* interleave x, y, z */
    const double p[3] = {x[i], y[i], z ? z[i] : 0.0};
    if (write_values(o, p, 3, 1, 0, single, 0)) return -1;
  }
  if (n > 0) {
    const int64_t end = n;
    bytes = (uint64_t)n * (wide ? 8 : 4);
    if (hd_out_write(o, &bytes, sizeof bytes)) return -1;
    for (i = 0; i < n; ++i) {
      const int32_t k32 = (int32_t)i;
      if (wide ? hd_out_write(o, &i, sizeof i) : hd_out_write(o, &k32, sizeof k32)) return -1;
    }
    bytes = sizeof end;
    if (hd_out_write(o, &bytes, sizeof bytes) || hd_out_write(o, &end, sizeof end)) return -1;
  }
  fprintf(f, "\n  </AppendedData>\n</VTKFile>\n");
  return ferror(f) ? -1 : 0;
}

int hd_vtk_legacy_points_write(hd_out *o, int64_t n, const double *x, const double *y,
                               const double *z, const hd_vtk_points_array *arrays, int narrays,
                               int single) {
  const int swap = little_endian(); /* legacy binary VTK is big-endian */
  const char *type = single ? "float" : "double";
  int64_t i;
  int a;
  FILE *f = o->f;
  fprintf(f, "# vtk DataFile Version 3.0\nhd-nbody bodies\nBINARY\nDATASET POLYDATA\nPOINTS %lld %s\n",
          (long long)n, type);
  for (i = 0; i < n; ++i) {
    const double p[3] = {x[i], y[i], z ? z[i] : 0.0};
    if (write_values(o, p, 3, 1, 0, single, swap)) return -1;
  }
  fprintf(f, "\nVERTICES %lld %lld\n", (long long)n, (long long)(2 * n));
  for (i = 0; i < n; ++i) {
    unsigned char v[8];
    const int32_t one = 1, idx = (int32_t)i;
    int b;
    for (b = 0; b < 4; ++b) {
      v[b] = (unsigned char)(((uint32_t)one >> (24 - 8 * b)) & 0xff);
      v[4 + b] = (unsigned char)(((uint32_t)idx >> (24 - 8 * b)) & 0xff);
    }
    if (hd_out_write(o, v, 8)) return -1;
  }
  fprintf(f, "\nPOINT_DATA %lld\n", (long long)n);
  for (a = 0; a < narrays; ++a) {
    if (arrays[a].ncomp == 1)
      fprintf(f, "SCALARS %s %s 1\nLOOKUP_TABLE default\n", arrays[a].name, type);
    else
      fprintf(f, "VECTORS %s %s\n", arrays[a].name, type);
    if (write_values(o, arrays[a].data, n * arrays[a].ncomp, 1, 0, single, swap)) return -1;
    fprintf(f, "\n");
  }
  return ferror(f) ? -1 : 0;
}

int hd_vtr_write_block(hd_out *o, const int64_t n[3], const int64_t lo[3], const int64_t cnt[3],
                       const double *const x[3], const hd_vti_array *arrays, int narrays) {
  const int64_t cells = cnt[0] * cnt[1] * cnt[2];
  uint64_t offset = 0;
  int a;
  FILE *f = o->f;
  fprintf(f,
          "<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"RectilinearGrid\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\">\n"
          "  <RectilinearGrid WholeExtent=\"0 %lld 0 %lld 0 %lld\">\n"
          "    <Piece Extent=\"%lld %lld %lld %lld %lld %lld\">\n      <CellData Scalars=\"%s\">\n",
          little_endian() ? "LittleEndian" : "BigEndian", (long long)n[0], (long long)n[1], (long long)n[2],
          (long long)lo[0], (long long)(lo[0] + cnt[0]), (long long)lo[1], (long long)(lo[1] + cnt[1]),
          (long long)lo[2], (long long)(lo[2] + cnt[2]), arrays[0].name);
  for (a = 0; a < narrays; ++a) {
    fprintf(f, "        <DataArray type=\"%s\" Name=\"%s\" format=\"appended\" offset=\"%llu\"/>\n",
            arrays[a].single ? "Float32" : "Float64", arrays[a].name, (unsigned long long)offset);
    offset += 8 + (uint64_t)cells * (arrays[a].single ? 4 : 8);
  }
  fprintf(f, "      </CellData>\n      <Coordinates>\n");
  for (a = 0; a < 3; ++a) {
    fprintf(f, "        <DataArray type=\"Float64\" Name=\"%c\" format=\"appended\" offset=\"%llu\"/>\n",
            'x' + a, (unsigned long long)offset);
    offset += 8 + (uint64_t)(cnt[a] + 1) * 8;
  }
  fprintf(f, "      </Coordinates>\n    </Piece>\n  </RectilinearGrid>\n  <AppendedData encoding=\"raw\">\n_");
  for (a = 0; a < narrays; ++a) {
    const uint64_t bytes = (uint64_t)cells * (arrays[a].single ? 4 : 8);
    if (hd_out_write(o, &bytes, sizeof bytes) || write_values(o, arrays[a].data, cells, 1, 0, arrays[a].single, 0))
      return -1;
  }
  for (a = 0; a < 3; ++a) {
    const uint64_t bytes = (uint64_t)(cnt[a] + 1) * 8;
    if (hd_out_write(o, &bytes, sizeof bytes) || hd_out_write(o, x[a] + lo[a], (size_t)bytes)) return -1;
  }
  fprintf(f, "\n  </AppendedData>\n</VTKFile>\n");
  return ferror(f) ? -1 : 0;
}

int hd_vtr_write(hd_out *o, const int64_t n[3], const double *const x[3], const hd_vti_array *arrays,
                 int narrays) {
  const int64_t lo[3] = {0, 0, 0};
  return hd_vtr_write_block(o, n, lo, n, x, arrays, narrays);
}

int hd_pvtr_write(hd_out *o, const int64_t n[3], const hd_vti_array *arrays, int narrays, int npieces,
                  const int64_t *lo, const int64_t *cnt, const char *const *src) {
  int a, k;
  FILE *f = o->f;
  fprintf(f,
          "<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"PRectilinearGrid\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\">\n"
          "  <PRectilinearGrid WholeExtent=\"0 %lld 0 %lld 0 %lld\" GhostLevel=\"0\">\n    <PCellData Scalars=\"%s\">\n",
          little_endian() ? "LittleEndian" : "BigEndian", (long long)n[0], (long long)n[1], (long long)n[2],
          arrays[0].name);
  for (a = 0; a < narrays; ++a)
    fprintf(f, "      <PDataArray type=\"%s\" Name=\"%s\"/>\n", arrays[a].single ? "Float32" : "Float64",
            arrays[a].name);
  fprintf(f, "    </PCellData>\n    <PCoordinates>\n");
  for (a = 0; a < 3; ++a) fprintf(f, "      <PDataArray type=\"Float64\" Name=\"%c\"/>\n", 'x' + a);
  fprintf(f, "    </PCoordinates>\n");
  for (k = 0; k < npieces; ++k) {
    const int64_t *l = lo + 3 * k, *c = cnt + 3 * k;
    fprintf(f, "    <Piece Extent=\"%lld %lld %lld %lld %lld %lld\" Source=\"%s\"/>\n", (long long)l[0],
            (long long)(l[0] + c[0]), (long long)l[1], (long long)(l[1] + c[1]), (long long)l[2],
            (long long)(l[2] + c[2]), src[k]);
  }
  fprintf(f, "  </PRectilinearGrid>\n</VTKFile>\n");
  return ferror(f) ? -1 : 0;
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

int hd_png_write(hd_out *o, int w, int h, const double *v, double vmax, char *err, size_t n) {
  return hd_png_write_map(o, w, h, v, -vmax, vmax, HD_PNG_DIVERGING, err, n);
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

int hd_png_write_map(hd_out *o, int w, int h, const double *v, double lo, double hi, int map, char *err, size_t n) {
  return hd_png_write_map_lines(o, w, h, v, lo, hi, map, 0, NULL, err, n);
}

int hd_png_write_map_lines(hd_out *o, int w, int h, const double *v, double lo, double hi, int map, int contours,
                           const unsigned char *region, char *err, size_t n) {
#if defined(HD_HAVE_PNG)
  /* small maps are magnified (nearest neighbour) to at least 512 pixels */
  const int big = w > h ? w : h, zoom = big >= 512 ? 1 : (512 + big - 1) / big;
  map_rows m;
  m.v = v, m.region = region, m.w = w, m.h = h, m.zoom = zoom, m.map = map, m.contours = contours;
  m.lo = lo, m.span = hi > lo ? hi - lo : 1.0;
  return png_rows(o, w * zoom, h * zoom, map_row, &m, err, n);
#else
  (void)o, (void)w, (void)h, (void)v, (void)lo, (void)hi, (void)map, (void)contours, (void)region;
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
