/* SPDX-License-Identifier: BSD-3-Clause */
/* FDTD backend table, compiled once per backend and precision by the
 * two-line fdtd_<backend>_<f|d> wrappers: the state here, its building,
 * stepping and I/O in the three fdtd_impl_*.h parts.  Tables, point lists
 * and launches; the physics is hd/fdtd.h. */
#include "fdtd_ops.h"

#include <stdlib.h>
#include <string.h>

#include <hd/fdtd.h>
#include <hd/fdtd_ade.h>
#include <hd/fdtd_dft.h>
#include <hd/fdtd_sf.h>
#include <hd/fdtd_tfsf.h>
#include <hd/memory.h>

#include "state_io.h"

#define FDTD_REC_CHUNK 1024 /* steps recorded on the device between downloads */
#if defined(HD_FDTD_HAS_TUNED)
#define FDTD_HAS_TUNED 1
#else
#define FDTD_HAS_TUNED 0
#endif

typedef struct fdtd_state {
  hd_fdtd_args a;
  hd_real *coef;               /* c1 c2 d1 d2: 4 x 256 */
  hd_real *mesh;               /* rn[3] then rc[3], each padded length */
  hd_real *field[6];           /* field[0] + c fs, one allocation; a.f = field + lead (fdtd_lead) */
  unsigned char *mat[6];       /* likewise; a.m = mat + lead */
  hd_idx fs;                   /* nodes from one component's allocation to the next's */
  int64_t *row_run[6];         /* CPU tuned rows: the materials as runs (a.run, a.row_run) */
  unsigned char *uni[2];       /* CUDA tuned marches: E's and H's shared materials by segments (a.uni) */
  hd_fdtd_run *run[6];
  hd_fdtd_mur *mur;
  hd_real *mur_prev;           /* each point's e[m1] of the previous step */
  hd_idx nmur;
  int mur_h;                   /* the Mur points act on H outside the faces */
#if !defined(HD_BACKEND_CUDA)
  hd_fdtd_mur_run *mrun;       /* CPU tuned rows: the points by runs (hd/fdtd_tuned_cpu.h), */
  hd_idx *mrow;                /* those reading row r mrun[mrow[r] .. mrow[r + 1]) (NULL: none) */
#endif
  hd_fdtd_pml_args pml[6];     /* per component */
  int cpml;                    /* the layers are convolutional: cpml_args, psi in the pml split parts */
  hd_fdtd_cpml_args cpml_args[6];
  hd_idx npml[6];
  hd_fdtd_layer_run *lrun[6];  /* CPU tuned rows: the CPML lists as runs (host; NULL: point by point), */
  hd_idx nlrun[6];
  hd_fdtd_layer_run *frun[6];  /* and those on the rows of the nodes, marched with them (by row: frow) */
  hd_idx *frow[6];
  hd_real *prof;               /* PML: the media's numbers (E, H), then p at nodes and half nodes of 3 axes */
  hd_fdtd_feed *feed;
  hd_fdtd_ade_args ade;        /* dispersive and loaded edges (ade.edge NULL: none) */
  hd_idx nade;
  hd_fdtd_probe *probe;
  hd_real *rec;                /* FDTD_REC_CHUNK rows of nrec */
  double *rows;                /* row sums of the averages, 2 per row */
  int nfeed, nprobe, nrec;
  int bc[3];
  hd_fdtd_wave wave, wave_h;   /* the kernels', and the host's (a table's copies: wave_tab, wave_h_tab) */
  double *wave_tab, *wave_h_tab;
  double dt;
  long step;
  int tuned, block[3];
  /* running DFTs: frequencies, each feed's V and I, the Huygens surface */
  int nfreq, nffreq;
  double *freq;                /* host: every frequency (feeds, probes, the incident wave) */
  const double *ffreq;         /* the fields' (surface, maps, volume): freq + the model's field_first */
  hd_real *vi;                 /* this step's V, I of each feed when no record is kept */
  double *feed_acc;            /* 4 nfreq nfeed */
  double *probe_acc;           /* 2 nfreq nprobe */
  hd_idx *surf_node;
  unsigned char *surf_face;
  double *surf_acc;            /* 8 nfreq npts */
  hd_real *surf_buf;           /* samples of the steps since the last multiple of HD_DFT_BUFFER */
  hd_idx npts;
  int flushed;                 /* buffer slots already in surf_acc (a flush for the spectra) */
  int dft_every;               /* the surface, maps and volume sample steps 0, D, 2D, ... (D = dft_every), each for D steps */
  hd_dft_volume_args vol;      /* the whole volume's transform (vol.acc NULL: none) */
  int vol_flushed;
  int vol_fuse;                /* CUDA: the H march may take the volume's samples (HD_FDTD_FUSED_SAMPLE=0: never) */
  int vol_fused;               /* this step's sample was taken by the H march */
  hd_idx vol_nn[3];            /* its physical nodes per axis */
  hd_dft_plane_args plane[FDTD_MAX_PLANES]; /* near-field maps, acc and geometry */
  int nplane;
  /* plane wave: the incident line (inc.n = 0: none; the total-field box's,
   * or the scattered-field form's: pw_sf), the box's corrections after the
   * E and the H update, the source's running DFT (host, 2 nfreq) */
  hd_fdtd_inc_args inc;
  hd_real *inc_coef;
  hd_fdtd_tfsf_point *tfsf[2];
  hd_idx ntfsf[2];
  double pw_e0, *inc_acc;
  /* the scattered-field form (hd/fdtd_sf.h): the incident wave, the E and
   * H components of media, their coefficients, each probe's and each
   * dispersive or loaded edge's distance along the wave */
  int pw_sf;
  hd_fdtd_incident pw;
  hd_fdtd_sf_point *sf[2];
  hd_idx nsf[2];
  hd_real *sf_coef;
  double *sf_probe_d, *sf_probe_w, *ade_pwd;
  /* a Bloch-periodic cell: the twin marching the imaginary part, the
   * phase e^{i beta L} across each periodic axis, the checkpoint names of
   * the twin's arrays */
  struct fdtd_state *twin;
  double bloch_phase[3];
  char twin_names[HD_CKPT_MAX_ARRAYS][24];
  int time_block;              /* steps a sweep of memory (fdtd_wave.h); 1: single steps */
  struct fd_tb *tb;            /* their plan, made at the first block */
  long off[3];                 /* the block's first node in the whole grid (checkpoint keys) */
  int shared[6];               /* faces shared with another rank's block (exchanged H ghosts) */
#if defined(HD_BACKEND_CUDA)
  /* the exchange under the E update (fd_e_exchanged): its high-priority
   * stream, the previous step done, the exchange and the E rows it feeds done */
  cudaStream_t xs;
  cudaEvent_t prev_done, rim_done;
  /* the fused march (fdtd_fused.h), made at its first block: the second
   * copy of the fields, the map of blocks of one material and of those
   * with feeds or probes, Mur's g by face and material, T rows of the
   * feeds' V, I when no record is kept */
  hd_real *copy2;
  unsigned char *ftiles, *fflag;
  hd_real *fmur_g, *fvi;
  int fT;
#endif
} fdtd_state;

