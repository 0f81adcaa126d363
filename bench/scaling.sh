#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Weak and strong scaling of hd-heat (3-D), hd-fdtd, hd-ns and hd-cavity over MPI ranks, one
# GPU (or CPU backend) per rank.  Rates come from the runs' own summary
# (steps_*: cells x steps / wall time of the steps with their halo
# exchanges; the statistics, whose per-row partials are gathered on rank 0
# so that they do not depend on the ranks, are left out: they grow with the
# whole grid, not with a rank's block); efficiency is rate(P) / (P rate(1))
# for weak scaling and the same on the fixed grid for strong scaling.
#   [PROGS="hd-heat:1 hd-heat:3 hd-fdtd hd-ns hd-cavity hd-cavity:mg"] bench/scaling.sh BUILDDIR BACKEND "1 2 4" [N_HEAT] [N_FDTD] [STEPS]
# hd-heat:T runs T steps a sweep (--time-block=T; on several ranks halos
# T cells deep every T steps).
# Weak: N^3 cells a rank, the grid doubled along y, then z, as the ranks
# double (the axes MPI_Dims_create splits); strong: the largest weak grid
# on every rank count.  The 2-D solvers split y only: hd-ns (N_NS cells a
# unit length, 4 stages a step) grows its box along y; the cavity
# (N_CAVITY^2, 2048 by default, STEPS_CAVITY steps, double, from rest) is
# timed in strong scaling only, with SOR, split over ranks (its grid is
# square and SOR's sweeps a step grow with it); hd-cavity:fft times the FFT
# solve instead, split over CPU ranks (on CUDA ranks it solves the whole
# grid on every rank); hd-cavity:mg times split multigrid in V-cycles
# (cells x V-cycles / s: the cycles a step vary with the grid), weak on
# N_CAVITY sqrt(P) rounded to a multiple of 128 a side.
set -u
dir=$1 backend=$2 ranks=$3 nh=${4:-512} nf=${5:-400} steps=${6:-500} nn=${N_NS:-4096} nc=${N_CAVITY:-2048}
cs=${STEPS_CAVITY:-100} # SOR from rest: hundreds of sweeps a step at first
run() { # np, program, arguments...
  np=$1 prog=$2
  shift 2
  mpiexec -n "$np" "$dir/drivers/$prog" --backend="$backend" --progress=0 "$@" </dev/null 2>/dev/null
}
rate() { awk -F': ' '$1 == "steps_cell_updates_per_second" || $1 == "steps_mcells_steps_per_second" || $1 == "cell_stages_per_second" { print $2 }'; }
# y and z multipliers for np ranks (np a power of two, y first)
grow() {
  y=1 z=1 p=$1
  while [ "$p" -gt 1 ]; do
    if [ "$y" -le "$z" ]; then y=$((y * 2)); else z=$((z * 2)); fi
    p=$((p / 2))
  done
  echo "$y $z"
}
max=1
for np in $ranks; do [ "$np" -gt "$max" ] && max=$np; done
set -- $(grow "$max")
my=$1 mz=$2
tmp=$(mktemp -d)
printf '| program | kind | ranks | cells | rate (cells·steps/s) | efficiency |\n|---|---|---|---|---|---|\n'
for entry in ${PROGS:-hd-heat:1 hd-heat:3 hd-fdtd hd-ns hd-cavity hd-cavity:mg}; do
  prog=${entry%%:*} tb=${entry#*:}
  for kind in weak strong; do
    base=
    for np in $ranks; do
      set -- $(grow "$np")
      if [ "$kind" = weak ]; then gy=$1 gz=$2; else gy=$my gz=$mz; fi
      if [ "$prog" = hd-heat ]; then
        n="$nh,$((nh * gy)),$((nh * gz))"
        r=$(run "$np" hd-heat --dim=3 --n="$n" --steps="$steps" --csv-every="$steps" --vti=no --precision=single \
              --png=no --time-block="$tb" --output="$tmp/h" | rate)
      elif [ "$prog" = hd-ns ]; then
        if [ "$kind" = weak ]; then ly=$np; else ly=$max; fi
        n="$nn x $((nn * ly))"
        r=$(run "$np" hd-ns --n="$nn" --ly="$ly" --steps="$steps" --frames=0 --monitor-every="$steps" --png=no \
              --precision=single --output="$tmp/n" | rate)
      elif [ "$prog" = hd-cavity ]; then
        cv=sor c=$nc
        [ "$tb" = fft ] || [ "$tb" = mg ] && cv=$tb
        if [ "$kind" = weak ] && [ "$cv" != mg ]; then
          [ "$np" = "${ranks%% *}" ] && echo "| $entry | weak | | | not measured: the grid is square (and SOR's sweeps a step grow with it) | |"
          continue
        fi
        [ "$kind" = weak ] && c=$(awk -v n="$nc" -v p="$np" 'BEGIN { printf "%d", int(n * sqrt(p) / 128 + 0.5) * 128 }')
        [ "$kind" = strong ] && [ "$cv" = mg ] && c=$(awk -v n="$nc" -v p="$max" 'BEGIN { printf "%d", int(n * sqrt(p) / 128 + 0.5) * 128 }')
        n="$c^2"
        r=$(run "$np" hd-cavity --n="$c" --solver="$cv" --steady=0 --steps="$cs" --monitor-every="$cs" --png=no \
              --output="$tmp/c" | awk -F': ' -v c="$c" -v s="$cs" -v mg="$([ "$cv" = mg ] && echo 1)" '
                $1 == "poisson_iterations" { it = $2 }
                $1 == "wall_seconds" && $2 > 0 { print c * c * (mg ? it : s) / $2 }')
      else
        n="$nf,$((nf * gy)),$((nf * gz))"
        r=$(run "$np" hd-fdtd --xmesh=0,"$nf",1 --ymesh=0,"$((nf * gy))","$gy" --zmesh=0,"$((nf * gz))","$gz" \
              --feed=Z,0.5,0.5,0.5,1,50 --frequency=1e9 --steps="$steps" --average-every="$steps" --precision=single --volume=no \
              --output="$tmp/f" | rate)
        [ -n "$r" ] && r=$(echo "$r" | awk '{ print $1 * 1e6 }')
      fi
      if [ -z "$r" ]; then
        echo "| $entry | $kind | $np | $n | failed | |"
        continue
      fi
      [ -z "$base" ] && base=$(echo "$r $np" | awk '{ print $1 / $2 }')
      echo "$r $np $base" | awk -v p="$entry" -v k="$kind" -v n="$n" \
        '{ printf "| %s | %s | %d | %s | %.4g | %.1f %% |\n", p, k, $2, n, $1, 100 * $1 / ($2 * $3) }'
    done
  done
done
rm -rf "$tmp"
