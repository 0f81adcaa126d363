#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hd-nbody's contract with its user: good runs write the CSV time series,
# the snapshot series and a key: value summary; bad input of any kind gives
# one line on stderr naming the problem, exit status 2, and writes nothing.
set -u
. "${top_srcdir:-.}/tests/cli_lib.sh"
bin=$top/drivers/hd-nbody
parse_refusals n
refused_at_once --ic=file --bodies=/dev/zero
refused_at_once --ic=file --bodies=fifo.in
printf '0,0,0,0,0,0,1\n1,0,0,0,1,0,1\0002\n' >nul.csv
bad 2 "nul.csv:2: binary data in body file" --ic=file --bodies=nul.csv

printf 'x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n1,0,0,0,1,0,0.001\n' >good.csv
printf '0,0,0,0,0,0,1\n1,0,0,0,1\n' >short.csv
printf '0,0,0,0,0,0,1\n1,0,0,0,1,0,abc\n' >word.csv
printf '0,0,0,0,0,0,1\n1,0,0,0,1,0,-2\n' >negmass.csv
printf '# only a comment\n' >empty.csv
printf '0,0,0,0,0,0,1\n\001\002junk\n' >junk.csv
printf '0.5,0.5,0,0,0,0,1\n1.5,0.5,0,0,0,0,1\n' >square.csv
printf 'n = 64\nsteps = 3\n' >good.in

bad 2 "--n: 0 is out of range" --n=0
bad 2 "--n: -5 is out of range" --n=-5
bad 2 "too large for memory" --n=100000000000 --steps=1
bad 2 "--softening: -0.1 is out of range" --softening=-0.1
bad 2 "--dt: 0 is out of range" --dt=0
bad 2 "--dt: -1 is out of range" --dt=-1
bad 2 "short.csv:2: expected 7 values (x,y,z,vx,vy,vz,m), got 5" --ic=file --bodies=short.csv
bad 2 "word.csv:2: m is not a finite number" --ic=file --bodies=word.csv
bad 2 "negmass.csv:2: negative mass" --ic=file --bodies=negmass.csv
bad 2 "has no bodies" --ic=file --bodies=empty.csv
bad 2 "junk.csv:2: binary data" --ic=file --bodies=junk.csv
bad 2 "cannot open body file 'none.csv'" --ic=file --bodies=none.csv
bad 2 "outside the unit square" --ic=file --bodies=square.csv --dim=2
bad 2 "--ic=file needs --bodies=FILE" --ic=file
bad 2 "--n is taken from the body file" --ic=file --bodies=good.csv --n=5
bad 2 "--dim=2 (periodic unit square) takes --ic=uniform or --ic=file" --dim=2 --ic=plummer
bad 2 "--eccentricity: 1 is out of range" --ic=kepler --eccentricity=1
bad 2 "unknown option '--softenning' (did you mean 'softening'?)" --softenning=1
bad 2 "'fast' is not one of leapfrog|euler" --integrator=fast
bad 2 "cannot write in directory" --output=no/such/dir/x --n=8 --steps=1
bad 2 "--method=tree takes 3-D free space" --method=tree --dim=2 --ic=uniform
bad 2 "--theta is read only with --method=tree" --theta=0.3
bad 2 "--theta: 1.5 is out of range" --method=tree --theta=1.5
bad 2 "'barnes' is not one of direct|tree" --method=barnes

# a runaway energy error stops the run: the blog code's semi-implicit Euler at
# dt = 0.05 loses most of the binding energy of an e = 0.9 orbit at its
# first pericentre, far beyond half the initial energy scale
clean_dir
run --ic=kepler --eccentricity=0.9 --dt=0.05 --steps=2000 --integrator=euler --diag-every=100 --max-growth=0.5
result $([ "$(cat rc)" -eq 1 ] && grep -q "runaway energy after step 100: |E - E0| = 0.47" stderr && [ ! -e out.csv ] &&
  [ ! -e out.pvd ] && echo 0 || echo 1) "runaway energy error exits 1 naming the step, the error and the bound"

