#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Pins what the five drivers write, for changes that must not change it (a
# refactoring): runs a fixed set of commands (the README's, with fewer
# steps; restarts; two MPI ranks; pieces; refusals) with the drivers of one
# build and prints a manifest: for each case its exit status, the hash of
# its stdout with the timing keys removed, of its stderr, and of every file
# it wrote.  Two builds pin the same when their manifests are equal:
#   sh tests/pin_outputs.sh OLD_BUILD >old.txt; sh tests/pin_outputs.sh NEW_BUILD >new.txt; diff old.txt new.txt
# (a build: a directory whose drivers/ holds hd-*).  Not part of make check:
# it compares two trees, not one against fixed answers.  PIN_KEEP=DIR keeps
# the outputs there.
set -u
build=$(cd "${1:?usage: pin_outputs.sh BUILD_DIR}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
work=${PIN_KEEP:-$(mktemp -d /tmp/hd-pin.XXXXXX)}
mkdir -p "$work"
export OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpi=
grep -q 'define HD_HAVE_MPI 1' "$build/config.h" 2>/dev/null && mpi=yes

# a summary's keys in order of name, less the timing and machine-dependent ones
untimed() {
  grep -v -E '^[a-z0-9_]*(seconds|per_second|per_step|GB_per_second|fraction_of[a-z_]*|host_peak_gb|boundary_share|gflops|speedup[a-z_]*)(_[a-z]+)?:' |
    grep -v '^version:' | sort
}

# case NAME [mpi] DRIVER ARGS...: run in $work/NAME (paths in ARGS relative to it; @SRC@ the source tree)
case_run() {
  name=$1
  shift
  ranks=
  if [ "$1" = mpi ]; then
    shift
    [ -n "$mpi" ] || { echo "$name: skipped (no MPI build)"; return; }
    ranks="mpiexec -n 2"
  fi
  drv=$1
  shift
  dir=$work/$name
  mkdir -p "$dir"
  args=$(printf '%s\n' "$@" | sed "s|@SRC@|$src|g")
  # shellcheck disable=SC2086
  (cd "$dir" && printf '%s\n' "$args" | tr '\n' '\0' | xargs -0 sh -c "$ranks \"$build/drivers/$drv\" --progress=0 \"\$@\" </dev/null >stdout.txt 2>stderr.txt; echo \$? >status.txt" sh)
  echo "$name: exit $(cat "$dir/status.txt")"
  echo "$name: stdout $(untimed <"$dir/stdout.txt" | sha256sum | cut -c1-16)"
  echo "$name: stderr $(sha256sum <"$dir/stderr.txt" | cut -c1-16)"
  (cd "$dir" && for f in $(ls | sort); do
    case $f in stdout.txt | stderr.txt | status.txt) continue ;; esac
    echo "$name: file $f $(sha256sum <"$f" | cut -c1-16)"
  done)
}

# a continuation: the first case's directory again (its files as they were, then the restart's)
again() { # NAME FROM DRIVER ARGS...
  name=$1 from=$2
  shift 2
  [ -d "$work/$from" ] || { echo "$name: skipped (no $from)"; return; }
  rm -rf "${work:?}/$name" && cp -r "$work/$from" "$work/$name" && rm -f "$work/$name"/stdout.txt "$work/$name"/stderr.txt
  case_run "$name" "$@"
}

# bench: the keys alone
bench_keys() { # NAME DRIVER ARGS...
  name=$1
  shift
  drv=$1
  shift
  out=$("$build/drivers/$drv" --progress=0 "$@" 2>/dev/null </dev/null)
  echo "$name: exit $? keys $(printf '%s\n' "$out" | sed 's/:.*//' | tr '\n' ' ')"
}

ex=@SRC@/doc/examples
case_run heat hd-heat --n=64 --steps=400 --output=heat
case_run heat3 hd-heat --dim=3 --n=24 --init=sphere --bc=fixed:0 --steps=60 --backend=openmp --output=h3
case_run heat_media hd-heat --n=40 --steps=40 --csv-every=6 --probe=0.3,0.6 --balance --material=2,1,1 \
  --region=1,box,0.5,1,0,0.5 --bc-xlo=flux:3 --bc-yhi=convective:2:1 --output=o --checkpoint-every=20
again heat_restart heat_media hd-heat --n=40 --steps=40 --csv-every=6 --probe=0.3,0.6 --balance --material=2,1,1 \
  --region=1,box,0.5,1,0,0.5 --bc-xlo=flux:3 --bc-yhi=convective:2:1 --output=o --restart=o.ckpt.000000000020
case_run heat_serial hd-heat --n=48,40 --init=sphere --csv-every=6 --steps=30 --backend=serial --precision=single --output=s
case_run heat_tb hd-heat --dim=3 --n=32 --steps=24 --time-block=4 --output=tb
case_run heat_mpi mpi hd-heat --n=48 --steps=40 --csv-every=5 --output=m --checkpoint-every=20
again heat_mpi_restart heat_mpi hd-heat --n=48 --steps=40 --csv-every=5 --output=m --restart=m.ckpt.000000000020
case_run heat_pieces mpi hd-heat --dim=3 --n=16 --steps=10 --pieces --output=p
case_run heat_bad hd-heat --n=32 --dt=1 --output=bad
case_run heat_bad2 hd-heat --nn=32
bench_keys heat_bench hd-heat --bench --n=64 --steps=10

