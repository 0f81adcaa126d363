/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-fdtd's decisions for the run loop (module.h): 3-D Yee FDTD (hd/fdtd.h)
 * from an input file of key = value lines or an OpenFDTD model (doc/fdtd.md),
 * or the built-in benchmark; this rank's block is block.c's, the final
 * fields fields.c's, the spectra over the ranks spectra_ranks.c's. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hd/fdtd_dft.h>

#include "checkpoint.h"
#include "fdtd_module.h"
#include "input_file.h"
#include "module.h"
#include "ofd.h"
#include "sys.h"

#define PROG "hd-fdtd"
#define ABOUT \
  "3-D Yee FDTD with Mur, PML, CPML, PEC and periodic boundaries; writes PREFIX_probes.csv, " \
  "PREFIX_average.csv, PREFIX.vti (or .vtr) and a slice with its picture." /* --help's line */

typedef struct fdtd_mod {
  fdtd_cli c; /* first: its first member is the loop's */
  fdtd_run r;
  fdtd_model m;
  fdtd_slice sl;
  const fdtd_ops *ops;
  void *state;
  int wave_choice, pw_form, have_slice, nrec, time_block;
  const char *time_block_why; /* why it steps singly */
  double *rec, *lrec, *rows;  /* the probes' rows of the whole run (rank 0); this block's; row sums */
  double cells, bytes, dft_bytes, emax, hmax;
  long every, pad, box_lo[3], box_hi[3];
  int converged, decayed;
  double decay_max, decay_window; /* stop-when-decayed: the largest square so far, and since the last check */
  double *runs[HD_FDTD_MAX_PORTS]; /* excite=all: each port's feed spectra */
  fdtd_spectra_run spec;
  int probes, avg, vol, slv, png; /* output slots */
} fdtd_mod;

/* What a checkpoint of this model must match on restart, on any rank
 * count: the time step, the boundaries and fingerprints of the whole
 * grid's mesh, materials, geometry and sources. */
static void ckpt_template(const fdtd_input *in, const fdtd_model *m, size_t real_size, hd_ckpt *ck) {
  uint32_t mesh = 0, mat = 0, src = 0;
  int a, k;
  memset(ck, 0, sizeof *ck);
  snprintf(ck->driver, sizeof ck->driver, "hd-fdtd");
  ck->real_size = (uint32_t)real_size;
  for (a = 0; a < 3; ++a) {
    ck->dims[a] = in->n[a];
    mesh = hd_crc32(mesh, in->node[a], (size_t)(in->n[a] + 1) * sizeof(double));
  }
  for (k = 0; k < in->nobj; ++k) { /* the geometry (member by member: no padding bytes) */
    const int shape[3] = {in->obj[k].mat, in->obj[k].shape, in->obj[k].axis};
    mat = hd_crc32(mat, shape, sizeof shape), mat = hd_crc32(mat, in->obj[k].v, sizeof in->obj[k].v);
  }
  mat = hd_crc32(mat, m->eps_r, (size_t)m->nmat * sizeof(double));
  mat = hd_crc32(mat, m->sigma, (size_t)m->nmat * sizeof(double));
  mat = hd_crc32(mat, m->mu_r, (size_t)m->nmat * sizeof(double));
  mat = hd_crc32(mat, m->sigma_m, (size_t)m->nmat * sizeof(double));
  mat = hd_crc32(mat, in->npole, (size_t)m->nmat * sizeof(int));
  mat = hd_crc32(mat, in->pole, (size_t)m->nmat * sizeof in->pole[0]);
  for (k = 0; k < in->nload; ++k) {
    const fdtd_load *l = &in->loads[k];
    const long at[4] = {l->comp, l->i, l->j, l->k};
    const double v[3] = {l->g, l->il, l->c};
    mat = hd_crc32(mat, at, sizeof at), mat = hd_crc32(mat, v, sizeof v);
  }
  for (k = 0; k < in->nfeed; ++k) {
    const fdtd_point *f = &in->feeds[k];
    const long at[4] = {f->comp, f->i, f->j, f->k};
    const double v[3] = {f->amp, f->r, f->delay};
    src = hd_crc32(src, at, sizeof at), src = hd_crc32(src, v, sizeof v);
  }
  { /* the waveform, member by member (a table by its samples, not its address) */
    const double w[3] = {m->wave.t0, m->wave.tau, m->wave.freq};
    src = hd_crc32(src, &m->wave.kind, sizeof m->wave.kind), src = hd_crc32(src, w, sizeof w);
    if (m->wave.kind == HD_FDTD_TABLE) src = hd_crc32(src, m->wave.tab, (size_t)(2 * m->wave.ntab) * sizeof(double));
  }
  if (m->pw_e0 != 0) { /* the plane wave as the backend gets it */
    src = hd_crc32(src, m->pw_k, sizeof m->pw_k), src = hd_crc32(src, m->pw_e, sizeof m->pw_e);
    src = hd_crc32(src, &m->pw_e0, sizeof m->pw_e0), src = hd_crc32(src, &m->pw_cell, sizeof m->pw_cell);
    src = hd_crc32(src, &m->pw_line, sizeof m->pw_line), src = hd_crc32(src, &m->bloch_beta, sizeof m->bloch_beta);
    src = hd_crc32(src, m->tfsf_lo, sizeof m->tfsf_lo), src = hd_crc32(src, m->tfsf_hi, sizeof m->tfsf_hi);
  }
  hd_ckpt_param(ck, "dt", "%.17g", m->dt);
  hd_ckpt_param(ck, "boundaries", "%d,%d,%d", m->bc[0], m->bc[1], m->bc[2]);
  hd_ckpt_param(ck, "pml", "%d,%d,%.17g", m->pml_layers, m->pml_order, m->pml_r0);
  for (a = 0; a < 3; ++a)
    if (m->bc[a] == HD_FDTD_BC_CPML) {
      hd_ckpt_param(ck, "cpml", "%.17g,%.17g", m->cpml_kappa, m->cpml_alpha);
      break;
    }
  if (m->dft_every > 1) hd_ckpt_param(ck, "dft_every", "%d", m->dft_every); /* the samples' spacing in the DFT buffers */
  hd_ckpt_param(ck, "mesh_crc", "%08x", mesh);
  hd_ckpt_param(ck, "materials_crc", "%08x", mat);
  hd_ckpt_param(ck, "sources_crc", "%08x", src);
  if (in->nprobe) { /* the probe CSV's columns */
    uint32_t pr = 0;
    for (k = 0; k < in->nprobe; ++k) {
      const long at[4] = {in->probes[k].comp, in->probes[k].i, in->probes[k].j, in->probes[k].k};
      pr = hd_crc32(pr, at, sizeof at);
    }
    hd_ckpt_param(ck, "probes_crc", "%d:%08x", in->nprobe, pr);
  }
}

/* --time-block=auto: where blocking pays, measured (doc/performance.md,
 * "FDTD past the memory wall"): on the CPU 4 once the six fields outgrow a
 * last-level cache (at 100^3 single, 24 MB, single steps are faster; at
 * 200^3 and 300^3 four steps a sweep are 1.3x); CUDA steps singly, and so
 * do absorbing layers (the blocks take their points one at a time, the
 * single steps by vectorised runs: 144^3 + 8 CPML layers, 1.5x faster). */
#define FDTD_AUTO_TIME_BLOCK_DOC "4 on the CPU backends where the fields pass 64 MB and no face has PML or CPML, else 1"
#define FDTD_AUTO_TIME_BLOCK_BYTES 64e6
static int auto_time_block(int backend, const fdtd_model *m, size_t real_size) {
  const double field_bytes = 6.0 * (double)real_size * (double)m->n[0] * (double)m->n[1] * (double)m->n[2];
  int a, layers = 0;
  for (a = 0; a < 3; ++a) layers |= m->bc[a] == HD_FDTD_BC_PML || m->bc[a] == HD_FDTD_BC_CPML;
  return backend == HD_B_CUDA || layers || field_bytes < FDTD_AUTO_TIME_BLOCK_BYTES ? 1 : 4;
}

