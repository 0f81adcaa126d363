/* SPDX-License-Identifier: BSD-3-Clause */
/* FDTD backend table, compiled once per backend and precision by the
 * two-line fdtd_<backend>_<f|d> wrappers.  Tables, point lists and launches;
 * the physics is hd/fdtd.h. */
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
  hd_real *field[6];           /* allocations; a.f = field + lead (fdtd_lead) */
  unsigned char *mat[6];       /* allocations; a.m = mat + lead */
  int64_t *row_run[6];         /* CPU tuned rows: the materials as runs (a.run, a.row_run) */
  hd_fdtd_run *run[6];
  hd_fdtd_mur *mur;
  hd_idx nmur;
  int mur_h;                   /* the Mur points act on H outside the faces */
  hd_fdtd_pml_args pml[6];     /* per component */
  int cpml;                    /* the layers are convolutional: cpml_args, psi in the pml split parts */
  hd_fdtd_cpml_args cpml_args[6];
  hd_idx npml[6];
  hd_real *prof;               /* PML: the media's numbers (E, H), then p at nodes and half nodes of 3 axes */
  hd_fdtd_feed *feed;
  hd_fdtd_ade_args ade;        /* dispersive and loaded edges (ade.edge NULL: none) */
  hd_idx nade;
  hd_fdtd_probe *probe;
  hd_real *rec;                /* FDTD_REC_CHUNK rows of nrec */
  double *rows;                /* row sums of the averages, 2 per row */
  int nfeed, nprobe, nrec;
  int bc[3];
  hd_fdtd_wave wave;
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
  hd_dft_volume_args vol;      /* the whole volume's transform (vol.acc NULL: none) */
  int vol_flushed;
  hd_idx vol_nn[3];            /* its physical nodes per axis */
  hd_dft_plane_args plane[FDTD_MAX_PLANES]; /* near-field maps, acc and geometry */
  int nplane;
  /* plane wave: the incident line (inc.n = 0: none), the corrections after
   * the E and the H update, the source's running DFT (host, 2 nfreq) */
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
  double *sf_probe_d, *ade_pwd;
  int time_block;              /* steps a sweep of memory (fdtd_wave.h); 1: single steps */
  struct fd_tb *tb;            /* their plan, made at the first block */
  long off[3];                 /* the block's first node in the whole grid (checkpoint keys) */
  int shared[6];               /* faces shared with another rank's block (exchanged H ghosts) */
#if defined(HD_BACKEND_CUDA)
  /* the exchange under the E update (fd_e_exchanged): its high-priority
   * stream, the previous step done, the exchange and the E rows it feeds done */
  cudaStream_t xs;
  cudaEvent_t prev_done, rim_done;
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
#endif
  for (c = 0; c < 6; ++c) {
    hd_dev_free(ctx, st->field[c]);
    hd_dev_free(ctx, st->mat[c]);
    free(st->row_run[c]);
    free(st->run[c]);
    hd_dev_free(ctx, (void *)st->pml[c].pt);
    hd_dev_free(ctx, st->pml[c].s1);
    hd_dev_free(ctx, st->pml[c].s2);
  }
  hd_dev_free(ctx, st->coef);
  hd_dev_free(ctx, st->mesh);
  hd_dev_free(ctx, st->mur);
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
  hd_dev_free(ctx, st->inc_coef);
  hd_dev_free(ctx, st->tfsf[0]);
  hd_dev_free(ctx, st->tfsf[1]);
  hd_dev_free(ctx, st->sf[0]);
  hd_dev_free(ctx, st->sf[1]);
  hd_dev_free(ctx, st->sf_coef);
  hd_dev_free(ctx, st->sf_probe_d);
  hd_dev_free(ctx, st->ade_pwd);
  free(st->inc_acc);
  free(st->freq);
  hd_dev_free(ctx, st->rec);
  hd_dev_free(ctx, st->rows);
  free(st);
}

/* Node coordinate of padded index p of this block, extended uniformly
 * beyond the whole mesh. */
static double fd_coord(const fdtd_model *m, int axis, hd_idx p, hd_idx pad) {
  const double *x = m->node[axis];
  const hd_idx q = p - pad + m->off[axis], n = m->gn[axis];
  if (q < 0) return x[0] + (double)q * (x[1] - x[0]);
  if (q > n) return x[n] + (double)(q - n) * (x[n] - x[n - 1]);
  return x[q];
}

/* Upload count elements of `bytes` each from host to a new device array. */
static hd_status fd_upload(hd_ctx *ctx, void **dev, const void *host, size_t bytes) {
  hd_status s = hd_dev_alloc(ctx, dev, bytes);
  if (s == HD_OK && bytes) s = hd_dev_upload(ctx, *dev, host, bytes);
  return s;
}

/* Mur's g = (v dt - d)/(v dt + d) for the speed v of material k and the
 * spacing d between a boundary value and the one inwards (-1 for a
 * conductor, as OpenFDTD). */
static hd_real fd_mur_coef(const fdtd_model *m, int k, double d) {
  const double v = HD_FDTD_C0 / sqrt(m->eps_r[k] * m->mu_r[k]), vdt = v * m->dt;
  return k == HD_FDTD_PEC ? HD_R(-1) : (hd_real)((vdt - d) / (vdt + d));
}

/* Mur points on both faces of every Mur axis, each with the speed of the
 * medium at the face.  On E (hd's): the two tangential E components of the
 * face, the third axis over the nodes where its tangential E is updated
 * (edges shared with other faces stay 0), a conductor's E left at 0.  On
 * H (OpenFDTD's): the two tangential H components half a cell outside,
 * the speed from the E on the face their curl pairs with. */
static hd_status fd_build_mur(hd_ctx *ctx, fdtd_state *st, const fdtd_model *m) {
  const hd_grid *g = &st->a.g;
  const hd_idx pad = g->ghost;
  hd_fdtd_mur *list = NULL;
  hd_idx count = 0, cap = 0;
  int a, face, c;
  hd_status s;
  for (a = 0; a < 3; ++a) {
    if (m->bc[a] != HD_FDTD_BC_MUR) continue;
    for (face = 0; face < 2; ++face) {
      const hd_idx fn = face ? m->n[a] : 0; /* the face's node */
      const hd_idx p0 = m->mur_h ? (face ? m->n[a] : -1) : fn, p1 = m->mur_h ? (face ? m->n[a] - 1 : 0) : (face ? fn - 1 : 1);
      const double d = fabs(m->node[a][fn + m->off[a]] - m->node[a][fn + m->off[a] + (face ? -1 : 1)]);
      if (m->halo[2 * a + face]) continue; /* another rank's block lies beyond */
      for (c = 0; c < 3; ++c) {
        const int b = 3 - a - c; /* the third axis */
        hd_idx u, v, lo[3], hi[3];
        if (c == a) continue;
        lo[a] = hi[a] = 0;
        if (m->mur_h) /* H_c: nodes along c, cells along b */
          lo[c] = 0, hi[c] = m->n[c], lo[b] = 0, hi[b] = m->n[b] - 1;
        else /* E_c: cells along c, nodes along b where tangential E is updated */
          lo[c] = 0, hi[c] = m->n[c] - 1, lo[b] = st->a.elo[b], hi[b] = st->a.ehi[b];
        for (u = lo[c]; u <= hi[c]; ++u)
          for (v = lo[b]; v <= hi[b]; ++v) {
            hd_idx q[3], q1[3], qf[3];
            int mat;
            q[a] = p0, q[c] = u, q[b] = v;
            q1[a] = p1, q1[c] = u, q1[b] = v;
            qf[a] = fn, qf[c] = u, qf[b] = v;
            mat = m->mat[m->mur_h ? b : c][hd_grid_at(g, qf[0] + pad, qf[1] + pad, qf[2] + pad)];
            if (!m->mur_h && mat == HD_FDTD_PEC) continue;
            if (count == cap) {
              hd_fdtd_mur *nl;
              cap = cap ? 2 * cap : 4096;
              nl = (hd_fdtd_mur *)realloc(list, (size_t)cap * sizeof *nl);
              if (!nl) {
                free(list);
                return hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory for Mur points");
              }
              list = nl;
            }
            list[count].m0 = hd_grid_at(g, q[0] + pad, q[1] + pad, q[2] + pad);
            list[count].m1 = hd_grid_at(g, q1[0] + pad, q1[1] + pad, q1[2] + pad);
            list[count].g = fd_mur_coef(m, mat, d);
            list[count].f = HD_R(0);
            list[count].comp = c;
            ++count;
          }
      }
    }
  }
  st->nmur = count;
  s = count ? fd_upload(ctx, (void **)&st->mur, list, (size_t)count * sizeof *list) : HD_OK;
  free(list);
  return s;
}

/* Whether a boundary kind has absorbing layers outside the faces. */
static int fd_layers(int bc) { return bc == HD_FDTD_BC_PML || bc == HD_FDTD_BC_CPML; }

/* PML: profiles on every padded node and half node of each axis (0 on
 * axes without PML), the media's numbers for E and for H (hd/fdtd.h), and
 * for each component the positions inside the layers but outside the
 * fused loops' ranges. */
