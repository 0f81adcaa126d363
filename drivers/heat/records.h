/* SPDX-License-Identifier: BSD-3-Clause */
/* What hd-heat reads and records over time besides the field: face values
 * from time tables (--bc-F=KIND:@FILE), the temperature at probe points
 * (PREFIX_probes.csv) and the heat balance (PREFIX_balance.csv). */
#ifndef HD_DRV_HEAT_RECORDS_H
#define HD_DRV_HEAT_RECORDS_H

#include <stddef.h>
#include <stdio.h>

#include "cli.h"
#include "heat_ops.h"
#include "table.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HEAT_MAX_PROBES 64

typedef struct heat_records {
  hd_table table[6]; /* a face's value over time (n = 0: constant) */
  int tables;        /* faces with a table */
  int nprobe;
  long probe[HEAT_MAX_PROBES][3]; /* the cells holding the points */
  double at[HEAT_MAX_PROBES][3];  /* the points */
} heat_records;

/* Tables from path[f] ("" for none; p->bc_value[f] becomes the value at
 * time 0) and probes from "X,Y[,Z]" values.  0, or -1 with a message. */
int heat_records_init(heat_records *r, const char path[6][256], const cli_list *probes, heat_problem *p, char *err,
                      size_t n);
void heat_records_free(heat_records *r);

/* Every face's value at time t. */
void heat_records_faces(const heat_records *r, const heat_problem *p, double t, double value[6]);
/* The largest |value| face f takes. */
double heat_records_face_max(const heat_records *r, const heat_problem *p, int f);

/* The probes' temperatures on every rank (each from the rank holding it:
 * the block of ln cells from global cell off). */
hd_status heat_records_probe(const heat_records *r, hd_ctx *ctx, const heat_ops *ops, void *state,
                             const long off[3], const long ln[3], double *out);
void heat_records_probe_header(const heat_records *r, int dim, FILE *f);

#ifdef __cplusplus
}
#endif

#endif
