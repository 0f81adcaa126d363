/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/poisson_fft_args.h - the FFT Poisson solve's arguments and each
 * backend's FFT types: cuFFT's on CUDA, FFTW3's on CPUs (hd/poisson_fft.h
 * says how the solve works). */
#ifndef HD_POISSON_FFT_ARGS_H
#define HD_POISSON_FFT_ARGS_H

#include "poisson.h"

#if defined(HD_BACKEND_CUDA)
#include <cufft.h>
#if defined(HD_REAL_FLOAT)
typedef cufftComplex hd_fft_complex;
#define HD_CUFFT_R2C CUFFT_R2C
#define HD_CUFFT_C2C CUFFT_C2C
#define HD_CUFFT_EXEC cufftExecR2C
#define HD_CUFFT_EXEC_C2C cufftExecC2C
#else
typedef cufftDoubleComplex hd_fft_complex;
#define HD_CUFFT_R2C CUFFT_D2Z
#define HD_CUFFT_C2C CUFFT_Z2Z
#define HD_CUFFT_EXEC cufftExecD2Z
#define HD_CUFFT_EXEC_C2C cufftExecZ2Z
#endif
#else
#include <fftw3.h>
#if defined(HD_REAL_FLOAT)
#define HD_FFTW(name) fftwf_##name
#else
#define HD_FFTW(name) fftw_##name
#endif
#endif

typedef struct hd_pois_fft_args {
  hd_pois_level lv;   /* u, f (array row 0 is global row row0), n, h2 (the residual's) */
  hd_real *x;         /* CPU: the block's interior rows jlo .. jhi - 1, ld values apart; CUDA: m folded lines of n */
  const hd_real *eig; /* (4 / h^2) sin^2(k pi / 2n), k = 1 .. m, times (2n)^2 */
  hd_idx m, ld;
  hd_idx row0, jlo, jhi; /* CUDA: 0, 1, n (the whole grid) */
#if defined(HD_BACKEND_CUDA)
  const hd_fft_complex *c; /* the FFTs of x's lines, nh = n / 2 + 1 values each */
  hd_fft_complex *z;       /* pairs of lines' odd extensions, 2n values a pair (split: the even modes', n) */
  const hd_fft_complex *zf; /* their FFTs */
  hd_real *v;              /* split: the lines' odd modes, reordered for a real FFT of n / 2 */
  const hd_fft_complex *vf; /* their FFTs, n / 4 + 1 values each */
  const hd_real *sine;     /* sin(pi a / n), a = 0 .. n / 2 */
  hd_idx nh;
  int split;               /* the inverse transforms split in halves (even n) */
#else
  hd_real *y;            /* columns jlo .. jhi - 1 (of x's indices), m values each, ld apart */
  hd_real *pack;         /* the transposes' buffer, the blocks' shares in block order */
  const hd_idx *lo, *hi; /* interior rows of every block */
  const hd_idx *at;      /* where each block's share starts in pack */
  hd_idx stride;         /* between its columns there (one block: pack is y, ld) */
  int parts;
  HD_FFTW(plan) plan;    /* RODFT00 of m values in place */
#endif
} hd_pois_fft_args;

#endif /* HD_POISSON_FFT_ARGS_H */
