/* SPDX-License-Identifier: BSD-3-Clause */
/* hd-nbody's decisions for the run loop (module.h): gravitational N-body
 * (hd/nbody.h, hd/nbody_tree.h), all pairs or a Barnes-Hut tree, 3-D
 * softened or 2-D periodic; every rank holds every body.  doc/nbody.md. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bodies.h"
#include "checkpoint.h"
#include "decomp.h"
#include "module.h"
#include "nbody_ops.h"
#include "output.h"
#include "picture.h"
#include "sys.h"

#define PROG "hd-nbody"
#define ABOUT \
  "All-pairs gravitational N-body (G = 1), 3-D softened or 2-D periodic; writes PREFIX.csv, " \
  "PREFIX_STEP.vtp snapshots listed in PREFIX.pvd, and PREFIX.png." /* --help's line */
#define NBODY_ERROR_SAMPLE 64 /* bodies the tree benchmark checks against the direct sum */

enum { IC_PLUMMER, IC_UNIFORM, IC_KEPLER, IC_FILE };
enum { FMT_VTP, FMT_VTK };

typedef struct nbody_run {
  hd_drv_common com; /* first: the loop's */
  long n, steps, seed, snapshot_every, diag_every, splits, leaf;
  int ic, dim, integrator, format, png, method;
  double dt, eps, eccentricity, mass_ratio, max_growth, theta;
  char bodies[4000];
  nbody_bodies b;     /* the initial bodies, until the state holds them */
  long nbodies;
  nbody_problem p;
  const nbody_ops *ops;
  void *state;
  double *host;       /* the bodies on the host: 9 blocks of n */
  hd_nbody_diag d0, d;
  double e0;
  long every, nsnap;
  int csv, pvd, png_slot; /* output slots */
} nbody_run;

static int options(void *self, cli_opt *opts, int max) {
  nbody_run *c = (nbody_run *)self;
  const cli_opt o[] = {
      {"n", CLI_INT, &c->n, "N", "number of bodies (default 4096)", 1, 1e15, 0, NULL, 0, 0, 0},
      {"ic", CLI_CHOICE, &c->ic, "plummer|uniform|kepler|file", "initial condition (default plummer)", 1, 0, 0, NULL, 0, 0, 0},
      {"dim", CLI_CHOICE, &c->dim, "3|2", "3: free space; 2: periodic unit square (default 3)", 1, 0, 0, NULL, 0, 0, 0},
      {"bodies", CLI_STRING, c->bodies, "FILE", "CSV body file x,y,z,vx,vy,vz,m for --ic=file (default: none)", 1, 0, sizeof c->bodies, NULL, 0, 0, 0},
      {"seed", CLI_INT, &c->seed, "S", "random seed of uniform and plummer (default 1)", 0, 9.2e18, 0, NULL, 0, 0, 0},
      {"eccentricity", CLI_REAL, &c->eccentricity, "E", "kepler: orbital eccentricity (default 0.5)", 0, 0.99, 0, NULL, 0, 0, 0},
      {"mass-ratio", CLI_REAL, &c->mass_ratio, "Q", "kepler: mass of the second body over the first (default 1)", 1e-12, 1e12, 0, NULL, 0, 0, 0},
      {"steps", CLI_INT, &c->steps, "N", "time steps (default 100)", 0, 1e15, 0, NULL, 0, 0, 0},
      {"dt", CLI_REAL, &c->dt, "DT", "time step (default 1e-3)", 1e-300, 1e300, 0, NULL, 0, 0, 0},
      {"softening", CLI_REAL, &c->eps, "EPS", "softening length (default 0.01; 0 = none)", 0, 1e300, 0, NULL, 0, 0, 0},
      {"integrator", CLI_CHOICE, &c->integrator, "leapfrog|euler", "kick-drift-kick leapfrog or the semi-implicit Euler of the 2-D blog code it grew from (default leapfrog)", 1, 0, 0, NULL, 0, 0, 0},
      {"diag-every", CLI_INT, &c->diag_every, "N", "energy/momentum row and blow-up check every N steps, O(N^2) each (default steps/100)", 1, 1e15, 0, NULL, 0, 0, 0},
      {"max-growth", CLI_REAL, &c->max_growth, "G",
       "stop when the energy error |E - E0| exceeds G x (|K0| + |W0|) (default 100)", 1e-300, 1e300, 0, NULL, 0, 0, 0},
      {"snapshot-every", CLI_INT, &c->snapshot_every, "N", "bodies every N steps as PREFIX_STEP.vtp (default 0: first and last)", 0, 1e15, 0, NULL, 0, 0, 0},
      {"format", CLI_CHOICE, &c->format, "vtp|vtk", "snapshot format: XML PolyData listed in PREFIX.pvd, or legacy VTK (no .pvd: it lists XML files only) (default vtp)", 1, 0, 0, NULL, 0, 0, 0},
      {"png", CLI_FLAG, &c->png, "yes|no", "picture of the final bodies seen along z as PREFIX.png (default yes where libpng is)", 1, 0, 0, NULL, 0, 0, 0},
      {"method", CLI_CHOICE, &c->method, "direct|tree", "forces by all pairs, or by a Barnes-Hut tree with quadrupoles (3-D; on ranks each walks its share; doc/nbody.md) (default direct)", 1, 0, 0, NULL, 0, 0, 0},
      {"theta", CLI_REAL, &c->theta, "THETA", "tree: opening angle; 0 opens every cell (default 0.5)", 0, 1, 0, NULL, 0, 0, 0},
      {"leaf", CLI_INT, &c->leaf, "N", "tree: most bodies a leaf cell (default 16)", 1, 1024, 0, NULL, 0, 0, 0},
      {"splits", CLI_INT, &c->splits, "S", "CUDA tuned kernel: split the j range in S (default: sized from the SMs)", 1, 65535, 0, NULL, 0, 0, 0}};
  c->n = 4096;
  c->seed = 1;
  c->eccentricity = 0.5;
  c->mass_ratio = 1.0;
  c->steps = 100;
  c->dt = 1e-3;
  c->eps = 0.01;
  c->max_growth = 100.0;
  c->png = HD_PNG_BUILT;
  c->theta = 0.5;
  c->leaf = 16;
  return HD_DRV_ROWS(opts, max, o);
}

