/* SPDX-License-Identifier: BSD-3-Clause */
/* Ranks (decomp.h's hd_par_*): MPI's start, reductions, gathers and the
 * node map CUDA IPC needs; one rank without MPI. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "decomp.h"

#if defined(HD_HAVE_MPI)
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif
#endif

#if defined(HD_HAVE_MPI)
static int par_started;
static int par_ipc;   /* hd_par_ipc_setup's answer */
static int *par_node; /* every rank's node, named by its lowest world rank */

int hd_par_init(int *argc, char ***argv, char *err, size_t n) {
  int flag = 0, rank = 0;
  MPI_Initialized(&flag);
  if (!flag && MPI_Init(argc, argv) != MPI_SUCCESS) return snprintf(err, n, "MPI_Init failed"), -1;
  par_started = !flag;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}
void hd_par_finalize(void) {
  int done = 0;
  free(par_node);
  par_node = NULL;
  MPI_Finalized(&done);
  if (par_started && !done) MPI_Finalize();
}
int hd_par_running(void) {
  int up = 0, down = 0;
  MPI_Initialized(&up);
  if (up) MPI_Finalized(&down);
  return up && !down;
}
int hd_par_rank(void) {
  int r = 0;
  if (hd_par_running()) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int hd_par_size(void) {
  int s = 1;
  if (hd_par_running()) MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}
int hd_par_max_int(int v) {
  int m = v;
  if (hd_par_size() > 1) MPI_Allreduce(&v, &m, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return m;
}
void hd_par_abort(int status) {
  if (hd_par_size() > 1) MPI_Abort(MPI_COMM_WORLD, status);
}
const char *hd_par_describe(void) {
  static char s[MPI_MAX_LIBRARY_VERSION_STRING + 64];
  char lib[MPI_MAX_LIBRARY_VERSION_STRING], *nl;
  int len = 0;
  MPI_Get_library_version(lib, &len);
  if ((nl = strpbrk(lib, ",\n")) != NULL) *nl = '\0';
  snprintf(s, sizeof s, "MPI (%s), %d rank%s", lib, hd_par_size(), hd_par_size() == 1 ? "" : "s");
  return s;
}
int hd_par_local_rank(int *local_size) {
  MPI_Comm node;
  int r = 0, s = 1;
  if (hd_par_size() > 1 && MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
    MPI_Comm_rank(node, &r);
    MPI_Comm_size(node, &s);
    MPI_Comm_free(&node);
  }
  if (local_size) *local_size = s;
  return r;
}
int hd_par_cuda_aware(void) {
  const char *env = getenv("HD_MPI_CUDA_AWARE");
  if (env && (strcmp(env, "0") == 0 || strcmp(env, "1") == 0)) return env[0] == '1';
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return 0;
#endif
}
int hd_par_ipc_setup(const hd_core_ops *core, hd_ctx *ctx) {
  const char *env = getenv("HD_MPI_IPC");
  unsigned char handle[HD_IPC_BYTES];
  void *probe = NULL;
  int ok = hd_par_running() && hd_par_size() > 1 && core && core->ipc_export && !(env && strcmp(env, "0") == 0);
  if (ok) { /* can this device export memory at all? */
    ctx->ipc_sized = 1;
    ok = core->alloc(ctx, &probe, 256) == HD_OK && core->ipc_export(ctx, probe, handle) == HD_OK;
    core->free(ctx, probe);
    if (!ok) ctx->msg[0] = '\0'; /* not an error: halos go through MPI */
  }
  par_ipc = !hd_par_any(!ok);
  if (par_ipc && !par_node) {
    MPI_Comm node;
    int me = hd_par_rank(), first = me;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
      MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, node);
      MPI_Comm_free(&node);
    }
    par_node = (int *)malloc((size_t)hd_par_size() * sizeof(int));
    if (hd_par_any(!par_node) ||
        hd_par_any(MPI_Allgather(&first, 1, MPI_INT, par_node, 1, MPI_INT, MPI_COMM_WORLD) != MPI_SUCCESS)) {
      free(par_node);
      par_node = NULL;
      par_ipc = 0;
    }
  }
  ctx->ipc_sized = par_ipc; /* fields allocated from now on can be mapped whole */
  return par_ipc;
}
int hd_par_ipc_peer(int rank) { return par_ipc && par_node[rank] == par_node[hd_par_rank()]; }
#else
int hd_par_local_rank(int *local_size) {
  if (local_size) *local_size = 1;
  return 0;
}
int hd_par_cuda_aware(void) { return 0; }
int hd_par_ipc_setup(const hd_core_ops *core, hd_ctx *ctx) {
  (void)core, (void)ctx;
  return 0;
}
int hd_par_ipc_peer(int rank) {
  (void)rank;
  return 0;
}
int hd_par_running(void) { return 0; }
int hd_par_init(int *argc, char ***argv, char *err, size_t n) {
  (void)argc, (void)argv, (void)err, (void)n;
  return 0;
}
void hd_par_finalize(void) {}
int hd_par_rank(void) { return 0; }
int hd_par_size(void) { return 1; }
int hd_par_max_int(int v) { return v; }
void hd_par_abort(int status) { (void)status; }
const char *hd_par_describe(void) { return "no MPI"; }
#endif

