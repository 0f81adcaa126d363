#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Checkpoint and restart, for every time-stepping driver and CPU backend:
#  - N steps straight and N/2, checkpoint, restart, N/2 give byte-identical
#    outputs, every file: fields (written in full precision) and time
#    series, which continue from the files beside the checkpoint;
#  - a series file missing or not the checkpoint's is refused, unless
#    --fresh-series;
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

# Every output file but the checkpoints, byte for byte: $1 holds the same
# files as $2 (all of them, or with "subset" only some) with the same bytes.
same_outputs() { # dir, reference dir[, subset]
  names=$(cd "$1" && ls | grep -v '\.ckpt\.')
  [ -n "$names" ] || return 1
  [ "${3:-}" = subset ] || [ "$names" = "$(cd "$2" && ls | grep -v '\.ckpt\.')" ] || return 1
  for f in $names; do cmp -s "$1/$f" "$2/$f" || { echo "# $1/$f differs from $2/$f"; return 1; }; done
}

printf '0 0\n0.001 2\n0.004 -1\n' >ramp.tab
# N steps straight, against N steps with a checkpoint at N/2 and then a
# restart from it into the same outputs: the series keep their rows up to
# the checkpoint, drop the ones the first run wrote after it, and go on.
# A restart into another directory continues the series found beside the
# checkpoint.  The cadences of rows and frames do not meet the checkpoint's
# step.  driver | arguments
while IFS='|' read -r drv args; do
  bin="$top/drivers/hd-$drv"
  for be in $backends; do
    rm -rf straight half again && mkdir straight half again
    # shellcheck disable=SC2086
    "$bin" $args --steps=40 --backend=$be --progress=0 --output=straight/o >/dev/null 2>&1 &&
      "$bin" $args --steps=40 --backend=$be --progress=0 --output=half/o --checkpoint-every=20 >/dev/null 2>&1 &&
      "$bin" $args --steps=40 --backend=$be --progress=0 --output=half/o --restart=half/o.ckpt.000000000020 \
        >/dev/null 2>&1 && same_outputs half straight
    result $? "hd-$drv/$be: 40 steps straight, and 40 with a checkpoint at 20 then a restart from it, write identical files (every output)"
    # shellcheck disable=SC2086
    "$bin" $args --steps=40 --backend=$be --progress=0 --output=again/o --restart=half/o.ckpt.000000000020 \
      >/dev/null 2>&1 && same_outputs again straight subset
    result $? "hd-$drv/$be: a restart into another directory continues the series beside the checkpoint"
  done
done <<CASES
heat|--n=48,40 --init=sphere --csv-every=6
heat|--n=40 --csv-every=6 --probe=0.3,0.6 --balance --bc-xlo=flux:@ramp.tab --bc-yhi=convective:2:@ramp.tab --material=2,1,1 --region=1,box,0.5,1,0,0.5
nbody|--n=300 --ic=plummer --diag-every=6 --snapshot-every=8
nbody|--n=300 --ic=plummer --method=tree --theta=0.6 --diag-every=6 --snapshot-every=8
fdtd|--input=$src/tests/fdtd_sanitize.in --boundary=pml --average-every=6 --frequencies=4e9,8e9,3 --farfield=6,8 --huygens-margin=2 --nearfield=hx,y,0
fdtd|--input=$src/tests/fdtd_scatter.in --average-every=6 --nearfield=ez,z,0 --nearvolume=yes
fdtd|--input=$src/tests/fdtd_sanitize.in --boundary=cpml --average-every=6 --frequencies=4e9,8e9,3 --point=Z,0.01,0.01,0,+X --point=Y,0.02,-0.01,0.01
fdtd|--input=$src/tests/fdtd_sanitize.in --boundary=mur --mur=h --feed-release=yes --average-every=6
fdtd|--input=$src/tests/fdtd_scatter.in --planewave-form=sf --boundary=cpml --average-every=6 --point=X,0.03,0,0,-X
cavity|--n=32 --re=100 --steady=0 --monitor-every=6
ns|--n=24 --mach=0.5 --frames=3 --monitor-every=6
ns|--dim=3 --n=12 --frames=3 --monitor-every=6
ns|--dim=3 --case=pulse --bc=nonreflecting --bc-bottom=slip-wall --mach=0 --n=10 --lx=1 --ly=1 --lz=1 --rc=0.1 --frames=3 --monitor-every=6
CASES

