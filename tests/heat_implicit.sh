#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hd-heat's implicit steps and steady states (hd/heat_implicit.h,
# hd/heat_solve.h) and TeaLeaf's decks (drivers/heat/tea.c): the exact
# discrete decay of an eigenmode under backward Euler and Crank-Nicolson
# (and CN's second order in dt), the exact steady profile, every solver to
# the same field, serial = OpenMP bit for bit and CUDA within 1e-9, the heat
# balance, restarts byte for byte, a deck of our own against TeaLeaf's
# answer for it, and bad input refused in one line.
set -u
. "${top_srcdir:-.}/tests/cli_lib.sh"
bin=$top/drivers/hd-heat
backends=$("$bin" --version | sed -n 's/^backends: //p')

key() { sed -n "s/^$1: //p" "$2"; }
# |a - b| <= tol |b|
close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; s = b < 0 ? -b : b; exit !(d <= t * s) }'; }

# The sine mode (1,1) under fixed zero faces decays by exactly G a step:
# backward Euler 1 / (1 + dt L), Crank-Nicolson (1 - dt L / 2) / (1 + dt L / 2),
# L = sum_d 4 / dx^2 sin^2(pi / (2 n)) (alpha 1); total heat scales by G^N.
mode_run() { # scheme dt steps
  "$bin" --progress=0 --output=mode --vti=no --png=no --n=32 --init=sine --bc=fixed:0 --scheme=$1 --dt=$2 --steps=$3 \
    --tol=1e-13 --backend=serial >mode.txt 2>&1
}
for s in implicit cn; do
  mode_run $s 2e-3 10
  g=$(awk -v s=$s 'BEGIN { pi = atan2(0, -1); L = 2 * 4 * 32 * 32 * sin(pi / 64)^2; x = 2e-3 * L;
      g = s == "cn" ? (1 - x / 2) / (1 + x / 2) : 1 / (1 + x); print g^10 }')
  r=$(awk -v a="$(key total_heat mode.txt)" -v b="$(key total_heat_initial mode.txt)" 'BEGIN { print a / b }')
  close "$r" "$g" 1e-10
  result $? "$s: the sine mode decays by the exact discrete factor ($r against $g)"
done
# CN's error against exp(-L t) (the space-discrete decay) falls 4x when dt halves
e1=$(mode_run cn 4e-3 10 && awk -v a="$(key total_heat mode.txt)" -v b="$(key total_heat_initial mode.txt)" \
  'BEGIN { pi = atan2(0, -1); L = 2 * 4 * 32 * 32 * sin(pi / 64)^2; e = a / b - exp(-L * 0.04); print e < 0 ? -e : e }')
e2=$(mode_run cn 2e-3 20 && awk -v a="$(key total_heat mode.txt)" -v b="$(key total_heat_initial mode.txt)" \
  'BEGIN { pi = atan2(0, -1); L = 2 * 4 * 32 * 32 * sin(pi / 64)^2; e = a / b - exp(-L * 0.04); print e < 0 ? -e : e }')
awk -v a="$e1" -v b="$e2" 'BEGIN { r = a / b; exit !(r > 3.8 && r < 4.2) }'
result $? "cn: second order in dt (errors $e1, $e2)"

# Steady state between faces held at 0 and 1: T = x / L at the cell centres.
"$bin" --progress=0 --output=st --vti=no --png=no --n=24,8 --scheme=steady --bc-xlo=fixed:0 --bc-xhi=fixed:1 \
  --tol=1e-12 --backend=serial >st.txt 2>&1
close "$(key min st.txt)" "$(awk 'BEGIN { printf "%.17g", 0.5 / 24 }')" 1e-9 && close "$(key max st.txt)" "$(awk 'BEGIN { printf "%.17g", 1 - 0.5 / 24 }')" 1e-9 &&
  close "$(key mean st.txt)" 0.5 1e-9
result $? "steady: the linear profile between fixed faces"
# two materials in series (k 1 and 4): the harmonic face mean is exact for the layered wall
"$bin" --progress=0 --output=st2 --vti=no --png=no --n=20,4 --scheme=steady --bc-xlo=fixed:0 --bc-xhi=fixed:1 \
  --material=4,1,1 --region=1,box,0.5,1,0,1 --probe=0.025,0.5 --tol=1e-12 --backend=serial >st2.txt 2>&1
