/* SPDX-License-Identifier: BSD-3-Clause */
#include "sys.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"

double hd_wtime(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* What the process may still map under its limits (ulimit -v, -d), or 0
 * when it has none. */
static size_t limit_left(void) {
  struct rlimit l;
  unsigned long long pages = 0, left = 0;
  const long page = sysconf(_SC_PAGESIZE);
  FILE *f = fopen("/proc/self/statm", "r");
  const int got = f && fscanf(f, "%llu", &pages) == 1;
  int k;
  if (f) fclose(f);
  for (k = 0; k < 2; ++k) {
    unsigned long long cap, used = got && page > 0 ? pages * (unsigned long long)page : 0;
    if (getrlimit(k ? RLIMIT_DATA : RLIMIT_AS, &l) != 0 || l.rlim_cur == RLIM_INFINITY) continue;
    cap = (unsigned long long)l.rlim_cur;
    cap = cap > used ? cap - used : 1;
    if (!left || cap < left) left = cap;
  }
  return (size_t)left;
}

size_t hd_host_mem_available(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  char line[256];
  unsigned long long kb = 0;
  const size_t limit = limit_left();
  if (f) {
    while (fgets(line, sizeof line, f))
      if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
    fclose(f);
  }
  if (kb) return limit && limit < kb * 1024ULL ? limit : (size_t)(kb * 1024ULL);
  if (limit) return limit;
#if defined(_SC_AVPHYS_PAGES) && defined(_SC_PAGESIZE)
  {
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages > 0 && size > 0) return (size_t)pages * (size_t)size;
  }
#endif
  return 0;
}

double hd_host_peak_bytes(void) {
  struct rusage u;
  return getrusage(RUSAGE_SELF, &u) == 0 ? 1024.0 * (double)u.ru_maxrss : 0.0; /* Linux: kilobytes */
}

int hd_check_memory(hd_ctx *ctx, const hd_core_ops *core, double bytes, char *err, size_t n) {
  size_t freeb = 0, total = 0;
  if (core->id == HD_B_CUDA && core->mem_info(ctx, &freeb, &total) == HD_OK) {
    if (bytes > (double)freeb) {
      snprintf(err, n, "needs %.3g GB of GPU memory, %.3g GB free of %.3g GB", bytes / 1e9,
               freeb / 1e9, total / 1e9);
      return -1;
    }
    return 0;
  }
  freeb = hd_host_mem_available();
  if (freeb && bytes > (double)freeb) {
    snprintf(err, n, "needs %.3g GB of memory, %.3g GB available", bytes / 1e9, freeb / 1e9);
    return -1;
  }
  return 0;
}

void hd_progress_init(hd_progress *p, double every) {
  p->start = p->last = hd_wtime();
  p->every = every;
  p->tty = isatty(2);
}

void hd_progress_step(hd_progress *p, const char *prog, long step, long total, double work,
                      const char *unit) {
  double now = hd_wtime(), el;
  if (p->every <= 0 || now - p->last < p->every) return;
  p->last = now;
  el = now - p->start;
  fprintf(stderr, "%s%s: step %ld/%ld (%.0f%%), %.3g %s, ETA %.0f s%s", p->tty ? "\r" : "",
          prog, step, total, 100.0 * step / (total > 0 ? total : 1), el > 0 ? work / el : 0.0,
          unit, step > 0 ? el * (double)(total - step) / step : 0.0, p->tty ? "   " : "\n");
  fflush(stderr);
}

void hd_progress_end(hd_progress *p) {
  if (p->tty && p->every > 0 && p->last > p->start) fputc('\n', stderr);
}

static volatile sig_atomic_t caught;

static void on_signal(int sig) { caught = sig; }

void hd_signals_install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGUSR1, &sa, NULL);
}

int hd_signal_caught(void) { return (int)caught; }