static hd_status fd_build_pml(hd_ctx *ctx, fdtd_state *st, const fdtd_model *m) {
  const hd_grid *g = &st->a.g;
  const hd_idx pad = g->ghost, L = m->pml_layers;
  hd_idx len[3], off[18], total = 6 * 256, p;
  hd_real *prof;
  int a, c;
  hd_status s = HD_OK;
  for (a = 0; a < 3; ++a) len[a] = m->n[a] + 1 + 2 * pad;
  for (a = 0; a < 3; ++a) /* E at nodes, then H at half nodes: PML p; CPML b, c, 1/kappa */
    for (c = 0; c < 6; ++c) off[6 * a + c] = total, total += len[a];
  for (a = 0; a < 3; ++a) st->cpml |= m->bc[a] == HD_FDTD_BC_CPML;
  prof = (hd_real *)calloc((size_t)total, sizeof *prof);
  if (!prof) return hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory for PML profiles");
  for (c = 0; c < m->nmat; ++c) { /* E's numbers at 3 c, H's at 768 + 3 c */
    const double rn = 1.0 / sqrt(m->eps_r[c] * m->mu_r[c]), eps = HD_FDTD_EPS0 * m->eps_r[c], mu = HD_FDTD_MU0 * m->mu_r[c];
    const int cond = c == HD_FDTD_PEC;
    prof[3 * c] = prof[768 + 3 * c] = (hd_real)rn;
    prof[3 * c + 1] = cond ? HD_R(0) : (hd_real)(m->dt / eps), prof[768 + 3 * c + 1] = cond ? HD_R(0) : (hd_real)(m->dt / mu);
    prof[3 * c + 2] = (hd_real)(m->sigma[c] * m->dt / (2 * eps)), prof[768 + 3 * c + 2] = (hd_real)(m->sigma_m[c] * m->dt / (2 * mu));
  }
  for (a = 0; a < 3; ++a) {
    const int on = fd_layers(m->bc[a]);
    const hd_idx gn = m->gn[a];
    const double x0 = m->node[a][0], xn = m->node[a][gn];
    const double tlo = L * (m->node[a][1] - x0), thi = L * (xn - m->node[a][gn - 1]); /* each face's layers: its cells */
    for (p = 0; p < len[a]; ++p) {
      const double xe = fd_coord(m, a, p, pad), xh = 0.5 * (xe + fd_coord(m, a, p + 1, pad));
      const double dep[2] = {on ? (xe < x0 ? x0 - xe : xe - xn) : 0.0, on ? (xh < x0 ? x0 - xh : xh - xn) : 0.0};
      int w;
      for (w = 0; w < 2; ++w) {
        const double t = (w ? xh : xe) < x0 ? tlo : thi;
        hd_real *q = prof + off[6 * a + 3 * w] + p;
        if (st->cpml) {
          double kappa, sigma, alpha, b;
          hd_fdtd_cpml_profile(dep[w], t, m->pml_order, m->pml_r0, m->cpml_kappa, m->cpml_alpha, &kappa, &sigma, &alpha);
          b = exp(-(sigma / kappa + alpha) * m->dt / HD_FDTD_EPS0);
          q[0] = (hd_real)b, q[len[a]] = (hd_real)(sigma > 0 ? sigma * (b - 1) / (sigma * kappa + kappa * kappa * alpha) : 0.0);
          q[2 * len[a]] = (hd_real)(1.0 / kappa);
        } else {
          q[0] = (hd_real)(hd_fdtd_pml_sigma(dep[w], t, m->pml_order, m->pml_r0) * m->dt / (2 * HD_FDTD_EPS0));
        }
      }
    }
  }
  s = fd_upload(ctx, (void **)&st->prof, prof, (size_t)total * sizeof *prof);
  free(prof);
  if (s != HD_OK) return s;
  for (c = 0; c < 6; ++c) {
    hd_fdtd_pml_args *pa = &st->pml[c];
    hd_idx lo[3], hi[3], mlo[3], mhi[3], q[3], count = 0, k = 0;
    hd_fdtd_pml_point *list;
    const int e = c < 3, axis = c % 3;
    for (a = 0; a < 3; ++a) { /* layers only beyond faces of the whole grid */
      const int on = fd_layers(m->bc[a]), onlo = on && !m->halo[2 * a], onhi = on && !m->halo[2 * a + 1];
      const hd_idx n = m->n[a];
      if (a == axis) { /* along the component: cells for E, nodes for H */
        mlo[a] = 0, mhi[a] = e ? n - 1 : n;
        lo[a] = onlo ? -L : mlo[a], hi[a] = onhi ? (e ? n + L - 1 : n + L) : mhi[a];
      } else if (e) { /* E across: nodes, the outer PML wall excluded */
        mlo[a] = st->a.elo[a], mhi[a] = st->a.ehi[a];
        lo[a] = onlo ? -L + 1 : mlo[a], hi[a] = onhi ? n + L - 1 : mhi[a];
      } else { /* H across: cells */
        mlo[a] = 0, mhi[a] = n - 1;
        lo[a] = onlo ? -L : mlo[a], hi[a] = onhi ? n + L - 1 : mhi[a];
      }
    }
    for (a = 0; a < 3; ++a) {
      const int w = e ? 0 : 3;
      pa->pe[a] = st->prof + off[6 * a], pa->ph[a] = st->prof + off[6 * a + 3];
      st->cpml_args[c].b[a] = st->prof + off[6 * a + w], st->cpml_args[c].c[a] = st->prof + off[6 * a + w] + len[a];
      st->cpml_args[c].ik[a] = st->prof + off[6 * a + w] + 2 * len[a];
    }
    pa->mat = st->prof + (e ? 0 : 768);
    pa->f = st->a;
    pa->comp = c;
    for (q[2] = lo[2]; q[2] <= hi[2]; ++q[2])
      for (q[1] = lo[1]; q[1] <= hi[1]; ++q[1])
        for (q[0] = lo[0]; q[0] <= hi[0]; ++q[0])
          count += !(q[0] >= mlo[0] && q[0] <= mhi[0] && q[1] >= mlo[1] && q[1] <= mhi[1] &&
                     q[2] >= mlo[2] && q[2] <= mhi[2]);
    st->npml[c] = count;
    if (!count) continue;
    list = (hd_fdtd_pml_point *)malloc((size_t)count * sizeof *list);
    if (!list) return hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory for PML points");
    for (q[2] = lo[2]; q[2] <= hi[2]; ++q[2])
      for (q[1] = lo[1]; q[1] <= hi[1]; ++q[1])
        for (q[0] = lo[0]; q[0] <= hi[0]; ++q[0]) {
          if (q[0] >= mlo[0] && q[0] <= mhi[0] && q[1] >= mlo[1] && q[1] <= mhi[1] &&
              q[2] >= mlo[2] && q[2] <= mhi[2])
            continue;
          list[k].i = (int)(q[0] + pad), list[k].j = (int)(q[1] + pad), list[k].k = (int)(q[2] + pad);
          list[k].n = hd_grid_at(g, q[0] + pad, q[1] + pad, q[2] + pad);
          ++k;
        }
    s = fd_upload(ctx, (void **)&pa->pt, list, (size_t)count * sizeof *list);
    free(list);
    if (s == HD_OK) s = hd_dev_alloc(ctx, (void **)&pa->s1, (size_t)count * sizeof(hd_real));
    if (s == HD_OK) s = hd_dev_alloc(ctx, (void **)&pa->s2, (size_t)count * sizeof(hd_real));
    if (s == HD_OK) s = hd_dev_zero(ctx, pa->s1, (size_t)count * sizeof(hd_real));
    if (s == HD_OK) s = hd_dev_zero(ctx, pa->s2, (size_t)count * sizeof(hd_real));
    if (s != HD_OK) return s;
  }
  return HD_OK;
}

/* The running DFTs' arrays: frequencies, feed accumulators, and the
 * Huygens surface's points (base nodes on the padded grid) and
 * accumulators, all zero. */
static hd_status fd_create_dft(hd_ctx *ctx, fdtd_state *st, const fdtd_model *m, hd_idx pad) {
  hd_status s = HD_OK;
  size_t bytes;
  st->nfreq = m->nfreq;
  st->freq = (double *)malloc((size_t)m->nfreq * sizeof(double));
  if (!st->freq) return hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory");
  memcpy(st->freq, m->freq, (size_t)m->nfreq * sizeof(double));
  st->ffreq = st->freq + m->field_first, st->nffreq = m->nfield;
  if (st->nfeed) {
    bytes = (size_t)4 * m->nfreq * st->nfeed * sizeof(double);
    s = hd_dev_alloc(ctx, (void **)&st->feed_acc, bytes);
    if (s == HD_OK) s = hd_dev_zero(ctx, st->feed_acc, bytes);
    if (s == HD_OK) s = hd_dev_alloc(ctx, (void **)&st->vi, (size_t)2 * st->nfeed * sizeof(hd_real));
  }
  if (s == HD_OK && st->nprobe) {
    bytes = (size_t)2 * m->nfreq * st->nprobe * sizeof(double);
    s = hd_dev_alloc(ctx, (void **)&st->probe_acc, bytes);
    if (s == HD_OK) s = hd_dev_zero(ctx, st->probe_acc, bytes);
  }
  if (s == HD_OK && m->npts > 0) {
    const hd_idx npts = m->npts;
    hd_idx *node = (hd_idx *)malloc((size_t)npts * sizeof(hd_idx)), p;
    if (!node) s = hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory");
    if (s == HD_OK) {
      const long *ijk = m->surf_ijk;
      for (p = 0; p < npts; ++p) node[p] = hd_grid_at(&st->a.g, ijk[3 * p] + pad, ijk[3 * p + 1] + pad, ijk[3 * p + 2] + pad);
      st->npts = npts;
      s = fd_upload(ctx, (void **)&st->surf_node, node, (size_t)npts * sizeof *node);
      if (s == HD_OK) s = fd_upload(ctx, (void **)&st->surf_face, m->surf_face, (size_t)npts);
      bytes = (size_t)8 * m->nfield * npts * sizeof(double);
      if (s == HD_OK) s = hd_dev_alloc(ctx, (void **)&st->surf_acc, bytes);
      if (s == HD_OK) s = hd_dev_zero(ctx, st->surf_acc, bytes);
      bytes = (size_t)HD_DFT_BUFFER * 4 * npts * sizeof(hd_real);
      if (s == HD_OK) s = hd_dev_alloc(ctx, (void **)&st->surf_buf, bytes);
      if (s == HD_OK) s = hd_dev_zero(ctx, st->surf_buf, bytes);
    }
    free(node);
  }
  if (s == HD_OK && m->volume_dft) { /* every node's six components */
    const hd_idx pad = st->a.g.ghost;
    int a;
    memcpy(st->vol.f, st->a.f, sizeof st->vol.f);
    for (a = 0; a < 3; ++a) st->vol_nn[a] = m->n[a] + 1;
    st->vol.first = hd_grid_at(&st->a.g, pad, pad, pad);
    st->vol.span = hd_grid_at(&st->a.g, pad + m->n[0], pad + m->n[1], pad + m->n[2]) + 1 - st->vol.first;
    bytes = (size_t)HD_DFT_VOLUME_BUFFER * 6 * st->vol.span * sizeof(hd_real);
    s = hd_dev_alloc(ctx, (void **)&st->vol.buf, bytes);
    if (s == HD_OK) s = hd_dev_zero(ctx, st->vol.buf, bytes);
    bytes = (size_t)12 * m->nfield * st->vol.span * sizeof(hd_real);
    if (s == HD_OK) s = hd_dev_alloc(ctx, (void **)&st->vol.acc, bytes);
    if (s == HD_OK) s = hd_dev_zero(ctx, st->vol.acc, bytes);
  }
  for (st->nplane = 0; s == HD_OK && st->nplane < m->nplane; ++st->nplane) { /* the cells of each map's layer */
    hd_dft_plane_args *q = &st->plane[st->nplane];
    const int comp = m->plane_comp[st->nplane], a = m->plane_axis[st->nplane], u = a == 0 ? 1 : 0, v = a == 2 ? 1 : 2;
    const int c = comp % 3, cu = (c + 1) % 3, cv = (c + 2) % 3;
    hd_idx at[3];
    memset(q, 0, sizeof *q);
    if (m->plane_layer[st->nplane] < 0) continue; /* another block's layer: no cells here */
    at[a] = m->plane_layer[st->nplane] + pad, at[u] = pad, at[v] = pad;
    q->base = hd_grid_at(&st->a.g, at[0], at[1], at[2]);
    q->su = st->a.g.stride[u], q->sv = st->a.g.stride[v], q->nu = m->n[u], q->ncell = m->n[u] * m->n[v];
    if (comp < 3)
      q->noff = 4, q->off[1] = st->a.g.stride[cu], q->off[2] = st->a.g.stride[cv], q->off[3] = q->off[1] + q->off[2];
    else
      q->noff = 2, q->off[1] = st->a.g.stride[c];
    q->when = comp < 3 ? 0 : 1;
    q->f = st->a.f[comp];
    bytes = (size_t)2 * m->nfield * q->ncell * sizeof(double);
    s = hd_dev_alloc(ctx, (void **)&q->acc, bytes);
    if (s == HD_OK) s = hd_dev_zero(ctx, q->acc, bytes);
    else q->acc = NULL;
  }
  return s;
}

/* Position of component comp at physical node p along axis a, in half
 * cells: staggered components sit half a cell above their node. */
static long fd_half_index(int comp, int a, long p) {
  return 2 * p + (comp < 3 ? a == comp : a != comp - 3);
}
static int fd_in_box(const fdtd_model *m, int comp, const long p[3]) {
  int a;
  for (a = 0; a < 3; ++a) {
    const long h = fd_half_index(comp, a, p[a]);
    if (h < 2 * m->tfsf_lo[a] || h > 2 * m->tfsf_hi[a]) return 0;
  }
  return 1;
}

