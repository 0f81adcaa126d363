/* SPDX-License-Identifier: BSD-3-Clause */
/* Piecewise-linear tables of a value over time, read from text files:
 * one "TIME VALUE" pair a line (spaces or a comma between), '#' starts a
 * comment, times strictly increasing.  Before the first time the first
 * value holds, after the last the last. */
#ifndef HD_DRV_TABLE_H
#define HD_DRV_TABLE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hd_table {
  int n;
  double *t, *v;
} hd_table;

/* 0, or -1 with "FILE:LINE: ..." (or "FILE: ...") in err. */
int hd_table_load(hd_table *tab, const char *path, char *err, size_t n);
double hd_table_at(const hd_table *tab, double t);
double hd_table_max_abs(const hd_table *tab);
void hd_table_free(hd_table *tab);

#ifdef __cplusplus
}
#endif

#endif
