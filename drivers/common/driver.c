#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "driver.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "decomp.h"

#include "sys.h"

void hd_drv_common_defaults(hd_drv_common *c, const char *output) {
  memset(c, 0, sizeof *c);
  c->progress = 5.0;
  snprintf(c->output, sizeof c->output, "%s", output);
}

int hd_drv_usage_error(const char *prog, const char *msg) {
  if (hd_par_rank() == 0) /* every rank of a distributed run reaches it */
    fprintf(stderr, "%s: error: %s\n", prog, msg);
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
  if (hd_backend_open(c->backend - 1, (int)c->device, ctx, core, why, n) != HD_OK) {
    fprintf(stderr, "%s: error: %s\n", prog, ctx->msg);
    return c->backend == 0 ? 1 : 2;
  }
  ctx->threads = (int)c->threads;
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

/* ---- checkpoints ------------------------------------------------------------ */

int hd_drv_ckpt_init(hd_drv_ckpt *k, const hd_drv_common *c, char *err, size_t n) {
  const char *s = c->ckpt_every;
  char *end;
  memset(k, 0, sizeof *k);
  k->keep = c->ckpt_keep > 0 ? (int)c->ckpt_keep : 3;
  k->last = hd_wtime();
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
                     int keep, char *path, size_t pn, char *err, size_t n) {
  int k, rc;
  if (prepare(ctx, c, state, narrays, io, err, n)) return -1;
  for (k = 0; k < narrays; ++k)
    if (io(ctx, state, k, c->arrays[k].name, &c->arrays[k].bytes, c->arrays[k].data, 1) != HD_OK) {
      snprintf(err, n, "checkpoint: %s", ctx->msg);
      free_arrays(c);
      return -1;
    }
  rc = hd_ckpt_write(c, prefix, keep, path, pn, err, n);
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

int hd_drv_signal_exit(const char *prog, int sig, const char *path) {
  const char *name = sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : "SIGUSR1";
  if (path && path[0])
    fprintf(stderr, "%s: %s: checkpoint %s written; continue with --restart=%s\n", prog, name, path, path);
  else
    fprintf(stderr, "%s: %s: stopped\n", prog, name);
  return sig == SIGINT ? 130 : 0;
}