/* The plane wave: the incident line (its coefficients: vacuum, graded
 * absorbing cells at the far end; the same whole line on every block) and
 * the corrections of every component this block updates whose curl
 * reaches across the total-field box's faces (the box in whole-grid
 * nodes). */
static hd_status fd_build_tfsf(hd_ctx *ctx, fdtd_state *st, const fdtd_model *m) {
  const hd_idx pad = st->a.g.ghost;
  const double D = m->pw_cell, eta = sqrt(HD_FDTD_MU0 / HD_FDTD_EPS0);
  double r0[3], span = 0.0;
  hd_real *coef;
  hd_fdtd_tfsf_point *list[2] = {NULL, NULL};
  hd_idx n, i, cap[2] = {0, 0}, n0;
  long p[3];
  int a, c, side;
  hd_status s = HD_OK;
  for (a = 0; a < 3; ++a) { /* the corner the wave reaches first, and the box's extent along k */
    const double x0 = m->node[a][m->tfsf_lo[a]], x1 = m->node[a][m->tfsf_hi[a]];
    r0[a] = m->pw_k[a] >= 0 ? x0 : x1;
    span += fabs(m->pw_k[a]) * (x1 - x0 + (m->node[a][1] - m->node[a][0]));
  }
  n = (hd_idx)ceil(span / D + HD_FDTD_INC_LEAD) + 2 + HD_FDTD_INC_PML;
  n0 = n - 1 - HD_FDTD_INC_PML;
  coef = (hd_real *)malloc((size_t)4 * n * sizeof *coef);
  if (!coef) return hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory for the plane wave");
  for (i = 0; i < n; ++i) { /* sigma graded as depth^3 to a 1e-8 reflection */
    const double smax = -4.0 * log(1e-8) / (2.0 * eta * HD_FDTD_INC_PML * D);
    const double de = i > n0 ? (double)(i - n0) / HD_FDTD_INC_PML : 0.0;
    const double dh = i + 0.5 > n0 ? (i + 0.5 - n0) / HD_FDTD_INC_PML : 0.0;
    const double se = smax * de * de * de * m->dt / (2 * HD_FDTD_EPS0), sh = smax * dh * dh * dh * m->dt / (2 * HD_FDTD_EPS0);
    coef[2 * i] = (hd_real)((1 - se) / (1 + se)), coef[2 * i + 1] = (hd_real)(m->dt / (HD_FDTD_EPS0 * D) / (1 + se));
    coef[2 * n + 2 * i] = (hd_real)((1 - sh) / (1 + sh)), coef[2 * n + 2 * i + 1] = (hd_real)(m->dt / (HD_FDTD_MU0 * D) / (1 + sh));
  }
  st->inc.n = n;
  s = fd_upload(ctx, (void **)&st->inc_coef, coef, (size_t)4 * n * sizeof *coef);
  free(coef);
  st->inc.ce = st->inc_coef, st->inc.ch = st->inc_coef + 2 * n;
  for (i = 0; s == HD_OK && i < 2; ++i) {
    hd_real **line = i ? &st->inc.h : &st->inc.e;
    s = hd_dev_alloc(ctx, (void **)line, (size_t)n * sizeof(hd_real));
    if (s == HD_OK) s = hd_dev_zero(ctx, *line, (size_t)n * sizeof(hd_real));
  }
  /* the components within a cell of the box's faces: target total or
   * scattered, a term across the faces reads the other region */
  for (c = 0; s == HD_OK && c < 6; ++c) {
    int nb[4], ax[4], sh[4], sg[4], t;
    const int e = c < 3, w = e ? 0 : 1;
    const int skip = m->tfsf_hi[0] - m->tfsf_lo[0] > 4; /* a box's inside has no terms */
    hd_fdtd_curl_terms(c, nb, ax, sh, sg);
    for (p[2] = m->tfsf_lo[2] - 1; s == HD_OK && p[2] <= m->tfsf_hi[2] + 1; ++p[2])
      for (p[1] = m->tfsf_lo[1] - 1; s == HD_OK && p[1] <= m->tfsf_hi[1] + 1; ++p[1])
        for (p[0] = m->tfsf_lo[0] - 1; s == HD_OK && p[0] <= m->tfsf_hi[0] + 1; ++p[0]) {
          hd_fdtd_tfsf_point q;
          int used = 0, mine = 1;
          const int inner = p[1] > m->tfsf_lo[1] + 1 && p[1] < m->tfsf_hi[1] - 1 && p[2] > m->tfsf_lo[2] + 1 &&
                            p[2] < m->tfsf_hi[2] - 1;
          if (skip && inner && p[0] == m->tfsf_lo[0] + 2) p[0] = m->tfsf_hi[0] - 1;
          for (a = 0; a < 3; ++a) { /* a component this block updates (E on a shared plane: both blocks) */
            const long ql = p[a] - m->off[a];
            const long lo = e ? (a == c ? 0 : st->a.elo[a]) : 0;
            const long hi = e ? (a == c ? m->n[a] - 1 : st->a.ehi[a]) : (a == c - 3 ? m->n[a] : m->n[a] - 1);
            mine &= ql >= lo && ql <= hi;
          }
          if (!mine) continue;
          side = fd_in_box(m, c, p) ? 1 : -1;
          memset(&q, 0, sizeof q);
          for (t = 0; t < 4; ++t) {
            long pn[3];
            double d = HD_FDTD_INC_LEAD, r;
            const double *pol = nb[t] < 3 ? m->pw_e : m->pw_h;
            pn[0] = p[0], pn[1] = p[1], pn[2] = p[2], pn[ax[t]] += sh[t];
            if ((fd_in_box(m, nb[t], pn) ? 1 : -1) == side || pol[nb[t] % 3] == 0.0) continue;
            for (a = 0; a < 3; ++a) {
              const double *x = m->node[a];
              d += m->pw_k[a] * (x[pn[a]] + (fd_half_index(nb[t], a, pn[a]) % 2 ? 0.5 * (x[pn[a] + 1] - x[pn[a]]) : 0.0) - r0[a]) / D;
            }
            { /* the width the update divides this term by: dual (E) or primary (H) */
              const double *x = m->node[ax[t]];
              const long j = p[ax[t]];
              r = e ? 2.0 / (x[j + 1] - x[j - 1]) : 1.0 / (x[j + 1] - x[j]);
            }
            if (nb[t] >= 3) d -= 0.5; /* H of the line sits at i + 1/2 */
            q.w[used] = sg[t] * r * side * pol[nb[t] % 3];
            q.x[used++] = d;
          }
          if (!used) continue;
          if (used > 2) {
            s = hd_fail(ctx, HD_ERR_ARG, "fdtd: plane wave: %d terms across the box at one component", used);
            break;
          }
          q.comp = c;
          q.n = hd_grid_at(&st->a.g, p[0] - m->off[0] + pad, p[1] - m->off[1] + pad, p[2] - m->off[2] + pad);
          if (st->ntfsf[w] == cap[w]) {
            hd_fdtd_tfsf_point *nl;
            cap[w] = cap[w] ? 2 * cap[w] : 4096;
            nl = (hd_fdtd_tfsf_point *)realloc(list[w], (size_t)cap[w] * sizeof *nl);
            if (!nl) {
              s = hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory for the plane wave");
              break;
            }
            list[w] = nl;
          }
          list[w][st->ntfsf[w]++] = q;
        }
  }
  for (i = 0; s == HD_OK && i < 2; ++i)
    s = fd_upload(ctx, (void **)&st->tfsf[i], list[i], (size_t)st->ntfsf[i] * sizeof **list);
  free(list[0]), free(list[1]);
  st->pw_e0 = m->pw_e0;
  if (s == HD_OK && m->nfreq && !(st->inc_acc = (double *)calloc((size_t)2 * m->nfreq, sizeof(double))))
    s = hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory");
  return s;
}

/* The scattered-field plane wave's distance k^.(r - r0) of component comp
 * at padded node q, r0 the corner of the whole grid the wave reaches
 * first (before it the waveform is still nil). */
static double fd_pw_distance(const fdtd_model *m, int comp, const hd_idx q[3], hd_idx pad) {
  double d = 0.0;
  int a;
  for (a = 0; a < 3; ++a) {
    const int half = comp < 3 ? a == comp : a != comp - 3;
    const double x = half ? 0.5 * (fd_coord(m, a, q[a], pad) + fd_coord(m, a, q[a] + 1, pad)) : fd_coord(m, a, q[a], pad);
    d += m->pw_k[a] * (x - (m->pw_k[a] >= 0 ? m->node[a][0] : m->node[a][m->gn[a]]));
  }
  return d;
}

/* Whether this block's E update reaches component c at physical node p. */
static int fd_updates_e(const fdtd_state *st, int c, const long p[3]) {
  int a;
  for (a = 0; a < 3; ++a)
    if (a == c ? p[a] < 0 || p[a] >= st->a.nc[a] : p[a] < st->a.elo[a] || p[a] > st->a.ehi[a]) return 0;
  return 1;
}

static int fd_key_cmp(const void *x, const void *y) {
  const hd_idx a = *(const hd_idx *)x, b = *(const hd_idx *)y;
  return a < b ? -1 : a > b;
}

/* Dispersive edges and lumped loads (hd/fdtd_ade.h): a coefficient set for
 * each dispersive material and each loaded edge; the edges of dispersive
 * materials this block updates, less those with a feed or a load, then the
 * loads.  A load on a PEC edge replaces the PEC by vacuum (a gap). */
