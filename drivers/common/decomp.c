/* SPDX-License-Identifier: BSD-3-Clause */
/* Grid decomposition and halo exchange (decomp.h); the ranks are par.c's. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <hd/memory.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "decomp.h"
#include "xsum.h"
#if defined(HD_HAVE_MPI)
#include <mpi.h>
#endif

/* ---- decomposition ---------------------------------------------------------- */

static void block_of(const hd_decomp *d, const int coords[3], long ln[3], long off[3]) {
  int a;
  for (a = 0; a < 3; ++a) {
    const long q = d->gn[a] / d->dims[a], r = d->gn[a] % d->dims[a];
    ln[a] = q + (coords[a] < r);
    off[a] = coords[a] * q + (coords[a] < r ? coords[a] : r);
  }
}

int hd_decomp_create(hd_decomp *d, int dim, const long gn[3], int keep, int wrap, char *err, size_t n) {
  static const char axis[3] = {'x', 'y', 'z'};
  int a;
  memset(d, 0, sizeof *d);
  d->dim = dim;
  d->rank = hd_par_rank();
  d->size = hd_par_size();
  for (a = 0; a < 3; ++a) {
    d->gn[a] = a < dim ? gn[a] : 1;
    d->dims[a] = 1;
  }
  for (a = 0; a < 6; ++a) d->nbr[a] = -1;
#if defined(HD_HAVE_MPI)
  {
    int md[3] = {1, 0, 0}, periods[3] = {0, 0, 0}, c[3] = {0, 0, 0}, free_axes = 0;
    MPI_Comm *cart;
    if (!hd_par_running()) goto single;
    for (a = 1; a < dim; ++a) {
      if (keep & (1 << a)) md[a] = 1;
      else ++free_axes;
      periods[a] = (wrap >> a) & 1;
    }
    if (!free_axes && d->size > 1)
      return snprintf(err, n, "no axis of this grid can be split over %d ranks (x is never split%s)", d->size,
                      keep ? "; the others must stay whole here" : ""), -1;
    if (!(cart = (MPI_Comm *)malloc(sizeof *cart))) return snprintf(err, n, "out of host memory"), -1;
    MPI_Dims_create(d->size, dim, md);
    if (MPI_Cart_create(MPI_COMM_WORLD, dim, md, periods, 0, cart) != MPI_SUCCESS) {
      free(cart);
      return snprintf(err, n, "MPI_Cart_create failed"), -1;
    }
    MPI_Cart_coords(*cart, d->rank, dim, c);
    for (a = 0; a < dim; ++a) {
      int lo, hi;
      d->dims[a] = md[a];
      d->coords[a] = c[a];
      MPI_Cart_shift(*cart, a, 1, &lo, &hi);
      d->nbr[2 * a] = lo == MPI_PROC_NULL ? -1 : lo;
      d->nbr[2 * a + 1] = hi == MPI_PROC_NULL ? -1 : hi;
    }
    d->comm = cart;
  }
single:
#else
  (void)keep, (void)wrap;
#endif
  for (a = 0; a < dim; ++a)
    if (d->gn[a] < d->dims[a]) {
      snprintf(err, n, "%ld cells along %c cannot be shared by %d ranks along that axis (%d ranks in all)",
               d->gn[a], axis[a], d->dims[a], d->size);
      hd_decomp_destroy(d);
      return -1;
    }
  block_of(d, d->coords, d->ln, d->off);
  return 0;
}

static void stage_free(hd_decomp *d) {
  if (d->stage_kind == 2) d->core->free(d->ctx, d->stage);
  else if (d->stage_kind == 1) d->core->pinned_free(d->ctx, d->stage);
  else free(d->stage);
  d->stage = NULL;
  d->stage_bytes = 0;
}

/* Neighbours' allocations mapped by CUDA IPC, looked up by (rank, handle). */
#define IPC_MAPS 64
typedef struct ipc_map {
  int rank;
  unsigned char handle[HD_IPC_BYTES];
  void *base;
} ipc_map;

static void ipc_unmap(hd_decomp *d) {
  ipc_map *m = (ipc_map *)d->maps;
  int k;
  if (d->nmaps) d->core->sync(d->ctx); /* copies from them may be queued */
  for (k = 0; k < d->nmaps; ++k) d->core->ipc_close(d->ctx, m[k].base);
  d->nmaps = 0;
}