# good runs
clean_dir
run --n=64 --steps=20 --diag-every=5
rows=$(wc -l <out.csv 2>/dev/null || echo 0)
result $([ "$(cat rc)" -eq 0 ] && [ "$rows" -eq 6 ] && [ -s out_000000.vtp ] && [ -s out_000020.vtp ] &&
  grep -q 'out_000020.vtp' out.pvd && head -n 1 out.csv | grep -q '^step,time,kinetic,potential,total,relative_energy_error' &&
  echo 0 || echo 1) "Plummer run writes out.csv (header + 5 rows), two snapshots and the .pvd series"
grep -q '^relative_energy_error: ' stdout && grep -q '^virial_ratio: ' stdout
result $? "the summary is key: value lines with the energy error and virial ratio"
picture_made out.png
result $? "the run draws the bodies as out.png and names it (or says why not)"

clean_dir
run --ic=file --bodies=good.csv --softening=0 --steps=10 --format=vtk --snapshot-every=5
result $([ "$(cat rc)" -eq 0 ] && grep -q '^bodies: 2$' stdout && [ -s out_000005.vtk ] &&
  head -n 1 out_000005.vtk | grep -q '^# vtk DataFile' && [ ! -e out.pvd ] && echo 0 || echo 1) \
  "a CSV body file with a header line runs; --format=vtk writes legacy snapshots every 5 steps, and no .pvd (XML files only)"
clean_dir
run --ic=file --bodies=good.csv --softening=0 --steps=10
result $([ "$(cat rc)" -eq 0 ] && grep -q 'NumberOfPoints="2" NumberOfVerts="1"' out_000010.vtp &&
  grep -q '<DataArray type="Int32" Name="connectivity"' out_000010.vtp && grep -q 'file="out_000010.vtp"' out.pvd &&
  echo 0 || echo 1) "a .vtp snapshot holds its bodies in one vertex cell (what ParaView draws), listed in the .pvd"

clean_dir
run --ic=kepler --eccentricity=0.3 --softening=0 --dt=0.001 --steps=500 --precision=single
result $([ "$(cat rc)" -eq 0 ] && grep -q '^precision: single$' stdout && echo 0 || echo 1) "--ic=kepler in single precision"

clean_dir
run --dim=2 --ic=uniform --n=100 --integrator=euler --steps=10 --softening=0.05
result $([ "$(cat rc)" -eq 0 ] && grep -q '^geometry: 2-D periodic unit square$' stdout &&
  grep -q '^integrator: semi-implicit Euler$' stdout && echo 0 || echo 1) "2-D periodic square with the blog code's semi-implicit Euler"

clean_dir
run --input=good.in --steps=4
result $([ "$(cat rc)" -eq 0 ] && grep -q '^steps: 4$' stdout && grep -q '^bodies: 64$' stdout && echo 0 || echo 1) \
  "command-line values override the input file"

clean_dir
run --n=300 --steps=20 --method=tree --theta=0.4 --leaf=8 --diag-every=10
result $([ "$(cat rc)" -eq 0 ] && grep -q '^method: tree$' stdout && grep -q '^theta: 0.4$' stdout &&
  [ "$(wc -l <out.csv)" -eq 4 ] && echo 0 || echo 1) "--method=tree runs, its theta and leaf in the summary"

clean_dir
run --bench --n=2000 --steps=2 --method=tree
result $([ "$(cat rc)" -eq 0 ] && grep -q '^seconds_per_step: ' stdout && grep -q '^bodies_per_second: ' stdout &&
  nothing_written && echo 0 || echo 1) "--bench --method=tree prints the time of a step and its phases"

clean_dir
run --bench --n=256 --steps=2
result $([ "$(cat rc)" -eq 0 ] && grep -q '^interactions_per_second: ' stdout &&
  grep -q '^gflops: .*20 flops per interaction' stdout && nothing_written && echo 0 || echo 1) \
  "--bench prints interactions/s and GFLOP/s (20 flops an interaction) and writes nothing"

finish
