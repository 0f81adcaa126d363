/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-fdtd's run, shared by its module (fdtd_module.c), this rank's block
 * of the grid (block.c), the final fields (fields.c) and the spectra
 * gathered over the ranks (spectra_ranks.c). */
#ifndef HD_DRV_FDTD_MODULE_H
#define HD_DRV_FDTD_MODULE_H

#include "decomp.h"
#include "driver.h"
#include "fdtd_ops.h"
#include "model.h"
#include "output.h"
#include "planewave.h"
#include "plots.h"
#include "resonance.h"
#include "spectra.h"

/* The options. */
typedef struct fdtd_cli {
  hd_drv_common com; /* first: the loop's */
  fdtd_input in;
  long bench, average_every, block[3];
  int nblock, volume, pieces;
  char slice[128], frequencies[128], ffrequencies[128], farfield[64], planewave[128], time_block[16], dft_decimation[16], resonances[128], wave_file[4096];
  fdtd_resonance_band res;
  fdtd_planewave pw;
  cli_list nearfield, nearline, flux;
  fdtd_slice near[FDTD_MAX_PLANES]; /* the maps' planes */
  fdtd_map map[FDTD_MAX_PLANES];
  int nplane, nmap;
  int nflux, flux_first[FDTD_MAX_PLANES / 4]; /* flux planes: their four maps' first */
  int excite, nearvolume;
  long margin;
  double z0;
  fdtd_spectra sp;
  fdtd_plot_keys pk;
  fdtd_plots plots;
} fdtd_cli;

/* This rank's block, and which of the feeds and probes it holds (local
 * index -> global one) and reports (the rank owning the position; a feed
 * on a node plane shared by two blocks runs on both). */
typedef struct fdtd_run {
  hd_decomp dc;
  fdtd_point *feed, *probe;
  fdtd_load *load;             /* the loads on edges this block holds (every block that holds one runs it) */
  int nload;
  int *feed_slot, *probe_slot; /* global index; feeds: -1 - index when another rank reports */
  int nfeed, nprobe;
  unsigned char *surf_face;    /* the Huygens points of this block (local nodes) and their global index */
  long *surf_ijk, *surf_slot;
  hd_idx npts, gpts;
} fdtd_run;

extern const char *const fdtd_comp_names[6]; /* ex ... hz */

/* ---- block.c ---- */

/* The feeds, loads and probes of the input this block holds; 0, or -1
 * (memory). */
int fdtd_block_points(fdtd_run *r, const fdtd_input *in);

/* The Huygens points of box lo..hi (whole-grid nodes) this block owns;
 * 0, or -1 (memory). */
int fdtd_block_surface(fdtd_run *r, const long lo[3], const long hi[3]);

void fdtd_block_free(fdtd_run *r);

/* `steps` steps with the halo exchange when the grid is shared; rec (rank
 * 0: a row of every probe and feed a step, nrec values) from every rank's
 * reporting points (lrec: a buffer of 256 rows of this block's). */
hd_status fdtd_block_advance(hd_ctx *ctx, fdtd_run *r, const fdtd_ops *ops, void *state, long pad, long steps,
                             double *lrec, double *rec, int nrec, int gfeed);

/* ---- fields.c ---- */

int fdtd_uniform_mesh(const fdtd_input *in);

/* The fields at time t at cell centres: the volume (E, H, |E|, the
 * materials) by pieces from prefix or gathered on rank 0, and there the
 * slice sl (may be NULL) as .vtr and PNG.  Collective; 0, or -1 +
 * message. */
int fdtd_write_fields(const fdtd_cli *c, const fdtd_ops *ops, hd_ctx *ctx, void *state, const fdtd_run *r, long pad,
                      double t, const char *prefix, const fdtd_slice *sl, hd_out *vol, hd_out *slv, hd_out *png,
                      char *err, size_t errn);

/* ---- spectra_ranks.c ---- */

/* The spectra of the whole run on rank 0: every block's feeds, Huygens
 * points and map cells put in their whole-run places (zeros elsewhere)
 * and summed over the ranks, exact since one block gives each value; the
 * plane wave's source spectrum is the same on every block. */
typedef struct fdtd_spectra_run {
  double *feeds, *probes, *surf, *inc, *planes[FDTD_MAX_PLANES];
} fdtd_spectra_run;

void fdtd_spectra_run_free(fdtd_spectra_run *g);

/* excite=all: feed j driven, the others passive, in this block's feeds. */
void fdtd_drive_port(const fdtd_input *in, fdtd_run *r, int j);

/* One of excite=all's runs without outputs: port j driven, its feed
 * spectra into acc (4 x nfreq x nfeed, rank 0). */
hd_status fdtd_port_run(const fdtd_cli *c, fdtd_run *r, const fdtd_ops *ops, hd_ctx *ctx, fdtd_model *m, long pad,
                        int j, double *acc);

/* Every block's spectra into g (the volume's written as it goes, its
 * nearvolume_K lines on stdout).  Collective; 0, or -1 + message. */
int fdtd_gather_spectra(const fdtd_cli *c, const fdtd_ops *ops, hd_ctx *ctx, void *state, const fdtd_run *r,
                        fdtd_spectra_run *g, char *err, size_t en);

/* The frequency-domain results from g (rank 0): ports, far field, S
 * matrix, maps.  0, or -1 + message. */
int fdtd_write_spectra(const fdtd_cli *c, const fdtd_model *m, long steps, const fdtd_spectra_run *g, const long lo[3],
                       const long hi[3], double *const *runs, char *err, size_t en);

/* flux "x|y|z POS": the four tangential maps of the cell layer appended to
 * planes[*nplane].  0 or -1 + message. */
int fdtd_flux_parse(const fdtd_input *in, const char *text, fdtd_slice *planes, int *nplane, char *err, size_t n);

/* The flux planes' spectra (rank 0, after the maps): PREFIX_flux.csv and
 * PREFIX_fluxes.png (flux.c).  0, or -1 + message. */
int fdtd_spectra_flux(const fdtd_cli *c, const fdtd_model *m, long steps, const fdtd_spectra_run *g, char *err, size_t en);

#endif
