/* SPDX-License-Identifier: BSD-3-Clause */
/* Resonances of a ringing record (the `resonances` key): frequency, Q,
 * amplitude and phase of the decaying sinusoids in a band, by the matrix
 * pencil method (Hua & Sarkar, IEEE Trans. ASSP 38, 814, 1990) on the band
 * alone.
 *
 * The band is shifted to zero frequency, low-passed by a windowed sinc
 * and decimated to about three samples a band width, which leaves a few
 * hundred complex samples however fine the time step.  Their Hankel
 * matrix's right singular vectors of the M largest singular values (the
 * modes the data hold above the noise of rounding) give, through the
 * pencil V2 = V1 Z, the modes' poles z = e^{(j w - a) dt'}: the eigenvalues
 * of the M x M matrix pinv(V1) V2.  Amplitudes and phases follow from a
 * least-squares fit of the poles to the samples, corrected for the filter's
 * response at each pole; the error is the relative change of each complex
 * frequency when the fit is repeated on the first two thirds of the
 * samples. */
#include "resonance.h"

#include <stdio.h>

#include "fdtd_module.h"
#include "output.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846
#define RES_TAPS_PER_D 32   /* the low-pass filter's length a decimation step */
#define RES_MAX_SAMPLES 1200 /* decimated samples analysed at most */
#define RES_SV_TOL 1e-6      /* singular values kept: above this fraction of the largest (the filter leaks 1e-4) */

typedef double complex cx;

/* One-sided Jacobi SVD of the m x n column-major a (m >= n): a becomes U S,
 * v (n x n) the right singular vectors, s the column norms. */
static void jacobi_svd(cx *a, long m, int n, cx *v, double *s) {
  int i, j, sweep;
  long k;
  for (i = 0; i < n * n; ++i) v[i] = 0;
  for (i = 0; i < n; ++i) v[(long)i * n + i] = 1;
  for (sweep = 0; sweep < 60; ++sweep) {
    double off = 0;
    for (i = 0; i < n - 1; ++i)
      for (j = i + 1; j < n; ++j) {
        cx *x = a + (long)i * m, *y = a + (long)j * m, g = 0;
        double p = 0, q = 0, t, c, sn, zeta, ag;
        for (k = 0; k < m; ++k) p += creal(x[k] * conj(x[k])), q += creal(y[k] * conj(y[k])), g += conj(x[k]) * y[k];
        ag = cabs(g);
        if (ag <= 1e-15 * sqrt(p * q) || ag == 0) continue;
        off = fmax(off, ag / sqrt(p * q));
        zeta = (q - p) / (2 * ag);
        t = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1 + zeta * zeta));
        c = 1 / sqrt(1 + t * t), sn = c * t;
        {
          const cx e = g / ag; /* rotate x, y by [c, s e; -s conj(e), c] */
          for (k = 0; k < m; ++k) {
            const cx xk = x[k], yk = y[k];
            x[k] = c * xk - sn * conj(e) * yk, y[k] = sn * e * xk + c * yk;
          }
          for (k = 0; k < n; ++k) {
            cx *vi = v + (long)i * n, *vj = v + (long)j * n;
            const cx xk = vi[k], yk = vj[k];
            vi[k] = c * xk - sn * conj(e) * yk, vj[k] = sn * e * xk + c * yk;
          }
        }
      }
    if (off < 1e-14) break;
  }
  for (i = 0; i < n; ++i) {
    double p = 0;
    for (k = 0; k < m; ++k) p += creal(a[(long)i * m + k] * conj(a[(long)i * m + k]));
    s[i] = sqrt(p);
  }
}

/* Eigenvalues of the n x n column-major h (destroyed): Hessenberg by
 * Householder, then shifted QR by Givens rotations with deflation.
 * 0, or -1 when it did not converge. */
