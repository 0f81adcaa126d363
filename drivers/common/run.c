/* SPDX-License-Identifier: BSD-3-Clause */
/* The one run loop every driver runs (module.h): parse, backend, memory,
 * outputs, restart, the march in chunks with checkpoints, signals and
 * progress, the final outputs, the summary, and one error path. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "module.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint.h"
#include "decomp.h"
#include "prefix_lock.h"
#include "series.h"
#include "sys.h"

#define HD_DRV_MAX_OPTIONS 160
#define HD_DRV_STOPPED (-4) /* a signal's checkpoint ended the run: march's exit_status */

static const hd_drv_module *running;

int hd_drv_option_rows(cli_opt *opts, int max, const cli_opt *rows, int count) {
  if (count > max) return -1;
  memcpy(opts, rows, (size_t)count * sizeof *rows);
  return count;
}

/* The table: the common rows, --bench, the checkpoints', the module's. */
static int option_table(hd_drv_run *r, cli_opt *opts, int max) {
  hd_drv_common *c = r->com;
  const cli_opt common[] = {HD_DRV_COMMON_OPTIONS(*c)}, bench[] = {HD_DRV_BENCH_FLAG(*c)};
  const cli_opt ckpt[] = {HD_DRV_CHECKPOINT_OPTIONS(*c)}, end[] = {HD_DRV_END_OPTIONS};
  int n = HD_DRV_ROWS(opts, max, common), k;
  if (r->mod->bench && !r->mod->own_bench) n += HD_DRV_ROWS(opts + n, max - n, bench);
  n += HD_DRV_ROWS(opts + n, max - n, ckpt);
  if ((k = r->mod->options(r->self, opts + n, max - n - 3)) < 0) return -1;
  n += k;
  if (r->mod->frame) {
    const cli_opt heading = CLI_HEADING_ROW("Time series of the fields (doc/outputs.md)");
    const cli_opt frames = {"frames", CLI_INT, &r->frames, "N", r->frames_help, 0, 100000, 0, NULL, 0, 0, 0};
    snprintf(r->frames_help, sizeof r->frames_help,
             "field frames after the initial one, PREFIX_NNNN files listed with their times in PREFIX.pvd "
             "(default %ld, 0 = none)", r->mod->frames);
    r->frames = r->mod->frames;
    opts[n++] = heading, opts[n++] = frames;
  }
  opts[n] = end[0];
  return n + 1;
}

int hd_drv_slot(hd_drv_run *r, const char *suffix, int want, int flags) {
  const int k = r->nslot++;
  r->slot[k].suffix = suffix, r->slot[k].want = want, r->slot[k].flags = flags;
  return k;
}

int hd_drv_bad(hd_drv_run *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->err, sizeof r->err, fmt, ap);
  va_end(ap);
  return HD_DRV_BAD_INPUT;
}

int hd_drv_take_state(hd_drv_run *r, int bad, void *state, int (*count)(void *state), hd_state_io_fn io) {
  if (hd_par_any(bad)) {
    if (!r->ctx.msg[0])
      hd_fail(&r->ctx, bad ? HD_ERR_NOMEM : HD_ERR_IO, bad ? "out of host memory for the state" : "setting up failed on another rank");
    return HD_DRV_FAILED;
  }
  r->state = state, r->state_count = count, r->state_io = io;
  return HD_DRV_OK;
}

const char *hd_drv_ckpt_note(hd_drv_run *r) {
  snprintf(r->ckpt_note, sizeof r->ckpt_note, "%s%s", r->ckpath[0] ? "; last checkpoint " : "", r->ckpath);
  return r->ckpt_note;
}

void hd_drv_pvd_begin(FILE *f) {
  fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n  <Collection>\n");
}

void hd_drv_pvd_frame(FILE *f, double t, int digits, const char *path) {
  const char *base = strrchr(path, '/');
  fprintf(f, "    <DataSet timestep=\"%.*g\" file=\"%s\"/>\n", digits, t, base ? base + 1 : path);
}

static void abort_outputs(hd_drv_run *r) {
  int k;
  for (k = 0; k < r->nslot; ++k) hd_out_abort(&r->out[k]);
}

