#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hd-fdtd's contract with its user: good runs write the probe and average
# time series, the field volume and the slice; bad input files give one line
# with file:line where there is one, exit status 2, and write nothing.
set -u
. "${top_srcdir:-.}/tests/cli_lib.sh"
bin=$top/drivers/hd-fdtd
refused_at_once --input=fifo.in
refused_at_once --input=/dev/zero

cat >good.in <<'IN'
# a small cavity with a dielectric block, a wire and a feed
xmesh = 0 12 0.12
ymesh = 0 10 0.1
zmesh = 0 8 0.08
material = 4 0.01 1 0
geometry = 2 box 0.02 0.06 0.02 0.05 0.01 0.04
geometry = 1 box 0.06 0.06 0.05 0.05 0.02 0.06
feed = Z 0.06 0.05 0.015 1 50
probe = ez 0.03 0.03 0.03
frequency = 3e9
steps = 60
IN
sed 's/^steps = 60/stpes = 60/' good.in >typo.in
grep -v '^ymesh' good.in >nomesh.in
sed 's/^geometry = 2 box 0.02 0.06/geometry = 2 box 0.02 0.16/' good.in >beyond.in
sed 's/^geometry = 1 box/geometry = 7 box/' good.in >badmat.in
printf 'timestep = 1e-9\n' | cat good.in - >unstable.in
sed 's/^geometry = 2 box 0.02 0.06 0.02 0.05 0.01 0.04/geometry = 2 pyramid 1 2 3/' good.in >shape.in
sed 's/^material = 4 0.01 1 0/material = 0.5 0 1 0/' good.in >eps.in
sed 's/^xmesh = 0 12 0.12/xmesh = 0 12 -0.12/' good.in >mesh.in
sed 's/^feed = Z 0.06 0.05 0.015 1 50/feed = Q 0.06 0.05 0.015 1 50/' good.in >feed.in
sed 's/^probe = ez 0.03 0.03 0.03/probe = ez 0.03 0.03 0.5/' good.in >probe.in
sed 's/^feed = Z 0.06 0.05 0.015 1 50/feed = Z 0 0.05 0.015 1 50/' good.in >onface.in

# values that are not finite numbers, or carry junk, are refused
# the command line's mesh replaces the file's (the doc's "the command line wins"); twice on one side is an error
clean_dir
run --input=good.in --xmesh="0 6 0.12" --steps=2
result $([ "$(cat rc)" -eq 0 ] && grep -q '6 x 10 x 8 cells' stderr && echo 0 || echo 1) \
  "--xmesh on the command line replaces the input file's xmesh"