/* --time-block=T|auto into the model; 0, or 1 with a message. */
static int parse_time_block(const char *arg, int backend, size_t real_size, fdtd_model *m, char *err, size_t n) {
  char *end;
  long t;
  if (!arg[0] || !strcmp(arg, "auto")) {
    m->time_block = auto_time_block(backend, m, real_size);
    return 0;
  }
  t = strtol(arg, &end, 10);
  if (end == arg || *end || t < 1 || t > FDTD_MAX_TIME_BLOCK) {
    snprintf(err, n, "--time-block: '%s' is not auto or a step count from 1 to %d", arg, FDTD_MAX_TIME_BLOCK);
    return 1;
  }
  m->time_block = (int)t;
  return 0;
}

/* --dft-decimation=D|auto into the model: auto samples the fields' DFTs
 * as sparsely as keeps the source's spectrum aliased onto their
 * frequencies below FDTD_DFT_ALIAS of its least there (hd_dft_decimation;
 * doc/fdtd.md gives the error against every step). */
#define FDTD_DFT_ALIAS 1e-8
static int parse_dft_every(const char *arg, int fields, fdtd_model *m, char *err, size_t n) {
  const int autod = !arg[0] || !strcmp(arg, "auto");
  char *end;
  long d = autod ? 1 : strtol(arg, &end, 10);
  if (!autod && (end == arg || *end || d < 1 || d > 1000000)) {
    snprintf(err, n, "dft-decimation: '%s' is not auto or a step count from 1 to 1000000", arg);
    return 1;
  }
  if (!fields) d = 1; /* no far field, maps or volume: nothing samples */
  else if (autod) d = hd_dft_decimation(&m->wave, m->freq + m->field_first, m->nfield, m->dt, FDTD_DFT_ALIAS);
  m->dft_every = (int)d;
  return 0;
}

static void print_time_block(int t, const char *why) {
  if (why) printf("time_block: 1 (%s)\n", why);
  else printf("time_block: %d\n", t);
}

/* Where the fields are transformed, the steps between their samples. */
static void print_dft_every(const fdtd_cli *c, const fdtd_model *m) {
  if (c->sp.ntheta || c->nplane || c->nearvolume)
    printf("dft_every: %d (%s)\n", m->dft_every, !c->dft_decimation[0] || !strcmp(c->dft_decimation, "auto") ? "auto" : "given");
}

