#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The absorbing layers on the CPU, hd-fdtd beside Meep (Debian's
# python3-meep, where it imports): a cube of N^3 cells whose outer 8 on
# every side are absorbing layers ((N - 16)^3 the mesh), a dielectric cube
# (eps_r 4) of 0.4 of the mesh across inside, a soft Ez source, 200 steps,
# one thread, double precision, each program by its own clock of the steps
# alone (hd's steps_seconds; Meep's run() after init_sim()).
#   sh bench/fdtd_layers.sh [BIN [N [ROUNDS]]]     (default drivers/hd-fdtd 100 3)
# Rows: hd with Mur (no layers), PML and CPML, Meep with PML(8) and without
# layers; the median of interleaved rounds and their spread (max - min
# over the median).
set -u
bin=${1:-drivers/hd-fdtd} n=${2:-100} rounds=${3:-3}
m=$((n - 16))
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
h=$(awk -v m=$m 'BEGIN { print m / 200 }') # the mesh of 0.01 m cells, centred
awk -v m=$m -v h=$h 'BEGIN { c = 0.4 * h
  printf "xmesh = %g %d %g\nymesh = %g %d %g\nzmesh = %g %d %g\n", -h, m, h, -h, m, h, -h, m, h
  printf "material = 4 0 1 0\ngeometry = 2 box %g %g %g %g %g %g\n", -c, c, -c, c, -c, c
  printf "source = Z %g 0 0 1\nfrequency = 3e8\nsteps = 200\nvolume = no\nslice = none\n", -0.75 * h }' >"$tmp/cube.in"
cat >"$tmp/cube.py" <<'PY'
import sys, time
import meep as mp
N, layers = int(sys.argv[1]), sys.argv[2] == "pml"
m = N - 16
mp.verbosity(0)
sim = mp.Simulation(cell_size=mp.Vector3(N, N, N), resolution=1, eps_averaging=False,
                    geometry=[mp.Block(size=mp.Vector3(0.4 * m, 0.4 * m, 0.4 * m), material=mp.Medium(epsilon=4))],
                    sources=[mp.Source(mp.GaussianSource(frequency=0.05, fwidth=0.05), component=mp.Ez,
                                       center=mp.Vector3(-0.375 * m, 0, 0))],
                    boundary_layers=[mp.PML(8)] if layers else [])
sim.init_sim()
t0 = time.time()
sim.run(until=200 * sim.fields.dt)
print("seconds", time.time() - t0)
PY
meep=no
OMP_NUM_THREADS=1 /usr/bin/python3 -c 'import meep' >/dev/null 2>&1 && meep=yes
hd() { OMP_NUM_THREADS=1 "$bin" --input="$tmp/cube.in" --boundary="$1" --backend=serial --precision=double --progress=0 \
  --output="$tmp/o" 2>/dev/null | sed -n 's/^steps_seconds: //p'; }
mp() { OMP_NUM_THREADS=1 /usr/bin/python3 "$tmp/cube.py" "$n" "$1" 2>/dev/null | sed -n 's/^seconds //p'; }
: >"$tmp/t"
r=0
while [ $r -lt "$rounds" ]; do
  for b in mur pml cpml; do echo "hd_$b $(hd $b)" >>"$tmp/t"; done
  if [ $meep = yes ]; then for b in pml none; do echo "meep_$b $(mp $b)" >>"$tmp/t"; done; fi
  r=$((r + 1))
done
printf '%-12s %12s %8s\n' case "s / 200 st" spread
for c in hd_mur hd_pml hd_cpml meep_pml meep_none; do
  awk -v c=$c '$1 == c && $2 != "" { print $2 }' "$tmp/t" | sort -g | awk -v c=$c '{ v[NR] = $1 } END {
    if (!NR) exit; med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%-12s %12.3f %7.1f%%\n", c, med, 100 * (v[NR] - v[1]) / med }'
done
[ $meep = yes ] || echo "(no Meep: Debian's python3-meep with python3-matplotlib runs it beside)"
echo "N = $n ($m^3 mesh + 8 layers a side), $rounds rounds, $(date -u +%Y-%m-%d)"
