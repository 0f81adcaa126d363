/* SPDX-License-Identifier: BSD-3-Clause */
/* The VTK files the drivers write (output.h): XML ImageData, RectilinearGrid,
 * StructuredGrid and PolyData with raw appended binary, their parallel
 * indices, and legacy binary points.  Every XML dataset carries its time and
 * units as field data, so ParaView shows them without a .pvd. */
#include "output.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int little_endian(void) {
  const uint16_t one = 1;
  return *(const unsigned char *)&one == 1;
}

static const char *byte_order(void) { return little_endian() ? "LittleEndian" : "BigEndian"; }

hd_vtk_meta hd_vtk_meta_time(double t) {
  hd_vtk_meta m;
  memset(&m, 0, sizeof m);
  m.has_time = 1, m.time = t;
  return m;
}

void hd_vtk_meta_add(hd_vtk_meta *m, const char *key, double value) {
  if (m->nvalues >= HD_VTK_META_MAX) return;
  m->key[m->nvalues] = key, m->value[m->nvalues] = value;
  ++m->nvalues;
}

/* A string array's ASCII form: each character's code, each string ended by 0. */
static void ascii_codes(FILE *f, const char *s) {
  for (; *s; ++s) fprintf(f, " %d", (unsigned char)*s);
  fprintf(f, " 0");
}

/* <FieldData>: TimeValue, the named numbers, the arrays' units. */
static void field_data(FILE *f, const hd_vtk_meta *m, const hd_vti_array *arrays, int narrays, const char *indent) {
  int k, units = 0;
  for (k = 0; k < narrays; ++k) units += arrays && arrays[k].units != NULL;
  if (!m && !units) return;
  fprintf(f, "%s<FieldData>\n", indent);
  if (m && m->has_time)
    fprintf(f, "%s  <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">%.17g</DataArray>\n",
            indent, m->time);
  for (k = 0; m && k < m->nvalues; ++k)
    fprintf(f, "%s  <DataArray type=\"Float64\" Name=\"%s\" NumberOfTuples=\"1\" format=\"ascii\">%.17g</DataArray>\n",
            indent, m->key[k], m->value[k]);
  if (m && m->nlist > 0) {
    fprintf(f, "%s  <DataArray type=\"Float64\" Name=\"%s\" NumberOfTuples=\"%d\" format=\"ascii\">", indent, m->list_key,
            m->nlist);
    for (k = 0; k < m->nlist; ++k) fprintf(f, "%s%.17g", k ? " " : "", m->list[k]);
    fprintf(f, "</DataArray>\n");
  }
  if (units) {
    fprintf(f, "%s  <Array type=\"String\" Name=\"units\" NumberOfTuples=\"%d\" format=\"ascii\">", indent, units);
    for (k = 0; k < narrays; ++k)
      if (arrays[k].units) {
        char s[256];
        snprintf(s, sizeof s, "%s: %s", arrays[k].name, arrays[k].units);
        ascii_codes(f, s);
      }
    fprintf(f, "</Array>\n");
  }
  fprintf(f, "%s</FieldData>\n", indent);
}

static int components(const hd_vti_array *a) { return a->data ? 1 : 3; }

static uint64_t array_bytes(const hd_vti_array *a, int64_t count) {
  return (uint64_t)count * (uint64_t)components(a) * (a->single ? 4u : 8u);
}

/* An array's <DataArray> (appended at offset); the offset of the next. */
static uint64_t array_header(FILE *f, const hd_vti_array *a, uint64_t offset, int64_t count, int parallel) {
  const char *type = a->single ? "Float32" : "Float64";
  if (parallel)
    fprintf(f, "      <PDataArray type=\"%s\" Name=\"%s\"", type, a->name);
  else
    fprintf(f, "        <DataArray type=\"%s\" Name=\"%s\"", type, a->name);
  if (components(a) == 3)
    fprintf(f, " NumberOfComponents=\"3\" ComponentName0=\"%s_x\" ComponentName1=\"%s_y\" ComponentName2=\"%s_z\"", a->name,
            a->name, a->name);
  if (parallel) return fprintf(f, "/>\n"), offset;
  fprintf(f, " format=\"appended\" offset=\"%llu\"/>\n", (unsigned long long)offset);
  return offset + sizeof(uint64_t) + array_bytes(a, count);
}

/* Values as Float32 or Float64 in host byte order (swap: big-endian),
 * components interleaved: v[k][c] for c < count, k < ncomp. */