static hd_status fd_build_ade(hd_ctx *ctx, fdtd_state *st, const fdtd_model *m, hd_idx pad) {
  const hd_grid *g = &st->a.g;
  hd_fdtd_ade_coef *coef = NULL;
  hd_fdtd_ade_edge *edge = NULL;
  hd_idx *taken = NULL, ntaken = 0, count = 0, cap, n;
  int set_of[256], nset = 0, npmax = 0, k, c, any = 0;
  hd_status s = HD_OK;
  for (k = 0; k < m->nmat; ++k) any |= m->npole && m->npole[k] > 0 && k != HD_FDTD_PEC;
  if (!any && !m->nload) return HD_OK;
  coef = (hd_fdtd_ade_coef *)calloc((size_t)m->nmat + (size_t)m->nload, sizeof *coef);
  taken = (hd_idx *)malloc(((size_t)m->nload + (size_t)m->nfeed + 1) * sizeof *taken);
  if (!coef || !taken) s = hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory");
  for (k = 0; s == HD_OK && k < m->nmat; ++k) {
    set_of[k] = -1;
    if (!m->npole || m->npole[k] <= 0 || k == HD_FDTD_PEC) continue;
    if (hd_fdtd_ade_set(m->dt, HD_FDTD_EPS0 * m->eps_r[k], m->sigma[k], m->pole[k], m->npole[k], &coef[nset]))
      s = hd_fail(ctx, HD_ERR_ARG, "fdtd: material %d: poles that are not physical or too fast for the time step", k);
    if (m->npole[k] > npmax) npmax = m->npole[k];
    set_of[k] = nset++;
  }
  for (k = 0; k < m->nload; ++k)
    taken[ntaken++] = 3 * hd_grid_at(g, m->load[k].i + pad, m->load[k].j + pad, m->load[k].k + pad) + m->load[k].comp;
  for (k = 0; k < m->nfeed; ++k)
    taken[ntaken++] = 3 * hd_grid_at(g, m->feed[k].i + pad, m->feed[k].j + pad, m->feed[k].k + pad) + m->feed[k].comp;
  if (s == HD_OK) qsort(taken, (size_t)ntaken, sizeof *taken, fd_key_cmp);
  /* the edges: count, then fill */
  for (cap = 0, k = 0; s == HD_OK && k < 2; ++k) {
    if (k == 1 && !(edge = (hd_fdtd_ade_edge *)calloc((size_t)cap + 1, sizeof *edge))) {
      s = hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory");
      break;
    }
    for (count = 0, c = 0; any && c < 3; ++c) {
      long p[3];
      for (p[2] = 0; p[2] <= m->n[2]; ++p[2])
        for (p[1] = 0; p[1] <= m->n[1]; ++p[1])
          for (p[0] = 0; p[0] <= m->n[0]; ++p[0]) {
            hd_idx key;
            n = hd_grid_at(g, p[0] + pad, p[1] + pad, p[2] + pad);
            if (set_of[m->mat[c][n]] < 0 || !fd_updates_e(st, c, p)) continue;
            key = 3 * n + c;
            if (ntaken && bsearch(&key, taken, (size_t)ntaken, sizeof key, fd_key_cmp)) continue;
            if (k == 1) {
              hd_fdtd_ade_edge *e = &edge[count];
              e->n = n, e->comp = c, e->set = set_of[m->mat[c][n]];
              e->i = (int)(p[0] + pad), e->j = (int)(p[1] + pad), e->k = (int)(p[2] + pad);
            }
            ++count;
          }
    }
    cap = count + m->nload;
  }
  for (k = 0; s == HD_OK && k < m->nload; ++k) {
    const fdtd_load *ld = &m->load[k];
    const int cc = ld->comp, u = (cc + 1) % 3, v = (cc + 2) % 3;
    const long p[3] = {ld->i, ld->j, ld->k};
    hd_fdtd_ade_edge *e = &edge[count];
    hd_fdtd_pole pole[HD_FDTD_POLES];
    double len, area, eps, sigma;
    int mat, np = 0;
    if (!fd_updates_e(st, cc, p)) continue;
    e->n = hd_grid_at(g, p[0] + pad, p[1] + pad, p[2] + pad), e->comp = cc;
    e->i = (int)(p[0] + pad), e->j = (int)(p[1] + pad), e->k = (int)(p[2] + pad);
    mat = m->mat[cc][e->n] == HD_FDTD_PEC ? (int)HD_FDTD_VACUUM : (int)m->mat[cc][e->n];
    len = fd_coord(m, cc, p[cc] + pad + 1, pad) - fd_coord(m, cc, p[cc] + pad, pad);
    area = 0.25 * (fd_coord(m, u, p[u] + pad + 1, pad) - fd_coord(m, u, p[u] + pad - 1, pad)) *
           (fd_coord(m, v, p[v] + pad + 1, pad) - fd_coord(m, v, p[v] + pad - 1, pad));
    eps = HD_FDTD_EPS0 * m->eps_r[mat] + ld->c * len / area;
    sigma = m->sigma[mat] + ld->g * len / area;
    if (m->npole && m->npole[mat] > 0) memcpy(pole, m->pole[mat], (size_t)m->npole[mat] * sizeof *pole), np = m->npole[mat];
    if (ld->il > 0) { /* dJ/dt = l/(L A) E: a Drude pole without damping */
      if (np == HD_FDTD_POLES) {
        s = hd_fail(ctx, HD_ERR_ARG, "fdtd: an inductor on an edge of %d poles", np);
        break;
      }
      pole[np].kind = HD_FDTD_DRUDE, pole[np].a = sqrt(ld->il * len / (area * HD_FDTD_EPS0)), pole[np].b = 0.0;
      pole[np++].c = 0.0;
    }
    if (hd_fdtd_ade_set(m->dt, eps, sigma, pole, np, &coef[nset])) {
      s = hd_fail(ctx, HD_ERR_ARG, "fdtd: the load on %s(%ld,%ld,%ld): its L with the edge's C resonates too fast for the time "
                  "step (w dt > 1): a larger inductance or capacitance, or a smaller step", cc == 0 ? "ex" : cc == 1 ? "ey" : "ez",
                  p[0] + m->off[0], p[1] + m->off[1], p[2] + m->off[2]);
      break;
    }
    if (np > npmax) npmax = np;
    e->set = nset++;
    ++count;
  }
  st->nade = count;
  st->ade.stride = 1 + 2 * npmax;
  if (s == HD_OK && count && m->pw_sf) { /* the scattered-field form marches these edges' total field */
    double *d = (double *)malloc((size_t)count * sizeof *d);
    hd_idx e;
    if (!d) s = hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory");
    for (e = 0; s == HD_OK && e < count; ++e) {
      const hd_idx q[3] = {edge[e].i, edge[e].j, edge[e].k};
      d[e] = fd_pw_distance(m, edge[e].comp, q, pad);
    }
    if (s == HD_OK) s = fd_upload(ctx, (void **)&st->ade_pwd, d, (size_t)count * sizeof *d);
    free(d);
  }
  if (s == HD_OK && count) {
    const size_t bytes = (size_t)count * (size_t)st->ade.stride * sizeof(hd_real);
    s = fd_upload(ctx, (void **)&st->ade.edge, edge, (size_t)count * sizeof *edge);
    if (s == HD_OK) s = fd_upload(ctx, (void **)&st->ade.coef, coef, (size_t)nset * sizeof *coef);
    if (s == HD_OK) s = hd_dev_alloc(ctx, (void **)&st->ade.state, bytes);
    if (s == HD_OK) s = hd_dev_zero(ctx, st->ade.state, bytes);
  }
  free(coef), free(edge), free(taken);
  return s;
}

/* The scattered-field form: the incident wave, each medium's
 * coefficients, and the components of this block's updates that sit in a
 * medium other than vacuum (dispersive and loaded edges excepted: the ADE
 * pass marches their total field), then the probes' distances. */
static hd_status fd_build_sf(hd_ctx *ctx, fdtd_state *st, const fdtd_model *m) {
  const hd_grid *g = &st->a.g;
  const hd_idx pad = g->ghost;
  const double eta = sqrt(HD_FDTD_MU0 / HD_FDTD_EPS0);
  hd_real coef[2][512];
  int need[2][256], c, k, w;
  hd_fdtd_sf_point *list[2] = {NULL, NULL};
  hd_idx cap[2] = {0, 0};
  hd_status s = HD_OK;
  st->pw_sf = 1;
  st->pw.wave = m->wave;
  for (c = 0; c < 3; ++c) st->pw.amp[c] = m->pw_e0 * m->pw_e[c], st->pw.amp[3 + c] = m->pw_e0 * m->pw_h[c] / eta;
  memset(coef, 0, sizeof coef);
  for (k = 0; k < m->nmat; ++k)
    for (w = 0; w < 2; ++w) {
      const double rel = w ? m->mu_r[k] : m->eps_r[k], sg = w ? m->sigma_m[k] : m->sigma[k];
      const double perm = rel * (w ? HD_FDTD_MU0 : HD_FDTD_EPS0), sh = sg * m->dt / (2 * perm);
      coef[w][2 * k] = (hd_real)((1 - 1 / rel) / (1 + sh)), coef[w][2 * k + 1] = (hd_real)(sh / (1 + sh));
      need[w][k] = k == HD_FDTD_PEC || (k != HD_FDTD_VACUUM && (coef[w][2 * k] != 0 || coef[w][2 * k + 1] != 0) &&
                                        (w || !m->npole || m->npole[k] <= 0));
    }
  s = fd_upload(ctx, (void **)&st->sf_coef, coef, sizeof coef);
  for (c = 0; s == HD_OK && c < 6; ++c) {
    const int e = c < 3, wl = e ? 0 : 1;
    long p[3], hi[3];
    int a;
    for (a = 0; a < 3; ++a) hi[a] = e ? m->n[a] : (a == c - 3 ? m->n[a] : m->n[a] - 1);
    for (p[2] = 0; s == HD_OK && p[2] <= hi[2]; ++p[2])
      for (p[1] = 0; s == HD_OK && p[1] <= hi[1]; ++p[1])
        for (p[0] = 0; s == HD_OK && p[0] <= hi[0]; ++p[0]) {
          const hd_idx q[3] = {p[0] + pad, p[1] + pad, p[2] + pad}, n = hd_grid_at(g, q[0], q[1], q[2]);
          int load = 0;
          if (!need[wl][m->mat[c][n]] || (e && !fd_updates_e(st, c, p))) continue;
          for (k = 0; e && k < m->nload; ++k)
            load |= m->load[k].comp == c && m->load[k].i == p[0] && m->load[k].j == p[1] && m->load[k].k == p[2];
          if (load) continue;
          if (st->nsf[wl] == cap[wl]) {
            hd_fdtd_sf_point *nl;
            cap[wl] = cap[wl] ? 2 * cap[wl] : 4096;
            if (!(nl = (hd_fdtd_sf_point *)realloc(list[wl], (size_t)cap[wl] * sizeof *nl))) {
              s = hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory for the plane wave");
              break;
            }
            list[wl] = nl;
          }
          list[wl][st->nsf[wl]].n = n, list[wl][st->nsf[wl]].comp = c;
          list[wl][st->nsf[wl]++].d = fd_pw_distance(m, c, q, pad);
        }
  }
  for (w = 0; s == HD_OK && w < 2; ++w) s = fd_upload(ctx, (void **)&st->sf[w], list[w], (size_t)st->nsf[w] * sizeof **list);
  free(list[0]), free(list[1]);
  if (s == HD_OK && m->nprobe) {
    double *d = (double *)malloc((size_t)m->nprobe * sizeof *d);
    if (!d) return hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory");
    for (k = 0; k < m->nprobe; ++k) {
      const hd_idx q[3] = {m->probe[k].i + pad, m->probe[k].j + pad, m->probe[k].k + pad};
      d[k] = fd_pw_distance(m, m->probe[k].comp, q, pad);
    }
    s = fd_upload(ctx, (void **)&st->sf_probe_d, d, (size_t)m->nprobe * sizeof *d);
    free(d);
  }
  st->pw_e0 = m->pw_e0;
  if (s == HD_OK && m->nfreq && !(st->inc_acc = (double *)calloc((size_t)2 * m->nfreq, sizeof(double))))
    s = hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory");
  return s;
}

