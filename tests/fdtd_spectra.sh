#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hd-fdtd's frequency-domain results against what physics and the discrete
# scheme demand:
#  - a short dipole: pattern sin^2(theta) within 0.2 dB over 20..160
#    degrees, directivity 1.5 (1.76 dBi) within 0.1 dB, the power accepted
#    at the feed radiated through the far-field sphere within 2 %;
#  - a half-wave dipole: directivity 1.64 (2.15 dBi) within 0.15 dB, power
#    balance within 2 %;
#  - a lossless, reciprocal two-port (excite=all): S21 = S12 to 1e-6,
#    |S11|^2 + |S21|^2 = 1 within 1 %; Touchstone written;
#  - a near-field map equals the DFT of probe records in a cell, every
#    step's or decimated (the records' every D-th step); auto's decimation
#    within 1e-6 of every step's, through checkpoints byte for byte;
#  - a PEC sphere under a plane wave: bistatic RCS against the Mie series
#    within 1 dB wherever within 20 dB of its peak at ka = 1 and 3, the
#    monostatic within 0.5 dB; an empty total-field box scatters nothing;
#  - serial and OpenMP give the same bytes; bad values are refused.
set -u
# one OpenMP thread a run: under make -j the suite's runs share the cores,
# and oversubscribed threads spin at every barrier of these small models
export OMP_NUM_THREADS=1
. "${top_srcdir:-.}/tests/cli_lib.sh"
bin=$top/drivers/hd-fdtd

# the plots a run draws: PNGs named on plot: lines, or none without libpng
plots_made() { # files...
  for f in "$@"; do
    if grep -q '^#define HD_HAVE_PNG' "$config_h"; then
      head -c 8 "$f" | od -An -c | grep -q 'P   N   G' && grep -q "^plot: $f$" stdout || return 1
    else
      [ ! -e "$f" ] || return 1
    fi
  done
}

# array K (0-based) of N float64 values from a raw-appended .vti/.vtr, one a line
vtk_array() { # file, K, N
  start=$(( $(grep -boa '<AppendedData encoding="raw">' "$1" | cut -d: -f1) + 31 ))
  od -An -v -t f8 -w8 -j $((start + $2 * (8 + $3 * 8) + 8)) -N $(($3 * 8)) "$1"
}

# the short dipole
run --input="$src/tests/fdtd_hertz.in"
result $([ "$(cat rc)" -eq 0 ] && [ -s out_farfield.csv ] && [ -s out_ports.csv ] && [ -s out.s1p ] && echo 0 || echo 1) \
  "a short dipole runs and writes the far field, the port and its Touchstone file"
sed -n 's/^farfield_\([0-9]\).*directivity \([-0-9.]*\) dBi.*efficiency \([0-9.]*\)$/\1 \2 \3/p' stdout >ff
result $(awk '{ d = $2 - 10 * log(1.5) / log(10); if (d < 0) d = -d; if (d > 0.1) bad = 1; n++ } END { exit !(n == 3 && !bad) }' ff &&
  echo 0 || echo 1) "short dipole: directivity 1.76 dBi within 0.1 dB at all three frequencies ($(awk '{ printf "%s ", $2 }' ff))"
result $(awk '{ if ($3 < 0.98 || $3 > 1.02) bad = 1; n++ } END { exit !(n == 3 && !bad) }' ff && echo 0 || echo 1) \
  "short dipole: radiated over accepted power within 2 % ($(awk '{ printf "%s ", $3 }' ff))"
worst=$(awk -F, 'NR > 1 && $3 == 0 && $2 >= 20 && $2 <= 160 {
  s = sin($2 * 3.14159265358979 / 180); d = $8 - 10 * log(1.5 * s * s) / log(10); if (d < 0) d = -d; if (d > w) w = d }
  END { printf "%.4f", w }' out_farfield.csv)
