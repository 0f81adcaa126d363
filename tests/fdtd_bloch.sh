#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Oblique incidence on a Bloch-periodic cell against the exact slab:
#  - a dielectric slab (eps_r 4, 0.105 m) filling a cell periodic along x
#    and y, a plane wave at 30 and 60 degrees in the xz plane, s (E along
#    y) and p (H along y) polarised: R and T from flux planes above and
#    below within 0.01 of the exact slab's at the wave's fixed
#    k_x = beta (the angle asin(c beta / w) changes with frequency, as in
#    Meep), R + T = 1 within 1e-3 where the run has decayed; p at 60
#    degrees passes near Brewster's angle (R below 3e-3 there);
#  - in vacuum the grid's incident wave reaches the point below the slab's
#    place with |S21| = 1 within 1e-4 (the line's split-field absorber);
#  - serial and OpenMP bit for bit; a checkpoint resumed gives the run
#    straight through;
#  - what the twin cannot take yet is refused with one line.
set -u
export OMP_NUM_THREADS=1
. "${top_srcdir:-.}/tests/cli_lib.sh"
bin=$top/drivers/hd-fdtd

deck() { # theta, pol, waveform frequency, bandwidth, band lo, hi, steps
  cat >bloch.in <<IN
xmesh = 0 4 0.02
ymesh = 0 2 0.01
zmesh = -0.6 240 0.6
boundary = periodic
boundary-z = cpml
pml = 16,3,1e-8
planewave = $1 0 $2
waveform = mgaussian
frequency = $3
bandwidth = $4
frequencies = $5 $6 5
steps = $7
converge = 1e-6
volume = no
slice = none
material = 4 0 1 0
geometry = 2 box 0 0.02 0 0.01 -0.0525 0.0525
IN
}

# worst |R - R_exact|, |T - T_exact|, |R + T - 1| of out_flux.csv (plane 1 above, 2 below), pol s or p, beta from stdout
exact() {
  awk -F, -v pol=$1 -v beta="$(awk '/^bloch: x /{ print $3 }' stdout)" '
    function sq(x) { return x * x }
    NR > 1 { pi = 3.141592653589793; k0 = 2 * pi * $1 / 299792458
      kz0 = sqrt(sq(k0) - sq(beta)); kz1 = sqrt(4 * sq(k0) - sq(beta))
      r = pol == "s" ? (kz0 - kz1) / (kz0 + kz1) : (4 * kz0 - kz1) / (4 * kz0 + kz1)
      er = cos(2 * kz1 * 0.105); ei = -sin(2 * kz1 * 0.105)
      nr = r * (1 - er); ni = -r * ei; dr = 1 - r * r * er; di = -r * r * ei
      R = (sq(nr) + sq(ni)) / (sq(dr) + sq(di))
      if ($2 == 1) { e = $9 - R; rr[$1] = $9; if (e < 0) e = -e; if (e > wr) wr = e; if ($9 < lo || !k) lo = $9; k++ }
      if ($2 == 2) { e = $8 - 1 + R; tt[$1] = $8; if (e < 0) e = -e; if (e > wt) wt = e } }
    END { for (f in rr) { s = rr[f] + tt[f] - 1; if (s < 0) s = -s; if (s > ws) ws = s }
          if (k == 5 && beta > 0) printf "%.5f %.5f %.2e %.5f", wr, wt, ws, lo }' out_flux.csv 2>/dev/null
}