static int eigenvalues(cx *h, int n, cx *w) {
  int i, j, k, hi, it = 0;
#define H(r, c) h[(long)(c) * n + (r)]
  for (k = 0; k < n - 2; ++k) { /* Householder on column k below the subdiagonal */
    double norm = 0, alpha;
    cx u[256], d;
    int len = n - k - 1;
    for (i = 0; i < len; ++i) u[i] = H(k + 1 + i, k), norm += creal(u[i] * conj(u[i]));
    norm = sqrt(norm);
    if (norm == 0) continue;
    alpha = norm;
    d = cabs(u[0]) > 0 ? u[0] / cabs(u[0]) : 1;
    u[0] += d * alpha;
    norm = 0;
    for (i = 0; i < len; ++i) norm += creal(u[i] * conj(u[i]));
    norm = sqrt(norm);
    for (i = 0; i < len; ++i) u[i] /= norm;
    for (j = 0; j < n; ++j) { /* H = (I - 2uu*) H */
      cx dot = 0;
      for (i = 0; i < len; ++i) dot += conj(u[i]) * H(k + 1 + i, j);
      for (i = 0; i < len; ++i) H(k + 1 + i, j) -= 2 * u[i] * dot;
    }
    for (j = 0; j < n; ++j) { /* H = H (I - 2uu*) */
      cx dot = 0;
      for (i = 0; i < len; ++i) dot += H(j, k + 1 + i) * u[i];
      for (i = 0; i < len; ++i) H(j, k + 1 + i) -= 2 * dot * conj(u[i]);
    }
  }
  for (hi = n - 1; hi >= 0;) {
    int lo = hi;
    while (lo > 0 && cabs(H(lo, lo - 1)) > 1e-15 * (cabs(H(lo, lo)) + cabs(H(lo - 1, lo - 1)))) --lo;
    if (lo == hi) { /* deflate */
      w[hi] = H(hi, hi), --hi, it = 0;
      continue;
    }
    if (++it > 300) return -1;
    {
      /* Wilkinson shift from the trailing 2 x 2 block (an exceptional one now and then) */
      const cx a = H(hi - 1, hi - 1), b = H(hi - 1, hi), c = H(hi, hi - 1), d = H(hi, hi);
      const cx tr = a + d, det = a * d - b * c, disc = csqrt(tr * tr / 4 - det);
      cx mu = cabs(tr / 2 + disc - d) < cabs(tr / 2 - disc - d) ? tr / 2 + disc : tr / 2 - disc;
      double cs[256];
      cx sn[256];
      if (it % 11 == 0) mu = d + cabs(H(hi, hi - 1));
      for (i = lo; i <= hi; ++i) H(i, i) -= mu;
      for (i = lo; i < hi; ++i) { /* QR: rotations zeroing the subdiagonal */
        const cx x = H(i, i), y = H(i + 1, i);
        const double r = sqrt(creal(x * conj(x)) + creal(y * conj(y)));
        cs[i] = r > 0 ? cabs(x) / r : 1;
        sn[i] = r > 0 ? (cabs(x) > 0 ? x / cabs(x) : 1) * conj(y) / r : 0;
        for (j = i; j <= hi; ++j) {
          const cx p = H(i, j), q = H(i + 1, j);
          H(i, j) = cs[i] * p + sn[i] * q, H(i + 1, j) = -conj(sn[i]) * p + cs[i] * q;
        }
      }
      for (i = lo; i < hi; ++i) /* R Q */
        for (j = lo; j <= (i + 2 < hi ? i + 2 : hi); ++j) {
          const cx p = H(j, i), q = H(j, i + 1);
          H(j, i) = cs[i] * p + conj(sn[i]) * q, H(j, i + 1) = -sn[i] * p + cs[i] * q;
        }
      for (i = lo; i <= hi; ++i) H(i, i) += mu;
    }
  }
#undef H
  return 0;
}

/* Solve the n x n column-major a x = b by Gaussian elimination with partial
 * pivoting (a and b destroyed; x in b): 0, or -1 when singular. */
