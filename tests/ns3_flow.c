/* SPDX-License-Identifier: BSD-3-Clause */
/* The 3-D compressible-flow solver (hd/ns3.h) against what it must equal:
 *   - a flow uniform in z with w = 0 (the isentropic vortex as a tube, Mach
 *     0.5, viscous) gives the 2-D solver's rho, u, v, p bit for bit in
 *     every z plane, w exactly 0: the 2-D solver is validated
 *     (doc/validation.md) and every term the third axis adds is an exact 0;
 *   - the Taylor-Green vortex turned, (x, y, z) -> (y, z, x), gives the
 *     turned solution within round-off: each axis's code against the
 *     others';
 *   - the Taylor-Green vortex: the semi-discrete -dE_k/dt at t = 0 against
 *     the exact 3 nu V0^2 / (4 L^2) (Re 1600: 4.6875e-4), second order in h;
 *     mass, momentum and energy conserved to round-off over 40 steps;
 *   - two-pass stage = one-pass, OpenMP = serial (1-3 threads) bit for bit,
 *     CUDA within 16 N eps max|q|. */
#include "ns_common.h"
#include "ns/ns3_ops.h"

/* A periodic box of n[0] x n[1] x n[2] cells of side h, the Taylor-Green
 * vortex at Mach 0.1, Re 1600 (mu = V0 / Re, L = 1), split fluxes. */
static ns3_problem tgv(long nx, long ny, long nz, double h) {
  ns3_problem p;
  int d;
  memset(&p, 0, sizeof p);
  p.n[0] = nx, p.n[1] = ny, p.n[2] = nz;
  for (d = 0; d < 3; ++d) p.length[d] = (double)p.n[d] * h, p.origin[d] = -0.5 * p.length[d];
  p.gamma = 1.4, p.pr = 0.71, p.suth = -1.0, p.mu_ref = 0.1 / 1600, p.viscous = 1, p.split = 1;
  p.ic.kind = HD_NS3_IC_TAYLOR_GREEN, p.ic.gamma = 1.4, p.ic.u0 = 0.1;
  p.dt = 0.5 * h / 3.3;
  return p;
}

static long nodes3(const ns3_problem *p) { return p->n[0] * p->n[1] * p->n[2]; }

/* Run `steps` steps (after loading `load`, the padded state arrays, if
 * given) and fetch the eight fields and the monitor sums; 1 on success. */
static int run3(test_backend *b, const ns3_ops *ops, const ns3_problem *p, void *const *load, long steps, double **f,
                double *sums) {
  void *state = NULL;
  long nrows = p->n[1] * p->n[2], j;
  double *rows = (double *)calloc((size_t)(HD_NS3_ROW * nrows), sizeof(double));
  int good = rows && ops->create(&b->ctx, p, &state) == HD_OK, k;
  for (k = 0; good && load && k < 5; ++k) {
    char name[16];
    uint64_t bytes;
    good = ops->state_io(&b->ctx, state, k, name, &bytes, load[k], 0) == HD_OK;
  }
  if (good) good = ops->advance(&b->ctx, state, steps) == HD_OK;
  if (good && sums) {
    good = ops->row_sums(&b->ctx, state, rows) == HD_OK;
    for (k = 0; k < 8; ++k) sums[k] = 0.0;
    for (j = 0; good && j < nrows; ++j)
      for (k = 0; k < 8; ++k) sums[k] += rows[HD_NS3_ROW * j + k];
  }
  if (good && f) good = ops->fields(&b->ctx, state, f) == HD_OK;
  if (!good) diag("%s/%s: %s", ops->backend, ops->precision, b->ctx.msg);
  if (state) ops->destroy(&b->ctx, state);
  free(rows);
  return good;
}

static double **fields_alloc(long n) {
  double **f = (double **)calloc(8, sizeof(double *));
  int k;
  if (!f) bail("out of memory");
  for (k = 0; k < 8; ++k)
    if (!(f[k] = (double *)calloc((size_t)n, sizeof(double)))) bail("out of memory");
  return f;
}

static void fields_free(double **f) {
  int k;
  for (k = 0; k < 8; ++k) free(f[k]);
  free(f);
}

static double max_abs(const double *x, long n) {
  double m = 0;
  long i;
  for (i = 0; i < n; ++i) m = fmax(m, fabs(x[i]));
  return m;
}

