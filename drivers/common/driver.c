/* SPDX-License-Identifier: BSD-3-Clause */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "driver.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "decomp.h"
#include "output.h"
#include "series.h"
#include "input_file.h"
#include "sys.h"

void hd_drv_common_defaults(hd_drv_common *c, const char *output) {
  memset(c, 0, sizeof *c);
  c->progress = 5.0;
  snprintf(c->output, sizeof c->output, "%s", output);
}

void hd_drv_say(const char *prog, int rank, const char *msg, const char *note) {
  char line[8192];
  size_t k = 0;
  const char *p;
  for (p = msg; *p && k + 5 < sizeof line; ++p) { /* a value the user gave may hold a newline */
    const unsigned char ch = (unsigned char)*p;
    if (ch >= 0x20 && ch != 0x7f) line[k++] = (char)ch;
    else if (ch == '\n') line[k++] = '\\', line[k++] = 'n';
    else k += (size_t)snprintf(line + k, sizeof line - k, "\\x%02x", ch);
  }
  line[k] = '\0';
  if (rank >= 0) fprintf(stderr, "%s: error: rank %d: %s%s\n", prog, rank, line, note ? note : "");
  else fprintf(stderr, "%s: error: %s%s\n", prog, line, note ? note : "");
}

int hd_drv_usage_error(const char *prog, const char *msg) {
  if (hd_par_rank() == 0) hd_drv_say(prog, -1, msg, NULL); /* every rank of a distributed run reaches it */
  return 2;
}

int hd_drv_parse(cli_opt *opts, int argc, char **argv, const char *prog, const char *summary) {
  char err[1024];
  switch (cli_parse(opts, argc, argv, err, sizeof err)) {
    case CLI_HELP:
      cli_print_help(opts, prog, summary);
      return 0;
    case CLI_VERSION:
      printf("%s (hd) %s\nbackends: %s\nprecision: single double\n", prog, PACKAGE_VERSION,
             hd_backends_built());
#ifdef HD_CUDA_ARCH_LIST
      printf("cuda arch: %s\n", HD_CUDA_ARCH_LIST);
#endif
      return 0;
    case CLI_ERROR:
      return hd_drv_usage_error(prog, err);
    default:
      return -1;
  }
}

int hd_drv_open(const char *prog, const hd_drv_common *c, hd_ctx *ctx, const hd_core_ops **core,
                char *why, size_t n) {
  const int first = (int)c->device;
  int device = first, bad;
  if (hd_par_size() > 1 && c->backend == 1 + HD_B_CUDA && hd_core_get(HD_B_CUDA)) {
    /* one GPU per rank of a node, counted from --device */
    int local_size = 1;
    const int local = hd_par_local_rank(&local_size), gpus = hd_core_get(HD_B_CUDA)->device_count() - first;
    if (gpus > 0) {
      device = first + local % gpus;
      if (local == 0 && local_size > gpus)
        fprintf(stderr, "%s: warning: %d ranks on this node share %d GPU%s\n", prog, local_size, gpus,
                gpus == 1 ? "" : "s");
    }
  }
  bad = hd_backend_open(c->backend - 1, device, ctx, core, why, n) != HD_OK;
  if (hd_par_any(bad)) { /* every rank stops when one cannot start */
    const int all = !hd_par_any(!bad); /* then the reason is the same: rank 0 says it */
    if (bad && !all) hd_drv_say(prog, hd_par_rank(), ctx->msg, NULL);
    else if (bad && hd_par_rank() == 0) hd_drv_say(prog, -1, ctx->msg, NULL);
    if (!bad) (*core)->destroy(ctx);
    return c->backend == 0 ? 1 : 2;
  }
  ctx->threads = (int)c->threads;
  if ((*core)->id == HD_B_OPENMP && c->threads > 0) /* the backend named OMP_NUM_THREADS' count when it started */
    snprintf(ctx->device_name, sizeof ctx->device_name, "CPU, OpenMP, %d thread%s", ctx->threads,
             ctx->threads == 1 ? "" : "s");
  if (hd_par_size() > 1) {
    const int ipc = hd_par_ipc_setup(*core, ctx); /* collective */
    if ((*core)->id == HD_B_CUDA && hd_par_rank() == 0)
      fprintf(stderr, "%s: %s%s\n", prog, ipc ? "halos from ranks on the same node by CUDA IPC; from others " : "halos ",
              hd_par_cuda_aware() ? "sent from device memory (CUDA-aware MPI)"
                                  : "staged through page-locked host memory (MPI not known to be CUDA-aware)");
  }
  return 0;
}

int hd_drv_open_outputs(struct hd_out *const *o, const char *const *suffix, const int *want, int count,
                        const char *prefix, char *err, size_t n) {
  char path[4096 + 64];
  int k, bad = 0;
  for (k = 0; k < count; ++k) memset(o[k], 0, sizeof *o[k]);
  for (k = 0; hd_par_rank() == 0 && k < count && !bad; ++k) {
    if (want && !want[k]) continue;
    snprintf(path, sizeof path, "%s%s", prefix, suffix[k]);
    if (hd_out_open(o[k], path, err, n)) {
      while (k-- > 0) hd_out_abort(o[k]); /* a no-op on outputs never opened */
      bad = 1;
    }
  }
  if (!hd_par_any(bad)) return 0;
  if (!bad) snprintf(err, n, "rank 0 cannot open the outputs");
  return -1;
}

int hd_drv_main_ranks(const char *prog, int (*run)(int argc, char **argv), int argc, char **argv) {
  char err[256];
  int rc;
  if (hd_par_init(&argc, &argv, err, sizeof err) < 0) {
    fprintf(stderr, "%s: error: %s\n", prog, err);
    return 1;
  }
  rc = run(argc, argv);
  hd_par_finalize();
  return rc;
}