case_run nbody hd-nbody --n=512 --ic=plummer --steps=40 --snapshot-every=20 --output=cluster
case_run nbody_kepler hd-nbody --ic=kepler --eccentricity=0.9 --softening=0 --dt=1e-4 --steps=200 --output=k
case_run nbody_tree hd-nbody --n=300 --ic=plummer --method=tree --theta=0.6 --diag-every=6 --snapshot-every=8 --steps=40 \
  --output=o --checkpoint-every=20
again nbody_restart nbody_tree hd-nbody --n=300 --ic=plummer --method=tree --theta=0.6 --diag-every=6 --snapshot-every=8 \
  --steps=40 --output=o --restart=o.ckpt.000000000020
case_run nbody_2d hd-nbody --dim=2 --ic=uniform --n=200 --steps=20 --format=vtk --output=u
case_run nbody_mpi mpi hd-nbody --n=256 --steps=20 --output=m
case_run nbody_bad hd-nbody --ic=kepler --n=3
bench_keys nbody_bench hd-nbody --bench --n=1024 --steps=2

case_run fdtd hd-fdtd --input=$ex/dipole.in --slice="ez y 0" --waveform=sine --steps=120 --converge=0 --output=dipole
case_run fdtd_freq hd-fdtd --input=$ex/dipole.in --frequencies="0.8e9 1.2e9 5" --farfield="6 8" --steps=300 --output=dipole
case_run fdtd_near hd-fdtd --input=$ex/dipole.in --frequencies=1e9 --nearfield="e y 0" --near2d-db=yes --steps=200 --output=d
case_run fdtd_sphere hd-fdtd --input=$ex/sphere.in --steps=150 --output=sphere
case_run fdtd_ofd hd-fdtd --input=$ex/loaded_dipole.ofd --steps=150 --output=loaded
case_run fdtd_ck hd-fdtd --input=@SRC@/tests/fdtd_sanitize.in --boundary=pml --average-every=6 --frequencies=4e9,8e9,3 \
  --farfield=6,8 --huygens-margin=2 --nearfield=hx,y,0 --steps=40 --output=o --checkpoint-every=20
again fdtd_restart fdtd_ck hd-fdtd --input=@SRC@/tests/fdtd_sanitize.in --boundary=pml --average-every=6 \
  --frequencies=4e9,8e9,3 --farfield=6,8 --huygens-margin=2 --nearfield=hx,y,0 --steps=40 --output=o \
  --restart=o.ckpt.000000000020
case_run fdtd_pw hd-fdtd --input=@SRC@/tests/fdtd_scatter.in --planewave-form=sf --boundary=cpml --average-every=6 \
  --point=X,0.03,0,0,-X --nearvolume=yes --nearfield=ez,z,0 --steps=40 --output=pw
case_run fdtd_mpi mpi hd-fdtd --input=@SRC@/tests/fdtd_sanitize.in --boundary=cpml --frequencies=4e9,8e9,3 --steps=40 --output=m
case_run fdtd_pieces mpi hd-fdtd --input=@SRC@/tests/fdtd_sanitize.in --steps=20 --pieces --slice=none --output=p
case_run fdtd_bad hd-fdtd --input=$ex/dipole.in --frequencies=1e9 --farfield=junk
bench_keys fdtd_bench hd-fdtd --bench=20 --steps=10

case_run cavity hd-cavity --re=100 --n=32 --output=re100
case_run cavity_sor hd-cavity --re=100 --n=24 --solver=sor --steps=300 --output=s
case_run cavity_local hd-cavity --re=1000 --n=32 --local-dt=0.9 --solver=mg --output=l
case_run cavity_ck hd-cavity --n=32 --re=100 --steady=0 --monitor-every=6 --steps=40 --output=o --checkpoint-every=20
again cavity_restart cavity_ck hd-cavity --n=32 --re=100 --steady=0 --monitor-every=6 --steps=40 --output=o \
  --restart=o.ckpt.000000000020
case_run cavity_mpi mpi hd-cavity --re=100 --n=32 --solver=mg --steps=200 --output=m
case_run cavity_pieces mpi hd-cavity --re=100 --n=32 --solver=sor --steps=50 --pieces --output=p
case_run cavity_bad hd-cavity --n=32 --dt=10
bench_keys cavity_bench hd-cavity --bench --n=32

case_run ns hd-ns --n=64 --t-end=0.1 --output=vortex
case_run ns_ck hd-ns --n=24 --mach=0.5 --frames=3 --monitor-every=6 --steps=40 --output=o --checkpoint-every=20
again ns_restart ns_ck hd-ns --n=24 --mach=0.5 --frames=3 --monitor-every=6 --steps=40 --output=o \
  --restart=o.ckpt.000000000020
case_run ns_mpi mpi hd-ns --n=32 --steps=30 --output=m
case_run ns_pieces mpi hd-ns --n=32 --steps=20 --frames=2 --pieces --output=p
case_run ns_bad hd-ns --n=32 --dt=1
bench_keys ns_bench hd-ns --bench --n=64 --steps=5

[ -n "${PIN_KEEP:-}" ] || rm -rf "$work"
