/* SPDX-License-Identifier: BSD-3-Clause */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "field_file.h"
#include "input_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int type_size[4] = {1, 4, 4, 8};

/* The value of attribute `name` in the tag starting at tag (up to '>'). */
static int attribute(const char *tag, const char *name, char *out, size_t n) {
  const char *end = strchr(tag, '>'), *p = tag;
  const size_t len = strlen(name);
  while ((p = strstr(p, name)) && (!end || p < end)) {
    if ((p == tag || p[-1] == ' ' || p[-1] == '\n' || p[-1] == '\t') && p[len] == '=' && p[len + 1] == '"') {
      const char *v = p + len + 2, *q = strchr(v, '"');
      if (!q || (size_t)(q - v) >= n) return 0;
      memcpy(out, v, (size_t)(q - v));
      out[q - v] = '\0';
      return 1;
    }
    p += len;
  }
  return 0;
}

static int vti_open(hd_field_file *f, char *err, size_t en) {
  FILE *fp = hd_fopen_input(f->path, "rb");
  char *head, *tag, *data, v[256];
  size_t got;
  long e[6];
  uint64_t bytes = 0;
  int hsize = 4, d, rc = -1;
  if (!fp) return snprintf(err, en, "%s: %s", f->path, hd_input_error()), -1;
  head = (char *)malloc(65537);
  got = head ? fread(head, 1, 65536, fp) : 0;
  if (!head) {
    fclose(fp);
    return snprintf(err, en, "%s: out of memory", f->path), -1;
  }
  head[got] = '\0';
  if (!(tag = strstr(head, "<VTKFile")) || !attribute(tag, "type", v, sizeof v) || strcmp(v, "ImageData")) {
    snprintf(err, en, "%s: not a VTK ImageData (.vti) file", f->path);
    goto out;
  }
  f->swap = attribute(tag, "byte_order", v, sizeof v) && !strcmp(v, "BigEndian");
  if (attribute(tag, "header_type", v, sizeof v)) hsize = !strcmp(v, "UInt64") ? 8 : 4;
  if (attribute(tag, "compressor", v, sizeof v)) {
    snprintf(err, en, "%s: compressed data; write it uncompressed (raw appended)", f->path);
    goto out;
  }
  if (!(tag = strstr(head, "<ImageData")) || !attribute(tag, "WholeExtent", v, sizeof v) ||
      sscanf(v, "%ld %ld %ld %ld %ld %ld", &e[0], &e[1], &e[2], &e[3], &e[4], &e[5]) != 6) {
    snprintf(err, en, "%s: no ImageData WholeExtent", f->path);
    goto out;
  }
  if ((tag = strstr(head, "<Piece")) && attribute(tag, "Extent", v, sizeof v) &&
      sscanf(v, "%ld %ld %ld %ld %ld %ld", &e[0], &e[1], &e[2], &e[3], &e[4], &e[5]) != 6) {
    snprintf(err, en, "%s: a Piece Extent that is not six integers", f->path);
    goto out;
  }
  for (d = 0; d < 3; ++d) {
    f->lo[d] = e[2 * d];
    f->n[d] = e[2 * d + 1] - e[2 * d] > 0 ? e[2 * d + 1] - e[2 * d] : 1;
  }
  { /* the first scalar cell array (an FDTD volume's E_magnitude after its vectors) */
    const char *cells = strstr(head, "<CellData"), *end = cells ? strstr(cells, "</CellData>") : NULL;
    for (tag = cells ? strstr(cells, "<DataArray") : NULL; tag && (!end || tag < end); tag = strstr(tag + 1, "<DataArray"))
      if (!attribute(tag, "NumberOfComponents", v, sizeof v) || !strcmp(v, "1")) break;
    if (!tag || (end && tag > end)) {
      snprintf(err, en, "%s: no scalar cell data array", f->path);
      goto out;
    }
  }
  if (!attribute(tag, "format", v, sizeof v) || strcmp(v, "appended")) {
    snprintf(err, en, "%s: its first cell array is not in appended raw form (as hd writes .vti files)", f->path);
    goto out;
  }
  if (!attribute(tag, "type", v, sizeof v)) v[0] = '\0';
  f->type = !strcmp(v, "UInt8") ? HD_FF_U8 : !strcmp(v, "Int32") ? HD_FF_I32 : !strcmp(v, "Float32") ? HD_FF_F32
            : !strcmp(v, "Float64") ? HD_FF_F64 : -1;
  if (f->type < 0) {
    snprintf(err, en, "%s: the first cell array is not one UInt8, Int32, Float32 or Float64 a cell", f->path);
    goto out;
  }
  if (!attribute(tag, "offset", v, sizeof v)) {
    snprintf(err, en, "%s: the first cell array has no offset", f->path);
    goto out;
  }
  f->offset = strtoull(v, NULL, 10);
  if (!(data = strstr(head, "<AppendedData")) || !attribute(data, "encoding", v, sizeof v) || strcmp(v, "raw") ||
      !(data = strchr(data, '_'))) {
    snprintf(err, en, "%s: no raw <AppendedData> (base64 is not read)", f->path);
    goto out;
  }
  f->offset += (uint64_t)(data + 1 - head);
  if (fseek(fp, (long)f->offset, SEEK_SET) || fread(&bytes, 1, (size_t)hsize, fp) != (size_t)hsize) {
    snprintf(err, en, "%s: truncated", f->path);
    goto out;
  }
  if (f->swap) { /* the header's bytes, reversed */
    unsigned char *b = (unsigned char *)&bytes, t;
    for (d = 0; d < hsize / 2; ++d) t = b[d], b[d] = b[hsize - 1 - d], b[hsize - 1 - d] = t;
  }
  if (hsize == 4) bytes &= 0xffffffffu;
  f->offset += (uint64_t)hsize;
  if (bytes != (uint64_t)f->n[0] * (uint64_t)f->n[1] * (uint64_t)f->n[2] * (uint64_t)type_size[f->type]) {
    snprintf(err, en, "%s: the first cell array holds %llu bytes, not one value for each of its %ld x %ld x %ld cells",
             f->path, (unsigned long long)bytes, f->n[0], f->n[1], f->n[2]);
    goto out;
  }
  rc = 0;
out:
  free(head);
  fclose(fp);
  return rc;
}