static int solve(cx *a, cx *b, int n, int nrhs) {
  int i, j, k, r;
  for (k = 0; k < n; ++k) {
    int p = k;
    for (i = k + 1; i < n; ++i)
      if (cabs(a[(long)k * n + i]) > cabs(a[(long)k * n + p])) p = i;
    if (cabs(a[(long)k * n + p]) == 0) return -1;
    if (p != k) {
      for (j = 0; j < n; ++j) {
        const cx t = a[(long)j * n + k];
        a[(long)j * n + k] = a[(long)j * n + p], a[(long)j * n + p] = t;
      }
      for (r = 0; r < nrhs; ++r) {
        const cx t = b[(long)r * n + k];
        b[(long)r * n + k] = b[(long)r * n + p], b[(long)r * n + p] = t;
      }
    }
    for (i = k + 1; i < n; ++i) {
      const cx f = a[(long)k * n + i] / a[(long)k * n + k];
      for (j = k; j < n; ++j) a[(long)j * n + i] -= f * a[(long)j * n + k];
      for (r = 0; r < nrhs; ++r) b[(long)r * n + i] -= f * b[(long)r * n + k];
    }
  }
  for (r = 0; r < nrhs; ++r)
    for (k = n - 1; k >= 0; --k) {
      cx s = b[(long)r * n + k];
      for (j = k + 1; j < n; ++j) s -= a[(long)j * n + k] * b[(long)r * n + j];
      b[(long)r * n + k] = s / a[(long)k * n + k];
    }
  return 0;
}

/* The poles of x[0..k) by the matrix pencil (at most max): their count, -1
 * on failure. */
static int pencil(const cx *x, long k, cx *pole, int max) {
  const int L = (int)(k / 3 > 200 ? 200 : k / 3);
  const long m = k - L;
  cx *a = NULL, *v = NULL, *g = NULL, *rhs = NULL;
  double *s = NULL, smax = 0;
  int i, j, q, M = 0, *keep = NULL, rc = -1;
  if (L < 2) return 0;
  a = (cx *)malloc((size_t)m * (L + 1) * sizeof *a);
  v = (cx *)malloc((size_t)(L + 1) * (L + 1) * sizeof *v);
  s = (double *)malloc((size_t)(L + 1) * sizeof *s);
  keep = (int *)malloc((size_t)(L + 1) * sizeof *keep);
  if (!a || !v || !s || !keep) goto done;
  for (j = 0; j <= L; ++j) /* Hankel: row r, column j = x[r + j] */
    for (i = 0; i < m; ++i) a[(long)j * m + i] = x[i + j];
  jacobi_svd(a, m, L + 1, v, s);
  for (j = 0; j <= L; ++j) smax = fmax(smax, s[j]);
  for (j = 0; j <= L && M < max && M < L / 2; ++j) /* the largest first */
    if (s[j] > RES_SV_TOL * smax) keep[M++] = j;
  for (i = 0; i < M; ++i) /* sorted by s, descending */
    for (j = i + 1; j < M; ++j)
      if (s[keep[j]] > s[keep[i]]) q = keep[i], keep[i] = keep[j], keep[j] = q;
  if (!M) {
    rc = 0;
    goto done;
  }
  /* V1 = V' rows 0..L-1, V2 = rows 1..L (V' = the kept columns of v):
   * pinv(V1) V2 = (V1* V1)^-1 V1* V2 */
  g = (cx *)calloc((size_t)M * M, sizeof *g);
  rhs = (cx *)calloc((size_t)M * M, sizeof *rhs);
  if (!g || !rhs) goto done;
  for (i = 0; i < M; ++i)
    for (j = 0; j < M; ++j) {
      const cx *vi = v + (long)keep[i] * (L + 1), *vj = v + (long)keep[j] * (L + 1);
      cx p = 0, r = 0;
      for (q = 0; q < L; ++q) p += conj(vi[q]) * vj[q], r += conj(vi[q]) * vj[q + 1];
      g[(long)j * M + i] = p, rhs[(long)j * M + i] = r;
    }
  if (solve(g, rhs, M, M) || eigenvalues(rhs, M, pole)) goto done;
  for (i = 0; i < M; ++i) pole[i] = conj(pole[i]); /* pinv(V1) V2 of the right vectors holds the conjugate poles */
  rc = M;
done:
  free(a), free(v), free(s), free(keep), free(g), free(rhs);
  return rc;
}

