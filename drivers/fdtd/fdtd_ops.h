/* SPDX-License-Identifier: BSD-3-Clause */
/* The FDTD driver's view of a backend: a model in host doubles (mesh,
 * boundaries, materials, per-component material indices rasterised on the
 * padded grid, sources, probes), an opaque state, and a table built once per
 * backend and precision from fdtd_impl.h. */
#ifndef HD_DRV_FDTD_OPS_H
#define HD_DRV_FDTD_OPS_H

#include <hd/fdtd.h>
#include <hd/fdtd_ade.h>

#include "backend.h"

typedef struct fdtd_point {
  int comp;       /* HD_FDTD_EX ... HD_FDTD_HZ */
  long i, j, k;   /* physical node */
  double amp, r;  /* feeds: volts and ohms; soft sources: amperes, r < 0 */
  double delay;   /* feeds: the waveform's delay (s) */
} fdtd_point;

/* A lumped load on an E edge: R, L and C in parallel (hd/fdtd_ade.h). */
typedef struct fdtd_load {
  int comp;       /* HD_FDTD_EX ... HD_FDTD_EZ */
  long i, j, k;   /* physical node */
  double g, il, c; /* conductance 1/R (S), inverse inductance 1/L (1/H), capacitance (F) */
} fdtd_load;

#define FDTD_MAX_PLANES 16
#define FDTD_MAX_TIME_BLOCK 16 /* steps a sweep of memory */

typedef struct fdtd_model {
  long n[3];                   /* cells per axis of this block */
  long off[3], gn[3];          /* its first cell in the whole grid, and the whole grid's cells */
  int halo[6];                 /* faces (xlo..zhi) shared with another rank's block */
  const double *node[3];       /* node coordinates of the whole grid, gn + 1 each */
  int bc[3];                   /* HD_FDTD_BC_* per axis */
  int mur_h;                   /* Mur on the tangential H outside the faces (OpenFDTD's), not on the faces' E */
  int pml_layers, pml_order;
  double pml_r0;
  double cpml_kappa, cpml_alpha; /* the convolutional layers' kappa_max and alpha_max (S/m) */
  int nmat;                    /* 0 vacuum, 1 PEC, 2.. user materials */
  const double *eps_r, *sigma, *mu_r, *sigma_m;
  const unsigned char *mat[6]; /* material of each component on the padded grid, the media at the faces continued outwards */
  int media_out;               /* a medium other than vacuum or a conductor reaches through a face */
  const int *npole;            /* dispersive materials: npole[k] poles of material k (NULL: none) */
  const hd_fdtd_pole (*pole)[HD_FDTD_POLES];
  int nload;
  const fdtd_load *load;       /* lumped loads, nodes of this block */
  double dt;
  hd_fdtd_wave wave;
  int nfeed, nprobe;
  int feed_release;            /* feeds off conductors left to the update once their pulse has passed (OpenFDTD's) */
  const fdtd_point *feed;      /* feeds and soft sources (E components), nodes of this block */
  const fdtd_point *probe;
  int variant;                 /* HD_VARIANT_* */
  int block[3];                /* CUDA launch shape of the E and H kernels; 0 = default */
  int time_block;              /* steps a sweep of memory, bit-identical to single steps (0, 1: single) */
  /* frequency-domain results (hd/fdtd_dft.h): the frequencies, and the
   * points of the Huygens surface in this block (hd_dft_surface_points'
   * faces and base nodes, physical nodes of the block) on which the
   * tangential fields are transformed; feeds are transformed whenever
   * there are frequencies */
  int nfreq;
  const double *freq;
  int field_first, nfield;     /* the surface's, maps' and volume's frequencies: freq + field_first, nfield of them */
  hd_idx npts;
  const unsigned char *surf_face;
  const long *surf_ijk;
  int volume_dft;              /* every node's six components too */
  int dft_every;               /* the surface, maps and volume sample every dft_every-th step (0, 1: every step) */
  int nplane;                  /* near-field maps: component, normal axis, cell layer of this block (-1: not here) */
  int plane_comp[FDTD_MAX_PLANES], plane_axis[FDTD_MAX_PLANES];
  long plane_layer[FDTD_MAX_PLANES];
  /* plane-wave incidence (hd/fdtd_tfsf.h), pw_e0 = 0: none: amplitude
   * (V/m), direction, E and H polarisations, the incident line's cell, and
   * the total-field box of physical nodes lo..hi (uniform mesh) */
  double pw_e0, pw_k[3], pw_e[3], pw_h[3], pw_cell;
  long tfsf_lo[3], tfsf_hi[3];
  int pw_sf;                   /* the scattered-field form (hd/fdtd_sf.h) instead of the box */
  int pw_line, pw_axis;        /* its incident wave: 0 closed form, 1 a line of axis pw_axis' cells, 2 one of pw_cell */
  /* oblique incidence on a cell periodic along bloch_axis (hd/fdtd_sf.h):
   * the field complex, F(x + L) = F(x) e^{i bloch_beta L}; bloch_part 1:
   * the backend's twin that marches its imaginary part */
  int bloch, bloch_axis, bloch_part;
  double bloch_beta;           /* rad/m */
} fdtd_model;