static int write_values_n(hd_out *o, const double *const *v, int ncomp, int64_t count, int single, int swap) {
  unsigned char buf[8 * 1024];
  int64_t c = 0;
  int k = 0;
  const size_t w = single ? 4 : 8;
  while (c < count) {
    size_t m = 0;
    for (; m + w <= sizeof buf && c < count; m += w) {
      const double d = v[k][c];
      unsigned char tmp[8];
      size_t b;
      if (single) {
        const float x = (float)d;
        memcpy(tmp, &x, 4);
      } else {
        memcpy(tmp, &d, 8);
      }
      for (b = 0; b < w; ++b) buf[m + b] = tmp[swap ? w - 1 - b : b];
      if (++k == ncomp) k = 0, ++c;
    }
    if (hd_out_write(o, buf, m)) return -1;
  }
  return 0;
}

static int write_values(hd_out *o, const double *v, int64_t count, int single, int swap) {
  return write_values_n(o, &v, 1, count, single, swap);
}

/* An array's appended block: its byte count, then its values. */
static int array_data(hd_out *o, const hd_vti_array *a, int64_t count) {
  const uint64_t bytes = array_bytes(a, count);
  if (hd_out_write(o, &bytes, sizeof bytes)) return -1;
  return a->data ? write_values(o, a->data, count, a->single, 0) : write_values_n(o, a->comp, 3, count, a->single, 0);
}

/* The first scalar's name (what ParaView colours by), else the first array's. */
static const char *first_scalar(const hd_vti_array *arrays, int narrays) {
  int k;
  for (k = 0; k < narrays; ++k)
    if (arrays[k].data) return arrays[k].name;
  return narrays > 0 ? arrays[0].name : "";
}

/* The head of an image or its parallel index (prefix "" or "P"), up to
 * the dataset's first child. */
static void image_head(FILE *f, const char *prefix, const int64_t n[3], const double origin[3], const double dx[3]) {
  const double zero[3] = {0, 0, 0}, *x0 = origin ? origin : zero;
  const int dim3 = n[2] > 1;
  fprintf(f,
          "<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"%sImageData\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\">\n"
          "  <%sImageData WholeExtent=\"0 %lld 0 %lld 0 %lld\"%s Origin=\"%.17g %.17g %.17g\" "
          "Spacing=\"%.17g %.17g %.17g\">\n",
          prefix, byte_order(), prefix, (long long)n[0], (long long)n[1], dim3 ? (long long)n[2] : 0LL,
          prefix[0] ? " GhostLevel=\"0\"" : "", x0[0], x0[1], dim3 ? x0[2] : 0.0, dx[0], dx[1], dim3 ? dx[2] : dx[0]);
}

int hd_vti_write_block(hd_out *o, const int64_t n[3], const int64_t lo[3], const int64_t cnt[3], const double origin[3],
                       const double dx[3], const hd_vti_array *arrays, int narrays, const hd_vtk_meta *meta) {
  const int64_t cells = cnt[0] * cnt[1] * cnt[2];
  uint64_t offset = 0;
  int a, dim3 = n[2] > 1;
  FILE *f = o->f;
  image_head(f, "", n, origin, dx);
  field_data(f, meta, arrays, narrays, "    ");
  fprintf(f, "    <Piece Extent=\"%lld %lld %lld %lld %lld %lld\">\n      <CellData Scalars=\"%s\">\n", (long long)lo[0],
          (long long)(lo[0] + cnt[0]), (long long)lo[1], (long long)(lo[1] + cnt[1]), dim3 ? (long long)lo[2] : 0LL,
          dim3 ? (long long)(lo[2] + cnt[2]) : 0LL, first_scalar(arrays, narrays));
  for (a = 0; a < narrays; ++a) offset = array_header(f, &arrays[a], offset, cells, 0);
  fprintf(f, "      </CellData>\n    </Piece>\n  </ImageData>\n  <AppendedData encoding=\"raw\">\n_");
  for (a = 0; a < narrays; ++a)
    if (array_data(o, &arrays[a], cells)) return -1;
  fprintf(f, "\n  </AppendedData>\n</VTKFile>\n");
  return ferror(f) ? -1 : 0;
}

int hd_vti_write(hd_out *o, const int64_t n[3], const double origin[3], const double dx[3], const hd_vti_array *arrays,
                 int narrays, const hd_vtk_meta *meta) {
  const int64_t lo[3] = {0, 0, 0};
  return hd_vti_write_block(o, n, lo, n, origin, dx, arrays, narrays, meta);
}