/* Amplitudes c of the poles fitting x[0..k) in least squares: 0 or -1. */
static int amplitudes(const cx *x, long k, const cx *pole, int M, cx *c) {
  cx *g = (cx *)calloc((size_t)M * M, sizeof *g), *p = (cx *)malloc((size_t)M * sizeof *p);
  long n;
  int i, j, rc = -1;
  if (g && p) {
    for (i = 0; i < M; ++i) c[i] = 0, p[i] = 1;
    for (n = 0; n < k; ++n) {
      for (i = 0; i < M; ++i) {
        c[i] += conj(p[i]) * x[n];
        for (j = 0; j < M; ++j) g[(long)j * M + i] += conj(p[i]) * p[j];
      }
      for (i = 0; i < M; ++i) p[i] *= pole[i];
    }
    rc = solve(g, c, M, 1);
  }
  free(g), free(p);
  return rc;
}

static int by_frequency(const void *a, const void *b) {
  const double x = ((const fdtd_mode *)a)->freq, y = ((const fdtd_mode *)b)->freq;
  return x < y ? -1 : x > y;
}

int fdtd_resonances(const double *y, long n, long stride, double dt, double flo, double fhi, fdtd_mode *out, int max) {
  const double fc = 0.5 * (flo + fhi), band = fhi - flo, fs = 1.0 / dt;
  const long D = (long)fmax(1.0, floor(fs / (1.5 * band))), taps = RES_TAPS_PER_D * D + 1;
  const double cut = 0.6 * band / fs, dtd = dt * (double)D; /* cycles a step: the pass band's edge, past the band's */
  long k = (n - taps) / D + 1, j, t;
  cx *x = NULL, *pole = NULL, *amp = NULL, *pole2 = NULL;
  double *h = NULL;
  int M, M2 = 0, i, got = 0, rc = -1;
  if (!(fhi > flo && flo >= 0 && dt > 0) || max < 1) return -1;
  if (k < 12) return 0; /* too short a record */
  if (k > RES_MAX_SAMPLES) k = RES_MAX_SAMPLES;
  x = (cx *)malloc((size_t)k * sizeof *x);
  h = (double *)malloc((size_t)taps * sizeof *h);
  pole = (cx *)malloc(201 * sizeof *pole), pole2 = (cx *)malloc(201 * sizeof *pole2), amp = (cx *)malloc(201 * sizeof *amp);
  if (!x || !h || !pole || !pole2 || !amp) goto done;
  for (t = 0; t < taps; ++t) { /* Blackman-windowed sinc, unit gain at 0 */
    const double u = (double)t - 0.5 * (double)(taps - 1), w = 0.42 - 0.5 * cos(2 * PI * t / (taps - 1)) + 0.08 * cos(4 * PI * t / (taps - 1));
    h[t] = w * (u == 0 ? 2 * cut : sin(2 * PI * cut * u) / (PI * u));
  }
  {
    double sum = 0;
    for (t = 0; t < taps; ++t) sum += h[t];
    for (t = 0; t < taps; ++t) h[t] /= sum;
  }
  for (j = 0; j < k; ++j) { /* sample j: the filter over y[j D .. j D + taps), shifted by fc */
    cx s = 0;
    for (t = 0; t < taps; ++t) {
      const long q = j * D + t;
      s += h[taps - 1 - t] * y[q * stride] * cexp(-2 * PI * I * fmod(fc * (double)q * dt, 1.0));
    }
    x[j] = s;
  }
  M = pencil(x, k, pole, 200);
  if (M < 0) goto done;
  if (M > 0) M2 = pencil(x, 2 * k / 3, pole2, 200);
  if (M2 < 0) M2 = 0;
  if (M > 0 && amplitudes(x, k, pole, M, amp)) goto done;
  for (i = 0; i < M; ++i) {
    /* s = ln z / dt' around fc; the filter's response to e^{s t}: H = sum h e^{-s (taps - 1 - t) dt} */
    const cx s = clog(pole[i]) / dtd;
    const double f = fc + cimag(s) / (2 * PI), a = -creal(s);
    cx resp = 0, c;
    double err = HUGE_VAL;
    int q2;
    if (!(f >= flo && f <= fhi) || !(a > -1e-6 * 2 * PI * f) || got == max) continue; /* growing past rounding: spurious */
    for (t = 0; t < taps; ++t) resp += h[taps - 1 - t] * cexp(-s * (double)(taps - 1 - t) * dt);
    c = amp[i] / (resp * cexp(s * (double)(taps - 1) * dt)); /* sample 0 is the filter's output at y[taps - 1] */
    for (q2 = 0; q2 < M2; ++q2) { /* the nearest pole of the shorter fit */
      const cx s2 = clog(pole2[q2]) / dtd;
      err = fmin(err, cabs(s2 - s) / cabs(s + 2 * PI * I * fc));
    }
    out[got].freq = f, out[got].q = a != 0 ? PI * f / a : HUGE_VAL; /* a lossless mode's may come out huge and of either sign */
    out[got].amp = 2 * cabs(c), out[got].phase = carg(c);
    out[got].err = err;
    out[got].decay = a;
    ++got;
  }
  qsort(out, (size_t)got, sizeof *out, by_frequency);
  rc = got;
done:
  free(x), free(h), free(pole), free(pole2), free(amp);
  return rc;
}

