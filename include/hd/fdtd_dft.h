/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/fdtd_dft.h - frequency-domain results of an FDTD run, gathered while it
 * marches (nothing of the time history is stored).
 *
 * The running discrete Fourier transform of a sample x(t_n),
 *     X(f) = sum_n x(t_n) exp(-j 2 pi f t_n) dt,
 * taken at each sample's own time: E at the end of step n is at
 * t = (n + 1) dt, H at (n + 3/2) dt, a feed's gap voltage at (n + 1) dt and
 * its current (the loop integral of H) at (n + 1/2) dt.  The phasors then
 * describe one time-harmonic field exp(+j 2 pi f t), with no half-step
 * error between E and H.  The phase factors of a step are computed once on
 * the host and passed by value, so every backend multiplies the same bits.
 *
 * The Huygens surface: the faces of a box of whole cells.  A face point is
 * the centre of one cell face on the box; its four tangential fields are
 * averaged there from the Yee positions (E over the two edges of the face,
 * H over the four around it, half a cell either side of the face), each
 * accumulated in double by the one thread that owns the point, in time
 * order: serial, OpenMP and a decomposition into blocks give the same bits.
 *
 * The near-to-far transformation (phasor convention exp(+j omega t)):
 *     J = n x H,  M = -n x E  on the surface,
 *     N = sum J exp(j k r'.r^) dS,  L = sum M exp(j k r'.r^) dS,
 *     r E_theta = -j k / (4 pi) (L_phi + eta N_theta),
 *     r E_phi   =  j k / (4 pi) (L_theta - eta N_phi)   (the exp(-j k r) left out),
 * and the radiation intensity U = r^2 |E|^2 / (2 eta). */
#ifndef HD_FDTD_DFT_H
#define HD_FDTD_DFT_H

#include <math.h>

#include "fdtd.h"

/* Frequencies one launch of the surface accumulation takes. */
#define HD_DFT_CHUNK 8

/* exp(-j 2 pi f t) for the frequencies of one chunk, at the sample times
 * of a step: index 0 the E and gap voltages ((n + 1) dt), 1 the H
 * ((n + 3/2) dt), 2 the feed currents ((n + 1/2) dt).  The accumulators
 * hold the sums without the factor dt, which the reader applies: fields
 * near the end of a run are tiny, and tiny times dt would fall into the
 * denormal range, where the CPU's arithmetic is a hundred times slower. */
typedef struct hd_dft_phase {
  double c[3][HD_DFT_CHUNK], s[3][HD_DFT_CHUNK]; /* cos, -sin */
  int count;                                      /* frequencies in this chunk */
} hd_dft_phase;

/* Phase factors of step n for freq[0 .. count). */
HD_HOST_FN void hd_dft_phase_step(hd_dft_phase *p, const double *freq, int count, long n, double dt) {
  const double pi2 = 2.0 * 3.14159265358979323846, at[3] = {1.0, 1.5, 0.5};
  int k, w;
  p->count = count;
  for (k = 0; k < count; ++k)
    for (w = 0; w < 3; ++w) {
      /* turns of f t as (n f dt mod 1) + at f dt: long runs keep every digit */
      const double turns = fmod(fmod((double)n * (freq[k] * dt), 1.0) + at[w] * freq[k] * dt, 1.0);
      p->c[w][k] = cos(pi2 * turns), p->s[w][k] = -sin(pi2 * turns);
    }
}

/* ---- feeds: gap voltage and current ----------------------------------------------- */

typedef struct hd_dft_feed_args {
  const hd_real *vi; /* this step's gap voltage and current of each feed (hd_fdtd_feed_pt's record) */
  double *acc;       /* 4 doubles (V re, im, I re, im) x frequencies x feeds, feed fastest */
  hd_idx nfeed;
  int k0;
  hd_dft_phase ph;
} hd_dft_feed_args;

HD_FN void hd_dft_feed_pt(const hd_dft_feed_args *a, hd_idx p) {
  const double v = a->vi[2 * p], i = a->vi[2 * p + 1];
  int k;
  for (k = 0; k < a->ph.count; ++k) {
    double *x = a->acc + (hd_idx)4 * (a->k0 + k) * a->nfeed;
    x[p] += v * a->ph.c[0][k], x[a->nfeed + p] += v * a->ph.s[0][k];
    x[2 * a->nfeed + p] += i * a->ph.c[2][k], x[3 * a->nfeed + p] += i * a->ph.s[2][k];
  }
}
HD_DEFINE_FOR_1D(hd_dft_feed_loop, hd_dft_feed_pt, hd_dft_feed_args)