/* Initial bodies on the host, or -1 with a message. */
static int make_bodies(const nbody_run *c, nbody_bodies *b, char *err, size_t n) {
  if (c->ic == IC_FILE) return nbody_read_csv(c->bodies, b, err, n);
  if (nbody_bodies_alloc(b, c->ic == IC_KEPLER ? 2 : c->n)) {
    snprintf(err, n, "--n: %ld bodies do not fit in host memory", c->n);
    return -1;
  }
  if (c->ic == IC_KEPLER)
    hd_nbody_ic_kepler(c->eccentricity, 1.0, c->mass_ratio, b->x, b->y, b->z, b->vx, b->vy, b->vz,
                       b->m);
  else if (c->ic == IC_UNIFORM)
    hd_nbody_ic_uniform(b->n, c->dim, (uint64_t)c->seed, b->x, b->y, b->z, b->vx, b->vy, b->vz,
                        b->m);
  else
    hd_nbody_ic_plummer(b->n, (uint64_t)c->seed, b->x, b->y, b->z, b->vx, b->vy, b->vz, b->m);
  return 0;
}

static int check_options(const nbody_run *c, cli_opt *opts, char *err, size_t n) {
  if (c->dim == 2 && c->ic != IC_UNIFORM && c->ic != IC_FILE) {
    snprintf(err, n, "--dim=2 (periodic unit square) takes --ic=uniform or --ic=file");
    return -1;
  }
  if (c->ic == IC_FILE && !c->bodies[0]) {
    snprintf(err, n, "--ic=file needs --bodies=FILE");
    return -1;
  }
  if (c->ic != IC_FILE && c->bodies[0]) {
    snprintf(err, n, "--bodies is read only with --ic=file");
    return -1;
  }
  if (c->ic == IC_FILE && cli_find(opts, "n")->seen) {
    snprintf(err, n, "--n is taken from the body file with --ic=file");
    return -1;
  }
  if (c->method == NBODY_TREE && c->dim == 2) {
    snprintf(err, n, "--method=tree takes 3-D free space (--dim=3)");
    return -1;
  }
  if (c->method != NBODY_TREE) {
    static const char *const tree_only[] = {"theta", "leaf"};
    int k;
    for (k = 0; k < 2; ++k)
      if (cli_find(opts, tree_only[k])->seen) {
        snprintf(err, n, "--%s is read only with --method=tree", tree_only[k]);
        return -1;
      }
  }
  if (c->ic == IC_KEPLER && cli_find(opts, "n")->seen && c->n != 2) {
    snprintf(err, n, "--ic=kepler has 2 bodies, not %ld", c->n);
    return -1;
  }
  return 0;
}

