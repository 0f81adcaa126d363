#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The CUDA marches' faster paths against their plain forms, byte for byte:
# the materials read from segments that share one (hd_fdtd_uniform_build;
# HD_FDTD_SEGMENTS=0 reads every node's) and the volume transform's
# samples taken by the H march (HD_FDTD_FUSED_SAMPLE=0: a pass of their
# own).  Every file a run writes (records, fields, the volume's phasors, a
# checkpoint a step before the end with every array of the state) and its
# summary but for timings, under boundaries where the march takes the
# samples (Mur on E, PEC) and where it may not (PML's H layers, Mur on H,
# periodic axes), in both precisions.  Needs a GPU: skipped without one.
set -u
. "${top_srcdir:-.}/tests/cli_lib.sh"
bin=$top/drivers/hd-fdtd

case " $("$bin" --version | sed -n 's/^backends: //p') " in
*" cuda "*) ;;
*) echo "1..0 # SKIP no CUDA backend in this build" && exit 0 ;;
esac
# the sanitizer's model (every kind of part), longer, with the volume's
# phasors at three frequencies
grep -v -E '^(steps|slice) ' "$src/tests/fdtd_sanitize.in" >model.in
printf 'steps = 150\nfrequencies = 4e9 8e9 3\nnearvolume = yes\nslice = none\n' >>model.in
if ! "$bin" --progress=0 --input=model.in --backend=cuda --steps=1 --nearvolume=no --output=probe >/dev/null 2>&1; then
  echo "1..0 # SKIP no CUDA device here" && exit 0
fi
summary() { grep -v -E '^(wall_seconds|mcells_steps_per_second|steps_seconds|steps_mcells_steps_per_second|host_peak_gb|progress):' "$1"; }

# same NAME ARGS...: the faster paths' outputs as the plain ones'
same() {
  name=$1
  shift
  rm -rf fast plain && mkdir fast plain
  (cd fast && "$bin" --progress=0 --input=../model.in --backend=cuda --checkpoint-every=149 --output=o "$@" >stdout 2>stderr)
  r1=$?
  (cd plain && HD_FDTD_SEGMENTS=0 HD_FDTD_FUSED_SAMPLE=0 "$bin" --progress=0 --input=../model.in --backend=cuda \
    --checkpoint-every=149 --output=o "$@" >stdout 2>stderr)
  r2=$?
  bad=""
  for f in fast/o*; do cmp -s "$f" "plain/${f#fast/}" || bad="$bad ${f#fast/}"; done
  [ "$(ls fast | wc -l)" -eq "$(ls plain | wc -l)" ] || bad="$bad (file count)"
  summary fast/stdout >fast/s && summary plain/stdout >plain/s && cmp -s fast/s plain/s || bad="$bad (summary)"
  [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && [ -z "$bad" ]
  result $? "CUDA $name: material segments and the march's volume samples give the plain paths' outputs$bad"
  [ $r1 -eq 0 ] || sed 's/^/# fast: /' fast/stderr | tail -n 3
  [ $r2 -eq 0 ] || sed 's/^/# plain: /' plain/stderr | tail -n 3
}

for p in single double; do
  same "Mur on E, $p, the volume every step" --boundary=mur --precision=$p --dft-decimation=1
  same "Mur on E, $p, the volume decimated" --boundary=mur --precision=$p --dft-decimation=auto
  same "PEC, $p" --boundary=pec --precision=$p --dft-decimation=3
  same "PML, $p" --boundary=pml --pml=4,3,1e-4 --precision=$p
  same "Mur on H, $p" --boundary=mur --mur=h --precision=$p
  same "periodic x, y + Mur on z, $p" --boundary=periodic --boundary-z=mur --precision=$p
done
same "Mur on E, pairs of nodes off (--block=48,4,8)" --boundary=mur --precision=single --block=48,4,8
finish
