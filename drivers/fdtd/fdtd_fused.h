/* SPDX-License-Identifier: BSD-3-Clause */
/* CUDA time blocks (--time-block): T steps a launch of the fused march of
 * hd/fdtd_fused_cuda.h, bit-identical to T single steps (fd_step), with
 * the E-side Mur points, feeds and probes inside its levels.  A launch
 * reads one copy of the fields and writes the other; the state's field
 * pointers then swap, so every pass after reads the copy that is current.
 * The running DFTs of the feeds and probes step after the block from its
 * T rows of records, as on the CPU (fd_block_records).  Included by
 * fdtd_wave.h on the CUDA backend. */
#include <hd/fdtd_fused_cuda.h>

/* Why this state steps singly on CUDA (NULL: it can take blocks). */
static const char *fd_fused_refusal(const fdtd_state *st) {
  const hd_idx pad = st->a.g.ghost;
  int a, p;
  if (!st->tuned) return "time blocks use the tuned kernels (--variant=generic steps singly)";
  if (st->twin) return "a Bloch-periodic cell steps its real and imaginary parts together";
  for (a = 0; a < 3; ++a) {
    if (st->bc[a] == HD_FDTD_BC_PERIODIC) return "CUDA time blocks do not take periodic axes yet";
    if (st->npml[a] || st->npml[3 + a]) return "CUDA time blocks do not take absorbing layers (PML, CPML) yet";
    if (st->a.nc[a] < 4) return "CUDA time blocks want 4 cells or more on every axis";
  }
  if (st->nmur && st->mur_h) return "CUDA time blocks do not take Mur on H (OpenFDTD's form) yet";
  if (st->nade) return "CUDA time blocks do not take dispersive media or loads yet";
  if (st->inc.n || st->pw_sf) return "CUDA time blocks do not take plane waves yet";
  if (st->npts || st->nplane || st->vol.acc) return "CUDA time blocks do not take the fields' DFTs (far field, maps, volume) yet";
  if (6 * st->fs >= ((hd_idx)1 << 31)) return "the grid is past the fused march's 32-bit offsets";
  if (st->nfeed) { /* a feed on or next to a Mur face would change a value the points read */
    hd_fdtd_feed *f = (hd_fdtd_feed *)malloc((size_t)st->nfeed * sizeof *f);
    const char *why = NULL;
    if (!f || cudaMemcpy(f, st->feed, (size_t)st->nfeed * sizeof *f, cudaMemcpyDeviceToHost) != cudaSuccess)
      why = "the feeds could not be read back";
    for (p = 0; !why && p < st->nfeed; ++p)
      for (a = 0; a < 3; ++a) {
        const hd_idx at = a == 0 ? f[p].i : a == 1 ? f[p].j : f[p].k;
        if (st->bc[a] == HD_FDTD_BC_MUR && (at - pad <= 1 || at - pad >= st->a.nc[a] - 1))
          why = "a feed on or next to a Mur face steps singly";
      }
    free(f);
    if (why) return why;
  }
  return NULL;
}

/* The fused march's tables for blocks of T steps: the second copy of the
 * fields (the first's values, ghosts included), the map of blocks of one
 * material, the blocks holding a feed or probe, Mur's g by face and
 * material (from the point list), T rows of the feeds' V and I. */