static void ipc_flags_free(hd_decomp *d) {
  if (d->flags) d->core->sync(d->ctx), d->core->free(d->ctx, d->flags);
  d->flags = NULL;
  memset(d->seq, 0, sizeof d->seq);
}

void hd_decomp_destroy(hd_decomp *d) {
  free(d->notes);
  d->notes = NULL, d->nnotes = 0;
  stage_free(d);
  ipc_unmap(d);
  ipc_flags_free(d);
  free(d->maps);
  d->maps = NULL;
#if defined(HD_HAVE_MPI)
  if (d->comm) {
    MPI_Comm_free((MPI_Comm *)d->comm);
    free(d->comm);
  }
#endif
  d->comm = NULL;
}

void hd_decomp_block(const hd_decomp *d, int rank, long ln[3], long off[3]) {
  int c[3] = {0, 0, 0};
#if defined(HD_HAVE_MPI)
  if (d->comm) MPI_Cart_coords(*(MPI_Comm *)d->comm, rank, d->dim, c);
#else
  (void)rank;
#endif
  block_of(d, c, ln, off);
}

int hd_decomp_owns_face(const hd_decomp *d, int f) { return d->nbr[f] < 0; }

void hd_decomp_use_backend(hd_decomp *d, const struct hd_core_ops *core, struct hd_ctx *ctx) {
  int f;
  stage_free(d);
  ipc_unmap(d);
  ipc_flags_free(d);
  d->core = core;
  d->ctx = ctx;
  /* backend memory where MPI reads device memory (on the CPU backends it is
     host memory, so this path runs in CPU tests too) */
  d->stage_kind = !core ? 0 : hd_par_cuda_aware() ? 2 : 1;
  for (f = 0; f < 6; ++f) {
    d->ipc[f] = 0;
#if defined(HD_HAVE_MPI)
    if (core && d->comm && d->nbr[f] >= 0) /* Cartesian ranks are world ranks (no reordering) */
      d->ipc[f] = hd_par_ipc_peer(d->nbr[f]);
#endif
  }
}

/* ---- halo exchange ------------------------------------------------------------ */

