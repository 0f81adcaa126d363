/* SPDX-License-Identifier: BSD-3-Clause */
/* Small host facts and helpers the drivers share. */
#ifndef HD_DRV_SYS_H
#define HD_DRV_SYS_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Monotonic wall clock in seconds. */
double hd_wtime(void);

/* Host memory the system reports as available (bytes), 0 if unknown. */
size_t hd_host_mem_available(void);

/* This process's peak resident host memory so far (bytes), 0 if unknown. */
double hd_host_peak_bytes(void);

/* Check that `bytes` of working memory fit on the backend (device memory
 * for CUDA, available host memory otherwise).  Returns 0 if it fits;
 * otherwise writes a one-line reason into err. */
struct hd_ctx;
struct hd_core_ops;
int hd_check_memory(struct hd_ctx *ctx, const struct hd_core_ops *core, double bytes,
                    char *err, size_t n);

/* SIGTERM, SIGINT and SIGUSR1 only set a flag; long loops poll it and
 * stop cleanly (a final checkpoint, then exit). */
void hd_signals_install(void);
int hd_signal_caught(void); /* the signal number, or 0 */

/* Rate-limited progress on stderr. */
typedef struct hd_progress {
  double start, last, every;
  int tty;
} hd_progress;
void hd_progress_init(hd_progress *p, double every_seconds);
/* Report step of total if `every` seconds passed since the last report;
 * rate is in `unit` per second (e.g. "cell/s"). */
void hd_progress_step(hd_progress *p, const char *prog, long step, long total, double work_done,
                      const char *unit);
void hd_progress_end(hd_progress *p);

#ifdef __cplusplus
}
#endif

#endif