int hd_drv_ranks_options(const char *prog, hd_drv_common *c, int cuda_ok) {
  if (hd_par_size() == 1) return 0;
  if (c->bench) return hd_drv_usage_error(prog, "--bench: not available yet in runs on more than one rank");
  if (c->backend == 0) {
    /* auto: a GPU for every rank of every node where the driver can use
       them, the CPU otherwise (ranks sharing a GPU would queue on it) */
    const hd_core_ops *cuda = cuda_ok ? hd_core_get(HD_B_CUDA) : NULL;
    int local_size = 1, short_of_gpus = 1;
    hd_par_local_rank(&local_size);
    if (cuda) short_of_gpus = cuda->device_count() - (int)c->device < local_size;
    c->backend = 1 + (!hd_par_any(short_of_gpus) ? HD_B_CUDA
                      : hd_core_get(HD_B_OPENMP) ? HD_B_OPENMP : HD_B_SERIAL);
  }
  return 0;
}

int hd_drv_check_memory(const char *prog, hd_ctx *ctx, const hd_core_ops *core, double dev_bytes,
                        double host_bytes, const char *what) {
  char err[512];
  size_t avail;
  err[0] = '\0';
  if (core->id == HD_B_CUDA) {
    avail = hd_host_mem_available();
    if (!hd_check_memory(ctx, core, dev_bytes, err, sizeof err) && avail && host_bytes > (double)avail)
      snprintf(err, sizeof err, "needs %.3g GB of host memory, %.3g GB available", host_bytes / 1e9,
               avail / 1e9);
  } else {
    hd_check_memory(ctx, core, dev_bytes + host_bytes, err, sizeof err);
  }
  if (!err[0]) return 0;
  fprintf(stderr, "%s: error: %s too large for memory: %s\n", prog, what, err);
  return 2;
}

hd_status hd_drv_bench_rounds(hd_ctx *ctx, const hd_core_ops *core, hd_status (*run)(void *arg, long steps),
                              void *arg, long steps, int rounds, size_t copy_bytes, double *seconds, double *copy) {
  int r;
  *seconds = 0.0, *copy = 0.0;
  for (r = 0; r < rounds; ++r) {
    const double t0 = hd_wtime();
    double t, bw = 0.0;
    hd_status s = run(arg, steps);
    if (s == HD_OK) s = core->sync(ctx);
    if (s != HD_OK) return s;
    t = (hd_wtime() - t0) / (double)steps;
    if (r == 0 || t < *seconds) *seconds = t;
    if (core->copy_bandwidth(ctx, copy_bytes, 1, &bw) == HD_OK && bw > *copy) *copy = bw;
  }
  return HD_OK;
}

/* ---- checkpoints ------------------------------------------------------------ */

int hd_drv_ckpt_init(hd_drv_ckpt *k, const hd_drv_common *c, char *err, size_t n) {
  const char *s = c->ckpt_every;
  char *end;
  memset(k, 0, sizeof *k);
  k->keep = c->ckpt_keep > 0 ? (int)c->ckpt_keep : 3;
  k->upto = -1;
  k->last = hd_wtime();
  k->com = c;
  if (c->fresh_series && !c->restart[0]) return snprintf(err, n, "--fresh-series: only with --restart"), -1;
  if (!s[0]) return 0;
  if (s[strlen(s) - 1] == 's') {
    k->seconds = strtod(s, &end);
    if (end != s + strlen(s) - 1 || !(k->seconds > 0))
      return snprintf(err, n, "checkpoint-every: '%s' is not N (steps) or Ts (seconds, T > 0)", s), -1;
  } else {
    k->steps = strtol(s, &end, 10);
    if (*end || k->steps <= 0)
      return snprintf(err, n, "checkpoint-every: '%s' is not N (steps) or Ts (seconds, T > 0)", s), -1;
  }
  return 0;
}

void hd_drv_ckpt_series(hd_drv_ckpt *k, hd_out *o, const char *suffix) {
  if (k->nseries == HD_CKPT_MAX_SERIES) return;
  k->series[k->nseries] = o, k->suffix[k->nseries++] = suffix;
}

/* Publish every series as far as c's step and record them in c (rank 0,
 * which writes them; the others record none).  0 or -1 + message. */
static int publish_series(hd_drv_ckpt *k, hd_ckpt *c, char *err, size_t n) {
  int s;
  c->nseries = 0;
  if (hd_par_rank() != 0) return 0;
  for (s = 0; s < k->nseries; ++s) {
    hd_ckpt_series *r = &c->series[s];
    memset(r->name, 0, sizeof r->name);
    snprintf(r->name, sizeof r->name, "%s", k->suffix[s]);
    if (hd_series_publish(k->series[s], &r->bytes, &r->crc, err, n)) return -1;
    c->nseries = s + 1;
  }
  return 0;
}

