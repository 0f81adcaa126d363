/* SPDX-License-Identifier: BSD-3-Clause */
/* A part of fdtd_impl.h (the FDTD backend table), included there once per
 * backend and precision: the state built from the model (coefficient
 * tables, Mur and PML layers, the running DFTs, the plane wave, dispersive
 * media). */

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

/* The Mur points in order of the padded row of the value each reads (m1),
 * stable (face 0's before face 1's as before: with one cell they meet);
 * on the CPU tuned rows also by runs (hd_fdtd_mur_run), each row's first
 * and end (st->mrow), so that the points go with the march of that row.
 * No march writes a boundary value (m0) or reads another of its own
 * field, and no point reads another's boundary value: the order is free. */
static hd_status fd_mur_rows(hd_ctx *ctx, fdtd_state *st, hd_fdtd_mur *list, hd_idx count) {
  const hd_idx sy = st->a.g.stride[1], rows = st->a.g.total / sy;
  hd_idx p, *at;
  hd_fdtd_mur *sorted;
  if (!count) return HD_OK;
  at = (hd_idx *)calloc((size_t)rows + 1, sizeof *at);
  sorted = (hd_fdtd_mur *)malloc((size_t)count * sizeof *sorted);
  if (!at || !sorted) {
    free(at), free(sorted);
    return hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory for Mur points");
  }
  for (p = 0; p < count; ++p) ++at[list[p].m1 / sy + 1];
  for (p = 0; p < rows; ++p) at[p + 1] += at[p];
  for (p = 0; p < count; ++p) sorted[at[list[p].m1 / sy]++] = list[p];
  memcpy(list, sorted, (size_t)count * sizeof *list);
  free(sorted);
#if !defined(HD_BACKEND_CUDA)
  if (st->tuned && (st->mrun = (hd_fdtd_mur_run *)malloc((size_t)count * sizeof *st->mrun)) != NULL) {
    hd_idx r, nrun = 0;
    for (r = 0, p = 0; r < rows; ++r) { /* at[r]: the end of row r's points */
      const hd_idx end = at[r];
      at[r] = nrun;
      while (p < end) {
        const hd_fdtd_mur *q = &list[p];
        hd_idx len = 1;
        while (p + len < end && list[p + len].comp == q->comp && list[p + len].g == q->g &&
               list[p + len].m0 == q->m0 + len && list[p + len].m1 == q->m1 + len)
          ++len;
        st->mrun[nrun].m0 = q->m0, st->mrun[nrun].m1 = q->m1, st->mrun[nrun].g = q->g, st->mrun[nrun].comp = q->comp;
        st->mrun[nrun].p = p, st->mrun[nrun++].len = len, p += len;
      }
    }
    at[rows] = nrun;
    st->mrow = at;
    return HD_OK;
  }
  if (st->tuned) {
    free(at);
    return hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory for Mur points");
  }
#endif
  free(at);
  return HD_OK;
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
            list[count].comp = c;
            ++count;
          }
      }
    }
  }
  st->nmur = count;
  s = fd_mur_rows(ctx, st, list, count);
  if (s == HD_OK && count) s = fd_upload(ctx, (void **)&st->mur, list, (size_t)count * sizeof *list);
  if (s == HD_OK && count) s = hd_dev_alloc(ctx, (void **)&st->mur_prev, (size_t)count * sizeof(hd_real));
  if (s == HD_OK && count) s = hd_dev_zero(ctx, st->mur_prev, (size_t)count * sizeof(hd_real));
  free(list);
  return s;
}

/* Whether a boundary kind has absorbing layers outside the faces. */
static int fd_layers(int bc) { return bc == HD_FDTD_BC_PML || bc == HD_FDTD_BC_CPML; }

#if !defined(HD_BACKEND_CUDA)
/* The CPU rows' runs of component c's layer list, each of one material
 * (mat: the component's indices): those on rows of the physical nodes by
 * row (frun, frow: marched with their row), the rest (lrun: a pass of
 * their own). */