static int options(void *self, cli_opt *opts, int max) {
  fdtd_mod *f = (fdtd_mod *)self;
  fdtd_cli *c = &f->c;
  const cli_opt o[] = {
      CLI_HEADING_ROW("Benchmark and kernels"),
      {"bench", CLI_INT, &c->bench, "N", "time the built-in N^3 benchmark (doc/fdtd.md), write nothing", 10, 2000, 0, NULL, 1, 0, 0},
      {"block", CLI_INTS, c->block, "X[,Y[,Z]]", "CUDA launch shape of the tuned kernels: X, Y threads and Z nodes marched (default: the device's tuned shape)", 1, 1024, 3, &c->nblock, 0, 0, 0},
      {"dft-decimation", CLI_STRING, c->dft_decimation, "D|auto", "the far field's, maps' and volume's running DFTs take every D-th step, each sample for D steps (feeds and probes take every step); auto: the largest D that keeps the source's spectrum aliased onto their frequencies below 1e-8 of its own there, 1 for a sine or a waveform file (default auto; doc/fdtd.md)", 1, 0, sizeof c->dft_decimation, NULL, 0, 0, 0},
      {"time-block", CLI_STRING, c->time_block, "T|auto", "time steps a sweep of memory, bit-identical to single steps (CUDA: 2 or 3 a launch; doc/fdtd.md says what steps singly) (default auto: " FDTD_AUTO_TIME_BLOCK_DOC ")", 1, 0, sizeof c->time_block, NULL, 0, 0, 0},
      CLI_HEADING_ROW("The model (doc/fdtd.md)"),
      {"xmesh", CLI_LIST, &c->in.xmesh, "X0 N1 X1 [N2 X2 ...]", "mesh lines along x: from X0 to X1 in N1 cells, ... (required)", 1, 0, 0, NULL, 0, 0, 0},
      {"ymesh", CLI_LIST, &c->in.ymesh, "Y0 N1 Y1 ...", "mesh lines along y (required)", 1, 0, 0, NULL, 0, 0, 0},
      {"zmesh", CLI_LIST, &c->in.zmesh, "Z0 N1 Z1 ...", "mesh lines along z (required)", 1, 0, 0, NULL, 0, 0, 0},
      {"material", CLI_LIST, &c->in.material, "EPSR SIGMA MUR SIGMAM [POLES]", "a material (repeat: numbered 2, 3, ...; 0 vacuum, 1 PEC); dispersive with poles 'debye DE TAU', 'drude FP GAMMA', 'lorentz DE F0 GAMMA' after (EPSR is then eps_inf)", 1, 0, 0, NULL, 0, 0, 0},
      {"geometry", CLI_LIST, &c->in.geometry, "M SHAPE ...", "an object of material M: box, ellipsoid, sphere, cylinder, x|y|zcylinder, x|y|zpillar, x|y|zpyramid, x|y|zcone, or OpenFDTD's shape numbers (repeat; later objects win)", 1, 0, 0, NULL, 0, 0, 0},
      {"subpixel", CLI_FLAG, &c->in.subpixel, "yes|no", "average eps and sigma over each E component's cell where an interface crosses it (Meep's anisotropic averaging, its diagonal): second order in the interface's position where the staircase is first (default yes; .ofd models: no, OpenFDTD's staircase); conductors and dispersive media keep the staircase", 1, 0, 0, NULL, 0, 0, 0},
      {"feed", CLI_LIST, &c->in.feed, "X|Y|Z X Y Z VOLTS OHMS [DELAY]", "a delta-gap feed on the edge nearest the point, its waveform delayed by DELAY seconds (repeat)", 1, 0, 0, NULL, 0, 0, 0},
      {"feed-release", CLI_FLAG, &c->in.feed_release, "yes|no", "a feed whose edge is no conductor is left to the update once its pulse has passed, as OpenFDTD does (default no: held at every step; .ofd models: yes)", 1, 0, 0, NULL, 0, 0, 0},
      {"source", CLI_LIST, &c->in.source, "X|Y|Z X Y Z AMPERES", "a soft point current source (repeat)", 1, 0, 0, NULL, 0, 0, 0},
      {"load", CLI_LIST, &c->in.load, "X|Y|Z X Y Z R|L|C VALUE", "a lumped resistor, inductor or capacitor on the edge nearest the point; loads on one edge are in parallel (repeat)", 1, 0, 0, NULL, 0, 0, 0},
      {"point", CLI_LIST, &c->in.point, "X|Y|Z X Y Z [+X|-X|+Y|-Y|+Z|-Z]", "a voltage point on the edge nearest (V = -E d, recorded as a probe); the first one's direction of travel (default +X) names the line on which its two waves are split: S11, Sn1 = V_n / V+ and, with feeds, the coupling Cn1 = V_n / V_feed1 at the frequencies (PREFIX_points.csv; OpenFDTD's point) (repeat)", 1, 0, 0, NULL, 0, 0, 0},
      {"probe", CLI_LIST, &c->in.probe, "ex|ey|ez|hx|hy|hz X Y Z", "record a field component every step (repeat)", 1, 0, 0, NULL, 0, 0, 0},
      CLI_HEADING_ROW("Boundaries"),
      {"boundary", CLI_STRING, c->in.bc_all, "pec|mur|pml|cpml|periodic", "boundary of every axis (default mur)", 1, 0, sizeof c->in.bc_all, NULL, 0, 0, 0},
      {"boundary-x", CLI_STRING, c->in.bc_axis[0], "pec|mur|pml|cpml|periodic", "boundary of both x faces (default: --boundary's)", 1, 0, sizeof c->in.bc_axis[0], NULL, 0, 0, 0},
      {"boundary-y", CLI_STRING, c->in.bc_axis[1], "pec|mur|pml|cpml|periodic", "boundary of both y faces (default: --boundary's)", 1, 0, sizeof c->in.bc_axis[1], NULL, 0, 0, 0},
      {"boundary-z", CLI_STRING, c->in.bc_axis[2], "pec|mur|pml|cpml|periodic", "boundary of both z faces (default: --boundary's)", 1, 0, sizeof c->in.bc_axis[2], NULL, 0, 0, 0},
      {"mur", CLI_CHOICE, &c->in.mur_h, "e|h", "first-order Mur on the tangential E of the boundary faces (e, default) or on the tangential H half a cell outside them (h, OpenFDTD's; .ofd models)", 1, 0, 0, NULL, 0, 0, 0},
      {"pml", CLI_REALS, c->in.pml, "L,M,R0", "PML or CPML layers, grading order, target reflection (default 8,4,1e-5; CPML 8,3,1e-6)", 1, 0, 3, &c->in.npml, 0, 0, 0},
      {"cpml", CLI_REALS, c->in.cpml, "KAPPA,ALPHA", "the convolutional PML's kappa_max and alpha_max in S/m (default 2,0.005; doc/fdtd.md)", 1, 0, 2, &c->in.ncpml, 0, 0, 0},
      CLI_HEADING_ROW("Sources in time, stepping"),
      {"waveform", CLI_CHOICE, &f->wave_choice, "gaussian|dgaussian|sine|mgaussian", "source waveform: a Gaussian pulse, its derivative, a ramped sine, or a Gaussian modulated at the frequency (Meep's GaussianSource) (default dgaussian)", 1, 0, 0, NULL, 0, 0, 0},
      {"waveform-file", CLI_STRING, c->wave_file, "PATH", "the source waveform from a file instead: TIME VALUE a line (seconds, the sources' factor), linear between samples and 0 outside them; in an input file, beside it (default: none)", 1, 0, sizeof c->wave_file, NULL, 0, 0, 0},
      {"frequency", CLI_REAL, &c->in.freq, "HZ", "pulse bandwidth (1/e of the spectrum), sine frequency, or mgaussian's centre (default: none; sources need it)", 1e-300, 1e300, 0, NULL, 0, 0, 0},
      {"bandwidth", CLI_REAL, &c->in.bandwidth, "HZ", "mgaussian's spectrum: down by 1/e this far either side of the frequency (default: half the frequency)", 1e-300, 1e300, 0, NULL, 0, 0, 0},
      {"timestep", CLI_REAL, &c->in.dt, "DT", "time step (default: courant x the Courant limit)", 1e-300, 1e300, 0, NULL, 0, 0, 0},
      {"courant", CLI_REAL, &c->in.courant, "S", "fraction of the Courant limit (default 0.99)", 1e-6, 1, 0, NULL, 0, 0, 0},
      {"steps", CLI_INT, &c->in.steps, "N", "time steps (default 2000)", 0, 1e12, 0, NULL, 0, 0, 0},
      {"average-every", CLI_INT, &c->average_every, "N", "field averages every N steps (default steps/100)", 1, 1e12, 0, NULL, 0, 0, 0},
      {"resonances", CLI_STRING, c->resonances, "FMIN FMAX [T0]", "the modes between FMIN and FMAX Hz in each probe's record from T0 seconds (default: the sources' pulses over): frequency, Q, amplitude, phase and an error estimate by the matrix pencil (Harminv's figures), printed and in PREFIX_resonances.csv (default: none)", 1, 0, sizeof c->resonances, NULL, 0, 0, 0},
      {"stop-when-decayed", CLI_STRING, c->in.decay, "COMP X Y Z FACTOR", "stop once |COMP|^2 at the point (ex ... hz, nearest component) over the last pulse length (2 t0) has stayed below FACTOR times its maximum so far, after the pulse (Meep's stop_when_fields_decayed) (default: none)", 1, 0, sizeof c->in.decay, NULL, 0, 0, 0},
      {"converge", CLI_REAL, &c->in.converge, "EPS", "stop once both averages fall below EPS x their maximum (default 0: off)", 0, 1, 0, NULL, 0, 0, 0},
      CLI_HEADING_ROW("Fields written"),
      {"volume", CLI_FLAG, &c->volume, "yes|no", "write the final fields as PREFIX.vti or .vtr (default yes)", 1, 0, 0, NULL, 0, 0, 0},
      {"pieces", CLI_FLAG, &c->pieces, "yes|no", "each rank (one too) writes its block of the final fields as PREFIX_pR.vti (non-uniform meshes: .vtr) and rank 0 the index PREFIX.pvti (.pvtr), no rank holding the whole grid (default no: rank 0 gathers the grid; no slice)", 1, 0, 0, NULL, 0, 0, 0},
      CLI_HEADING_ROW("Frequency domain: ports, far field, maps, plane waves"),
      {"frequencies", CLI_STRING, c->frequencies, "F|F0 F1 N", "frequency-domain results at F, or at N frequencies from F0 to F1: every feed's impedance, reflection and S-parameters (PREFIX_ports.csv, PREFIX.s1p), the far field (default: none)", 1, 0, sizeof c->frequencies, NULL, 0, 0, 0},
      {"farfield-frequencies", CLI_STRING, c->ffrequencies, "F|F0 F1 N", "the far field's, near-field maps' and volume's own frequencies (default: those of frequencies; OpenFDTD's frequency2)", 1, 0, sizeof c->ffrequencies, NULL, 0, 0, 0},
      {"farfield", CLI_STRING, c->farfield, "NTHETA NPHI", "far field of a Huygens box on NTHETA x NPHI directions: pattern, directivity, gain (PREFIX_farfield.csv, .vts); needs frequencies (default: none)", 1, 0, sizeof c->farfield, NULL, 0, 0, 0},
      {"huygens-margin", CLI_INT, &c->margin, "CELLS", "cells between the Huygens box and the boundary faces (default 5; 0, the faces themselves, with PML or mur = h: .ofd models)", 0, 1e9, 0, NULL, 0, 0, 0},
      {"nearfield", CLI_LIST, &c->nearfield, "COMP AXIS POS", "amplitude and phase of COMP (ex ... hz, or e, h: |E|, |H| and their components) on the cell layer at AXIS = POS at every frequency: PREFIX_nearK.vtr and .png (repeat; at most 16 planes with nearline and flux, e and h take three, a flux plane four)", 1, 0, 0, NULL, 0, 0, 0},
      {"flux", CLI_LIST, &c->flux, "x|y|z POS", "the Poynting flux through the cell layer at AXIS = POS at the far frequencies; under a plane wave also the incident and the scattered flux, their ratios a transmittance and a reflectance, with no normalisation run: PREFIX_flux.csv and PREFIX_fluxes.png (repeat)", 1, 0, 0, NULL, 0, 0, 0},
      {"nearline", CLI_LIST, &c->nearline, "COMP AXIS P1 P2", "the amplitude of COMP (as nearfield) along AXIS through the cell centres at P1, P2 on the next two axes (y z for x, z x for y, x y for z; OpenFDTD's plotnear1d) at the far frequencies: PREFIX_lineK.png beside its CSV (repeat)", 1, 0, 0, NULL, 0, 0, 0},
      {"planewave", CLI_STRING, c->planewave, "THETA PHI V|H [E0]", "a plane wave of E0 V/m (default 1) arriving from (THETA, PHI) degrees, E along -theta^ (V) or phi^ (H), with the waveform: total field inside a box 2 cells within the Huygens box, scattered field outside; with a far field, the radar cross-section (PREFIX_rcs.png)", 1, 0, sizeof c->planewave, NULL, 0, 0, 0},
      {"planewave-form", CLI_CHOICE, &c->pw.form, "auto|tfsf|sf|sf-closed", "the plane wave by a total-field box (tfsf) or in the scattered-field form (sf: any mesh, periodic cells, scatterers up to the boundary; no feeds), its incident field the grid's own wave from a 1-D line, or (sf-closed) the closed form travelling at c; auto: the box where the model allows it, else sf (default; .ofd models: sf-closed, OpenFDTD's)", 1, 0, 0, NULL, 0, 0, 0},
      {"nearvolume", CLI_FLAG, &c->nearvolume, "yes|no", "amplitude and phase of all six components in every cell at every frequency: PREFIX_dftK.vti (or .vtr), one file a frequency (default no)", 1, 0, 0, NULL, 0, 0, 0},
      {"excite", CLI_CHOICE, &c->excite, "given|all", "drive the feeds as given, or each port alone in a run of its own: the S-parameter matrix (PREFIX_sparams.csv, PREFIX.sNp) (default given)", 1, 0, 0, NULL, 0, 0, 0},
      {"matching-loss", CLI_FLAG, &c->sp.matching_loss, "yes|no", "gain against the power the feeds' sources make available, P / (1 - |reflection|^2): realised gain (OpenFDTD's matchingloss; default no: the power the ports accept)", 1, 0, 0, NULL, 0, 0, 0},
      {"z0", CLI_REAL, &c->z0, "OHMS", "reference impedance of the ports (default: each feed's resistance)", 1e-9, 1e12, 0, NULL, 0, 0, 0},
      CLI_HEADING_ROW("Pictures and plots (doc/fdtd.md)"),
      FDTD_PLOT_OPTIONS(c->pk),
      CLI_HEADING_ROW("The slice"),
      {"slice", CLI_STRING, c->slice, "COMP AXIS POS|none", "write PREFIX_slice.vtr and .png of COMP on the cell layer at AXIS = POS (default: ez on the middle z layer)", 1, 0, sizeof c->slice, NULL, 0, 0, 0}};
  c->volume = 1;
  c->margin = 5;
  f->wave_choice = HD_FDTD_DGAUSSIAN;
  fdtd_input_defaults(&c->in);
  fdtd_plot_keys_defaults(&c->pk);
  cli_set_dialect(&fdtd_ofd_dialect); /* --input=model.ofd */
  return HD_DRV_ROWS(opts, max, o);
}

