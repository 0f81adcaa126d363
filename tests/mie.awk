# SPDX-License-Identifier: BSD-3-Clause
# Bistatic radar cross-section of a PEC sphere of radius `a` by the Mie
# series (Bohren & Huffman 1983, sec. 4.4 with m -> infinity: a_n =
# psi_n'/xi_n', b_n = psi_n/xi_n), beside hd-fdtd's far-field CSV.
# The plane wave arrives from theta = 0 (travels along -z), E along x:
# the scattering angle is 180 - theta, the azimuth from E is phi, and
#   sigma = 4 pi / k^2 (|S2|^2 cos^2 phi + |S1|^2 sin^2 phi).
# Usage: awk -F, -v a=RADIUS -v f=FREQUENCY -f mie.awk PREFIX_farfield.csv
# prints "theta phi sigma_fdtd sigma_mie" for the rows at that frequency.
function mie(x, n, k, p0, p1, c0, c1, t) {
  p0 = cos(x); p1 = sin(x); c0 = -sin(x); c1 = cos(x) # psi_-1, psi_0, chi_-1, chi_0
  N = int(x + 4 * x ^ (1 / 3) + 2)
  for (n = 1; n <= N; ++n) {
    ps[n] = (2 * n - 1) / x * p1 - p0; ch[n] = (2 * n - 1) / x * c1 - c0
    dps = p1 - n * ps[n] / x; dch = c1 - n * ch[n] / x # psi_n' = psi_n-1 - n psi_n / x
    # xi = psi - j chi; a_n = psi'/xi', b_n = psi/xi
    t = dps * dps + dch * dch; ar[n] = dps * dps / t; ai[n] = dps * dch / t
    t = ps[n] * ps[n] + ch[n] * ch[n]; br[n] = ps[n] * ps[n] / t; bi[n] = ps[n] * ch[n] / t
    p0 = p1; p1 = ps[n]; c0 = c1; c1 = ch[n]
  }
}
BEGIN { pi = 3.141592653589793; kk = 2 * pi * f / 299792458.0; mie(kk * a) }
NR > 1 && ($1 - f) ^ 2 < (1e-6 * f) ^ 2 {
  mu = -cos($2 * pi / 180) # cos of the scattering angle
  pm = 0; pn = 1; s1r = s1i = s2r = s2i = 0
  for (n = 1; n <= N; ++n) {
    tn = n * mu * pn - (n + 1) * pm
    e = (2 * n + 1) / (n * (n + 1))
    s1r += e * (ar[n] * pn + br[n] * tn); s1i += e * (ai[n] * pn + bi[n] * tn)
    s2r += e * (ar[n] * tn + br[n] * pn); s2i += e * (ai[n] * tn + bi[n] * pn)
    pp = ((2 * n + 1) * mu * pn - (n + 1) * pm) / n; pm = pn; pn = pp
  }
  cp = cos($3 * pi / 180); sp = sin($3 * pi / 180)
  print $2, $3, $(NF - 1), 4 * pi / kk ^ 2 * ((s2r ^ 2 + s2i ^ 2) * cp ^ 2 + (s1r ^ 2 + s1i ^ 2) * sp ^ 2)
}