static hd_status fd_layer_runs(hd_ctx *ctx, fdtd_state *st, int c, const hd_fdtd_pml_point *list, hd_idx count,
                               const unsigned char *mat) {
  const hd_range3 box = hd_fdtd_nodes(&st->a);
  const hd_idx nrun = hd_fdtd_layer_runs(list, count, mat, NULL), rows = st->a.g.stride[2] / st->a.g.stride[1];
  const hd_idx nrow = rows * (st->a.g.n[2] + 2 * st->a.g.ghost);
  hd_fdtd_layer_run *all = (hd_fdtd_layer_run *)malloc((size_t)nrun * sizeof *all);
  hd_idx q, r, nf = 0;
  st->lrun[c] = (hd_fdtd_layer_run *)malloc((size_t)nrun * sizeof *all);
  st->frun[c] = (hd_fdtd_layer_run *)malloc((size_t)nrun * sizeof *all);
  st->frow[c] = (hd_idx *)calloc((size_t)nrow + 1, sizeof(hd_idx));
  if (!all || !st->lrun[c] || !st->frun[c] || !st->frow[c]) {
    free(all);
    return hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory for PML points");
  }
  hd_fdtd_layer_runs(list, count, mat, all);
  for (q = 0; q < nrun; ++q) { /* in list order: the fused ones by row */
    const hd_fdtd_layer_run *x = &all[q];
    if (x->j >= box.lo[1] && x->j < box.hi[1] && x->k >= box.lo[2] && x->k < box.hi[2])
      st->frun[c][nf++] = *x, ++st->frow[c][x->j + x->k * rows + 1];
    else
      st->lrun[c][st->nlrun[c]++] = *x;
  }
  for (r = 0; r < nrow; ++r) st->frow[c][r + 1] += st->frow[c][r];
  free(all);
  return HD_OK;
}
#endif

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
#if !defined(HD_BACKEND_CUDA)
    if (s == HD_OK && st->tuned) s = fd_layer_runs(ctx, st, c, list, count, m->mat[c]);
#endif
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

/* The incident line of n nodes (hd/fdtd_tfsf.h), cell i of width w[i]
 * from node i to i + 1: vacuum, then sigma graded as depth^3 to a 1e-8
 * reflection over the last HD_FDTD_INC_PML cells; the same whole line on
 * every block.  keep: also E and H before their last update (the
 * scattered-field form's). */
/* A Bloch-periodic cell's line coupling and amplitudes (hd/fdtd_sf.h). */
static double fd_bloch_kappa(const fdtd_model *m, int *n_h, double amp[6]) {
  const int b = m->bloch_axis;
  const double hb = (m->node[b][m->gn[b]] - m->node[b][0]) / (double)m->gn[b];
  return hd_fdtd_bloch_line(m->pw_axis, b, m->pw_k[m->pw_axis], m->pw_e, m->bloch_beta, hb, n_h, amp);
}

