#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hd-ns's contract with its user: good runs write the history, the frames
# with their .pvd and the pictures; bad input gives one line, exit status 2,
# and writes nothing.
set -u
. "${top_srcdir:-.}/tests/cli_lib.sh"
bin=$top/drivers/hd-ns
parse_refusals n

printf 'n = 32\nmach = 0.5\nmahc = 2\n' >typo.in
printf 'n = 32\nre = 0\n' >re.in
printf 'dim = 3\n' >dim3.in

bad 2 "typo.in:3: unknown key 'mahc' (did you mean 'mach'?)" --input=typo.in
bad 2 "re.in:2: re: 0 is out of range" --input=re.in
bad 2 "--mach: -1 is out of range" --mach=-1
bad 2 "--cfl: 3 is out of range" --cfl=3
bad 2 "--sigma-in: -1 is out of range" --sigma-in=-1
bad 2 "dt: 0.02 exceeds the RK4 stability limit" --n=64 --dt=0.02
bad 2 "--bc-left: 'outflow' is not one of" --bc-left=outflow
bad 2 "bc: a periodic face needs a periodic opposite face" --bc-left=periodic
bad 2 "bc-left: supersonic-in needs mach > 1" --mach=0.5 --bc-left=supersonic-in
bad 2 "--case: 'shock' is not one of uniform|vortex|isentropic" --case=shock
bad 2 "grid too large for memory" --n=1000000
bad 2 "cannot write" --output=/nonexistent/dir/out --n=16

# good runs
clean_dir
run --n=32 --mach=0.5 --t-end=0.5 --frames=2
result $([ "$(cat rc)" -eq 0 ] && head -n 1 out_history.csv | grep -q '^step,time,max_dp,mass,energy$' &&
  [ -f out_0000.vtr ] && [ -f out_0002.vtr ] && [ "$(grep -c DataSet out.pvd)" -eq 3 ] &&
  grep -q '^max_dp_final_over_vortex_dip: ' stdout && grep -q '^time: 0.5$' stdout && echo 0 || echo 1) \
  "a run writes the history, three frames with their .pvd, and lands on --t-end"
picture_made out_pressure.png && { [ ! -e out_pressure.png ] || head -c 8 out_vorticity.png | od -An -c | grep -q 'P   N   G'; }
result $? "the pressure and vorticity pictures are PNGs, named in the summary (or it says why there are none)"

clean_dir
run --case=uniform --n=16 --mach=0.3 --bc-left=periodic --bc-right=periodic --bc-bottom=slip-wall --bc-top=noslip-wall \
  --steps=20 --frames=0
result $([ "$(cat rc)" -eq 0 ] && grep -q '^max_dp_final: 0.000000e+00$' stdout && grep -q '^steps: 20$' stdout && echo 0 || echo 1) \
  "uniform flow along periodic x between walls stays uniform (max_dp 0)"

# the supersonic inflow's relaxation acts (default 16) and --sigma-in=0 drops it
clean_dir
run --n=32 --t-end=0.3 --frames=0 --sigma-in=16
grep '^max_dp_final: ' stdout >relaxed.txt
run --n=32 --t-end=0.3 --frames=0
grep '^max_dp_final: ' stdout >default.txt
run --n=32 --t-end=0.3 --frames=0 --sigma-in=0
result $([ "$(cat rc)" -eq 0 ] && [ -s default.txt ] && cmp -s relaxed.txt default.txt && ! grep -qxF -f default.txt stdout &&
  echo 0 || echo 1) "at Mach 1.1 --sigma-in defaults to 16, and 0 changes the run"

clean_dir
run --bench --n=32 --steps=3
result $([ "$(cat rc)" -eq 0 ] && grep -q '^cell_stages_per_second: ' stdout && grep -q '^fraction_of_copy: ' stdout &&
  nothing_written && echo 0 || echo 1) "--bench prints cell-stages per second and the fraction of copy bandwidth, writes nothing"

