/* SPDX-License-Identifier: BSD-3-Clause */
/* Distributed runs: ranks, a Cartesian decomposition of a grid, halo
 * exchange, and reductions and gathers whose results do not depend on the
 * number of ranks.  Without MPI (configure without --with-mpi) every call
 * works for the single rank there is, so drivers have one code path.
 *
 * The x axis (fastest in memory) is never split: MPI_Dims_create spreads
 * the ranks over y (2-D) or y and z (3-D).  Whole x rows on every rank keep
 * halo messages long and make the reductions rank-independent: the
 * backends fold each row in x order, and the row results are summed
 * exactly (xsum.h) on each rank and then over the ranks (hd_decomp_stats,
 * hd_decomp_row_sums), so a run on P ranks prints the diagnostics of a run
 * on one, bit for bit, without gathering rows. */
#ifndef HD_DRV_DECOMP_H
#define HD_DRV_DECOMP_H

#include <stddef.h>

#include <hd/reduce.h>

struct hd_core_ops;
struct hd_ctx;

#ifdef __cplusplus
extern "C" {
#endif

/* MPI_Init when built with MPI (harmless without); the rank, or -1 with a
 * message when MPI cannot start. */
int hd_par_init(int *argc, char ***argv, char *err, size_t n);
void hd_par_finalize(void);
int hd_par_rank(void);
int hd_par_size(void);
/* Nonzero if any rank passes nonzero (all ranks must call it). */
int hd_par_any(int flag);
/* The largest value over the ranks. */
int hd_par_max_int(int v);
/* Element-wise maxima over the ranks of n doubles, in place; 0, or -1. */
int hd_par_max_doubles(double *v, int n);
/* Stop every rank after a failure on this one (MPI_Abort); a no-op on a
 * single rank, where the caller's normal error path runs. */
void hd_par_abort(int status);
/* "MPI (Open MPI 4.1.4), 4 ranks" or "no MPI" for the run summary. */
const char *hd_par_describe(void);
/* This rank's index among the ranks of its node, and their number. */
int hd_par_local_rank(int *local_size);
/* 1 when the MPI library takes device pointers: HD_MPI_CUDA_AWARE=1 or 0 in
 * the environment says so, else the library at run time (Open MPI's
 * MPIX_Query_cuda_support); 0 when it cannot say. */
int hd_par_cuda_aware(void);
/* Collective, once after the backend is open: whether ranks read the halo
 * planes of neighbours on their node straight from device memory by CUDA
 * IPC — every rank's backend can export memory (the CUDA core), there is
 * more than one rank and HD_MPI_IPC is not 0.  hd_decomp_use_backend
 * applies the answer to neighbours on the same node. */
int hd_par_ipc_setup(const struct hd_core_ops *core, struct hd_ctx *ctx);
/* Whether `rank` shares this rank's node with IPC set up (hd_par_ipc_setup). */
int hd_par_ipc_peer(int rank);
/* Whether MPI is running (drivers that do not start it are one rank). */
int hd_par_running(void);

/* Element-wise sum over the ranks of n doubles, in place on rank 0 (other
 * ranks' buffers are left as they were).  Exact where at most one rank
 * contributes a nonzero to each element.  0, or -1. */
int hd_par_sum_to_root(double *buf, long n);

/* Items [lo, hi) of n that `rank` of `size` owns (blocks as even as
 * integers allow, the first n mod size one longer). */
void hd_par_block(long n, int rank, int size, long *lo, long *hi);
/* Every rank's block of arr (n items of elem bytes, blocks as in
 * hd_par_block) onto every rank, in place.  0, or -1. */
int hd_par_allgather(void *arr, size_t elem, long n);
/* The same with this rank's items [lo, hi) given (the ranks' in rank
 * order, covering arr). */
int hd_par_allgather_items(void *arr, size_t elem, long lo, long hi);

/* Send counts[r] elements of elem bytes to every rank r and receive
 * counts[r] from it, each rank's share consecutive in rank order in send
 * and in recv.  0, or -1 (also when a count or an offset passes 2^31
 * elements). */
int hd_par_alltoall(const void *send, void *recv, size_t elem, const long *counts);

/* The same without waiting, for count arrays at once, each rank giving
 * `part` of its block: 0 or 1 its first or second half (hd_par_half), -1
 * all of it; rank r's block [bounds[r], bounds[r + 1]) (bounds NULL: as
 * hd_par_block).  *handle (NULL on one rank) goes to hd_par_gather_wait, which
 * completes and frees it.  0, or -1 (nothing left to wait for). */
int hd_par_gather_start(void **handle, void *const *arr, int count, size_t elem, long n, const long *bounds, int part);
int hd_par_gather_wait(void *handle);
/* Blocks of items balanced by measured cost: rank r's block [bounds[r],
 * bounds[r + 1]) cost cost[r] (seconds, say), taken as even over its
 * items; out gets the boundaries that split the total cost evenly, each
 * moved only (1 - keep) of the way from the old one (keep 0: all the way;
 * damps the swing of noisy measures), first and last kept.  Every rank
 * given the same numbers computes the same blocks. */
void hd_par_rebalance(const long *bounds, const double *cost, int size, double keep, long *out);
/* Half `part` (0 or 1) of the items [lo, hi). */
static inline void hd_par_half(long lo, long hi, int part, long *plo, long *phi) {
  const long mid = lo + (hi - lo) / 2;
  *plo = part ? mid : lo;
  *phi = part ? hi : mid;
}

typedef struct hd_decomp {
  int dim, rank, size;
  int dims[3], coords[3];
  long gn[3];  /* global interior cells (1 on unused axes) */
  long ln[3];  /* this rank's interior cells */
  long off[3]; /* global index of this rank's first cell */
  int nbr[6];  /* rank across each face (xlo..zhi), -1 at the domain edge
                * (a periodic axis split over ranks has no edge) */
  void *comm;  /* the Cartesian communicator (MPI builds) */
  const struct hd_core_ops *core; /* how fields are copied (NULL: host memory) */
  struct hd_ctx *ctx;
  void *stage;        /* halo planes in flight: 4 of the largest so far */
  size_t stage_bytes;
  int stage_kind;     /* 0 malloc, 1 page-locked host, 2 backend memory */
  int ipc[6];         /* the neighbour across face f is on this node: its
                       * planes are read by CUDA IPC, not sent by MPI */
  void *maps;         /* neighbours' allocations mapped here */
  int nmaps;
  void *flags;        /* device memory the IPC neighbours signal into */
  unsigned long long seq[3]; /* exchanges along each axis so far */
  /* set by the caller when no exchanged field is freed while d lives:
   * then the notes neighbours on this node send about an exchange (their
   * allocations, offsets) are kept, and an exchange seen before skips them
   * (multigrid's many small exchanges; the ranks see the same exchanges in
   * the same order, so they agree on which were seen) */
  int fields_fixed;
  void *notes;
  int nnotes;
} hd_decomp;

/* Split a dim-D grid of gn cells over all ranks, never along x nor along
 * the axes whose bit is set in `keep` (1 << axis); axes set in `wrap` are
 * periodic (the first and last blocks are neighbours).  -1 + message when
 * some rank would get no cell along an axis. */
int hd_decomp_create(hd_decomp *d, int dim, const long gn[3], int keep, int wrap, char *err, size_t n);
void hd_decomp_destroy(hd_decomp *d);
/* Cells per axis and first cell of any rank's block (as the rank computes). */
void hd_decomp_block(const hd_decomp *d, int rank, long ln[3], long off[3]);
/* Fields live in the memory of this backend from now on (device memory
 * for CUDA): exchanges with a neighbour on the same node copy its plane
 * from its device memory (CUDA IPC, hd_par_ipc_setup), ordered on the
 * stream by flags the two GPUs write into each other's memory, so that the
 * host never waits for a device (hd_dev_signal); the others pack
 * and unpack planes with strided copies into a staging buffer that MPI
 * sends, in device memory where MPI takes device pointers
 * (hd_par_cuda_aware), else in page-locked host memory. */
void hd_decomp_use_backend(hd_decomp *d, const struct hd_core_ops *core, struct hd_ctx *ctx);

/* Whether face f (0..5) of this rank's block is on the domain boundary. */
int hd_decomp_owns_face(const hd_decomp *d, int f);

/* Exchange the one-cell halos of a field with one ghost layer around
 * this rank's block (the hd_grid layout, x fastest); real_size 4 or 8.
 * 0, or -1 + message. */
int hd_decomp_halo(hd_decomp *d, void *field, size_t real_size, char *err, size_t n);
/* The same for `count` fields of one shape at once (hd_decomp_exchange_fields). */
int hd_decomp_halo_fields(hd_decomp *d, int count, void *const *fields, size_t real_size, char *err, size_t n);

/* Halos `depth` cells deep (time blocks of up to `depth` steps between
 * exchanges, drivers/heat): the block is widened by over[f] = depth - 1
 * cells on each face f shared with a neighbour, its padded extents size[3]
 * (ghosts included); the exchange sends the `depth` interior planes next
 * to each shared face and receives the neighbour's into the overlap and
 * the ghosts.  Blocks thinner than `depth` along a split axis: -1 +
 * message.  depth 1 is hd_decomp_halo. */
void hd_decomp_deep_extent(const hd_decomp *d, int depth, long over[6], long size[3]);
int hd_decomp_halo_deep(hd_decomp *d, void *field, size_t real_size, int depth, char *err, size_t n);
/* The same for a field whose rows are `pitch` elements long (0: the
 * block's x extent with its ghosts) and whose ghost corner lies `lead`
 * elements into the allocation at `alloc` (CUDA IPC maps whole
 * allocations): heat's rows aligned for vector loads. */
int hd_decomp_halo_padded(hd_decomp *d, void *alloc, long lead, long pitch, size_t real_size, int depth, char *err,
                          size_t n);
/* The one-cell halos of a field over a block of `ln` cells (not this
 * rank's: a coarser grid's, the same neighbours, one ghost layer, rows
 * `pitch` elements long; 0: ln[0] + 2) - multigrid's levels. */
int hd_decomp_halo_block(hd_decomp *d, void *field, long pitch, const long ln[3], size_t real_size, char *err, size_t n);

/* The general exchange behind hd_decomp_halo: along axis (1 or 2), on a
 * field of padded extents size[3] (x fastest), send the plane at
 * index at[0] to the low neighbour and at[1] to the high one, receive the
 * low neighbour's into at[2] and the high one's into at[3]; planes span
 * the whole padded extent of the other axes.  Complete on return, or, with
 * neighbours read by CUDA IPC, in the order of ctx's stream: later work on
 * that stream sees the ghosts, and neither side's later work changes a plane
 * before the other has read it.  0, or -1 + message. */
int hd_decomp_exchange(hd_decomp *d, void *field, size_t real_size, const long size[3], int axis,
                       const long at[4], char *err, size_t n);
/* The same for up to HD_DECOMP_FIELDS fields of one layout at once (one
 * message, or one exchange of signals with a neighbour on this node), each
 * `lead` elements into the allocation at alloc[f] (CUDA IPC maps whole
 * allocations). */
#define HD_DECOMP_FIELDS 4
int hd_decomp_exchange_fields(hd_decomp *d, int count, void *const *alloc, long lead, size_t real_size,
                              const long size[3], int axis, const long at[4], char *err, size_t n);
/* The same for slabs of `depth` consecutive planes from each index. */
int hd_decomp_exchange_slab(hd_decomp *d, void *field, size_t real_size, const long size[3], int axis,
                            const long at[4], int depth, char *err, size_t n);

/* Sums over the whole grid from per-row partial sums: rows holds `per`
 * (at most 8) doubles for each of this rank's ln[1] * ln[2] rows; out gets
 * on every rank the `per` exact sums over all rows (xsum.h), so the result
 * does not depend on the number of ranks.  0, or -1 + message. */
int hd_decomp_row_sums(const hd_decomp *d, const double *rows, int per, double *out, char *err, size_t n);

/* Every row's `per` doubles (as above) on every rank, in global row order
 * (out: gn[1] * gn[2] * per doubles), for folds other than sums.  0, or -1
 * + message. */
int hd_decomp_rows_all(const hd_decomp *d, const double *rows, int per, double *out, char *err, size_t n);

/* Statistics of the whole field from each rank's row statistics (ln[1] *
 * ln[2] rows, each folded in x order with global cell offsets by the
 * backend): minimum, maximum, counts and first bad cell reduced over the
 * ranks, the sum of the row sums exact, the result on every rank.  0, or
 * -1 + message. */
int hd_decomp_stats(const hd_decomp *d, const hd_stats *rows, hd_stats *out, char *err, size_t n);

/* The whole interior on rank 0 (global, x fastest; NULL elsewhere) from
 * every rank's interior.  0, or -1 + message. */
int hd_decomp_gather(const hd_decomp *d, const double *local, double *global, char *err, size_t n);

#ifdef __cplusplus
}
#endif

#endif
