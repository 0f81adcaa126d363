/* SPDX-License-Identifier: BSD-3-Clause */
/* What every driver's main shares: the common options, parsing with --help
 * and --version, opening the backend, the memory check, and the mapping of
 * failures to exit statuses (0 success, 1 run-time failure, 2 bad input). */
#ifndef HD_DRV_DRIVER_H
#define HD_DRV_DRIVER_H

#include "backend.h"
#include "checkpoint.h"
#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Options every driver has; a driver embeds this struct in its own. */
typedef struct hd_drv_common {
  int backend;   /* 0 auto, else 1 + HD_B_* */
  int precision; /* 0 double, 1 single */
  int variant;   /* HD_VARIANT_* */
  int bench;
  long device, threads;
  double progress;
  char input[4000], output[4000];
  char ckpt_every[64], restart[4000]; /* HD_DRV_CHECKPOINT_OPTIONS */
  long ckpt_keep;
  int fresh_series;
} hd_drv_common;

/* Table rows for the common options (a macro because the table is an array
 * of the driver's own); `c` is the hd_drv_common. */
#define HD_DRV_COMMON_OPTIONS(c)                                                                   \
  {"input", CLI_STRING, (c).input, "FILE", "read key = value lines from FILE", 1, 0,               \
   sizeof (c).input, NULL, 1, 0, 0},                                                               \
  {"backend", CLI_CHOICE, &(c).backend, "auto|serial|openmp|cuda",                                 \
   "backend (default: the fastest available)", 1, 0, 0, NULL, 0, 0, 0},                           \
  {"device", CLI_INT, &(c).device, "N", "CUDA device ordinal (default 0)", 0, 1024, 0, NULL, 0, 0, 0}, \
  {"threads", CLI_INT, &(c).threads, "N", "OpenMP threads (default: OMP_NUM_THREADS or all cores)", \
   1, 4096, 0, NULL, 0, 0, 0},                                                                     \
  {"precision", CLI_CHOICE, &(c).precision, "double|single",                                       \
   "floating-point precision (default double)", 1, 0, 0, NULL, 0, 0, 0},                           \
  {"variant", CLI_CHOICE, &(c).variant, "auto|generic|tuned",                                      \
   "kernels: tuned where they exist, or the generic loops (default auto)", 1, 0, 0, NULL, 0, 0, 0}, \
  {"output", CLI_STRING, (c).output, "PREFIX", "prefix of the output files (default: the program's name after hd-)", 1, 0, \
   sizeof (c).output, NULL, 0, 0, 0},                                                              \
  {"progress", CLI_REAL, &(c).progress, "SECONDS",                                                 \
   "progress on stderr every SECONDS (default 5, 0 = off)", 0, 1e9, 0, NULL, 0, 0, 0}

/* The usual --bench flag (hd-fdtd's takes a size instead). */
#define HD_DRV_BENCH_FLAG(c)                                                                       \
  {"bench", CLI_FLAG, &(c).bench, NULL, "time the kernels, print rates, write nothing", 1, 0, 0,   \
   NULL, 1, 0, 0}

/* Checkpoint and restart options of the time-stepping drivers. */
#define HD_DRV_CHECKPOINT_OPTIONS(c)                                                               \
  {"checkpoint-every", CLI_STRING, (c).ckpt_every, "N|Ts",                                         \
   "write a checkpoint every N steps, or every T seconds (e.g. 600s) (default: none)", 1, 0, sizeof (c).ckpt_every, \
   NULL, 0, 0, 0},                                                                                 \
  {"checkpoint-keep", CLI_INT, &(c).ckpt_keep, "K", "checkpoints kept (default 3)", 1, HD_DRV_KEEP_MAX, 0, NULL, \
   0, 0, 0},                                                                                       \
  {"restart", CLI_STRING, (c).restart, "FILE",                                                     \
   "continue from a checkpoint, and its time series from the files beside it", 1, 0, sizeof (c).restart, \
   NULL, 1, 0, 0},                                                                                 \
  {"fresh-series", CLI_FLAG, &(c).fresh_series, NULL,                                              \
   "with --restart: start new time series at the checkpoint's step instead", 1, 0, 0, NULL, 1, 0, 0}