/* The frequency-domain, near-field, plane-wave and far-field options. */
static int setup_spectra(hd_drv_run *r, fdtd_mod *f) {
  fdtd_cli *c = &f->c;
  char why[512];
  int k;
  if (c->ffrequencies[0] && !c->frequencies[0]) { /* the fields' alone: they are the run's */
    memcpy(c->frequencies, c->ffrequencies, sizeof c->frequencies);
    c->ffrequencies[0] = '\0';
  }
  if ((c->farfield[0] || c->nearfield.count || c->nearline.count || c->nearvolume || c->flux.count) && !c->frequencies[0])
    return hd_drv_bad(r, "%s: give the frequencies too",
                      c->farfield[0] ? "farfield" : c->nearvolume ? "nearvolume" : c->nearfield.count ? "nearfield"
                      : c->nearline.count ? "nearline" : "flux");
  if (fdtd_plots_parse(&c->plots, &c->pk, r->opts, c->com.input, r->err, sizeof r->err)) return HD_DRV_BAD_INPUT;
  if ((c->plots.far0d || c->plots.ncut || (c->plots.want & FDTD_PLOT_FAR2D)) && !c->farfield[0])
    return hd_drv_bad(r, "%s: give farfield too", c->plots.far0d ? "plot-far0d" : c->plots.ncut ? "plot-far1d" : "plot = far2d");
  c->sp.plots = &c->plots;
  for (k = 0; k < c->nearfield.count + c->nearline.count; ++k) { /* maps, then lines */
    const int line = k >= c->nearfield.count, q = line ? k - c->nearfield.count : k;
    const cli_list *l = line ? &c->nearline : &c->nearfield;
    if (fdtd_map_parse(&c->in, l->value[q], line, &c->map[c->nmap++], c->near, &c->nplane, why, sizeof why))
      return hd_drv_bad(r, "%s: %s", l->where[q], why);
  }
  for (k = 0; k < c->flux.count; ++k) { /* after the maps: four planes each */
    c->flux_first[c->nflux++] = c->nplane;
    if (fdtd_flux_parse(&c->in, c->flux.value[k], c->near, &c->nplane, why, sizeof why))
      return hd_drv_bad(r, "%s: %s", c->flux.where[k], why);
  }
  if (c->frequencies[0] && fdtd_spectra_frequencies(&c->sp, c->frequencies, c->ffrequencies, r->err, sizeof r->err))
    return HD_DRV_BAD_INPUT;
  if (c->farfield[0] && fdtd_spectra_farfield(&c->sp, c->farfield, r->err, sizeof r->err)) return HD_DRV_BAD_INPUT;
  c->sp.margin = c->margin, c->sp.z0 = c->z0, c->sp.excite_all = c->excite == 1;
  c->sp.outside_h = 1;
  for (k = 0; k < 3; ++k) {
    const int bc = fdtd_input_bc(&c->in, k);
    c->sp.periodic[k] = bc == HD_FDTD_BC_PERIODIC;
    c->sp.outside_h &= bc == HD_FDTD_BC_PERIODIC || bc == HD_FDTD_BC_PML || bc == HD_FDTD_BC_CPML ||
                       (bc == HD_FDTD_BC_MUR && c->in.mur_h);
  }
  if (c->planewave[0] && fdtd_planewave_parse(&c->pw, c->planewave, r->err, sizeof r->err)) return HD_DRV_BAD_INPUT;
  if (c->pw.on && !(c->in.freq > 0)) return hd_drv_bad(r, "planewave: the waveform needs a frequency > 0");
  c->sp.pw_theta = c->pw.theta, c->sp.pw_phi = c->pw.phi;
  if (c->pw.on && (f->pw_form = fdtd_planewave_form(&c->pw, &c->in, &c->sp, r->err, sizeof r->err)) < 0)
    return HD_DRV_BAD_INPUT;
  if (c->resonances[0]) {
    if (fdtd_resonance_parse(&c->res, c->resonances, r->err, sizeof r->err)) return HD_DRV_BAD_INPUT;
    if (!c->in.probe.count && !c->in.decay[0]) return hd_drv_bad(r, "resonances: give a probe: its record is analysed");
    if (c->in.waveform == HD_FDTD_SINE) return hd_drv_bad(r, "resonances: a sine never stops driving: give a pulse");
  }
  if (c->sp.excite_all) {
    const char *why_not = !c->sp.nfreq                                       ? "give the frequencies too"
                          : fdtd_spectra_ports_count(&c->in) != c->in.nfeed  ? "the model has soft sources; S-parameters take feeds alone"
                          : !c->in.nfeed                                     ? "the model has no feeds"
                          : c->in.nfeed > HD_FDTD_MAX_PORTS                  ? "more than 64 ports"
                          : c->pw.on                                         ? "not with a plane wave"
                          : c->com.restart[0] || c->com.ckpt_every[0]        ? "not yet with checkpoints or restarts"
                                                                             : NULL;
    if (why_not) return hd_drv_bad(r, "excite=all: %s", why_not);
  }
  if (c->sp.ntheta && fdtd_spectra_box(&c->sp, c->in.n, f->box_lo, f->box_hi, r->err, sizeof r->err)) {
    if (cli_find(r->opts, "farfield")->seen != 1 || !fdtd_ofd_farfield_line()) return HD_DRV_BAD_INPUT;
    snprintf(why, sizeof why, "the far field of plotfar (%.400s)", r->err); /* an .ofd's plot: dropped, not refused */
    fdtd_ofd_add_note(why, fdtd_ofd_farfield_line());
    c->farfield[0] = '\0', c->sp.ntheta = c->sp.nphi = 0;
  }
  return HD_DRV_OK;
}