static hd_status fd_build_line(hd_ctx *ctx, fdtd_state *st, const fdtd_model *m, const double *w, hd_idx n, int keep) {
  const double eta = sqrt(HD_FDTD_MU0 / HD_FDTD_EPS0);
  const hd_idx n0 = n - 1 - HD_FDTD_INC_PML;
  const double smax = -4.0 * log(1e-8) / (2.0 * eta * HD_FDTD_INC_PML * w[n - 2]);
  const size_t ncoef = (size_t)(m->bloch ? 7 : 4) * n;
  hd_real *coef = (hd_real *)malloc(ncoef * sizeof *coef);
  hd_real **line[7];
  double kappa = 0.0, amp[6];
  int n_h = 0;
  hd_idx i;
  hd_status s;
  if (!coef) return hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory for the plane wave");
  if (m->bloch) kappa = fd_bloch_kappa(m, &n_h, amp);
  for (i = 0; i < n; ++i) {
    const double de = i > n0 ? (double)(i - n0) / HD_FDTD_INC_PML : 0.0;
    const double dh = i + 0.5 > n0 ? (i + 0.5 - n0) / HD_FDTD_INC_PML : 0.0;
    const double se = smax * de * de * de * m->dt / (2 * HD_FDTD_EPS0), sh = smax * dh * dh * dh * m->dt / (2 * HD_FDTD_EPS0);
    const double wh = w[i < n - 1 ? i : n - 2], we = i ? 0.5 * (w[i - 1] + wh) : wh; /* H's cell, E's dual cell */
    coef[2 * i] = (hd_real)((1 - se) / (1 + se)), coef[2 * i + 1] = (hd_real)(m->dt / (HD_FDTD_EPS0 * we) / (1 + se));
    coef[2 * n + 2 * i] = (hd_real)((1 - sh) / (1 + sh)), coef[2 * n + 2 * i + 1] = (hd_real)(m->dt / (HD_FDTD_MU0 * wh) / (1 + sh));
    if (m->bloch) { /* N's gain and its part in the other field, undamped (hd/fdtd_tfsf.h) */
      const double ke = m->dt * kappa / HD_FDTD_EPS0, kh = m->dt * kappa / HD_FDTD_MU0;
      hd_real *cn = coef + 4 * n + 3 * i;
      cn[0] = 1, cn[1] = (hd_real)(n_h ? -kh : ke), cn[2] = (hd_real)(n_h ? ke : -kh);
    }
  }
  st->inc.n = n;
  s = fd_upload(ctx, (void **)&st->inc_coef, coef, ncoef * sizeof *coef);
  free(coef);
  st->inc.ce = st->inc_coef, st->inc.ch = st->inc_coef + 2 * n;
  if (m->bloch) st->inc.cn = st->inc_coef + 4 * n, st->inc.n_h = n_h;
  line[0] = &st->inc.e, line[1] = &st->inc.h, line[2] = &st->inc.e0, line[3] = &st->inc.h0;
  line[4] = &st->inc.nrm, line[5] = &st->inc.nrm0, line[6] = &st->inc.aux;
  for (i = 0; s == HD_OK && i < (m->bloch ? 7 : keep ? 4 : 2); ++i) {
    s = hd_dev_alloc(ctx, (void **)line[i], (size_t)n * sizeof(hd_real));
    if (s == HD_OK) s = hd_dev_zero(ctx, *line[i], (size_t)n * sizeof(hd_real));
  }
  return s;
}

/* The plane wave: the incident line of cells pw_cell and the corrections
 * of every component this block updates whose curl reaches across the
 * total-field box's faces (the box in whole-grid nodes). */
