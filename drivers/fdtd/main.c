/* hd-fdtd: 3-D Yee FDTD on the serial, OpenMP or CUDA backend, from an
 * input file of key = value lines (doc/fdtd.md) or the built-in benchmark.
 * Everything is checked and every output opened before the run; exit status
 * 0 success, 1 run-time failure, 2 bad usage or input. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "driver.h"
#include "fdtd_ops.h"
#include "model.h"
#include "output.h"
#include "sys.h"

#define PROG "hd-fdtd"

typedef struct fdtd_cli {
  hd_drv_common com;
  fdtd_input in;
  long bench, average_every, block[3];
  int nblock;
  char slice[128];
} fdtd_cli;

typedef struct fdtd_slice {
  int comp, axis;
  long layer; /* cell layer normal to axis */
} fdtd_slice;

/* What a checkpoint of this model must match on restart: the time step,
 * the boundaries and fingerprints of the mesh, materials and sources. */
static void ckpt_template(const fdtd_input *in, const fdtd_model *m, size_t real_size, hd_ckpt *ck) {
  const long pad = fdtd_pad(m);
  const size_t cells = (size_t)(m->n[0] + 1 + 2 * pad) * (size_t)(m->n[1] + 1 + 2 * pad) * (size_t)(m->n[2] + 1 + 2 * pad);
  uint32_t mesh = 0, mat = 0, src = 0;
  int a;
  memset(ck, 0, sizeof *ck);
  snprintf(ck->driver, sizeof ck->driver, "hd-fdtd");
  ck->real_size = (uint32_t)real_size;
  for (a = 0; a < 3; ++a) {
    ck->dims[a] = m->n[a];
    mesh = hd_crc32(mesh, in->node[a], (size_t)(m->n[a] + 1) * sizeof(double));
  }
  for (a = 0; a < 6; ++a) mat = hd_crc32(mat, m->mat[a], cells);
  mat = hd_crc32(mat, m->eps_r, (size_t)m->nmat * sizeof(double));
  mat = hd_crc32(mat, m->sigma, (size_t)m->nmat * sizeof(double));
  mat = hd_crc32(mat, m->mu_r, (size_t)m->nmat * sizeof(double));
  mat = hd_crc32(mat, m->sigma_m, (size_t)m->nmat * sizeof(double));
  src = hd_crc32(src, m->feed, (size_t)m->nfeed * sizeof *m->feed);
  src = hd_crc32(src, &m->wave, sizeof m->wave);
  hd_ckpt_param(ck, "dt", "%.17g", m->dt);
  hd_ckpt_param(ck, "boundaries", "%d,%d,%d", m->bc[0], m->bc[1], m->bc[2]);
  hd_ckpt_param(ck, "pml", "%d,%d,%.17g", m->pml_layers, m->pml_order, m->pml_r0);
  hd_ckpt_param(ck, "mesh_crc", "%08x", mesh);
  hd_ckpt_param(ck, "materials_crc", "%08x", mat);
  hd_ckpt_param(ck, "sources_crc", "%08x", src);
}

static const char *const comp_names[6] = {"ex", "ey", "ez", "hx", "hy", "hz"};

static int parse_slice(const fdtd_input *in, const char *s, fdtd_slice *sl, char *err, size_t n) {
  char name[16], ax[16];
  double pos;
  int c;
  if (sscanf(s, "%15s %15s %lf", name, ax, &pos) != 3) {
    snprintf(err, n, "slice: expected 'ex|ey|ez|hx|hy|hz x|y|z position'");
    return -1;
  }
  for (sl->comp = -1, c = 0; c < 6; ++c)
    if (!strcmp(name, comp_names[c])) sl->comp = c;
  sl->axis = !strcmp(ax, "x") ? 0 : !strcmp(ax, "y") ? 1 : !strcmp(ax, "z") ? 2 : -1;
  if (sl->comp < 0 || sl->axis < 0) {
    snprintf(err, n, "slice: expected 'ex|ey|ez|hx|hy|hz x|y|z position'");
    return -1;
  }
  if (pos < in->node[sl->axis][0] || pos > in->node[sl->axis][in->n[sl->axis]]) {
    snprintf(err, n, "slice: %g is outside the domain along %s", pos, ax);
    return -1;
  }
  for (sl->layer = 0; sl->layer < in->n[sl->axis] - 1 && in->node[sl->axis][sl->layer + 1] <= pos; ++sl->layer) {
  }
  return 0;
}

