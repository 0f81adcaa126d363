#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The passes beside hd-fdtd's march, timed against it on one backend:
#   sh bench/fdtd_passes.sh BIN BACKEND N STEPS [PRECISION]
# - the absorbing layers: the built-in benchmark (doc/fdtd.md) of N^3
#   cells with Mur, then with 8 layers of PML and of CPML on every face;
#   the layers' time a step over the run with Mur, per layer point and as
#   GB/s of the bytes a point must move (its 24-byte record, its two split
#   parts or psi read and written, the field written: 44 bytes in single,
#   64 in double; the fields it reads are its neighbours', mostly cached);
# - the scattered-field plane wave: N^3 cells of 1 mm, a dielectric sphere
#   (eps_r 4) of radius 0.3 N mm, CPML, driven by the plane wave against
#   the same model driven by a soft source; the difference per point of
#   the medium (three E components a cell) and as GB/s of the bytes a
#   point moves (its 24-byte record, its material, the field read and
#   written: 33 in single, 41 in double), two waveform evaluations a point
#   besides.
set -u
bin=$1 backend=$2 n=$3 steps=$4 prec=${5:-single}
run() { "$bin" --backend="$backend" --precision="$prec" --progress=0 "$@" 2>&1; }
key() { sed -n "s/^$1: //p"; }
real=$([ "$prec" = single ] && echo 4 || echo 8)

printf '%-28s %14s %12s %10s %12s %8s\n' pass "Mcell.st/s" "ms a step" points "ns a point" "GB/s"
base=$(run --bench="$n" --steps="$steps" | key seconds_per_step)
printf '%-28s %14.1f %12.4f\n' "march, Mur" "$(awk -v s="$base" -v n="$n" 'BEGIN { print n * n * n / s / 1e6 }')" \
  "$(awk -v s="$base" 'BEGIN { print 1e3 * s }')"
for b in pml cpml; do
  s=$(run --bench="$n" --steps="$steps" --boundary=$b --pml=8,3,1e-6 | key seconds_per_step)
  awk -v s="$s" -v b0="$base" -v n="$n" -v b="$b" -v r="$real" 'BEGIN {
    p = 6 * ((n + 17) ^ 3 - (n + 1) ^ 3); d = s - b0; by = (r == 4 ? 44 : 64)
    printf "%-28s %14.1f %12.4f %10.0f %12.3f %8.1f\n", "march + " b " layers (8)", n * n * n / s / 1e6, 1e3 * d, p,
      1e9 * d / p, (d > 0 ? p * by / d / 1e9 : 0) }'
done

model=$(awk -v n="$n" 'BEGIN { h = n * 0.0005; r = 0.3 * n * 0.001
  printf "--xmesh=%g,%d,%g --ymesh=%g,%d,%g --zmesh=%g,%d,%g --material=4,0,1,0 --geometry=2,sphere,0,0,0,%g", -h, n, h, -h, n, h, -h, n, h, r }')
f=$(awk -v n="$n" 'BEGIN { print 299792458 / (20 * 0.001) }') # 20 cells a wavelength
common="$model --boundary=cpml --frequency=$f --steps=$steps --converge=0 --volume=no --slice=none --output=/tmp/hd-passes"
# shellcheck disable=SC2086
s0=$(run $common --source=Z,0,0,0,1 | key steps_seconds)
# shellcheck disable=SC2086
s1=$(run $common --planewave="90,0,V" --planewave-form=sf | key steps_seconds)
awk -v s0="$s0" -v s1="$s1" -v n="$n" -v st="$steps" -v r="$real" 'BEGIN {
  r = 0.3 * n; p = 3 * 4 / 3 * 3.14159265 * r * r * r; d = (s1 - s0) / st
  printf "%-28s %14.1f %12.4f %10.0f %12.3f %8.1f\n", "scattered-field plane wave", n * n * n * st / s1 / 1e6, 1e3 * d, p,
    1e9 * d / p, (d > 0 ? p * (25 + 2 * r) / d / 1e9 : 0) }'
rm -f /tmp/hd-passes*
