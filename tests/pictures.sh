#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every field picture explains itself: small runs of every driver, then
# tests/png_colour_bar.py finds each map's colour bar (the scale, the
# units and the time are drawn beside it).  Skipped, saying why, in a
# build without libpng or where there is no python3.
set -u
top=$(cd "${top_builddir:-.}" && pwd)
src=$(cd "${top_srcdir:-.}" && pwd)
d=$top/drivers
py=$(command -v python3 || true)
[ -n "$py" ] || { echo "1..0 # SKIP no python3"; exit 0; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" || exit 99
if "$d/hd-heat" --n=8 --steps=1 --output=probe 2>/dev/null | grep -q 'no PNG output'; then
  echo "1..0 # SKIP this build writes no PNG"
  exit 0
fi
run() { # driver, arguments
  drv=$1
  shift
  "$d/hd-$drv" --progress=0 "$@" >/dev/null 2>&1 || echo "# hd-$drv $* failed"
}
run heat --n=32 --steps=20 --output=h
run heat --dim=3 --n=16 --steps=4 --output=h3
run nbody --n=64 --steps=4 --output=nb
run fdtd --input="$src/doc/examples/dipole.in" --steps=40 --converge=0 --frequencies=1e9 --farfield="12 12" \
  --nearfield=ez,z,0.0 --plot=far2d --volume=no --output=d
run cavity --n=16 --steps=10 --steady=0 --output=c
run ns --n=16 --steps=6 --frames=0 --output=ns
"$py" "$src/tests/png_colour_bar.py" h.png h3.png nb.png d_slice.png d_near1.png d_far2d.png c_psi.png ns_pressure.png \
  ns_vorticity.png