/* Snapshot of the bodies (host doubles: 9 blocks of n) to PREFIX_STEP.ext. */
static int write_snapshot(const nbody_run *c, const double *h, long n, long step, int single,
                          char *path, size_t pathn, char *err, size_t errn) {
  hd_out o;
  double *vel = (double *)malloc((size_t)n * 3 * sizeof(double));
  hd_vtk_points_array arr[2];
  long i;
  int bad;
  if (!vel) {
    snprintf(err, errn, "out of memory for a snapshot");
    return -1;
  }
  for (i = 0; i < n; ++i) vel[3 * i] = h[3 * n + i], vel[3 * i + 1] = h[4 * n + i], vel[3 * i + 2] = h[5 * n + i];
  arr[0].name = "velocity", arr[0].data = vel, arr[0].ncomp = 3;
  arr[1].name = "acceleration";
  {
    double *acc = (double *)malloc((size_t)n * 3 * sizeof(double));
    if (!acc) {
      free(vel);
      snprintf(err, errn, "out of memory for a snapshot");
      return -1;
    }
    for (i = 0; i < n; ++i) acc[3 * i] = h[6 * n + i], acc[3 * i + 1] = h[7 * n + i], acc[3 * i + 2] = h[8 * n + i];
    arr[1].data = acc, arr[1].ncomp = 3;
    snprintf(path, pathn, "%s_%06ld.%s", c->com.output, step, c->format == FMT_VTP ? "vtp" : "vtk");
    bad = hd_out_open(&o, path, err, errn);
    if (!bad) {
      hd_vtk_meta meta = hd_vtk_meta_time((double)step * c->dt);
      hd_vtk_meta_add(&meta, "step", (double)step);
      bad = c->format == FMT_VTP
                ? hd_vtp_write(&o, n, h, h + n, c->dim == 3 ? h + 2 * n : NULL, arr, 2, single, &meta)
                : hd_vtk_legacy_points_write(&o, n, h, h + n, c->dim == 3 ? h + 2 * n : NULL, arr, 2, single);
      if (bad) {
        snprintf(err, errn, "cannot write %.900s: %s", path, hd_out_error());
        hd_out_abort(&o);
      } else {
        bad = hd_out_commit(&o, err, errn);
      }
    }
    free(acc);
  }
  free(vel);
  return bad ? -1 : 0;
}

static void csv_row(FILE *f, long step, double t, const hd_nbody_diag *d, double e0) {
  const double e = d->kinetic + d->potential;
  fprintf(f, "%ld,%.17g,%.17g,%.17g,%.17g,%.6e,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n",
          step, t, d->kinetic, d->potential, e, e0 != 0.0 ? (e - e0) / fabs(e0) : 0.0, d->p[0], d->p[1],
          d->p[2], d->l[0], d->l[1], d->l[2], d->mx[0] / d->mass, d->mx[1] / d->mass, d->mx[2] / d->mass);
}

