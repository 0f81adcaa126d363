#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A source waveform read from a file (waveform-file):
#  - a table of a run's own waveform at its step times (its 0-ohm feed's
#    recorded gap voltage) drives the same run byte for byte (single
#    precision: the CSV's 10 digits hold every float);
#  - Meep's modulated Gaussian tabulated every 0.13 step, read between
#    its samples, gives the built-in waveform's probe records within
#    the interpolation's error, by a feed, a plane wave by the grid's line
#    and by the closed form (the table on the backend: CUDA's kernels);
#  - a half-wave dipole's impedance from a tone burst (doc/examples) is
#    the Gaussian pulse's;
#  - 0 before the first sample and after the last; beside the input file
#    that names it; checkpointed and resumed byte for byte, and a restart
#    with another table refused;
#  - bad files refused in one line naming the file and line.
set -u
export OMP_NUM_THREADS=2
. "${top_srcdir:-.}/tests/cli_lib.sh"
bin=$top/drivers/hd-fdtd

cat >feed.in <<'IN'
xmesh = 0 12 0.12
ymesh = 0 10 0.1
zmesh = 0 8 0.08
material = 4 0.01 1 0
geometry = 2 box 0.02 0.06 0.02 0.05 0.01 0.04
feed = Z 0.06 0.05 0.015 1 0
probe = ez 0.03 0.03 0.03
probe = hx 0.07 0.04 0.03
frequency = 3e9
timestep = 1e-11
steps = 200
volume = no
slice = none
IN
# the table: feed1_v (column 5) of step s at its E's time s dt, 17 digits
table() { awk -F, 'NR > 1 { printf "%.17g %s\n", $1 * 1e-11, $5 }' "$1"; }

run --input=feed.in --waveform=gaussian --precision=single --output=g
table g_probes.csv >own.txt
run --input=feed.in --waveform-file=own.txt --precision=single --output=t
[ "$(cat rc)" -eq 0 ] && cmp -s g_probes.csv t_probes.csv && grep -q '^waveform: own.txt (200 samples, 1e-11 to 2e-09 s)$' stdout
result $? "a table of the run's own waveform at its step times: the probe records byte for byte, the summary names it"

cat >pw.in <<'IN'
xmesh = 0 24 0.24
ymesh = 0 24 0.24
zmesh = 0 24 0.24
material = 4 0.01 1 0
geometry = 2 box 0.1 0.14 0.1 0.14 0.1 0.14
probe = ez 0.09 0.12 0.12
probe = hx 0.16 0.12 0.11
boundary = cpml
planewave = 30 20 V
frequency = 3e9
timestep = 1e-11
steps = 200
volume = no
slice = none
IN
# the modulated Gaussian of f0 3 GHz, bandwidth 1.5 GHz (tau 1/(pi bw), t0 4 tau) every 1.3 ps (0.13 dt) to 2 ns
awk 'BEGIN { pi = 3.141592653589793; tau = 1 / (pi * 1.5e9); t0 = 4 * tau; print "time_s,value"
  for (k = 0; k <= 1600; k++) { t = k * 1.3e-12; x = (t - t0) / tau; printf "%.17g %.17g\n", t, exp(-x * x) * sin(2 * pi * 3e9 * (t - t0)) } }' >mg.txt
near() { # two probe files: the largest difference of columns 3 and 4 over their largest value, below the bound?
  awk -F, -v b=$3 'NR == FNR { if (FNR > 1) { a[FNR, 3] = $3; a[FNR, 4] = $4 }; next }
    FNR > 1 { for (c = 3; c <= 4; c++) { d = $c - a[FNR, c]; if (d < 0) d = -d; m = $c < 0 ? -$c : $c
      if (d > dm[c]) dm[c] = d; if (m > mx[c]) mx[c] = m } ; k++ }
    END { w = 0; for (c = 3; c <= 4; c++) { if (!(mx[c] > 0)) exit 1; if (dm[c] / mx[c] > w) w = dm[c] / mx[c] }
      printf "%.2e\n", w; exit !(k == 200 && w > 0 && w < b) }' "$1" "$2"
}
for form in feed line closed; do
  case $form in
  feed) args="--input=feed.in" ;;
  line) args="--input=pw.in --planewave-form=sf" ;;
  closed) args="--input=pw.in --planewave-form=sf-closed" ;;
  esac
  run $args --waveform=mgaussian --bandwidth=1.5e9 --output=m$form
  run $args --waveform-file=mg.txt --output=f$form
  w=$(near m${form}_probes.csv f${form}_probes.csv 1e-3)
  result $? "mgaussian tabulated every 0.13 dt drives the $form as the built-in one: probes within $w of their largest"