/* The 2-D solver's vortex against the 3-D tube (z periodic): faces
 * periodic (kind 0), characteristic with walls and inflows (1: Mach 0.5,
 * subsonic inflow, nonreflecting outflow, slip and no-slip walls; 2:
 * Mach 1.2, nonreflecting inflow relaxed toward the stream, supersonic
 * outflow, supersonic inflow, no-slip wall). */
static void embedding(test_backend *be, int single, int kind) {
  static const char *const what[3] = {"periodic faces", "subsonic inflow, nonreflecting outflow, walls",
                                      "Mach 1.2, relaxed and supersonic in- and outflows, a no-slip wall"};
  const long steps = 30, nz = 4;
  ns_problem p2 = ns_square(40, 1.0, kind ? HD_NS_NONREFLECTING : HD_NS_PERIODIC, kind == 2 ? 1.2 : 0.5, 0.0, 0.5 / 2000);
  ns3_problem p3;
  double *r2, *u2, *v2, *pr2, **f;
  long count, i, k;
  int same = 1, wzero = 1;
  p2.n[1] = 36, p2.length[1] = 0.9, p2.origin[1] = -0.45;
  p2.ic.kind = HD_NS_IC_ISENTROPIC, p2.ic.strength = 0.2, p2.ic.rc = 0.12, p2.ic.x0 = 0.05, p2.ic.y0 = -0.03;
  if (kind == 1)
    p2.bc[HD_NS_XLO] = HD_NS_SUBSONIC_IN, p2.bc[HD_NS_YLO] = HD_NS_SLIP_WALL, p2.bc[HD_NS_YHI] = HD_NS_NOSLIP_WALL;
  if (kind == 2)
    p2.bc[HD_NS_XHI] = HD_NS_SUPERSONIC_OUT, p2.bc[HD_NS_YLO] = HD_NS_NOSLIP_WALL, p2.bc[HD_NS_YHI] = HD_NS_SUPERSONIC_IN;
  memset(&p3, 0, sizeof p3);
  p3.n[0] = p2.n[0], p3.n[1] = p2.n[1], p3.n[2] = nz;
  for (i = 0; i < 2; ++i) p3.length[i] = p2.length[i], p3.origin[i] = p2.origin[i];
  p3.length[2] = 0.1, p3.origin[2] = -0.05;
  for (i = 0; i < 4; ++i) p3.bc[i] = p2.bc[i];
  p3.sigma = p2.sigma, p3.sigma_side = p2.sigma_side, p3.beta = p2.beta, p3.beta_side = p2.beta_side;
  p3.sigma_in = p2.sigma_in, p3.mach = p2.mach, p3.u_inf[0] = p2.ic.u_inf;
  p3.gamma = p2.gamma, p3.pr = p2.pr, p3.mu_ref = p2.mu_ref, p3.suth = p2.suth, p3.viscous = 1, p3.dt = p2.dt;
  p3.ic.kind = HD_NS3_IC_VORTEX_TUBE, p3.ic.gamma = p2.gamma, p3.ic.plane = p2.ic;
  count = ns_nodes(&p2, 0) * ns_nodes(&p2, 1);
  if (count != ns3_nodes(&p3, 0) * ns3_nodes(&p3, 1)) bail("embedding: the grids differ");
  r2 = ns_alloc(&p2), u2 = ns_alloc(&p2), v2 = ns_alloc(&p2), pr2 = ns_alloc(&p2);
  f = fields_alloc(count * nz);
  if (!ns_run(be, ns_ops_get(HD_B_SERIAL, single), &p2, steps, r2, u2, v2, pr2, NULL) ||
      !run3(be, ns3_ops_get(HD_B_SERIAL, single), &p3, NULL, steps, f, NULL))
    bail("the embedding runs failed");
  for (k = 0; k < nz; ++k) {
    const long o = k * count;
    same &= !memcmp(r2, f[0] + o, (size_t)count * sizeof(double)) && !memcmp(u2, f[1] + o, (size_t)count * sizeof(double)) &&
            !memcmp(v2, f[2] + o, (size_t)count * sizeof(double)) && !memcmp(pr2, f[4] + o, (size_t)count * sizeof(double));
  }
  wzero = max_abs(f[3], count * nz) == 0.0;
  ok(same && wzero, "serial/%s, %s: a vortex tube along z (viscous, %ld steps) is the 2-D solver's vortex bit for bit in "
     "each of %ld z planes, w = 0", single ? "single" : "double", what[kind], steps, nz);
  free(r2), free(u2), free(v2), free(pr2);
  fields_free(f);
}