int fdtd_resonance_parse(fdtd_resonance_band *b, const char *text, char *err, size_t n) {
  char s[128], extra[2];
  int k, got;
  for (k = 0; k + 1 < (int)sizeof s && text[k]; ++k) s[k] = text[k] == ',' ? ' ' : text[k];
  s[k] = '\0';
  b->t0 = -1, b->on = 0;
  got = sscanf(s, "%lf %lf %lf %1s", &b->flo, &b->fhi, &b->t0, extra);
  if (got < 2 || got > 3 || !(b->flo >= 0 && b->fhi > b->flo) || !isfinite(b->fhi) || (got == 3 && !(b->t0 >= 0)))
    return snprintf(err, n, "resonances: expected 'FMIN FMAX [T0]' with 0 <= FMIN < FMAX (Hz) and T0 >= 0 (s)"), -1;
  b->on = 1;
  return 0;
}

#define RES_MAX_MODES 100
#define RES_AMP_FLOOR 1e-4 /* of the band's strongest: weaker ones are the filter's leakage */

int fdtd_resonances_write(const fdtd_resonance_band *b, const fdtd_input *in, const double *rec, long nrec, long steps,
                          long first, double dt, const char *prefix, char *err, size_t n) {
  const int probes = in->npoint ? in->point_first : in->nprobe;
  fdtd_mode mode[RES_MAX_MODES];
  char path[4200];
  hd_out csv;
  int p, k, total = 0;
  snprintf(path, sizeof path, "%s_resonances.csv", prefix);
  if (hd_out_open(&csv, path, err, n)) return -1;
  fprintf(csv.f, "probe,frequency_hz,q,amplitude,phase,error\n");
  for (p = 0; p < probes; ++p) {
    const fdtd_point *pt = &in->probes[p];
    const int got = first < steps ? fdtd_resonances(rec + first * nrec + p, steps - first, nrec, dt, b->flo, b->fhi, mode,
                                                    RES_MAX_MODES)
                                  : 0;
    double top = 0;
    char name[64];
    snprintf(name, sizeof name, "%s(%ld;%ld;%ld)", fdtd_comp_names[pt->comp], pt->i, pt->j, pt->k);
    if (got < 0) {
      hd_out_abort(&csv);
      return snprintf(err, n, "resonances: the analysis of probe %s failed (out of memory or no convergence)", name), -1;
    }
    for (k = 0; k < got; ++k) top = fmax(top, mode[k].amp);
    for (k = 0; k < got; ++k) {
      if (mode[k].amp < RES_AMP_FLOOR * top) continue;
      fprintf(csv.f, "%s,%.12e,%.9g,%.9e,%.6f,%.3e\n", name, mode[k].freq, mode[k].q, mode[k].amp, mode[k].phase, mode[k].err);
      printf("resonance: %s: %.9e Hz, Q %.6g, amplitude %.4g, error %.2g\n", name, mode[k].freq, mode[k].q, mode[k].amp,
             mode[k].err);
      ++total;
    }
  }
  if (hd_out_commit(&csv, err, n)) return -1;
  printf("resonances: %d between %g and %g Hz from %.6g s: %s\n", total, b->flo, b->fhi, (double)first * dt, path);
  return 0;
}