void hd_field_file_close(hd_field_file *f) {
  free(f->pieces);
  f->pieces = NULL, f->npieces = 0;
}

/* A parallel image's index: its whole extent and its pieces, each opened
 * as a .vti (named relative to the index) and checked against its entry. */
static int pvti_open(hd_field_file *f, char *err, size_t en) {
  FILE *fp = hd_fopen_input(f->path, "rb");
  const char *slash = strrchr(f->path, '/');
  const int dirlen = slash ? (int)(slash - f->path + 1) : 0;
  char *text = NULL, *tag, v[4096];
  double covered = 0.0; /* cells of the pieces, which must tile the image */
  long e[6], size;
  int d, k, rc = -1;
  if (!fp) return snprintf(err, en, "%s: %s", f->path, hd_input_error()), -1;
  size = fseek(fp, 0, SEEK_END) ? -1 : ftell(fp);
  if (size < 0 || size > (64L << 20) || fseek(fp, 0, SEEK_SET) || !(text = (char *)malloc((size_t)size + 1)) ||
      fread(text, 1, (size_t)size, fp) != (size_t)size) {
    snprintf(err, en, "%s: %s", f->path, size > (64L << 20) ? "an index over 64 MB" : "unreadable or out of memory");
    goto out;
  }
  text[size] = '\0';
  if (!(tag = strstr(text, "<VTKFile")) || !attribute(tag, "type", v, sizeof v) || strcmp(v, "PImageData") ||
      !(tag = strstr(text, "<PImageData")) || !attribute(tag, "WholeExtent", v, sizeof v) ||
      sscanf(v, "%ld %ld %ld %ld %ld %ld", &e[0], &e[1], &e[2], &e[3], &e[4], &e[5]) != 6) {
    snprintf(err, en, "%s: not a VTK parallel image (.pvti) with a WholeExtent", f->path);
    goto out;
  }
  for (d = 0; d < 3; ++d) f->n[d] = e[2 * d + 1] - e[2 * d] > 0 ? e[2 * d + 1] - e[2 * d] : 1;
  for (tag = text; (tag = strstr(tag, "<Piece ")); ++tag) f->npieces++;
  if (!f->npieces || !(f->pieces = (hd_field_file *)calloc((size_t)f->npieces, sizeof *f->pieces))) {
    snprintf(err, en, "%s: %s", f->path, f->npieces ? "out of memory" : "no pieces");
    goto out;
  }
  for (k = 0, tag = text; (tag = strstr(tag, "<Piece ")); ++tag, ++k) {
    hd_field_file *p = &f->pieces[k];
    if (!attribute(tag, "Extent", v, sizeof v) ||
        sscanf(v, "%ld %ld %ld %ld %ld %ld", &e[0], &e[1], &e[2], &e[3], &e[4], &e[5]) != 6 ||
        !attribute(tag, "Source", v, sizeof v)) {
      snprintf(err, en, "%s: piece %d has no Extent or Source", f->path, k + 1);
      goto out;
    }
    if (snprintf(p->path, sizeof p->path, "%.*s%s", v[0] == '/' ? 0 : dirlen, f->path, v) >= (int)sizeof p->path) {
      snprintf(err, en, "%s: piece %d: path too long", f->path, k + 1);
      goto out;
    }
    if (vti_open(p, err, en)) goto out;
    for (d = 0; d < 3; ++d)
      if (p->lo[d] != e[2 * d] || p->n[d] != (e[2 * d + 1] - e[2 * d] > 0 ? e[2 * d + 1] - e[2 * d] : 1) ||
          p->lo[d] < 0 || p->lo[d] + p->n[d] > f->n[d]) {
        snprintf(err, en, "%s: its extent is not the one %s gives it", p->path, f->path);
        goto out;
      }
    if (k > 0 && p->type != f->type) {
      snprintf(err, en, "%s: its values are not of the type of the other pieces", p->path);
      goto out;
    }
    f->type = p->type;
    covered += (double)p->n[0] * (double)p->n[1] * (double)p->n[2];
  }
  for (k = 0; k < f->npieces; ++k) { /* no cell twice: with the count, the pieces tile the image */
    int j;
    for (j = k + 1; j < f->npieces; ++j) {
      const hd_field_file *p = &f->pieces[k], *q = &f->pieces[j];
      for (d = 0; d < 3 && p->lo[d] < q->lo[d] + q->n[d] && q->lo[d] < p->lo[d] + p->n[d]; ++d) continue;
      if (d == 3) {
        snprintf(err, en, "%s: pieces %d (%s) and %d (%s) overlap", f->path, k + 1, p->path, j + 1, q->path);
        goto out;
      }
    }
  }
  if (covered != (double)f->n[0] * (double)f->n[1] * (double)f->n[2]) {
    snprintf(err, en, "%s: its pieces hold %.0f cells, the image %ld x %ld x %ld", f->path, covered, f->n[0], f->n[1],
             f->n[2]);
    goto out;
  }
  rc = 0;
out:
  free(text);
  fclose(fp);
  if (rc) hd_field_file_close(f);
  return rc;
}