int hd_par_any(int flag) { return hd_par_max_int(flag != 0); }

int hd_par_max_doubles(double *v, int n) {
#if defined(HD_HAVE_MPI)
  if (hd_par_size() > 1 && MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
    return -1;
#else
  (void)v, (void)n;
#endif
  return 0;
}

int hd_par_sum_to_root(double *buf, long n) {
#if defined(HD_HAVE_MPI)
  if (hd_par_size() == 1 || n == 0) return 0;
  if (n > 2147483647L) return -1;
  return MPI_Reduce(hd_par_rank() == 0 ? MPI_IN_PLACE : buf, buf, (int)n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD) ==
                 MPI_SUCCESS
             ? 0
             : -1;
#else
  (void)buf, (void)n;
  return 0;
#endif
}

void hd_par_block(long n, int rank, int size, long *lo, long *hi) {
  const long q = n / size, r = n % size;
  *lo = rank * q + (rank < r ? rank : r);
  *hi = *lo + q + (rank < r);
}

void hd_par_rebalance(const long *bounds, const double *cost, int size, double keep, long *out) {
  double total = 0.0;
  int r, q = 0;
  for (r = 0; r < size; ++r) total += cost[r] > 0.0 ? cost[r] : 0.0;
  out[0] = bounds[0], out[size] = bounds[size];
  for (r = 1; r < size; ++r) {
    const double want = total * r / size; /* the cost before boundary r */
    double before = 0.0, at;
    long b;
    q = 0;
    while (q < size - 1 && before + (cost[q] > 0.0 ? cost[q] : 0.0) < want) before += cost[q] > 0.0 ? cost[q] : 0.0, ++q;
    /* within block q the cost is taken as even over its items */
    at = cost[q] > 0.0 ? (want - before) / cost[q] : 0.5;
    b = total > 0.0 ? bounds[q] + (long)(at * (double)(bounds[q + 1] - bounds[q]) + 0.5) : bounds[r];
    b = (long)(keep * (double)bounds[r] + (1.0 - keep) * (double)b + 0.5);
    out[r] = b < out[r - 1] ? out[r - 1] : b > bounds[size] ? bounds[size] : b;
  }
}

#if defined(HD_HAVE_MPI)
typedef struct par_gather {
  int count;
  int *counts, *displs;
  MPI_Request req[1]; /* count of them */
} par_gather;
#endif

int hd_par_gather_start(void **handle, void *const *arr, int count, size_t elem, long n, const long *bounds, int part) {
#if defined(HD_HAVE_MPI)
  const int size = hd_par_size();
  par_gather *g;
  int r, k, rc = MPI_SUCCESS;
  *handle = NULL;
  if (size == 1) return 0;
  if ((double)n * (double)elem > 2147483647.0) return -1;
  g = (par_gather *)malloc(sizeof *g + (size_t)count * sizeof(MPI_Request));
  if (!g) return -1;
  g->counts = (int *)malloc(2 * (size_t)size * sizeof(int));
  if (!g->counts) {
    free(g);
    return -1;
  }
  g->displs = g->counts + size;
  for (r = 0; r < size; ++r) {
    long lo, hi;
    if (bounds) lo = bounds[r], hi = bounds[r + 1];
    else hd_par_block(n, r, size, &lo, &hi);
    if (part >= 0) hd_par_half(lo, hi, part, &lo, &hi);
    g->counts[r] = (int)((hi - lo) * (long)elem);
    g->displs[r] = (int)(lo * (long)elem);
  }
  for (k = 0; k < count; ++k)
    rc |= MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_BYTE, arr[k], g->counts, g->displs, MPI_BYTE, MPI_COMM_WORLD, &g->req[k]);
  g->count = count;
  *handle = g;
  if (rc != MPI_SUCCESS) {
    hd_par_gather_wait(g);
    *handle = NULL;
    return -1;
  }
  return 0;
#else
  (void)arr, (void)count, (void)elem, (void)n, (void)bounds, (void)part;
  *handle = NULL;
  return 0;
#endif
}