/* A hook's result as the run's exit status, or 0 to go on. */
static int status(hd_drv_run *r, int rc) {
  const char *prog = r->mod->prog;
  if (rc == HD_DRV_OK) return 0;
  if (rc == HD_DRV_BAD_INPUT) return hd_drv_usage_error(prog, r->err);
  if (rc != HD_DRV_FAILED) return rc;
  if (r->ranks > 1)
    hd_drv_say(prog, hd_par_rank(), r->ctx.msg[0] ? r->ctx.msg : "run failed", NULL);
  else
    hd_drv_say(prog, -1, r->ctx.msg[0] ? r->ctx.msg : "run failed", hd_drv_ckpt_note(r));
  abort_outputs(r);
  hd_par_abort(1); /* other ranks may wait in a collective */
  return 1;
}

/* Rank 0 opens the wanted slots, the others sinks; the series are
 * registered with the checkpoints.  0, or HD_DRV_BAD_INPUT. */
static int open_outputs(hd_drv_run *r) {
  hd_out *o[HD_DRV_MAX_SLOTS];
  const char *suffix[HD_DRV_MAX_SLOTS];
  int want[HD_DRV_MAX_SLOTS], k, bad = 0;
  for (k = 0; k < r->nslot; ++k) o[k] = &r->out[k], suffix[k] = r->slot[k].suffix, want[k] = r->slot[k].want;
  if (hd_drv_open_outputs(o, suffix, want, r->nslot, r->com->output, r->err, sizeof r->err)) return HD_DRV_BAD_INPUT;
  for (k = 0; !r->root && k < r->nslot && !bad; ++k) /* rank 0 writes; the others compute the same and discard */
    if (want[k]) bad = hd_out_discard(&r->out[k], r->err, sizeof r->err) != 0;
  if (hd_par_any(bad)) {
    if (!bad) snprintf(r->err, sizeof r->err, "a rank cannot open its sinks");
    return HD_DRV_BAD_INPUT;
  }
  for (k = 0; k < r->nslot; ++k) {
    if (!want[k]) continue;
    if (r->slot[k].flags & HD_DRV_PVD) r->out[k].footer = "  </Collection>\n</VTKFile>\n";
    if (r->slot[k].flags & HD_DRV_SERIES) hd_drv_ckpt_series(&r->ckp, &r->out[k], suffix[k]);
  }
  return 0;
}

/* One run at a time in a prefix (rank 0 holds the lock for all).  0, or
 * HD_DRV_BAD_INPUT. */
static int lock_prefix(hd_drv_run *r) {
  const int bad = r->root && (r->lock = hd_prefix_lock(r->com->output, r->err, sizeof r->err)) == -1;
  if (!hd_par_any(bad)) return 0;
  if (!bad) snprintf(r->err, sizeof r->err, "rank 0 could not lock the prefix '%.900s'", r->com->output);
  return HD_DRV_BAD_INPUT;
}

/* The outputs in place; then the series published at the checkpoints are
 * complete and their .partial files go. */
static int commit_outputs(hd_drv_run *r) {
  char partial[sizeof r->out[0].path + 16];
  int k;
  for (k = 0; k < r->nslot; ++k)
    if (r->slot[k].want && hd_out_commit(&r->out[k], r->err, sizeof r->err))
      return hd_fail(&r->ctx, HD_ERR_IO, "%s", r->err), HD_DRV_FAILED;
  for (k = 0; r->root && k < r->nslot; ++k)
    if (r->slot[k].want && (r->slot[k].flags & HD_DRV_SERIES)) {
      hd_series_partial(r->out[k].path, partial, sizeof partial);
      unlink(partial);
    }
  return HD_DRV_OK;
}

/* ---- frames: the module's fields at the start, every frame_every steps
 * and at the end, listed in PREFIX.pvd (a series: a restart continues its
 * numbering and its list) */

static int frames_on(const hd_drv_run *r) { return r->mod->frame && r->frames > 0; }

static void frames_setup(hd_drv_run *r) {
  if (frames_on(r)) r->frame_pvd = hd_drv_slot(r, ".pvd", 1, HD_DRV_SERIES | HD_DRV_PVD);
}

