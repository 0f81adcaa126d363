#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Heat benchmark table: hd-heat --bench on the given backend for a list of
# cases, one row each (key: value output parsed with awk).
#   bench/heat.sh BIN BACKEND "DIM:N:STEPS ..." [VARIANTS] [BLOCKS]
# VARIANTS: space-separated generic/tuned/auto (default auto).
# BLOCKS: space-separated X,Y,Z shapes passed to --block ("-" = default).
# HEAT_ARGS: more options for every run (materials, faces).
set -u
bin=$1 backend=$2 cases=$3 variants=${4:-auto} blocks=${5:--}
. "$(dirname "$0")/row.sh"
bench_header "$(printf '%-8s %-4s %-11s %-7s %-8s %-9s' backend dim cells precision variant block)"
for c in $cases; do
  dim=${c%%:*} rest=${c#*:} n=${rest%%:*} steps=${rest#*:}
  for prec in single double; do
    for v in $variants; do
      for b in $blocks; do
        blk=
        [ "$b" != - ] && blk="--block=$b"
        out=$("$bin" --bench --backend="$backend" --dim="$dim" --n="$n" --steps="$steps" \
              --precision="$prec" --variant="$v" $blk ${HEAT_ARGS:-} 2>&1) || { echo "FAILED: $backend $c $prec $v $b: $out" | tail -n 1; continue; }
        bench_row "$(printf '%-8s %-4s %-11s %-7s %-8s %-9s' "$backend" "$dim-D" "$n^$dim" "$prec" "$v" "$b")" "$out"
      done
    done
  done
done