static hd_status fd_create(hd_ctx *ctx, const fdtd_model *m, void **out) {
  fdtd_state *st = (fdtd_state *)calloc(1, sizeof(fdtd_state));
  const hd_idx pad = fdtd_pad(m), lead = fdtd_lead(m);
  hd_real coef[4 * 256], *mesh = NULL;
  hd_idx len[3], moff = 0, p;
  size_t bytes;
  hd_status s = HD_OK;
  int a, c, k;
  *out = NULL;
  if (!st) return hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory");
  if (!fdtd_node_grid(&st->a.g, m->n, pad) || st->a.g.total <= 0) {
    free(st);
    return hd_fail(ctx, HD_ERR_ARG, "fdtd: grid %ld x %ld x %ld is too large", m->n[0], m->n[1], m->n[2]);
  }
  st->dt = m->dt;
  memcpy(st->off, m->off, sizeof st->off);
  memcpy(st->shared, m->halo, sizeof st->shared);
  st->mur_h = m->mur_h;
  st->wave = m->wave;
  st->tuned = FDTD_HAS_TUNED && m->variant != HD_VARIANT_GENERIC;
  st->time_block = m->time_block > 1 ? m->time_block : 1;
  memcpy(st->block, m->block, sizeof st->block);
  for (a = 0; a < 3; ++a) { /* faces shared with another block, PML and Mur on H: E there too, from H outside */
    const int open = fd_layers(m->bc[a]) || (m->bc[a] == HD_FDTD_BC_MUR && m->mur_h);
    st->bc[a] = m->bc[a];
    st->a.nc[a] = m->n[a];
    st->a.elo[a] = m->halo[2 * a] || open || m->bc[a] == HD_FDTD_BC_PERIODIC ? 0 : 1;
    st->a.ehi[a] = m->halo[2 * a + 1] || open ? m->n[a] : m->n[a] - 1;
  }
  /* fields and material indices */
  bytes = (size_t)(st->a.g.total + lead) * sizeof(hd_real);
  for (c = 0; c < 6 && s == HD_OK; ++c) {
    s = hd_dev_alloc(ctx, (void **)&st->field[c], bytes);
    if (s == HD_OK) s = hd_dev_zero(ctx, st->field[c], bytes);
    if (s == HD_OK) s = hd_dev_alloc(ctx, (void **)&st->mat[c], (size_t)(st->a.g.total + lead));
    if (s == HD_OK) s = hd_dev_upload(ctx, st->mat[c] + lead, m->mat[c], (size_t)st->a.g.total);
    st->a.f[c] = st->field[c] + lead;
    st->a.m[c] = st->mat[c] + lead;
  }
#if !defined(HD_BACKEND_CUDA)
  for (c = 0; c < 6 && s == HD_OK && st->tuned; ++c) { /* the tuned rows take each row's materials as runs */
    const hd_idx rows = st->a.g.stride[2] / st->a.g.stride[1] * (st->a.g.n[2] + 2 * st->a.g.ghost);
    const int64_t nrun = hd_fdtd_runs_build(&st->a.g, m->mat[c], NULL, NULL);
    st->row_run[c] = (int64_t *)malloc((size_t)(rows + 1) * sizeof(int64_t));
    st->run[c] = (hd_fdtd_run *)malloc((size_t)nrun * sizeof(hd_fdtd_run));
    if (!st->row_run[c] || !st->run[c]) s = hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory for the material runs");
    else hd_fdtd_runs_build(&st->a.g, m->mat[c], st->row_run[c], st->run[c]);
    st->a.row_run[c] = st->row_run[c], st->a.run[c] = st->run[c];
  }
#endif
  /* coefficient tables: E by permittivity and conductivity (PEC: 0, 0), H
   * by permeability and magnetic conductivity */
  memset(coef, 0, sizeof coef);
  for (k = 0; k < m->nmat; ++k) {
    if (k != HD_FDTD_PEC)
      hd_fdtd_coefficients(m->dt, HD_FDTD_EPS0 * m->eps_r[k], m->sigma[k], &coef[k], &coef[256 + k]);
    hd_fdtd_coefficients(m->dt, HD_FDTD_MU0 * m->mu_r[k], m->sigma_m[k], &coef[512 + k], &coef[768 + k]);
  }
  if (s == HD_OK) s = fd_upload(ctx, (void **)&st->coef, coef, sizeof coef);
  st->a.c1 = st->coef, st->a.c2 = st->coef + 256, st->a.d1 = st->coef + 512, st->a.d2 = st->coef + 768;
  /* reciprocal widths on the padded nodes */
  for (a = 0; a < 3; ++a) len[a] = m->n[a] + 1 + 2 * pad, moff += 2 * len[a];
  mesh = (hd_real *)malloc((size_t)moff * sizeof *mesh);
  if (!mesh && s == HD_OK) s = hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory");
  for (a = 0, moff = 0; s == HD_OK && a < 3; ++a) {
    for (p = 0; p < len[a]; ++p) {
      const double xm = fd_coord(m, a, p - 1, pad), x = fd_coord(m, a, p, pad), xp = fd_coord(m, a, p + 1, pad);
      mesh[moff + p] = (hd_real)(2.0 / (xp - xm));
      mesh[moff + len[a] + p] = (hd_real)(1.0 / (xp - x));
    }
    moff += 2 * len[a];
  }
  if (s == HD_OK) s = fd_upload(ctx, (void **)&st->mesh, mesh, (size_t)moff * sizeof *mesh);
  free(mesh);
  for (a = 0, moff = 0; s == HD_OK && a < 3; ++a) {
    st->a.rn[a] = st->mesh + moff;
    st->a.rc[a] = st->mesh + moff + len[a];
    moff += 2 * len[a];
  }
  if (s == HD_OK) s = fd_build_mur(ctx, st, m);
  if (s == HD_OK && fdtd_pad(m) > 1) s = fd_build_pml(ctx, st, m);
  /* feeds, probes, the record buffer */
  st->nfeed = m->nfeed, st->nprobe = m->nprobe, st->nrec = m->nprobe + 2 * m->nfeed;
  if (s == HD_OK && m->nfeed) {
    hd_fdtd_feed *f = (hd_fdtd_feed *)calloc((size_t)m->nfeed, sizeof *f);
    if (!f) s = hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory");
    for (k = 0; s == HD_OK && k < m->nfeed; ++k) {
      f[k].comp = m->feed[k].comp;
      f[k].i = (int)(m->feed[k].i + pad), f[k].j = (int)(m->feed[k].j + pad), f[k].k = (int)(m->feed[k].k + pad);
      f[k].n = hd_grid_at(&st->a.g, f[k].i, f[k].j, f[k].k);
      f[k].amp = (hd_real)m->feed[k].amp;
      f[k].r = (hd_real)m->feed[k].r;
      f[k].delay = m->feed[k].delay;
      f[k].hold = !m->feed_release || m->mat[f[k].comp][hd_grid_at(&st->a.g, f[k].i, f[k].j, f[k].k)] == HD_FDTD_PEC;
    }
    if (s == HD_OK) s = fd_upload(ctx, (void **)&st->feed, f, (size_t)m->nfeed * sizeof *f);
    free(f);
  }
  if (s == HD_OK) s = fd_build_ade(ctx, st, m, pad);
  if (s == HD_OK && m->nprobe) {
    hd_fdtd_probe *q = (hd_fdtd_probe *)calloc((size_t)m->nprobe, sizeof *q);
    if (!q) s = hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory");
    for (k = 0; s == HD_OK && k < m->nprobe; ++k) {
      q[k].comp = m->probe[k].comp;
      q[k].n = hd_grid_at(&st->a.g, m->probe[k].i + pad, m->probe[k].j + pad, m->probe[k].k + pad);
    }
    if (s == HD_OK) s = fd_upload(ctx, (void **)&st->probe, q, (size_t)m->nprobe * sizeof *q);
    free(q);
  }
  if (s == HD_OK && st->nrec)
    s = hd_dev_alloc(ctx, (void **)&st->rec, (size_t)FDTD_REC_CHUNK * st->nrec * sizeof(hd_real));
  if (s == HD_OK && m->nfreq) s = fd_create_dft(ctx, st, m, pad);
  if (s == HD_OK && m->pw_e0 != 0) s = m->pw_sf ? fd_build_sf(ctx, st, m) : fd_build_tfsf(ctx, st, m);
  if (s == HD_OK) s = hd_dev_alloc(ctx, (void **)&st->rows, (size_t)(2 * m->n[1] * m->n[2]) * sizeof(double));
  if (s == HD_OK) s = hd_ctx_sync(ctx);
  if (s != HD_OK) {
    fd_destroy(ctx, st);
    return s;
  }
  *out = st;
  return HD_OK;
}

/* Periodic axes: copy E at node N from node 0 (after the E update), H at
 * node -1 from node N-1 (after the H update), over whole padded planes. */
static hd_status fd_periodic(hd_ctx *ctx, fdtd_state *st, int efield) {
  const hd_grid *g = &st->a.g;
  const hd_idx pad = g->ghost;
  hd_status s = HD_OK;
  int a, c;
  for (a = 0; a < 3 && s == HD_OK; ++a) {
    hd_fdtd_copy_args cp;
    hd_range3 r = hd_range3_make(0, g->n[0] + 2 * pad, 0, g->n[1] + 2 * pad, 0, g->n[2] + 2 * pad);
    const hd_idx n = st->a.nc[a];
    if (st->bc[a] != HD_FDTD_BC_PERIODIC) continue;
    cp.g = *g;
    r.lo[a] = efield ? pad + n : pad - 1;
    r.hi[a] = r.lo[a] + 1;
    cp.shift = (efield ? -n : n) * g->stride[a];
    for (c = 0; c < 3 && s == HD_OK; ++c) {
      if (c == a) continue; /* only the components tangential to the faces */
      cp.f = st->a.f[efield ? c : 3 + c];
      s = hd_fdtd_copy_loop(ctx, &cp, r);
    }
  }
  return s;
}

/* The fused E (efield) or H loop over the rows (j, k) of r (physical
 * nodes, rows whole). */
static hd_status fd_half_step_box(hd_ctx *ctx, fdtd_state *st, int efield, hd_range3 r) {
#if FDTD_HAS_TUNED
  if (st->tuned) return hd_fdtd_half_step_tuned_box(ctx, &st->a, efield, r);
#endif
  return efield ? hd_fdtd_e_loop(ctx, &st->a, r) : hd_fdtd_h_loop(ctx, &st->a, r);
}
static hd_status fd_half_step(hd_ctx *ctx, fdtd_state *st, int efield) {
  return fd_half_step_box(ctx, st, efield, hd_fdtd_nodes(&st->a));
}

/* The E half step after the exchange of H's ghosts (halo), the exchange
 * beside the update of the rows that read no ghost (node planes 1 .. n - 1
 * along a shared axis: E at node 0 reads H at -1, E at n reads H at n);
 * the rim's rows follow the exchange.  On CUDA the exchange and the rim
 * run on a high-priority stream while the inside runs on ctx's, which
 * then waits for them; on CPUs the same order, one after the other.  The
 * rows split the same updates: the field is one rank's bit for bit. */
static hd_status fd_e_exchanged(hd_ctx *ctx, fdtd_state *st, hd_status (*halo)(hd_ctx *, void *), void *arg) {
  const hd_range3 nodes = hd_fdtd_nodes(&st->a);
  hd_range3 in = nodes, rim[4];
  hd_status s;
  int a, nrim = 0, b;
#if defined(HD_BACKEND_CUDA)
  void *const stream = ctx->stream;
#endif
  for (a = 1; a < 3; ++a) {
    if (st->shared[2 * a]) in.lo[a] += 1;
    if (st->shared[2 * a + 1]) in.hi[a] -= 1;
  }
  for (a = 1; a < 3; ++a) { /* the rows outside `in`: y's along the whole z, z's within in's y */
    hd_range3 r = a == 1 ? nodes : in;
    if (in.lo[a] > nodes.lo[a]) r.lo[a] = nodes.lo[a], r.hi[a] = in.lo[a], rim[nrim++] = r;
    if (in.hi[a] < nodes.hi[a]) r.lo[a] = in.hi[a], r.hi[a] = nodes.hi[a], rim[nrim++] = r;
  }
  if (!nrim || in.hi[1] <= in.lo[1] || in.hi[2] <= in.lo[2]) { /* nothing to update beside it */
    if ((s = halo(ctx, arg)) != HD_OK) return s;
    return fd_half_step(ctx, st, 1);
  }
#if defined(HD_BACKEND_CUDA)
  if (!st->xs) {
    int least, greatest;
    HD_CUDA_TRY(ctx, cudaDeviceGetStreamPriorityRange(&least, &greatest));
    HD_CUDA_TRY(ctx, cudaStreamCreateWithPriority(&st->xs, cudaStreamNonBlocking, greatest));
    HD_CUDA_TRY(ctx, cudaEventCreateWithFlags(&st->prev_done, cudaEventDisableTiming));
    HD_CUDA_TRY(ctx, cudaEventCreateWithFlags(&st->rim_done, cudaEventDisableTiming));
  }
  HD_CUDA_TRY(ctx, cudaEventRecord(st->prev_done, hd_stream(ctx)));
  HD_CUDA_TRY(ctx, cudaStreamWaitEvent(st->xs, st->prev_done, 0));
#endif
  if ((s = fd_half_step_box(ctx, st, 1, in)) != HD_OK) return s;
#if defined(HD_BACKEND_CUDA)
  ctx->stream = (void *)st->xs; /* the exchange's copies and the rim's rows */
#endif
  s = halo(ctx, arg);
  for (b = 0; b < nrim && s == HD_OK; ++b) s = fd_half_step_box(ctx, st, 1, rim[b]);
#if defined(HD_BACKEND_CUDA)
  ctx->stream = stream;
  if (s != HD_OK) return s;
  HD_CUDA_TRY(ctx, cudaEventRecord(st->rim_done, st->xs));
  HD_CUDA_TRY(ctx, cudaStreamWaitEvent(hd_stream(ctx), st->rim_done, 0));
#endif
  return s;
}