static void frames_start(hd_drv_run *r) {
  long every;
  if (!frames_on(r)) return;
  if (r->root && !r->cont) hd_drv_pvd_begin(r->out[r->frame_pvd].f);
  every = r->frame_every = r->total > 0 ? (r->total + r->frames - 1) / r->frames : 1;
  r->frame_next = r->step0 / every + (r->step0 % every ? 1 : 0);
}

static int frame_point(hd_drv_run *r) {
  char prefix[4096 + 32], path[4096 + 64];
  hd_out o;
  int rc, bad;
  if (!frames_on(r) || (r->step % r->frame_every != 0 && r->step != r->total && !r->stop)) return HD_DRV_OK;
  snprintf(prefix, sizeof prefix, "%s_%04ld", r->com->output, r->frame_next);
  snprintf(path, sizeof path, "%s%s", prefix, r->frame_suffix);
  memset(&o, 0, sizeof o);
  bad = r->root ? hd_out_open(&o, path, r->err, sizeof r->err) : hd_out_discard(&o, r->err, sizeof r->err);
  if (hd_par_any(bad)) {
    hd_out_abort(&o);
    return hd_fail(&r->ctx, HD_ERR_IO, "%s", bad ? r->err : "a frame failed on another rank"), HD_DRV_FAILED;
  }
  if ((rc = r->mod->frame(r, &o, prefix)) != HD_DRV_OK) return hd_out_abort(&o), rc;
  bad = hd_out_commit(&o, r->err, sizeof r->err) != 0;
  hd_out_abort(&o);
  if (hd_par_any(bad))
    return hd_fail(&r->ctx, HD_ERR_IO, "%s", bad ? r->err : "a frame failed on another rank"), HD_DRV_FAILED;
  if (r->root) hd_drv_pvd_frame(r->out[r->frame_pvd].f, (double)r->step * r->dt, 9, path);
  ++r->frame_next;
  return HD_DRV_OK;
}

/* The checkpoint of --restart into the state, and the series beside it. */
static int restore(hd_drv_run *r) {
  const char *path = r->com->restart;
  int bad;
  if (!path[0]) return HD_DRV_OK;
  bad = r->replicated ? hd_drv_ckpt_load(&r->ctx, r->ck, r->state, r->state_count(r->state), r->state_io, path,
                                         r->err, sizeof r->err)
                      : hd_drv_ckpt_restore(&r->ctx, &r->ckp, r->ck, r->state, r->state_count(r->state), r->state_io,
                                            path, r->err, sizeof r->err);
  if (bad) return HD_DRV_BAD_INPUT;
  r->step = r->step0 = r->ckp.upto = (long)r->ck->step;
  if (r->step0 > r->total)
    return hd_drv_bad(r, "restart: the checkpoint is at step %ld, beyond this run's %ld steps", r->step0, r->total);
  if ((r->cont = hd_drv_series_resume(&r->ckp, r->ck, r->err, sizeof r->err)) < 0) return HD_DRV_BAD_INPUT;
  return HD_DRV_OK;
}

/* The steps in chunks: up to each stop the module's cadences or the
 * checkpoints ask for, then its monitors, a checkpoint when one is due or a
 * signal came, and progress. */