result $(awk -v w="$worst" 'BEGIN { exit !(w < 0.2) }' && echo 0 || echo 1) \
  "short dipole: pattern 1.5 sin^2(theta) within 0.2 dB over theta 20..160 (worst $worst dB)"
head -n 2 out.s1p | grep -q '^# Hz S RI R 50$' && [ "$(grep -c '^[0-9]' out.s1p)" -eq 3 ] &&
  awk -F, 'NR == 2 { print $10, $11 }' out_ports.csv >g1 && awk 'NR == 3 { print $2, $3 }' out.s1p >g2 &&
  awk 'NR == FNR { a = $1; b = $2; next } { exit !($1 == a && $2 == b) }' g1 g2
result $? "the .s1p holds S11 of the feed at each frequency, as in the ports CSV"
plots_made out_ports.png out_impedance.png out_pattern.png
result $? "plots: reflection and impedance against frequency, the E- and H-plane patterns"
peak=$(awk -F, 'NR == 2 { f = $1 } NR > 1 && $1 == f && (m == "" || $8 > m) { m = $8 } END { printf "%.4f", m }' out_farfield.csv)
grep -aq '<StructuredGrid WholeExtent="0 72 0 36 0 0">' out_farfield.vts &&
  [ "$(grep -ac 'Name="directivity_dBi_f[123]"' out_farfield.vts)" -eq 3 ] &&
  grep -q "^farfield_1: .* directivity $peak dBi" stdout
result $? "the whole sphere for ParaView (.vts): 73 x 37 points, a directivity array a frequency, the summary's peak ($peak dBi)"

# the half-wave dipole of doc/examples at 1 GHz (0.15 m long)
clean_dir
run --input="$src/doc/examples/dipole.in" --frequencies=1e9 --farfield="36 36" --slice=none
line=$(grep '^farfield_1:' stdout)
d=$(echo "$line" | sed -n 's/.*directivity \([-0-9.]*\) dBi.*/\1/p')
e=$(echo "$line" | sed -n 's/.*efficiency \([0-9.]*\).*/\1/p')
result $(awk -v d="${d:-0}" -v e="${e:-0}" 'BEGIN { x = d - 10 * log(1.64) / log(10); if (x < 0) x = -x; exit !(x < 0.15 && e > 0.98 && e < 1.02) }' &&
  echo 0 || echo 1) "half-wave dipole: directivity 2.15 dBi within 0.15 dB ($d), radiated over accepted power within 2 % ($e)"

# the two-port: one run driving each port
clean_dir
run --input="$src/tests/fdtd_twoport.in"
result $([ "$(cat rc)" -eq 0 ] && grep -q '^# Hz S RI R 50$' out.s2p && [ "$(grep -c '^[0-9]' out.s2p)" -eq 6 ] && echo 0 || echo 1) \
  "excite=all: two runs, the S matrix in out.s2p at each frequency"
