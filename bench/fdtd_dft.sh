#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Cost of the running DFTs over the march (doc/performance.md, "The running
# DFTs"): an N^3 model of 1 cm cells, Mur, one feed at the centre, STEPS
# steps; the steps alone (steps_seconds), best of two, for no outputs, the
# feed DFT, and the Huygens surface at 1, 4 and 8 frequencies.
#   bench/fdtd_dft.sh BIN BACKEND [N] [STEPS] [PRECISION]
set -u
bin=$1 backend=$2 n=${3:-300} steps=${4:-301} prec=${5:-single}
model=${TMPDIR:-/tmp}/hd-fdtd-dft.$$.in
trap 'rm -f "$model" "$model".out*' EXIT
h=$(awk -v n="$n" 'BEGIN { print n / 200 }')
printf 'xmesh = -%s %s %s\nymesh = -%s %s %s\nzmesh = -%s %s %s\nfeed = Z 0 0 0.005 1 50\nfrequency = 3e9\nslice = none\n' \
  "$h" "$n" "$h" "$h" "$n" "$h" "$h" "$n" "$h" >"$model"
base=
printf '%-28s %12s %10s\n' outputs steps_seconds "cost"
for c in "none|" "feed DFT|--frequencies=1e9" "farfield, 1 frequency|--frequencies=1e9 --farfield=4,4" \
  "farfield, 4 frequencies|--frequencies=1e9,2e9,4 --farfield=4,4" "farfield, 8 frequencies|--frequencies=1e9,2e9,8 --farfield=4,4"; do
  name=${c%%|*} args=${c#*|} best=
  for k in 1 2; do
    # shellcheck disable=SC2086
    t=$("$bin" --input="$model" --steps="$steps" --backend="$backend" --precision="$prec" --volume=no --progress=0 \
      --output="$model.out" $args 2>/dev/null | sed -n 's/^steps_seconds: //p')
    [ -n "$t" ] || { echo "$name: FAILED"; continue 2; }
    best=$(awk -v a="${best:-$t}" -v b="$t" 'BEGIN { print (b < a ? b : a) }')
  done
  [ -n "$base" ] || base=$best
  printf '%-28s %12s %9.1f%%\n' "$name" "$best" "$(awk -v a="$best" -v b="$base" 'BEGIN { print 100 * (a / b - 1) }')"
done