int hd_field_file_open(hd_field_file *f, const char *spec, int dim, const long n[3], char *err, size_t en) {
  const size_t len = strlen(spec);
  int d;
  memset(f, 0, sizeof *f);
  if (!strncmp(spec, "raw:", 4)) {
    const char *t = spec + 4, *shape = strchr(t, ':'), *path;
    char *end;
    FILE *fp;
    long size;
    f->type = !strncmp(t, "u8:", 3) ? HD_FF_U8 : !strncmp(t, "i32:", 4) ? HD_FF_I32 : !strncmp(t, "f32:", 4) ? HD_FF_F32
              : !strncmp(t, "f64:", 4) ? HD_FF_F64 : -1;
    if (f->type < 0 || !shape)
      return snprintf(err, en, "'%s': expected raw:u8|i32|f32|f64:NX,NY[,NZ]:PATH", spec), -1;
    f->n[1] = f->n[2] = 1;
    for (d = 0, t = shape + 1; d < 3; ++d) {
      f->n[d] = strtol(t, &end, 10);
      if (end == t || f->n[d] < 1) return snprintf(err, en, "'%s': expected raw:TYPE:NX,NY[,NZ]:PATH", spec), -1;
      t = end + 1;
      if (*end == ':') break;
      if (*end != ',') return snprintf(err, en, "'%s': expected raw:TYPE:NX,NY[,NZ]:PATH", spec), -1;
    }
    path = t;
    if (d == 3 || !*path || strlen(path) >= sizeof f->path)
      return snprintf(err, en, "'%s': expected raw:TYPE:NX,NY[,NZ]:PATH", spec), -1;
    strcpy(f->path, path);
    if (!(fp = hd_fopen_input(f->path, "rb"))) return snprintf(err, en, "%s: %s", f->path, hd_input_error()), -1;
    size = fseek(fp, 0, SEEK_END) ? -1 : ftell(fp);
    fclose(fp);
    if (size != f->n[0] * f->n[1] * f->n[2] * type_size[f->type])
      return snprintf(err, en, "%s: %ld bytes, not %ld x %ld x %ld values of %d bytes", f->path, size, f->n[0], f->n[1],
                      f->n[2], type_size[f->type]), -1;
  } else if (len >= 5 && !strcmp(spec + len - 5, ".pvti") && len < sizeof f->path) {
    strcpy(f->path, spec);
    if (pvti_open(f, err, en)) return -1;
  } else {
    if (len < 4 || strcmp(spec + len - 4, ".vti") || len >= sizeof f->path)
      return snprintf(err, en, "'%s': expected a .vti or .pvti file or raw:TYPE:NX,NY[,NZ]:PATH", spec), -1;
    strcpy(f->path, spec);
    if (vti_open(f, err, en)) return -1;
    if (f->lo[0] || f->lo[1] || f->lo[2])
      return snprintf(err, en, "%s: one piece of a parallel image; give its .pvti", f->path), -1;
  }
  for (d = 0; d < 3; ++d)
    if (f->n[d] != (d < dim ? n[d] : 1)) {
      snprintf(err, en, "%s: %ld x %ld x %ld cells, the grid has %ld x %ld x %ld", f->path, f->n[0], f->n[1], f->n[2],
               n[0], dim > 1 ? n[1] : 1, dim > 2 ? n[2] : 1);
      hd_field_file_close(f);
      return -1;
    }
  return 0;
}

