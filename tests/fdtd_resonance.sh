#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Resonances by the matrix pencil (--resonances) against exact answers, in a
# closed PEC box 1 x 0.6 x 0.8 m rung by a modulated Gaussian:
#  - filled with a lossy medium (Q = 201.159 for every mode: sigma = w0
#    eps0 / Q at the (1,0,1) mode's w0): its (1,0,1) mode within 2e-5 of
#    the Yee scheme's own complex frequency (the root of its lossy update's
#    quadratic), Q within 0.5 % of 201.159;
#  - lossless at 10, 20 and 40 cells a metre: the (1,0,1) mode within 1e-6
#    of the Yee frequency at each, nearer the analytic one as the cell
#    shrinks, and the close (1,1,1) and (2,0,1) modes (2 % apart) both
#    found within 1e-6;
#  - the CSV's columns, the errors of clean modes below 1e-6, and bad
#    bands refused;
#  - checkpointed and resumed: the same modes byte for byte;
#  - stop-when-decayed in the lossy box: the run stops at the same step
#    whatever the step budget (its probe down 1e-3 in energy).
set -u
export OMP_NUM_THREADS=1
. "${top_srcdir:-.}/tests/cli_lib.sh"
bin=$top/drivers/hd-fdtd

box() { # cells a metre, sigma, band
  cat >box.in <<IN
xmesh = 0 $1 1
ymesh = 0 $(awk -v r=$1 'BEGIN { print 0.6 * r }') 0.6
zmesh = 0 $(awk -v r=$1 'BEGIN { print 0.8 * r }') 0.8
boundary = pec
material = 1 $2 1 0
geometry = 2 box 0 1 0 0.6 0 0.8
source = Y 0.23 0.31 0.27 1
source = X 0.61 0.17 0.53 1
source = Z 0.37 0.43 0.19 1
probe = ey 0.61 0.29 0.43
waveform = mgaussian
frequency = 3e8
bandwidth = 1.5e8
steps = $(awk -v r=$1 'BEGIN { print 300 * r }')
resonances = $3
volume = no
slice = none
IN
}

# the Yee scheme's mode (p, q, r) of the box at r cells a metre, conductivity s: "f Q"
yee() {
  awk -v m=$1 -v n=$2 -v l=$3 -v r=$4 -v s=$5 -v dt="$(awk -F': ' '$1 == "dt" { print $2 }' stdout)" 'BEGIN {
    pi = 3.141592653589793; c = 299792458; e0 = 8.8541878128e-12; mu = 1.25663706212e-6; e0 = 1 / (mu * c * c); d = 1 / r
    K = (2 / d * sin(m * pi * d / 2)) ^ 2 + (2 / d * sin(n * pi * d / 0.6 / 2)) ^ 2 + (2 / d * sin(l * pi * d / 0.8 / 2)) ^ 2
    # (e/dt + s/2) z^2 + (dt K / mu - 2 e/dt) z + (e/dt - s/2) = 0, the root with Im > 0
    a = e0 / dt + s / 2; b = dt * K / mu - 2 * e0 / dt; cc = e0 / dt - s / 2
    disc = b * b - 4 * a * cc; zr = -b / (2 * a); zi = sqrt(-disc) / (2 * a)
    w = atan2(zi, zr) / dt; al = -log(sqrt(zr * zr + zi * zi)) / dt
    printf "%.12e %.9g\n", w / (2 * pi), w / (2 * al) }'
}
mode() { # the CSV's mode nearest f: "f Q error"
  awk -F, -v f=$1 'NR > 1 { d = $2 - f; if (d < 0) d = -d; if (best == "" || d < best) { best = d; line = $2 " " $3 " " $6 } } END { print line }' out_resonances.csv
}
rel() { awk -v a=$1 -v b=$2 'BEGIN { d = (a - b) / b; printf "%.2e", d < 0 ? -d : d }'; }