static hd_status fd_build_tfsf(hd_ctx *ctx, fdtd_state *st, const fdtd_model *m) {
  const hd_idx pad = st->a.g.ghost;
  const double D = m->pw_cell;
  double r0[3], span = 0.0, *w;
  hd_fdtd_tfsf_point *list[2] = {NULL, NULL};
  hd_idx n, i, cap[2] = {0, 0};
  long p[3];
  int a, c, side;
  hd_status s = HD_OK;
  for (a = 0; a < 3; ++a) { /* the corner the wave reaches first, and the box's extent along k */
    const double x0 = m->node[a][m->tfsf_lo[a]], x1 = m->node[a][m->tfsf_hi[a]];
    r0[a] = m->pw_k[a] >= 0 ? x0 : x1;
    span += fabs(m->pw_k[a]) * (x1 - x0 + (m->node[a][1] - m->node[a][0]));
  }
  n = (hd_idx)ceil(span / D + HD_FDTD_INC_LEAD) + 2 + HD_FDTD_INC_PML;
  if (!(w = (double *)malloc((size_t)n * sizeof *w))) return hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory for the plane wave");
  for (i = 0; i < n; ++i) w[i] = D;
  s = fd_build_line(ctx, st, m, w, n, 0);
  free(w);
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
 * first (before it the waveform is still nil); or, with a line, where the
 * component reads it: in E's index units HD_FDTD_INC_LEAD cells past the
 * corner (H sits half a cell on), along an axis that axis' node index
 * counted from the corner. */
static double fd_pw_where(const fdtd_model *m, int comp, const hd_idx q[3], hd_idx pad) {
  double d = 0.0;
  int a;
  if (m->pw_line == 1) {
    const int ax = m->pw_axis, half = comp < 3 ? ax == comp : ax != comp - 3;
    const long h2 = 2 * (q[ax] - pad + m->off[ax]) + half;
    d = 0.5 * (double)(m->pw_k[ax] > 0 ? h2 : 2 * m->gn[ax] - h2);
  } else {
    for (a = 0; a < 3; ++a) {
      const int half = comp < 3 ? a == comp : a != comp - 3;
      const double x = half ? 0.5 * (fd_coord(m, a, q[a], pad) + fd_coord(m, a, q[a] + 1, pad)) : fd_coord(m, a, q[a], pad);
      d += m->pw_k[a] * (x - (m->pw_k[a] >= 0 ? m->node[a][0] : m->node[a][m->gn[a]]));
    }
    if (!m->pw_line) return d;
    d /= m->pw_cell;
  }
  if (m->pw_line == 1) /* E and H along the line, H and E across it at half nodes */
    return d + HD_FDTD_INC_LEAD - ((comp < 3 ? m->pw_axis == comp : m->pw_axis != comp - 3) ? 0.5 : 0.0);
  return d + HD_FDTD_INC_LEAD - (comp >= 3 ? 0.5 : 0.0);
}

/* A component's weight in a Bloch-periodic cell: the real part (the state)
 * or the imaginary (its twin) of e^{i beta x_b}, times i for the component
 * along the line (N's); 1 elsewhere. */
static double fd_pw_weight(const fdtd_model *m, int comp, const hd_idx q[3], hd_idx pad) {
  const int b = m->bloch_axis, half = comp < 3 ? b == comp : b != comp - 3;
  double x, ph;
  if (!m->bloch) return 1.0;
  x = half ? 0.5 * (fd_coord(m, b, q[b], pad) + fd_coord(m, b, q[b] + 1, pad)) : fd_coord(m, b, q[b], pad);
  ph = m->bloch_beta * x;
  if (comp % 3 == m->pw_axis) return m->bloch_part ? cos(ph) : -sin(ph);
  return m->bloch_part ? sin(ph) : cos(ph);
}

/* The scattered-field form's line: along an axis, HD_FDTD_INC_LEAD cells
 * of the first cell's width, the axis' cells in the order the wave meets
 * them, 2 more and the absorbing cells of the last's; in another
 * direction all of pw_cell, spanning the grid along k. */
static hd_status fd_build_sf_line(hd_ctx *ctx, fdtd_state *st, const fdtd_model *m) {
  const int ax = m->pw_axis;
  hd_idx n, i, cells = 0;
  double *w, span = 0.0;
  hd_status s;
  int a;
  if (m->pw_line == 1) cells = m->gn[ax];
  for (a = 0; a < 3 && m->pw_line == 2; ++a) span += fabs(m->pw_k[a]) * (m->node[a][m->gn[a]] - m->node[a][0]);
  if (m->pw_line == 2) cells = (hd_idx)ceil(span / m->pw_cell);
  n = (hd_idx)HD_FDTD_INC_LEAD + cells + 3 + HD_FDTD_INC_PML;
  if (!(w = (double *)malloc((size_t)n * sizeof *w))) return hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory for the plane wave");
  for (i = 0; i < n; ++i) {
    const hd_idx c = i - (hd_idx)HD_FDTD_INC_LEAD, k = c < 0 ? 0 : c >= cells ? cells - 1 : c; /* the grid's cell */
    if (m->pw_line == 2) w[i] = m->pw_cell;
    else if (m->pw_k[ax] > 0) w[i] = m->node[ax][k + 1] - m->node[ax][k];
    else w[i] = m->node[ax][cells - k] - m->node[ax][cells - k - 1];
  }
  s = fd_build_line(ctx, st, m, w, n, 1);
  free(w);
  return s;
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
      d[e] = fd_pw_where(m, edge[e].comp, q, pad);
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
  st->pw.wave = st->wave;
  for (c = 0; c < 3; ++c) st->pw.amp[c] = m->pw_e0 * m->pw_e[c], st->pw.amp[3 + c] = m->pw_e0 * m->pw_h[c] / eta;
  if (m->pw_line) { /* the line carries E0 and 1/eta0 */
    for (c = 0; c < 3; ++c) st->pw.amp[c] = m->pw_e[c], st->pw.amp[3 + c] = m->pw_h[c];
    s = fd_build_sf_line(ctx, st, m);
  }
  if (m->bloch) { /* the components as the line carries them */
    const int b = m->bloch_axis;
    int n_h;
    fd_bloch_kappa(m, &n_h, st->pw.amp);
    st->pw.naxis = m->pw_axis;
    for (c = 0; c < 3; ++c)
      if (m->bc[c] == HD_FDTD_BC_PERIODIC)
        st->bloch_phase[c] = c == b ? m->bloch_beta * (m->node[b][m->gn[b]] - m->node[b][0]) : 0.0;
  }
  memset(coef, 0, sizeof coef);
  for (k = 0; s == HD_OK && k < m->nmat; ++k)
    for (w = 0; w < 2; ++w) {
      const double rel = w ? m->mu_r[k] : m->eps_r[k], sg = w ? m->sigma_m[k] : m->sigma[k];
      const double perm = rel * (w ? HD_FDTD_MU0 : HD_FDTD_EPS0), sh = sg * m->dt / (2 * perm);
      coef[w][2 * k] = (hd_real)((1 - 1 / rel) / (1 + sh)), coef[w][2 * k + 1] = (hd_real)(sh / (1 + sh));
      need[w][k] = k == HD_FDTD_PEC || (k != HD_FDTD_VACUUM && (coef[w][2 * k] != 0 || coef[w][2 * k + 1] != 0) &&
                                        (w || !m->npole || m->npole[k] <= 0));
    }
  if (s == HD_OK) s = fd_upload(ctx, (void **)&st->sf_coef, coef, sizeof coef);
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
          list[wl][st->nsf[wl]].w = fd_pw_weight(m, c, q, pad);
          list[wl][st->nsf[wl]++].d = fd_pw_where(m, c, q, pad);
        }
  }
  for (w = 0; s == HD_OK && w < 2; ++w) s = fd_upload(ctx, (void **)&st->sf[w], list[w], (size_t)st->nsf[w] * sizeof **list);
  free(list[0]), free(list[1]);
  if (s == HD_OK && m->nprobe) {
    double *d = (double *)malloc((size_t)2 * m->nprobe * sizeof *d);
    if (!d) return hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory");
    for (k = 0; k < m->nprobe; ++k) {
      const hd_idx q[3] = {m->probe[k].i + pad, m->probe[k].j + pad, m->probe[k].k + pad};
      d[k] = fd_pw_where(m, m->probe[k].comp, q, pad), d[m->nprobe + k] = fd_pw_weight(m, m->probe[k].comp, q, pad);
    }
    s = fd_upload(ctx, (void **)&st->sf_probe_d, d, (size_t)m->nprobe * sizeof *d);
    if (s == HD_OK) s = fd_upload(ctx, (void **)&st->sf_probe_w, d + m->nprobe, (size_t)m->nprobe * sizeof *d);
    free(d);
  }
  st->pw_e0 = m->pw_e0;
  if (s == HD_OK && m->nfreq && !(st->inc_acc = (double *)calloc((size_t)2 * m->nfreq, sizeof(double))))
    s = hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory");
  return s;
}