check=$(awk -F, 'NR > 1 { s[$2, $3, 0] = $4; s[$2, $3, 1] = $5 }
  NR > 1 && $2 == 2 && $3 == 2 {
    r = sqrt((s[2,1,0] - s[1,2,0])^2 + (s[2,1,1] - s[1,2,1])^2) / sqrt(s[2,1,0]^2 + s[2,1,1]^2); if (r > rr) rr = r
    p = s[1,1,0]^2 + s[1,1,1]^2 + s[2,1,0]^2 + s[2,1,1]^2 - 1; if (p < 0) p = -p; if (p > pp) pp = p
    q = s[2,2,0]^2 + s[2,2,1]^2 + s[1,2,0]^2 + s[1,2,1]^2 - 1; if (q < 0) q = -q; if (q > pp) pp = q }
  END { printf "%.2e %.2e", rr, pp }' out_sparams.csv)
result $(echo "$check" | awk '{ exit !($1 < 1e-6) }' && echo 0 || echo 1) "reciprocity: S21 = S12 (largest relative difference ${check% *})"
result $(echo "$check" | awk '{ exit !($2 < 0.01) }' && echo 0 || echo 1) \
  "a lossless two-port: |S11|^2 + |S21|^2 = 1 within 1 % (largest departure ${check#* })"
plots_made out_sparams.png
result $? "plots: the S matrix against frequency"

# a near-field map against the DFT of two probes' records: the map's Hy in
# a cell is the mean of the two Hy samples on its faces, at (n + 3/2) dt
clean_dir
cat >nf.in <<EOF2
xmesh = -0.05 20 0.05
ymesh = -0.05 20 0.05
zmesh = -0.05 20 0.05
feed = Z 0 0 0 1 50
boundary = pml
frequency = 3e9
steps = 400
probe = hy 0.0125 0 0.0175
probe = hy 0.0125 0.005 0.0175
frequencies = 1e9 2e9 2
nearfield = hy z 0.0175
EOF2
# map_vs_probes D: the map's Hy at both frequencies against the records'
# DFT over steps 0, D, 2D, ..., each sample standing for D steps
map_vs_probes() {
  dt=$(sed -n 's/^dt: //p' stdout)
  start=$(( $(grep -boa '<AppendedData encoding="raw">' out_near1.vtr | cut -d: -f1) + 31 ))
  for a in 0 1 2 3; do od -An -t f8 -j $((start + a * (8 + 400 * 8) + 8 + 212 * 8)) -N 8 out_near1.vtr; done >map
  awk -F, -v dt="$dt" -v D="$1" 'NR > 1 && ($1 - 1) % D == 0 { v = 0.5 * ($3 + $4); for (k = 0; k < 2; ++k) { w = 2 * 3.141592653589793 * 1e9 * (k + 1) * ($1 + 0.5) * dt
    re[k] += v * cos(w) * D * dt; im[k] -= v * sin(w) * D * dt } }
    END { for (k = 0; k < 2; ++k) printf "%.12e\n%.9f\n", sqrt(re[k]^2 + im[k]^2), atan2(im[k], re[k]) * 180 / 3.141592653589793 }' out_probes.csv >ref
  worst=$(paste map ref | awk '{ d = $1 - $2; if (d < 0) d = -d; if (NR % 2) d /= ($2 < 0 ? -$2 : $2); if (d > w) w = d } END { printf "%.2e", w }')
  [ "$(wc -l <map)" -eq 4 ] && awk -v w="$worst" 'BEGIN { exit !(w < 1e-6) }'
}
run --input=nf.in --slice=none --volume=no --dft-decimation=1
map_vs_probes 1
mrc=$?
result $({ ! grep -q '^#define HD_HAVE_PNG' "$config_h" || [ -s out_near1.png ]; } && [ $mrc -eq 0 ] && echo 0 || echo 1) \
  "near-field map: amplitude and phase of Hy in a cell = the DFT of its two probes' records (largest difference $worst)"
run --input=nf.in --slice=none --volume=no
every=$(sed -n 's/^dft_every: \([0-9]*\) (auto)$/\1/p' stdout)
map_vs_probes "${every:-1}"
mrc=$?
result $([ $mrc -eq 0 ] && [ "${every:-0}" -gt 1 ] && echo 0 || echo 1) \
  "decimated (auto: dft_every ${every:-?}): the map = the records' DFT over every ${every:-?}th step, each for ${every:-?} steps (largest difference $worst)"
# decimated through a checkpoint: the straight run's map byte for byte; another spacing refused
cp out_near1.vtr straight.vtr
run --input=nf.in --slice=none --volume=no --checkpoint-every=203 --output=ck
run --input=nf.in --slice=none --volume=no --restart=ck.ckpt.000000000203 --output=ck
result $([ "$(cat rc)" -eq 0 ] && cmp -s straight.vtr ck_near1.vtr && echo 0 || echo 1) \
  "decimated, checkpointed at step 203 (mid-window) and resumed: the straight run's map byte for byte"