/* ---- probes: this step's record of each, E at (n + 1) dt, H at (n + 3/2) dt ------- */

typedef struct hd_dft_probe_args {
  const hd_real *rec;          /* this step's value of each probe */
  const hd_fdtd_probe *probe;  /* their components */
  double *acc;                 /* 2 doubles (re, im) x frequencies x probes, probe fastest */
  hd_idx nprobe;
  int k0;
  hd_dft_phase ph;
} hd_dft_probe_args;

HD_FN void hd_dft_probe_pt(const hd_dft_probe_args *a, hd_idx p) {
  const double v = a->rec[p];
  const int w = a->probe[p].comp < 3 ? 0 : 1;
  int k;
  for (k = 0; k < a->ph.count; ++k) {
    double *x = a->acc + (hd_idx)2 * (a->k0 + k) * a->nprobe;
    x[p] += v * a->ph.c[w][k], x[a->nprobe + p] += v * a->ph.s[w][k];
  }
}
HD_DEFINE_FOR_1D(hd_dft_probe_loop, hd_dft_probe_pt, hd_dft_probe_args)

/* ---- the Huygens surface -------------------------------------------------------- */

/* Face points of the box: face f (0..5: -x, +x, -y, +y, -z, +z) with
 * normal axis a = f / 2, tangential axes u = (a + 1) % 3, v = (a + 2) % 3;
 * a point is one cell of the face's node plane, its base node n the
 * padded offset of that cell's lowest node.
 *
 * Each step only samples the four fields of every point into a buffer of
 * HD_DFT_BUFFER steps; a flush then adds the buffered steps to the sums of
 * every frequency, in time order.  The sums, 16 bytes a frequency, are
 * read and written once a buffer instead of once a step: the surface
 * costs 2 sizeof(hd_real) x 4 bytes a point and step plus 32 K /
 * HD_DFT_BUFFER for K frequencies, not 32 K (doc/performance.md). */
#define HD_DFT_BUFFER 16

typedef struct hd_dft_sample_args {
  const hd_real *f[6];   /* the fields (device) */
  hd_grid g;             /* the field grid */
  const hd_idx *node;    /* base node of each point */
  const unsigned char *face;
  hd_real *buf;          /* HD_DFT_BUFFER x 4 x npts: slot, then Eu, Ev, Hu, Hv, point fastest */
  hd_idx npts;
  int slot;
} hd_dft_sample_args;

/* The four tangential fields at the face centre of point p. */
HD_FN void hd_dft_sample_pt(const hd_dft_sample_args *a, hd_idx p) {
  const int fa = a->face[p] / 2, u = (fa + 1) % 3, w = (fa + 2) % 3;
  const hd_idx n = a->node[p], su = a->g.stride[u], sw = a->g.stride[w], sa = a->g.stride[fa];
  const hd_real *eu = a->f[u], *ew = a->f[w], *hu = a->f[3 + u], *hw = a->f[3 + w];
  hd_real *b = a->buf + (hd_idx)4 * a->slot * a->npts + p;
  b[0] = (hd_real)(0.5 * ((double)eu[n] + eu[n + sw]));
  b[a->npts] = (hd_real)(0.5 * ((double)ew[n] + ew[n + su]));
  b[2 * a->npts] = (hd_real)(0.25 * ((double)hu[n] + hu[n + su] + hu[n - sa] + hu[n + su - sa]));
  b[3 * a->npts] = (hd_real)(0.25 * ((double)hw[n] + hw[n + sw] + hw[n - sa] + hw[n + sw - sa]));
}
HD_DEFINE_FOR_1D(hd_dft_sample_loop, hd_dft_sample_pt, hd_dft_sample_args)

/* The flush: slots t0 .. t1 - 1 hold steps n0 .. n0 + t1 - t0 - 1; ph
 * holds the phases of step n0, rot those of one step (exp(-j 2 pi f dt)),
 * and each later step's phase is the one before times rot. */
typedef struct hd_dft_surface_args {
  const hd_real *buf;
  double *acc;           /* 8 doubles (Eu, Ev, Hu, Hv as re, im) x frequencies x points, point fastest */
  hd_idx npts;
  int t0, t1, k0;        /* buffered slots; the chunk's first frequency */
  hd_dft_phase ph;
  double rc[HD_DFT_CHUNK], rs[HD_DFT_CHUNK];
} hd_dft_surface_args;