# flux q = 1 / (0.5 / 1 + 0.5 / 4) = 1.6; the first cell centre 0.025 from the face: T = 1.6 x 0.025
close "$(sed -n 3p st2_probes.csv | cut -d, -f3)" 0.04 1e-9
result $? "steady: a layered wall's exact profile ($(sed -n 3p st2_probes.csv | cut -d, -f3) at x = 0.025)"

# Every solver to the same field; serial = OpenMP bit for bit; CUDA within 1e-9.
common="--n=40,36 --material=50,1,2 --material=0.1,2,1,3 --region=1,box,0.2,0.6,0.1,0.5 --region=2,sphere,0.7,0.7,0.2
  --bc-xlo=fixed:1 --bc-yhi=convective:5:0.5 --bc-xhi=flux:2 --scheme=cn --dt=2e-3 --steps=6 --tol=1e-12 --vti=no --png=no"
for s in cg chebyshev ppcg mg; do
  for b in serial openmp cuda; do
    case " $backends " in *" $b "*) ;; *) continue ;; esac
    OMP_NUM_THREADS=2 "$bin" --progress=0 --output=sv_${s}_$b $common --solver=$s --backend=$b >sv_${s}_$b.txt 2>&1
  done
done
for s in chebyshev ppcg mg; do # each to its tolerance on this system of 500:1 conductivities
  close "$(key mean sv_${s}_serial.txt)" "$(key mean sv_cg_serial.txt)" 1e-8 && close "$(key max sv_${s}_serial.txt)" "$(key max sv_cg_serial.txt)" 1e-8
  result $? "$s gives CG's field ($(key mean sv_${s}_serial.txt), $(key iterations sv_${s}_serial.txt) iterations)"
done
for s in cg chebyshev ppcg mg; do
  case " $backends " in *" openmp "*) ;; *) continue ;; esac
  [ "$(grep -E '^(min|max|mean|iterations|residual_last):' sv_${s}_serial.txt)" = "$(grep -E '^(min|max|mean|iterations|residual_last):' sv_${s}_openmp.txt)" ]
  result $? "$s: OpenMP = serial bit for bit"
done
for s in cg chebyshev ppcg mg; do
  case " $backends " in *" cuda "*) ;; *) continue ;; esac
  close "$(key mean sv_${s}_cuda.txt)" "$(key mean sv_${s}_serial.txt)" 1e-9 && close "$(key max sv_${s}_cuda.txt)" "$(key max sv_${s}_serial.txt)" 1e-9
  result $? "$s: CUDA within 1e-9 of serial ($(key mean sv_${s}_cuda.txt))"
done

# The heat balance: the content changes by what the faces and sources bring (to the solver's residual)
"$bin" --progress=0 --output=bal $common --solver=mg --balance=yes --backend=serial >bal.txt 2>&1
awk -F, 'NR > 1 { i = $NF < 0 ? -$NF : $NF; h = $3 < 0 ? -$3 : $3; if (i > 1e-9 * h) bad = 1 } END { exit bad || NR < 3 }' bal_balance.csv
result $? "cn: the heat balance closes (largest imbalance $(awk -F, 'NR > 1 { i = $NF < 0 ? -$NF : $NF; if (i > m) m = i } END { print m + 0 }' bal_balance.csv))"

# Restarts: from the checkpoint of step 3, the last 3 steps = 6 straight, byte for byte
for s in chebyshev mg; do
  "$bin" --progress=0 --output=rs_$s $common --solver=$s --checkpoint-every=3 --backend=serial >rs1.txt 2>&1 &&
    "$bin" --progress=0 --output=rs_$s $common --solver=$s --restart=rs_$s.ckpt.000000000003 --backend=serial >rs2.txt 2>&1
  "$bin" --progress=0 --output=rs0_$s $common --solver=$s --backend=serial >rs0.txt 2>&1
  cmp -s rs_$s.csv rs0_$s.csv && [ "$(key mean rs2.txt)" = "$(key mean rs0.txt)" ]
  result $? "$s: a restart continues byte for byte"
done