/* The Taylor-Green vortex (its velocity varies along every axis, w = 0
 * at the start) and the same turned, (x, y, z) -> (y, z, x), loaded
 * through the checkpoint entries. */
static void turned(test_backend *be) {
  const long steps = 20, m = 16, nz = 16;
  const ns3_problem a = tgv(m, m, nz, 2 * M_PI / m), b = a;
  const ns3_ops *ops = ns3_ops_get(HD_B_SERIAL, 0);
  double **fa, **fb, err = 0.0, scale = 0.0;
  void *load[5] = {NULL, NULL, NULL, NULL, NULL}, *orig[5];
  hd_grid ga, gb;
  long i, j, k, n = m * m * nz;
  int c;
  hd_grid_init(&ga, 3, a.n[0], a.n[1], a.n[2], 1), hd_grid_init(&gb, 3, b.n[0], b.n[1], b.n[2], 1);
  /* a's initial state, through a run of 0 steps that saves it */
  {
    void *state = NULL;
    char name[16];
    uint64_t bytes;
    if (ops->create(&be->ctx, &a, &state) != HD_OK) bail("turned: %s", be->ctx.msg);
    for (c = 0; c < 5; ++c) {
      ops->state_io(&be->ctx, state, c, name, &bytes, NULL, 1);
      if (!(orig[c] = malloc(bytes)) || !(load[c] = calloc(1, bytes))) bail("out of memory");
      ops->state_io(&be->ctx, state, c, name, &bytes, orig[c], 1);
    }
    ops->destroy(&be->ctx, state);
  }
  /* b(i', j', k') = a(i, j, k) with (i', j', k') = (k, i, j); momentum
   * components turned alike: b's (x, y, z) = a's (z, x, y) */
  for (k = 1; k <= nz; ++k)
    for (j = 1; j <= m; ++j)
      for (i = 1; i <= m; ++i) {
        const hd_idx src = hd_grid_at(&ga, i, j, k), dst = hd_grid_at(&gb, k, i, j);
        static const int from[5] = {0, 3, 1, 2, 4};
        for (c = 0; c < 5; ++c) ((double *)load[c])[dst] = ((double *)orig[from[c]])[src];
      }
  fa = fields_alloc(n), fb = fields_alloc(n);
  if (!run3(be, ops, &a, NULL, steps, fa, NULL) || !run3(be, ops, &b, load, steps, fb, NULL)) bail("turned: a run failed");
  for (k = 0; k < nz; ++k)
    for (j = 0; j < m; ++j)
      for (i = 0; i < m; ++i) {
        const long s = i + m * (j + m * k), d = k + nz * (i + m * j);
        static const int from[8] = {0, 3, 1, 2, 4, 7, 5, 6}; /* rho, u v w, p, omega */
        for (c = 0; c < 8; ++c) {
          err = fmax(err, fabs(fb[c][d] - fa[from[c]][s]));
          scale = fmax(scale, fabs(fa[c][s]));
        }
      }
  ok(err <= 1e-12 * scale, "the Taylor-Green vortex turned, (x, y, z) -> (y, z, x), gives the turned flow after %ld "
     "steps (max difference %.2e, %.0e of the largest value)", steps, err, err / scale);
  for (c = 0; c < 5; ++c) free(orig[c]), free(load[c]);
  fields_free(fa), fields_free(fb);
}

/* -dE_k/dt at t = 0 of the Taylor-Green vortex: 2 nu Omega with Omega = 3/8. */
static void dissipation0(test_backend *be) {
  const double exact = 3.0 / 4.0 / 1600.0;
  double err[2], s[8];
  int r;
  for (r = 0; r < 2; ++r) {
    const long n = r ? 32 : 16;
    const ns3_problem p = tgv(n, n, n, 2 * M_PI / n);
    if (!run3(be, ns3_ops_get(HD_B_SERIAL, 0), &p, NULL, 0, NULL, s)) bail("dissipation: a run failed");
    /* s[7]: sum of dE_k/dt in rho_inf c^3 / L; V0 = 0.1 */
    err[r] = fabs(-s[7] / nodes3(&p) / 1e-3 - exact) / exact;
  }
  ok(err[1] < 0.005 && err[0] / err[1] > 3.5 && err[0] / err[1] < 4.5,
     "Taylor-Green, Re 1600: -dE_k/dt at t = 0 is 3/(4 Re) within %.2f %% at 32^3 and %.2f %% at 16^3 (second order)",
     100 * err[1], 100 * err[0]);
}

