/* SPDX-License-Identifier: BSD-3-Clause */
/* A module's description for the one run loop (run.c): what only the module
 * knows — its options, problem, state, cadences, monitors, final outputs and
 * summary keys — as hooks the loop calls, as PETSc's TSSolve drives a
 * TSOps table and AMReX's Amr an AmrLevel.  What every run shares is the
 * loop's: MPI, the common options, the backend, the memory check, outputs
 * and their series, checkpoints, restarts, signals, progress, --bench, the
 * error path and the summary's head and tail.  doc/design.md, "Adding a
 * module". */
#ifndef HD_DRV_MODULE_H
#define HD_DRV_MODULE_H

#include <stdio.h>

#include "driver.h"
#include "output.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a hook returns: HD_DRV_OK to go on; HD_DRV_BAD_INPUT with the
 * message in r->err (hd_drv_bad: exit 2); HD_DRV_FAILED after hd_fail
 * (exit 1, every rank ended); or a positive exit status whose message the
 * hook printed (a blow-up).  Every rank returns the same. */
#define HD_DRV_OK 0
#define HD_DRV_BAD_INPUT (-3)

/* An output PREFIX + suffix, opened by rank 0 before the run (a sink that
 * keeps nothing on the other ranks) and committed after it. */
enum {
  HD_DRV_SERIES = 1,   /* a time series: checkpoints publish it, restarts continue it */
  HD_DRV_PICTURE = 2,  /* named by the summary's picture: line */
  HD_DRV_UNLISTED = 4, /* named by the module's own keys, not the outputs: line */
  HD_DRV_PVD = 8       /* a .pvd collection: its closing tags written at commit */
};
#define HD_DRV_MAX_SLOTS 8

typedef struct hd_drv_run hd_drv_run;

typedef struct hd_drv_module {
  const char *prog;    /* "hd-ns" */
  const char *about;   /* --help's line under the usage */
  const char *output;  /* the default --output */
  size_t size;         /* the module's run, zeroed by the loop; its first member is an hd_drv_common */
  int cuda_ranks;      /* CUDA runs on several ranks */
  int own_bench;       /* its --bench is a row of its own (hd-fdtd's size), not the common flag */
  const char *memory;  /* what the memory check names: "grid", "the model" */
  /* the module's rows of the option table (after the common, --bench and
   * checkpoint rows: HD_DRV_ROWS) and its defaults; returns the rows, or -1 */
  int (*options)(void *self, cli_opt *opts, int max);
  /* after parsing: checks, the problem, its decomposition, r->total,
   * r->dt, the output slots */
  int (*setup)(hd_drv_run *r);
  /* the backend is open: kernels, and the memory the run needs
   * (r->dev_bytes, r->host_bytes), r->precision */
  int (*open)(hd_drv_run *r);
  /* --bench: time the kernels and print the keys (r->bench_rate, its
   * unit and ceiling for the loop's); NULL: no --bench */
  int (*bench)(hd_drv_run *r);
  /* optional: inputs read once the memory is known to fit (--bench too) */
  int (*prepare)(hd_drv_run *r);
  /* the start-up line after "backend (device), precision, " */
  void (*banner)(hd_drv_run *r, char *text, size_t n);
  /* the state (r->state, r->state_count, r->state_io) and what a
   * checkpoint must match (*r->ck, r->ckp's rows) */
  int (*create)(hd_drv_run *r);
  /* after a restart (r->step0, r->cont): the first rows of the series, and
   * r->cadence */
  int (*start)(hd_drv_run *r);
  /* optional: at every stop before stepping on, the last one too (frames) */
  int (*before)(hd_drv_run *r);
  /* `steps` steps from r->step, to the next stop of r->cadence */
  int (*advance)(hd_drv_run *r, long steps);
  /* after them (r->step counts them): monitors, rows, blow-ups; r->stop
   * ends the run early (converged) */
  int (*after)(hd_drv_run *r, long steps);
  /* optional: a field frame at r->step (--frames), written into o, opened
   * by the loop as `prefix` (PREFIX_NNNN) + r->frame_suffix on rank 0 (a
   * sink elsewhere; pieces are named from prefix), committed by it and
   * listed with its time in PREFIX.pvd.  Collective; frames are taken at
   * the start, every r->frame_every steps and at the end */
  int (*frame)(hd_drv_run *r, hd_out *o, const char *prefix);
  long frames;         /* --frames's default (with frame) */
  /* final fields and pictures, before the outputs are committed */
  int (*finish)(hd_drv_run *r);
  /* the module's summary keys (on every rank; rank 0 prints) */
  int (*summary)(hd_drv_run *r, FILE *out);
  /* free everything the module holds (after any hook's failure too) */
  void (*destroy)(hd_drv_run *r);
} hd_drv_module;

