/* SPDX-License-Identifier: BSD-3-Clause */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "records.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decomp.h"

int heat_records_init(heat_records *r, const char path[6][256], const cli_list *probes, heat_problem *p, char *err,
                      size_t n) {
  int f, k, d;
  memset(r, 0, sizeof *r);
  for (f = 0; f < 2 * p->dim; ++f) {
    if (!path[f][0]) continue;
    if (hd_table_load(&r->table[f], path[f], err, n)) return -1;
    p->bc_value[f] = hd_table_at(&r->table[f], 0.0);
    ++r->tables;
  }
  if (probes->count > HEAT_MAX_PROBES)
    return snprintf(err, n, "%s: probe: more than %d probes", probes->where[0], HEAT_MAX_PROBES), -1;
  for (k = 0; k < probes->count; ++k) {
    char *s = probes->value[k], *end;
    for (d = 0; d < p->dim; ++d) {
      r->at[k][d] = strtod(s, &end);
      if (end == s || !isfinite(r->at[k][d]) || (d + 1 < p->dim ? *end != ',' : *end != '\0'))
        return snprintf(err, n, "%s: probe: expected %s", probes->where[k], p->dim == 3 ? "X,Y,Z" : "X,Y"), -1;
      if (r->at[k][d] < 0 || r->at[k][d] > p->length[d])
        return snprintf(err, n, "%s: probe: %g lies outside [0, %g] along axis %d", probes->where[k], r->at[k][d],
                        p->length[d], d), -1;
      r->probe[k][d] = (long)floor(r->at[k][d] / p->length[d] * (double)p->n[d]);
      if (r->probe[k][d] == p->n[d]) --r->probe[k][d]; /* the far face: its cell */
      s = end + 1;
    }
  }
  r->nprobe = probes->count;
  return 0;
}

void heat_records_free(heat_records *r) {
  int f;
  for (f = 0; f < 6; ++f) hd_table_free(&r->table[f]);
}

void heat_records_faces(const heat_records *r, const heat_problem *p, double t, double value[6]) {
  int f;
  for (f = 0; f < 6; ++f) value[f] = r->table[f].n ? hd_table_at(&r->table[f], t) : p->bc_value[f];
}

double heat_records_face_max(const heat_records *r, const heat_problem *p, int f) {
  return r->table[f].n ? hd_table_max_abs(&r->table[f]) : fabs(p->bc_value[f]);
}

hd_status heat_records_probe(const heat_records *r, hd_ctx *ctx, const heat_ops *ops, void *state,
                             const long off[3], const long ln[3], double *out) {
  int k, d, bad = 0;
  for (k = 0; k < r->nprobe; ++k) {
    long ijk[3] = {0, 0, 0};
    int mine = 1;
    for (d = 0; d < 3; ++d) {
      ijk[d] = r->probe[k][d] - off[d];
      mine = mine && ijk[d] >= 0 && ijk[d] < ln[d];
    }
    out[k] = -HUGE_VAL;
    if (mine && !bad && ops->probe(ctx, state, ijk, &out[k]) != HD_OK) bad = 1;
  }
  if (hd_par_any(bad)) return bad ? ctx->status : hd_fail(ctx, HD_ERR_IO, "a probe failed on another rank");
  if (r->nprobe && hd_par_max_doubles(out, r->nprobe)) return hd_fail(ctx, HD_ERR_IO, "gathering the probes failed");
  return HD_OK;
}

void heat_records_probe_header(const heat_records *r, int dim, FILE *f) {
  int k;
  fprintf(f, "step,time");
  for (k = 0; k < r->nprobe; ++k) {
    if (dim == 3) fprintf(f, ",T(%g;%g;%g)", r->at[k][0], r->at[k][1], r->at[k][2]);
    else fprintf(f, ",T(%g;%g)", r->at[k][0], r->at[k][1]);
  }
  fprintf(f, "\n");
}
