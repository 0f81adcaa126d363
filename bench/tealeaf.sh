#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hd-heat beside TeaLeaf (UoB-HPC/TeaLeaf, built outside the tree) on
# TeaLeaf's own decks: one row a program and solver, each by its own clock
# (TeaLeaf: the last step's cumulative "Wallclock", its solves; hd: the
# summary's steps_seconds, its steps), iterations in all, the temperature
# and its difference from tea.problems (beside the deck or in the folder
# above it) in percent.
#   TEALEAF=/path/to/cuda-tealeaf sh bench/tealeaf.sh DRIVER BACKEND "DECK..." ["hd solvers"] ["tea solvers"]
# hd solvers default "mg cg"; TeaLeaf's the deck's own and "chebyshev"
# (use_cg, use_chebyshev, use_ppcg swapped into the deck).  Decks and
# tea.problems are TeaLeaf's: nothing of them is kept here.
set -u
drv=$1 backend=$2 decks=$3 solvers=${4:-mg cg} tea_solvers=${5:-cg chebyshev}
w=$(mktemp -d) || exit 1
trap 'rm -rf "$w"' EXIT
printf '%-14s %-8s %-10s %10s %10s %22s %12s\n' deck program solver iterations seconds temperature "diff %"
for deck in $decks; do
  name=$(basename "$deck" .in)
  # beside the deck, or (TeaLeaf's Benchmarks/) in the folder above it
  cp "$(dirname "$deck")/tea.problems" "$w/" 2>/dev/null || cp "$(dirname "$deck")/../tea.problems" "$w/" 2>/dev/null
  for s in $solvers; do
    sed '/^ *use_\(cg\|chebyshev\|ppcg\|jacobi\)/d; s/^\*endtea/use_cg\n*endtea/' "$deck" >"$w/$name.in"
    "$drv" --input="$w/$name.in" --solver=$s --backend="$backend" --vti=no --png=no --progress=0 --output="$w/hd" >"$w/hd.txt" 2>&1
    awk -v d="$name" -v s="$s" '/^iterations:/ { it = $2 } /^steps_seconds:/ { t = $2 } /^tea_temperature:/ { T = $2 }
      /^tea_difference_percent:/ { p = $2 } /error/ { err = $0 }
      END { if (err != "") print d, "hd", s, err; else printf "%-14s %-8s %-10s %10d %10.3f %22.15e %12s\n", d, "hd", s, it, t, T, p }' "$w/hd.txt"
  done
  [ -n "${TEALEAF:-}" ] || continue
  for s in $tea_solvers; do
    sed "/^ *use_\(cg\|chebyshev\|ppcg\|jacobi\)/d; s/^\*endtea/use_$s\n*endtea/" "$deck" >"$w/$name.in"
    (cd "$w" && "$TEALEAF" --file "$name.in" >tl.txt 2>&1)
    awk -v d="$name" -v s="$s" '/CG:|Cheby:|PPCG:/ { for (i = 1; i < NF; ++i) if ($(i + 1) == "iterations") it += $i }
      /Wallclock:/ { t = $2 } /Actual/ { T = $2 } /This run/ { p = $0; sub(/.*within /, "", p); sub(/%.*/, "", p) }
      END { printf "%-14s %-8s %-10s %10d %10.3f %22.15e %12s\n", d, "TeaLeaf", s, it, t, T, p }' "$w/tl.txt"
  done
done