static int setup(hd_drv_run *r) {
  nbody_run *c = (nbody_run *)r->self;
  if (c->png && !HD_PNG_BUILT) return hd_drv_bad(r, "--png: " HD_NO_PNG);
  c->dim = c->dim == 1 ? 2 : 3;
  if (check_options(c, r->opts, r->err, sizeof r->err)) return HD_DRV_BAD_INPUT;
  if (c->ic != IC_FILE && c->ic != IC_KEPLER && (double)c->n * 10.0 * 8.0 > 9e18)
    return hd_drv_bad(r, "--n: too many bodies to index");
  if (c->format == FMT_VTK && c->n > 2147483647L)
    return hd_drv_bad(r, "--format=vtk: legacy VTK cannot hold more than 2^31 bodies");
  r->total = c->steps, r->dt = c->dt;
  r->replicated = 1; /* rank 0 writes; the others compute the same and discard */
  c->csv = hd_drv_slot(r, ".csv", 1, HD_DRV_SERIES);
  c->pvd = hd_drv_slot(r, ".pvd", c->format == FMT_VTP, HD_DRV_SERIES | HD_DRV_PVD); /* a .pvd lists XML files only */
  c->png_slot = hd_drv_slot(r, ".png", c->png, HD_DRV_PICTURE);
  r->work_unit = "interaction/s";
  return HD_DRV_OK;
}

/* 10 arrays of n reals and the potential on the backend; on the host the
 * initial bodies and a snapshot buffer, 16 doubles a body.  Generated
 * bodies are checked before they are made, a body file once it is read. */
static int open_backend(hd_drv_run *r) {
  nbody_run *c = (nbody_run *)r->self;
  if (!(c->ops = nbody_ops_get(r->core->id, c->com.precision == 1)))
    return hd_drv_bad(r, "no kernels for this backend and precision");
  r->precision = c->ops->precision;
  if (c->ic == IC_FILE && make_bodies(c, &c->b, r->err, sizeof r->err)) return HD_DRV_BAD_INPUT;
  c->nbodies = c->ic == IC_FILE ? c->b.n : c->ic == IC_KEPLER ? 2 : c->n;
  r->dev_bytes = (double)c->nbodies * (10.0 * c->ops->real_size + 8.0), r->host_bytes = (double)c->nbodies * 16.0 * 8.0;
  r->work = (double)c->nbodies * (double)c->nbodies;
  return HD_DRV_OK;
}

/* The bodies (generated ones now the memory is known to fit) and the problem. */
static int prepare(hd_drv_run *r) {
  nbody_run *c = (nbody_run *)r->self;
  nbody_bodies *b = &c->b;
  nbody_problem *p = &c->p;
  long i;
  if (c->ic != IC_FILE && make_bodies(c, b, r->err, sizeof r->err)) return HD_DRV_BAD_INPUT;
  if (c->dim == 2)
    for (i = 0; i < b->n; ++i) {
      if (b->x[i] < 0.0 || b->x[i] >= 1.0 || b->y[i] < 0.0 || b->y[i] >= 1.0)
        return hd_drv_bad(r, "--dim=2: body %ld at (%g, %g) is outside the unit square [0,1)^2", i, b->x[i], b->y[i]);
      b->z[i] = b->vz[i] = 0.0;
    }
  memset(p, 0, sizeof *p);
  p->n = b->n;
  p->periodic = c->dim == 2;
  p->integrator = c->integrator;
  p->variant = c->com.variant;
  p->splits = (int)c->splits;
  p->method = c->method, p->theta = c->theta, p->leaf = (int)c->leaf;
  p->dt = c->dt;
  p->eps = c->eps;
  p->x = b->x, p->y = b->y, p->z = b->z, p->vx = b->vx, p->vy = b->vy, p->vz = b->vz, p->m = b->m;
  if (r->ranks > 1) {
    hd_par_block(p->n, hd_par_rank(), r->ranks, &p->lo, &p->hi);
    p->rank = hd_par_rank(), p->size = r->ranks;
    p->share_start = hd_par_gather_start, p->share_wait = hd_par_gather_wait;
  }
  return HD_DRV_OK;
}

static void banner(hd_drv_run *r, char *text, size_t n) {
  snprintf(text, n, "%ld bodies", ((const nbody_run *)r->self)->nbodies);
}