# A series that is missing or not the checkpoint's is refused in one line,
# exit 2, nothing written; --fresh-series starts new series at the step.
bin="$top/drivers/hd-heat"
rm -rf ser && mkdir ser
"$bin" --n=32 --steps=40 --csv-every=5 --checkpoint-every=20 --progress=0 --output=ser/h >/dev/null 2>&1
series_bad() { # pattern, then a command that spoils sb/h.csv
  pattern=$1
  shift
  rm -rf sb && cp -r ser sb && "$@"
  before=$(ls -A sb; cat sb/* | cksum)
  "$bin" --n=32 --steps=40 --csv-every=5 --progress=0 --output=sb/h --restart=sb/h.ckpt.000000000020 >stdout 2>stderr
  rc=$?
  if [ $rc -eq 2 ] && [ "$(grep -c error: stderr)" -eq 1 ] && grep -q -- "$pattern" stderr && [ "$before" = "$(ls -A sb; cat sb/* | cksum)" ]; then
    result 0 "restart refused, nothing written: $pattern"
  else
    result 1 "restart refused, nothing written: $pattern (exit $rc)"
    sed 's/^/# /' stderr
  fi
}
edit_row() { sed -i '3s/^5,/5,9/' sb/h.csv; }
cut_series() { head -c 100 ser/h.csv >sb/h.csv; }
series_bad "'sb/h.csv', the series up to the checkpoint, cannot be read" rm sb/h.csv
series_bad "'sb/h.csv' is not the series the checkpoint recorded" edit_row
series_bad "'sb/h.csv' holds 100 bytes, fewer than the" cut_series
rm -rf sb && cp -r ser sb && rm sb/h.csv
"$bin" --n=32 --steps=40 --csv-every=5 --progress=0 --output=sb/h --restart=sb/h.ckpt.000000000020 --fresh-series \
  >/dev/null 2>&1 && [ "$(sed -n 2p sb/h.csv | cut -d, -f1)" = 20 ] && [ "$(wc -l <sb/h.csv)" -eq 6 ] &&
  sed -n 2p sb/h.csv | grep -q "^$(sed -n 6p ser/h.csv | cut -d, -f1-6)$"
result $? "--fresh-series: the series starts again at the checkpoint's step, header first"

# One rule in every driver (the run loop's): --bench with --restart is
# refused in one line, exit 2, and so is a checkpoint beyond the run's steps;
# a summary lost on a full stdout is a failure.
while IFS='|' read -r drv args bench; do
  bin="$top/drivers/hd-$drv"
  rm -rf rule && mkdir rule
  # shellcheck disable=SC2086
  "$bin" $args --steps=12 --checkpoint-every=4 --progress=0 --output=rule/o >/dev/null 2>&1
  ck=rule/o.ckpt.000000000008
  # shellcheck disable=SC2086
  "$bin" $bench --restart=$ck --progress=0 >stdout 2>stderr
  rc=$?
  result $([ $rc -eq 2 ] && [ ! -s stdout ] && [ "$(grep -c . stderr)" -eq 1 ] &&
    grep -q -- '--bench: not with --restart' stderr && echo 0 || echo 1) "hd-$drv: --bench with --restart is refused in one line, exit 2"
  before=$(ls -A rule | cksum)
  # shellcheck disable=SC2086
  "$bin" $args --steps=4 --restart=$ck --progress=0 --output=rule/o >stdout 2>stderr
  rc=$?
  result $([ $rc -eq 2 ] && grep -q "the checkpoint is at step 8, beyond this run's 4 steps" stderr &&
    [ "$before" = "$(ls -A rule | cksum)" ] && echo 0 || echo 1) "hd-$drv: a checkpoint beyond the run's steps is refused, nothing written"
  # shellcheck disable=SC2086
  "$bin" $args --steps=4 --progress=0 --output=rule/full >/dev/full 2>stderr
  rc=$?
  result $([ $rc -eq 1 ] && grep -q 'writing the summary to standard output failed' stderr && echo 0 || echo 1) \
    "hd-$drv: a summary that cannot be written (stdout on a full disk) exits 1, saying so"
done <<CASES
heat|--n=24|--n=24 --bench
nbody|--n=64|--n=64 --bench
fdtd|--input=$src/tests/fdtd_sanitize.in|--bench=20
cavity|--n=16 --steady=0|--n=16 --bench
ns|--n=16|--n=16 --bench
ns|--dim=3 --n=8|--dim=3 --n=8 --bench
CASES

# A disk that fills up at a checkpoint (a small tmpfs, where this machine
# lets the test mount one): exit 1, the error names the newest checkpoint
# written, not the one that failed, and that one restarts, its series from
# the .partial file; an earlier run's complete series in the same prefix is
# still there, untouched, until the restart completes its own.
bin="$top/drivers/hd-heat"
small=$(mktemp -d)
if mount -t tmpfs -o size=100k tmpfs "$small" 2>/dev/null; then
  (cd "$small" && "$bin" --n=8 --steps=40 --csv-every=5 --progress=0 --vti=no --png=no --output=o >/dev/null 2>&1)
  earlier=$(cksum <"$small/o.csv")
  (cd "$small" && "$bin" --n=64 --steps=40 --checkpoint-every=10 --csv-every=5 --progress=0 --output=o >/dev/null 2>err)
  rc=$?
  cp "$small/err" full.err
  last=$(sed -n 's/.*; last checkpoint \(o\.ckpt\.[0-9]*\)$/\1/p' full.err)
  result $([ $rc -eq 1 ] && grep -q 'No space left on device' full.err && [ -n "$last" ] && [ -f "$small/$last" ] &&
    ! grep -q "writing $last failed" full.err && echo 0 || echo 1) \
    "a full disk at a checkpoint: exit 1 naming the last checkpoint written (${last:-none})"
  result $([ "$earlier" = "$(cksum <"$small/o.csv")" ] && [ -s "$small/o.csv.partial" ] && echo 0 || echo 1) \
    "a full disk at a checkpoint: the earlier run's complete o.csv is untouched; the rows so far are in o.csv.partial"
  (cd "$small" && rm -f err o.png o.vti && "$bin" --n=64 --steps=40 --csv-every=5 --progress=0 --output=o \
    --restart="$last" --vti=no --png=no >/dev/null 2>&1)
  rc=$?
  "$bin" --n=64 --steps=40 --csv-every=5 --progress=0 --vti=no --png=no --output=straight >/dev/null 2>&1
  result $([ $rc -eq 0 ] && cmp -s "$small/o.csv" straight.csv && [ ! -e "$small/o.csv.partial" ] && echo 0 || echo 1) \
    "a full disk at a checkpoint: the restart from $last continues the series (o.csv that of a straight run, no .partial left)"
  umount "$small"
else
  for what in "the error" "the earlier series" "the restart"; do
    echo "ok $((n + 1)) # SKIP a full disk ($what): this machine does not let the test mount a tmpfs"
    n=$((n + 1))
  done
fi
rmdir "$small"

# damaged and foreign checkpoints (hd-heat's format is everyone's)
bin="$top/drivers/hd-heat"
rm -rf ck && mkdir ck
"$bin" --n=40 --steps=20 --checkpoint-every=10 --progress=0 --output=ck/h >/dev/null 2>&1
good=ck/h.ckpt.000000000010
size=$(wc -c <"$good")
head -c $((size - 100)) "$good" >trunc.ckpt
cp "$good" flip.ckpt && printf '\125' | dd of=flip.ckpt bs=1 seek=$((size - 5000)) conv=notrunc 2>/dev/null
cp "$good" flipheader.ckpt && printf 'Z' | dd of=flipheader.ckpt bs=1 seek=40 conv=notrunc 2>/dev/null
cp "$good" version.ckpt && printf '\003' | dd of=version.ckpt bs=1 seek=8 conv=notrunc 2>/dev/null
"$top/drivers/hd-cavity" --n=16 --steps=4 --steady=0 --checkpoint-every=2 --progress=0 --output=ck/c >/dev/null 2>&1
restart_bad() { # pattern, checkpoint, grid, extra arguments
  pattern=$1 file=$2 grid=$3
  shift 3
  clean_dir
  "$bin" --n="$grid" --steps=20 --progress=0 --output=out --restart="$file" "$@" >stdout 2>stderr
  rc=$?
  if [ $rc -eq 2 ] && grep -q -- "$pattern" stderr && [ "$(grep -c . stderr)" -eq 1 ] && nothing_written; then
    result 0 "restart from $file refused: $pattern"
  else
    result 1 "restart from $file refused: $pattern (exit $rc)"
    sed 's/^/# /' stderr
  fi
}
restart_bad "truncated in array 'temperature'" trunc.ckpt 40
restart_bad "array 'temperature' is corrupted (CRC mismatch)" flip.ckpt 40
restart_bad "corrupted header" flipheader.ckpt 40
restart_bad "format version 3, this build reads 1 to 2" version.ckpt 40
restart_bad "written by hd-cavity, not hd-heat" ck/c.ckpt.000000000002 40
restart_bad "grid 40 x 40 x 1, this run 41 x 40 x 1" "$good" 41,40
restart_bad "parameters differ: 'alpha=1' in the checkpoint, 'alpha=2' now" "$good" 40 --alpha=2
restart_bad "cannot open checkpoint 'none.ckpt'" none.ckpt 40
restart_bad "not an hd checkpoint" "$src/tests/fdtd_sanitize.in" 40
# forged: rewritten with every CRC valid (tests/ckpt_forge); unchanged, the
# forger's file restarts, so the refusals below are the changes'
forge="$top/tests/ckpt_forge"
"$forge" "$good" same.ckpt && "$forge" "$good" neg.ckpt step=-5 time=step && "$forge" "$good" later.ckpt step=19 &&
  "$forge" "$good" pad.ckpt pad
result $? "tests/ckpt_forge rewrites a checkpoint"
clean_dir
"$bin" --n=40 --steps=20 --progress=0 --output=out --restart=same.ckpt --fresh-series >/dev/null 2>&1
result $? "a checkpoint rewritten unchanged by the forger restarts"
restart_bad "corrupted header (step -5 at time" neg.ckpt 40 --fresh-series
restart_bad "corrupted header (step 19 at time" later.ckpt 40 --fresh-series
restart_bad "corrupted record of array 1" pad.ckpt 40 --fresh-series

# What shapes the outputs is in the checkpoint: a restart with other probes,
# another N-body force method or other FDTD probes is refused, exit 2
restart_other() { # pattern, driver, first arguments, restart arguments
  pattern=$1 drv=$2 first=$3 again=$4
  rm -rf oth && mkdir oth
  # shellcheck disable=SC2086
  "$top/drivers/hd-$drv" $first --steps=20 --checkpoint-every=10 --progress=0 --output=oth/o >/dev/null 2>&1
  before=$(ls -A oth | cksum)
  # shellcheck disable=SC2086
  "$top/drivers/hd-$drv" $again --steps=20 --restart=oth/o.ckpt.000000000010 --progress=0 --output=oth/o >stdout 2>stderr
  rc=$?
  result $([ $rc -eq 2 ] && grep -q -- "$pattern" stderr && [ "$before" = "$(ls -A oth | cksum)" ] && echo 0 || echo 1) \
    "hd-$drv: a restart that would change what the run writes is refused ($pattern), nothing written"
}
restart_other "probes=1:" heat "--n=24 --probe=0.3,0.3" "--n=24 --probe=0.3,0.3 --probe=0.6,0.6"
# a time table whose file changed between the run and its restart
rm -rf oth && mkdir oth
printf '0 0\n0.01 1\n' >t.tab
"$top/drivers/hd-heat" --n=24 --bc-xlo=fixed:@t.tab --steps=20 --checkpoint-every=10 --progress=0 --output=oth/o >/dev/null 2>&1
printf '0 0\n0.01 2\n' >t.tab
"$top/drivers/hd-heat" --n=24 --bc-xlo=fixed:@t.tab --steps=20 --restart=oth/o.ckpt.000000000010 --progress=0 --output=oth/o \
  >stdout 2>stderr
result $([ $? -eq 2 ] && grep -q "table=0:2:" stderr && echo 0 || echo 1) \
  "hd-heat: a restart whose time table's file changed is refused"
restart_other "method=tree" nbody "--n=100 --method=tree" "--n=100"
restart_other "probes_crc=" fdtd "--input=$src/tests/fdtd_sanitize.in" "--input=$src/tests/fdtd_sanitize.in --probe=ex,0,0,0"

# keeping the newest K
rm -rf keep && mkdir keep
"$bin" --n=24 --steps=50 --checkpoint-every=5 --checkpoint-keep=2 --progress=0 --output=keep/k >/dev/null 2>&1
result $([ "$(ls keep | grep -c ckpt)" -eq 2 ] && [ -f keep/k.ckpt.000000000045 ] && [ -f keep/k.ckpt.000000000040 ] &&
  echo 0 || echo 1) "--checkpoint-keep=2 keeps the newest two"
# ... of its own: an earlier run's checkpoints in the prefix are neither
# counted nor deleted; a restart prunes those of the run it continues
"$bin" --n=24 --steps=30 --checkpoint-every=10 --checkpoint-keep=2 --progress=0 --output=keep/k >/dev/null 2>&1
result $([ "$(ls keep | grep ckpt | sed 's/.*\.0*//' | tr '\n' ' ')" = "10 20 40 45 " ] && echo 0 || echo 1) \
  "a second run in the prefix keeps its own newest two and the earlier run's (got: $(ls keep | grep ckpt | sed 's/.*\.0*//' | tr '\n' ' '))"
rm -rf keep && mkdir keep
"$bin" --n=24 --steps=20 --checkpoint-every=5 --progress=0 --output=keep/k >/dev/null 2>&1
"$bin" --n=24 --steps=40 --checkpoint-every=5 --restart=keep/k.ckpt.000000000010 --progress=0 --output=keep/k >/dev/null 2>&1
result $([ "$(ls keep | grep ckpt | sed 's/.*\.0*//' | tr '\n' ' ')" = "25 30 35 " ] && echo 0 || echo 1) \
  "a restart from step 10 prunes the continued run's checkpoints with its own (got: $(ls keep | grep ckpt | sed 's/.*\.0*//' | tr '\n' ' '))"

# One run at a time in a prefix: a second is refused in one line naming the
# first's process, exit 2, nothing of it written; the lock goes with the
# process, even when it is killed
rm -rf lock && mkdir lock
"$bin" --n=64 --steps=100000000 --progress=0 --output=lock/o >/dev/null 2>&1 &
holder=$!
for _ in $(seq 100); do [ -e lock/.o.lock ] && break; sleep 0.1; done
before=$(ls -A lock | grep -v '^\.o\.' | cksum)
"$bin" --n=24 --steps=2 --progress=0 --output=lock/o >stdout 2>stderr
rc=$?
result $([ $rc -eq 2 ] && [ "$(grep -c . stderr)" -eq 1 ] && grep -q "another run (process $holder) writes the outputs of prefix 'lock/o'" stderr &&
  [ "$before" = "$(ls -A lock | grep -v '^\.o\.' | cksum)" ] && echo 0 || echo 1) \
  "a second run on a prefix in use is refused, naming the first's process, exit 2, nothing written"
"$bin" --n=24 --steps=2 --progress=0 --output=lock/other >/dev/null 2>&1
result $? "a run on another prefix in the same directory goes ahead"
kill -KILL $holder
wait $holder 2>/dev/null
"$bin" --n=24 --steps=2 --progress=0 --output=lock/o >/dev/null 2>&1
result $([ $? -eq 0 ] && [ -f lock/o.csv ] && echo 0 || echo 1) "after the holder is killed (its lock file left), the prefix is free"
result $([ ! -e lock/.o.lock ] && echo 0 || echo 1) "a run that ends removes its lock file"

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
  # the handlers are installed a moment after the backend's banner: wait
  # for it (CUDA start-up under a parallel check can take seconds)
  i=0
  while [ ! -s sig/err ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
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

# SIGKILL at random moments, over and over, each time restarting from the
# newest checkpoint (from the start while there is none), until the run
# ends; then every output equals the uninterrupted run's.  Bounded: after
# `bound` seconds of kills the last leg runs to its end.
kill_loop() { # driver, bound in seconds, arguments...
  kbin="$top/drivers/hd-$1" bound=$2
  shift 2
  rm -rf ks kk && mkdir ks kk
  t0=$(date +%s.%N)
  "$kbin" "$@" --progress=0 --output=ks/o >/dev/null 2>&1 || return 1
  span=$(echo "$t0 $(date +%s.%N)" | awk '{ print $2 - $1 }') # start-up included: kills land after it too
  kills=0 t0=$(date +%s)
  while :; do
    ck=$(ls kk/o.ckpt.* 2>/dev/null | tail -n 1)
    "$kbin" "$@" --progress=0 --output=kk/o ${ck:+--restart=$ck} >/dev/null 2>&1 &
    pid=$!
    if [ $(($(date +%s) - t0)) -lt "$bound" ]; then
      sleep "$(awk -v s=$((seed + kills)) -v t="$span" 'BEGIN { srand(s); printf "%.3f", t * (0.03 + 0.25 * rand()) }')"
      kill -KILL $pid 2>/dev/null
    fi
    wait $pid 2>/dev/null
    case $? in
      0) break ;;
      137) kills=$((kills + 1)) ;;
      *) echo "# a leg failed after $kills kills"; return 1 ;;
    esac
  done
  same_outputs kk ks
}
# one OpenMP thread a leg: under make -j the suite shares the cores, and
# oversubscribed threads spin at every barrier of these small models
OMP_NUM_THREADS=1
export OMP_NUM_THREADS
seed=$(($(date +%s) % 100000))
echo "# kill_loop seed $seed"
while IFS='|' read -r drv args; do
  # shellcheck disable=SC2086
  kill_loop $drv 6 $args
  result $? "hd-$drv: killed $kills times at random moments, restarted from the newest checkpoint each time: every output as uninterrupted"
done <<CASES
heat|--n=256 --steps=6000 --csv-every=20 --checkpoint-every=200
nbody|--n=1000 --steps=600 --diag-every=10 --snapshot-every=50 --checkpoint-every=20
fdtd|--input=$src/tests/fdtd_sanitize.in --boundary=pml --steps=3000 --average-every=10 --checkpoint-every=100
cavity|--n=64 --re=100 --steady=0 --steps=3000 --monitor-every=20 --checkpoint-every=100
ns|--n=48 --mach=0.5 --steps=1500 --frames=10 --monitor-every=10 --checkpoint-every=50
CASES

finish