int hd_drv_series_resume(hd_drv_ckpt *k, const hd_ckpt *c, char *err, size_t n) {
  const hd_drv_common *com = k->com;
  char from[4096 + 64], prefix[4096];
  const char *dot;
  int s, bad = 0;
  if (!com->restart[0] || com->fresh_series || !k->nseries) return 0;
  /* the series beside the checkpoint: PREFIX.ckpt.STEP names PREFIX */
  snprintf(prefix, sizeof prefix, "%s", com->restart);
  dot = strstr(prefix, ".ckpt.");
  while (dot && strstr(dot + 1, ".ckpt.")) dot = strstr(dot + 1, ".ckpt.");
  if (dot) prefix[dot - prefix] = '\0';
  else snprintf(prefix, sizeof prefix, "%s", com->output); /* a renamed checkpoint: the output's own */
  for (s = 0; hd_par_rank() == 0 && s < k->nseries && !bad; ++s) {
    int r;
    char why[2048];
    for (r = 0; r < c->nseries && strcmp(c->series[r].name, k->suffix[s]); ++r) continue;
    snprintf(from, sizeof from, "%s%s", prefix, k->suffix[s]);
    if (r == c->nseries) {
      snprintf(err, n, "restart: the checkpoint records no %s series (%s); --fresh-series starts new series at step %lld",
               k->suffix[s], c->nseries ? "its run wrote other series" : "written by an hd that did not record series",
               (long long)c->step);
      bad = 1;
    } else if (hd_series_resume(k->series[s], from, c->series[r].bytes, c->series[r].crc, why, sizeof why)) {
      snprintf(err, n, "restart: %s; --fresh-series starts new series at step %lld", why, (long long)c->step);
      bad = 1;
    }
  }
  if (hd_par_any(bad)) {
    if (!bad) snprintf(err, n, "restart: rank 0 could not continue the time series");
    return -1;
  }
  return 1;
}

long hd_drv_ckpt_chunk(const hd_drv_ckpt *k, long step, long max) {
  if (k->steps > 0) {
    const long left = k->steps - step % k->steps;
    return left < max ? left : max;
  }
  return max;
}

int hd_drv_ckpt_due(hd_drv_ckpt *k, long step) {
  if (k->steps > 0) return step % k->steps == 0;
  if (k->seconds > 0 && hd_wtime() - k->last >= k->seconds) {
    k->last = hd_wtime();
    return 1;
  }
  return 0;
}

static void free_arrays(hd_ckpt *c) {
  int k;
  for (k = 0; k < c->narrays; ++k) free(c->arrays[k].data), c->arrays[k].data = NULL;
}

/* Name and size each array and give it a host buffer. */
static int prepare(hd_ctx *ctx, hd_ckpt *c, void *state, int narrays, hd_state_io_fn io, char *err, size_t n) {
  int k;
  if (narrays > HD_CKPT_MAX_ARRAYS) return snprintf(err, n, "checkpoint: %d arrays is too many", narrays), -1;
  c->narrays = 0;
  for (k = 0; k < narrays; ++k) {
    hd_ckpt_array *a = &c->arrays[k];
    memset(a->name, 0, sizeof a->name);
    if (io(ctx, state, k, a->name, &a->bytes, NULL, 1) != HD_OK)
      return snprintf(err, n, "checkpoint: %s", ctx->msg), free_arrays(c), -1;
    a->data = malloc(a->bytes ? (size_t)a->bytes : 1);
    c->narrays = k + 1;
    if (!a->data) return snprintf(err, n, "checkpoint: out of host memory"), free_arrays(c), -1;
  }
  return 0;
}

int hd_drv_ckpt_save(hd_ctx *ctx, hd_ckpt *c, void *state, int narrays, hd_state_io_fn io, const char *prefix,
                     char *path, size_t pn, char *err, size_t n) {
  int k, rc;
  if (prepare(ctx, c, state, narrays, io, err, n)) return -1;
  for (k = 0; k < narrays; ++k)
    if (io(ctx, state, k, c->arrays[k].name, &c->arrays[k].bytes, c->arrays[k].data, 1) != HD_OK) {
      snprintf(err, n, "checkpoint: %s", ctx->msg);
      free_arrays(c);
      return -1;
    }
  rc = hd_ckpt_write(c, prefix, path, pn, err, n);
  free_arrays(c);
  return rc;
}

int hd_drv_ckpt_load(hd_ctx *ctx, hd_ckpt *c, void *state, int narrays, hd_state_io_fn io, const char *path,
                     char *err, size_t n) {
  int k;
  if (prepare(ctx, c, state, narrays, io, err, n)) return -1;
  if (hd_ckpt_read(path, c, err, n)) return free_arrays(c), -1;
  for (k = 0; k < narrays; ++k)
    if (io(ctx, state, k, c->arrays[k].name, &c->arrays[k].bytes, c->arrays[k].data, 0) != HD_OK) {
      snprintf(err, n, "restart: %s", ctx->msg);
      free_arrays(c);
      return -1;
    }
  free_arrays(c);
  return 0;
}

/* ---- checkpoints of distributed runs --------------------------------------- */

#define MANIFEST_MAGIC "hd-checkpoint-manifest 1"

static void rank_prefix(const char *prefix, int rank, int size, char *out, size_t n) {
  snprintf(out, n, "%.4000s.r%dof%d", prefix, rank, size);
}

/* The manifest lists each rank's file and, for blocks of x rows, its
 * rows along y and z: "rank R FILE rows YLO YHI YGHOST ZLO ZHI ZGHOST". */