#if defined(HD_BACKEND_CUDA)
/* A diagnostic switch of the environment set to 0 (the faster paths'
 * A/B checks: tests/fdtd_cuda_paths.sh, bench/gpu.sh). */
static int fd_env_off(const char *name) {
  const char *v = getenv(name);
  return v && strcmp(v, "0") == 0;
}

/* The marches' shared materials by segments, E's and H's
 * (hd_fdtd_uniform_build). */
static hd_status fd_uniform(hd_ctx *ctx, fdtd_state *st, const fdtd_model *m) {
  hd_idx nseg, useg, urow;
  unsigned char *host;
  hd_status s = HD_OK;
  int h;
  hd_fdtd_uniform_shape(&st->a.g, &nseg, &useg, &urow);
  if (!(host = (unsigned char *)malloc((size_t)(nseg * useg))))
    return hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory for the material segments");
  for (h = 0; h < 2 && s == HD_OK; ++h) {
    const unsigned char *const three[3] = {m->mat[3 * h], m->mat[3 * h + 1], m->mat[3 * h + 2]};
    hd_fdtd_uniform_build(&st->a.g, three, host);
    s = fd_upload(ctx, (void **)&st->uni[h], host, (size_t)(nseg * useg));
    st->a.uni[h] = st->uni[h];
  }
  st->a.useg = useg, st->a.urow = urow;
  free(host);
  return s;
}
#endif

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
  st->wave = st->wave_h = m->wave;
  if (m->wave.kind == HD_FDTD_TABLE) { /* a table where each reads it: the kernels' on the backend, the host's own */
    const size_t tb = (size_t)(2 * m->wave.ntab) * sizeof(double);
    if (!(st->wave_h_tab = (double *)malloc(tb))) s = hd_fail(ctx, HD_ERR_NOMEM, "fdtd: out of host memory for the waveform");
    else memcpy(st->wave_h_tab, m->wave.tab, tb), s = fd_upload(ctx, (void **)&st->wave_tab, m->wave.tab, tb);
    st->wave.tab = st->wave_tab, st->wave_h.tab = st->wave_h_tab;
  }
  st->tuned = FDTD_HAS_TUNED && m->variant != HD_VARIANT_GENERIC;
  st->time_block = m->time_block > 1 ? m->time_block : 1;
  st->dft_every = m->dft_every > 1 ? m->dft_every : 1;
  memcpy(st->block, m->block, sizeof st->block);
  for (a = 0; a < 3; ++a) { /* faces shared with another block, PML and Mur on H: E there too, from H outside */
    const int open = fd_layers(m->bc[a]) || (m->bc[a] == HD_FDTD_BC_MUR && m->mur_h);
    st->bc[a] = m->bc[a];
    st->a.nc[a] = m->n[a];
    st->a.elo[a] = m->halo[2 * a] || open || m->bc[a] == HD_FDTD_BC_PERIODIC ? 0 : 1;
    st->a.ehi[a] = m->halo[2 * a + 1] || open ? m->n[a] : m->n[a] - 1;
  }
  /* fields and material indices: six in one allocation each, component c
   * at c fs (the fused CUDA march's offsets), fs a multiple of 128 nodes
   * so that every component keeps the lead's alignment */
  st->fs = (st->a.g.total + lead + 127) / 128 * 128;
  bytes = (size_t)(6 * st->fs) * sizeof(hd_real);
  if (s == HD_OK) s = hd_dev_alloc(ctx, (void **)&st->field[0], bytes);
  if (s == HD_OK) s = hd_dev_zero(ctx, st->field[0], bytes);
  if (s == HD_OK) s = hd_dev_alloc(ctx, (void **)&st->mat[0], (size_t)(6 * st->fs));
  for (c = 0; c < 6 && s == HD_OK; ++c) {
    st->field[c] = st->field[0] + c * st->fs, st->mat[c] = st->mat[0] + c * st->fs;
    s = hd_dev_upload(ctx, st->mat[c] + lead, m->mat[c], (size_t)st->a.g.total);
    st->a.f[c] = st->field[c] + lead;
    st->a.m[c] = st->mat[c] + lead;
  }
#if defined(HD_BACKEND_CUDA)
  if (s == HD_OK && st->tuned && !fd_env_off("HD_FDTD_SEGMENTS")) s = fd_uniform(ctx, st, m);
  st->vol_fuse = st->tuned && !fd_env_off("HD_FDTD_FUSED_SAMPLE");
#else
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
  if (s == HD_OK && m->bloch && !m->bloch_part) { /* the imaginary part: the same model, the other weights */
    fdtd_model im = *m;
    im.bloch_part = 1;
    s = fd_create(ctx, &im, (void **)&st->twin);
  }
  if (s == HD_OK) s = hd_ctx_sync(ctx);
  if (s != HD_OK) {
    fd_destroy(ctx, st);
    return s;
  }
  *out = st;
  return HD_OK;
}