#if defined(HD_HAVE_MPI)
/* Strided copy between host buffers (fields in host memory). */
static hd_status host_copy_2d(hd_ctx *ctx, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                              size_t rows, int kind) {
  size_t r;
  (void)ctx, (void)kind;
  for (r = 0; r < rows; ++r) memcpy((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
  return HD_OK;
}
#endif

#if defined(HD_HAVE_MPI)
/* What a rank tells a neighbour on its node so that the neighbour can read
 * the planes itself: its allocation, where the planes for the low and the
 * high neighbour start in it, and the plane's shape (width and rows must
 * match; the pitch is the sender's). */
typedef struct ipc_note {
  unsigned char handle[HD_DECOMP_FIELDS][HD_IPC_BYTES]; /* each field's allocation */
  unsigned char flags[HD_IPC_BYTES];                    /* the sender's flags */
  unsigned long long at[2], pitch, width, rows;
} ipc_note;

/* A rank's flags: for each axis and side (0: written by the low neighbour,
 * 1: by the high one) the sequence number of the last exchange whose planes
 * that neighbour has made final (ready) and has read (read). */
enum { IPC_READY = 0, IPC_READ = 1 };
#define IPC_FLAG(base, axis, side, kind) ((unsigned long long *)(base) + ((axis) * 2 + (side)) * 2 + (kind))

static int ipc_flags_open(hd_decomp *d, char *err, size_t n) {
  static const unsigned long long zero[12];
  const int sized = d->ctx->ipc_sized;
  hd_status s;
  if (d->flags) return 0;
  d->ctx->ipc_sized = 1; /* exported whole */
  s = d->core->alloc(d->ctx, &d->flags, sizeof zero);
  d->ctx->ipc_sized = sized;
  if (s == HD_OK) s = d->core->upload(d->ctx, d->flags, zero, sizeof zero);
  if (s != HD_OK) return snprintf(err, n, "halo flags: %s", d->ctx->msg), -1;
  return 0;
}

/* The neighbour's allocation mapped here (mapped once, then looked up). */
static char *ipc_base(hd_decomp *d, int rank, const unsigned char *handle, char *err, size_t n) {
  ipc_map *m;
  int k;
  if (!d->maps && !(d->maps = calloc(IPC_MAPS, sizeof *m))) return snprintf(err, n, "out of host memory"), NULL;
  m = (ipc_map *)d->maps;
  for (k = 0; k < d->nmaps; ++k)
    if (m[k].rank == rank && !memcmp(m[k].handle, handle, HD_IPC_BYTES)) return (char *)m[k].base;
  if (d->nmaps == IPC_MAPS) ipc_unmap(d); /* more fields than expected: start again */
  k = d->nmaps;
  if (d->core->ipc_open(d->ctx, handle, &m[k].base) != HD_OK)
    return snprintf(err, n, "cannot map rank %d's field by CUDA IPC (%s); HD_MPI_IPC=0 sends halos through MPI",
                    rank, d->ctx->msg),
           NULL;
  m[k].rank = rank;
  memcpy(m[k].handle, handle, HD_IPC_BYTES);
  ++d->nmaps;
  return (char *)m[k].base;
}

/* Notes kept for exchanges seen before (fields_fixed), by what identifies
 * an exchange on this rank; a full table keeps no more (on every rank alike). */
#define IPC_NOTES 128
typedef struct ipc_kept {
  void *alloc[HD_DECOMP_FIELDS];
  long lead, at[4];
  size_t pitch, width, rows;
  int axis, count;
  ipc_note theirs[2];
} ipc_kept;

static ipc_kept ipc_key(int count, void *const *alloc, long lead, const long at[4], size_t pitch, size_t width,
                        size_t rows, int axis) {
  ipc_kept k;
  int f;
  memset(&k, 0, sizeof k);
  for (f = 0; f < count; ++f) k.alloc[f] = alloc[f];
  for (f = 0; f < 4; ++f) k.at[f] = at[f];
  k.lead = lead, k.pitch = pitch, k.width = width, k.rows = rows, k.axis = axis, k.count = count;
  return k;
}

static ipc_kept *ipc_kept_find(hd_decomp *d, const ipc_kept *key) {
  ipc_kept *t = (ipc_kept *)d->notes;
  int k;
  for (k = 0; k < d->nnotes; ++k)
    if (!memcmp(&t[k], key, offsetof(ipc_kept, theirs))) return &t[k];
  return NULL;
}

static void ipc_kept_add(hd_decomp *d, ipc_kept *key, const ipc_note theirs[2]) {
  if (!d->notes && !(d->notes = calloc(IPC_NOTES, sizeof *key))) d->nnotes = IPC_NOTES; /* none kept */
  if (d->nnotes == IPC_NOTES) return;
  memcpy(key->theirs, theirs, 2 * sizeof *theirs);
  ((ipc_kept *)d->notes)[d->nnotes++] = *key;
}

/* The neighbours on this node (ipc[side]): on the stream, tell them this
 * rank's planes are final, wait for theirs, copy them into the ghosts at
 * ghost[side] of each field, tell them so and wait until they have read this
 * rank's; the host waits for nothing. */
static int ipc_exchange(hd_decomp *d, int axis, const int ipc[2], const int nbr[2], int count, char *const *ghost[2],
                        size_t pitch, size_t width, size_t rows, const ipc_note theirs[2], char *err, size_t n) {
  const unsigned long long seq = ++d->seq[axis];
  unsigned long long *peer[2][2] = {{NULL, NULL}, {NULL, NULL}}; /* [side][kind]: in the neighbours' flags */
  unsigned long long *own[2][2] = {{NULL, NULL}, {NULL, NULL}};
  char *base[2][HD_DECOMP_FIELDS];
  int b, f, ok;
  for (b = 0; b < 2; ++b) {
    char *fl;
    if (!ipc[b]) continue;
    if (theirs[b].width != width || theirs[b].rows != rows) /* the pitch follows each block's own extent */
      return snprintf(err, n, "rank %d's halo plane has another shape than this rank's", nbr[b]), -1;
    for (f = 0; f < count; ++f)
      if (!(base[b][f] = ipc_base(d, nbr[b], theirs[b].handle[f], err, n))) return -1;
    if (!(fl = ipc_base(d, nbr[b], theirs[b].flags, err, n))) return -1;
    peer[b][IPC_READY] = IPC_FLAG(fl, axis, 1 - b, IPC_READY), peer[b][IPC_READ] = IPC_FLAG(fl, axis, 1 - b, IPC_READ);
    own[b][IPC_READY] = IPC_FLAG(d->flags, axis, b, IPC_READY), own[b][IPC_READ] = IPC_FLAG(d->flags, axis, b, IPC_READ);
  }
  if (d->core->swap && (size_t)(ipc[0] + ipc[1]) * (size_t)count * width * rows <= HD_DEV_SWAP_BYTES) {
    hd_dev_swap s; /* small planes (multigrid's coarse levels): one launch, not five */
    memset(&s, 0, sizeof s);
    s.seq = seq;
    for (b = 0; b < 2; ++b) {
      s.peer_ready[b] = peer[b][IPC_READY], s.peer_read[b] = peer[b][IPC_READ];
      s.own_ready[b] = own[b][IPC_READY], s.own_read[b] = own[b][IPC_READ];
      for (f = 0; f < count && ipc[b]; ++f, ++s.copies) {
        s.dst[s.copies] = ghost[b][f], s.dpitch[s.copies] = pitch, s.width[s.copies] = width, s.rows[s.copies] = rows;
        s.src[s.copies] = base[b][f] + theirs[b].at[1 - b], s.spitch[s.copies] = (size_t)theirs[b].pitch;
      }
    }
    if (d->core->swap(d->ctx, &s) != HD_OK) return snprintf(err, n, "halo exchange by CUDA IPC failed: %s", d->ctx->msg), -1;
    return 0;
  }
  ok = d->core->signal(d->ctx, peer[0][IPC_READY], peer[1][IPC_READY], seq) == HD_OK &&
       d->core->wait(d->ctx, own[0][IPC_READY], own[1][IPC_READY], seq) == HD_OK;
  for (b = 0; b < 2 && ok; ++b) /* lo's plane for its high side, hi's for its low side */
    for (f = 0; f < count && ok && ipc[b]; ++f)
      ok = d->core->copy_2d_queued(d->ctx, ghost[b][f], pitch, base[b][f] + theirs[b].at[1 - b], (size_t)theirs[b].pitch,
                                   width, rows) == HD_OK;
  ok = ok && d->core->signal(d->ctx, peer[0][IPC_READ], peer[1][IPC_READ], seq) == HD_OK &&
       d->core->wait(d->ctx, own[0][IPC_READ], own[1][IPC_READ], seq) == HD_OK;
  if (!ok) return snprintf(err, n, "halo exchange by CUDA IPC failed: %s", d->ctx->msg), -1;
  return 0;
}
#endif

/* The exchange of `count` fields of one shape, each with its ghost corner
 * `lead` elements into its allocation (CUDA IPC maps whole allocations). */
static int exchange_at(hd_decomp *d, int count, void *const *alloc, long lead, size_t real_size, const long size[3],
                       int axis, const long at[4], int depth, char *err, size_t n) {
#if defined(HD_HAVE_MPI)
  /* `depth` planes normal to `axis` from an index: `rows` runs of `width`
     bytes, `pitch` apart (consecutive planes are contiguous within a run) */
  const size_t stride = (size_t)(axis == 1 ? size[0] : size[0] * size[1]) * real_size; /* one plane index to the next */
  const size_t width = stride * (size_t)depth, rows = (size_t)(axis == 1 ? size[2] : 1);
  const size_t pitch = axis == 1 ? (size_t)(size[0] * size[1]) * real_size : width, plane = width * rows;
  const size_t msg = plane * (size_t)count; /* one message: every field's plane */
  hd_status (*copy)(hd_ctx *, void *, size_t, const void *, size_t, size_t, size_t, int) =
      d->core ? d->core->copy_2d : host_copy_2d;
  const int nbr[2] = {d->nbr[2 * axis], d->nbr[2 * axis + 1]};
  /* neighbours on this node: planes read from their memory (CUDA IPC) */
  const int ipc[2] = {nbr[0] >= 0 && d->ipc[2 * axis], nbr[1] >= 0 && d->ipc[2 * axis + 1]};
  const int mpi[2] = {nbr[0] >= 0 && !ipc[0], nbr[1] >= 0 && !ipc[1]};
  const int on_dev = d->stage_kind == 2;
  char *p[HD_DECOMP_FIELDS], *ghost[2][HD_DECOMP_FIELDS], *const *gh[2] = {ghost[0], ghost[1]}, *buf = NULL;
  ipc_note mine, theirs[2];
  ipc_kept key, *kept = NULL;
  MPI_Comm comm;
  MPI_Request req[4];
  int rc = MPI_SUCCESS, ok = 1, b, f, nr = 0;
  if (!d->comm || d->size == 1 || d->dims[axis] == 1) return 0;
  if (count < 1 || count > HD_DECOMP_FIELDS) return snprintf(err, n, "halo exchange of %d fields at once", count), -1;
  comm = *(MPI_Comm *)d->comm;
  if (msg > 2147483647u) return snprintf(err, n, "a halo plane is too large for one MPI message"), -1;
  for (f = 0; f < count; ++f) {
    p[f] = (char *)alloc[f] + (size_t)lead * real_size;
    ghost[0][f] = p[f] + (size_t)at[2] * stride, ghost[1][f] = p[f] + (size_t)at[3] * stride;
  }
  if ((mpi[0] || mpi[1]) && d->stage_bytes < 4 * msg) { /* kept for the next exchanges */
    stage_free(d);
    if (d->stage_kind == 0) ok = (d->stage = malloc(4 * msg)) != NULL;
    else ok = (d->stage_kind == 2 ? d->core->alloc : d->core->pinned_alloc)(d->ctx, &d->stage, 4 * msg) == HD_OK;
    if (!ok) return snprintf(err, n, "out of memory for the halo buffers (%.3g MB)", 4.0 * msg / 1e6), -1;
    d->stage_bytes = 4 * msg;
  }
  buf = (char *)d->stage;
  memset(theirs, 0, sizeof theirs);
  if ((ipc[0] || ipc[1]) && d->fields_fixed) {
    key = ipc_key(count, alloc, lead, at, pitch, width, rows, axis);
    if ((kept = ipc_kept_find(d, &key)) != NULL) memcpy(theirs, kept->theirs, sizeof theirs);
  }
  if ((ipc[0] || ipc[1]) && !kept) {
    memset(&mine, 0, sizeof mine);
    if (ipc_flags_open(d, err, n)) return -1;
    for (f = 0; f < count && ok; ++f) ok = d->core->ipc_export(d->ctx, alloc[f], mine.handle[f]) == HD_OK;
    ok = ok && d->core->ipc_export(d->ctx, d->flags, mine.flags) == HD_OK;
    mine.at[0] = (unsigned long long)at[0] * stride + (unsigned long long)lead * real_size;
    mine.at[1] = (unsigned long long)at[1] * stride + (unsigned long long)lead * real_size;
    mine.pitch = pitch, mine.width = width, mine.rows = rows;
  }
  /* pack the planes at[0] (to lo) and at[1] (to hi) for the neighbours MPI serves */
  for (b = 0; b < 2 && ok; ++b)
    for (f = 0; f < count && ok && mpi[b]; ++f)
      ok = copy(d->ctx, buf + b * msg + f * plane, width, p[f] + (size_t)at[b] * stride, pitch, width, rows,
                on_dev ? HD_COPY_ON_DEVICE : HD_COPY_TO_HOST) == HD_OK;
  if (!ok) return snprintf(err, n, "halo copy failed: %s", d->ctx ? d->ctx->msg : "?"), -1;
  /* both directions at once; tags tell them apart when lo == hi */
  if (mpi[0]) {
    rc |= MPI_Irecv(buf + 2 * msg, (int)msg, MPI_BYTE, nbr[0], 10 + axis, comm, &req[nr++]);
    rc |= MPI_Isend(buf, (int)msg, MPI_BYTE, nbr[0], 20 + axis, comm, &req[nr++]);
  } else if (ipc[0] && !kept) {
    rc |= MPI_Irecv(&theirs[0], (int)sizeof mine, MPI_BYTE, nbr[0], 30 + axis, comm, &req[nr++]);
    rc |= MPI_Isend(&mine, (int)sizeof mine, MPI_BYTE, nbr[0], 40 + axis, comm, &req[nr++]);
  }
  if (mpi[1]) {
    rc |= MPI_Irecv(buf + 3 * msg, (int)msg, MPI_BYTE, nbr[1], 20 + axis, comm, &req[nr++]);
    rc |= MPI_Isend(buf + msg, (int)msg, MPI_BYTE, nbr[1], 10 + axis, comm, &req[nr++]);
  } else if (ipc[1] && !kept) {
    rc |= MPI_Irecv(&theirs[1], (int)sizeof mine, MPI_BYTE, nbr[1], 40 + axis, comm, &req[nr++]);
    rc |= MPI_Isend(&mine, (int)sizeof mine, MPI_BYTE, nbr[1], 30 + axis, comm, &req[nr++]);
  }
  if (rc == MPI_SUCCESS) rc = MPI_Waitall(nr, req, MPI_STATUSES_IGNORE);
  if (rc != MPI_SUCCESS) return snprintf(err, n, "halo exchange along axis %d failed", axis), -1;
  if ((ipc[0] || ipc[1]) && d->fields_fixed && !kept) ipc_kept_add(d, &key, theirs);
  if ((ipc[0] || ipc[1]) && ipc_exchange(d, axis, ipc, nbr, count, gh, pitch, width, rows, theirs, err, n)) return -1;
  /* what MPI brought: from lo into at[2], from hi into at[3] */
  for (b = 0; b < 2 && ok; ++b)
    for (f = 0; f < count && ok && mpi[b]; ++f)
      ok = copy(d->ctx, ghost[b][f], pitch, buf + (2 + b) * msg + f * plane, width, width, rows,
                on_dev ? HD_COPY_ON_DEVICE : HD_COPY_TO_DEVICE) == HD_OK;
  if (!ok) return snprintf(err, n, "halo copy failed: %s", d->ctx ? d->ctx->msg : "?"), -1;
  return 0;
#else
  (void)d, (void)count, (void)alloc, (void)lead, (void)real_size, (void)size, (void)axis, (void)at, (void)depth;
  (void)err, (void)n;
  return 0;
#endif
}

int hd_decomp_exchange_slab(hd_decomp *d, void *field, size_t real_size, const long size[3], int axis,
                            const long at[4], int depth, char *err, size_t n) {
  return exchange_at(d, 1, &field, 0, real_size, size, axis, at, depth, err, n);
}

int hd_decomp_exchange(hd_decomp *d, void *field, size_t real_size, const long size[3], int axis,
                       const long at[4], char *err, size_t n) {
  return exchange_at(d, 1, &field, 0, real_size, size, axis, at, 1, err, n);
}

int hd_decomp_exchange_fields(hd_decomp *d, int count, void *const *alloc, long lead, size_t real_size,
                              const long size[3], int axis, const long at[4], char *err, size_t n) {
  return exchange_at(d, count, alloc, lead, real_size, size, axis, at, 1, err, n);
}

void hd_decomp_deep_extent(const hd_decomp *d, int depth, long over[6], long size[3]) {
  int f;
  for (f = 0; f < 6; ++f) over[f] = f / 2 < d->dim && d->nbr[f] >= 0 ? depth - 1 : 0;
  for (f = 0; f < 3; ++f) size[f] = d->ln[f] + (f < d->dim ? 2 + over[2 * f] + over[2 * f + 1] : 0);
}

static int halo_at(hd_decomp *d, int count, void *const *alloc, long lead, long pitch, size_t real_size, int depth,
                   char *err, size_t n) {
  long over[6], size[3];
  int a;
  hd_decomp_deep_extent(d, depth, over, size);
  if (pitch) size[0] = pitch;
  for (a = 1; a < d->dim; ++a) {
    /* send the first and last `depth` interior planes, receive into the
       overlap and the ghosts (in order: the planes keep their sequence) */
    const long lo = over[2 * a], at[4] = {lo + 1, lo + d->ln[a] - depth + 1, 0, lo + d->ln[a] + 1};
    if (d->dims[a] > 1 && d->ln[a] < depth)
      return snprintf(err, n, "halos %d cells deep need blocks at least as thick (this one: %ld cells along %c)", depth,
                      d->ln[a], "xyz"[a]),
             -1;
    if (exchange_at(d, count, alloc, lead, real_size, size, a, at, depth, err, n)) return -1;
  }
  return 0;
}

int hd_decomp_halo_padded(hd_decomp *d, void *alloc, long lead, long pitch, size_t real_size, int depth, char *err,
                          size_t n) {
  return halo_at(d, 1, &alloc, lead, pitch, real_size, depth, err, n);
}

int hd_decomp_halo_block(hd_decomp *d, void *field, long pitch, const long ln[3], size_t real_size, char *err, size_t n) {
  long size[3];
  int a;
  for (a = 0; a < 3; ++a) size[a] = ln[a] + (a < d->dim ? 2 : 0);
  if (pitch) size[0] = pitch;
  for (a = 1; a < d->dim; ++a) {
    const long at[4] = {1, ln[a], 0, ln[a] + 1};
    if (exchange_at(d, 1, &field, 0, real_size, size, a, at, 1, err, n)) return -1;
  }
  return 0;
}

int hd_decomp_halo_deep(hd_decomp *d, void *field, size_t real_size, int depth, char *err, size_t n) {
  return halo_at(d, 1, &field, 0, 0, real_size, depth, err, n);
}

int hd_decomp_halo_fields(hd_decomp *d, int count, void *const *fields, size_t real_size, char *err, size_t n) {
  return halo_at(d, count, fields, 0, 0, real_size, 1, err, n);
}

int hd_decomp_halo(hd_decomp *d, void *field, size_t real_size, char *err, size_t n) {
  return halo_at(d, 1, &field, 0, 0, real_size, 1, err, n);
}

/* ---- deterministic reductions and gathers --------------------------------------- */

/* Collect `per` items of `bytes` for every row (y, z) of every rank into
 * global row order on rank 0 (out: gn[1] * gn[2] * per items). */
static int gather_rows(const hd_decomp *d, const void *local, size_t per, size_t bytes, void *out, char *err,
                       size_t n) {
  const size_t row = per * bytes;
  if (d->size == 1) {
    memcpy(out, local, (size_t)(d->ln[1] * d->ln[2]) * row);
    return 0;
  }
#if defined(HD_HAVE_MPI)
  {
    /* rank by rank, in messages of whole rows up to 1 GiB (MPI counts are
       ints; a 3-D field of 2.7e8 cells in double is 2 GB) */
    MPI_Comm comm = *(MPI_Comm *)d->comm;
    const long per_msg = (long)(((size_t)1 << 30) / row);
    char *buf = NULL;
    int r, rc = MPI_SUCCESS;
    long at, cnt, m;
    if (per_msg < 1) return snprintf(err, n, "a row of the field is too large for one MPI message"), -1;
    if (d->rank != 0) {
      const long mine = d->ln[1] * d->ln[2];
      for (at = 0; at < mine && rc == MPI_SUCCESS; at += cnt) {
        cnt = mine - at < per_msg ? mine - at : per_msg;
        rc = MPI_Send((const char *)local + (size_t)at * row, (int)((size_t)cnt * row), MPI_BYTE, 0, 70, comm);
      }
      return rc == MPI_SUCCESS ? 0 : (snprintf(err, n, "sending rows to rank 0 failed"), -1);
    }
    for (r = 1, m = 1; r < d->size; ++r) { /* the staging buffer: the largest message */
      long ln[3], off[3];
      hd_decomp_block(d, r, ln, off);
      if (ln[1] * ln[2] > m) m = ln[1] * ln[2];
    }
    if (!(buf = (char *)malloc((size_t)(m < per_msg ? m : per_msg) * row))) return snprintf(err, n, "out of host memory"), -1;
    for (r = 0; r < d->size && rc == MPI_SUCCESS; ++r) {
      long ln[3], off[3];
      hd_decomp_block(d, r, ln, off);
      for (at = 0; at < ln[1] * ln[2] && rc == MPI_SUCCESS; at += cnt) {
        const char *src = r ? buf : (const char *)local + (size_t)at * row;
        cnt = ln[1] * ln[2] - at < per_msg ? ln[1] * ln[2] - at : per_msg;
        if (r) rc = MPI_Recv(buf, (int)((size_t)cnt * row), MPI_BYTE, r, 70, comm, MPI_STATUS_IGNORE);
        for (m = 0; m < cnt && rc == MPI_SUCCESS; ++m) { /* rows y fastest */
          const long j = (at + m) % ln[1], k = (at + m) / ln[1];
          memcpy((char *)out + (size_t)((off[1] + j) + (off[2] + k) * d->gn[1]) * row, src + (size_t)m * row, row);
        }
      }
    }
    free(buf);
    if (rc != MPI_SUCCESS) return snprintf(err, n, "gathering rows on rank 0 failed"), -1;
  }
  return 0;
#else
  (void)err, (void)n;
  return 0;
#endif
}

/* Sums of `per` values over this rank's `rows` rows (vals[r * per + v]) and
 * then over all ranks, exactly (xsum.h), so that neither the order of the
 * rows nor their grouping on ranks shows in the bits.  Non-finite row
 * values are summed apart (their sum does not depend on the order either)
 * and replace the result.  0, or -1 + message. */
static int exact_sums(const double *vals, long rows, int per, double *out, char *err, size_t n) {
  hd_xsum sum[8];
  double special[8];
  long r;
  int v;
  if (per > 8) return snprintf(err, n, "too many sums at once (%d)", per), -1;
  for (v = 0; v < per; ++v) hd_xsum_init(&sum[v]), special[v] = 0.0;
  for (r = 0; r < rows; ++r)
    for (v = 0; v < per; ++v) {
      const double x = vals[r * per + v];
      if (hd_isfinite(x)) hd_xsum_add(&sum[v], x);
      else special[v] += x;
    }
  if (hd_xsum_allreduce(sum, per)) return snprintf(err, n, "the sum over the ranks failed"), -1;
#if defined(HD_HAVE_MPI)
  if (hd_par_running() && MPI_Allreduce(MPI_IN_PLACE, special, per, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS)
    return snprintf(err, n, "the sum over the ranks failed"), -1;
#endif
  for (v = 0; v < per; ++v) out[v] = special[v] != 0.0 ? special[v] : hd_xsum_value(&sum[v]);
  return 0;
}

int hd_decomp_stats(const hd_decomp *d, const hd_stats *mine, hd_stats *out, char *err, size_t n) {
  const long rows = d->ln[1] * d->ln[2];
  double *sums = (double *)malloc((size_t)(rows > 0 ? rows : 1) * sizeof *sums);
  long r;
  int rc = sums ? 0 : -1;
  if (hd_par_any(rc)) {
    free(sums);
    return snprintf(err, n, "out of host memory for the statistics"), -1;
  }
  /* minimum, maximum, counts and the first bad cell do not depend on the
     order; the sum is exact */
  hd_stats_init(out);
  for (r = 0; r < rows; ++r) hd_stats_merge(out, &mine[r]), sums[r] = mine[r].sum;
  rc = exact_sums(sums, rows, 1, &out->sum, err, n);
  free(sums);
#if defined(HD_HAVE_MPI)
  if (!rc && hd_par_running() && d->size > 1) {
    double mm[2];
    long long c[2], first = out->nonfinite ? (long long)out->first_bad : LLONG_MAX;
    mm[0] = -out->min, mm[1] = out->max;
    c[0] = (long long)out->count, c[1] = (long long)out->nonfinite;
    if (MPI_Allreduce(MPI_IN_PLACE, mm, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS ||
        MPI_Allreduce(MPI_IN_PLACE, c, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS ||
        MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
      rc = -1, snprintf(err, n, "the statistics over the ranks failed");
    out->min = -mm[0], out->max = mm[1];
    out->count = (hd_idx)c[0], out->nonfinite = (hd_idx)c[1];
    out->first_bad = c[1] ? (hd_idx)first : -1;
  }
#else
  (void)d;
#endif
  if (hd_par_any(rc)) {
    if (!rc) snprintf(err, n, "statistics failed on another rank");
    return -1;
  }
  return 0;
}

int hd_decomp_rows_all(const hd_decomp *d, const double *rows, int per, double *out, char *err, size_t n) {
  const long grows = d->gn[1] * d->gn[2];
  int rc = gather_rows(d, rows, (size_t)per, sizeof(double), out, err, n);
  if (hd_par_any(rc)) {
    if (!rc) snprintf(err, n, "gathering rows failed on another rank");
    return -1;
  }
#if defined(HD_HAVE_MPI)
  if (d->size > 1 && MPI_Bcast(out, (int)(grows * per), MPI_DOUBLE, 0, *(MPI_Comm *)d->comm) != MPI_SUCCESS)
    return snprintf(err, n, "MPI_Bcast failed"), -1;
#else
  (void)grows;
#endif
  return 0;
}

int hd_decomp_row_sums(const hd_decomp *d, const double *rows, int per, double *out, char *err, size_t n) {
  const int rc = exact_sums(rows, d->ln[1] * d->ln[2], per, out, err, n);
  if (hd_par_any(rc)) {
    if (!rc) snprintf(err, n, "sums failed on another rank");
    return -1;
  }
  return 0;
}

int hd_decomp_gather(const hd_decomp *d, const double *local, double *global, char *err, size_t n) {
  return gather_rows(d, local, (size_t)d->gn[0], sizeof(double), global, err, n);
}