# A deck of our own; TeaLeaf (UoB-HPC/TeaLeaf, OpenMP model, 2026-12-07) gave
# 3.763192927644673e+03 (coefficient_density) and 3.766664838114496e+03
# (coefficient_inverse_density) for it; each of hd's solvers within 1e-10 %
cat >deck.in <<'EOF'
*tea
state 1 density=10.0 energy=0.5
state 2 density=0.2 energy=30.0 geometry=rectangle xmin=1.0 xmax=3.5 ymin=2.0 ymax=4.3
state 3 density=1.0 energy=5.0 geometry=circular xmin=6.0 xmax=6.0 ymin=6.0 ymax=6.0 radius=2.2
state 4 density=0.5 energy=10.0 geometry=rectangle xmin=0.0 xmax=10.0 ymin=8.5 ymax=9.0
x_cells=48
y_cells=40
xmin=0.0
ymin=0.0
xmax=10.0
ymax=10.0
initial_timestep=0.01
end_step=6
max_iters=5000
use_cg
eps 1.0e-15
profiler_on
*endtea
EOF
sed 's/^use_cg/use_cg\ncoefficient_inverse_density/' deck.in >inv.in
echo "48 40 6 3.763192927644673e+03" >tea.problems
for s in cg chebyshev ppcg mg; do
  "$bin" --progress=0 --output=tea_$s --input=deck.in --solver=$s --backend=serial >tea_$s.txt 2>tea_$s.err
  [ "$(key tea_check tea_$s.txt)" = passed ] && close "$(key tea_temperature tea_$s.txt)" 3763.192927644673 1e-12
  result $? "TeaLeaf's deck, $s: its temperature ($(key tea_temperature tea_$s.txt), tea.problems checked)"
  "$bin" --progress=0 --output=inv_$s --input=inv.in --solver=$s --backend=serial >inv_$s.txt 2>&1
  close "$(key tea_temperature inv_$s.txt)" 3766.664838114496 1e-12
  result $? "TeaLeaf's deck with coefficient_inverse_density, $s ($(key tea_temperature inv_$s.txt))"
done
grep -q "not used: profiler_on (line 17)" tea_cg.err
result $? "the keys a deck has that hd does not use: one line"
[ "$(key tea_volume tea_cg.txt)" = 100 ] && close "$(key tea_mass tea_cg.txt)" "$(awk 'BEGIN { print 10 * 100 }')" 1
result $? "TeaLeaf's field summary: volume and mass"
echo "48 40 6 3.7e+03" >tea.problems
"$bin" --progress=0 --output=miss --input=deck.in --backend=serial >miss.txt 2>miss.err
[ $? -eq 1 ] && grep -q "tea_check: failed" miss.txt && grep -q "TeaLeaf's check" miss.err
result $? "a temperature off TeaLeaf's expected value fails the run (exit 1)"

# bad input
printf '*tea\nstate 1 energy=1\n*endtea\n' >nodens.in
printf '*tea\nstate 1 density=1 energy=1\nstate 2 density=1 energy=2 geometry=cone xmin=0 xmax=1 ymin=0 ymax=1\n*endtea\n' >cone.in
printf '*tea\nstate 1 density=1 energy=1\nx_cells=ten\n*endtea\n' >word.in
bad 2 "nodens.in:2: state 1: give a positive density" --input=nodens.in
bad 2 "cone.in:3: state 2: geometry 'cone' is not rectangle, circular or point" --input=cone.in
bad 2 "word.in:3: x_cells: expected a whole number" --input=word.in
bad 2 "--scheme=steady: no face is fixed or convective" --scheme=steady
bad 2 "--balance: a steady state has no time" --scheme=steady --bc=fixed:0 --balance=yes
bad 2 "--solver: 'gmres' is not one of" --scheme=implicit --solver=gmres
bad 2 "--tea-densities: give 1 densities" --scheme=implicit --tea-summary=yes
clean_dir
run --scheme=implicit --dt=1 --max-iters=3 --solver=cg --n=32
[ "$(cat rc)" -eq 1 ] && grep -q "missed its tolerance in 3 iterations" stderr && nothing_written
result $? "a solve that misses its tolerance: exit 1, the residual named, nothing written"

finish