/* Two frequencies at a time: their 16 sums and 8 phases stay in
 * registers while the buffered steps stream past. */
HD_FN void hd_dft_surface_pt(const hd_dft_surface_args *a, hd_idx p) {
  int k0, k, c, t, g;
  for (k0 = 0; k0 < a->ph.count; k0 += 2) {
    const int ng = a->ph.count - k0 < 2 ? a->ph.count - k0 : 2;
    double sum[2][8], pc[2][2], ps[2][2];
    for (g = 0; g < ng; ++g) {
      const double *x = a->acc + (hd_idx)8 * (a->k0 + k0 + g) * a->npts + p;
      for (c = 0; c < 8; ++c) sum[g][c] = x[c * a->npts];
      for (c = 0; c < 2; ++c) pc[g][c] = a->ph.c[c][k0 + g], ps[g][c] = a->ph.s[c][k0 + g];
    }
    for (t = a->t0; t < a->t1; ++t) {
      const hd_real *b = a->buf + (hd_idx)4 * t * a->npts + p;
      const double v[4] = {b[0], b[a->npts], b[2 * a->npts], b[3 * a->npts]};
      for (g = 0; g < ng; ++g) {
        k = k0 + g;
        for (c = 0; c < 4; ++c) {
          const int w = c < 2 ? 0 : 1;
          sum[g][2 * c] += v[c] * pc[g][w], sum[g][2 * c + 1] += v[c] * ps[g][w];
        }
        for (c = 0; c < 2; ++c) {
          const double q = pc[g][c] * a->rc[k] - ps[g][c] * a->rs[k];
          ps[g][c] = pc[g][c] * a->rs[k] + ps[g][c] * a->rc[k], pc[g][c] = q;
        }
      }
    }
    for (g = 0; g < ng; ++g) {
      double *x = a->acc + (hd_idx)8 * (a->k0 + k0 + g) * a->npts + p;
      for (c = 0; c < 8; ++c) x[c * a->npts] = sum[g][c];
    }
  }
}
HD_DEFINE_FOR_1D(hd_dft_surface_loop, hd_dft_surface_pt, hd_dft_surface_args)

/* One step's rotation exp(-j 2 pi f dt) for the flushes. */
HD_HOST_FN void hd_dft_rotation(double *rc, double *rs, const double *freq, int count, double dt) {
  int k;
  for (k = 0; k < count; ++k)
    rc[k] = cos(2.0 * 3.14159265358979323846 * fmod(freq[k] * dt, 1.0)),
    rs[k] = -sin(2.0 * 3.14159265358979323846 * fmod(freq[k] * dt, 1.0));
}

/* ---- decimation: sampling a running DFT every D steps ----------------------------- */

/* |W(f)| of waveform w up to a constant factor, for the pulses whose
 * transform is closed-form (Gaussian exp(-(pi f tau)^2), its derivative f
 * times it, the modulated one the sum of its two shifted copies, an upper
 * bound); -1 for the others (the ramped sine, a table). */
HD_HOST_FN double hd_fdtd_wave_spectrum(const hd_fdtd_wave *w, double f) {
  const double pi = 3.14159265358979323846, x = pi * w->tau * f, d = pi * w->tau * w->freq;
  if (w->kind == HD_FDTD_GAUSSIAN) return exp(-x * x);
  if (w->kind == HD_FDTD_DGAUSSIAN) return fabs(x) * exp(-x * x);
  if (w->kind == HD_FDTD_MGAUSSIAN) return exp(-(x - d) * (x - d)) + exp(-(x + d) * (x + d));
  return -1.0;
}

/* Steps between the samples of a running DFT at freq[0 .. n) driven by w:
 * a transform sampled every D dt is the sum over k of X(f + k / (D dt)),
 * so the nearest alias on any f lies at least 1/(D dt) - fmax away, and D
 * is the largest for which w's spectrum beyond that is at most eps times
 * its least at the frequencies (Meep's decimation chooses D from the
 * sources' bandwidth likewise).  1 where w's spectrum is not closed-form. */