static int setup(hd_drv_run *r) {
  fdtd_mod *f = (fdtd_mod *)r->self;
  fdtd_cli *c = &f->c;
  int k, keep = 0, rc, uni;
  c->in.waveform = f->wave_choice;
  if (c->wave_file[0]) {
    const cli_opt *o = cli_find(r->opts, "waveform-file");
    if (cli_find(r->opts, "waveform")->seen) return hd_drv_bad(r, "waveform-file: give it or a waveform, not both");
    hd_input_path(c->wave_file, c->com.input, o->seen == 1, c->in.wave_file, sizeof c->in.wave_file);
  }
  c->com.bench = c->bench > 0;
  if (c->bench) {
    const long steps = c->in.steps;
    if (c->in.xmesh.count || c->in.geometry.count || c->in.feed.count || c->wave_file[0])
      return hd_drv_bad(r, "--bench runs the built-in model: give no mesh, geometry, feeds or waveform-file");
    if (fdtd_input_benchmark(&c->in, c->bench, r->err, sizeof r->err)) return HD_DRV_BAD_INPUT;
    if (cli_find(r->opts, "steps")->seen) c->in.steps = steps; /* else the model's 2001 */
  } else if (fdtd_input_parse(&c->in, r->err, sizeof r->err)) {
    return HD_DRV_BAD_INPUT;
  }
  {
    const cli_opt *o = cli_find(r->opts, "timestep");
    if (o->seen == 1) snprintf(c->in.dt_where, sizeof c->in.dt_where, "%.200s:%d", c->com.input, o->line);
    else if (o->seen == 2) snprintf(c->in.dt_where, sizeof c->in.dt_where, "command line");
  }
  if ((rc = setup_spectra(r, f)) != HD_DRV_OK) return rc;
  if (!c->slice[0]) /* by default Ez on the middle z layer, where a z-directed feed usually sits */
    snprintf(c->slice, sizeof c->slice, "ez z %.17g", 0.5 * (c->in.node[2][0] + c->in.node[2][c->in.n[2]]));
  f->have_slice = strcmp(c->slice, "none") != 0;
  if (c->pieces) { /* no rank holds the whole grid: no slice from it */
    if (f->have_slice && cli_find(r->opts, "slice")->seen)
      return hd_drv_bad(r, "slice: needs the whole grid on one rank; with --pieces give --slice=none");
    f->have_slice = 0;
  }
  if (f->have_slice && fdtd_slice_parse(&c->in, c->slice, &f->sl, r->err, sizeof r->err)) return HD_DRV_BAD_INPUT;
  /* blocks of whole x rows; periodic axes stay whole (their wrap is local) */
  for (k = 1; k < 3; ++k)
    if (fdtd_input_bc(&c->in, k) == HD_FDTD_BC_PERIODIC) keep |= 1 << k;
  if (hd_decomp_create(&f->r.dc, 3, c->in.n, keep, 0, r->err, sizeof r->err)) return HD_DRV_BAD_INPUT;
  f->cells = (double)c->in.n[0] * c->in.n[1] * c->in.n[2];
  r->total = c->in.steps;
  uni = fdtd_uniform_mesh(&c->in);
  f->probes = hd_drv_slot(r, "_probes.csv", 1, HD_DRV_SERIES);
  f->avg = hd_drv_slot(r, "_average.csv", 1, HD_DRV_SERIES);
  f->vol = hd_drv_slot(r, c->pieces ? (uni ? ".pvti" : ".pvtr") : uni ? ".vti" : ".vtr", c->volume, 0);
  r->frame_suffix = r->slot[f->vol].suffix;
  f->slv = hd_drv_slot(r, "_slice.vtr", f->have_slice, 0);
  f->png = hd_drv_slot(r, "_slice.png", f->have_slice && HD_PNG_BUILT, HD_DRV_PICTURE);
  r->no_picture = f->have_slice ? HD_NO_PNG : c->pieces ? "--pieces: no rank holds the whole grid" : "--slice=none";
  r->work = f->cells, r->work_unit = "cell-step/s";
  return HD_DRV_OK;
}

static int open_backend(hd_drv_run *r) {
  fdtd_mod *f = (fdtd_mod *)r->self;
  fdtd_cli *c = &f->c;
  const fdtd_ops *ops;
  const long *ln = f->r.dc.ln;
  const double block = (double)ln[0] * ln[1] * ln[2];
  int k;
  hd_decomp_use_backend(&f->r.dc, r->core, &r->ctx);
  if (!(ops = f->ops = fdtd_ops_get(r->core->id, c->com.precision == 1)))
    return hd_drv_bad(r, "no kernels for this backend and precision");
  r->precision = ops->precision;
  if (c->com.variant == HD_VARIANT_TUNED && !ops->has_tuned)
    return hd_drv_bad(r, "--variant=tuned: backend %s has no tuned FDTD kernels", r->core->name);
  /* the running DFTs: 8 doubles a Huygens point and frequency and its
   * buffered samples, 4 a feed */
  f->dft_bytes = (8.0 * c->sp.nfar * 8.0 + 4.0 * HD_DFT_BUFFER * ops->real_size) *
                     (double)(c->sp.ntheta ? hd_dft_surface_points(f->box_lo, f->box_hi, NULL, NULL) : 0) +
                 8.0 * c->sp.nfreq * 4.0 * c->in.nfeed;
  if (c->nearvolume) /* every node: 12 sums of the run's precision a frequency, a buffer of samples */
    f->dft_bytes += (12.0 * c->sp.nfar + 6.0 * HD_DFT_VOLUME_BUFFER) * ops->real_size * (double)(c->in.n[0] + 1) *
                    (double)(c->in.n[1] + 1) * (double)(c->in.n[2] + 1);
  for (k = 0; k < c->nplane; ++k) /* and 2 a plane's cell */
    f->dft_bytes += 16.0 * c->sp.nfar * (double)c->in.n[c->near[k].axis == 0 ? 1 : 0] *
                    (double)c->in.n[c->near[k].axis == 2 ? 1 : 2];
  f->bytes = fdtd_model_bytes(&c->in, ln, ops->real_size) + f->dft_bytes;
  /* host: this block's six material arrays, and for the output a field in
   * double, a cell array, and on rank 0 seven cell arrays of the grid and
   * the spectra; the seven output arrays: of the grid on rank 0, or of
   * each block with --pieces */
  r->dev_bytes = f->bytes;
  r->host_bytes = f->bytes / (6.0 * ops->real_size + 6.0) * (6.0 + (c->com.bench ? 0.0 : 8.0)) +
                  (c->com.bench ? 0.0 : 8.0 * block + (r->root ? f->dft_bytes : 0.0)) +
                  (c->com.bench ? 0.0 : c->pieces ? 56.0 * block : r->root ? 56.0 * f->cells : 0.0);
  return HD_DRV_OK;
}

/* This block's model: materials, the points it holds, the map planes, the
 * Huygens surface, the plane wave, the time blocks. */