static void parallel_arrays(FILE *f, const char *tag, const hd_vti_array *arrays, int narrays) {
  int a;
  fprintf(f, "    <P%s Scalars=\"%s\">\n", tag, first_scalar(arrays, narrays));
  for (a = 0; a < narrays; ++a) array_header(f, &arrays[a], 0, 0, 1);
  fprintf(f, "    </P%s>\n", tag);
}

static void parallel_pieces(FILE *f, const int64_t *lo, const int64_t *cnt, int npieces, const char *const *src,
                            int flat_z) {
  int k;
  for (k = 0; k < npieces; ++k) {
    const int64_t *l = lo + 3 * k, *c = cnt + 3 * k;
    fprintf(f, "    <Piece Extent=\"%lld %lld %lld %lld %lld %lld\" Source=\"%s\"/>\n", (long long)l[0],
            (long long)(l[0] + c[0]), (long long)l[1], (long long)(l[1] + c[1]), flat_z ? 0LL : (long long)l[2],
            flat_z ? 0LL : (long long)(l[2] + c[2]), src[k]);
  }
}

int hd_pvti_write(hd_out *o, const int64_t n[3], const double origin[3], const double dx[3], const hd_vti_array *arrays,
                  int narrays, int npieces, const int64_t *lo, const int64_t *cnt, const char *const *src) {
  FILE *f = o->f;
  image_head(f, "P", n, origin, dx);
  parallel_arrays(f, "CellData", arrays, narrays);
  parallel_pieces(f, lo, cnt, npieces, src, n[2] <= 1);
  fprintf(f, "  </PImageData>\n</VTKFile>\n");
  return ferror(f) ? -1 : 0;
}

int hd_vtr_write_block(hd_out *o, const int64_t n[3], const int64_t lo[3], const int64_t cnt[3],
                       const double *const x[3], const hd_vti_array *arrays, int narrays, const hd_vtk_meta *meta) {
  int64_t cells = 1;
  uint64_t offset = 0;
  int a;
  FILE *f = o->f;
  for (a = 0; a < 3; ++a) cells *= cnt[a] > 0 ? cnt[a] : 1; /* a flat axis: one layer */
  fprintf(f,
          "<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"RectilinearGrid\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\">\n"
          "  <RectilinearGrid WholeExtent=\"0 %lld 0 %lld 0 %lld\">\n",
          byte_order(), (long long)n[0], (long long)n[1], (long long)n[2]);
  field_data(f, meta, arrays, narrays, "    ");
  fprintf(f, "    <Piece Extent=\"%lld %lld %lld %lld %lld %lld\">\n      <CellData Scalars=\"%s\">\n", (long long)lo[0],
          (long long)(lo[0] + cnt[0]), (long long)lo[1], (long long)(lo[1] + cnt[1]), (long long)lo[2],
          (long long)(lo[2] + cnt[2]), first_scalar(arrays, narrays));
  for (a = 0; a < narrays; ++a) offset = array_header(f, &arrays[a], offset, cells, 0);
  fprintf(f, "      </CellData>\n      <Coordinates>\n");
  for (a = 0; a < 3; ++a) {
    fprintf(f, "        <DataArray type=\"Float64\" Name=\"%c\" format=\"appended\" offset=\"%llu\"/>\n", 'x' + a,
            (unsigned long long)offset);
    offset += 8 + (uint64_t)(cnt[a] + 1) * 8;
  }
  fprintf(f, "      </Coordinates>\n    </Piece>\n  </RectilinearGrid>\n  <AppendedData encoding=\"raw\">\n_");
  for (a = 0; a < narrays; ++a)
    if (array_data(o, &arrays[a], cells)) return -1;
  for (a = 0; a < 3; ++a) {
    const uint64_t bytes = (uint64_t)(cnt[a] + 1) * 8;
    if (hd_out_write(o, &bytes, sizeof bytes) || hd_out_write(o, x[a] + lo[a], (size_t)bytes)) return -1;
  }
  fprintf(f, "\n  </AppendedData>\n</VTKFile>\n");
  return ferror(f) ? -1 : 0;
}

int hd_vtr_write(hd_out *o, const int64_t n[3], const double *const x[3], const hd_vti_array *arrays, int narrays,
                 const hd_vtk_meta *meta) {
  const int64_t lo[3] = {0, 0, 0};
  return hd_vtr_write_block(o, n, lo, n, x, arrays, narrays, meta);
}

