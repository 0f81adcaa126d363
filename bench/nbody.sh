#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# N-body benchmark table: hd-nbody --bench on a backend for a list of cases.
#   bench/nbody.sh BIN BACKEND "PRECISION:N:EVALS ..." [VARIANTS] [SPLITS]
# VARIANTS: generic/tuned/auto (default auto); SPLITS: CUDA j splits ("-" =
# sized from the SMs).  Interactions are N^2 per force evaluation.
set -u
bin=$1 backend=$2 cases=$3 variants=${4:-auto} splits=${5:--}
printf '%-8s %-7s %9s %-8s %6s %14s %10s\n' backend prec bodies variant splits "interactions/s" "GFLOP/s"
for c in $cases; do
  prec=${c%%:*} rest=${c#*:} n=${rest%%:*} evals=${rest#*:}
  for v in $variants; do
    for s in $splits; do
      sp=
      [ "$s" != - ] && sp="--splits=$s"
      out=$("$bin" --bench --backend="$backend" --precision="$prec" --n="$n" --steps="$evals" --variant="$v" $sp 2>&1) ||
        { echo "FAILED: $backend $c $v $s: $(echo "$out" | tail -n 1)"; continue; }
      echo "$out" | awk -v be="$backend" -v p="$prec" -v n="$n" -v v="$v" -v s="$s" -F': ' '
        { k[$1] = $2 }
        END { printf "%-8s %-7s %9d %-8s %6s %14.4g %10.1f\n", be, p, n, v, s, k["interactions_per_second"], k["interactions_per_second"] * 20 / 1e9 }'
    done
  done
done