#if !defined(HD_BACKEND_CUDA)
static void fd_tb_free(struct fd_tb *tb);
#endif

static void fd_destroy(hd_ctx *ctx, void *state) {
  fdtd_state *st = (fdtd_state *)state;
  int c;
  if (!st) return;
#if !defined(HD_BACKEND_CUDA)
  fd_tb_free(st->tb);
#else
  if (st->xs) cudaStreamDestroy(st->xs), cudaEventDestroy(st->prev_done), cudaEventDestroy(st->rim_done);
  hd_dev_free(ctx, st->copy2), hd_dev_free(ctx, st->ftiles), hd_dev_free(ctx, st->fflag);
  hd_dev_free(ctx, st->fmur_g), hd_dev_free(ctx, st->fvi);
#endif
  hd_dev_free(ctx, st->field[0]), hd_dev_free(ctx, st->mat[0]); /* the allocations of all six */
  for (c = 0; c < 6; ++c) {
    if (c < 2) hd_dev_free(ctx, st->uni[c]);
    free(st->row_run[c]);
    free(st->run[c]);
    free(st->lrun[c]), free(st->frun[c]), free(st->frow[c]);
#if !defined(HD_BACKEND_CUDA)
    if (!c) free(st->mrow), free(st->mrun);
#endif
    hd_dev_free(ctx, (void *)st->pml[c].pt);
    hd_dev_free(ctx, st->pml[c].s1);
    hd_dev_free(ctx, st->pml[c].s2);
  }
  hd_dev_free(ctx, st->coef);
  hd_dev_free(ctx, st->mesh);
  hd_dev_free(ctx, st->mur);
  hd_dev_free(ctx, st->mur_prev);
  hd_dev_free(ctx, st->prof);
  hd_dev_free(ctx, st->feed);
  hd_dev_free(ctx, (void *)st->ade.edge);
  hd_dev_free(ctx, (void *)st->ade.coef);
  hd_dev_free(ctx, st->ade.state);
  hd_dev_free(ctx, st->probe);
  hd_dev_free(ctx, st->vi);
  hd_dev_free(ctx, st->feed_acc);
  hd_dev_free(ctx, st->probe_acc);
  hd_dev_free(ctx, st->surf_node);
  hd_dev_free(ctx, st->surf_face);
  hd_dev_free(ctx, st->surf_acc);
  hd_dev_free(ctx, st->surf_buf);
  hd_dev_free(ctx, st->vol.buf);
  hd_dev_free(ctx, st->vol.acc);
  for (c = 0; c < st->nplane; ++c) hd_dev_free(ctx, st->plane[c].acc);
  hd_dev_free(ctx, st->inc.e);
  hd_dev_free(ctx, st->inc.h);
  hd_dev_free(ctx, st->inc.e0);
  hd_dev_free(ctx, st->inc.h0);
  hd_dev_free(ctx, st->inc_coef);
  hd_dev_free(ctx, st->tfsf[0]);
  hd_dev_free(ctx, st->tfsf[1]);
  hd_dev_free(ctx, st->sf[0]);
  hd_dev_free(ctx, st->sf[1]);
  hd_dev_free(ctx, st->sf_coef);
  hd_dev_free(ctx, st->sf_probe_d);
  hd_dev_free(ctx, st->sf_probe_w);
  hd_dev_free(ctx, st->inc.nrm);
  hd_dev_free(ctx, st->inc.nrm0);
  hd_dev_free(ctx, st->inc.aux);
  fd_destroy(ctx, st->twin);
  hd_dev_free(ctx, st->ade_pwd);
  free(st->inc_acc);
  free(st->freq);
  hd_dev_free(ctx, st->wave_tab);
  free(st->wave_h_tab);
  hd_dev_free(ctx, st->rec);
  hd_dev_free(ctx, st->rows);
  free(st);
}

#include "fdtd_impl_build.h"
#include "fdtd_impl_step.h"
#include "fdtd_impl_io.h"

const fdtd_ops HD_OPS_NAME(fdtd_ops) = {HD_BACKEND_NAME, HD_REAL_NAME, sizeof(hd_real), FDTD_HAS_TUNED, fd_create,
                                        fd_advance, fd_row_sums, fd_download, fd_field, fd_spectra, fd_destroy,
                                        fd_state_count, fd_state_io, fd_time_block};