for case in "30 H s 1e9 0.15e9 0.8e9 1.2e9 30000" "30 V p 1e9 0.15e9 0.8e9 1.2e9 30000" \
            "60 H s 1.2e9 0.06e9 1.12e9 1.28e9 20000" "60 V p 1.2e9 0.06e9 1.12e9 1.28e9 20000"; do
  set -- $case
  th=$1 pol=$3
  deck $1 $2 $4 $5 $6 $7 $8
  run --input=bloch.in --flux=z,0.3 --flux=z,-0.3
  set -- $(exact $pol)
  sum=$([ $th = 30 ] && echo 1e-3 || echo 1e-2)
  brewster=$([ $th$pol = 60p ] && echo 3e-3 || echo 1)
  [ "$(cat rc)" -eq 0 ] && [ $# -eq 4 ] && grep -q '^planewave_incident: the grid.s wave, a line of the cells along z$' stdout &&
    awk -v r="$1" -v t="$2" -v s="$3" -v lo="$4" -v l=$sum -v b=$brewster 'BEGIN { exit !(r <= 0.01 && t <= 0.01 && s <= l && lo <= b) }'
  result $? "a slab at $th degrees, $pol-polarised, on a Bloch-periodic cell: R and T within 0.01 of the exact slab's (worst ${1:-?}, ${2:-?}), R + T = 1 within $sum (${3:-?})$([ $brewster = 1 ] || echo ", R ${4:-?} near Brewster's angle")"
done

deck 30 H 1e9 0.15e9 0.8e9 1.2e9 6000
grep -v '^geometry' bloch.in >vacuum.in
run --input=vacuum.in --point="Y 0.01 0.005 0.25 -Z" --point="Y 0.01 0.005 -0.25 -Z"
worst=$(awk -F, '$2 == "S21" { d = 10 ^ ($3 / 20) - 1; if (d < 0) d = -d; if (d > w) w = d; k++ } END { if (k == 5) printf "%.2e", w }' out_points.csv 2>/dev/null)
[ "$(cat rc)" -eq 0 ] && [ -n "$worst" ] && awk -v w="$worst" 'BEGIN { exit !(w <= 1e-4) }'
result $? "the oblique incident wave in vacuum: |S21| = 1 within 1e-4 below ($worst)"

deck 30 V 1e9 0.15e9 0.8e9 1.2e9 600
for b in serial openmp; do
  mkdir -p $b && (cd $b && OMP_NUM_THREADS=2 "$bin" --progress=0 --input=../bloch.in --backend=$b --flux=z,0.3 \
    --probe="ez 0.01 0.005 -0.2" --output=o >stdout 2>&1; echo $? >rc)
done
[ "$(cat serial/rc)" -eq 0 ] && [ "$(cat openmp/rc)" -eq 0 ] && cmp -s serial/o_flux.csv openmp/o_flux.csv && cmp -s serial/o_probes.csv openmp/o_probes.csv
result $? "a Bloch-periodic cell: serial and OpenMP bit for bit (flux and probe records)"
mkdir -p ckpt && (cd ckpt && "$bin" --progress=0 --input=../bloch.in --flux=z,0.3 --probe="ez 0.01 0.005 -0.2" --steps=300 \
  --checkpoint-every=250 --output=o >stdout 2>&1 && "$bin" --progress=0 --input=../bloch.in --flux=z,0.3 \
  --probe="ez 0.01 0.005 -0.2" --restart="$(ls o.ckpt.* | tail -n 1)" --output=o >stdout 2>&1 &&
  "$bin" --progress=0 --input=../bloch.in --flux=z,0.3 --probe="ez 0.01 0.005 -0.2" --output=s >stdout 2>&1; echo $? >rc)
[ "$(cat ckpt/rc)" -eq 0 ] && cmp -s ckpt/o_flux.csv ckpt/s_flux.csv && cmp -s ckpt/o_probes.csv ckpt/s_probes.csv
result $? "a Bloch-periodic cell checkpointed at step 250 and resumed: as the run straight through"

deck 30 H 1e9 0.15e9 0.8e9 1.2e9 100
bad 2 "planewave-form = sf-closed: not on a Bloch-periodic cell" --input=bloch.in --planewave-form=sf-closed
bad 2 "planewave: oblique along two periodic axes" --input=bloch.in --planewave="30 40 H"
bad 2 "planewave: oblique on a Bloch-periodic cell: not yet with nearvolume" --input=bloch.in --nearvolume=yes
bad 2 "oblique on a Bloch-periodic cell needs a uniform mesh" --input=bloch.in --zmesh="-0.6 100 0 140 0.6"
finish