static int save_ranks(hd_ctx *ctx, hd_ckpt *c, void *state, int narrays, hd_state_io_fn io, const char *prefix,
                      const hd_drv_rows *rows, char *path, size_t pn, char *err, size_t n) {
  const int rank = hd_par_rank(), size = hd_par_size();
  char mine[4096 + 64], part[4096 + 96];
  long *all = NULL;
  int bad, r;
  if (size == 1) return hd_drv_ckpt_save(ctx, c, state, narrays, io, prefix, path, pn, err, n);
  rank_prefix(prefix, rank, size, mine, sizeof mine);
  bad = hd_drv_ckpt_save(ctx, c, state, narrays, io, mine, part, sizeof part, err, n) != 0;
  if (!bad && rows) { /* every block's rows, for the manifest */
    if (!(all = (long *)malloc((size_t)size * 6 * sizeof(long)))) bad = snprintf(err, n, "checkpoint: out of host memory");
    for (r = 0; all && r < 2; ++r)
      all[6 * rank + 3 * r] = rows->lo[r + 1], all[6 * rank + 3 * r + 1] = rows->hi[r + 1],
                          all[6 * rank + 3 * r + 2] = rows->ghost[r + 1];
  }
  if (hd_par_any(bad)) {
    if (!bad) snprintf(err, n, "checkpoint: another rank could not write its block");
    free(all);
    return -1;
  }
  if (rows && hd_par_allgather(all, 6 * sizeof(long), size)) {
    free(all);
    return snprintf(err, n, "checkpoint: gathering the blocks' rows failed"), -1;
  }
  snprintf(path, pn, "%s.ckpt.%012lld", prefix, (long long)c->step);
  bad = 0;
  if (rank == 0) { /* the manifest commits the set */
    hd_out o;
    bad = hd_out_open(&o, path, err, n) != 0;
    if (!bad) {
      fprintf(o.f, MANIFEST_MAGIC "\ndriver %s\nstep %lld\nranks %d\n", c->driver, (long long)c->step, size);
      for (r = 0; r < size; ++r) {
        const char *slash;
        rank_prefix(prefix, r, size, mine, sizeof mine);
        slash = strrchr(mine, '/');
        fprintf(o.f, "rank %d %s.ckpt.%012lld", r, slash ? slash + 1 : mine, (long long)c->step);
        if (rows)
          fprintf(o.f, " rows %ld %ld %ld %ld %ld %ld", all[6 * r], all[6 * r + 1], all[6 * r + 2], all[6 * r + 3],
                  all[6 * r + 4], all[6 * r + 5]);
        fputc('\n', o.f);
      }
      bad = hd_out_commit(&o, err, n) != 0;
    }
  }
  free(all);
  if (hd_par_any(bad)) {
    if (!bad) snprintf(err, n, "checkpoint: rank 0 could not write the manifest");
    return -1;
  }
  return 0;
}

int hd_drv_ckpt_save_ranks(hd_ctx *ctx, hd_ckpt *c, void *state, int narrays, hd_state_io_fn io, const char *prefix,
                           char *path, size_t pn, char *err, size_t n) {
  return save_ranks(ctx, c, state, narrays, io, prefix, NULL, path, pn, err, n);
}

/* This rank's file named by the manifest at `path`; 0 or -1 + message. */
static int manifest_entry(const char *path, int rank, int size, char *file, size_t fn, char *err, size_t n) {
  char line[4200], dir[4096];
  FILE *f = hd_fopen_input(path, "r");
  int ranks = -1, r, found = 0;
  if (!f) return snprintf(err, n, "restart: cannot open '%.900s': %s", path, hd_input_error()), -1;
  if (!fgets(line, sizeof line, f) || strncmp(line, MANIFEST_MAGIC, strlen(MANIFEST_MAGIC))) {
    fclose(f);
    return snprintf(err, n, "restart: '%.900s' is not the manifest of a checkpoint of %d ranks", path, size), -1;
  }
  hd_dirname(path, dir, sizeof dir);
  while (fgets(line, sizeof line, f)) {
    char name[4096];
    if (sscanf(line, "ranks %d", &ranks) == 1) continue;
    if (sscanf(line, "rank %d %4095s", &r, name) == 2 && r == rank && !strchr(name, '/')) {
      snprintf(file, fn, "%.4000s/%.4000s", dir, name);
      found = 1;
    }
  }
  fclose(f);
  if (ranks != size)
    return snprintf(err, n, "restart: '%.900s' was written by %d ranks, this run has %d", path, ranks, size), -1;
  if (!found) return snprintf(err, n, "restart: '%.900s' names no file for rank %d", path, rank), -1;
  return 0;
}

int hd_drv_ckpt_load_ranks(hd_ctx *ctx, hd_ckpt *c, void *state, int narrays, hd_state_io_fn io, const char *path,
                           char *err, size_t n) {
  const int rank = hd_par_rank(), size = hd_par_size();
  char file[8200];
  int bad;
  if (size == 1) return hd_drv_ckpt_load(ctx, c, state, narrays, io, path, err, n);
  bad = manifest_entry(path, rank, size, file, sizeof file, err, n) != 0; /* the same on every rank */
  if (!bad && hd_drv_ckpt_load(ctx, c, state, narrays, io, file, err, n)) {
    bad = 1; /* this rank's own file: say so here, rank 0 may have loaded its own */
    if (rank != 0) fprintf(stderr, "%s: error: rank %d: %s\n", c->driver, rank, err);
  }
  if (hd_par_any(bad)) {
    if (!bad) snprintf(err, n, "restart: another rank could not load its block of '%.900s'", path);
    return -1;
  }
  return 0;
}

/* ---- output by pieces ---------------------------------------------------------- */

