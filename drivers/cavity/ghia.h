/* SPDX-License-Identifier: BSD-3-Clause */
/* Published centreline tables of the lid-driven cavity.
 *
 * Ghia, Ghia & Shin (1982), J. Comput. Phys. 48, 387-411: Tables I and II (u along the vertical line through the centre, v
 * along the horizontal one) for Re = 100 and 1000 (129 x 129 grid) and Re =
 * 5000 and 10000 (257 x 257), and the primary vortex (Table III) for the
 * first two (psi_min 0: not kept here).  At Re = 10000, y = 0.5 Table I
 * prints u = +0.03111; the profile through its neighbours, as every later
 * reading of it, gives -0.03111. */
#ifndef HD_DRV_CAVITY_GHIA_H
#define HD_DRV_CAVITY_GHIA_H

#define GHIA_POINTS 17

typedef struct ghia_case {
  double re;
  double u[GHIA_POINTS], v[GHIA_POINTS];
  double psi_min, x_min, y_min; /* primary vortex */
} ghia_case;

static const double ghia_y[GHIA_POINTS] = {1.0000, 0.9766, 0.9688, 0.9609, 0.9531, 0.8516, 0.7344, 0.6172, 0.5000,
                                           0.4531, 0.2813, 0.1719, 0.1016, 0.0703, 0.0625, 0.0547, 0.0000};
static const double ghia_x[GHIA_POINTS] = {1.0000, 0.9688, 0.9609, 0.9531, 0.9453, 0.9063, 0.8594, 0.8047, 0.5000,
                                           0.2344, 0.2266, 0.1563, 0.0938, 0.0781, 0.0703, 0.0625, 0.0000};

#define GHIA_CASES 4

static const ghia_case ghia_cases[GHIA_CASES] = {
    {100,
     {1.0, 0.84123, 0.78871, 0.73722, 0.68717, 0.23151, 0.00332, -0.13641, -0.20581, -0.21090, -0.15662, -0.10150,
      -0.06434, -0.04775, -0.04192, -0.03717, 0.0},
     {0.0, -0.05906, -0.07391, -0.08864, -0.10313, -0.16914, -0.22445, -0.24533, 0.05454, 0.17527, 0.17507, 0.16077,
      0.12317, 0.10890, 0.10091, 0.09233, 0.0},
     -0.103423, 0.6172, 0.7344},
    {1000,
     {1.0, 0.65928, 0.57492, 0.51117, 0.46604, 0.33304, 0.18719, 0.05702, -0.06080, -0.10648, -0.27805, -0.38289,
      -0.29730, -0.22220, -0.20196, -0.18109, 0.0},
     {0.0, -0.21388, -0.27669, -0.33714, -0.39188, -0.51550, -0.42665, -0.31966, 0.02526, 0.32235, 0.33075, 0.37095,
      0.32627, 0.30353, 0.29012, 0.27485, 0.0},
     -0.117929, 0.5313, 0.5625},
    {5000,
     {1.0, 0.48223, 0.46120, 0.45992, 0.46036, 0.33556, 0.20087, 0.08183, -0.03039, -0.07404, -0.22855, -0.33050,
      -0.40435, -0.43643, -0.42901, -0.41165, 0.0},
     {0.0, -0.49774, -0.55069, -0.55408, -0.52876, -0.41442, -0.36214, -0.30018, 0.00945, 0.27280, 0.28066, 0.35368,
      0.42951, 0.43648, 0.43329, 0.42447, 0.0},
     0.0, 0.0, 0.0},
    {10000,
     {1.0, 0.47221, 0.47783, 0.48070, 0.47804, 0.34635, 0.20673, 0.08344, -0.03111, -0.07540, -0.23186, -0.32709,
      -0.38000, -0.41657, -0.42537, -0.42735, 0.0},
     {0.0, -0.54302, -0.52987, -0.49099, -0.45863, -0.41496, -0.36737, -0.30719, 0.00831, 0.27224, 0.28003, 0.35070,
      0.41487, 0.43124, 0.43733, 0.43983, 0.0},
     0.0, 0.0, 0.0},
};

/* The case for this Reynolds number, or NULL. */
static inline const ghia_case *ghia_find(double re) {
  int k;
  for (k = 0; k < GHIA_CASES; ++k)
    if (re == ghia_cases[k].re) return &ghia_cases[k];
  return 0;
}

/* Erturk, Corke & Gokcol (2005), Int. J. Numer. Meth. Fluids 48, 747-774:
 * steady solutions on a 601 x 601 grid converged to residuals below 1e-10,
 * so their tables carry a far smaller error of their own than Ghia's.  The
 * centreline stations (u along x = 1/2 at 23 heights, v along y = 1/2 at
 * 23 abscissae) for Re = 1000, 2500, 5000, 7500 and 10000, as published
 * on cavityflow.com with the paper. */
#define ERTURK_POINTS 23
#define ERTURK_CASES 5

typedef struct erturk_case {
  double re;
  double u[ERTURK_POINTS], v[ERTURK_POINTS];
} erturk_case;

static const double erturk_y[ERTURK_POINTS] = {0.00, 0.02, 0.04, 0.06, 0.08, 0.10, 0.12, 0.14, 0.16, 0.18, 0.20, 0.50,
                                               0.90, 0.91, 0.92, 0.93, 0.94, 0.95, 0.96, 0.97, 0.98, 0.99, 1.00};
static const double erturk_x[ERTURK_POINTS] = {0.000, 0.015, 0.030, 0.045, 0.060, 0.075, 0.090, 0.105,
                                               0.120, 0.135, 0.150, 0.500, 0.850, 0.865, 0.880, 0.895,
                                               0.910, 0.925, 0.940, 0.955, 0.970, 0.985, 1.000};