bad 2 "xmesh given twice" --input=good.in --xmesh="0 6 0.12" --xmesh="0 4 0.12"
bad 2 "frequencies: expected 'F' or 'F0 F1 N' (finite" --input=good.in --frequencies=inf
bad 2 "frequencies: expected 'F' or 'F0 F1 N' (finite" --input=good.in --frequencies="1e9 inf 3"
bad 2 "frequencies: expected 'F' or 'F0 F1 N' (finite" --input=good.in --frequencies=1e9junk
bad 2 "frequencies: expected 'F' or 'F0 F1 N' (finite" --input=good.in --frequencies="1e9 2e9 3.5"
bad 2 "slice: expected" --input=good.in --slice="ez z 0junk"
bad 2 "slice: expected" --input=good.in --slice="ez z 0 junk"
bad 2 "slice: expected" --input=good.in --slice="ez z nan"
bad 2 "nearfield: expected" --input=good.in --frequencies=1e9 --nearfield="ez z nan"
bad 2 "nearline: expected" --input=good.in --frequencies=1e9 --nearline="ez z 0 nan"
bad 2 "farfield: expected 'NTHETA NPHI'" --input=good.in --frequencies=1e9 --farfield="6x 8"
bad 2 "typo.in:11: unknown key 'stpes' (did you mean 'steps'?)" --input=typo.in
bad 2 "missing mesh: give ymesh" --input=nomesh.in
bad 2 "beyond.in:6: geometry: box outside the domain along x" --input=beyond.in
bad 2 "badmat.in:7: geometry: material 7 out of range" --input=badmat.in
bad 2 "unstable.in:12: timestep: 1e-09 exceeds the Courant limit" --input=unstable.in
bad 2 "shape.in:6: geometry: unknown shape 'pyramid'" --input=shape.in
bad 2 "eps.in:5: material: need epsr >= 1" --input=eps.in
bad 2 "mesh.in:2: xmesh: mesh lines must increase" --input=mesh.in
bad 2 "feed.in:8: feed: 'Q' is not X, Y or Z" --input=feed.in
bad 2 "probe.in:9: probe: point outside the domain along z" --input=probe.in
bad 2 "onface.in:8: feed: the edge lies on a boundary face" --input=onface.in
bad 2 "boundary: 'absorbing' is not pec, mur, pml, cpml or periodic" --input=good.in --boundary=absorbing
bad 2 "pml: expected 'layers order R0'" --input=good.in --boundary=pml --pml=8,4,2
bad 2 "slice: expected" --input=good.in --slice=ez
bad 2 "--bench: 5 is out of range" --bench=5
bad 2 "--block: 0 is out of range" --input=good.in --block=0
bad 2 "--time-block: '0' is not auto or a step count from 1 to 16" --input=good.in --time-block=0
bad 2 "--time-block: '17' is not auto or a step count from 1 to 16" --input=good.in --time-block=17
bad 2 "--time-block: '4x' is not auto or a step count" --input=good.in --time-block=4x
bad 2 "dft-decimation: '0' is not auto or a step count from 1 to 1000000" --input=good.in --dft-decimation=0
bad 2 "dft-decimation: 'every' is not auto or a step count" --input=good.in --dft-decimation=every
bad 2 "boundary: pml and cpml on one grid" --input=good.in --boundary=pml --boundary-z=cpml
bad 2 "cpml: expected 'KAPPA,ALPHA'" --input=good.in --boundary=cpml --cpml=0.5,0
bad 2 "point: '+W' is not a direction" --input=good.in --point="Z 0.03 0.03 0.03 +W"
bad 2 "point: the first point needs a neighbour either side along x" --input=good.in --point="Z 0 0.03 0.03"
bad 2 "--mur: 'x' is not one of e|h" --input=good.in --mur=x
bad 2 "farfield-frequencies: expected 'F' or 'F0 F1 N'" --input=good.in --frequencies=1e9 --farfield-frequencies=2e9,1e9,3
bad 2 "huygens-margin: 0 puts the Huygens box on the faces" --input=good.in --frequencies=1e9 --farfield=6,8 --huygens-margin=0

# good runs
clean_dir
run --input=good.in --slice="ez z 0.03"
result $([ "$(cat rc)" -eq 0 ] && [ "$(wc -l <out_probes.csv)" -eq 61 ] &&
  head -n 1 out_probes.csv | grep -q '^step,time,ez(3;3;3),feed1_v,feed1_i$' &&
  head -n 1 out_average.csv | grep -q '^step,time,e_average,h_average$' && grep -q 'ImageData' out.vti &&
  grep -q RectilinearGrid out_slice.vtr && echo 0 || echo 1) \
  "a run writes the probe and average series, the volume and the slice"
picture_made out_slice.png
# the volume where its mesh is: an image's origin its first node, here and on a mesh not at 0
grep -q 'Origin="0 0 0" Spacing="0.01 0.01 0.01"' out.vti
result $? "the volume's image starts at the mesh's first node (0, 0, 0) with its spacing"
sed 's/^xmesh = 0 12 0.12/xmesh = -0.06 12 0.06/; s/^zmesh = 0 8 0.08/zmesh = -0.5 8 -0.42/; s/^geometry.*//; s/^feed.*//; s/^probe.*//' good.in >shifted.in
printf 'source = Z 0 0.05 -0.45 1\n' >>shifted.in
run --input=shifted.in --steps=5 --output=sh
result $([ "$(cat rc)" -eq 0 ] && grep -q 'Origin="-0.059999999999999998 0 -0.5" ' sh.vti && echo 0 || echo 1) \
  "a mesh from (-0.06, 0, -0.5): the volume's image starts there"