#define HD_DRV_END_OPTIONS {NULL, CLI_INT, NULL, NULL, NULL, 0, 0, 0, NULL, 0, 0, 0}

void hd_drv_common_defaults(hd_drv_common *c, const char *output);

/* Parse; returns -1 to go on, or the exit status (0 after --help or
 * --version, 2 after an error, printed as "prog: error: ..."). */
int hd_drv_parse(cli_opt *opts, int argc, char **argv, const char *prog, const char *summary);

/* "prog: error: msg" on stderr; returns 2 (bad input). */
int hd_drv_usage_error(const char *prog, const char *msg);
/* "PROG: error: [rank R: ]MSG[NOTE]" on stderr, one line: control
 * characters in msg (a value the user gave) shown escaped.  rank < 0: none. */
void hd_drv_say(const char *prog, int rank, const char *msg, const char *note);

/* Open the backend the options ask for; returns 0, or the exit status after
 * printing the reason (2 when a named backend is missing, 1 otherwise). */
int hd_drv_open(const char *prog, const hd_drv_common *c, hd_ctx *ctx, const hd_core_ops **core,
                char *why, size_t n);

/* main() of a driver that runs on MPI ranks: MPI started around run()
 * (a single rank without MPI or without mpiexec). */
int hd_drv_main_ranks(const char *prog, int (*run)(int argc, char **argv), int argc, char **argv);

/* Options of a run on more than one MPI rank (a no-op on one): no --bench;
 * auto picks CUDA where the driver can run it on ranks (cuda_ok) and every
 * rank of every node has a GPU of its own, else OpenMP (or serial).  0, or
 * the exit status after the message. */
int hd_drv_ranks_options(const char *prog, hd_drv_common *c, int cuda_ok);

/* Open the outputs PREFIX + suffix[k] for which want[k] (NULL: all) on
 * rank 0 only, every rank agreeing: 0, or -1 with rank 0's reason in err
 * (on other ranks a note that rank 0 failed) and nothing left open. */
struct hd_out;
int hd_drv_open_outputs(struct hd_out *const *o, const char *const *suffix, const int *want, int count,
                        const char *prefix, char *err, size_t n);

/* --bench timing: `rounds` runs of `steps` steps (run(arg, steps), then a
 * sync), each followed by a copy of `copy_bytes` (core->copy_bandwidth);
 * the best of each.  Interleaved because a shared host's bandwidth drifts
 * by 2x from one second to the next (42-100 GB/s on the CI-class VM): a
 * kernel and its ceiling must be timed on the same machine.  The best
 * round's seconds a step to *seconds, the copy's bytes a second to *copy
 * (0 if it failed); returns the first failure of run. */
hd_status hd_drv_bench_rounds(hd_ctx *ctx, const hd_core_ops *core, hd_status (*run)(void *arg, long steps),
                              void *arg, long steps, int rounds, size_t copy_bytes, double *seconds, double *copy);

/* Check device and host memory needs before allocating; returns 0, or 2
 * after printing "grid too large for memory" style reasons naming `what`. */
int hd_drv_check_memory(const char *prog, hd_ctx *ctx, const hd_core_ops *core, double dev_bytes,
                        double host_bytes, const char *what);

/* ---- output by pieces --------------------------------------------------------- */

struct hd_decomp;
struct hd_vti_array;
struct hd_vtk_meta;

/* This rank's block of an image of n cells (spacing dx) or, given x (the
 * whole grid's node coordinates; n[a] = 0 a flat axis), of a rectilinear
 * grid, its cells in `arrays`, as PREFIX_pR.vti (.vtr) with meta, and on
 * rank 0 the index `index` (opened as PREFIX.pvti, .pvtr) naming every
 * rank's block (an image's first node at origin, NULL: 0); no rank holds
 * more than its block.  Collective; 0, or -1 + message (all ranks agree). */
