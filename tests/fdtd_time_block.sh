#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# --time-block=T against single steps: every file a run writes (probe and
# feed records, averages, fields, impedances, S-parameters, voltage
# points, far field, near-field maps on all three axes, the volume's
# phasors, and a checkpoint a step before the end: every array of the
# state at full precision, the running DFTs' sums included) must be
# equal byte for byte, and the summary equal but for its timings.  One small model with every kind of part (lossy, magnetic
# and dispersive media, conductors through the faces, R, L and C loads, a
# feed, a soft source, probes of E and H, a voltage point) on odd sizes,
# under every boundary (Mur on E and on H, PML, CPML, periodic x and y
# with Mur or PML on z, periodic y alone) and a scattered-field plane
# wave; blocks of 2, 3, 4 and 16 steps (the DFT windows and the record
# chunks cut some short), serial and OpenMP on 1 to 3 threads, single and
# double precision; a checkpoint taken inside a run of blocks and resumed.
# What cannot be blocked (a periodic z axis, the total-field box) must say
# so on its time_block line and run single steps.  On CUDA (where a GPU
# answers) the fused march against single steps: Mur on E, PEC, feeds,
# probes, both precisions; what it does not take yet says why.
set -u
. "${top_srcdir:-.}/tests/cli_lib.sh"
bin=$top/drivers/hd-fdtd

backends=$("$bin" --version | sed -n 's/^backends: //p')
cpu=serial
case " $backends " in *" openmp "*) cpu="serial openmp" ;; esac

cat >model.in <<'IN'
xmesh = -0.08 15 0.07
ymesh = -0.07 13 0.06
zmesh = -0.09 17 0.08
material = 3 0.02 1 0
material = 1.5 0 2 300
material = 2 0.001 1 0 debye 1.5 5e-11 drude 2e9 1e9 lorentz 0.8 4e9 2e9
geometry = 2 box -0.06 0.0 -0.05 0.03 -0.09 0.0
geometry = 3 sphere 0.03 0.03 0.02 0.025
geometry = 4 box 0.02 0.07 -0.07 -0.03 0.03 0.08
geometry = 1 box -0.08 -0.03 0.04 0.06 -0.02 0.02
geometry = 1 box 0 0 0 0 -0.03 0.03
load = Z 0.04 -0.04 0.02 R 50
load = Z 0.04 -0.04 0.02 C 1e-12
load = X -0.03 0.04 -0.04 L 5e-9
feed = Z 0 0 0.001 1 50
source = Y -0.05 0.04 -0.03 0.01
probe = ez 0.03 0.02 0.0
probe = hx -0.04 -0.03 0.05
point = Z -0.02 0.03 0.02 +Y
frequency = 3e9
frequencies = 1e9 3e9 3
farfield = 6 12
huygens-margin = 2
nearfield = ex x 0.01
nearfield = hz y -0.02
nearfield = ey z 0.03
nearfield = hx z -0.04
nearvolume = yes
steps = 150
average-every = 50
slice = none
IN
# the plane wave's model: no feeds, sources, loads or points (the scattered-field form takes none)
grep -v -E '^(feed|source|load|point) ' model.in >pw.in
grep -v '^geometry ' pw.in >tf.in # and the total-field box's: nothing outside it
printf 'planewave = 0 0 V\nplanewave-form = sf\n' >>pw.in # normal to the periodic axes

# the summary without its timings, memory peak and time_block line
summary() { grep -v -E '^(wall_seconds|mcells_steps_per_second|steps_seconds|steps_mcells_steps_per_second|host_peak_gb|time_block|progress):' "$1"; }

# same_as_single NAME T BACKEND THREADS [ARGS...]: outputs of T steps a sweep
# against single steps, and the time_block line saying T (model: $model)
model=model.in
same_as_single() {
  name=$1 t=$2 b=$3 th=$4
  shift 4
  rm -rf one blk && mkdir one blk
  (cd one && OMP_NUM_THREADS=$th "$bin" --progress=0 --input="../$model" --backend="$b" --time-block=1 --checkpoint-every=149 --output=o "$@" \
    >stdout 2>stderr)
  r1=$?
  (cd blk && OMP_NUM_THREADS=$th "$bin" --progress=0 --input="../$model" --backend="$b" --time-block="$t" --checkpoint-every=149 --output=o "$@" \
    >stdout 2>stderr)
  r2=$?
  bad_files=""
  for f in one/o*; do
    cmp -s "$f" "blk/${f#one/}" || bad_files="$bad_files ${f#one/}"
  done
  [ "$(ls one | wc -l)" -eq "$(ls blk | wc -l)" ] || bad_files="$bad_files (file count)"
  summary one/stdout >one/s && summary blk/stdout >blk/s && cmp -s one/s blk/s || bad_files="$bad_files (summary)"
  grep -q "^time_block: $t\$" blk/stdout || bad_files="$bad_files (time_block line: $(grep time_block blk/stdout))"
  [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && [ -z "$bad_files" ]
  result $? "$name, $b ($th thread(s)), $t steps a sweep: every output as single steps$bad_files"
  [ $r1 -eq 0 ] || sed 's/^/# single: /' one/stderr | tail -n 3
  [ $r2 -eq 0 ] || sed 's/^/# blocked: /' blk/stderr | tail -n 3
}

for b in $cpu; do
  th=1
  [ "$b" = openmp ] && th=2
  same_as_single "Mur on E" 4 "$b" "$th" --boundary=mur
  same_as_single "Mur on H, released feed" 3 "$b" "$th" --boundary=mur --mur=h --feed-release=yes
  same_as_single "PML" 4 "$b" "$th" --boundary=pml --pml=4,3,1e-4
  same_as_single "CPML, single precision" 16 "$b" "$th" --boundary=cpml --pml=4,3,1e-4 --precision=single
  model=pw.in
  same_as_single "periodic x, y + PML z, scattered-field plane wave" 4 "$b" "$th" --boundary=periodic \
    --boundary-z=pml --pml=4,3,1e-4
  model=model.in
  same_as_single "periodic x, y + Mur on E on z" 2 "$b" "$th" --boundary=periodic --boundary-z=mur
  same_as_single "periodic y + Mur on H" 3 "$b" "$th" --boundary=mur --boundary-y=periodic --mur=h
done
case " $backends " in *" openmp "*)
  same_as_single "Mur on E, 3 threads" 4 openmp 3 --boundary=mur
  same_as_single "PML, 3 threads, single precision" 5 openmp 3 --boundary=pml --pml=4,3,1e-4 --precision=single
  same_as_single "periodic y + Mur on E, 3 threads" 4 openmp 3 --boundary=mur --boundary-y=periodic
  ;;