HD_HOST_FN int hd_dft_decimation(const hd_fdtd_wave *w, const double *freq, int n, double dt, double eps) {
  double fmax = 0.0, smin = HUGE_VAL, lo, hi, peak;
  int k, it;
  if (n <= 0 || !(dt > 0) || hd_fdtd_wave_spectrum(w, 0.0) < 0) return 1;
  for (k = 0; k < n; ++k) fmax = fmax > fabs(freq[k]) ? fmax : fabs(freq[k]), smin = fmin(smin, hd_fdtd_wave_spectrum(w, freq[k]));
  if (!(smin > 0)) return 1;
  /* past the peak (0, 1/(pi tau sqrt 2), or freq) |W| only falls: bisect where it meets eps smin */
  peak = w->kind == HD_FDTD_MGAUSSIAN ? w->freq : w->kind == HD_FDTD_DGAUSSIAN ? 1.0 / (3.14159265358979323846 * w->tau * sqrt(2.0)) : 0.0;
  lo = fmax > peak ? fmax : peak, hi = 0.5 / dt;
  if (lo >= hi || hd_fdtd_wave_spectrum(w, hi) > eps * smin) return 1;
  for (it = 0; it < 200 && hi - lo > 1e-9 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (hd_fdtd_wave_spectrum(w, mid) > eps * smin) lo = mid;
    else hi = mid;
  }
  {
    const double d = floor(1.0 / (dt * (fmax + hi)));
    return d < 1.0 ? 1 : d > 1e6 ? 1000000 : (int)d;
  }
}

/* The face points of the box of physical nodes lo[a] .. hi[a] (lo < hi),
 * face by face, x innermost where x lies in the face (neighbouring threads
 * then read neighbouring fields).  Returns their count; where the arrays
 * are given, each point's face and its base node as physical indices (3 a
 * point). */
HD_HOST_FN hd_idx hd_dft_surface_points(const long lo[3], const long hi[3], unsigned char *face, long *ijk) {
  hd_idx count = 0;
  int f;
  for (f = 0; f < 6; ++f) {
    const int a = f / 2, t0 = a == 0 ? 1 : 0, t1 = 3 - a - t0; /* t0: the inner tangential axis */
    long i0, i1;
    for (i1 = lo[t1]; i1 < hi[t1]; ++i1)
      for (i0 = lo[t0]; i0 < hi[t0]; ++i0, ++count) {
        if (face) face[count] = (unsigned char)f;
        if (ijk) ijk[3 * count + a] = f % 2 ? hi[a] : lo[a], ijk[3 * count + t0] = i0, ijk[3 * count + t1] = i1;
      }
  }
  return count;
}

/* ---- near-field maps: one component on a plane of cells ---------------------------- */

/* Cell (iu, iv) of a cell layer: the component averaged to the cell
 * centre as the slices do (an E component over its four edges around the
 * centre, an H component over its two faces), at its own time. */
typedef struct hd_dft_plane_args {
  const hd_real *f;      /* the component */
  hd_idx base;           /* offset of the lowest node of cell (0, 0) */
  hd_idx su, sv, nu;     /* strides of the two in-plane axes; cells along u */
  hd_idx off[4];         /* the nodes averaged, from a cell's lowest node */
  int noff, when;        /* 4 (E) or 2 (H); phase index 0 (E) or 1 (H) */
  double *acc;           /* 2 doubles (re, im) x frequencies x cells, cell fastest */
  hd_idx ncell;
  int k0;
  hd_dft_phase ph;
} hd_dft_plane_args;

HD_FN void hd_dft_plane_pt(const hd_dft_plane_args *a, hd_idx p) {
  const hd_idx n = a->base + (p % a->nu) * a->su + (p / a->nu) * a->sv;
  double v = 0.0;
  int k;
  for (k = 0; k < a->noff; ++k) v += a->f[n + a->off[k]];
  v /= a->noff;
  for (k = 0; k < a->ph.count; ++k) {
    double *x = a->acc + (hd_idx)2 * (a->k0 + k) * a->ncell;
    x[p] += v * a->ph.c[a->when][k], x[a->ncell + p] += v * a->ph.s[a->when][k];
  }
}
HD_DEFINE_FOR_1D(hd_dft_plane_loop, hd_dft_plane_pt, hd_dft_plane_args)

/* ---- the whole volume: every component at every node ------------------------------ */

/* The six components at each physical node, sampled after the H update
 * into a buffer of HD_DFT_VOLUME_BUFFER steps and flushed into sums of the
 * run's precision (float sums in single, as OpenFDTD keeps them): a node
 * costs 6 field reads and 6 buffer writes a step and its sums once a
 * buffer, not the 12 sums' reads and writes of every step.  Buffer and
 * sums are laid out as the padded grid from the first physical node to the
 * last (span elements; the ghosts between rows ride along and are never
 * read back), so sampling is a plain copy with no index arithmetic. */
