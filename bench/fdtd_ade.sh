#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The cost of dispersive media: the built-in benchmark model of N^3 cells
# (doc/fdtd.md) as an input file, its eps_r = 2 block plain, then a Debye
# medium (eps_inf 2, one pole), then the whole volume of that medium.
# Prints the march's rate and, for the dispersive runs, the extra time an
# edge of the ADE pass costs and the bytes it moves (hd/fdtd_ade.h: the
# edge record, E^n and two values a pole read and written, H read, E
# written) over that time.
#   bench/fdtd_ade.sh BIN BACKEND N STEPS [PRECISION]
set -u
bin=$1 backend=$2 n=$3 steps=$4 prec=${5:-single}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
d=$(awk -v n="$n" 'BEGIN { printf "%.17g", 0.2 / n }')
model() { # material line, extra geometry line
  cat <<IN
xmesh = -0.1 $n 0.1
ymesh = -0.1 $n 0.1
zmesh = -0.1 $n 0.1
material = $1
$2
geometry = 2 box -0.06 0.06 -0.06 0.06 -0.07 -0.04
geometry = 1 box -0.06 0.06 -0.06 0.06 -0.04 -0.04
geometry = 1 box 0 0 0 0 -0.04 $(awk -v d="$d" 'BEGIN { printf "%.17g", -0.04 + 3.75 * d }')
feed = Z 0 0 $(awk -v d="$d" 'BEGIN { printf "%.17g", -0.04 + 0.5 * d }') 1 50
frequency = $(awk -v d="$d" 'BEGIN { printf "%.17g", 299792458.0 / (15 * d) }')
steps = $steps
volume = no
slice = none
IN
}
model "2 0 1 0" "" >"$tmp/plain.in"
model "2 0 1 0 debye 1 1e-10" "" >"$tmp/block.in"
model "2 0 1 0 debye 1 1e-10" "geometry = 2 box -0.1 0.1 -0.1 0.1 -0.1 0.1" >"$tmp/volume.in"
rs=4
[ "$prec" = double ] && rs=8
printf '%-14s %12s %14s %12s\n' "$n^3 $prec" "Mcell.st/s" "ns/edge.step" "ADE GB/s"
base=
for m in plain block volume; do
  "$bin" --input="$tmp/$m.in" --backend="$backend" --precision="$prec" --progress=0 >"$tmp/out" 2>&1 ||
    { echo "FAILED: $m: $(tail -n 1 "$tmp/out")"; continue; }
  awk -v m="$m" -v n="$n" -v rs="$rs" -v base="${base:-0}" -F': ' '
    { k[$1] = $2 }
    END {
      cells = n * n * n; rate = k["steps_mcells_steps_per_second"]; t = cells / (rate * 1e6)
      # dispersive edges: the block (120 x 120 x 30 mm of 200 mm) or all, 3 components
      frac = m == "block" ? 0.6 * 0.6 * 0.15 : 1; edges = 3 * frac * cells
      if (m == "plain") { printf "%-14s %12.1f %14s %12s\n", m, rate, "-", "-"; print t > "/dev/stderr"; exit }
      extra = (t - base) / edges
      bytes = 28 + 2 * 3 * rs + 4 * rs + rs  # record, E^n and P^n, P^n-1 (read, write), four H, E
      printf "%-14s %12.1f %14.3f %12.1f\n", m, rate, extra * 1e9, bytes / extra / 1e9
    }' "$tmp/out" 2>"$tmp/base"
  [ "$m" = plain ] && base=$(cat "$tmp/base")
done