/* The cells lo .. lo + cnt - 1 (within the file's block) into out, a box
 * of ocnt cells whose first is olo. */
static int read_box(const hd_field_file *f, const long lo[3], const long cnt[3], double *out, const long olo[3],
                    const long ocnt[3], char *err, size_t en) {
  const int w = type_size[f->type];
  FILE *fp = hd_fopen_input(f->path, "rb");
  unsigned char *row = (unsigned char *)malloc((size_t)cnt[0] * (size_t)w);
  long j, k, i;
  int rc = 0;
  if (!fp || !row) {
    snprintf(err, en, "%s: %s", f->path, fp ? "out of memory" : hd_input_error());
    if (fp) fclose(fp);
    free(row);
    return -1;
  }
  for (k = 0; k < cnt[2] && !rc; ++k)
    for (j = 0; j < cnt[1] && !rc; ++j) {
      const uint64_t at =
          f->offset +
          (uint64_t)(((lo[2] - f->lo[2] + k) * f->n[1] + lo[1] - f->lo[1] + j) * f->n[0] + lo[0] - f->lo[0]) * (uint64_t)w;
      if (fseeko(fp, (off_t)at, SEEK_SET) || fread(row, (size_t)w, (size_t)cnt[0], fp) != (size_t)cnt[0]) {
        snprintf(err, en, "%s: truncated or unreadable", f->path);
        rc = -1;
        break;
      }
      for (i = 0; i < cnt[0]; ++i) {
        unsigned char b[8];
        int u;
        double v;
        for (u = 0; u < w; ++u) b[u] = row[i * w + (f->swap ? w - 1 - u : u)];
        if (f->type == HD_FF_U8) v = b[0];
        else if (f->type == HD_FF_I32) {
          int32_t x;
          memcpy(&x, b, 4), v = x;
        } else if (f->type == HD_FF_F32) {
          float x;
          memcpy(&x, b, 4), v = x;
        } else {
          memcpy(&v, b, 8);
        }
        out[((lo[2] - olo[2] + k) * ocnt[1] + lo[1] - olo[1] + j) * ocnt[0] + lo[0] - olo[0] + i] = v;
      }
    }
  fclose(fp);
  free(row);
  return rc;
}

int hd_field_file_read(const hd_field_file *f, const long lo[3], const long cnt[3], double *out, char *err,
                       size_t en) {
  int k, d;
  if (!f->npieces) return read_box(f, lo, cnt, out, lo, cnt, err, en);
  for (k = 0; k < f->npieces; ++k) { /* the overlap of the block with each piece */
    const hd_field_file *p = &f->pieces[k];
    long a[3], b[3];
    for (d = 0; d < 3; ++d) {
      a[d] = lo[d] > p->lo[d] ? lo[d] : p->lo[d];
      b[d] = (lo[d] + cnt[d] < p->lo[d] + p->n[d] ? lo[d] + cnt[d] : p->lo[d] + p->n[d]) - a[d];
    }
    if (b[0] > 0 && b[1] > 0 && b[2] > 0 && read_box(p, a, b, out, lo, cnt, err, en)) return -1;
  }
  return 0;
}