bad 2 "parameters differ: 'dft_every=${every:-?}' in the checkpoint, 'dft_every=4' now" \
  --input=nf.in --slice=none --volume=no --restart=ck.ckpt.000000000203 --dft-decimation=4
# the decimation's error: with the fields decayed (3000 steps, double) auto's
# maps are every step's to 1e-6 of the peak; twice auto's spacing aliases
for d in 1 auto $((2 * ${every:-1})); do
  run --input=nf.in --steps=3000 --precision=double --nearfield=ez,z,0 --slice=none --volume=no --dft-decimation=$d --output=n$d
done
alias_err() { paste -d, n1_near2.csv "n$1_near2.csv" | awk -F, 'NR > 1 { for (k = 3; k <= 4; ++k) { e = $k - $(k + 4); e = e < 0 ? -e : e
  if (e > w) w = e; if ($k > m) m = $k } } END { printf "%.2e", w / m }'; }
e_auto=$(alias_err auto) e_twice=$(alias_err $((2 * ${every:-1})))
result $(awk -v a="$e_auto" -v b="$e_twice" 'BEGIN { exit !(a < 1e-6 && b > 1e-4) }' && echo 0 || echo 1) \
  "decimation auto (every ${every:-?} steps): maps within $e_auto of the peak of every step's; every $((2 * ${every:-1})) steps: $e_twice"

# the whole volume at once: Ez's amplitude on the middle z layer is the
# near-field map's (17 x 13 x 11 cells; layer 5), to rounding (double)
clean_dir
run --input="$src/tests/fdtd_sanitize.in" --boundary=pml --steps=200 --frequencies="4e9 8e9 2" --nearfield=ez,z,0 --nearvolume=yes --slice=none
vtk_array out_dft1.vtr 4 2431 | sed -n "$((5 * 221 + 1)),$((6 * 221))p" >vol
vtk_array out_near1.vtr 0 221 >map
worst=$(paste vol map | awk '{ d = $1 - $2; d = d < 0 ? -d : d; s = $2 < 0 ? -$2 : $2; if (s > m) m = s; if (d > w) w = d } END { printf "%.2e", w / m }')
result $([ "$(cat rc)" -eq 0 ] && [ -s out_dft2.vtr ] && grep -q "^nearvolume_2: 8e+09 Hz: out_dft2.vtr$" stdout && [ "$(wc -l <vol)" -eq 221 ] &&
  awk -v w="$worst" 'BEGIN { exit !(w < 1e-9) }' && echo 0 || echo 1) \
  "nearvolume: a file a frequency, Ez's amplitude on a layer = the near-field map's (largest difference $worst of the peak)"

# a PEC sphere of radius 0.1 m under a plane wave (tests/fdtd_sphere.in)
# against the Mie series, at ka = 1 and 3
clean_dir
run --input="$src/tests/fdtd_sphere.in" --slice=none --volume=no --output=sph
for f in 477.1345e6 1431.4034e6; do
  v=$(awk -F, -v a=0.1 -v f=$f -f "$src/tests/mie.awk" sph_farfield.csv | awk '{ r[NR] = $3; m[NR] = $4; if ($4 > pk) pk = $4
      if ($1 == 0) { mono = 10 * log($3 / $4) / log(10); mono = mono < 0 ? -mono : mono } }
    END { for (i = 1; i <= NR; ++i) if (m[i] >= pk / 100) { d = 10 * log(r[i] / m[i]) / log(10); d = d < 0 ? -d : d; if (d > w) w = d; ++k }
      printf "%.3f %.3f %d", w, mono, k }')
  result $(echo "$v" | awk '{ exit !($1 < 1 && $2 < 0.5 && $3 > 1000) }' && echo 0 || echo 1) \
    "PEC sphere, ka = $(awk -v f=$f 'BEGIN { printf "%.0f", 2 * 3.141592653589793 * f * 0.1 / 299792458 }'): bistatic RCS within 1 dB of Mie wherever within 20 dB of its peak, monostatic within 0.5 dB (worst, monostatic, directions: $v)"