static void conservation(test_backend *be) {
  const ns3_problem p = tgv(16, 16, 16, 2 * M_PI / 16);
  double s0[8], s1[8];
  const double m = 16.0 * 16 * 16;
  if (!run3(be, ns3_ops_get(HD_B_SERIAL, 0), &p, NULL, 0, NULL, s0) ||
      !run3(be, ns3_ops_get(HD_B_SERIAL, 0), &p, NULL, 40, NULL, s1))
    bail("conservation: a run failed");
  ok(fabs(s1[0] / s0[0] - 1) < 1e-13 && fabs(s1[4] / s0[4] - 1) < 1e-13 && fabs(s1[1] - s0[1]) / m < 1e-15 &&
         fabs(s1[2] - s0[2]) / m < 1e-15 && fabs(s1[3] - s0[3]) / m < 1e-15,
     "Taylor-Green, 40 steps: mass and energy conserved within 1e-13, momentum within 1e-15 (mass %.1e, energy %.1e, "
     "momentum %.1e %.1e %.1e)", s1[0] / s0[0] - 1, s1[4] / s0[4] - 1, (s1[1] - s0[1]) / m, (s1[2] - s0[2]) / m,
     (s1[3] - s0[3]) / m);
}

static void backends(test_backend *be, int nb) {
  const long steps = 12;
  int single, k, t, c;
  for (single = 0; single <= 1; ++single) {
    ns3_problem p = tgv(20, 18, 22, 2 * M_PI / 20);
    const long n = nodes3(&p);
    const char *prec = single ? "single" : "double";
    const double eps = single ? FLT_EPSILON : DBL_EPSILON;
    double **ref = fields_alloc(n), **out = fields_alloc(n);
    if (!run3(&be[0], ns3_ops_get(HD_B_SERIAL, single), &p, NULL, steps, ref, NULL)) bail("the serial run failed");
    {
      int same = 1;
      p.generic = 1;
      same = run3(&be[0], ns3_ops_get(HD_B_SERIAL, single), &p, NULL, steps, out, NULL);
      p.generic = 0;
      for (c = 0; same && c < 5; ++c) same = !memcmp(ref[c], out[c], (size_t)n * sizeof(double));
      ok(same, "Taylor-Green 20 x 18 x 22, serial/%s: the two-pass stage bit-identical to the one-pass stage after %ld "
         "steps", prec, steps);
    }
    for (k = 1; k < nb; ++k) {
      const ns3_ops *ops = ns3_ops_get(be[k].core->id, single);
      if (!ops) continue;
      if (be[k].core->id == HD_B_OPENMP) {
        for (t = 1; t <= 3; ++t) {
          int same;
          be[k].ctx.threads = t;
          same = run3(&be[k], ops, &p, NULL, steps, out, NULL);
          for (c = 0; same && c < 5; ++c) same = !memcmp(ref[c], out[c], (size_t)n * sizeof(double));
          ok(same, "Taylor-Green, openmp/%s at %d thread%s: bit-identical to serial", prec, t, t > 1 ? "s" : "");
        }
        be[k].ctx.threads = 0;
      } else {
        int g;
        for (g = 0; g <= 1; ++g) {
          double worst = 0.0;
          int good;
          p.generic = g;
          good = run3(&be[k], ops, &p, NULL, steps, out, NULL);
          for (c = 0; good && c < 5; ++c) {
            const double tol = 16.0 * steps * eps * fmax(max_abs(ref[c], n), 1e-30);
            long i;
            for (i = 0; i < n; ++i) worst = fmax(worst, fabs(out[c][i] - ref[c][i]) / tol);
          }
          ok(good && worst <= 1.0, "Taylor-Green, %s/%s (%s stage): within 16 N eps max|q| of serial (worst %.3f of it)",
             ops->backend, prec, g ? "one-pass" : "two-pass", worst);
        }
        p.generic = 0;
      }
    }
    fields_free(ref), fields_free(out);
  }
}

int main(void) {
  test_backend be[HD_B_COUNT];
  const int nb = test_backends_open(be);
  int kind;
  for (kind = 0; kind < 3; ++kind) embedding(&be[0], 0, kind), embedding(&be[0], 1, kind);
  turned(&be[0]);
  dissipation0(&be[0]);
  conservation(&be[0]);
  backends(be, nb);
  test_backends_close(be, nb);
  return done_testing();
}