#define HD_DFT_VOLUME_BUFFER 8

typedef struct hd_dft_volume_args {
  const hd_real *f[6];
  hd_idx first, span;    /* padded index of node (0, 0, 0); elements up to the last node */
  hd_real *buf;          /* HD_DFT_VOLUME_BUFFER x 6 x span */
  hd_real *acc;          /* 2 (re, im) x 6 x frequencies x span */
  int slot, t0, t1, k0;  /* sampling: the slot; flushing: slots t0 .. t1 - 1, the chunk's first frequency */
  int count;             /* flushing: frequencies in the chunk, and each slot's phase factors */
  double c[2][HD_DFT_VOLUME_BUFFER][HD_DFT_CHUNK], s[2][HD_DFT_VOLUME_BUFFER][HD_DFT_CHUNK]; /* E, H */
} hd_dft_volume_args;

/* Element p's six components into the slot, all loaded before any store. */
HD_FN void hd_dft_volume_sample_pt(const hd_dft_volume_args *a, hd_idx p, int row) {
  hd_real *HD_RESTRICT b = a->buf + (hd_idx)6 * a->slot * a->span + p;
  hd_real v[6];
  int c;
  (void)row;
  for (c = 0; c < 6; ++c) v[c] = a->f[c][a->first + p];
  for (c = 0; c < 6; ++c) b[c * a->span] = v[c];
}
HD_DEFINE_FOR_ROWS(hd_dft_volume_sample_loop, hd_dft_volume_sample_pt, hd_dft_volume_args)

/* Component c (the row) of element p, every frequency of the chunk: the
 * slots are loaded once, together; each slot's phase comes from the host
 * (no rotation chain between the slots' multiply-adds). */
HD_FN void hd_dft_volume_pt(const hd_dft_volume_args *a, hd_idx p, int c) {
  const int w = c < 3 ? 0 : 1;
  const hd_real *HD_RESTRICT b = a->buf + (hd_idx)c * a->span + p;
  hd_real v[HD_DFT_VOLUME_BUFFER];
  int k, t;
  for (t = 0; t < HD_DFT_VOLUME_BUFFER; ++t) v[t] = t >= a->t0 && t < a->t1 ? b[(hd_idx)6 * t * a->span] : (hd_real)0;
  for (k = 0; k < a->count; ++k) {
    hd_real *HD_RESTRICT x = a->acc + ((hd_idx)2 * (6 * (a->k0 + k) + c)) * a->span + p;
    double re = x[0], im = x[a->span];
    for (t = 0; t < HD_DFT_VOLUME_BUFFER; ++t)
      if (t >= a->t0 && t < a->t1) re += (double)v[t] * a->c[w][t][k], im += (double)v[t] * a->s[w][t][k];
    x[0] = (hd_real)re, x[a->span] = (hd_real)im;
  }
}
HD_DEFINE_FOR_ROWS(hd_dft_volume_loop, hd_dft_volume_pt, hd_dft_volume_args)

/* ---- the far field ---------------------------------------------------------------- */

/* The surface for the transformation: each point's indices on the mesh
 * (ijk: the node on its face's axis, the cells across), its area with the
 * outward sign of its face, and the accumulated phasors of one frequency
 * (8 arrays of npts: Eu, Ev, Hu, Hv as re, im). */
typedef struct hd_ntff_args {
  const double *node[3];      /* node coordinates of each axis, nn[a] of them */
  long nn[3];
  const long *ijk;
  const double *area;         /* signed: + on +x/+y/+z faces, - on the others */
  const unsigned char *face;
  const double *acc;
  hd_idx npts;
  double k, eta;              /* wave number and impedance of the medium */
  const double *theta, *phi;  /* directions */
  double *out;                /* per direction: Eth re, im, Eph re, im (r E, exp(-jkr) left out) */
} hd_ntff_args;

/* Doubles of scratch hd_ntff_direction needs: exp(j k x r^_a) at every
 * node and cell centre of each axis, so that a point's phase is three
 * products instead of a cosine and a sine. */
HD_HOST_FN size_t hd_ntff_scratch(const hd_ntff_args *a) { return (size_t)4 * (a->nn[0] + a->nn[1] + a->nn[2]); }