static int create(hd_drv_run *r) {
  nbody_run *c = (nbody_run *)r->self;
  hd_ckpt *ck = r->ck;
  const int bad = c->ops->create(&r->ctx, &c->p, &c->state) != HD_OK;
  int rc;
  if ((rc = hd_drv_take_state(r, bad, c->state, c->ops->state_count, c->ops->state_io)) != HD_DRV_OK) return rc;
  memset(ck, 0, sizeof *ck);
  snprintf(ck->driver, sizeof ck->driver, "hd-nbody");
  ck->real_size = (uint32_t)c->ops->real_size, ck->dims[0] = c->p.n, ck->dims[1] = c->p.periodic ? 2 : 3, ck->dims[2] = 1;
  hd_ckpt_param(ck, "dt", "%.17g", c->p.dt);
  hd_ckpt_param(ck, "softening", "%.17g", c->p.eps);
  hd_ckpt_param(ck, "integrator", "%d", c->p.integrator);
  if (c->p.method == NBODY_TREE) hd_ckpt_param(ck, "method", "tree,%.17g,%d", c->p.theta, c->p.leaf); /* other forces */
  return HD_DRV_OK;
}

static void destroy(hd_drv_run *r) {
  nbody_run *c = (nbody_run *)r->self;
  if (c->state) c->ops->destroy(&r->ctx, c->state);
  free(c->host);
  nbody_bodies_free(&c->b);
}

static int start(hd_drv_run *r) {
  nbody_run *c = (nbody_run *)r->self;
  FILE *csv = r->out[c->csv].f;
  nbody_bodies_free(&c->b); /* the state holds them */
  if (!(c->host = (double *)malloc((size_t)c->p.n * 9 * sizeof(double))))
    return hd_fail(&r->ctx, HD_ERR_NOMEM, "no host memory for snapshots"), HD_DRV_FAILED;
  if (c->ops->diagnostics(&r->ctx, c->state, &c->d) != HD_OK) return HD_DRV_FAILED;
  c->d0 = c->d; /* the energy the run started with, also after restarts */
  hd_ckpt_get_value(r->ck, "kinetic0", &c->d0.kinetic), hd_ckpt_get_value(r->ck, "potential0", &c->d0.potential);
  hd_ckpt_set_value(r->ck, "kinetic0", c->d0.kinetic), hd_ckpt_set_value(r->ck, "potential0", c->d0.potential);
  c->e0 = c->d0.kinetic + c->d0.potential;
  if (!r->cont) {
    fprintf(csv, "step,time,kinetic,potential,total,relative_energy_error,px,py,pz,lx,ly,lz,comx,comy,comz\n");
    csv_row(csv, r->step0, r->step0 * c->dt, &c->d, c->e0);
    if (r->slot[c->pvd].want) hd_drv_pvd_begin(r->out[c->pvd].f);
  }
  c->every = r->cadence[0] = c->diag_every > 0 ? c->diag_every : (c->steps >= 100 ? c->steps / 100 : 1);
  r->cadence[1] = c->snapshot_every;
  return HD_DRV_OK;
}

/* Snapshots: the first (not after a restart, which has it), every
 * --snapshot-every steps, and the last. */
static int before(hd_drv_run *r) {
  nbody_run *c = (nbody_run *)r->self;
  const long step = r->step;
  char path[4096 + 32];
  if (!((step == r->step0 && !r->cont) || step == c->steps || (c->snapshot_every > 0 && step % c->snapshot_every == 0)))
    return HD_DRV_OK;
  ++c->nsnap;
  if (!r->root) return HD_DRV_OK;
  if (c->ops->download(&r->ctx, c->state, c->host) != HD_OK) return HD_DRV_FAILED;
  if (write_snapshot(c, c->host, c->p.n, step, c->ops->real_size == 4, path, sizeof path, r->err, sizeof r->err))
    return hd_fail(&r->ctx, HD_ERR_IO, "%s", r->err), HD_DRV_FAILED;
  if (r->slot[c->pvd].want) hd_drv_pvd_frame(r->out[c->pvd].f, step * c->dt, 17, path);
  return HD_DRV_OK;
}