int hd_drv_write_pieces(const hd_decomp *d, const char *prefix, hd_out *index, const int64_t n[3], const double origin[3],
                        const double dx[3], const double *const x[3], const hd_vti_array *arrays, int narrays,
                        const hd_vtk_meta *meta, char *err, size_t en) {
  const char *kind = x ? "vtr" : "vti";
  const int size = d->size, rank = d->rank;
  const char *base = strrchr(prefix, '/') ? strrchr(prefix, '/') + 1 : prefix;
  long *ext = (long *)calloc((size_t)size * 6, sizeof(long));
  int64_t *lo = (int64_t *)calloc((size_t)size * 6, sizeof(int64_t)), *cnt = lo ? lo + 3 * size : NULL;
  char **src = (char **)calloc((size_t)size, sizeof(char *)), path[4096 + 32];
  hd_out piece;
  int a, k, bad = !ext || !lo || !src;
  memset(&piece, 0, sizeof piece);
  if (bad) snprintf(err, en, "out of host memory for the pieces");
  if (!bad) {
    for (a = 0; a < 3; ++a) ext[6 * rank + a] = d->off[a], ext[6 * rank + 3 + a] = n[a] > 0 ? d->ln[a] : 0;
    for (a = 0; a < 3; ++a) lo[a] = ext[6 * rank + a], cnt[a] = ext[6 * rank + 3 + a];
    snprintf(path, sizeof path, "%s_p%d.%s", prefix, rank, kind);
    bad = hd_out_open(&piece, path, err, en) != 0 ||
          (x ? hd_vtr_write_block(&piece, n, lo, cnt, x, arrays, narrays, meta)
             : hd_vti_write_block(&piece, n, lo, cnt, origin, dx, arrays, narrays, meta)) != 0 ||
          hd_out_commit(&piece, err, en) != 0;
    hd_out_abort(&piece); /* nothing left to remove after a commit */
    if (bad && !err[0]) snprintf(err, en, "cannot write %.900s: %s", path, hd_out_error());
  }
  if (hd_par_any(bad) || hd_par_allgather(ext, 6 * sizeof(long), size)) {
    if (!bad) snprintf(err, en, "writing the pieces failed on another rank");
    bad = 1;
  }
  for (k = 0; !bad && rank == 0 && k < size; ++k) {
    for (a = 0; a < 3; ++a) lo[3 * k + a] = ext[6 * k + a], cnt[3 * k + a] = ext[6 * k + 3 + a];
    if (!(src[k] = (char *)malloc(strlen(base) + 32))) bad = 1, snprintf(err, en, "out of host memory");
    else sprintf(src[k], "%s_p%d.%s", base, k, kind);
  }
  if (!bad && rank == 0 &&
      (x ? hd_pvtr_write(index, n, arrays, narrays, size, lo, cnt, (const char *const *)src)
         : hd_pvti_write(index, n, origin, dx, arrays, narrays, size, lo, cnt, (const char *const *)src)))
    bad = 1, snprintf(err, en, "cannot write %s.p%s", prefix, kind);
  for (k = 0; src && k < size; ++k) free(src[k]);
  free(src), free(lo), free(ext);
  return bad ? -1 : 0;
}

/* ---- restarts on another rank count ---------------------------------------- */

void hd_drv_ckpt_blocks(hd_drv_ckpt *k, const hd_decomp *d, long ghost, long single_ghost) {
  int a;
  for (a = 1; a < 3; ++a) {
    const int split = a < d->dim; /* an axis of the grid: ghosts on it */
    k->rows.lo[a] = d->off[a], k->rows.hi[a] = d->off[a] + d->ln[a], k->rows.total[a] = d->gn[a];
    k->rows.ghost[a] = split ? (d->size > 1 ? ghost : single_ghost) : 0;
    k->single_ghost[a] = split ? single_ghost : 0;
  }
}

typedef struct old_block {
  char file[8200];
  long lo[3], hi[3], ghost[3]; /* along y and z (1, 2) */
} old_block;

/* The blocks of the set at `path`: a manifest's ranks (they must give their
 * rows), or a one-rank checkpoint, the whole grid with the one-rank ghosts.
 * A malloc'd array and its length, or NULL + message. */
static old_block *old_blocks(const char *path, const hd_drv_ckpt *k, int *count, char *err, size_t n) {
  char line[4200], dir[4096];
  FILE *f = hd_fopen_input(path, "r");
  old_block *b = NULL;
  int ranks = -1, r, got = 0, a;
  *count = 0;
  if (!f) return snprintf(err, n, "cannot open checkpoint '%.900s': %s", path, hd_input_error()), NULL;
  if (!fgets(line, sizeof line, f) || strncmp(line, MANIFEST_MAGIC, strlen(MANIFEST_MAGIC))) {
    fclose(f); /* a single checkpoint: hd_ckpt_read judges it */
    if (!(b = (old_block *)calloc(1, sizeof *b))) return snprintf(err, n, "restart: out of host memory"), NULL;
    snprintf(b->file, sizeof b->file, "%s", path);
    for (a = 1; a < 3; ++a) b->lo[a] = 0, b->hi[a] = k->rows.total[a], b->ghost[a] = k->single_ghost[a];
    *count = 1;
    return b;
  }
  hd_dirname(path, dir, sizeof dir);
  while (fgets(line, sizeof line, f)) {
    char name[4096];
    long v[6];
    if (sscanf(line, "ranks %d", &ranks) == 1) {
      if (ranks < 1 || ranks > 1 << 24 || b || !(b = (old_block *)calloc((size_t)ranks, sizeof *b))) break;
      continue;
    }
    if (!b || sscanf(line, "rank %d %4095s rows %ld %ld %ld %ld %ld %ld", &r, name, &v[0], &v[1], &v[2], &v[3], &v[4],
                     &v[5]) != 8)
      continue;
    if (r < 0 || r >= ranks || strchr(name, '/') || b[r].file[0]) break;
    for (a = 1; a < 3; ++a) {
      b[r].lo[a] = v[3 * a - 3], b[r].hi[a] = v[3 * a - 2], b[r].ghost[a] = v[3 * a - 1];
      if (b[r].lo[a] < 0 || b[r].hi[a] <= b[r].lo[a] || b[r].hi[a] > k->rows.total[a] || b[r].ghost[a] < 0) break;
    }
    if (a < 3) break;
    snprintf(b[r].file, sizeof b[r].file, "%.4000s/%.4000s", dir, name);
    ++got;
  }
  fclose(f);
  if (!b || got != ranks) {
    free(b);
    return snprintf(err, n, "restart: '%.900s' does not give the rows of every block (written by an older hd, or "
                    "another grid): restart it on %d ranks", path, ranks), NULL;
  }
  *count = ranks;
  return b;
}

static hd_ckpt_array *named(hd_ckpt *c, const char *name) {
  int a;
  for (a = 0; a < c->narrays; ++a)
    if (!strncmp(c->arrays[a].name, name, sizeof c->arrays[a].name)) return &c->arrays[a];
  return NULL;
}