/* The buffered surface samples into the sums, chunk by chunk of
 * frequencies: slot t holds step (step - step % B) + t, B = HD_DFT_BUFFER,
 * a window aligned on the step count so that any split of a run into
 * advances, restarts or ranks flushes the same steps together.  Flushes
 * slots flushed .. upto - 1. */
static hd_status fd_dft_flush(hd_ctx *ctx, fdtd_state *st, int upto) {
  const long step0 = (st->step - 1) - (st->step - 1) % HD_DFT_BUFFER; /* the window of the last step taken */
  hd_status s = HD_OK;
  int k0;
  for (k0 = 0; k0 < st->nffreq && upto > st->flushed && s == HD_OK; k0 += HD_DFT_CHUNK) {
    hd_dft_surface_args sa;
    hd_dft_phase_step(&sa.ph, st->ffreq + k0, st->nffreq - k0 < HD_DFT_CHUNK ? st->nffreq - k0 : HD_DFT_CHUNK,
                      step0 + st->flushed, st->dt);
    hd_dft_rotation(sa.rc, sa.rs, st->ffreq + k0, sa.ph.count, st->dt);
    sa.buf = st->surf_buf, sa.acc = st->surf_acc, sa.npts = st->npts, sa.t0 = st->flushed, sa.t1 = upto, sa.k0 = k0;
    s = hd_dft_surface_loop(ctx, &sa, 0, st->npts);
  }
  st->flushed = upto == HD_DFT_BUFFER ? 0 : upto;
  return s;
}

/* The volume's buffered samples into its sums (as fd_dft_flush, windows
 * of HD_DFT_VOLUME_BUFFER steps). */
static hd_status fd_volume_flush(hd_ctx *ctx, fdtd_state *st, int upto) {
  const long step0 = (st->step - 1) - (st->step - 1) % HD_DFT_VOLUME_BUFFER;
  hd_status s = HD_OK;
  int k0, t, k;
  for (k0 = 0; k0 < st->nffreq && upto > st->vol_flushed && s == HD_OK; k0 += HD_DFT_CHUNK) {
    hd_dft_volume_args va = st->vol;
    for (t = st->vol_flushed; t < upto; ++t) {
      hd_dft_phase ph;
      hd_dft_phase_step(&ph, st->ffreq + k0, st->nffreq - k0 < HD_DFT_CHUNK ? st->nffreq - k0 : HD_DFT_CHUNK, step0 + t, st->dt);
      for (va.count = ph.count, k = 0; k < ph.count; ++k)
        va.c[0][t][k] = ph.c[0][k], va.s[0][t][k] = ph.s[0][k], va.c[1][t][k] = ph.c[1][k], va.s[1][t][k] = ph.s[1][k];
    }
    va.t0 = st->vol_flushed, va.t1 = upto, va.k0 = k0;
    s = hd_dft_volume_loop(ctx, &va, va.span, 6);
  }
  st->vol_flushed = upto == HD_DFT_VOLUME_BUFFER ? 0 : upto;
  return s;
}

/* This step's running DFTs: after the E half step (after_h = 0) the feeds'
 * V and I just recorded at vi and the plane wave's source (host), chunk by
 * chunk of frequencies; after the H half step the planes' fields, and the
 * surface's into the buffer. */
static hd_status fd_dft_step(hd_ctx *ctx, fdtd_state *st, const hd_real *vi, int after_h) {
  const double *freq = after_h ? st->ffreq : st->freq;
  const int nf = after_h ? st->nffreq : st->nfreq;
  hd_status s = HD_OK;
  int k0, k;
  for (k0 = 0; k0 < nf && s == HD_OK; k0 += HD_DFT_CHUNK) {
    hd_dft_phase ph;
    hd_dft_phase_step(&ph, freq + k0, nf - k0 < HD_DFT_CHUNK ? nf - k0 : HD_DFT_CHUNK, st->step, st->dt);
    if (!after_h) {
      hd_dft_feed_args fa;
      for (k = 0; st->inc_acc && k < ph.count; ++k) /* the source's E, as the line holds it */
        st->inc_acc[2 * (k0 + k)] += (double)st->inc.src * ph.c[0][k], st->inc_acc[2 * (k0 + k) + 1] += (double)st->inc.src * ph.s[0][k];
      if (!st->nfeed) continue;
      fa.vi = vi, fa.acc = st->feed_acc, fa.nfeed = st->nfeed, fa.k0 = k0, fa.ph = ph;
      s = hd_dft_feed_loop(ctx, &fa, 0, st->nfeed);
    } else {
      int q;
      for (q = 0; q < st->nplane && s == HD_OK; ++q) {
        hd_dft_plane_args pa = st->plane[q];
        pa.k0 = k0, pa.ph = ph;
        s = hd_dft_plane_loop(ctx, &pa, 0, pa.ncell);
      }
    }
  }
  if (s == HD_OK && after_h && st->npts) {
    hd_dft_sample_args sa;
    memcpy(sa.f, st->a.f, sizeof sa.f);
    sa.g = st->a.g, sa.node = st->surf_node, sa.face = st->surf_face, sa.buf = st->surf_buf;
    sa.npts = st->npts, sa.slot = (int)(st->step % HD_DFT_BUFFER);
    s = hd_dft_sample_loop(ctx, &sa, 0, st->npts);
  }
  if (s == HD_OK && after_h && st->vol.acc) {
    hd_dft_volume_args va = st->vol;
    va.slot = (int)(st->step % HD_DFT_VOLUME_BUFFER);
    s = hd_dft_volume_sample_loop(ctx, &va, va.span, 1);
  }
  return s;
}

/* This step's probe records into their running DFTs. */
static hd_status fd_probe_dft(hd_ctx *ctx, fdtd_state *st, const hd_real *rec) {
  hd_status s = HD_OK;
  int k0;
  for (k0 = 0; k0 < st->nfreq && s == HD_OK; k0 += HD_DFT_CHUNK) {
    hd_dft_probe_args pa;
    hd_dft_phase_step(&pa.ph, st->freq + k0, st->nfreq - k0 < HD_DFT_CHUNK ? st->nfreq - k0 : HD_DFT_CHUNK, st->step, st->dt);
    pa.rec = rec, pa.probe = st->probe, pa.acc = st->probe_acc, pa.nprobe = st->nprobe, pa.k0 = k0;
    s = hd_dft_probe_loop(ctx, &pa, 0, st->nprobe);
  }
  return s;
}

/* The plane wave's half step (efield: after the E update): the
 * corrections across the box's faces from the line's other field, then the
 * line's own update (its source at this step's E time). */
static hd_status fd_plane_wave(hd_ctx *ctx, fdtd_state *st, int efield) {
  hd_fdtd_tfsf_args ta;
  hd_status s;
  ta.f = st->a, ta.pt = st->tfsf[efield ? 0 : 1], ta.line = efield ? st->inc.h : st->inc.e;
  s = hd_fdtd_tfsf_loop(ctx, &ta, 0, st->ntfsf[efield ? 0 : 1]);
  if (s != HD_OK) return s;
  if (!efield) return hd_fdtd_inc_h_loop(ctx, &st->inc, 0, st->inc.n - 1);
  st->inc.src = (hd_real)(st->pw_e0 * hd_fdtd_waveform(&st->wave, (double)(st->step + 1) * st->dt));
  return hd_fdtd_inc_e_loop(ctx, &st->inc, 0, st->inc.n - 1);
}

/* Component c in the absorbing layers: split-field or convolutional. */
static hd_status fd_layers_step(hd_ctx *ctx, fdtd_state *st, int c) {
  hd_fdtd_cpml_args ca;
  if (!st->cpml) return hd_fdtd_pml_loop(ctx, &st->pml[c], 0, st->npml[c]);
  ca = st->cpml_args[c];
  ca.f = st->a, ca.pt = st->pml[c].pt, ca.psi1 = st->pml[c].s1, ca.psi2 = st->pml[c].s2, ca.comp = c;
  return hd_fdtd_cpml_loop(ctx, &ca, 0, st->npml[c]);
}

/* The Mur points after the half step of the field they act on. */
static hd_status fd_mur(hd_ctx *ctx, fdtd_state *st) {
  const int first = st->mur_h ? HD_FDTD_HX : HD_FDTD_EX;
  hd_fdtd_mur_args mu;
  mu.f[0] = st->a.f[first], mu.f[1] = st->a.f[first + 1], mu.f[2] = st->a.f[first + 2];
  mu.pt = st->mur;
  return hd_fdtd_mur_loop(ctx, &mu, 0, st->nmur);
}

/* The scattered-field form's half step (efield: after the E update): the
 * incident wave's part in the media, the field's times before and after. */
static hd_status fd_sf(hd_ctx *ctx, fdtd_state *st, int efield) {
  hd_fdtd_sf_args sa;
  const double t = (double)st->step * st->dt + (efield ? 0.0 : 0.5 * st->dt);
  const int w = efield ? 0 : 1;
  if (!st->nsf[w]) return HD_OK;
  memcpy(sa.f, st->a.f, sizeof sa.f), memcpy(sa.m, st->a.m, sizeof sa.m);
  sa.pt = st->sf[w], sa.coef = st->sf_coef + 512 * w, sa.inc = st->pw;
  sa.inc.t0 = t, sa.inc.t1 = t + st->dt;
  return hd_fdtd_sf_loop(ctx, &sa, 0, st->nsf[w]);
}

/* One step; halo (unless NULL) first exchanges the ghosts the previous
 * step left stale, under the E update. */
