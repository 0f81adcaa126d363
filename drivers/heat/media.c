/* SPDX-License-Identifier: BSD-3-Clause */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "media.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Up to `max` numbers of s after the first `skip` words; the count, or -1
 * for a word that is not a finite number. */
static int numbers(const char *s, int skip, double *v, int max, char *word, size_t wn) {
  char buf[512], *save = NULL, *t;
  int count = 0, k = 0;
  snprintf(buf, sizeof buf, "%s", s);
  for (t = strtok_r(buf, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save), ++k) {
    char *end;
    if (k < skip) {
      if (word && k == skip - 1) snprintf(word, wn, "%s", t);
      continue;
    }
    if (count == max) return max + 1;
    v[count] = strtod(t, &end);
    if (end == t || *end || !isfinite(v[count])) return -1;
    ++count;
  }
  return count;
}

int heat_box_meets(const heat_problem *p, const double *lohi) {
  int d;
  for (d = 0; d < p->dim; ++d)
    if (!(lohi[2 * d] < p->length[d] && lohi[2 * d + 1] > 0)) return 0;
  return 1;
}

int heat_sphere_meets(const heat_problem *p, const double *centre, double radius) {
  double d2 = 0;
  int d;
  for (d = 0; d < p->dim; ++d) { /* from the centre to the nearest point of the domain */
    const double c = centre[d], q = c < 0 ? 0 : c > p->length[d] ? p->length[d] : c;
    d2 += (q - c) * (q - c);
  }
  return d2 < radius * radius;
}

int heat_media_parse(const cli_list *materials, const cli_list *regions, heat_problem *p, char *err, size_t n) {
  int k, d;
  p->nmat = materials->count ? materials->count + 1 : 0;
  p->nregion = 0;
  if (materials->count + 1 > HD_HEAT_MAX_MATERIALS)
    return snprintf(err, n, "%s: material: more than %d materials", materials->where[0], HD_HEAT_MAX_MATERIALS - 1), -1;
  if (!materials->count && regions->count)
    return snprintf(err, n, "%s: region: no --material defined", regions->where[0]), -1;
  if (p->nmat) {
    p->mat_k[0] = p->k > 0 ? p->k : 1.0, p->mat_rhoc[0] = p->mat_k[0] / p->alpha, p->mat_q[0] = 0.0;
  }
  p->mat_t0[0] = p->base;
  for (k = 0; k < materials->count; ++k) {
    double v[5] = {0, 0, 0, 0, 0};
    const int c = numbers(materials->value[k], 0, v, 5, NULL, 0);
    if (c < 3 || c > 5)
      return snprintf(err, n, "%s: material: expected 'K RHO CP [Q [T0]]' (conductivity, density, heat capacity, "
                      "volumetric source, initial temperature with --init=materials)", materials->where[k]), -1;
    p->mat_t0[k + 1] = c == 5 ? v[4] : p->base;
    if (!(v[0] > 0 && v[1] > 0 && v[2] > 0))
      return snprintf(err, n, "%s: material: K, RHO and CP must be positive", materials->where[k]), -1;
    p->mat_k[k + 1] = v[0], p->mat_rhoc[k + 1] = v[1] * v[2], p->mat_q[k + 1] = v[3];
  }
  if (regions->count > HEAT_MAX_REGIONS)
    return snprintf(err, n, "%s: region: more than %d regions", regions->where[0], HEAT_MAX_REGIONS), -1;
  for (k = 0; k < regions->count; ++k) {
    heat_region *r = &p->region[k];
    const char *where = regions->where[k];
    char shape[32] = "";
    char *end;
    const double id = strtod(regions->value[k], &end);
    int c;
    if (end == regions->value[k] || (*end != ',' && *end != ' ' && *end != '\t'))
      return snprintf(err, n, "%s: region: expected 'M box|sphere ...'", where), -1;
    if (id != floor(id) || id < 0 || id >= p->nmat)
      return snprintf(err, n, "%s: region: material %g is not 0 .. %d", where, id, p->nmat - 1), -1;
    r->id = (int)id;
    c = numbers(regions->value[k], 2, r->v, 7, shape, sizeof shape);
    if (!strcmp(shape, "box") && c == 2 * p->dim) {
      r->shape = 0;
      for (d = 0; d < p->dim; ++d)
        if (!(r->v[2 * d] < r->v[2 * d + 1]))
          return snprintf(err, n, "%s: region: box with lo >= hi along axis %d", where, d), -1;
    } else if (!strcmp(shape, "sphere") && c == p->dim + 1 && r->v[p->dim] > 0) {
      r->shape = 1;
    } else {
      return snprintf(err, n, "%s: region: expected 'M box X0 X1 Y0 Y1%s' or 'M sphere X Y%s R' (R > 0)", where,
                      p->dim == 3 ? " Z0 Z1" : "", p->dim == 3 ? " Z" : ""), -1;
    }
    if (!(r->shape ? heat_sphere_meets(p, r->v, r->v[p->dim]) : heat_box_meets(p, r->v)))
      return snprintf(err, n, "%s: region: wholly outside the domain", where), -1;
    ++p->nregion;
  }
  return 0;
}

static long clampl(long v, long lo, long hi) { return v < lo ? lo : v > hi ? hi : v; }

void heat_media_paint(const heat_problem *p, const long n[3], const long origin[3], const long cells[3],
                      long sy, long sz, unsigned char *map) {
  const int three = p->dim == 3;
  long i, j, k;
  for (k = 0; k < (three ? n[2] + 2 : 1); ++k)
    for (j = 0; j < n[1] + 2; ++j)
      for (i = 0; i < n[0] + 2; ++i) {
        const long ijk[3] = {i, j, k};
        double x[3];
        int d, r, m = 0;
        for (d = 0; d < 3; ++d) {
          const long gc = d < p->dim ? clampl(origin[d] + ijk[d] - 1, 0, cells[d] - 1) : 0;
          x[d] = (gc + 0.5) * p->length[d] / (double)cells[d];
        }
        if (p->map_values) m = (int)p->map_values[(k * (n[1] + 2) + j) * (n[0] + 2) + i];
        for (r = 0; r < p->nregion; ++r) {
          const heat_region *g = &p->region[r];
          int in = 1;
          if (g->shape == 0) {
            for (d = 0; d < p->dim; ++d) in = in && x[d] >= g->v[2 * d] && x[d] <= g->v[2 * d + 1];
          } else {
            double s = 0;
            for (d = 0; d < p->dim; ++d) s += (x[d] - g->v[d]) * (x[d] - g->v[d]);
            in = s <= g->v[p->dim] * g->v[p->dim];
          }
          if (in) m = g->id;
        }
        map[i + j * sy + k * sz] = (unsigned char)m;
      }
}