int hd_par_gather_wait(void *handle) {
#if defined(HD_HAVE_MPI)
  par_gather *g = (par_gather *)handle;
  int rc;
  if (!g) return 0;
  rc = MPI_Waitall(g->count, g->req, MPI_STATUSES_IGNORE);
  free(g->counts);
  free(g);
  return rc == MPI_SUCCESS ? 0 : -1;
#else
  (void)handle;
  return 0;
#endif
}

int hd_par_allgather(void *arr, size_t elem, long n) {
  void *h;
  return hd_par_gather_start(&h, &arr, 1, elem, n, NULL, -1) ? -1 : hd_par_gather_wait(h);
}

int hd_par_allgather_items(void *arr, size_t elem, long lo, long hi) {
#if defined(HD_HAVE_MPI)
  const int size = hd_par_size();
  long mine[2], *all;
  int *c, r, rc = MPI_SUCCESS;
  if (size == 1) return 0;
  mine[0] = lo, mine[1] = hi;
  all = (long *)malloc(2 * (size_t)size * sizeof(long));
  c = (int *)malloc(2 * (size_t)size * sizeof(int));
  if (all && c) rc = MPI_Allgather(mine, 2, MPI_LONG, all, 2, MPI_LONG, MPI_COMM_WORLD);
  for (r = 0; all && c && rc == MPI_SUCCESS && r < size; ++r) {
    if ((double)all[2 * r + 1] * (double)elem > 2147483647.0) rc = MPI_ERR_COUNT;
    c[r] = (int)((all[2 * r + 1] - all[2 * r]) * (long)elem), c[size + r] = (int)(all[2 * r] * (long)elem);
  }
  if (all && c && rc == MPI_SUCCESS)
    rc = MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_BYTE, arr, c, c + size, MPI_BYTE, MPI_COMM_WORLD);
  rc = all && c && rc == MPI_SUCCESS ? 0 : -1;
  free(all), free(c);
  return rc;
#else
  (void)arr, (void)elem, (void)lo, (void)hi;
  return 0;
#endif
}

int hd_par_alltoall(const void *send, void *recv, size_t elem, const long *counts) {
#if defined(HD_HAVE_MPI)
  const int size = hd_par_size();
  MPI_Datatype t;
  int *c, r, rc;
  long at = 0;
  if (size == 1) {
    memcpy(recv, send, (size_t)counts[0] * elem);
    return 0;
  }
  if (!(c = (int *)malloc(2 * (size_t)size * sizeof(int)))) return -1;
  for (r = 0; r < size; ++r) {
    if (counts[r] > 2147483647L || at > 2147483647L) {
      free(c);
      return -1;
    }
    c[r] = (int)counts[r], c[size + r] = (int)at;
    at += counts[r];
  }
  rc = MPI_Type_contiguous((int)elem, MPI_BYTE, &t);
  if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&t);
  if (rc == MPI_SUCCESS) {
    rc = MPI_Alltoallv(send, c, c + size, t, recv, c, c + size, t, MPI_COMM_WORLD);
    MPI_Type_free(&t);
  }
  free(c);
  return rc == MPI_SUCCESS ? 0 : -1;
#else
  memcpy(recv, send, (size_t)counts[0] * elem);
  return 0;
#endif
}