struct hd_drv_run {
  const hd_drv_module *mod;
  void *self;          /* the module's run */
  hd_drv_common *com;  /* its first member */
  cli_opt *opts;       /* the parsed table */
  hd_ctx ctx;
  const hd_core_ops *core;   /* the backend, once open */
  char why[512];       /* why auto took this backend ("" when none) */
  char err[1024];      /* HD_DRV_BAD_INPUT's message */
  int root, ranks;     /* rank 0; the ranks */
  /* set by the module */
  const char *precision;     /* "single", "double" (open) */
  long total;                /* the run's steps (setup) */
  double dt;                 /* time a step (setup): checkpoints record it */
  double dev_bytes, host_bytes;
  int nslot;
  struct {
    const char *suffix;
    int want, flags;
  } slot[HD_DRV_MAX_SLOTS];
  int replicated;            /* every rank holds the whole state: rank 0 checkpoints it alone */
  void *state;               /* what checkpoints save (create) */
  int (*state_count)(void *state);
  hd_state_io_fn state_io;
  long cadence[3];           /* the run stops every cadence[k] steps (0: none), and at checkpoints */
  double work;               /* work a step, for progress, in work_unit per second */
  const char *work_unit;
  const char *no_picture;    /* why there is none: the picture: line */
  char outputs_note[128];    /* after the outputs: line's files */
  double bench_rate, bench_ceiling; /* --bench: the rate and its measured ceiling (0: none) */
  long frames;               /* --frames */
  const char *frame_suffix;  /* a frame's file after PREFIX_NNNN: ".vtr" (setup) */
  long frame_every;          /* steps between frames (start; 0: none) */
  const char *bench_unit;
  /* kept by the loop */
  hd_out out[HD_DRV_MAX_SLOTS];
  hd_drv_ckpt ckp;
  struct hd_ckpt *ck;
  char ckpath[4096 + 32];    /* the newest checkpoint written */
  char ckpt_note[4096 + 64];
  long step, step0;
  int cont;                  /* a restart continues the series */
  int stop;
  int lock;                  /* the prefix's lock (rank 0), or -1 */
  long frame_next;           /* the next frame's number */
  int frame_pvd;             /* its slot */
  char frames_help[160];
  double wall, steps_wall;   /* the march; the steps alone */
};

/* main() of a module's driver. */
int hd_drv_main(const hd_drv_module *mod, int argc, char **argv);

/* A module's option rows into the loop's table (its options hook);
 * returns their count, or -1 when they do not fit. */
int hd_drv_option_rows(cli_opt *opts, int max, const cli_opt *rows, int count);
#define HD_DRV_ROWS(opts, max, rows) hd_drv_option_rows(opts, max, rows, (int)(sizeof rows / sizeof rows[0]))

/* Add an output slot (setup; at most HD_DRV_MAX_SLOTS); returns its index
 * into r->out. */
int hd_drv_slot(hd_drv_run *r, const char *suffix, int want, int flags);

/* The end of a module's create on every rank (bad: it failed on this one):
 * the ranks agree, and the state becomes what checkpoints save.
 * HD_DRV_OK, or HD_DRV_FAILED with a message on every rank. */
int hd_drv_take_state(hd_drv_run *r, int bad, void *state, int (*count)(void *state), hd_state_io_fn io);

/* A bad input: the message into r->err; returns HD_DRV_BAD_INPUT. */
int hd_drv_bad(hd_drv_run *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* "; last checkpoint PATH" once one is written, else "" (for a module's
 * own failure messages). */
const char *hd_drv_ckpt_note(hd_drv_run *r);

/* A .pvd collection's opening tags, and a frame of it at time t (printed
 * with `digits` significant digits), its file by its name alone. */
void hd_drv_pvd_begin(FILE *f);
void hd_drv_pvd_frame(FILE *f, double t, int digits, const char *path);

#ifdef __cplusplus
}
#endif

#endif