int hd_drv_write_pieces(const struct hd_decomp *d, const char *prefix, struct hd_out *index, const int64_t n[3],
                        const double origin[3], const double dx[3], const double *const x[3],
                        const struct hd_vti_array *arrays, int narrays, const struct hd_vtk_meta *meta, char *err,
                        size_t en);

/* ---- checkpoints (drivers/common/checkpoint.h) ---------------------------- */

struct hd_ckpt;

/* A block of a grid split along y and z (x is never split), for
 * checkpoints that load on any rank count: along each axis a (1: y, the
 * rows; 2: z, the planes) the block owns [lo, hi) of `total`, and every
 * array of its state holds lo - ghost .. hi + ghost - 1 of them, x rows
 * all of one length (a 2-D grid: z is 0 .. 1, no ghosts). */
typedef struct hd_drv_rows {
  long lo[3], hi[3], total[3], ghost[3];
  long nodes; /* 1: the arrays are of nodes, one row more than cells: lo - ghost .. hi + ghost */
} hd_drv_rows;

/* How a restart on another rank count takes a checkpoint array (the
 * `kind` callback of hd_drv_ckpt; NULL: rows, or faces): */
enum {
  HD_DRV_ROWS, /* rows of the grid (or a face: the `face` callback) */
  HD_DRV_SAME, /* the same on every block: any old block's (a step counter) */
  HD_DRV_KEYS, /* hd_ckpt_key of a list's entries: this run's own are kept */
  HD_DRV_LIST  /* a list: each entry from the old block that owns its key's row (or any holding it) */
};

#define HD_DRV_KEEP_MAX 1000 /* --checkpoint-keep's largest value */

/* When checkpoints are due: every `steps` steps or `seconds` seconds; and
 * the time series they carry (drivers/common/series.h). */
typedef struct hd_drv_ckpt {
  long steps;
  double seconds, last;
  int keep, nseries;
  /* the checkpoints this run wrote and may prune (newest last), and the
   * step of the one it continues (-1: none) */
  long own[HD_DRV_KEEP_MAX + 1], upto;
  int nown;
  struct hd_out *series[HD_CKPT_MAX_SERIES];
  const char *suffix[HD_CKPT_MAX_SERIES];
  const hd_drv_common *com;
  /* set by a driver whose state is only such arrays (total[1] 0: a
   * restart needs the rank count of the checkpoint) */
  hd_drv_rows rows;
  long single_ghost[3]; /* the ghosts of a one-rank run's arrays */
  /* arrays that are not rows but a face of the block (doubles over the two
   * other axes, the first fastest; x whole): the face 0..5 (2 axis + side)
   * by name, or -1; NULL: rows only */
  int (*face)(const char *name);
  /* each array's HD_DRV_ kind; for a list, the name of its keys' array
   * and an entry's bytes in each slice of it ([slices][entries][elem];
   * 0: one slice, -1: the checkpoint's real size) */
  int (*kind)(const char *name, char keys[16], long *elem);
} hd_drv_ckpt;

/* Parse --checkpoint-every ("" = never); 0 or -1 with a message. */
int hd_drv_ckpt_init(hd_drv_ckpt *k, const hd_drv_common *c, char *err, size_t n);

/* The output PREFIX + suffix is a time series: every checkpoint publishes
 * it as far as its step and records it; a restart continues it. */
void hd_drv_ckpt_series(hd_drv_ckpt *k, struct hd_out *o, const char *suffix);

/* After the restart's checkpoint c is loaded: start every series with the
 * earlier run's bytes up to the checkpoint, taken from the files beside
 * the checkpoint (its path less ".ckpt.STEP").  Returns 1 when the series
 * continue, 0 when they start afresh (no --restart, or --fresh-series),
 * -1 with a message (a file missing or not the one the checkpoint
 * recorded); every rank agrees. */