done

# the half-wave dipole's input impedance does not depend on the waveform that measures it
run --input="$src/doc/examples/dipole.in" --waveform-file="$src/doc/examples/tone_burst.csv" --frequencies=0.9e9,1.1e9,3 \
  --volume=no --slice=none --output=burst
run --input="$src/doc/examples/dipole.in" --frequencies=0.9e9,1.1e9,3 --volume=no --slice=none --output=dg
w=$(awk -F, 'NR == FNR { if (FNR > 1) { r[FNR] = $7; x[FNR] = $8 }; next }
  FNR > 1 { d = sqrt(($7 - r[FNR]) ^ 2 + ($8 - x[FNR]) ^ 2) / sqrt(r[FNR] ^ 2 + x[FNR] ^ 2); if (d > w) w = d; k++ }
  END { printf "%.1e", w; exit !(k == 3) }' dg_ports.csv burst_ports.csv) &&
  awk -v w="$w" 'BEGIN { exit !(w < 2e-4) }'
result $? "the dipole's impedance at 0.9-1.1 GHz from doc/examples' tone burst is the Gaussian pulse's within $w"

awk 'NR > 1 && $1 >= 5e-10' mg.txt >late.txt
run --input=feed.in --waveform-file=late.txt --output=late
[ "$(cat rc)" -eq 0 ] && awk -F, 'NR > 1 && $1 < 50 && $5 != 0 { bad = 1 } NR > 1 && $1 == 51 && $5 == 0 { bad = 1 }
  END { exit bad }' late_probes.csv
result $? "before the table's first sample the waveform is 0 (the feed's voltage), from it on not"
awk 'NR > 1 && $1 <= 1e-9' mg.txt >early.txt
run --input=feed.in --waveform-file=early.txt --output=early
[ "$(cat rc)" -eq 0 ] && awk -F, 'NR > 1 && $1 > 100 && $5 != 0 { bad = 1 } END { exit bad }' early_probes.csv
result $? "after the table's last sample the waveform is 0"

mkdir -p sub && cp mg.txt sub/ && { cat feed.in; echo "waveform-file = mg.txt"; } >sub/model.in
run --input=sub/model.in --output=beside
[ "$(cat rc)" -eq 0 ] && cmp -s beside_probes.csv ffeed_probes.csv && grep -q '^waveform: sub/mg.txt ' stdout
result $? "a waveform-file named in an input file is read beside it"

run --input=feed.in --waveform-file=mg.txt --checkpoint-every=120 --output=ck
run --input=feed.in --waveform-file=mg.txt --restart="$(ls ck.ckpt.* 2>/dev/null | tail -n 1)" --output=ck
[ "$(cat rc)" -eq 0 ] && cmp -s ck_probes.csv ffeed_probes.csv
result $? "checkpointed at step 120 and resumed: the probe records of the run straight through"
awk 'NR == 1 { print; next } { printf "%s %.17g\n", $1, 2 * $2 }' mg.txt >other.txt
bad 2 "sources_crc" --input=feed.in --waveform-file=other.txt --restart="$(ls ck.ckpt.* 2>/dev/null | tail -n 1)"

printf '0 0\n1e-10 1\n5e-11 0\n' >back.txt
printf '# one sample\n0 1\n' >one.txt
printf 'time value\n0 0\n1e-10 x\n' >junk.txt
printf '0 0\n1e-10 inf\n' >inf.txt
bad 2 "waveform-file: cannot open 'none.txt'" --input=feed.in --waveform-file=none.txt
mkfifo fifo.txt 2>/dev/null && bad 2 "waveform-file: cannot open 'fifo.txt': not a regular file" --input=feed.in --waveform-file=fifo.txt
bad 2 "back.txt:3: time 5e-11 is not after the sample before it" --input=feed.in --waveform-file=back.txt
bad 2 "one.txt: 1 sample: a waveform needs at least two" --input=feed.in --waveform-file=one.txt
bad 2 "junk.txt:3: expected 'TIME VALUE'" --input=feed.in --waveform-file=junk.txt
bad 2 "inf.txt:2: the time and the value must be finite" --input=feed.in --waveform-file=inf.txt
bad 2 "waveform-file: give it or a waveform, not both" --input=feed.in --waveform-file=mg.txt --waveform=gaussian
bad 2 "built-in model: give no mesh, geometry, feeds or waveform-file" --bench=10 --waveform-file=mg.txt
finish
