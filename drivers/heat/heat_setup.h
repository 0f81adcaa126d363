/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-heat's options and how they become its problem (heat_setup.c). */
#ifndef HD_DRV_HEAT_SETUP_H
#define HD_DRV_HEAT_SETUP_H

#include "driver.h"
#include "heat_ops.h"

#define HEAT_MAX_TIME_BLOCK 64
#define HEAT_INIT_MATERIALS 5 /* --init=materials: after hd/heat.h's kinds */
#define HEAT_AUTO_DOC \
  "where the two fields pass 16 MB on the CPU backends or 128 MB on CUDA: 8 (CUDA: 2-D 6 in single and 8 in double, " \
  "3-D 4 in single and 3 in double), else 1"

typedef struct heat_cli {
  hd_drv_common com; /* first: the loop's */
  int init, vti, png, pieces;
  long dim, n[3], steps, csv_every;
  int nn, nlen, nbox, ncenter, nmode, nblock;
  long mode[3], block[3];
  double length[3], alpha, k, dt, source, t0, thot, box[6], center[3], radius, max_growth;
  char bc_all[300], bc_face[6][300], table[6][256];
  cli_list materials, regions, probes;
  int balance;
  char init_field[4200], map_field[4200], source_field[4200];
  char time_block[16];
  /* implicit steps (doc/heat.md) and TeaLeaf's decks (tea.c) */
  int scheme, solver, face_mean, tea_summary;
  long max_iters, presteps, inner;
  double tol, tol_abs, tea_expect;
  double tea_densities[HD_HEAT_MAX_MATERIALS];
  int ntea_densities;
} heat_cli;

struct hd_decomp;

/* The problem of the options (time_block -1: auto); 0, or -1 + message. */
int heat_build_problem(heat_cli *c, heat_problem *p, char *err, size_t n);

/* --time-block=auto's steps a sweep on this backend. */
int heat_auto_time_block(int backend, const heat_problem *p, size_t real_size);

/* The steps a sweep on ranks (hd_decomp_halo_deep), 1: single steps. */
int heat_halo_depth(const struct hd_decomp *dc, const heat_problem *p, int tuned, int source_field, int tables);

/* What a checkpoint of this run must match on restart. */
void heat_ckpt_template(const heat_problem *p, const char table[6][256], size_t real_size, hd_ckpt *ck);

/* This block's fields from files (initial, source, material map) into pl,
 * the largest |Q| / (rho c) of the source over every rank in q_max;
 * collective.  0, or -1 + message. */
int heat_read_fields(const heat_cli *c, heat_problem *pl, const long gn[3], double **init, double **source,
                     double **map, double *q_max, char *err, size_t n);

#endif