/* A face array: the part of an old block's that this block's covers, both
 * on the face of the grid (elsewhere the face is shared and holds zeros). */
static int copy_face(const hd_drv_rows *me, const old_block *ob, int face, hd_ckpt_array *to, const hd_ckpt_array *from,
                     char *err, size_t n) {
  const int axis = face / 2, hi = face % 2, u = axis == 0 ? 1 : 0, v = axis == 2 ? 1 : 2;
  long nlo[3], nhi[3], olo[3], ohi[3], lu, hu, w;
  int a;
  if (axis > 0 && (hi ? me->hi[axis] != me->total[axis] || ob->hi[axis] != me->total[axis]
                      : me->lo[axis] != 0 || ob->lo[axis] != 0))
    return 0;
  if (!from) return snprintf(err, n, "restart: %s has no array '%s'", ob->file, to->name), -1;
  for (a = 1; a < 3; ++a) nlo[a] = me->lo[a], nhi[a] = me->hi[a], olo[a] = ob->lo[a], ohi[a] = ob->hi[a];
  nlo[0] = olo[0] = 0, nhi[0] = ohi[0] = u == 0 ? (long)(to->bytes / 8) / (nhi[v] - nlo[v]) : 1; /* x is whole */
  if (to->bytes != 8 * (uint64_t)((nhi[u] - nlo[u]) * (nhi[v] - nlo[v])) ||
      from->bytes != 8 * (uint64_t)((ohi[u] - olo[u]) * (ohi[v] - olo[v])))
    return snprintf(err, n, "restart: %s: '%s' is not a face of this grid", ob->file, to->name), -1;
  lu = nlo[u] > olo[u] ? nlo[u] : olo[u], hu = nhi[u] < ohi[u] ? nhi[u] : ohi[u];
  for (w = nlo[v] > olo[v] ? nlo[v] : olo[v]; lu < hu && w < nhi[v] && w < ohi[v]; ++w)
    memcpy((double *)to->data + (w - nlo[v]) * (nhi[u] - nlo[u]) + (lu - nlo[u]),
           (const double *)from->data + (w - olo[v]) * (ohi[u] - olo[u]) + (lu - olo[u]), (size_t)(hu - lu) * 8);
  return 0;
}

/* Keys in (y, z, id) order, each with its entry's index. */
typedef struct key_at {
  hd_ckpt_key k;
  uint64_t at;
} key_at;