static int advance(hd_drv_run *r, long steps) {
  nbody_run *c = (nbody_run *)r->self;
  return c->ops->advance(&r->ctx, c->state, steps) == HD_OK ? HD_DRV_OK : HD_DRV_FAILED;
}

static int after(hd_drv_run *r, long steps) {
  nbody_run *c = (nbody_run *)r->self;
  const long next = r->step;
  const hd_nbody_diag *d = &c->d, *d0 = &c->d0;
  (void)steps;
  if (next % c->every != 0 && next != c->steps) return HD_DRV_OK;
  if (c->ops->diagnostics(&r->ctx, c->state, &c->d) != HD_OK) return HD_DRV_FAILED;
  if (!hd_isfinite(d->kinetic + d->potential)) { /* every rank sees the same energy */
    if (r->root)
      fprintf(stderr, PROG ": error: non-finite energy after step %ld (dt = %g, softening = %g): the system blew up%s\n",
              next, c->dt, c->eps, hd_drv_ckpt_note(r));
    return 1;
  }
  /* the total energy is conserved: a change many times its initial scale
   * is a runaway, not physics */
  if (fabs(d->kinetic + d->potential - c->e0) > c->max_growth * (fabs(d0->kinetic) + fabs(d0->potential))) {
    if (r->root)
      fprintf(stderr, PROG ": error: runaway energy after step %ld: |E - E0| = %g exceeds %g x (|K0| + |W0|) = %g "
              "(dt = %g, softening = %g)%s\n", next, fabs(d->kinetic + d->potential - c->e0), c->max_growth,
              c->max_growth * (fabs(d0->kinetic) + fabs(d0->potential)), c->dt, c->eps, hd_drv_ckpt_note(r));
    return 1;
  }
  csv_row(r->out[c->csv].f, next, next * c->dt, d, c->e0);
  return HD_DRV_OK;
}

static int finish(hd_drv_run *r) {
  nbody_run *c = (nbody_run *)r->self;
  if (r->root && c->png &&
      nbody_picture(&r->out[c->png_slot], c->host, c->host + c->p.n, c->p.n, c->p.periodic, (double)r->step * c->dt,
                    r->err, sizeof r->err))
    return hd_fail(&r->ctx, HD_ERR_IO, "%s", r->err), HD_DRV_FAILED;
  return HD_DRV_OK;
}

static int summary(hd_drv_run *r, FILE *out) {
  nbody_run *c = (nbody_run *)r->self;
  const hd_nbody_diag *d = &c->d;
  const double e = d->kinetic + d->potential;
  if (!r->root) return HD_DRV_OK;
  fprintf(out, "bodies: %ld\ngeometry: %s\nintegrator: %s\ndt: %.17g\nsoftening: %.17g\nsteps: %ld\ntime: %.17g\n",
          c->p.n, c->p.periodic ? "2-D periodic unit square" : "3-D free space",
          c->integrator == NBODY_EULER ? "semi-implicit Euler" : "leapfrog (kick-drift-kick)", c->dt, c->eps, c->steps,
          c->steps * c->dt);
  fprintf(out, "energy_initial: %.17g\nenergy_final: %.17g\nrelative_energy_error: %.6e\nvirial_ratio: %.6f\n"
          "momentum: %.6e %.6e %.6e\nangular_momentum: %.6e %.6e %.6e\n",
          c->e0, e, c->e0 != 0.0 ? (e - c->e0) / fabs(c->e0) : 0.0, d->potential != 0.0 ? -2.0 * d->kinetic / d->potential : 0.0,
          d->p[0], d->p[1], d->p[2], d->l[0], d->l[1], d->l[2]);
  if (c->method == NBODY_TREE) fprintf(out, "method: tree\ntheta: %g\nleaf: %ld\n", c->theta, c->leaf);
  else fprintf(out, "method: direct\n");
  fprintf(out, "interactions_per_second: %.6g\n",
          r->wall > 0 && c->method != NBODY_TREE ? (double)c->p.n * (double)c->p.n * (double)c->steps / r->wall : 0.0);
  snprintf(r->outputs_note, sizeof r->outputs_note, " and %ld snapshots", c->nsnap);
  return HD_DRV_OK;
}