static const erturk_case erturk_cases[ERTURK_CASES] = {
    {1000,
     {0.0000, -0.0757, -0.1392, -0.1951, -0.2472, -0.2960, -0.3381, -0.3690, -0.3854, -0.3869, -0.3756, -0.0620,
      0.3838, 0.3913, 0.3993, 0.4101, 0.4276, 0.4582, 0.5102, 0.5917, 0.7065, 0.8486, 1.0000},
     {0.0000, 0.1019, 0.1792, 0.2349, 0.2746, 0.3041, 0.3273, 0.3460, 0.3605, 0.3705, 0.3756, 0.0258,
      -0.4028, -0.4407, -0.4803, -0.5132, -0.5263, -0.5052, -0.4417, -0.3400, -0.2173, -0.0973, 0.0000}},
    {2500,
     {0.0000, -0.1517, -0.2547, -0.3372, -0.3979, -0.4250, -0.4200, -0.3965, -0.3688, -0.3439, -0.3228, -0.0403,
      0.4141, 0.4256, 0.4353, 0.4424, 0.4470, 0.4506, 0.4607, 0.4971, 0.5624, 0.7704, 1.0000},
     {0.0000, 0.1607, 0.2633, 0.3238, 0.3649, 0.3950, 0.4142, 0.4217, 0.4187, 0.4078, 0.3918, 0.0160,
      -0.3671, -0.3843, -0.4042, -0.4321, -0.4741, -0.5268, -0.5603, -0.5192, -0.3725, -0.1675, 0.0000}},
    {5000,
     {0.0000, -0.2223, -0.3480, -0.4272, -0.4419, -0.4168, -0.3876, -0.3652, -0.3467, -0.3285, -0.3100, -0.0319,
      0.4155, 0.4307, 0.4452, 0.4582, 0.4683, 0.4738, 0.4739, 0.4749, 0.5159, 0.6866, 1.0000},
     {0.0000, 0.2160, 0.3263, 0.3868, 0.4258, 0.4426, 0.4403, 0.4260, 0.4070, 0.3878, 0.3699, 0.0117,
      -0.3624, -0.3806, -0.3982, -0.4147, -0.4318, -0.4595, -0.5139, -0.5700, -0.5019, -0.2441, 0.0000}},
    {7500,
     {0.0000, -0.2633, -0.3980, -0.4491, -0.4284, -0.3978, -0.3766, -0.3587, -0.3406, -0.3222, -0.3038, -0.0287,
      0.4123, 0.4275, 0.4431, 0.4585, 0.4723, 0.4824, 0.4860, 0.4817, 0.4907, 0.6300, 1.0000},
     {0.0000, 0.2509, 0.3608, 0.4210, 0.4494, 0.4495, 0.4337, 0.4137, 0.3950, 0.3779, 0.3616, 0.0099,
      -0.3574, -0.3755, -0.3938, -0.4118, -0.4283, -0.4443, -0.4748, -0.5434, -0.5550, -0.2991, 0.0000}},
    {10000,
     {0.0000, -0.2907, -0.4259, -0.4469, -0.4142, -0.3899, -0.3721, -0.3543, -0.3361, -0.3179, -0.2998, -0.0268,
      0.4095, 0.4243, 0.4398, 0.4556, 0.4711, 0.4843, 0.4917, 0.4891, 0.4837, 0.5891, 1.0000},
     {0.0000, 0.2756, 0.3844, 0.4409, 0.4566, 0.4449, 0.4247, 0.4056, 0.3885, 0.3722, 0.3562, 0.0088,
      -0.3538, -0.3715, -0.3895, -0.4078, -0.4256, -0.4411, -0.4592, -0.5124, -0.5712, -0.3419, 0.0000}},
};

static inline const erturk_case *erturk_find(double re) {
  int k;
  for (k = 0; k < ERTURK_CASES; ++k)
    if (re == erturk_cases[k].re) return &erturk_cases[k];
  return 0;
}

/* The first of the 4 node indices along an axis that a sample at x (in
 * [0, 1]) reads. */
static inline long ghia_base(long n, double x) {
  long b = (long)(x * (double)n) - 1;
  if (b > n - 3) b = n - 3;
  return b < 0 ? 0 : b;
}

/* Value of a node field (n + 1 per side, spacing 1/n) at (x, y) by
 * bicubic Lagrange interpolation on the 4 x 4 nodes around it (exact at
 * nodes; fourth order, so it adds nothing to the scheme's error), from an
 * array f holding node (i, j) at (i - i0) + (j - j0) sy: the whole field,
 * or a strip of it holding those nodes. */
static inline double ghia_sample_at(const double *f, long i0, long j0, long sy, long n, double x, double y) {
  const double s[2] = {x * (double)n, y * (double)n};
  long base[2];
  double w[2][4], sum = 0.0;
  int a, p, q;
  base[0] = ghia_base(n, x), base[1] = ghia_base(n, y);
  for (a = 0; a < 2; ++a)
    for (p = 0; p < 4; ++p) {
      double l = 1.0;
      for (q = 0; q < 4; ++q)
        if (q != p) l *= (s[a] - (double)(base[a] + q)) / (double)(p - q);
      w[a][p] = l;
    }
  for (q = 0; q < 4; ++q)
    for (p = 0; p < 4; ++p) sum += w[0][p] * w[1][q] * f[(base[0] + p - i0) + (base[1] + q - j0) * sy];
  return sum;
}

static inline double ghia_sample(const double *f, long n, double x, double y) {
  return ghia_sample_at(f, 0, 0, n + 1, n, x, y);
}

#endif