static int march(hd_drv_run *r, int *exit_status) {
  const hd_drv_module *m = r->mod;
  char path[sizeof r->ckpath];
  hd_progress prog;
  double t0;
  int rc;
  hd_progress_init(&prog, r->com->progress);
  t0 = hd_wtime();
  for (;;) {
    long chunk;
    double t1;
    int k;
    if (m->before && (rc = m->before(r)) != HD_DRV_OK) return rc;
    if ((rc = frame_point(r)) != HD_DRV_OK) return rc;
    if (r->step >= r->total || r->stop) break;
    chunk = r->total - r->step;
    for (k = 0; k < 4; ++k) {
      const long every = k < 3 ? r->cadence[k] : r->frame_every;
      if (every > 0 && every - r->step % every < chunk) chunk = every - r->step % every;
    }
    chunk = hd_drv_ckpt_chunk(&r->ckp, r->step, chunk);
    t1 = hd_wtime();
    /* a failure inside the steps may leave other ranks in an exchange:
     * the error path ends them all (MPI_Abort) */
    if ((rc = m->advance(r, chunk)) != HD_DRV_OK) return rc;
    if (r->core->sync(&r->ctx) != HD_OK) return HD_DRV_FAILED;
    r->steps_wall += hd_wtime() - t1;
    r->step += chunk;
    if ((rc = m->after(r, chunk)) != HD_DRV_OK) return rc;
    path[0] = '\0';
    rc = hd_drv_ckpt_point(m->prog, &r->ctx, &r->ckp, r->ck, r->step, r->dt, !r->stop && r->step < r->total,
                           r->replicated, r->state, r->state_count(r->state), r->state_io, r->com->output, path,
                           sizeof path);
    if (rc == HD_DRV_FAILED) return rc; /* the error names the last checkpoint written, not this one */
    if (path[0]) memcpy(r->ckpath, path, sizeof path);
    if (rc != HD_DRV_GO_ON) return *exit_status = rc, HD_DRV_STOPPED;
    if (r->root) hd_progress_step(&prog, m->prog, r->step, r->total, r->work * (double)(r->step - r->step0), r->work_unit);
  }
  if (r->core->sync(&r->ctx) != HD_OK) return HD_DRV_FAILED;
  r->wall = hd_wtime() - t0;
  hd_progress_end(&prog);
  return HD_DRV_OK;
}

static void summary_head(hd_drv_run *r, FILE *out) {
  fprintf(out, "program: %s\nversion: %s\nbackend: %s\ndevice: %s\nprecision: %s\n", r->mod->prog, PACKAGE_VERSION,
          r->core->name, r->ctx.device_name, r->precision);
}

static void summary_tail(hd_drv_run *r, FILE *out) {
  int k, pictures = 0;
  fprintf(out, "wall_seconds: %.6g\nsteps_seconds: %.6g\nhost_peak_gb: %.4g\noutputs:", r->wall, r->steps_wall,
          hd_host_peak_bytes() / 1e9);
  for (k = 0; k < r->nslot; ++k)
    if (r->slot[k].want && !(r->slot[k].flags & (HD_DRV_PICTURE | HD_DRV_UNLISTED))) fprintf(out, " %s", r->out[k].path);
  if (frames_on(r)) fprintf(out, " (%ld frames)", r->frame_next);
  fprintf(out, "%s\npicture:", r->outputs_note);
  for (k = 0; k < r->nslot; ++k)
    if (r->slot[k].want && (r->slot[k].flags & HD_DRV_PICTURE)) fprintf(out, " %s", r->out[k].path), ++pictures;
  if (!pictures) fprintf(out, " none (%s)", r->no_picture ? r->no_picture : HD_PNG_BUILT ? "--png=no" : HD_NO_PNG);
  fputc('\n', out);
}

/* The summary reached stdout (a full disk or a closed pipe loses it): 0, or
 * exit 1 with the reason. */
static int summary_written(hd_drv_run *r) {
  if (!r->root || (fflush(stdout) == 0 && !ferror(stdout))) return 0;
  fprintf(stderr, "%s: error: writing the summary to standard output failed: %s\n", r->mod->prog, strerror(errno));
  return 1;
}

static int bench(hd_drv_run *r) {
  int rc;
  if (r->root) summary_head(r, stdout);
  if ((rc = status(r, r->mod->bench(r))) != 0) return rc;
  if (!r->root) return 0;
  if (r->bench_ceiling > 0)
    printf("rate: %.6g %s\nceiling: %.6g %s (measured copy rate)\nfraction_of_ceiling: %.3f\n", r->bench_rate,
           r->bench_unit, r->bench_ceiling, r->bench_unit, r->bench_rate / r->bench_ceiling);
  else
    printf("rate: %.6g %s\nceiling: none measured\n", r->bench_rate, r->bench_unit);
  return summary_written(r);
}

static void banner(hd_drv_run *r) {
  char text[1024] = "";
  r->mod->banner(r, text, sizeof text);
  if (r->root)
    fprintf(stderr, "%s: %s backend (%s), %s precision, %s%s%s%s%s\n", r->mod->prog, r->core->name, r->ctx.device_name,
            r->precision, text, r->ranks > 1 ? "; " : "", r->ranks > 1 ? hd_par_describe() : "", r->why[0] ? "; " : "",
            r->why);
}