done
mono=$(sed -n 's/^rcs_1: .* monostatic \([0-9.e+-]*\) m2 .*/\1/p' stdout)
awk -F, -v m="$mono" 'NR > 1 && $2 == 0 && $3 == 0 { d = ($10 - m) / m; exit !(d < 1e-5 && d > -1e-5 && NR == 2) }' sph_farfield.csv
result $? "the monostatic RCS line ($mono m2) is the CSV's direction theta = 0"
plots_made sph_rcs.png
result $? "plots: the bistatic RCS in the E and H planes"
# the empty box: whatever leaves it is leakage of the total-field/scattered-field
# split, round-off along an axis, the line's interpolation obliquely
for wave in "0 0 V:1e-14" "60 30 H:3e-6"; do
  grep -v '^geometry\|^#\|^steps\|^converge' "$src/tests/fdtd_sphere.in" | sed 's/78/40/' >empty.in
  run --input=empty.in --planewave="${wave%:*}" --steps=400 --slice=none --volume=no --output=empty
  peak=$(sed -n 's/^rcs_.* bistatic peak \([0-9.e+-]*\) m2 .*/\1/p' stdout | sort -g | tail -n 1)
  result $(awk -v p="${peak:-1}" -v lim="${wave#*:}" 'BEGIN { exit !(p < lim) }' && echo 0 || echo 1) \
    "plane wave from ${wave%:*} through an empty box: bistatic RCS below ${wave#*:} m2 (sphere's 0.03; leaked $peak)"
done

# the same bytes from the serial and OpenMP backends
cp "$src/tests/fdtd_scatter.in" pw.in
if "$bin" --version | grep -q openmp; then
  for be in serial openmp; do
    mkdir -p "$be"
    "$bin" --input="$src/tests/fdtd_sanitize.in" --boundary=pml --frequencies="4e9 8e9 3" --farfield="6 8" --huygens-margin=2 \
      --nearfield=ez,z,0 --nearvolume=yes --backend=$be --threads=2 --progress=0 --output="$be/o" >/dev/null 2>&1
  done
  cmp -s serial/o_ports.csv openmp/o_ports.csv && cmp -s serial/o_farfield.csv openmp/o_farfield.csv && [ -s serial/o_farfield.csv ] &&
    cmp -s serial/o_near1.vtr openmp/o_near1.vtr && cmp -s serial/o_dft1.vtr openmp/o_dft1.vtr && [ -s serial/o_dft1.vtr ]
  result $? "serial and OpenMP: identical ports, far-field, near-field map and volume files"
  for be in serial openmp; do
    "$bin" --input=pw.in --backend=$be --threads=2 --progress=0 --output="$be/p" >/dev/null 2>&1
  done
  cmp -s serial/p_farfield.csv openmp/p_farfield.csv && [ -s serial/p_farfield.csv ] && cmp -s serial/p.vti openmp/p.vti
  result $? "serial and OpenMP: identical plane-wave far field and fields"