static int key_cmp(const void *pa, const void *pb) {
  const hd_ckpt_key *a = (const hd_ckpt_key *)pa, *b = (const hd_ckpt_key *)pb;
  if (a->z != b->z) return a->z < b->z ? -1 : 1;
  if (a->y != b->y) return a->y < b->y ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

/* A list array: each of this block's entries that the old block holds,
 * unless taken already from the block owning its row (found 2) or, for a
 * block not owning it, from any (found 1).  rlo, rhi: the rows the old
 * block owns. */
static int copy_list(const old_block *ob, hd_ckpt *old, const hd_ckpt_array *to, const hd_ckpt_array *keys,
                     const char *okeys_name, long elem, const long rlo[3], const long rhi[3], unsigned char *found,
                     char *err, size_t n) {
  const hd_ckpt_array *from = named(old, to->name), *okeys = named(old, okeys_name);
  const hd_ckpt_key *nk = (const hd_ckpt_key *)keys->data;
  const uint64_t count = keys->bytes / sizeof *nk;
  uint64_t ocount, e, slices, oslices, s, eb;
  key_at *sorted;
  if (!from && !okeys) return 0; /* a list this block had no entries of */
  if (!from || !okeys) return snprintf(err, n, "restart: %s has no array '%s'", ob->file, from ? okeys_name : to->name), -1;
  ocount = okeys->bytes / sizeof *nk;
  if (!count || !ocount) return 0;
  eb = elem > 0 ? (uint64_t)elem : to->bytes / count;
  slices = elem > 0 ? to->bytes / (count * eb) : 1, oslices = elem > 0 ? from->bytes / (ocount * eb) : 1;
  if (!eb || to->bytes != slices * count * eb || from->bytes != oslices * ocount * eb || slices != oslices)
    return snprintf(err, n, "restart: %s: '%s' is not a list of this model's", ob->file, to->name), -1;
  if (!(sorted = (key_at *)malloc((size_t)ocount * sizeof *sorted))) return snprintf(err, n, "restart: out of host memory"), -1;
  for (e = 0; e < ocount; ++e) memcpy(&sorted[e].k, (const hd_ckpt_key *)okeys->data + e, sizeof *nk), sorted[e].at = e;
  qsort(sorted, (size_t)ocount, sizeof *sorted, key_cmp);
  for (e = 0; e < count; ++e) {
    const int owner = nk[e].y >= rlo[1] && nk[e].y < rhi[1] && nk[e].z >= rlo[2] && nk[e].z < rhi[2];
    const key_at *hit;
    if (nk[e].id < 0 || found[e] == 2 || (found[e] && !owner)) continue;
    if (!(hit = (const key_at *)bsearch(&nk[e], sorted, (size_t)ocount, sizeof *sorted, key_cmp))) continue;
    for (s = 0; s < slices; ++s)
      memcpy((char *)to->data + (s * count + e) * eb, (const char *)from->data + (s * ocount + hit->at) * eb, (size_t)eb);
    found[e] = owner ? 2 : 1;
  }
  free(sorted);
  return 0;
}

int hd_drv_ckpt_restore(hd_ctx *ctx, const hd_drv_ckpt *k, hd_ckpt *c, void *state, int narrays, hd_state_io_fn io,
                        const char *path, char *err, size_t n) {
  const hd_drv_rows *me = &k->rows;
  static hd_ckpt old; /* large; one restart at a time */
  long first[3], size[3], lo[3], hi[3], osize[3], rlo[3], rhi[3], y, z, elem[HD_CKPT_MAX_ARRAYS];
  int kind[HD_CKPT_MAX_ARRAYS], keyof[HD_CKPT_MAX_ARRAYS];
  unsigned char *found[HD_CKPT_MAX_ARRAYS] = {NULL}, same[HD_CKPT_MAX_ARRAYS] = {0};
  char keys[HD_CKPT_MAX_ARRAYS][16];
  old_block *b;
  int count = 0, bad = 0, i, a, header = 0;
  if (!me->total[1]) return hd_drv_ckpt_load_ranks(ctx, c, state, narrays, io, path, err, n);
  for (a = 1; a < 3; ++a) first[a] = me->lo[a] - me->ghost[a], size[a] = me->hi[a] - me->lo[a] + 2 * me->ghost[a] + me->nodes;
  b = old_blocks(path, k, &count, err, n);
  bad = !b || prepare(ctx, c, state, narrays, io, err, n);
  for (a = 0; a < narrays && !bad; ++a) { /* what no block gives (outside the grid, unused) stays 0, as at the start */
    kind[a] = k->kind ? k->kind(c->arrays[a].name, keys[a], &elem[a]) : HD_DRV_ROWS;
    if (kind[a] == HD_DRV_KEYS) /* this run's own */
      bad = io(ctx, state, a, c->arrays[a].name, &c->arrays[a].bytes, c->arrays[a].data, 1) != HD_OK &&
            snprintf(err, n, "restart: %s", ctx->msg);
    else
      memset(c->arrays[a].data, 0, (size_t)c->arrays[a].bytes);
  }
  for (a = 0; a < narrays && !bad; ++a) {
    keyof[a] = -1;
    if (kind[a] != HD_DRV_LIST) continue;
    for (i = 0; i < narrays && keyof[a] < 0; ++i)
      if (kind[i] == HD_DRV_KEYS && !strncmp(c->arrays[i].name, keys[a], 16)) keyof[a] = i;
    if (keyof[a] < 0) bad = snprintf(err, n, "restart: the list '%s' has no keys '%.15s'", c->arrays[a].name, keys[a]);
    else if (!(found[a] = (unsigned char *)calloc((size_t)(c->arrays[keyof[a]].bytes / sizeof(hd_ckpt_key)) + 1, 1)))
      bad = snprintf(err, n, "restart: out of host memory");
    if (!bad && elem[a] < 0) elem[a] = (long)c->real_size;
  }
  for (i = 0; !bad && i < count; ++i) {
    /* the rows this old block gives: those it owns, and the grid's outer ghosts at the edges */
    int empty = 0;
    for (a = 1; a < 3; ++a) {
      const long from = b[i].lo[a] == 0 ? -b[i].ghost[a] : b[i].lo[a];
      const long to = b[i].hi[a] == me->total[a] ? me->total[a] + b[i].ghost[a] + me->nodes : b[i].hi[a];
      lo[a] = from > first[a] ? from : first[a], hi[a] = to < first[a] + size[a] ? to : first[a] + size[a];
      osize[a] = b[i].hi[a] - b[i].lo[a] + 2 * b[i].ghost[a] + me->nodes;
      rlo[a] = b[i].lo[a] == 0 ? LONG_MIN : b[i].lo[a], rhi[a] = b[i].hi[a] == me->total[a] ? LONG_MAX : b[i].hi[a];
      empty |= lo[a] >= hi[a];
    }
    if (empty) continue;
    old = *c; /* the file's arrays at its sizes, found by name: rows may be padded differently on another rank count */
    for (a = 0; a < HD_CKPT_MAX_ARRAYS; ++a) old.arrays[a].data = NULL;
    old.narrays = -1;
    bad = hd_ckpt_read(b[i].file, &old, err, n) != 0;
    for (a = 0; a < narrays && !bad; ++a) {
      const hd_ckpt_array *o = named(&old, c->arrays[a].name);
      const int face = k->face ? k->face(c->arrays[a].name) : -1;
      const uint64_t rows = (uint64_t)size[1] * (uint64_t)size[2], orows = (uint64_t)osize[1] * (uint64_t)osize[2];
      size_t row, orow;
      if (kind[a] == HD_DRV_KEYS) continue;
      if (kind[a] == HD_DRV_LIST) {
        bad = copy_list(&b[i], &old, &c->arrays[a], &c->arrays[keyof[a]], keys[a], elem[a], rlo, rhi, found[a], err, n) != 0;
        continue;
      }
      if (face >= 0) {
        bad = copy_face(me, &b[i], face, &c->arrays[a], o, err, n) != 0;
        continue;
      }
      if (!o) {
        bad = snprintf(err, n, "restart: %s has no array '%s'", b[i].file, c->arrays[a].name);
        break;
      }
      if (kind[a] == HD_DRV_SAME) {
        if (o->bytes != c->arrays[a].bytes)
          bad = snprintf(err, n, "restart: %s: '%s' is not of this model's size", b[i].file, c->arrays[a].name);
        else if (!same[a]) memcpy(c->arrays[a].data, o->data, (size_t)o->bytes), same[a] = 1;
        continue;
      }
      row = (size_t)(c->arrays[a].bytes / rows), orow = (size_t)(o->bytes / orows);
      if (c->arrays[a].bytes % rows || o->bytes % orows) {
        bad = snprintf(err, n, "restart: %s: '%s' is not rows of this grid", b[i].file, c->arrays[a].name);
        break;
      }
      for (z = lo[2]; z < hi[2]; ++z) /* a row's values, then padding that belongs to no cell */
        for (y = lo[1]; y < hi[1]; ++y)
          memcpy((char *)c->arrays[a].data + ((size_t)(z - first[2]) * (size_t)size[1] + (size_t)(y - first[1])) * row,
                 (char *)o->data +
                     ((size_t)(z - b[i].lo[2] + b[i].ghost[2]) * (size_t)osize[1] + (size_t)(y - b[i].lo[1] + b[i].ghost[1])) * orow,
                 row < orow ? row : orow);
    }
    if (!bad && (!header || (b[i].lo[1] == 0 && b[i].lo[2] == 0))) { /* step, values, and (rank 0's) the series */
      c->step = old.step, c->time = old.time, c->dt = old.dt;
      c->nseries = old.nseries, c->nvalues = old.nvalues;
      memcpy(c->series, old.series, sizeof c->series), memcpy(c->values, old.values, sizeof c->values);
      header = 1;
    }
    for (a = 0; a < HD_CKPT_MAX_ARRAYS; ++a) free(old.arrays[a].data), old.arrays[a].data = NULL;
  }
  for (a = 0; a < narrays && !bad; ++a) { /* every entry of this block's lists found */
    const hd_ckpt_key *nk = kind[a] == HD_DRV_LIST ? (const hd_ckpt_key *)c->arrays[keyof[a]].data : NULL;
    uint64_t e, ne = nk ? c->arrays[keyof[a]].bytes / sizeof *nk : 0;
    for (e = 0; e < ne && !bad; ++e)
      if (nk[e].id >= 0 && !found[a][e])
        bad = snprintf(err, n, "restart: '%.900s' was written for another model: its saved '%s' state has nothing for a "
                       "cell this run needs (row y = %d, z = %d); restart with the input it was written with",
                       path, c->arrays[a].name, (int)nk[e].y, (int)nk[e].z);
  }
  for (a = 0; a < narrays && !bad; ++a)
    if (io(ctx, state, a, c->arrays[a].name, &c->arrays[a].bytes, c->arrays[a].data, 0) != HD_OK)
      bad = snprintf(err, n, "restart: %s", ctx->msg);
  for (a = 0; a < HD_CKPT_MAX_ARRAYS; ++a) free(found[a]);
  if (b) free_arrays(c);
  free(b);
  if (hd_par_any(bad)) { /* rank 0 says it; another rank too when its failure is its own */
    const int root_bad = hd_par_max_int(hd_par_rank() == 0 && bad);
    if (!bad) snprintf(err, n, "restart: another rank could not load its rows of '%.900s'", path);
    else if (hd_par_rank() != 0 && !root_bad) fprintf(stderr, "%s: error: rank %d: %s\n", c->driver, hd_par_rank(), err);
    return -1;
  }
  return 0;
}

/* Note `step` among this run's checkpoints and prune: rank 0 the files
 * or manifests of PREFIX, each rank its block's files. */
static void prune(hd_drv_ckpt *k, const char *prefix, long step, int replicated) {
  char mine[4096 + 64];
  if (k->nown == 0 || k->own[k->nown - 1] != step) k->own[k->nown++] = step;
  if (hd_par_rank() == 0) hd_ckpt_prune(prefix, k->keep, k->own, k->nown, k->upto);
  if (!replicated && hd_par_size() > 1) {
    rank_prefix(prefix, hd_par_rank(), hd_par_size(), mine, sizeof mine);
    hd_ckpt_prune(mine, k->keep, k->own, k->nown, k->upto);
  }
  if (k->nown > k->keep) memmove(k->own, k->own + 1, (size_t)--k->nown * sizeof *k->own); /* pruned just now */
}

int hd_drv_ckpt_point(const char *prog, hd_ctx *ctx, hd_drv_ckpt *k, hd_ckpt *c, long step, double dt, int more,
                      int replicated, void *state, int narrays, hd_state_io_fn io, const char *prefix, char *path,
                      size_t pn) {
  const int sig = hd_par_max_int(hd_signal_caught()), root = hd_par_rank() == 0;
  char err[1024] = "";
  int bad;
  /* time-based checkpoints fall due on different ranks at different steps */
  if (!hd_par_max_int(more && hd_drv_ckpt_due(k, step)) && !sig) return HD_DRV_GO_ON;
  c->step = step, c->time = step * dt, c->dt = dt;
  bad = publish_series(k, c, err, sizeof err) != 0; /* first: a series may be longer than its checkpoint, never shorter */
  if (hd_par_any(bad)) {
    if (!bad) snprintf(err, sizeof err, "checkpoint: rank 0 could not publish the time series");
    return hd_fail(ctx, HD_ERR_IO, "%s", err), HD_DRV_FAILED;
  }
  if (replicated) {
    bad = root && hd_drv_ckpt_save(ctx, c, state, narrays, io, prefix, path, pn, err, sizeof err);
    if (hd_par_any(bad) && !bad) snprintf(err, sizeof err, "checkpoint: rank 0 could not write it");
  } else {
    bad = save_ranks(ctx, c, state, narrays, io, prefix, k->rows.total[1] ? &k->rows : NULL, path, pn, err,
                     sizeof err) != 0;
  }
  if (bad || err[0]) return hd_fail(ctx, HD_ERR_IO, "%s", err), HD_DRV_FAILED;
  prune(k, prefix, step, replicated);
  if (!sig) return HD_DRV_GO_ON;
  return root ? hd_drv_signal_exit(prog, sig, path) : sig == SIGINT ? 130 : 0;
}

int hd_drv_signal_exit(const char *prog, int sig, const char *path) {
  const char *name = sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : "SIGUSR1";
  if (path && path[0])
    fprintf(stderr, "%s: %s: checkpoint %s written; continue with --restart=%s\n", prog, name, path, path);
  else
    fprintf(stderr, "%s: %s: stopped\n", prog, name);
  return sig == SIGINT ? 130 : 0;
}