static int prepare(hd_drv_run *r) {
  fdtd_mod *f = (fdtd_mod *)r->self;
  fdtd_cli *c = &f->c;
  fdtd_run *b = &f->r;
  fdtd_model *m = &f->m;
  int k, bad = fdtd_input_build_block(&c->in, m, b->dc.off, b->dc.ln, r->err, sizeof r->err) != 0;
  if (hd_par_any(bad)) {
    if (!bad) snprintf(r->err, sizeof r->err, "building the model failed on another rank");
    return HD_DRV_BAD_INPUT;
  }
  if (hd_par_any(fdtd_block_points(b, &c->in))) return hd_drv_bad(r, "out of host memory");
  m->nfeed = b->nfeed, m->feed = b->feed, m->nprobe = b->nprobe, m->probe = b->probe;
  m->nload = b->nload, m->load = b->load;
  m->variant = c->com.variant;
  m->nfreq = c->sp.nfreq, m->freq = c->sp.freq, m->field_first = c->sp.far0, m->nfield = c->sp.nfar;
  c->sp.dt = r->dt = m->dt;
  for (m->nplane = 0; m->nplane < c->nplane; ++m->nplane) {
    const int a = c->near[m->nplane].axis;
    const long layer = c->near[m->nplane].layer - b->dc.off[a]; /* in this block, or -1 */
    m->plane_comp[m->nplane] = c->near[m->nplane].comp, m->plane_axis[m->nplane] = a;
    m->plane_layer[m->nplane] = layer >= 0 && layer < b->dc.ln[a] ? layer : -1;
  }
  if (c->sp.ntheta && hd_par_any(fdtd_block_surface(b, f->box_lo, f->box_hi)))
    return hd_drv_bad(r, "out of host memory for the Huygens surface");
  m->npts = b->npts, m->surf_face = b->surf_face, m->surf_ijk = b->surf_ijk;
  m->volume_dft = c->nearvolume;
  bad = c->pw.on && fdtd_planewave_setup(&c->pw, f->pw_form, &c->in, &c->sp, m, r->err, sizeof r->err);
  if (hd_par_any(bad)) {
    if (!bad)
      snprintf(r->err, sizeof r->err, "planewave: a material lies outside the total-field box (on another rank's block)");
    return HD_DRV_BAD_INPUT;
  }
  if (m->bloch) { /* what the twin does not take yet */
    const char *why_not = c->in.nload ? "not yet with loads"
                          : c->nearvolume ? "not yet with nearvolume" : c->sp.ntheta ? "no far field of a periodic cell" : NULL;
    for (k = 0; m->npole && k < m->nmat && !why_not; ++k)
      if (m->npole[k] > 0) why_not = "not yet with dispersive media";
    if (why_not) return hd_drv_bad(r, "planewave: oblique on a Bloch-periodic cell: %s", why_not);
  }
  for (k = 0; k < c->nblock; ++k) m->block[k] = (int)c->block[k];
  if (parse_time_block(c->time_block, r->core->id, c->com.precision == 1 ? sizeof(float) : sizeof(double), m, r->err,
                       sizeof r->err) ||
      parse_dft_every(c->dft_decimation, c->sp.ntheta || c->nplane || c->nearvolume, m, r->err, sizeof r->err))
    return HD_DRV_BAD_INPUT;
  f->pad = fdtd_pad(m);
  f->nrec = c->in.nprobe + 2 * c->in.nfeed;
  return HD_DRV_OK;
}

static void banner(hd_drv_run *r, char *text, size_t n) {
  const fdtd_mod *f = (const fdtd_mod *)r->self;
  snprintf(text, n, "%ld x %ld x %ld cells, %.3g GB%s", f->c.in.n[0], f->c.in.n[1], f->c.in.n[2], f->bytes / 1e9,
           r->ranks > 1 ? " a rank" : "");
}

/* What checkpoints save: the backend's state, and with resonances the
 * probe records so far (the analysis reads the whole run's; the same on
 * every rank). */
static int state_count(void *self) {
  const fdtd_mod *f = (const fdtd_mod *)self;
  return f->ops->state_count(f->state) + (f->c.res.on && f->nrec);
}

static hd_status state_io(hd_ctx *ctx, void *self, int k, char name[16], uint64_t *bytes, void *host, int save) {
  fdtd_mod *f = (fdtd_mod *)self;
  const size_t b = (size_t)f->c.in.steps * (size_t)f->nrec * sizeof(double);
  if (k < f->ops->state_count(f->state)) return f->ops->state_io(ctx, f->state, k, name, bytes, host, save);
  snprintf(name, 16, "probe_records"), *bytes = b;
  if (host) memcpy(save ? host : (void *)f->rec, save ? (const void *)f->rec : host, b);
  return HD_OK;
}

/* The notes on the model, excite=all's runs of every port but the last,
 * the state. */
static int create(hd_drv_run *r) {
  fdtd_mod *f = (fdtd_mod *)r->self;
  fdtd_cli *c = &f->c;
  const fdtd_model *m = &f->m;
  int k, bad, rc;
  if (r->root && fdtd_ofd_note()[0]) fprintf(stderr, PROG ": %s: not used:%s\n", c->com.input, fdtd_ofd_note());
  if (hd_par_any(m->media_out && f->pad > 1 &&
                 (m->bc[0] == HD_FDTD_BC_PML || m->bc[1] == HD_FDTD_BC_PML || m->bc[2] == HD_FDTD_BC_PML)) &&
      r->root)
    fprintf(stderr, PROG ": note: a medium crosses the split-field PML, which can ring or grow there (as OpenFDTD's "
                    "does); boundary = cpml absorbs it stably (doc/fdtd.md)\n");
  if (c->sp.excite_all) { /* a run for each port but the last, which the run below drives */
    for (k = 0; k < c->in.nfeed; ++k)
      if (!(f->runs[k] = (double *)calloc((size_t)4 * c->sp.nfreq * c->in.nfeed, sizeof(double))))
        return hd_fail(&r->ctx, HD_ERR_NOMEM, "out of host memory for the port runs"), HD_DRV_FAILED;
    for (k = 0; k < c->in.nfeed - 1; ++k)
      if (fdtd_port_run(c, &f->r, f->ops, &r->ctx, &f->m, f->pad, k, f->runs[k]) != HD_OK) return HD_DRV_FAILED;
    fdtd_drive_port(&c->in, &f->r, c->in.nfeed - 1);
  }
  /* every step's probe and feed records (zero until stepped: checkpoints write them) */
  f->rec = (double *)calloc((size_t)(c->in.steps > 0 ? c->in.steps : 1) * (f->nrec ? f->nrec : 1), sizeof(double));
  bad = !f->rec;
  if (!bad) bad = f->ops->create(&r->ctx, m, &f->state) != HD_OK;
  else hd_fail(&r->ctx, HD_ERR_NOMEM, "no host memory for the probe records");
  if ((rc = hd_drv_take_state(r, bad, f, state_count, state_io)) != HD_DRV_OK) return rc;
  f->time_block = f->ops->time_block(f->state, &f->time_block_why);
  if (f->r.dc.size > 1 && f->time_block > 1) /* the halos are exchanged after every step: advance takes one at a time */
    f->time_block = 1, f->time_block_why = "several ranks exchange their halos every step";
  ckpt_template(&c->in, m, f->ops->real_size, r->ck);
  if (c->res.on && f->nrec) hd_ckpt_param(r->ck, "probe_records", "%ld steps", c->in.steps); /* their array's size */
  hd_drv_ckpt_blocks(&r->ckp, &f->r.dc, f->pad, f->pad); /* on any rank count: nodes' rows, lists by key */
  r->ckp.rows.nodes = 1, r->ckp.kind = fdtd_ckpt_kind;
  return HD_DRV_OK;
}

static void destroy(hd_drv_run *r) {
  fdtd_mod *f = (fdtd_mod *)r->self;
  fdtd_cli *c = &f->c;
  int k;
  if (f->state) f->ops->destroy(&r->ctx, f->state);
  free(f->rec), free(f->lrec), free(f->rows);
  fdtd_block_free(&f->r);
  fdtd_input_free(&c->in);
  fdtd_spectra_free(&c->sp);
  fdtd_spectra_run_free(&f->spec);
  cli_list_free(&c->nearfield), cli_list_free(&c->nearline), cli_list_free(&c->flux);
  fdtd_plot_keys_free(&c->pk);
  for (k = 0; k < HD_FDTD_MAX_PORTS; ++k) free(f->runs[k]);
}