/* Everything after parsing; the exit status. */
static int run_parsed(hd_drv_run *r) {
  const hd_drv_module *m = r->mod;
  hd_drv_common *com = r->com;
  int rc, stopped = 0;
  if ((rc = status(r, m->setup(r))) != 0) return rc;
  frames_setup(r);
  if (com->bench && com->restart[0])
    return hd_drv_usage_error(m->prog, "--bench: not with --restart (a benchmark starts from the initial state and "
                                       "writes nothing)");
  if (hd_drv_ckpt_init(&r->ckp, com, r->err, sizeof r->err)) return hd_drv_usage_error(m->prog, r->err);
  if ((rc = hd_drv_ranks_options(m->prog, com, m->cuda_ranks)) != 0) return rc;
  if ((rc = hd_drv_open(m->prog, com, &r->ctx, &r->core, r->why, sizeof r->why)) != 0) return r->core = NULL, rc;
  if ((rc = status(r, m->open(r))) != 0) return rc;
  if (r->dev_bytes > 0 || r->host_bytes > 0) { /* a rank short of memory stops all */
    rc = hd_drv_check_memory(m->prog, &r->ctx, r->core, r->dev_bytes, r->host_bytes, m->memory);
    if ((rc = hd_par_max_int(rc)) != 0) return rc;
  }
  if (m->prepare && (rc = status(r, m->prepare(r))) != 0) return rc;
  if (com->bench) return banner(r), bench(r);
  hd_signals_install(); /* before any output is opened or a checkpoint read: a signal then still ends cleanly */
  if ((rc = status(r, lock_prefix(r))) != 0) return rc;
  if ((rc = status(r, open_outputs(r))) != 0) return rc;
  if ((rc = status(r, m->create(r))) != 0) return rc;
  if ((rc = status(r, restore(r))) != 0) return rc;
  banner(r); /* after what may refuse the run: a refusal is one line */
  if ((rc = status(r, m->start(r))) != 0) return rc;
  frames_start(r);
  rc = march(r, &stopped);
  if (rc == HD_DRV_STOPPED) return stopped;
  if ((rc = status(r, rc)) != 0) return rc;
  if ((rc = status(r, m->finish(r))) != 0) return rc;
  if ((rc = status(r, commit_outputs(r))) != 0) return rc;
  if (r->root) summary_head(r, stdout);
  if ((rc = status(r, m->summary(r, stdout))) != 0) return rc;
  if (r->root) summary_tail(r, stdout);
  return summary_written(r);
}

static int run_module(int argc, char **argv) {
  const hd_drv_module *m = running;
  static hd_ckpt ck; /* large: off the stack */
  cli_opt opts[HD_DRV_MAX_OPTIONS];
  hd_drv_run *r = (hd_drv_run *)calloc(1, sizeof *r);
  int rc;
  if (!r || !(r->self = calloc(1, m->size))) {
    fprintf(stderr, "%s: error: out of host memory\n", m->prog);
    free(r);
    return 1;
  }
  r->mod = m, r->com = (hd_drv_common *)r->self, r->opts = opts, r->ck = &ck;
  r->root = hd_par_rank() == 0, r->ranks = hd_par_size(), r->lock = -1;
  r->work = 1.0, r->work_unit = "steps/s";
  hd_drv_common_defaults(r->com, m->output);
  if (option_table(r, opts, HD_DRV_MAX_OPTIONS) < 0) {
    fprintf(stderr, "%s: error: more options than the loop's table holds\n", m->prog);
    rc = 1;
  } else {
    rc = hd_drv_parse(opts, argc, argv, m->prog, m->about);
  }
  if (rc < 0) rc = run_parsed(r);
  abort_outputs(r); /* those not committed */
  hd_prefix_unlock(r->lock, r->com->output);
  if (m->destroy) m->destroy(r);
  if (r->core) r->core->destroy(&r->ctx);
  free(r->self);
  free(r);
  return rc;
}

int hd_drv_main(const hd_drv_module *mod, int argc, char **argv) {
  running = mod;
  return hd_drv_main_ranks(mod->prog, run_module, argc, argv);
}