fi
# CUDA where a GPU answers: within 1e-6 of serial in double (FMA contraction
# and the order of the curls differ), every number of both files
if "$bin" --backend=cuda --input="$src/tests/fdtd_sanitize.in" --steps=1 --progress=0 --output=probe >/dev/null 2>&1; then
  mkdir -p serial cuda
  for be in serial cuda; do
    "$bin" --input="$src/tests/fdtd_sanitize.in" --boundary=pml --frequencies="4e9 8e9 3" --farfield="6 8" --huygens-margin=2 \
      --nearfield=ez,z,0 --nearvolume=yes --backend=$be --progress=0 --output="$be/o" >/dev/null 2>&1
    "$bin" --input=pw.in --backend=$be --progress=0 --output="$be/p" >/dev/null 2>&1
  done
  # the maps' amplitudes (arrays 0, 2, 4 of 17 x 13 cells), one number a line, as CSV rows of one field
  for be in serial cuda; do
    start=$(( $(grep -boa '<AppendedData encoding="raw">' $be/o_near1.vtr | cut -d: -f1) + 31 ))
    { echo amplitude; for a in 0 2 4; do od -An -v -t f8 -w8 -j $((start + a * (8 + 221 * 8) + 8)) -N $((221 * 8)) $be/o_near1.vtr; done; } >$be/near.csv
    { echo amplitude; for a in 0 2 4 6 8 10; do vtk_array $be/o_dft2.vtr $a 2431; done; } >$be/vol.csv
  done
  worst=$(for f in o_ports.csv o_farfield.csv near.csv vol.csv p_farfield.csv; do paste -d, "serial/$f" "cuda/$f"; done | awk -F, 'FNR > 1 && NF % 2 == 0 {
    h = NF / 2; for (i = 1; i <= h; ++i) { a = $i; b = $(i + h); s = (a < 0 ? -a : a) + (b < 0 ? -b : b)
      if (a != "" && s > 1e-30) { d = (a - b < 0 ? b - a : a - b) / s; if (d > w) w = d } } }
    END { printf "%.2e", w + 0 }')
  result $(awk -v w="$worst" 'BEGIN { exit !(w < 1e-6) }' && echo 0 || echo 1) \
    "CUDA: ports, far field, near-field map and volume amplitudes, plane-wave far field within 1e-6 of serial (largest relative difference $worst)"
fi

# bad values: one line, exit 2, nothing written
printf 'xmesh = 0 4 1\nymesh = 0 4 1\nzmesh = 0 4 1\nfeed = Z 0.5 0.5 0.5 1 50\nfrequency = 1e8\n' >small.in
bad 2 "frequencies: expected 'F' or 'F0 F1 N'" --input=small.in --frequencies=abc
bad 2 "frequencies: expected 'F' or 'F0 F1 N'" --input=small.in --frequencies="2e9 1e9 3"
bad 2 "farfield: give the frequencies too" --input=small.in --farfield="10 10"
bad 2 "farfield: expected 'NTHETA NPHI'" --input=small.in --frequencies=1e8 --farfield=10
bad 2 "leave no Huygens box" --input=small.in --frequencies=1e8 --farfield="10 10"
bad 2 "excite=all: give the frequencies too" --input=small.in --excite=all
bad 2 "nearvolume: give the frequencies too" --input=small.in --nearvolume=yes
bad 2 "planewave: polarisation 'X' is not V (1) or H (2)" --input=small.in --planewave="0 0 X"
bad 2 "planewave: theta must lie in" --input=small.in --planewave="200 0 V"
bad 2 "planewave: expected 'THETA PHI V|H \[E0\]'" --input=small.in --planewave="10"
bad 2 "planewave: not with periodic boundaries (x)" --input=pw.in --boundary-x=periodic --planewave-form=tfsf
sed 's/^xmesh = .*/xmesh = -0.05 10 0 12 0.05/' pw.in >pwnu.in
bad 2 "planewave: needs a uniform mesh along each axis (x is not)" --input=pwnu.in --planewave-form=tfsf
bad 2 "planewave: material [0-9]* at .* lies outside the total-field box" --input=pw.in --huygens-margin=5 --planewave-form=tfsf
bad 2 "leave no total-field box" --input=small.in --planewave="0 0 V" --planewave-form=tfsf
bad 2 "planewave: the scattered-field form takes no feeds or sources" --input=pw.in --feed="Z 0 0 0 1 50" --planewave-form=sf
bad 2 "planewave: a wave along periodic x needs a non-periodic axis to travel along" --input=pw.in --boundary-x=periodic --planewave="90 0 V"
bad 2 "excite=all: not with a plane wave" --input=pw.in --feed="Z 0 0 0 1 50" --excite=all
finish