int hd_drv_series_resume(hd_drv_ckpt *k, const struct hd_ckpt *c, char *err, size_t n);

/* Steps to run before the next check point (steps-based), capped at `max`. */
long hd_drv_ckpt_chunk(const hd_drv_ckpt *k, long step, long max);

/* Whether one is due after `step` (also resets the timer when it is). */
int hd_drv_ckpt_due(hd_drv_ckpt *k, long step);

/* Save the state's arrays with c's header as PREFIX.ckpt.STEP (c->step,
 * time, dt set by the caller); the path goes to path.  0 or -1 + message. */
int hd_drv_ckpt_save(hd_ctx *ctx, struct hd_ckpt *c, void *state, int narrays, hd_state_io_fn io,
                     const char *prefix, char *path, size_t pn, char *err, size_t n);

/* Load `path` into the state (c holds what it must match); 0 or -1. */
int hd_drv_ckpt_load(hd_ctx *ctx, struct hd_ckpt *c, void *state, int narrays, hd_state_io_fn io,
                     const char *path, char *err, size_t n);

/* The same for a grid shared by MPI ranks: each rank's block goes to
 * PREFIX.rRofP.ckpt.STEP, then rank 0 writes the manifest PREFIX.ckpt.STEP
 * naming them, last, so a manifest exists only when every block is
 * complete.  A restart names the manifest;
 * it must come from as many ranks.  On one rank these are the functions
 * above.  Collective; the result is agreed by all ranks. */
int hd_drv_ckpt_save_ranks(hd_ctx *ctx, struct hd_ckpt *c, void *state, int narrays, hd_state_io_fn io,
                           const char *prefix, char *path, size_t pn, char *err, size_t n);
int hd_drv_ckpt_load_ranks(hd_ctx *ctx, struct hd_ckpt *c, void *state, int narrays, hd_state_io_fn io,
                           const char *path, char *err, size_t n);

/* k->rows from a decomposition (decomp.h) whose arrays hold `ghost` cells
 * beyond the block along each split axis, and `single_ghost` on one rank. */
void hd_drv_ckpt_blocks(hd_drv_ckpt *k, const struct hd_decomp *d, long ghost, long single_ghost);

/* A restart from `path` (a checkpoint or a manifest): with k->rows set, a
 * set written by any number of ranks (each rank reads the x rows of the
 * old blocks its block covers: owned rows from their owners, the grid's
 * outer ghosts from the edge blocks; lists by their keys, the same way),
 * else hd_drv_ckpt_load_ranks.  Collective; 0 or -1 + message, agreed by
 * all ranks. */
int hd_drv_ckpt_restore(hd_ctx *ctx, const hd_drv_ckpt *k, struct hd_ckpt *c, void *state, int narrays,
                        hd_state_io_fn io, const char *path, char *err, size_t n);

/* The end of a stretch of steps (after `step`): a checkpoint when one is
 * due (and `more` steps follow) or a signal came, all ranks agreeing; then
 * all but the newest `keep` of those this run may delete (hd_ckpt_prune).
 * `replicated`: every rank holds the whole state and rank 0 writes it
 * alone; otherwise hd_drv_ckpt_save_ranks.  Returns HD_DRV_GO_ON,
 * HD_DRV_FAILED after hd_fail, or after a signal the exit status (the
 * message printed). */
#define HD_DRV_GO_ON (-1)
#define HD_DRV_FAILED (-2)
int hd_drv_ckpt_point(const char *prog, hd_ctx *ctx, hd_drv_ckpt *k, struct hd_ckpt *c, long step, double dt,
                      int more, int replicated, void *state, int narrays, hd_state_io_fn io, const char *prefix,
                      char *path, size_t pn);

/* After a signal: "prog: SIGTERM: checkpoint PATH written; continue with
 * --restart=PATH" and the exit status (0, or 130 for SIGINT). */
int hd_drv_signal_exit(const char *prog, int sig, const char *path);

#ifdef __cplusplus
}
#endif

#endif