static hd_status fd_fused_plan(hd_ctx *ctx, fdtd_state *st, int T) {
  const int by = HD_FDTD_FUSED_BY(sizeof(hd_real));
  const hd_idx lead = st->a.f[0] - st->field[0];
  unsigned grid[3];
  hd_idx nb, p;
  unsigned char *mat = NULL, *map = NULL, *flag = NULL;
  const unsigned char *m[6];
  hd_real g[6 * 256];
  hd_fdtd_mur *mur = NULL;
  hd_fdtd_feed *feed = NULL;
  hd_fdtd_probe *probe = NULL;
  hd_idx *node = NULL;
  hd_status s = HD_OK;
  int c;
  hd_fdtd_fused_grid(&st->a, T, by, grid);
  nb = (hd_idx)grid[0] * grid[1] * grid[2];
  if (!st->copy2) {
    s = hd_dev_alloc(ctx, (void **)&st->copy2, (size_t)(6 * st->fs) * sizeof(hd_real));
    if (s == HD_OK) HD_CUDA_TRY(ctx, cudaMemcpy(st->copy2, st->field[0], (size_t)(6 * st->fs) * sizeof(hd_real), cudaMemcpyDeviceToDevice));
  }
  mat = (unsigned char *)malloc((size_t)(6 * st->fs));
  map = (unsigned char *)malloc((size_t)nb);
  flag = (unsigned char *)calloc((size_t)nb, 1);
  mur = (hd_fdtd_mur *)malloc((size_t)(st->nmur + 1) * sizeof *mur);
  feed = (hd_fdtd_feed *)malloc((size_t)(st->nfeed + 1) * sizeof *feed);
  probe = (hd_fdtd_probe *)malloc((size_t)(st->nprobe + 1) * sizeof *probe);
  node = (hd_idx *)malloc((size_t)(st->nfeed + st->nprobe + 1) * sizeof *node);
  if (s == HD_OK && (!mat || !map || !flag || !mur || !feed || !probe || !node))
    s = hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory for the fused march's tables");
  if (s == HD_OK) s = hd_dev_download(ctx, mat, st->mat[0], (size_t)(6 * st->fs));
  if (s == HD_OK && st->nmur) s = hd_dev_download(ctx, mur, st->mur, (size_t)st->nmur * sizeof *mur);
  if (s == HD_OK && st->nfeed) s = hd_dev_download(ctx, feed, st->feed, (size_t)st->nfeed * sizeof *feed);
  if (s == HD_OK && st->nprobe) s = hd_dev_download(ctx, probe, st->probe, (size_t)st->nprobe * sizeof *probe);
  if (s == HD_OK) {
    for (c = 0; c < 6; ++c) m[c] = mat + c * st->fs + lead;
    hd_fdtd_fused_tiles(&st->a, T, by, m, map);
    for (p = 0; p < st->nfeed; ++p) node[p] = feed[p].n;
    for (p = 0; p < st->nprobe; ++p) node[st->nfeed + p] = probe[p].n;
    hd_fdtd_fused_mark(&st->a, T, by, node, st->nfeed + st->nprobe, flag);
    for (p = 0; p < 6 * 256; ++p) g[p] = HD_R(0);
    for (p = 0; p < st->nmur; ++p) { /* the face: the axis m0 and m1 differ along, the side m1 lies */
      const hd_idx d = mur[p].m1 - mur[p].m0, ad = d < 0 ? -d : d;
      const int axis = ad == 1 ? 0 : ad == st->a.g.stride[1] ? 1 : 2, side = d < 0;
      g[(2 * axis + side) * 256 + m[mur[p].comp][mur[p].m0]] = mur[p].g;
    }
  }
  hd_dev_free(ctx, st->ftiles), hd_dev_free(ctx, st->fflag), hd_dev_free(ctx, st->fmur_g), hd_dev_free(ctx, st->fvi);
  st->ftiles = st->fflag = NULL, st->fmur_g = st->fvi = NULL;
  if (s == HD_OK) s = fd_upload(ctx, (void **)&st->ftiles, map, (size_t)nb);
  if (s == HD_OK) s = fd_upload(ctx, (void **)&st->fflag, flag, (size_t)nb);
  if (s == HD_OK) s = fd_upload(ctx, (void **)&st->fmur_g, g, sizeof g);
  if (s == HD_OK && st->nfeed) s = hd_dev_alloc(ctx, (void **)&st->fvi, (size_t)(T * 2 * st->nfeed) * sizeof(hd_real));
  free(mat), free(map), free(flag), free(mur), free(feed), free(probe), free(node);
  st->fT = s == HD_OK ? T : 0;
  return s;
}

/* T steps (2 or 3) as one launch, rec: their T rows of the record (on the
 * device) or NULL. */
static hd_status fd_fused_block(hd_ctx *ctx, fdtd_state *st, int T, hd_real *rec) {
  const hd_idx lead = st->a.f[0] - st->field[0];
  hd_fdtd_fused_extras x;
  hd_status s = HD_OK;
  hd_real *now;
  int a, c;
  if (st->fT != T) s = fd_fused_plan(ctx, st, T);
  if (s != HD_OK) return s;
  memset(&x, 0, sizeof x);
  for (a = 0; a < 3; ++a) x.mur[2 * a] = x.mur[2 * a + 1] = st->nmur && st->bc[a] == HD_FDTD_BC_MUR;
  x.mur_g = st->fmur_g;
  x.feed = st->feed, x.nfeed = st->nfeed, x.wave = st->wave;
  x.vi = rec ? rec + st->nprobe : st->fvi, x.vi_stride = rec ? st->nrec : 2 * st->nfeed;
  x.probe = st->probe, x.nprobe = st->nprobe, x.prec = rec && st->nprobe ? rec : NULL, x.prec_stride = st->nrec;
  x.flag = st->fflag, x.step0 = st->step, x.dt = st->dt;
  s = hd_fdtd_fused_launch(ctx, &st->a, st->copy2 + lead, st->fs, T, st->ftiles, &x);
  if (s != HD_OK) return s;
  now = st->copy2, st->copy2 = st->field[0]; /* the copy written is the fields now */
  for (c = 0; c < 6; ++c) st->field[c] = now + c * st->fs, st->a.f[c] = st->field[c] + lead;
  if (st->nmur) { /* each Mur point's e[m1], as the single steps keep it */
    hd_fdtd_mur_args mu;
    fd_mur_args(st, &mu);
    s = hd_fdtd_mur_keep_loop(ctx, &mu, 0, st->nmur);
  }
  if (s == HD_OK) s = fd_block_records(ctx, st, T, x.vi, x.vi_stride, x.prec);
  return s;
}