mv out_probes.csv generic_probes.csv
clean_dir
run --input=good.in --backend=serial --variant=generic
result $([ "$(cat rc)" -eq 0 ] && cmp -s out_probes.csv generic_probes.csv && echo 0 || echo 1) \
  "the serial generic loops write the probe series of the default (tuned) run byte for byte"
result $? "the slice picture is a PNG named in the summary (or it says why there is none)"
clean_dir
run --input=good.in
result $([ "$(cat rc)" -eq 0 ] && grep -q RectilinearGrid out_slice.vtr && echo 0 || echo 1) \
  "with no slice asked for, Ez on the middle z layer is the slice"
picture_made out_slice.png
result $? "and its picture is drawn and named (or the summary says why not)"
clean_dir
run --input=good.in --slice=none
result $([ "$(cat rc)" -eq 0 ] && [ ! -e out_slice.vtr ] && [ ! -e out_slice.png ] && grep -q '^picture: none (--slice=none)' stdout &&
  echo 0 || echo 1) "--slice=none: no slice, no picture"
grep -q '^memory_GB: ' stdout && grep -q '^dt_limit: ' stdout
result $? "the summary is key: value lines with the memory used and the Courant limit"

clean_dir
printf 'xmesh = 0 10 0.1 4 0.16\n' >mesh2.in
grep -v '^xmesh' good.in >>mesh2.in
run --input=mesh2.in --boundary=pml --pml=4,3,1e-4 --steps=20
result $([ "$(cat rc)" -eq 0 ] && grep -q RectilinearGrid out.vtr && echo 0 || echo 1) \
  "a non-uniform mesh writes a rectilinear volume; PML boundaries run"

clean_dir
run --input=good.in --volume=no --steps=10
result $([ "$(cat rc)" -eq 0 ] && [ -s out_probes.csv ] && [ ! -e out.vti ] && grep -q '^outputs: out_probes.csv out_average.csv out_slice.vtr$' stdout && echo 0 || echo 1) \
  "--volume=no writes the series and no volume"

clean_dir
run --input=good.in --converge=0.5 --steps=2000 --average-every=20
result $([ "$(cat rc)" -eq 0 ] && grep -q '^converged: yes$' stdout && echo 0 || echo 1) "--converge stops a decaying run early"

# a blow-up (a source of 1e308 A overflows at once) stops the run, names
# the field and the step, keeps existing outputs and commits nothing
clean_dir
sed 's/^steps = 60/steps = 30/' good.in >boom.in
printf 'source = Z 0.04 0.03 0.02 1e308\n' >>boom.in
echo precious >out_probes.csv
run --input=boom.in --average-every=2
result $([ "$(cat rc)" -eq 1 ] && grep -q "non-finite E and H field after step 2 (dt = .*Courant limit" stderr &&
  [ "$(cat out_probes.csv)" = precious ] && [ ! -e out.vtr ] && [ ! -e out_average.csv ] && [ ! -e out.vti ] && echo 0 || echo 1) \
  "a blow-up exits 1 naming the field, the step and dt against the Courant limit; nothing written"

clean_dir
run --bench=20 --steps=5
result $([ "$(cat rc)" -eq 0 ] && grep -q '^mcells_steps_per_second: ' stdout && grep -q '^benchmark: 20^3 cells, 5 steps' stdout && nothing_written && echo 0 || echo 1) \
  "--bench=N runs the built-in model for --steps, prints Mcells.steps/s and writes nothing"

finish
