#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# What users open, opened by a real client: small runs of every driver, then
# VTK's own readers (Python's vtk, Debian's python3-vtk9) load each file
# and tests/vtk_read.py checks it against the run.  Skipped, saying why,
# where no Python has vtk.
set -u
top=$(cd "${top_builddir:-.}" && pwd)
src=$(cd "${top_srcdir:-.}" && pwd)
py=
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import vtk' >/dev/null 2>&1; then py=$p && break; fi
done
if [ -z "$py" ]; then
  echo "1..0 # SKIP no python3 with vtk (Debian: apt-get install python3-vtk9)"
  exit 0
fi
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" || exit 99
d=$top/drivers
run() { # summary file, driver, arguments
  out=$1 drv=$2
  shift 2
  "$d/hd-$drv" --progress=0 "$@" >"$out" 2>/dev/null || echo "# hd-$drv $* failed"
}
run h.out heat --n=16 --steps=10 --frames=2 --output=h
run hp.out heat --n=16 --steps=10 --pieces --output=hp
run h3.out heat --dim=3 --n=8 --steps=4 --output=h3
run nb.out nbody --n=64 --steps=10 --snapshot-every=5 --output=nb
run d.out fdtd --input="$src/doc/examples/dipole.in" --steps=6 --converge=0 --frames=2 --output=d
run df.out fdtd --input="$src/doc/examples/dipole.in" --steps=40 --converge=0 --frequencies=1e9 --farfield="12 12" \
  --nearvolume=yes --nearfield=ez,z,0.0 --slice=none --volume=no --output=df
run f.out fdtd --input="$src/tests/fdtd_sanitize.in" --steps=5 --output=f
run c.out cavity --n=16 --steps=10 --steady=0 --frames=2 --output=c
run ns.out ns --n=16 --steps=6 --frames=2 --output=ns
run ns3.out ns --dim=3 --n=8 --steps=4 --frames=1 --output=ns3
"$py" "$src/tests/vtk_read.py"