/* --bench: direct, force evaluations; tree, whole steps by phase and the
 * force error at the start on a sample. */
static int bench(hd_drv_run *r) {
  nbody_run *c = (nbody_run *)r->self;
  const nbody_ops *ops = c->ops;
  hd_ctx *ctx = &r->ctx;
  const long evals = c->steps > 0 ? c->steps : 1, n = c->b.n;
  const int tree = c->method == NBODY_TREE;
  double force_error = 0.0, sec[NBODY_PHASES], t0, wall;
  long k;
  int rc;
  if ((rc = create(r)) != HD_DRV_OK) return rc;
  if (tree) {
    if (!(c->host = (double *)malloc((size_t)n * 9 * sizeof(double))))
      return hd_fail(ctx, HD_ERR_NOMEM, "no host memory for the accelerations"), HD_DRV_FAILED;
    if (ops->download(ctx, c->state, c->host) != HD_OK) return HD_DRV_FAILED;
    force_error = nbody_sample_error(&c->b, c->host + 6 * n, NBODY_ERROR_SAMPLE, c->eps);
  }
  nbody_bodies_free(&c->b);
  if (ops->accelerations(ctx, c->state) != HD_OK || r->core->sync(ctx) != HD_OK) return HD_DRV_FAILED;
  if (tree) ops->timing(c->state, 1, NULL);
  t0 = hd_wtime();
  for (k = 0; k < evals; ++k)
    if ((tree ? ops->advance(ctx, c->state, 1) : ops->accelerations(ctx, c->state)) != HD_OK) return HD_DRV_FAILED;
  if (r->core->sync(ctx) != HD_OK) return HD_DRV_FAILED;
  wall = hd_wtime() - t0;
  printf("variant: %s\nbodies: %ld\n%s: %ld\nwall_seconds: %.6g\n", c->com.variant == NBODY_VARIANT_GENERIC ? "generic" : "tuned",
         n, tree ? "steps" : "force_evaluations", evals, wall);
  if (tree) {
    ops->timing(c->state, 0, sec);
    sec[NBODY_PHASE_UPDATE] = wall;
    for (k = 0; k < NBODY_PHASE_UPDATE; ++k) sec[NBODY_PHASE_UPDATE] -= sec[k];
    r->bench_rate = (double)n * (double)evals / wall, r->bench_unit = "bodies/s";
    printf("method: tree\ntheta: %g\nleaf: %ld\nseconds_per_step: %.6g\nbodies_per_second: %.6g\n"
           "phase_seconds_per_step: keys %.3g sort %.3g cells %.3g moments %.3g walk %.3g update %.3g\n"
           "force_error: %.3g (relative RMS against the direct sum in double, %d bodies sampled)\n",
           c->theta, c->leaf, wall / (double)evals, r->bench_rate, sec[HD_NBODY_TREE_KEYS] / evals,
           sec[HD_NBODY_TREE_SORT] / evals, sec[HD_NBODY_TREE_CELLS] / evals, sec[HD_NBODY_TREE_MOMENTS] / evals,
           sec[NBODY_PHASE_WALK] / evals, sec[NBODY_PHASE_UPDATE] / evals, force_error, NBODY_ERROR_SAMPLE);
  } else {
    r->bench_rate = (double)n * (double)n * (double)evals / wall, r->bench_unit = "interactions/s";
    printf("method: direct\ninteractions_per_second: %.6g\ngflops: %.6g (20 flops per interaction, the usual convention)\n",
           r->bench_rate, r->bench_rate * 20.0 / 1e9);
  }
  return HD_DRV_OK;
}

const hd_drv_module hd_nbody_module = {
    .prog = PROG, .about = ABOUT, .output = "nbody", .size = sizeof(nbody_run), .cuda_ranks = 1, .memory = "the system",
    .options = options, .setup = setup, .open = open_backend, .bench = bench, .prepare = prepare, .banner = banner,
    .create = create, .start = start, .before = before, .advance = advance, .after = after, .finish = finish,
    .summary = summary, .destroy = destroy};