static hd_status fd_step(hd_ctx *ctx, fdtd_state *st, hd_real *rec, hd_status (*halo)(hd_ctx *, void *), void *arg) {
  hd_status s = halo ? fd_e_exchanged(ctx, st, halo, arg) : fd_half_step(ctx, st, 1);
  int c;
  if (s == HD_OK && st->nade) {
    st->ade.f = st->a;
    st->ade.pwd = st->ade_pwd, st->ade.inc = st->pw;
    st->ade.inc.t0 = (double)st->step * st->dt, st->ade.inc.t1 = (double)(st->step + 1) * st->dt;
    s = hd_fdtd_ade_loop(ctx, &st->ade, 0, st->nade);
  }
  if (s == HD_OK && st->pw_sf) s = fd_sf(ctx, st, 1);
  for (c = 0; c < 3 && s == HD_OK; ++c)
    if (st->npml[c]) s = fd_layers_step(ctx, st, c);
  if (s == HD_OK && st->nmur && !st->mur_h) s = fd_mur(ctx, st);
  if (s == HD_OK && st->inc.n) s = fd_plane_wave(ctx, st, 1);
  if (s == HD_OK && st->nfeed) {
    hd_fdtd_feed_args fa;
    fa.f = st->a;
    fa.feed = st->feed;
    fa.wave = st->wave;
    fa.t = (double)(st->step + 1) * st->dt;
    fa.rec = rec ? rec + st->nprobe : st->vi;
    s = hd_fdtd_feed_loop(ctx, &fa, 0, st->nfeed);
  }
  if (s == HD_OK) s = fd_periodic(ctx, st, 1); /* the ghosts of E once every pass has set it (in the layers too) */
  if (st->pw_sf) st->inc.src = (hd_real)(st->pw_e0 * hd_fdtd_waveform(&st->wave, (double)(st->step + 1) * st->dt));
  if (s == HD_OK && st->nfreq && (st->nfeed || st->inc_acc)) s = fd_dft_step(ctx, st, rec ? rec + st->nprobe : st->vi, 0);
  if (s == HD_OK) s = fd_half_step(ctx, st, 0);
  if (s == HD_OK && st->nmur && st->mur_h) s = fd_mur(ctx, st);
  if (s == HD_OK && st->pw_sf) s = fd_sf(ctx, st, 0);
  for (c = 3; c < 6 && s == HD_OK; ++c)
    if (st->npml[c]) s = fd_layers_step(ctx, st, c);
  if (s == HD_OK) s = fd_periodic(ctx, st, 0);
  if (s == HD_OK && st->inc.n) s = fd_plane_wave(ctx, st, 0);
  if (s == HD_OK && (st->npts || st->nplane || st->vol.acc)) s = fd_dft_step(ctx, st, NULL, 1);
  if (s == HD_OK && rec && st->nprobe) {
    hd_fdtd_probe_args pa;
    memcpy(pa.f, st->a.f, sizeof pa.f);
    pa.probe = st->probe;
    pa.rec = rec;
    s = hd_fdtd_probe_loop(ctx, &pa, 0, st->nprobe);
    if (s == HD_OK && st->pw_sf) { /* the total field */
      hd_fdtd_sf_probe_args qa;
      qa.probe = st->probe, qa.d = st->sf_probe_d, qa.rec = rec, qa.inc = st->pw;
      qa.inc.t0 = (double)(st->step + 1) * st->dt, qa.inc.t1 = qa.inc.t0 + 0.5 * st->dt;
      s = hd_fdtd_sf_probe_loop(ctx, &qa, 0, st->nprobe);
    }
    if (s == HD_OK && st->probe_acc) s = fd_probe_dft(ctx, st, rec);
  }
  ++st->step;
  if (s == HD_OK && st->npts && st->step % HD_DFT_BUFFER == 0) s = fd_dft_flush(ctx, st, HD_DFT_BUFFER);
  if (s == HD_OK && st->vol.acc && st->step % HD_DFT_VOLUME_BUFFER == 0) s = fd_volume_flush(ctx, st, HD_DFT_VOLUME_BUFFER);
  return s;
}

#include "fdtd_wave.h"

/* Steps a sweep this state takes, and why not more where it was asked. */
static int fd_time_block(void *state, const char **why) {
  fdtd_state *st = (fdtd_state *)state;
  *why = st->time_block > 1 ? fd_tb_refusal(st) : NULL;
  if (*why) st->time_block = 1;
  if (st->time_block > FD_TB_MAX) st->time_block = FD_TB_MAX;
  return st->time_block;
}

static hd_status fd_advance(hd_ctx *ctx, void *state, long steps, double *rec, hd_status (*halo)(hd_ctx *, void *),
                            void *arg) {
  fdtd_state *st = (fdtd_state *)state;
  hd_real *host = NULL;
  hd_status s = HD_OK;
  long done = 0;
  int saved[3], stale = 0; /* the last step's H not yet exchanged */
  const char *why;
  fd_time_block(st, &why); /* the kinds of state that cannot, step singly */
  if (rec && st->nrec) {
    host = (hd_real *)hd_host_alloc((size_t)FDTD_REC_CHUNK * st->nrec * sizeof(hd_real));
    if (!host) return hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory");
  }
  memcpy(saved, ctx->block, sizeof saved);
  memcpy(ctx->block, st->block, sizeof saved);
  while (done < steps && s == HD_OK) {
    const long chunk = steps - done < FDTD_REC_CHUNK ? steps - done : FDTD_REC_CHUNK;
    long k, v;
    for (k = 0; k < chunk && s == HD_OK;) {
#if !defined(HD_BACKEND_CUDA)
      const int t = st->time_block > 1 && !halo ? fd_block_steps(st, chunk - k) : 1;
      if (t > 1) {
        s = fd_block(ctx, st, t, host ? st->rec + k * st->nrec : NULL);
        k += t;
        continue;
      }
#endif
      s = fd_step(ctx, st, host ? st->rec + k * st->nrec : NULL, stale ? halo : NULL, arg);
      stale = halo != NULL;
      ++k;
    }
    if (s == HD_OK && host) {
      s = hd_dev_download(ctx, host, st->rec, (size_t)chunk * st->nrec * sizeof(hd_real));
      for (v = 0; s == HD_OK && v < chunk * st->nrec; ++v) rec[done * st->nrec + v] = (double)host[v];
    }
    done += chunk;
  }
  if (s == HD_OK && stale) s = halo(ctx, arg); /* the ghosts current on return, as on entry */
  memcpy(ctx->block, saved, sizeof saved);
  hd_host_free(host);
  return s;
}

/* Row sums of the averages: each row of cells folded in x order, so that
 * the driver can merge rows in a fixed order whatever the decomposition. */
typedef struct fd_rows_args {
  hd_fdtd_args f;
  double *rows;
} fd_rows_args;

HD_FN void fd_row_pt(const fd_rows_args *a, hd_idx j, hd_idx k) {
  const hd_idx pad = a->f.g.ghost;
  hd_fdtd_avg sum;
  hd_idx i;
  hd_fdtd_avg_init(&sum);
  for (i = 0; i < a->f.nc[0]; ++i) hd_fdtd_avg_pt(&a->f, i + pad, j + pad, k + pad, &sum);
  a->rows[2 * (j + k * a->f.nc[1])] = sum.e;
  a->rows[2 * (j + k * a->f.nc[1]) + 1] = sum.h;
}
HD_DEFINE_FOR_2D(fd_rows_loop, fd_row_pt, fd_rows_args)

static hd_status fd_row_sums(hd_ctx *ctx, void *state, double *rows) {
  fdtd_state *st = (fdtd_state *)state;
  fd_rows_args ra;
  hd_status s;
  ra.f = st->a;
  ra.rows = st->rows;
  s = fd_rows_loop(ctx, &ra, hd_range3_make(0, st->a.nc[1], 0, st->a.nc[2], 0, 1));
  if (s == HD_OK) s = hd_dev_download(ctx, rows, st->rows, (size_t)(2 * st->a.nc[1] * st->a.nc[2]) * sizeof(double));
  return s;
}

static hd_status fd_download(hd_ctx *ctx, void *state, int comp, double *out) {
  fdtd_state *st = (fdtd_state *)state;
  const size_t n = (size_t)st->a.g.total;
  hd_real *host = (hd_real *)hd_host_alloc(n * sizeof(hd_real));
  hd_status s;
  size_t i;
  if (!host) return hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory");
  s = hd_dev_download(ctx, host, st->a.f[comp], n * sizeof(hd_real));
  for (i = 0; s == HD_OK && i < n; ++i) out[i] = (double)host[i];
  hd_host_free(host);
  return s;
}

static void *fd_field(void *state, int comp, long *lead) {
  const fdtd_state *st = (const fdtd_state *)state;
  *lead = (long)(st->a.f[comp] - st->field[comp]);
  return st->field[comp];
}

static hd_status fd_spectra(hd_ctx *ctx, void *state, double *feeds, double *probes, double *surface, double *const *planes,
                            double *incident, double *volume) {
  fdtd_state *st = (fdtd_state *)state;
  const size_t nf = (size_t)4 * st->nfreq * st->nfeed, ns = (size_t)8 * st->nffreq * st->npts;
  hd_status s = HD_OK;
  size_t i;
  int q;
  if (st->npts && st->step % HD_DFT_BUFFER) s = fd_dft_flush(ctx, st, (int)(st->step % HD_DFT_BUFFER)); /* the steps so far */
  if (s == HD_OK && st->vol.acc && st->step % HD_DFT_VOLUME_BUFFER)
    s = fd_volume_flush(ctx, st, (int)(st->step % HD_DFT_VOLUME_BUFFER));
  if (s == HD_OK && volume && st->vol.acc) { /* the physical nodes, in doubles, times dt */
    const hd_idx *nn = st->vol_nn, pad = st->a.g.ghost, span = st->vol.span;
    const size_t nv = (size_t)12 * st->nffreq;
    hd_real *host = (hd_real *)hd_host_alloc(nv * span * sizeof(hd_real));
    hd_idx q = 0, v, i3, j3, k3;
    if (!host) return hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory for the volume's spectra");
    s = hd_dev_download(ctx, host, st->vol.acc, nv * span * sizeof(hd_real));
    for (v = 0; s == HD_OK && v < (hd_idx)nv; ++v)
      for (k3 = 0; k3 < nn[2]; ++k3)
        for (j3 = 0; j3 < nn[1]; ++j3)
          for (i3 = 0; i3 < nn[0]; ++i3)
            volume[q++] = (double)host[v * span + hd_grid_at(&st->a.g, i3 + pad, j3 + pad, k3 + pad) - st->vol.first] * st->dt;
    hd_host_free(host);
  }
  for (q = 0; planes && q < st->nplane && s == HD_OK; ++q) {
    const size_t np = (size_t)2 * st->nffreq * st->plane[q].ncell;
    if (!np) continue;
    s = hd_dev_download(ctx, planes[q], st->plane[q].acc, np * sizeof(double));
    for (i = 0; s == HD_OK && i < np; ++i) planes[q][i] *= st->dt;
  }
  if (s == HD_OK && probes && st->probe_acc) {
    const size_t np = (size_t)2 * st->nfreq * st->nprobe;
    s = hd_dev_download(ctx, probes, st->probe_acc, np * sizeof(double));
    for (i = 0; s == HD_OK && i < np; ++i) probes[i] *= st->dt;
  }
  if (s == HD_OK && feeds && st->feed_acc) s = hd_dev_download(ctx, feeds, st->feed_acc, nf * sizeof(double));
  for (i = 0; s == HD_OK && feeds && st->feed_acc && i < nf; ++i) feeds[i] *= st->dt; /* the DFT's dt */
  if (s == HD_OK && surface && st->surf_acc) s = hd_dev_download(ctx, surface, st->surf_acc, ns * sizeof(double));
  for (i = 0; s == HD_OK && surface && st->surf_acc && i < ns; ++i) surface[i] *= st->dt;
  for (i = 0; incident && st->inc_acc && i < (size_t)2 * st->nfreq; ++i) incident[i] = st->inc_acc[i] * st->dt;
  return s;
}

/* Checkpoint keys (drivers/common/driver.h): an entry at padded offset n
 * of the grid, told apart within its row by x and `sub` (a component, a
 * face); n < 0: none. */