/* Component comp averaged to the centre of cell (i, j, k) (physical): the
 * mean of its four (E) or two (H) positions around the centre. */
static double cell_value(const double *f, int comp, const hd_grid *g, long pad, long i, long j, long k) {
  const int c = comp % 3, u = (c + 1) % 3, v = (c + 2) % 3;
  const hd_idx n = hd_grid_at(g, i + pad, j + pad, k + pad), su = g->stride[u], sv = g->stride[v];
  const hd_idx sc = g->stride[c];
  if (comp < 3) return 0.25 * (f[n] + f[n + su] + f[n + sv] + f[n + su + sv]);
  return 0.5 * (f[n] + f[n + sc]);
}

static int uniform_mesh(const fdtd_input *in) {
  int a;
  long k;
  for (a = 0; a < 3; ++a) {
    const double d = (in->node[a][in->n[a]] - in->node[a][0]) / (double)in->n[a];
    for (k = 0; k < in->n[a]; ++k)
      if (fabs(in->node[a][k + 1] - in->node[a][k] - d) > 1e-9 * d) return 0;
  }
  return 1;
}

/* Final fields at cell centres: the volume (six components and |E|) and,
 * if asked, one slice as .vtr/.vti and PNG. */
static int write_fields(const fdtd_cli *c, const fdtd_ops *ops, hd_ctx *ctx, void *state,
                        const fdtd_model *m, const fdtd_slice *sl, hd_out *vol, hd_out *slv, hd_out *png,
                        char *err, size_t errn) {
  const long pad = fdtd_pad(m), nx = m->n[0], ny = m->n[1], nz = m->n[2];
  const double cells = (double)nx * ny * nz;
  hd_grid g;
  double *f = NULL, *cc[7] = {0};
  hd_vti_array arr[7];
  int comp, rc = -1;
  long i, j, k;
  static const char *const names[7] = {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz", "E"};
  if (!hd_grid_init(&g, 3, nx + 1, ny + 1, nz + 1, pad)) return -1;
  f = (double *)malloc((size_t)g.total * sizeof(double));
  for (comp = 0; comp < 7; ++comp) cc[comp] = (double *)malloc((size_t)cells * sizeof(double));
  for (comp = 0; comp < 7; ++comp)
    if (!cc[comp]) f = NULL;
  if (!f) {
    snprintf(err, errn, "out of host memory for the field output");
    goto done;
  }
  for (comp = 0; comp < 6; ++comp) {
    size_t q = 0;
    if (ops->download(ctx, state, comp, f) != HD_OK) {
      snprintf(err, errn, "%s", ctx->msg);
      goto done;
    }
    for (k = 0; k < nz; ++k)
      for (j = 0; j < ny; ++j)
        for (i = 0; i < nx; ++i) cc[comp][q++] = cell_value(f, comp, &g, pad, i, j, k);
  }
  for (i = 0; i < (long)cells; ++i) cc[6][i] = sqrt(cc[0][i] * cc[0][i] + cc[1][i] * cc[1][i] + cc[2][i] * cc[2][i]);
  for (comp = 0; comp < 7; ++comp) arr[comp].name = names[comp], arr[comp].data = cc[comp], arr[comp].single = ops->real_size == 4;
  {
    const int64_t n64[3] = {nx, ny, nz};
    const double dx[3] = {(m->node[0][nx] - m->node[0][0]) / nx, (m->node[1][ny] - m->node[1][0]) / ny,
                          (m->node[2][nz] - m->node[2][0]) / nz};
    const int uni = uniform_mesh(&c->in);
    if ((uni ? hd_vti_write(vol, n64, dx, arr, 7) : hd_vtr_write(vol, n64, m->node, arr, 7))) {
      snprintf(err, errn, "cannot write %.900s", vol->path);
      goto done;
    }
    if (sl) {
      /* the slice: the cell layer normal to the axis, as a one-cell-thick
       * volume and as a picture (first in-plane axis across, second up) */
      const int a = sl->axis, u = a == 0 ? 1 : 0, v = a == 2 ? 1 : 2;
      const long nu = m->n[u], nv = m->n[v];
      double *pl = (double *)malloc((size_t)nu * nv * sizeof(double)), *pic, vmax = 0.0;
      int64_t sn[3];
      const double *sx[3];
      double lay[2];
      hd_vti_array sa;
      long p, q2;
      if (!pl) {
        snprintf(err, errn, "out of host memory for the slice");
        goto done;
      }
      for (q2 = 0; q2 < nv; ++q2)
        for (p = 0; p < nu; ++p) {
          long id[3];
          id[a] = sl->layer, id[u] = p, id[v] = q2;
          pl[q2 * nu + p] = cc[sl->comp][(id[2] * ny + id[1]) * nx + id[0]];
          vmax = fmax(vmax, fabs(pl[q2 * nu + p]));
        }
      sn[a] = 1, sn[u] = nu, sn[v] = nv;
      lay[0] = m->node[a][sl->layer], lay[1] = m->node[a][sl->layer + 1];
      sx[a] = lay, sx[u] = m->node[u], sx[v] = m->node[v];
      sa.name = comp_names[sl->comp], sa.data = pl, sa.single = ops->real_size == 4;
      /* cell data in x-fastest order of the slab: the in-plane layout above
       * is already x-fastest when u < v */
      if (hd_vtr_write(slv, sn, sx, &sa, 1)) {
        free(pl);
        snprintf(err, errn, "cannot write %.900s", slv->path);
        goto done;
      }
      pic = (double *)malloc((size_t)nu * nv * sizeof(double));
      if (!pic) {
        free(pl);
        snprintf(err, errn, "out of host memory for the slice");
        goto done;
      }
      for (q2 = 0; q2 < nv; ++q2)
        for (p = 0; p < nu; ++p) pic[(nv - 1 - q2) * nu + p] = pl[q2 * nu + p]; /* up is +v */
      rc = hd_png_write(png, (int)nu, (int)nv, pic, vmax, err, errn);
      free(pic);
      free(pl);
      if (rc) goto done;
    }
  }
  rc = 0;
done:
  free(f);
  for (comp = 0; comp < 7; ++comp) free(cc[comp]);
  return rc;
}

int main(int argc, char **argv) {
  fdtd_cli c;
  fdtd_model m;
  fdtd_slice sl;
  const fdtd_ops *ops;
  const hd_core_ops *core;
  hd_ctx ctx;
  hd_out probes, avg, vol, slv, png;
  hd_progress prog;
  char err[1024], why[512], path[4096 + 32];
  void *state = NULL;
  double *rec = NULL, t0, wall = 0.0, emax = 0.0, hmax = 0.0, cells, bytes;
  long step = 0, step0 = 0, every;
  int rc, k, have_slice = 0, converged = 0, nrec, cp;
  hd_drv_ckpt ckp;
  static hd_ckpt ck;
  char ckpath[4096 + 32] = "";
  int wave_choice = HD_FDTD_DGAUSSIAN;
  cli_opt opts[] = {
      HD_DRV_COMMON_OPTIONS(c.com),
      HD_DRV_CHECKPOINT_OPTIONS(c.com),
      {"bench", CLI_INT, &c.bench, "N", "time the built-in N^3 benchmark (doc/fdtd.md), write nothing", 10, 2000, 0, NULL, 1, 0, 0},
      {"block", CLI_INTS, c.block, "X[,Y[,Z]]", "CUDA launch shape of the tuned kernels: X, Y threads and Z nodes marched", 1, 1024, 3, &c.nblock, 0, 0, 0},
      {"xmesh", CLI_LIST, &c.in.xmesh, "X0 N1 X1 [N2 X2 ...]", "mesh lines along x: from X0 to X1 in N1 cells, ...", 1, 0, 0, NULL, 0, 0, 0},
      {"ymesh", CLI_LIST, &c.in.ymesh, "Y0 N1 Y1 ...", "mesh lines along y", 1, 0, 0, NULL, 0, 0, 0},
      {"zmesh", CLI_LIST, &c.in.zmesh, "Z0 N1 Z1 ...", "mesh lines along z", 1, 0, 0, NULL, 0, 0, 0},
      {"material", CLI_LIST, &c.in.material, "EPSR SIGMA MUR SIGMAM", "a material (repeat: numbered 2, 3, ...; 0 vacuum, 1 PEC)", 1, 0, 0, NULL, 0, 0, 0},
      {"geometry", CLI_LIST, &c.in.geometry, "M box|sphere|cylinder ...", "an object of material M (repeat; later objects win)", 1, 0, 0, NULL, 0, 0, 0},
      {"feed", CLI_LIST, &c.in.feed, "X|Y|Z X Y Z VOLTS OHMS", "a delta-gap feed on the edge nearest the point (repeat)", 1, 0, 0, NULL, 0, 0, 0},
      {"source", CLI_LIST, &c.in.source, "X|Y|Z X Y Z AMPERES", "a soft point current source (repeat)", 1, 0, 0, NULL, 0, 0, 0},
      {"probe", CLI_LIST, &c.in.probe, "ex|ey|ez|hx|hy|hz X Y Z", "record a field component every step (repeat)", 1, 0, 0, NULL, 0, 0, 0},
      {"boundary", CLI_STRING, c.in.bc_all, "pec|mur|pml|periodic", "boundary of every axis (default mur)", 1, 0, sizeof c.in.bc_all, NULL, 0, 0, 0},
      {"boundary-x", CLI_STRING, c.in.bc_axis[0], "pec|mur|pml|periodic", "boundary of both x faces", 1, 0, sizeof c.in.bc_axis[0], NULL, 0, 0, 0},
      {"boundary-y", CLI_STRING, c.in.bc_axis[1], "pec|mur|pml|periodic", "boundary of both y faces", 1, 0, sizeof c.in.bc_axis[1], NULL, 0, 0, 0},
      {"boundary-z", CLI_STRING, c.in.bc_axis[2], "pec|mur|pml|periodic", "boundary of both z faces", 1, 0, sizeof c.in.bc_axis[2], NULL, 0, 0, 0},
      {"pml", CLI_REALS, c.in.pml, "L,M,R0", "PML layers, grading order, target reflection (default 8,4,1e-5)", 1, 0, 3, &c.in.npml, 0, 0, 0},
      {"waveform", CLI_CHOICE, &wave_choice, "gaussian|dgaussian|sine", "source waveform (default dgaussian)", 1, 0, 0, NULL, 0, 0, 0},
      {"frequency", CLI_REAL, &c.in.freq, "HZ", "pulse bandwidth (1/e of the spectrum) or sine frequency", 1e-300, 1e300, 0, NULL, 0, 0, 0},
      {"timestep", CLI_REAL, &c.in.dt, "DT", "time step (default: courant x the Courant limit)", 1e-300, 1e300, 0, NULL, 0, 0, 0},
      {"courant", CLI_REAL, &c.in.courant, "S", "fraction of the Courant limit (default 0.99)", 1e-6, 1, 0, NULL, 0, 0, 0},
      {"steps", CLI_INT, &c.in.steps, "N", "time steps (default 2000)", 0, 1e12, 0, NULL, 0, 0, 0},
      {"average-every", CLI_INT, &c.average_every, "N", "field averages every N steps (default steps/100)", 1, 1e12, 0, NULL, 0, 0, 0},
      {"converge", CLI_REAL, &c.in.converge, "EPS", "stop once both averages fall below EPS x their maximum (default 0: off)", 0, 1, 0, NULL, 0, 0, 0},
      {"slice", CLI_STRING, c.slice, "COMP AXIS POS", "write PREFIX_slice.vtr and .png of COMP on the cell layer at AXIS = POS", 1, 0, sizeof c.slice, NULL, 0, 0, 0},
      HD_DRV_END_OPTIONS};

  memset(&c, 0, sizeof c);
  hd_drv_common_defaults(&c.com, "fdtd");
  fdtd_input_defaults(&c.in);
  if ((rc = hd_drv_parse(opts, argc, argv, PROG,
                         "3-D Yee FDTD with Mur, PML, PEC and periodic boundaries; writes "
                         "PREFIX_probes.csv, PREFIX_average.csv, PREFIX.vti (or .vtr) and an optional slice.")) >= 0)
    goto out;
  c.in.waveform = wave_choice;
  c.com.bench = c.bench > 0;
  if (c.bench) {
    const long steps = c.in.steps;
    if (c.in.xmesh.count || c.in.geometry.count || c.in.feed.count) {
      rc = hd_drv_usage_error(PROG, "--bench runs the built-in model: give no mesh, geometry or feeds");
      goto out;
    }
    if (fdtd_input_benchmark(&c.in, c.bench, err, sizeof err)) goto usage;
    if (cli_find(opts, "steps")->seen) c.in.steps = steps; /* else the model's 2001 */
  } else if (fdtd_input_parse(&c.in, err, sizeof err)) {
    goto usage;
  }
  {
    const cli_opt *o = cli_find(opts, "timestep");
    if (o->seen == 1) snprintf(c.in.dt_where, sizeof c.in.dt_where, "%.200s:%d", c.com.input, o->line);
    else if (o->seen == 2) snprintf(c.in.dt_where, sizeof c.in.dt_where, "command line");
  }
  if (c.slice[0] && parse_slice(&c.in, c.slice, &sl, err, sizeof err)) goto usage;
  if (hd_drv_ckpt_init(&ckp, &c.com, err, sizeof err)) goto usage;
  have_slice = c.slice[0] != '\0';
#if !defined(HD_HAVE_PNG)
  if (have_slice) {
    snprintf(err, sizeof err, "slice: this build has no PNG output (configure found no libpng)");
    goto usage;
  }
#endif
  if ((rc = hd_drv_open(PROG, &c.com, &ctx, &core, why, sizeof why)) != 0) goto out;
  ops = fdtd_ops_get(core->id, c.com.precision == 1);
  if (!ops) {
    core->destroy(&ctx);
    rc = hd_drv_usage_error(PROG, "no kernels for this backend and precision");
    goto out;
  }
  if (c.com.variant == HD_VARIANT_TUNED && !ops->has_tuned) {
    core->destroy(&ctx);
    snprintf(err, sizeof err, "--variant=tuned: backend %s has no tuned FDTD kernels", core->name);
    goto usage;
  }
  cells = (double)c.in.n[0] * c.in.n[1] * c.in.n[2];
  bytes = fdtd_model_bytes(&c.in, ops->real_size);
  /* host: the six material arrays, and for the output a field in double
   * and seven cell arrays */
  if ((rc = hd_drv_check_memory(PROG, &ctx, core, bytes,
                                bytes / (6.0 * ops->real_size + 6.0) * (6.0 + (c.com.bench ? 0.0 : 8.0)) +
                                    (c.com.bench ? 0.0 : 56.0 * cells),
                                "the model")) != 0)
    goto out;
  if (fdtd_input_build(&c.in, &m, err, sizeof err)) {
    core->destroy(&ctx);
    goto usage;
  }
  m.variant = c.com.variant;
  for (k = 0; k < c.nblock; ++k) m.block[k] = (int)c.block[k];
  nrec = m.nprobe + 2 * m.nfeed;
  memset(&probes, 0, sizeof probes), memset(&avg, 0, sizeof avg), memset(&vol, 0, sizeof vol);
  memset(&slv, 0, sizeof slv), memset(&png, 0, sizeof png);
  if (!c.com.bench) {
    const char *suffix[5] = {"_probes.csv", "_average.csv", uniform_mesh(&c.in) ? ".vti" : ".vtr", "_slice.vtr", "_slice.png"};
    hd_out *o[5] = {&probes, &avg, &vol, &slv, &png};
    for (k = 0; k < (have_slice ? 5 : 3); ++k) {
      snprintf(path, sizeof path, "%s%s", c.com.output, suffix[k]);
      if (hd_out_open(o[k], path, err, sizeof err)) {
        while (k-- > 0) hd_out_abort(o[k]);
        core->destroy(&ctx);
        goto usage;
      }
    }
  }
  fprintf(stderr, PROG ": %s backend (%s), %s precision, %ld x %ld x %ld cells, %.3g GB%s%s\n", core->name,
          ctx.device_name, ops->precision, m.n[0], m.n[1], m.n[2], bytes / 1e9, why[0] ? "; " : "", why);
  if (ops->create(&ctx, &m, &state) != HD_OK) goto runtime_error;
  ckpt_template(&c.in, &m, ops->real_size, &ck);
  if (!c.com.bench && c.com.restart[0]) {
    if (hd_drv_ckpt_load(&ctx, &ck, state, ops->state_count(state), ops->state_io, c.com.restart, err, sizeof err)) {
      fprintf(stderr, PROG ": error: %s\n", err);
      rc = 2;
      goto cleanup;
    }
    step = step0 = (long)ck.step;
    if (step0 > c.in.steps) {
      fprintf(stderr, PROG ": error: restart: the checkpoint is at step %ld, beyond --steps=%ld\n", step0, c.in.steps);
      rc = 2;
      goto cleanup;
    }
  }

  if (c.com.bench) {
    double bw = 0.0, rate;
    const double per = 78.0 * ops->real_size / 4.0; /* compulsory bytes a cell-step */
    if (ops->advance(&ctx, state, 10, NULL) != HD_OK || core->sync(&ctx) != HD_OK) goto runtime_error;
    t0 = hd_wtime();
    if (ops->advance(&ctx, state, c.in.steps, NULL) != HD_OK || core->sync(&ctx) != HD_OK) goto runtime_error;
    wall = hd_wtime() - t0;
    ops->destroy(&ctx, state);
    state = NULL;
    if (core->copy_bandwidth(&ctx, (size_t)fmin(cells * ops->real_size * 6.0, 4e9), 5, &bw) != HD_OK) bw = 0.0;
    rate = cells * (double)c.in.steps / wall;
    printf("program: " PROG "\nbackend: %s\ndevice: %s\nprecision: %s\nkernels: %s\nbenchmark: %ld^3 cells, %ld steps, Mur\n"
           "wall_seconds: %.6g\nmcells_steps_per_second: %.6g\nbytes_per_cell_step: %.0f (6 fields read, 3 written per half step, 6 index bytes)\n"
           "effective_GB_per_second: %.6g\ncopy_GB_per_second: %.6g\nfraction_of_byte_floor: %.3f\n",
           core->name, ctx.device_name, ops->precision,
           ops->has_tuned && c.com.variant != HD_VARIANT_GENERIC ? "tuned" : "generic", c.bench, c.in.steps, wall, rate / 1e6, per,
           rate * per / 1e9, bw / 1e9, bw > 0 ? rate * per / bw : 0.0);
    core->destroy(&ctx);
    rc = 0;
    goto out;
  }

  rec = (double *)malloc((size_t)(c.in.steps > 0 ? c.in.steps : 1) * (nrec ? nrec : 1) * sizeof(double));
  if (!rec) {
    hd_fail(&ctx, HD_ERR_NOMEM, "no host memory for the probe records");
    goto runtime_error;
  }
  fprintf(probes.f, "step,time");
  for (k = 0; k < m.nprobe; ++k)
    fprintf(probes.f, ",%s(%ld;%ld;%ld)", comp_names[m.probe[k].comp], m.probe[k].i, m.probe[k].j, m.probe[k].k);
  for (k = 0; k < m.nfeed; ++k)
    fprintf(probes.f, m.feed[k].r < 0 ? ",source%d_v,source%d_i" : ",feed%d_v,feed%d_i", k + 1, k + 1);
  fprintf(probes.f, "\n");
  fprintf(avg.f, "step,time,e_average,h_average\n");
  every = c.average_every > 0 ? c.average_every : (c.in.steps >= 100 ? c.in.steps / 100 : 1);
  hd_progress_init(&prog, c.com.progress);
  hd_signals_install();
  t0 = hd_wtime();
  for (step = step0; step < c.in.steps && !converged;) {
    long chunk = every - step % every, s2;
    double e, h;
    if (chunk > c.in.steps - step) chunk = c.in.steps - step;
    chunk = hd_drv_ckpt_chunk(&ckp, step, chunk);
    if (ops->advance(&ctx, state, chunk, nrec ? rec + step * nrec : NULL) != HD_OK) goto runtime_error;
    for (s2 = step; s2 < step + chunk; ++s2) {
      int r;
      fprintf(probes.f, "%ld,%.9e", s2 + 1, (s2 + 1) * m.dt);
      for (r = 0; r < nrec; ++r) fprintf(probes.f, ",%.9e", rec[s2 * nrec + r]);
      fprintf(probes.f, "\n");
    }
    step += chunk;
    if (ops->averages(&ctx, state, &e, &h) != HD_OK) goto runtime_error;
    if (!hd_isfinite(e) || !hd_isfinite(h)) {
      fprintf(stderr, PROG ": error: non-finite %s field after step %ld (dt = %g, Courant limit %g)%s%s\n",
              !hd_isfinite(e) && !hd_isfinite(h) ? "E and H" : !hd_isfinite(e) ? "E" : "H", step, m.dt,
              fdtd_input_dt_max(&c.in), ckpath[0] ? "; last checkpoint " : "", ckpath);
      rc = 1;
      goto cleanup;
    }
    fprintf(avg.f, "%ld,%.9e,%.9e,%.9e\n", step, step * m.dt, e, h);
    emax = fmax(emax, e), hmax = fmax(hmax, h);
    if (c.in.converge > 0 && emax > 0 && e < c.in.converge * emax && h < c.in.converge * hmax) converged = 1;
    cp = hd_drv_ckpt_point(PROG, &ctx, &ckp, &ck, step, m.dt, !converged && step < c.in.steps, 0, state, ops->state_count(state),
                           ops->state_io, c.com.output, ckpath, sizeof ckpath);
    if (cp == HD_DRV_FAILED) goto runtime_error;
    if (cp != HD_DRV_GO_ON) {
      rc = cp;
      goto cleanup;
    }
    hd_progress_step(&prog, PROG, step, c.in.steps, cells * (double)(step - step0), "cell-step/s");
  }
  if (core->sync(&ctx) != HD_OK) goto runtime_error;
  wall = hd_wtime() - t0;
  hd_progress_end(&prog);
  if (write_fields(&c, ops, &ctx, state, &m, have_slice ? &sl : NULL, &vol, &slv, &png, err, sizeof err)) {
    hd_fail(&ctx, HD_ERR_IO, "%s", err);
    goto runtime_error;
  }
  {
    hd_out *o[5] = {&probes, &avg, &vol, &slv, &png};
    for (k = 0; k < (have_slice ? 5 : 3); ++k)
      if (hd_out_commit(o[k], err, sizeof err)) {
        hd_fail(&ctx, HD_ERR_IO, "%s", err);
        goto runtime_error;
      }
  }
  printf("program: " PROG "\nversion: %s\nbackend: %s\ndevice: %s\nprecision: %s\ncells: %ld x %ld x %ld\n"
         "boundaries: %s %s %s\nmaterials: %d\nobjects: %d\nfeeds_and_sources: %d\nprobes: %d\n"
         "dt: %.9e\ndt_limit: %.9e\nsteps: %ld\nconverged: %s\nmemory_GB: %.4g\nwall_seconds: %.6g\n"
         "mcells_steps_per_second: %.6g\noutputs: %s_probes.csv %s_average.csv %s%s%s\n",
         PACKAGE_VERSION, core->name, ctx.device_name, ops->precision, m.n[0], m.n[1], m.n[2],
         c.in.bc_axis[0][0] ? c.in.bc_axis[0] : c.in.bc_all, c.in.bc_axis[1][0] ? c.in.bc_axis[1] : c.in.bc_all,
         c.in.bc_axis[2][0] ? c.in.bc_axis[2] : c.in.bc_all, m.nmat, c.in.nobj, m.nfeed, m.nprobe, m.dt,
         fdtd_input_dt_max(&c.in), step, converged ? "yes" : "no", bytes / 1e9, wall,
         wall > 0 ? cells * (double)(step - step0) / wall / 1e6 : 0.0, c.com.output, c.com.output, c.com.output,
         uniform_mesh(&c.in) ? ".vti" : ".vtr", have_slice ? " and the slice" : "");
  rc = 0;
  goto cleanup;

usage:
  rc = hd_drv_usage_error(PROG, err);
  goto out;
runtime_error:
  fprintf(stderr, PROG ": error: %s%s%s\n", ctx.msg[0] ? ctx.msg : "run failed", ckpath[0] ? "; last checkpoint " : "",
          ckpath);
  rc = 1;
cleanup:
  {
    hd_out *o[5] = {&probes, &avg, &vol, &slv, &png};
    for (k = 0; k < 5; ++k) hd_out_abort(o[k]);
  }
  if (state) ops->destroy(&ctx, state);
  core->destroy(&ctx);
out:
  free(rec);
  fdtd_input_free(&c.in);
  return rc;
}