static int start(hd_drv_run *r) {
  fdtd_mod *f = (fdtd_mod *)r->self;
  const fdtd_cli *c = &f->c;
  int bad, k;
  hd_ckpt_get_value(r->ck, "e_max", &f->emax), hd_ckpt_get_value(r->ck, "h_max", &f->hmax); /* --converge's scale */
  hd_ckpt_get_value(r->ck, "decay_max", &f->decay_max), hd_ckpt_get_value(r->ck, "decay_window", &f->decay_window);
  f->lrec = (double *)malloc((size_t)256 * (size_t)(f->r.nprobe + 2 * f->r.nfeed + 1) * sizeof(double));
  f->rows = (double *)malloc((size_t)(2 * f->r.dc.ln[1] * f->r.dc.ln[2]) * sizeof(double));
  bad = !f->lrec || !f->rows;
  if (hd_par_any(bad))
    return hd_fail(&r->ctx, HD_ERR_NOMEM, bad ? "no host memory for the probe records" : "out of host memory on another rank"),
           HD_DRV_FAILED;
  f->every = r->cadence[0] = c->average_every > 0 ? c->average_every : (c->in.steps >= 100 ? c->in.steps / 100 : 1);
  if (c->in.decay_probe >= 0) r->cadence[1] = (long)fmax(1.0, ceil(2.0 * f->m.wave.t0 / f->m.dt)); /* the loop stops there */
  if (!r->root || r->cont) return HD_DRV_OK;
  {
    FILE *p = r->out[f->probes].f;
    fprintf(p, "step,time");
    for (k = 0; k < c->in.nprobe; ++k)
      fprintf(p, ",%s(%ld;%ld;%ld)", fdtd_comp_names[c->in.probes[k].comp], c->in.probes[k].i, c->in.probes[k].j,
              c->in.probes[k].k);
    for (k = 0; k < c->in.nfeed; ++k)
      fprintf(p, c->in.feeds[k].r < 0 ? ",source%d_v,source%d_i" : ",feed%d_v,feed%d_i", k + 1, k + 1);
    fprintf(p, "\n");
  }
  fprintf(r->out[f->avg].f, "step,time,e_average,h_average\n");
  return HD_DRV_OK;
}

static int advance(hd_drv_run *r, long steps) {
  fdtd_mod *f = (fdtd_mod *)r->self;
  return fdtd_block_advance(&r->ctx, &f->r, f->ops, f->state, f->pad, steps, f->lrec,
                            f->nrec ? f->rec + r->step * f->nrec : NULL, f->nrec, f->c.in.nfeed) == HD_OK
             ? HD_DRV_OK
             : HD_DRV_FAILED;
}

/* stop-when-decayed, the same on every rank: the square of its probe over
 * the last window (2 t0, the pulse's length: not the budget's cadence, so
 * that the stop does not move with it), once the pulse is over, against
 * the largest so far. */
static int decayed(hd_drv_run *r, fdtd_mod *f, long step, long steps) {
  const int q = f->c.in.decay_probe;
  const long from = step - steps, every = r->cadence[1];
  int stop = 0;
  long s;
  for (s = from; s < step && r->root; ++s) {
    const double v = f->rec[s * f->nrec + q] * f->rec[s * f->nrec + q];
    f->decay_max = fmax(f->decay_max, v), f->decay_window = fmax(f->decay_window, v);
    if ((s + 1) % every == 0) {
      stop |= (double)(s + 1) * f->m.dt > 2.0 * f->m.wave.t0 && f->m.wave.kind != HD_FDTD_SINE && f->decay_max > 0 &&
              f->decay_window < f->c.in.decay_factor * f->decay_max;
      f->decay_window = 0;
    }
  }
  hd_ckpt_set_value(r->ck, "decay_max", f->decay_max), hd_ckpt_set_value(r->ck, "decay_window", f->decay_window);
  return hd_par_any(stop);
}

/* The probes' rows of the chunk, the field averages, blow-ups and --converge. */
static int after(hd_drv_run *r, long steps) {
  fdtd_mod *f = (fdtd_mod *)r->self;
  const fdtd_cli *c = &f->c;
  const long step = r->step;
  double e, h, sums[2];
  long s2;
  int bad = f->ops->row_sums(&r->ctx, f->state, f->rows) != HD_OK;
  if (hd_par_any(bad)) {
    if (!bad) hd_fail(&r->ctx, HD_ERR_IO, "the run failed on another rank");
    return HD_DRV_FAILED;
  }
  if (hd_decomp_row_sums(&f->r.dc, f->rows, 2, sums, r->err, sizeof r->err))
    return hd_fail(&r->ctx, HD_ERR_IO, "%s", r->err), HD_DRV_FAILED;
  e = sums[0] / (4.0 * f->cells), h = sums[1] / (2.0 * f->cells);
  for (s2 = step - steps; s2 < step && r->root; ++s2) {
    FILE *p = r->out[f->probes].f;
    int q;
    fprintf(p, "%ld,%.9e", s2 + 1, (s2 + 1) * f->m.dt);
    for (q = 0; q < f->nrec; ++q) fprintf(p, ",%.9e", f->rec[s2 * f->nrec + q]);
    fprintf(p, "\n");
  }
  if (!hd_isfinite(e) || !hd_isfinite(h)) { /* every rank sees the same sums */
    if (r->root)
      fprintf(stderr, PROG ": error: non-finite %s field after step %ld (dt = %g, Courant limit %g)%s\n",
              !hd_isfinite(e) && !hd_isfinite(h) ? "E and H" : !hd_isfinite(e) ? "E" : "H", step, f->m.dt,
              fdtd_input_dt_max(&c->in), hd_drv_ckpt_note(r));
    return 1;
  }
  if (c->in.decay_probe >= 0 && decayed(r, f, step, steps)) f->decayed = f->converged = r->stop = 1;
  if (step % f->every == 0 || step == c->in.steps) { /* not at checkpoints between: the series is the cadence's */
    if (r->root) fprintf(r->out[f->avg].f, "%ld,%.9e,%.9e,%.9e\n", step, step * f->m.dt, e, h);
    f->emax = fmax(f->emax, e), f->hmax = fmax(f->hmax, h);
    if (c->in.converge > 0 && f->emax > 0 && e < c->in.converge * f->emax && h < c->in.converge * f->hmax)
      f->converged = r->stop = 1;
  }
  hd_ckpt_set_value(r->ck, "e_max", f->emax), hd_ckpt_set_value(r->ck, "h_max", f->hmax);
  return HD_DRV_OK;
}

/* A frame: the volume at this step. */
static int frame(hd_drv_run *r, hd_out *o, const char *prefix) {
  fdtd_mod *f = (fdtd_mod *)r->self;
  if (fdtd_write_fields(&f->c, f->ops, &r->ctx, f->state, &f->r, f->pad, (double)r->step * f->m.dt, prefix, NULL, o, NULL,
                        NULL, r->err, sizeof r->err))
    return hd_fail(&r->ctx, HD_ERR_IO, "%s", r->err), HD_DRV_FAILED;
  return HD_DRV_OK;
}

static int finish(hd_drv_run *r) {
  fdtd_mod *f = (fdtd_mod *)r->self;
  if ((f->c.volume || f->have_slice) &&
      fdtd_write_fields(&f->c, f->ops, &r->ctx, f->state, &f->r, f->pad, (double)r->step * f->m.dt, f->c.com.output,
                        f->have_slice ? &f->sl : NULL, f->c.volume ? &r->out[f->vol] : NULL,
                        f->have_slice ? &r->out[f->slv] : NULL, r->slot[f->png].want ? &r->out[f->png] : NULL, r->err,
                        sizeof r->err))
    return hd_fail(&r->ctx, HD_ERR_IO, "%s", r->err), HD_DRV_FAILED;
  return HD_DRV_OK;
}

