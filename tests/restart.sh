#!/bin/sh
# Checkpoint and restart, for every time-stepping driver and CPU backend:
#  - N steps straight and N/2, checkpoint, restart, N/2 give byte-identical
#    field files (the drivers write fields in full precision);
#  - damaged or foreign checkpoints (truncated, one flipped byte, another
#    format version, another driver, another grid, other parameters) are
#    refused with a message naming the problem, exit 2, nothing written;
#  - SIGTERM and SIGUSR1 write a final checkpoint and exit 0 with the
#    command to continue, SIGINT exits 130;
#  - SIGKILL at random moments while a checkpoint is written every step:
#    the newest complete checkpoint always loads.
set -u
top=$(cd "${top_builddir:-.}" && pwd)
src=$(cd "${top_srcdir:-.}" && pwd)
. "$src/tests/cli_lib.sh"

backends=serial
"$top/drivers/hd-heat" --version | grep -q openmp && backends="$backends openmp"
# CUDA where it works (a GPU is present): the same backend restarts identically too
"$top/drivers/hd-heat" --backend=cuda --n=8 --steps=1 --vti=no --progress=0 --output=probe >/dev/null 2>&1 &&
  backends="$backends cuda"
rm -f probe*

# driver | arguments | final field file suffix
while IFS='|' read -r drv args suffix; do
  bin="$top/drivers/hd-$drv"
  for be in $backends; do
    rm -rf straight half again && mkdir straight half again
    # shellcheck disable=SC2086
    "$bin" $args --steps=40 --backend=$be --progress=0 --output=straight/o >/dev/null 2>&1 &&
      "$bin" $args --steps=40 --backend=$be --progress=0 --output=half/o --checkpoint-every=20 >/dev/null 2>&1 &&
      "$bin" $args --steps=40 --backend=$be --progress=0 --output=again/o --restart=half/o.ckpt.000000000020 \
        >/dev/null 2>&1
    ok=$?
    [ $ok -eq 0 ] && cmp -s "straight/o$suffix" "again/o$suffix" && ok=0 || ok=1
    result $ok "hd-$drv/$be: 40 steps straight and 20 + checkpoint + restart + 20 give identical o$suffix"
  done
done <<CASES
heat|--n=48,40 --init=sphere --csv-every=5|.vti
nbody|--n=300 --ic=plummer --diag-every=5|_000040.vtp
fdtd|--input=$src/tests/fdtd_sanitize.in --boundary=pml --average-every=5|.vtr
cavity|--n=32 --re=100 --steady=0 --monitor-every=5|.vtr
ns|--n=24 --mach=0.5 --frames=1 --png=no --monitor-every=5|_0001.vtr
CASES

# damaged and foreign checkpoints (hd-heat's format is everyone's)
bin="$top/drivers/hd-heat"
rm -rf ck && mkdir ck
"$bin" --n=40 --steps=20 --checkpoint-every=10 --progress=0 --output=ck/h >/dev/null 2>&1
good=ck/h.ckpt.000000000010
size=$(wc -c <"$good")
head -c $((size - 100)) "$good" >trunc.ckpt
cp "$good" flip.ckpt && printf '\125' | dd of=flip.ckpt bs=1 seek=$((size - 5000)) conv=notrunc 2>/dev/null
cp "$good" flipheader.ckpt && printf 'Z' | dd of=flipheader.ckpt bs=1 seek=40 conv=notrunc 2>/dev/null
cp "$good" version.ckpt && printf '\002' | dd of=version.ckpt bs=1 seek=8 conv=notrunc 2>/dev/null
"$top/drivers/hd-cavity" --n=16 --steps=4 --steady=0 --checkpoint-every=2 --progress=0 --output=ck/c >/dev/null 2>&1
restart_bad() { # pattern, checkpoint, grid, extra arguments
  pattern=$1 file=$2 grid=$3
  shift 3
  clean_dir
  "$bin" --n="$grid" --steps=20 --progress=0 --output=out --restart="$file" "$@" >stdout 2>stderr
  rc=$?
  if [ $rc -eq 2 ] && grep -q -- "$pattern" stderr && nothing_written; then
    result 0 "restart from $file refused: $pattern"
  else
    result 1 "restart from $file refused: $pattern (exit $rc)"
    sed 's/^/# /' stderr
  fi
}
restart_bad "truncated in array 'temperature'" trunc.ckpt 40
restart_bad "array 'temperature' is corrupted (CRC mismatch)" flip.ckpt 40
restart_bad "corrupted header" flipheader.ckpt 40
restart_bad "format version 2, this build reads 1" version.ckpt 40
restart_bad "written by hd-cavity, not hd-heat" ck/c.ckpt.000000000002 40
restart_bad "grid 40 x 40 x 1, this run 41 x 40 x 1" "$good" 41,40
restart_bad "parameters differ: 'alpha=1' in the checkpoint, 'alpha=2' now" "$good" 40 --alpha=2
restart_bad "cannot open checkpoint 'none.ckpt'" none.ckpt 40
restart_bad "not an hd checkpoint" "$src/tests/fdtd_sanitize.in" 40