# a blow-up: a vortex far too strong and narrow for the grid drives the
# pressure negative within a few steps; exit 1 naming the step and the node,
# an existing history kept, the frame index not committed (frames written
# before the blow-up stay, as new files)
clean_dir
echo precious >out_history.csv
run --n=24 --steps=400 --circulation=-1 --rc=0.05 --png=no
result $([ "$(cat rc)" -eq 1 ] && grep -q "the flow blew up by step [0-9]* (non-positive or non-finite state at node" stderr &&
  [ "$(cat out_history.csv)" = precious ] && [ ! -e out.pvd ] && echo 0 || echo 1) \
  "a blow-up exits 1 naming the step and the node; the history and the frame index are not committed"

# --dim=3: the 3-D solver in a periodic box
bad 2 "--dim: 4 is out of range" --dim=4
bad 2 "dim3.in:1: 'dim' is accepted only on the command line" --input=dim3.in
bad 2 "bc: a periodic face needs a periodic opposite face (x)" --dim=3 --bc-left=nonreflecting
bad 2 "bc: supersonic-in needs mach > 1 (got 0.1)" --dim=3 --bc=nonreflecting --bc-top=supersonic-in
bad 2 "--bc-front: 'zero-gradient' is not one of" --dim=3 --bc-front=zero-gradient
bad 2 "axis: the ring's axis needs a direction" --dim=3 --case=vortex-ring --axis=0,0,0
bad 2 "n: the box needs at least 4 cells a side (y has 1)" --dim=3 --n=16 --ly=0.5
bad 2 "lx, ly, lz: the box's sides must hold whole cells of one size" --dim=3 --n=10 --ly=4.9
bad 2 "dt: 1 exceeds the RK4 stability limit" --dim=3 --n=16 --dt=1
bad 2 "mach: the Taylor-Green vortex's pressure 1/gamma - 3 mach^2 / 8 goes negative at mach 1.5" --dim=3 --mach=1.5
bad 2 "--case: 'vortex' is not one of uniform|taylor-green|vortex-tube|pulse|vortex-ring" --dim=3 --case=vortex

clean_dir
run --dim 3 --n=12 --t-end=0.5 --frames=1
result $([ "$(cat rc)" -eq 0 ] && head -n 1 out_history.csv | grep -q '^step,time,kinetic_energy,dissipation,enstrophy,mass,energy,max_dp$' &&
  [ -f out_0000.vtr ] && [ -f out_0001.vtr ] && [ "$(grep -c DataSet out.pvd)" -eq 2 ] && grep -q '^dim: 3$' stdout &&
  grep -q '^nodes: 12 x 12 x 12$' stdout && grep -q '^time: 0.5$' stdout && grep -q '^kinetic_energy_initial: 1.25' stdout &&
  echo 0 || echo 1) "--dim=3: the Taylor-Green vortex writes its history (kinetic energy, dissipation, enstrophy), frames and .pvd"
picture_made out_vorticity.png
result $? "--dim=3: the vorticity picture is a PNG, named in the summary (or it says why there is none)"

clean_dir
run --dim=3 --case=uniform --n=8 --mach=0.3 --steps=10 --frames=0
result $([ "$(cat rc)" -eq 0 ] && grep -q '^kinetic_energy_final: 5.000000000e-01$' stdout &&
  [ "$(tail -n 1 out_history.csv | cut -d, -f4,5,8)" = "0.000000000000e+00,0.000000000000e+00,0.000000000e+00" ] && echo 0 || echo 1) \
  "--dim=3: uniform flow stays uniform (no dissipation, no enstrophy, max_dp 0)"

clean_dir
run --dim=3 --bench --n=16 --steps=2
result $([ "$(cat rc)" -eq 0 ] && grep -q '^cell_stages_per_second: ' stdout && grep -q '^fraction_of_copy: ' stdout &&
  nothing_written && echo 0 || echo 1) "--dim=3 --bench prints cell-stages per second and the fraction of copy bandwidth, writes nothing"

clean_dir
echo precious >out_history.csv
run --dim=3 --mach=1.2 --inviscid --convection=divergence --n=8 --steps=400 --png=no
result $([ "$(cat rc)" -eq 1 ] && grep -q "the flow blew up by step [0-9]* (non-positive or non-finite state at node" stderr &&
  [ "$(cat out_history.csv)" = precious ] && [ ! -e out.pvd ] && echo 0 || echo 1) \
  "--dim=3: a blow-up exits 1 naming the step and the node; the history and the frame index are not committed"

finish