int hd_pvtr_write(hd_out *o, const int64_t n[3], const hd_vti_array *arrays, int narrays, int npieces,
                  const int64_t *lo, const int64_t *cnt, const char *const *src) {
  int a;
  FILE *f = o->f;
  fprintf(f,
          "<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"PRectilinearGrid\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\">\n"
          "  <PRectilinearGrid WholeExtent=\"0 %lld 0 %lld 0 %lld\" GhostLevel=\"0\">\n",
          byte_order(), (long long)n[0], (long long)n[1], (long long)n[2]);
  parallel_arrays(f, "CellData", arrays, narrays);
  fprintf(f, "    <PCoordinates>\n");
  for (a = 0; a < 3; ++a) fprintf(f, "      <PDataArray type=\"Float64\" Name=\"%c\"/>\n", 'x' + a);
  fprintf(f, "    </PCoordinates>\n");
  parallel_pieces(f, lo, cnt, npieces, src, 0);
  fprintf(f, "  </PRectilinearGrid>\n</VTKFile>\n");
  return ferror(f) ? -1 : 0;
}

int hd_vts_write(hd_out *o, const int64_t n[3], const double *xyz, const hd_vti_array *arrays, int narrays,
                 const hd_vtk_meta *meta) {
  const int64_t points = n[0] * n[1] * n[2];
  uint64_t offset = 0, bytes = (uint64_t)points * 3 * 8;
  int a;
  FILE *f = o->f;
  fprintf(f,
          "<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"StructuredGrid\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\">\n"
          "  <StructuredGrid WholeExtent=\"0 %lld 0 %lld 0 %lld\">\n",
          byte_order(), (long long)(n[0] - 1), (long long)(n[1] - 1), (long long)(n[2] - 1));
  field_data(f, meta, arrays, narrays, "    ");
  fprintf(f, "    <Piece Extent=\"0 %lld 0 %lld 0 %lld\">\n      <PointData Scalars=\"%s\">\n", (long long)(n[0] - 1),
          (long long)(n[1] - 1), (long long)(n[2] - 1), first_scalar(arrays, narrays));
  for (a = 0; a < narrays; ++a) offset = array_header(f, &arrays[a], offset, points, 0);
  fprintf(f,
          "      </PointData>\n      <Points>\n        <DataArray type=\"Float64\" NumberOfComponents=\"3\" "
          "format=\"appended\" offset=\"%llu\"/>\n      </Points>\n    </Piece>\n  </StructuredGrid>\n"
          "  <AppendedData encoding=\"raw\">\n_",
          (unsigned long long)offset);
  for (a = 0; a < narrays; ++a)
    if (array_data(o, &arrays[a], points)) return -1;
  if (hd_out_write(o, &bytes, sizeof bytes) || write_values(o, xyz, 3 * points, 0, 0)) return -1;
  fprintf(f, "\n  </AppendedData>\n</VTKFile>\n");
  return ferror(f) ? -1 : 0;
}

int hd_vtp_write(hd_out *o, int64_t n, const double *x, const double *y, const double *z,
                 const hd_vtk_points_array *arrays, int narrays, int single, const hd_vtk_meta *meta) {
  const char *type = single ? "Float32" : "Float64";
  const uint64_t w = single ? 4 : 8;
  uint64_t offset = 0, bytes;
  int64_t i;
  int a;
  FILE *f = o->f;
  const int wide = n > 2147483647; /* the vertex cell's indices: Int64 past 2^31 points */
  fprintf(f,
          "<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\">\n  <PolyData>\n",
          byte_order());
  field_data(f, meta, NULL, 0, "    ");
  fprintf(f,
          "    <Piece NumberOfPoints=\"%lld\" NumberOfVerts=\"%d\" NumberOfLines=\"0\" "
          "NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n      <PointData>\n",
          (long long)n, n > 0);
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
    if (hd_out_write(o, &bytes, sizeof bytes) || write_values(o, arrays[a].data, n * arrays[a].ncomp, single, 0))
      return -1;
  }
  bytes = (uint64_t)n * 3 * w;
  if (hd_out_write(o, &bytes, sizeof bytes)) return -1;
  if (z) { /* interleave x, y, z */
    const double *p[3] = {x, y, z};
    if (write_values_n(o, p, 3, n, single, 0)) return -1;
  } else {
    for (i = 0; i < n; ++i) {
      const double q[3] = {x[i], y[i], 0.0};
      if (write_values(o, q, 3, single, 0)) return -1;
    }
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
    if (write_values(o, p, 3, single, swap)) return -1;
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
    if (write_values(o, arrays[a].data, n * arrays[a].ncomp, single, swap)) return -1;
    fprintf(f, "\n");
  }
  return ferror(f) ? -1 : 0;
}