# keeping the newest K
rm -rf keep && mkdir keep
"$bin" --n=24 --steps=50 --checkpoint-every=5 --checkpoint-keep=2 --progress=0 --output=keep/k >/dev/null 2>&1
result $([ "$(ls keep | grep -c ckpt)" -eq 2 ] && [ -f keep/k.ckpt.000000000045 ] && [ -f keep/k.ckpt.000000000040 ] &&
  echo 0 || echo 1) "--checkpoint-keep=2 keeps the newest two"

# a blow-up (a source that overflows the field) names the step, the time
# step against its limit and the newest checkpoint, exit 1
rm -rf blow && mkdir blow
"$bin" --n=16 --source=1e308 --steps=3000 --checkpoint-every=500 --progress=0 --output=blow/b >/dev/null 2>blow/err
rc=$?
result $([ $rc -eq 1 ] && grep -q 'non-finite temperature after step [0-9]*.*dt = .*, limit .*; last checkpoint blow/b.ckpt.000000001000' blow/err &&
  [ ! -f blow/b.vti ] && echo 0 || echo 1) "a blow-up exits 1 naming the step, dt against its limit and the last checkpoint"

# signals: a final checkpoint, then a clean exit
for sig in TERM USR1 INT; do
  rm -rf sig && mkdir sig
  "$bin" --n=256 --steps=100000000 --csv-every=200 --progress=0 --output=sig/s >/dev/null 2>sig/err &
  pid=$!
  sleep 1
  kill -$sig $pid
  wait $pid
  rc=$?
  want=0
  [ $sig = INT ] && want=130
  ck=$(ls sig/*.ckpt.* 2>/dev/null | tail -n 1)
  result $([ $rc -eq $want ] && [ -n "$ck" ] && grep -q "continue with --restart=$ck" sig/err &&
    "$bin" --n=256 --steps=$(( $(echo "$ck" | sed 's/.*ckpt\.0*//') + 10 )) --csv-every=200 --progress=0 \
      --output=sig/r --restart="$ck" >/dev/null 2>&1 && echo 0 || echo 1) \
    "SIG$sig: exit $want after a final checkpoint that restarts"
done

# SIGKILL while checkpointing every step: the newest complete one loads.
# Each run starts clean and is killed a random time after its first
# checkpoint appeared (start-up time differs from machine to machine).
rm -rf kill && mkdir kill
kfails=0
i=0
while [ $i -lt 12 ]; do
  rm -f kill/*
  "$bin" --n=200 --steps=100000000 --checkpoint-every=1 --checkpoint-keep=2 --csv-every=100000 --progress=0 \
    --output=kill/k >/dev/null 2>&1 &
  pid=$!
  w=0
  while [ $w -lt 200 ] && [ -z "$(ls kill/k.ckpt.* 2>/dev/null)" ]; do
    sleep 0.05
    w=$((w + 1))
  done
  sleep 0.$(( (i * 37) % 9 + 1 ))
  kill -KILL $pid
  wait $pid 2>/dev/null
  ck=$(ls kill/k.ckpt.* 2>/dev/null | tail -n 1)
  if [ -z "$ck" ] || ! "$bin" --n=200 --steps=$(( $(echo "$ck" | sed 's/.*ckpt\.0*//') + 1 )) --progress=0 \
      --output=kill/r --restart="$ck" >/dev/null 2>&1; then
    kfails=$((kfails + 1))
    echo "# kill $i: newest checkpoint '$ck' did not load"
  fi
  i=$((i + 1))
done
result $kfails "SIGKILL at 12 moments during per-step checkpoints: the newest complete checkpoint loads every time"

finish
