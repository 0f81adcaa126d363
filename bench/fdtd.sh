#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# FDTD benchmark table: hd-fdtd --bench=N (the built-in model, doc/fdtd.md)
# on the given backend, one row per size, precision, variant and block.
#   bench/fdtd.sh BIN BACKEND "N:STEPS ..." [VARIANTS] [BLOCKS] [PRECISIONS]
# VARIANTS: generic/tuned/auto (default auto); BLOCKS: X,Y,Z for --block
# ("-" = default); PRECISIONS: default "single double".
set -u
bin=$1 backend=$2 cases=$3 variants=${4:-auto} blocks=${5:--} precs=${6:-single double}
. "$(dirname "$0")/row.sh"
bench_header "$(printf '%-8s %-6s %-7s %-8s %-9s' backend cells precision variant block)"
for c in $cases; do
  n=${c%%:*} steps=${c#*:}
  for prec in $precs; do
    for v in $variants; do
      for b in $blocks; do
        blk=
        [ "$b" != - ] && blk="--block=$b"
        out=$("$bin" --bench="$n" --steps="$steps" --backend="$backend" --precision="$prec" \
              --variant="$v" --progress=0 $blk 2>&1) || { echo "FAILED: $backend $c $prec $v $b: $out" | tail -n 1; continue; }
        bench_row "$(printf '%-8s %-6s %-7s %-8s %-9s' "$backend" "$n^3" "$prec" "$v" "$b")" "$out"
      done
    done
  done
done
