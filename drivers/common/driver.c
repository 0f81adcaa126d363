#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "driver.h"

#include <stdio.h>
#include <string.h>

#include "sys.h"

void hd_drv_common_defaults(hd_drv_common *c, const char *output) {
  memset(c, 0, sizeof *c);
  c->progress = 5.0;
  snprintf(c->output, sizeof c->output, "%s", output);
}

int hd_drv_usage_error(const char *prog, const char *msg) {
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