/* Padding of the node grid: the PML layers and one guard layer. */
static inline long fdtd_pad(const fdtd_model *m) {
  int a;
  for (a = 0; a < 3; ++a)
    if (m->bc[a] == HD_FDTD_BC_PML || m->bc[a] == HD_FDTD_BC_CPML) return m->pml_layers + 1;
  return 1;
}

/* The node grid of a block of ln cells: ln + 1 nodes an axis, `pad` layers
 * around, rows padded to FDTD_ROW nodes.  A whole grid's fields start
 * fdtd_lead nodes into their allocations, so node `pad` of every row, where
 * the tuned CUDA kernels' warps start, lies on 128 bytes (its material
 * bytes on 32): single +7 % at 400^3 on the H200 (doc/performance.md).
 * Blocks of a distributed grid too: their halo exchange is told the lead
 * (CUDA IPC maps whole allocations). */
#define FDTD_ROW 32
static inline int fdtd_node_grid(hd_grid *g, const long ln[3], long pad) {
  return hd_grid_init(g, 3, ln[0] + 1, ln[1] + 1, ln[2] + 1, pad) && hd_grid_align_rows(g, FDTD_ROW);
}
static inline hd_idx fdtd_lead(const fdtd_model *m) {
  return (FDTD_ROW - fdtd_pad(m) % FDTD_ROW) % FDTD_ROW;
}

typedef struct fdtd_ops {
  const char *backend, *precision;
  size_t real_size;
  int has_tuned; /* hand-tuned E and H kernels exist on this backend */
  hd_status (*create)(hd_ctx *ctx, const fdtd_model *m, void **state);
  /* `steps` steps, each step's H exchanged by halo(ctx, arg) unless halo
   * is NULL (a distributed grid's ghosts; single steps then): under the
   * next step's E update, the last step's before return; rec (host, or NULL)
   * gets one row a step: the probes, then gap voltage and current of each
   * feed */
  hd_status (*advance)(hd_ctx *ctx, void *state, long steps, double *rec, hd_status (*halo)(hd_ctx *, void *),
                       void *arg);
  /* the sums behind the field averages (hd_fdtd_avg_pt) of each row of
   * cells: e, h for row (j, k) at rows[2 * (j + k * n[1])] */
  hd_status (*row_sums)(hd_ctx *ctx, void *state, double *rows);
  /* one component on the padded grid, as doubles */
  hd_status (*download)(hd_ctx *ctx, void *state, int comp, double *out);
  /* one component for halo exchanges (backend memory): its allocation's
   * start, *lead nodes before the padded grid's first; comp + 6 a
   * Bloch-periodic cell's imaginary part (NULL: none) */
  void *(*field)(void *state, int comp, long *lead);
  /* the running DFTs so far (host doubles): each feed's gap voltage and
   * current (4 x nfreq x nfeed, hd_dft_feed_args' layout), each probe's
   * record (2 x nfreq x nprobe, hd_dft_probe_args'), and the Huygens
   * surface's tangential fields (8 x nfreq x points, hd_dft_surface_args'),
   * and each near-field plane's component (2 x nfreq x its cells, into
   * planes[k]), the incident plane wave's E at its source (2 x nfreq), and
   * every node's components (re, im x 6 x nfreq x physical nodes, node
   * fastest: hd_dft_volume_args' acc), NULL where not wanted */
  hd_status (*spectra)(hd_ctx *ctx, void *state, double *feeds, double *probes, double *surface, double *const *planes,
                       double *incident, double *volume);
  void (*destroy)(hd_ctx *ctx, void *state);
  int (*state_count)(void *state); /* checkpoints: the arrays of the state */
  hd_state_io_fn state_io;
  /* steps a sweep of memory the state takes (the model's time_block, or
   * 1 with *why saying why not) */
  int (*time_block)(void *state, const char **why);
} fdtd_ops;

HD_DECLARE_OPS(fdtd_ops, fdtd_ops)

/* How a restart on another rank count takes each checkpoint array of the
 * state (hd_drv_ckpt's kind): the fields as rows of nodes, the boundaries'
 * points and the DFTs' accumulators as lists by key, the step counter and
 * the plane wave's line as the same on every block. */
int fdtd_ckpt_kind(const char *name, char keys[16], long *elem);

#endif