static const char *boundary(const fdtd_input *in, int a) { return in->bc_axis[a][0] ? in->bc_axis[a] : in->bc_all; }

/* The spectra gathered (every rank), the keys, the frequency-domain
 * results and the plots. */
static int summary(hd_drv_run *r, FILE *out) {
  fdtd_mod *f = (fdtd_mod *)r->self;
  const fdtd_cli *c = &f->c;
  const fdtd_input *in = &c->in;
  const double done = f->cells * (double)(r->step - r->step0);
  if (c->sp.nfreq && fdtd_gather_spectra(c, f->ops, &r->ctx, f->state, &f->r, &f->spec, r->err, sizeof r->err))
    return hd_fail(&r->ctx, HD_ERR_IO, "%s", r->err), HD_DRV_FAILED;
  if (!r->root) return HD_DRV_OK;
  fprintf(out, "cells: %ld x %ld x %ld\nboundaries: %s %s %s\nmaterials: %d\nobjects: %d\nfeeds_and_sources: %d\n"
          "probes: %d\ndt: %.9e\ndt_limit: %.9e\nsteps: %ld\nconverged: %s\nmemory_GB: %.4g\n"
          "mcells_steps_per_second: %.6g\nsteps_mcells_steps_per_second: %.6g\n",
          in->n[0], in->n[1], in->n[2], boundary(in, 0), boundary(in, 1), boundary(in, 2), in->nmat, in->nobj,
          in->nfeed, in->nprobe, f->m.dt, fdtd_input_dt_max(in), r->step, f->converged ? "yes" : "no", f->bytes / 1e9,
          r->wall > 0 ? done / r->wall / 1e6 : 0.0, r->steps_wall > 0 ? done / r->steps_wall / 1e6 : 0.0);
  if (in->decay_probe >= 0) fprintf(out, "decayed: %s\n", f->decayed ? "yes" : "no");
  if (in->waveform == HD_FDTD_TABLE)
    fprintf(out, "waveform: %s (%ld samples, %.6g to %.6g s)\n", in->wave_file, in->wave_ntab, in->wave_tab[0],
            in->wave_tab[in->wave_ntab - 1]);
  fprintf(out, "subpixel: %s\n", in->subpixel ? "yes" : "no");
  if (in->subpixel) fprintf(out, "subpixel_components: %ld\n", in->subpixel_done);
  if (c->pw.on) fprintf(out, "planewave: %s\n", f->m.pw_sf ? "scattered-field form" : "total-field box");
  if (c->pw.on && f->m.pw_sf)
    fprintf(out, "planewave_incident: %s%s\n",
            f->m.pw_line == 1   ? "the grid's wave, a line of the cells along "
            : f->m.pw_line == 2 ? "a line matched to the grid's wave at the mean frequency"
                                : "closed form",
            f->m.pw_line == 1 ? (const char *[]){"x", "y", "z"}[f->m.pw_axis] : "");
  if (c->pw.on && f->m.bloch) /* the angle holds at the waveform's frequency; at f it is asin(c beta / (2 pi f)) */
    fprintf(out, "bloch: %c %.9g rad/m\n", 'x' + f->m.bloch_axis, f->m.bloch_beta);
  print_time_block(f->time_block, f->time_block_why);
  print_dft_every(c, &f->m);
  if (c->res.on) {
    double t0 = c->res.t0;
    int k;
    if (t0 < 0) /* the pulses over: twice their peak's time, and the feeds' delays */
      for (t0 = 2 * f->m.wave.t0, k = 0; k < in->nfeed; ++k) t0 = fmax(t0, 2 * f->m.wave.t0 + in->feeds[k].delay);
    if (fdtd_resonances_write(&c->res, in, f->rec, f->nrec, r->step, (long)ceil(t0 / f->m.dt), f->m.dt, c->com.output,
                              r->err, sizeof r->err)) {
      fprintf(stderr, PROG ": error: %s\n", r->err);
      return 1;
    }
  }
  if ((c->sp.nfreq && fdtd_write_spectra(c, &f->m, r->step, &f->spec, f->box_lo, f->box_hi, f->runs, r->err,
                                         sizeof r->err)) ||
      fdtd_plots_series(&c->plots, in, c->com.output, r->err, sizeof r->err)) {
    fprintf(stderr, PROG ": error: %s\n", r->err);
    return 1;
  }
  return HD_DRV_OK;
}

typedef struct fdtd_bench {
  hd_ctx *ctx;
  const fdtd_ops *ops;
  void *state;
} fdtd_bench;

static hd_status fdtd_bench_steps(void *arg, long steps) {
  fdtd_bench *b = (fdtd_bench *)arg;
  return b->ops->advance(b->ctx, b->state, steps, NULL, NULL, NULL);
}

/* --bench=N: five rounds, each against a copy of the six fields. */
static int bench(hd_drv_run *r) {
  fdtd_mod *f = (fdtd_mod *)r->self;
  const fdtd_cli *c = &f->c;
  const fdtd_ops *ops = f->ops;
  const int rounds = 5;
  const long per_round = c->in.steps >= rounds ? c->in.steps / rounds : 1;
  const double per = 78.0 * ops->real_size / 4.0; /* compulsory bytes a cell-step */
  fdtd_bench b;
  double bw = 0.0, sec = 0.0;
  int rc;
  if ((rc = create(r)) != HD_DRV_OK) return rc;
  b.ctx = &r->ctx, b.ops = ops, b.state = f->state;
  if (ops->advance(&r->ctx, f->state, 10, NULL, NULL, NULL) != HD_OK || r->core->sync(&r->ctx) != HD_OK ||
      hd_drv_bench_rounds(&r->ctx, r->core, fdtd_bench_steps, &b, per_round, rounds,
                          (size_t)fmin(f->cells * ops->real_size * 6.0, 4e9), &sec, &bw) != HD_OK)
    return HD_DRV_FAILED;
  r->bench_rate = f->cells / sec, r->bench_unit = "cell-steps/s", r->bench_ceiling = bw / per;
  printf("kernels: %s\nbenchmark: %ld^3 cells, %ld steps (%d rounds, the best), boundaries %s %s %s\n"
         "seconds_per_step: %.6g\nmcells_steps_per_second: %.6g\nbytes_per_cell_step: %.0f (6 fields read, 3 written per half step, 6 index bytes)\n"
         "effective_GB_per_second: %.6g\ncopy_GB_per_second: %.6g\nfraction_of_byte_floor: %.3f\n",
         ops->has_tuned && c->com.variant != HD_VARIANT_GENERIC ? "tuned" : "generic", c->bench, per_round * rounds,
         rounds, boundary(&c->in, 0), boundary(&c->in, 1), boundary(&c->in, 2), sec, r->bench_rate / 1e6, per,
         r->bench_rate * per / 1e9, bw / 1e9, bw > 0 ? r->bench_rate * per / bw : 0.0);
  print_time_block(f->time_block, f->time_block_why);
  print_dft_every(c, &f->m);
  return HD_DRV_OK;
}

const hd_drv_module hd_fdtd_module = {
    .prog = PROG, .about = ABOUT, .output = "fdtd", .size = sizeof(fdtd_mod), .cuda_ranks = 1, .own_bench = 1, .memory = "the model",
    .options = options, .setup = setup, .open = open_backend, .bench = bench, .prepare = prepare, .banner = banner,
    .create = create, .start = start, .advance = advance, .after = after, .frame = frame, .frames = 0, .finish = finish,
    .summary = summary, .destroy = destroy};