/* r E_theta and r E_phi in direction d, the points summed in order. */
HD_HOST_FN void hd_ntff_direction(const hd_ntff_args *a, hd_idx d, double *scratch) {
  const double th = a->theta[d], ph = a->phi[d];
  const double st = sin(th), ct = cos(th), sp = sin(ph), cp = cos(ph);
  const double rh[3] = {st * cp, st * sp, ct};               /* r^ */
  const double tv[3] = {ct * cp, ct * sp, -st}, pv[3] = {-sp, cp, 0.0}; /* theta^, phi^ */
  double nr[3] = {0, 0, 0}, ni[3] = {0, 0, 0}, lr[3] = {0, 0, 0}, li[3] = {0, 0, 0};
  double nt_r, nt_i, np_r, np_i, lt_r, lt_i, lp_r, lp_i, *tn[3], *tc[3];
  hd_idx p;
  int b;
  long i;
  for (b = 0, tn[0] = scratch; b < 3; ++b) { /* (cos, sin) at the nodes, then at the centres */
    const double *x = a->node[b];
    tc[b] = tn[b] + 2 * a->nn[b];
    if (b < 2) tn[b + 1] = tn[b] + 4 * a->nn[b];
    for (i = 0; i < a->nn[b]; ++i) {
      const double kn = a->k * x[i] * rh[b], kc = i + 1 < a->nn[b] ? a->k * 0.5 * (x[i] + x[i + 1]) * rh[b] : 0.0;
      tn[b][2 * i] = cos(kn), tn[b][2 * i + 1] = sin(kn), tc[b][2 * i] = cos(kc), tc[b][2 * i + 1] = sin(kc);
    }
  }
  for (p = 0; p < a->npts; ++p) {
    const int fa = a->face[p] / 2, u = (fa + 1) % 3, w = (fa + 2) % 3;
    const long *q = a->ijk + 3 * p;
    const double *pa = tn[fa] + 2 * q[fa], *pu = tc[u] + 2 * q[u], *pw = tc[w] + 2 * q[w];
    const double c1 = pa[0] * pu[0] - pa[1] * pu[1], s1 = pa[0] * pu[1] + pa[1] * pu[0];
    const double c = c1 * pw[0] - s1 * pw[1], s = c1 * pw[1] + s1 * pw[0]; /* exp(j k r'.r^) */
    const double ds = a->area[p]; /* n = sign(ds) e_a, |ds| the area */
    const double *f = a->acc + p;
    const hd_idx m = a->npts;
    /* n = s e_a, e_a x e_u = e_v: J = n x H has J_u = -s H_v, J_v = s H_u;
       M = -n x E has M_u = s E_v, M_v = -s E_u (s in ds); each times exp(j kr) */
    const double jur = -f[6 * m] * ds, jui = -f[7 * m] * ds, jvr = f[4 * m] * ds, jvi = f[5 * m] * ds;
    const double mur = f[2 * m] * ds, mui = f[3 * m] * ds, mvr = -f[0] * ds, mvi = -f[m] * ds;
    nr[u] += jur * c - jui * s, ni[u] += jur * s + jui * c;
    nr[w] += jvr * c - jvi * s, ni[w] += jvr * s + jvi * c;
    lr[u] += mur * c - mui * s, li[u] += mur * s + mui * c;
    lr[w] += mvr * c - mvi * s, li[w] += mvr * s + mvi * c;
  }
  nt_r = nr[0] * tv[0] + nr[1] * tv[1] + nr[2] * tv[2], nt_i = ni[0] * tv[0] + ni[1] * tv[1] + ni[2] * tv[2];
  np_r = nr[0] * pv[0] + nr[1] * pv[1], np_i = ni[0] * pv[0] + ni[1] * pv[1];
  lt_r = lr[0] * tv[0] + lr[1] * tv[1] + lr[2] * tv[2], lt_i = li[0] * tv[0] + li[1] * tv[1] + li[2] * tv[2];
  lp_r = lr[0] * pv[0] + lr[1] * pv[1], lp_i = li[0] * pv[0] + li[1] * pv[1];
  {
    const double f = a->k / (4.0 * 3.14159265358979323846);
    /* -j f (L_phi + eta N_theta); j f (L_theta - eta N_phi) */
    const double ar = lp_r + a->eta * nt_r, ai = lp_i + a->eta * nt_i;
    const double br = lt_r - a->eta * np_r, bi = lt_i - a->eta * np_i;
    a->out[4 * d] = f * ai, a->out[4 * d + 1] = -f * ar;
    a->out[4 * d + 2] = -f * bi, a->out[4 * d + 3] = f * br;
  }
}

#endif /* HD_FDTD_DFT_H */