static hd_ckpt_key fd_key(const fdtd_state *st, hd_idx n, int sub) {
  const hd_grid *g = &st->a.g;
  const hd_idx pad = g->ghost, rows = g->stride[2] / g->stride[1];
  hd_ckpt_key k;
  k.y = -1, k.z = -1, k.id = -1;
  if (n < 0) return k;
  k.y = (int32_t)((n / g->stride[1]) % rows - pad + st->off[1]), k.z = (int32_t)(n / g->stride[2] - pad + st->off[2]);
  k.id = ((int64_t)(n % g->stride[1] - pad + st->off[0] + (1 << 24)) << 8) | sub;
  return k;
}

/* A list's device entries (count of `size` bytes) downloaded; malloc'd or NULL. */
static void *fd_fetch(hd_ctx *ctx, const void *dev, hd_idx count, size_t size) {
  void *h = malloc((size_t)count * size + 1);
  if (h && count && hd_dev_download(ctx, h, dev, (size_t)count * size) != HD_OK) free(h), h = NULL;
  return h;
}

/* The keys of list `which` (FD_KEY_*), or the Mur points' one value
 * (FD_MUR_F, both ways); computed, never loaded. */
enum { FD_KEY_PML = 0, FD_KEY_MUR = 6, FD_KEY_ADE, FD_KEY_PROBES, FD_KEY_FEEDS, FD_KEY_SURFACE, FD_KEY_VOLUME, FD_MUR_F,
       FD_KEY_PLANE };
static hd_status fd_list_io(hd_ctx *ctx, void *state, int which, void *host, int save) {
  fdtd_state *st = (fdtd_state *)state;
  hd_ckpt_key *key = (hd_ckpt_key *)host;
  hd_idx e, count = 0;
  void *h = NULL;
  hd_status s = HD_OK;
  if (which == FD_MUR_F) {
    hd_fdtd_mur *mu = (hd_fdtd_mur *)fd_fetch(ctx, st->mur, st->nmur, sizeof *mu);
    hd_real *f = (hd_real *)host;
    if (!mu) return ctx->status != HD_OK ? ctx->status : hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory");
    for (e = 0; e < st->nmur; ++e)
      if (save) f[e] = mu[e].f;
      else mu[e].f = f[e];
    if (!save) s = hd_dev_upload(ctx, st->mur, mu, (size_t)st->nmur * sizeof *mu);
    free(mu);
    return s;
  }
  if (!save) return HD_OK;
  if (which < FD_KEY_MUR) {
    const hd_fdtd_pml_point *pt = (const hd_fdtd_pml_point *)(h = fd_fetch(ctx, st->pml[which].pt, count = st->npml[which], sizeof *pt));
    for (e = 0; h && e < count; ++e) key[e] = fd_key(st, pt[e].n, 0);
  } else if (which == FD_KEY_MUR) {
    const hd_fdtd_mur *mu = (const hd_fdtd_mur *)(h = fd_fetch(ctx, st->mur, count = st->nmur, sizeof *mu));
    for (e = 0; h && e < count; ++e) key[e] = fd_key(st, mu[e].m0, mu[e].comp);
  } else if (which == FD_KEY_ADE) {
    const hd_fdtd_ade_edge *ed = (const hd_fdtd_ade_edge *)(h = fd_fetch(ctx, st->ade.edge, count = st->nade, sizeof *ed));
    for (e = 0; h && e < count; ++e) key[e] = fd_key(st, ed[e].n, ed[e].comp);
  } else if (which == FD_KEY_PROBES) {
    const hd_fdtd_probe *pr = (const hd_fdtd_probe *)(h = fd_fetch(ctx, st->probe, count = st->nprobe, sizeof *pr));
    for (e = 0; h && e < count; ++e) key[e] = fd_key(st, pr[e].n, pr[e].comp);
  } else if (which == FD_KEY_FEEDS) {
    const hd_fdtd_feed *fe = (const hd_fdtd_feed *)(h = fd_fetch(ctx, st->feed, count = st->nfeed, sizeof *fe));
    for (e = 0; h && e < count; ++e) key[e] = fd_key(st, fe[e].n, fe[e].comp);
  } else if (which == FD_KEY_SURFACE) {
    const hd_idx *node = (const hd_idx *)(h = fd_fetch(ctx, st->surf_node, count = st->npts, sizeof *node));
    unsigned char *face = h ? (unsigned char *)fd_fetch(ctx, st->surf_face, count, 1) : NULL;
    for (e = 0; face && e < count; ++e) key[e] = fd_key(st, node[e], face[e]);
    if (!face) free(h), h = NULL;
    free(face);
  } else if (which == FD_KEY_VOLUME) { /* the physical nodes of the span */
    const hd_grid *g = &st->a.g;
    const hd_idx pad = g->ghost, rows = g->stride[2] / g->stride[1];
    for (e = 0, h = host; e < st->vol.span; ++e) {
      const hd_idx n = st->vol.first + e, i = n % g->stride[1] - pad, j = (n / g->stride[1]) % rows - pad, k = n / g->stride[2] - pad;
      key[e] = fd_key(st, i >= 0 && i < st->vol_nn[0] && j >= 0 && j < st->vol_nn[1] && k >= 0 && k < st->vol_nn[2] ? n : -1, 0);
    }
    return HD_OK;
  } else { /* a map's cells, u fastest */
    const hd_dft_plane_args *q = &st->plane[which - FD_KEY_PLANE];
    for (e = 0, h = host; e < q->ncell; ++e) key[e] = fd_key(st, q->base + (e % q->nu) * q->su + (e / q->nu) * q->sv, 0);
    return HD_OK;
  }
  if (!h) return ctx->status != HD_OK ? ctx->status : hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory");
  free(h);
  return HD_OK;
}

/* The state: six fields, the Mur points (each keeps a value of the last
 * step), the PML split parts, the running DFTs, the step counter (the
 * sources' clock), and the keys of every list (fdtd_ckpt_kind). */
static int fd_state_list(fdtd_state *st, hd_state_entry *e) {
  static const char *const fields[6] = {"ex", "ey", "ez", "hx", "hy", "hz"};
  static const char *const pml[6][3] = {{"pml_ex1", "pml_ex2", "key_pml_ex"}, {"pml_ey1", "pml_ey2", "key_pml_ey"},
                                        {"pml_ez1", "pml_ez2", "key_pml_ez"}, {"pml_hx1", "pml_hx2", "key_pml_hx"},
                                        {"pml_hy1", "pml_hy2", "key_pml_hy"}, {"pml_hz1", "pml_hz2", "key_pml_hz"}};
  static const char *const planes[FDTD_MAX_PLANES][2] = {{"dft_plane1", "key_plane1"}, {"dft_plane2", "key_plane2"},
                                                         {"dft_plane3", "key_plane3"}, {"dft_plane4", "key_plane4"},
                                                         {"dft_plane5", "key_plane5"}, {"dft_plane6", "key_plane6"},
                                                         {"dft_plane7", "key_plane7"}, {"dft_plane8", "key_plane8"}};
  const size_t fb = (size_t)st->a.g.total * sizeof(hd_real), kb = sizeof(hd_ckpt_key);
  int n = 0, c, k;
#define FD_ENTRY(nm, d, b) (memset(&e[n], 0, sizeof e[n]), e[n].name = (nm), e[n].dev = (d), e[n].bytes = (b), &e[n++])
#define FD_KEYS(nm, w, count) (FD_ENTRY(nm, NULL, (size_t)(count) * kb)->io = fd_list_io, e[n - 1].which = (w))
  for (c = 0; c < 6; ++c) FD_ENTRY(fields[c], st->a.f[c], fb);
  if (st->nade) FD_ENTRY("ade", st->ade.state, (size_t)st->nade * st->ade.stride * sizeof(hd_real)), FD_KEYS("key_ade", FD_KEY_ADE, st->nade);
  if (st->nmur) {
    FD_ENTRY("mur_f", NULL, (size_t)st->nmur * sizeof(hd_real))->io = fd_list_io, e[n - 1].which = FD_MUR_F;
    FD_KEYS("key_mur", FD_KEY_MUR, st->nmur);
  }
  for (c = 0; c < 6; ++c)
    if (st->npml[c]) {
      for (k = 0; k < 2; ++k) FD_ENTRY(pml[c][k], k ? st->pml[c].s2 : st->pml[c].s1, (size_t)st->npml[c] * sizeof(hd_real));
      FD_KEYS(pml[c][2], FD_KEY_PML + c, st->npml[c]);
    }
  if (st->probe_acc)
    FD_ENTRY("dft_probes", st->probe_acc, (size_t)2 * st->nfreq * st->nprobe * sizeof(double)), FD_KEYS("key_probes", FD_KEY_PROBES, st->nprobe);
  if (st->feed_acc)
    FD_ENTRY("dft_feeds", st->feed_acc, (size_t)4 * st->nfreq * st->nfeed * sizeof(double)), FD_KEYS("key_feeds", FD_KEY_FEEDS, st->nfeed);
  if (st->surf_acc) { /* the sums, and the samples since the last flush */
    FD_ENTRY("dft_surface", st->surf_acc, (size_t)8 * st->nffreq * st->npts * sizeof(double));
    FD_ENTRY("dft_samples", st->surf_buf, (size_t)HD_DFT_BUFFER * 4 * st->npts * sizeof(hd_real));
    FD_KEYS("key_surface", FD_KEY_SURFACE, st->npts);
  }
  if (st->vol.acc) {
    const size_t span = (size_t)st->vol.span;
    FD_ENTRY("dft_volume", st->vol.acc, (size_t)12 * st->nffreq * span * sizeof(hd_real));
    FD_ENTRY("dft_volume_samples", st->vol.buf, (size_t)HD_DFT_VOLUME_BUFFER * 6 * span * sizeof(hd_real));
    FD_KEYS("key_volume", FD_KEY_VOLUME, span);
  }
  for (c = 0; c < st->nplane; ++c)
    if (st->plane[c].ncell) {
      FD_ENTRY(planes[c][0], st->plane[c].acc, (size_t)2 * st->nffreq * st->plane[c].ncell * sizeof(double));
      FD_KEYS(planes[c][1], FD_KEY_PLANE + c, st->plane[c].ncell);
    }
  if (st->inc.n) {
    FD_ENTRY("inc_e", st->inc.e, (size_t)st->inc.n * sizeof(hd_real));
    FD_ENTRY("inc_h", st->inc.h, (size_t)st->inc.n * sizeof(hd_real));
  }
  if (st->inc_acc) FD_ENTRY("dft_incident", st->inc_acc, (size_t)2 * st->nfreq * sizeof(double))->host = 1;
  FD_ENTRY("step", &st->step, sizeof st->step)->host = 1;
#undef FD_KEYS
#undef FD_ENTRY
  return n;
}

static int fd_state_count(void *state) {
  hd_state_entry e[HD_CKPT_MAX_ARRAYS];
  return fd_state_list((fdtd_state *)state, e);
}

static hd_status fd_state_io(hd_ctx *ctx, void *state, int k, char name[16], uint64_t *bytes, void *host, int save) {
  hd_state_entry e[HD_CKPT_MAX_ARRAYS];
  fd_state_list((fdtd_state *)state, e);
  return hd_state_entry_io(ctx, state, &e[k], name, bytes, host, save);
}

const fdtd_ops HD_OPS_NAME(fdtd_ops) = {HD_BACKEND_NAME, HD_REAL_NAME, sizeof(hd_real), FDTD_HAS_TUNED, fd_create,
                                        fd_advance, fd_row_sums, fd_download, fd_field, fd_spectra, fd_destroy,
                                        fd_state_count, fd_state_io, fd_time_block};
