/* SPDX-License-Identifier: BSD-3-Clause */
#include "backend.h"

#include <stdio.h>
#include <string.h>

static const char *const names[HD_B_COUNT] = {"serial", "openmp", "cuda"};

const hd_core_ops *hd_core_get(int id) {
  switch (id) {
    case HD_B_SERIAL: return &hd_core_serial;
#if defined(HD_HAVE_OPENMP)
    case HD_B_OPENMP: return &hd_core_openmp;
#endif
#if defined(HD_HAVE_CUDA)
    case HD_B_CUDA: return &hd_core_cuda;
#endif
    default: return NULL;
  }
}

const char *hd_backend_name(int id) {
  return id >= 0 && id < HD_B_COUNT ? names[id] : "unknown";
}

int hd_backend_parse(const char *name) {
  int i;
  for (i = 0; i < HD_B_COUNT; ++i)
    if (!strcmp(name, names[i])) return i;
  return -1;
}

const char *hd_backends_built(void) {
  return "serial"
#if defined(HD_HAVE_OPENMP)
         " openmp"
#endif
#if defined(HD_HAVE_CUDA)
         " cuda"
#endif
      ;
}

hd_status hd_backend_open(int want, int device, hd_ctx *ctx, const hd_core_ops **core,
                          char *why, size_t n) {
  int id;
  if (why && n) why[0] = '\0';
  if (want >= 0) {
    *core = hd_core_get(want);
    if (!*core) {
      memset(ctx, 0, sizeof *ctx);
      return hd_fail(ctx, HD_ERR_UNSUPPORTED,
                     "backend '%s' is not in this build (built: %s)", hd_backend_name(want),
                     hd_backends_built());
    }
    return (*core)->init(ctx, device);
  }
  for (id = HD_B_COUNT - 1; id >= 0; --id) {
    const hd_core_ops *c = hd_core_get(id);
    if (!c) continue;
    if (c->init(ctx, device) == HD_OK) {
      *core = c;
      return HD_OK;
    }
    if (why && n) { /* said after the backend taken: "cuda unavailable (no CUDA device available ...)" */
      const size_t len = strlen(why);
      snprintf(why + len, n - len, "%s%s unavailable (%s)", len ? "; " : "", c->name, ctx->msg);
    }
  }
  return hd_fail(ctx, HD_ERR_DEVICE, "no backend could be initialised");
}