esac

# what steps singly says why, and its outputs are the single steps'
for case in "periodic z|model.in|--boundary-z=periodic|periodic z axis" \
  "total-field box|tf.in|--planewave=30,40,V --boundary=pml|total-field box"; do
  name=${case%%|*} rest=${case#*|}
  model=${rest%%|*} rest=${rest#*|}
  args=${rest%%|*} why=${rest#*|}
  rm -rf blk && mkdir blk
  # shellcheck disable=SC2086
  (cd blk && "$bin" --progress=0 --input="../$model" --backend=serial --time-block=4 --steps=20 --output=o $args \
    >stdout 2>stderr)
  grep -q "^time_block: 1 (.*$why" blk/stdout
  result $? "$name: steps singly and says why ($(grep time_block blk/stdout))"
done
case " $backends " in *" cuda "*)
  if "$bin" --bench=10 --steps=10 --backend=cuda >/dev/null 2>&1; then
    # the fused march (hd/fdtd_fused_cuda.h): the model without what it does
    # not take yet (loads, dispersive media, the fields' DFTs), four times
    # finer, so that its tiles, their halos and segments of planes meet
    grep -v -E '^(load|nearfield|nearvolume|farfield|huygens-margin) ' model.in |
      sed -e 's/ debye .*//' -e 's/^xmesh = .*/xmesh = -0.08 61 0.07/' -e 's/^ymesh = .*/ymesh = -0.07 53 0.06/' \
        -e 's/^zmesh = .*/zmesh = -0.09 71 0.08/' >cuda.in
    model=cuda.in
    same_as_single "CUDA, Mur on E, feed, soft source, probes" 3 cuda 1 --boundary=mur
    same_as_single "CUDA, Mur on E, 2 steps a launch" 2 cuda 1 --boundary=mur
    same_as_single "CUDA, Mur on E, single precision" 3 cuda 1 --boundary=mur --precision=single
    same_as_single "CUDA, PEC, single precision, 2 steps" 2 cuda 1 --boundary=pec --precision=single
    same_as_single "CUDA, Mur on x and z, PEC on y" 3 cuda 1 --boundary=mur --boundary-y=pec
    model=model.in
    rm -rf blk && mkdir blk
    (cd blk && "$bin" --progress=0 --input=../model.in --backend=cuda --time-block=4 --steps=20 --output=o >stdout 2>stderr)
    grep -q "^time_block: 1 (CUDA time blocks do not take" blk/stdout
    result $? "CUDA: what the fused march does not take yet steps singly and says why ($(grep time_block blk/stdout))"
  else
    n=$((n + 1)) && echo "ok $n # SKIP CUDA: no GPU here"
  fi
  ;;
esac

# a checkpoint between blocks resumed: as the run straight through
rm -rf one blk && mkdir one blk
(cd one && "$bin" --progress=0 --input=../model.in --boundary=pml --pml=4,3,1e-4 --time-block=1 --output=o >stdout 2>&1)
(cd blk && "$bin" --progress=0 --input=../model.in --boundary=pml --pml=4,3,1e-4 --time-block=4 --steps=70 \
  --checkpoint-every=35 --output=o >stdout 2>&1 &&
  "$bin" --progress=0 --input=../model.in --boundary=pml --pml=4,3,1e-4 --time-block=3 --restart="$(ls o.ckpt.* | tail -n 1)" \
    --output=o >stdout 2>&1)
ckpt=$?
cmp -s one/o_probes.csv blk/o_probes.csv && cmp -s one/o_farfield.csv blk/o_farfield.csv && cmp -s one/o_ports.csv blk/o_ports.csv
result $(( ckpt != 0 || $? != 0 )) "a run of blocks checkpointed at step 70 and resumed with other blocks: records, ports and far field as single steps straight through"
finish