# the lossy box at 20 cells a metre
f0=$(awk 'BEGIN { print 299792458 / 2 * sqrt(1 + 1 / 0.64) }')
sigma=$(awk -v f=$f0 'BEGIN { print 2 * 3.141592653589793 * f * 8.8541878128e-12 / 201.159 }')
box 20 "$sigma" "2e8 2.8e8"
run --input=box.in
set -- $(yee 1 0 1 20 "$sigma") $(mode 2.4e8)
ef=$(rel "${3:-0}" "${1:-1}") eq=$(rel "${4:-0}" 201.159)
[ "$(cat rc)" -eq 0 ] && [ $# -eq 5 ] && awk -v a=$ef -v b=$eq 'BEGIN { exit !(a <= 2e-5 && b <= 5e-3) }'
result $? "the lossy box's (1,0,1) mode: f within 2e-5 of the Yee scheme's ($ef), Q ${4:-?} within 0.5 % of 201.159 ($eq; the scheme's own ${2:-?})"
head -1 out_resonances.csv | grep -qx 'probe,frequency_hz,q,amplitude,phase,error' && grep -q '^resonance: ey(12;5;9): 2\.39' stdout &&
  grep -q '^resonances: [1-9][0-9]* between 2e+08 and 2.8e+08 Hz from' stdout
result $? "the modes printed and in PREFIX_resonances.csv (probe, frequency_hz, q, amplitude, phase, error)"

# checkpointed and resumed: the records before the checkpoint come back with it
cp out_resonances.csv straight.csv
run --input=box.in --checkpoint-every=2500 --output=ck
run --input=box.in --restart=ck.ckpt.000000005000 --output=ck
[ "$(cat rc)" -eq 0 ] && cmp -s straight.csv ck_resonances.csv
result $? "resonances of a run checkpointed at step 5000 and resumed: the straight run's CSV byte for byte"
bad 2 "parameters differ: 'probe_records=6000 steps' in the checkpoint, 'probe_records=7000 steps' now" \
  --input=box.in --restart=ck.ckpt.000000005000 --steps=7000
grep -v '^resonances' box.in >plain.in
run --input=plain.in --checkpoint-every=3000 --output=pl
bad 2 "'probe_records=6000 steps' in this run, not in the checkpoint" --input=box.in --restart=pl.ckpt.000000003000

# lossless at three resolutions: the Yee frequency, and the analytic one approached
last=1
for r in 10 20 40; do
  box $r 0 "2e8 4e8"
  run --input=box.in
  set -- $(yee 1 0 1 $r 0) $(mode "$f0")
  e=$(rel "${3:-0}" "${1:-1}") a=$(rel "${3:-0}" "$f0")
  [ "$(cat rc)" -eq 0 ] && [ $# -eq 5 ] && awk -v e=$e -v a=$a -v l=$last -v x="${5:-1}" 'BEGIN { exit !(e <= 1e-6 && a < l && x < 1e-6) }'
  result $? "the lossless box at $r cells a metre: (1,0,1) within 1e-6 of the Yee frequency ($e), $a from the analytic one (falling), error estimate ${5:-?}"
  last=$a
  if [ $r = 20 ]; then
    set -- $(yee 1 1 1 20 0) $(mode 3.46e8) $(yee 2 0 1 20 0) $(mode 3.54e8)
    e1=$(rel "${3:-0}" "${1:-1}") e2=$(rel "${8:-0}" "${6:-1}")
    [ $# -eq 10 ] && awk -v a=$e1 -v b=$e2 'BEGIN { exit !(a <= 1e-6 && b <= 1e-6) }'
    result $? "two modes 2 % apart, (1,1,1) and (2,0,1), both within 1e-6 of the Yee frequencies ($e1, $e2)"
  fi
done

# stop-when-decayed: the same stop under two budgets
box 20 "$sigma" "2e8 2.8e8"
stops=
for budget in 20000 40000; do
  run --input=box.in --steps=$budget --stop-when-decayed=ey,0.61,0.29,0.43,1e-3
  grep -q '^decayed: yes$' stdout && stops="$stops $(awk -F': ' '$1 == "steps" { print $2 }' stdout)"
done
set -- $stops
[ $# -eq 2 ] && [ "$1" = "$2" ] && [ "$1" -lt 20000 ]
result $? "stop-when-decayed: the lossy box stops at step ${1:-?} under budgets of 20000 and 40000 (${2:-?})"
bad 2 "stop-when-decayed: expected 'COMP X Y Z FACTOR'" --input=box.in --stop-when-decayed=ey,0.5,0.3,0.4,2
bad 2 "stop-when-decayed: probe: 'qq' is not ex..hz" --input=box.in --stop-when-decayed=qq,0.5,0.3,0.4,1e-3
bad 2 "resonances: expected 'FMIN FMAX" --input=box.in --resonances=3e8,2e8
bad 2 "resonances: a sine never stops" --input=box.in --waveform=sine
grep -v '^probe' box.in >noprobe.in
bad 2 "resonances: give a probe" --input=noprobe.in
finish
