#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The pictures a model asks for (plot, plot-far0d, plot-far1d, far1d-*;
# OpenFDTD's plot keys): each CSV beside its picture holds the numbers hd
# already writes (ports, points, far field, averages, probes) as the picture
# draws them, a PNG wherever libpng is, and bad values get FILE:LINE, exit 2.
set -u
. "${top_srcdir:-.}/tests/cli_lib.sh"
bin=$top/drivers/hd-fdtd

# a dipole fed at its centre with a voltage point beside it, PML
cat >dipole.in <<'IN'
xmesh = -0.075 30 0.075
ymesh = -0.075 30 0.075
zmesh = -0.075 10 -0.025 11 0.025 10 0.075
geometry = 1 box 0 0 0 0 -0.025 0.025
feed = Z 0 0 0 1 50
point = Z 0.03 0 0 +X
frequency = 2.5e9
steps = 300
boundary = pml
frequencies = 2e9 3e9 5
farfield = 18 36
plot = history feed-waveforms,point-waveforms
plot = smith admittance sparameters coupling far2d
plot-far0d = 90 0
plot-far1d = Z 36
plot-far1d = V 36 0
far1d-component = total,theta,phi
IN
"$bin" --progress=0 --input=dipole.in --output=a --volume=no --slice=none >a.out 2>a.err
result $? "a model asking for every picture runs"
png=yes
grep -q '^#define HD_HAVE_PNG' "$config_h" || png=no
ok=0
for f in history feed_waveforms point_waveforms smith admittance sparameters coupling far0d far1d_1 far1d_2 far2d; do
  grep -q "^plot: a_$f.csv" a.out && [ -s a_$f.csv ] || { echo "# no a_$f.csv"; ok=1; }
  if [ $png = yes ]; then grep -q "^plot: a_$f.png" a.out && [ -s a_$f.png ] || { echo "# no a_$f.png"; ok=1; }
  else grep -q "^plot: a_$f.csv (no picture: " a.out && [ ! -e a_$f.png ] || { echo "# a_$f.png or no reason"; ok=1; }; fi
done
result $ok "each picture named on a plot: line, its CSV beside it (PNG: $png)"

# compare FILE_A COLUMN_A FILE_B COLUMN_B TOL: the columns (numbers only) agree within TOL, as many rows
same_columns() {
  awk -F, -v ca="$2" -v cb="$4" -v tol="$5" 'FNR == 1 { next }
    FILENAME == ARGV[1] { a[na++] = $ca; next } { b[nb++] = $cb }
    END { if (na != nb || na == 0) { print "# rows " na " and " nb; exit 1 }
          for (i = 0; i < na; ++i) { d = a[i] - b[i]; if (d < 0) d = -d; if (d > tol) { print "# row " i ": " a[i] " " b[i]; exit 1 } } }' "$1" "$3"
}
same_columns a_smith.csv 2 a_ports.csv 10 1e-8 && same_columns a_smith.csv 3 a_ports.csv 11 1e-8
result $? "the Smith chart's points are the ports' reflection coefficients"
awk -F, 'NR > 1 { z2 = $7 * $7 + $8 * $8; printf "G,%.9g,%.9g\n", $1 / 1e9, 1e3 * $7 / z2 }' a_ports.csv >g.csv
grep '^G PORT 1,' a_admittance.csv | sed 's/^G PORT 1/G/' >ga.csv
sed -i '1i curve,x,y' g.csv ga.csv
same_columns ga.csv 3 g.csv 3 1e-6
result $? "the admittance's G is 1000 Re(1/Z) of the ports (mS)"
grep ',S11,' a_points.csv >s.csv && sed -i '1i f,name,db,deg' s.csv
same_columns a_sparameters.csv 3 s.csv 3 1e-5
result $? "the points' S11 curve is the points file's"
grep ',C11,' a_points.csv >c.csv && sed -i '1i f,name,db,deg' c.csv
same_columns a_coupling.csv 3 c.csv 3 1e-5
result $? "the coupling curve is the points file's C11"
# the far field at (90, 0) and the Z cut at phi = 10 k equal the sphere's gain there (a grid direction)
awk -F, '$2 == 90 && $3 == 0 { print }' a_farfield.csv | sed '1i h' >f0.csv
same_columns a_far0d.csv 3 f0.csv 9 2e-6
result $? "the far field in one direction is the sphere's gain there, at each frequency"
awk -F, '$1 == "2 GHZ" { print }' a_far1d_1.csv | sed '1i h' >cut.csv
awk -F, 'NR > 1 && $1 == 2e9 && $2 == 90 { print }' a_farfield.csv | sed '1i h' >ring.csv
awk -F, 'NR > 1 && $1 == 2e9 && $2 == 90 && $3 == 0 { print }' a_farfield.csv >>ring.csv # phi = 360 closes the cut
same_columns cut.csv 3 ring.csv 9 2e-6
result $? "the xy cut (plot-far1d = Z 36) is the sphere's theta = 90 ring"
# V at phi = 0 beyond theta = 180 is the far side: (360 - theta, 180)
# (the nulls on the axis are left out: the cut floors at -300 dB)
awk -F, '$1 == "2 GHZ" && $2 > 180 && $2 < 360 { print }' a_far1d_2.csv | sed '1i h' >back.csv
awk -F, 'NR > 1 && $1 == 2e9 && $3 == 180 && $2 > 0 && $2 < 180 { print }' a_farfield.csv | sort -t, -k2,2gr | sed '1i h' >side.csv
same_columns back.csv 3 side.csv 9 2e-6
result $? "the V cut past theta = 180 is the phi = 180 half of the sphere"
awk -F, '$1 == "2 GHZ THETA" || $1 == "2 GHZ PHI" { s[$2] += 10 ^ ($3 / 10) } $1 == "2 GHZ" { t[$2] = 10 ^ ($3 / 10) }
  END { for (a in t) if (t[a] > 1e-3 && (s[a] - t[a]) * (s[a] - t[a]) > 1e-8 * t[a] * t[a]) { print "# " a; exit 1 } }' a_far1d_1.csv
result $? "the cut's theta and phi parts add to its total"
# the history: log10 of the averages; the feed waveforms: log10 |V| and |I| against ns
awk -F, 'NR > 1 { printf "E,%s,%.9g\n", $1, log($3) / log(10) }' a_average.csv | sed '1i h' >e.csv
grep '^E AVERAGE,' a_history.csv | sed '1i h' >he.csv
same_columns he.csv 3 e.csv 3 1e-7
result $? "the convergence history is log10 of the E average the run wrote"
awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == "feed1_v") c = i; next }
  $c != 0 { printf "V,%.9g,%.9g\n", $2 * 1e9, log($c < 0 ? -$c : $c) / log(10) }' a_probes.csv | sed '1i h' >v.csv
awk -F, '$1 == "V FEED 1" && $3 != "nan" { print }' a_feed_waveforms.csv | sed '1i h' >fv.csv
same_columns fv.csv 3 v.csv 3 1e-7
result $? "the feed waveform is log10 |V| of the feed's record"
[ "$(grep -c '^theta' a_far2d.csv)" -eq 1 ] && [ "$(($(wc -l <a_far2d.csv) - 1))" -eq $((19 * 36)) ]
result $? "the far-field map's CSV holds every direction of the sphere"
awk -F, 'NR > 1 && $3 == 0 && $8 > -100 { print $2 "," $8 }' a_farfield.csv | head -n 17 | sed '1i t,d' >dir.csv
awk -F, 'NR > 1 && $2 == 0 && $3 > -100 { print $1 "," $3 }' a_far2d.csv | sed '1i t,d' >map.csv
same_columns map.csv 2 dir.csv 2 2e-6
result $? "the far-field map is the sphere's directivity (phi = 0, first frequency)"
rm -f a_* a.* ./*.csv

# linear, normalised, Cartesian: the values run to 1
"$bin" --progress=0 --input=dipole.in --output=b --volume=no --slice=none --plot= --plot-far1d='Z 36' \
  --far1d-db=no --far1d-normalize=yes --far1d-style=cartesian --far1d-component=total >b.out 2>b.err
awk -F, 'NR > 1 && $1 == "2 GHZ" { if ($3 > m) m = $3; if ($3 < 0) bad = 1 } END { exit !(m > 0.999999 && m <= 1 + 1e-9 && !bad) }' b_far1d_1.csv
result $? "far1d-db=no, far1d-normalize=yes: each cut linear with its peak at 1"
rm -f b_* b.*

# the parts of the far field: theta + phi, major + minor and RHCP + LHCP each make the total; a z dipole is
# linearly polarised along theta (minor 0, the circular halves equal)
"$bin" --progress=0 --input=dipole.in --output=p --volume=no --slice=none --far2d-db=no \
  --far2d-component=total,theta,phi,major,minor,rhcp,lhcp >p.out 2>p.err
awk -F, 'NR == 1 { ok = $3 == "directivity_ratio" && $9 == "directivity_lhcp_ratio"; next }
  $3 > 1e-3 { t = $3; if ((($4 + $5 - t) / t) ^ 2 > 1e-12 || (($6 + $7 - t) / t) ^ 2 > 1e-12 || (($8 + $9 - t) / t) ^ 2 > 1e-12) bad = 1
    if ($7 / t > 1e-3 || (($8 - $9) / t) ^ 2 > 1e-6 || ($5 / t) > 1e-3) lin = 1; n++ }
  END { exit !ok || bad || lin || n < 300 }' p_far2d.csv
result $? "far2d-component: theta + phi = major + minor = rhcp + lhcp = total; the dipole's minor axis and E_phi vanish, RHCP = LHCP"
[ $png = no ] || { [ -s p_far2d.png ] && [ -s p_far2d_rhcp.png ] && [ -s p_far2d_minor.png ]; }
result $? "a map a part asked for (PNG: $png)"
rm -f p_* p.*

# matching-loss: realised gain, the gain less the mismatch, 10 log10(1 - |reflection|^2), at each frequency
grep -v '^plot\|^far1d' dipole.in >ml.in
"$bin" --progress=0 --input=ml.in --output=g0 --volume=no --slice=none >/dev/null 2>&1 &&
  "$bin" --progress=0 --input=ml.in --output=g1 --volume=no --slice=none --matching-loss=yes >g1.out 2>&1
ok=$?
awk -F, 'FILENAME == ARGV[1] { if (FNR > 1) m[$1 + 0] = 10 * log(1 - $10 * $10 - $11 * $11) / log(10); next }
  FILENAME == ARGV[2] { if (FNR > 1) g[FNR] = $9; next }
  FNR > 1 { d = $9 - g[FNR] - m[$1 + 0]; n++; if (d * d > 1e-10) bad = 1 } END { exit bad || n != 5 * 19 * 36 }' \
  g0_ports.csv g0_farfield.csv g1_farfield.csv || ok=1
grep -q '^farfield_1: .*available .* W, realised gain' g1.out || ok=1
result $ok "matching-loss=yes: every gain less 10 log10(1 - |reflection|^2) of the port at its frequency, said on the summary"
rm -f g0_* g1_* g1.out ml.in

# under a plane wave the near fields are the total field, as the probes: a dielectric cube lit in the
# scattered-field form (the incident wave added to the map) against the total-field box (inside it the
# grid's own total field, outside it the incident added), E and H along a line through both regions
cat >cube.in <<'IN'
xmesh = -0.075 30 0.075
ymesh = -0.075 30 0.075
zmesh = -0.075 30 0.075
material = 4 0 1 0
geometry = 2 box -0.02 0.02 -0.02 0.02 -0.02 0.02
planewave = 0 0 V
frequency = 3e9
frequencies = 1.5e9 2.5e9 3
boundary = cpml
steps = 600
IN
ok=0
for f in tfsf sf; do
  "$bin" --progress=0 --input=cube.in --output=$f --volume=no --slice=none --planewave-form=$f \
    --nearline='ex z 0.0025 0.0025' --nearline='hy z 0.0025 0.0025' >$f.out 2>&1 || ok=1
done
for l in 1 2; do
  paste -d, tfsf_line$l.csv sf_line$l.csv | awk -F, 'NR > 1 { r = $6 / $3; n++; if (r < 0.995 || r > 1.005) bad = 1 } END { exit bad || n != 90 }' || ok=1
done
for f in tfsf sf; do # near1d-noinc: the scattered field, which outside the box both forms hold
  "$bin" --progress=0 --input=cube.in --output=n$f --volume=no --slice=none --planewave-form=$f \
    --nearline='ex z 0.0025 0.0025' --near1d-noinc=yes >/dev/null 2>&1 || ok=1
done
paste -d, nsf_line1.csv sf_line1.csv ntfsf_line1.csv | awk -F, 'NR > 1 { n++; if ($3 > 0.9 * $6) same++ }
  NR > 1 && ($2 < -0.068 || $2 > 0.068) { r = $3 / $9; m++; if (r < 0.995 || r > 1.005) bad = 1 }
  END { exit bad || m != 3 * 2 || same == n }' || ok=1
result $ok "plane wave: |Ex| and |Hy| along z through a dielectric cube, the scattered-field form with the incident added within 0.5 % of the total-field box's at 90 points; near1d-noinc=yes the scattered field alone, as the box's outside holds it"
rm -f tfsf* sf* ntfsf* nsf* cube.in

# OpenFDTD's keys translate to these
cat >dipole.ofd <<'IN'
OpenFDTD 4 2
xmesh = -0.075 30 0.075
ymesh = -0.075 30 0.075
zmesh = -0.075 10 -0.025 11 0.025 10 0.075
geometry = 1 1 0 0 0 0 -0.025 0.025
feed = Z 0 0 0 1 0 50
frequency1 = 2e9 3e9 4
frequency2 = 3e9 3e9 0
solver = 300 50 1e-3
plotiter = 1
plotfeed = 0
plotsmith = 1
plotzin = 1
plotyin = 2 2e9 3e9 4
plotfar0d = 90 0 1
plotfar1d = X 36
far1dstyle = 1
far1dcomponent = 0 1 1
far1ddb = 1
plotnear2d = Ez Z 0
plotnear2d = E X 0.03
plotnear1d = E Z 0.03 0
near2ddb = 1
plot3dgeom = 1
matchingloss = 1
end
IN
"$bin" --progress=0 --input=dipole.ofd --output=o --volume=no --slice=none >o.out 2>o.err
ok=$?
for f in history smith admittance far0d far1d_1 line1; do [ -s o_$f.csv ] || { echo "# no o_$f.csv"; ok=1; }; done
[ ! -e o_feed_waveforms.csv ] && [ -s o_near1.vtr ] && [ -s o_near2.vtr ] && grep -q 'not used: plot3dgeom (line 24)$' o.err && grep -q '^farfield_1: .*realised gain' o.out || ok=1
grep -q '^nearfield_2: |E| on the cell layer' o.out || ok=1
[ "$(cut -d, -f1 o_far1d_1.csv | sort -u | tr '\n' ' ')" = "3 GHZ 3 GHZ LHCP 3 GHZ MAJOR 3 GHZ MINOR 3 GHZ RHCP curve " ] || ok=1
result $ok "OpenFDTD's plot keys: drawn as asked (plotfeed = 0 none; far1dcomponent = 0 1 1: |E| with the ellipse's axes and the circular parts; Ez's and |E|'s maps, |E| on a line, near2ddb, matchingloss); plot3dgeom (a 3-D view of the geometry) named as not used"
rm -f o_* o.*

# near-field lines: |E| is the root of the sum of its components' squares, cell by cell
grep -v '^plot\|^far' dipole.in >lines.in
"$bin" --progress=0 --input=lines.in --output=n --volume=no --slice=none \
  --nearline='e z 0.03 0' --nearline='ex z 0.03 0' --nearline='ey,z,0.03,0' --nearline='ez z 0.03 0' >n.out 2>n.err
ok=$?
paste -d, n_line1.csv n_line2.csv n_line3.csv n_line4.csv | awk -F, 'NR > 1 { e = sqrt($6 * $6 + $9 * $9 + $12 * $12); n++
  if ($2 != $5 || (e - $3) * (e - $3) > 1e-12 * e * e) bad = 1 } END { exit bad || n != 5 * 31 }' || ok=1
result $ok "nearline = e: |E| along z equals the root of |Ex|^2 + |Ey|^2 + |Ez|^2 of the three component lines, at each of 31 cells and 5 frequencies"
# the map's CSV: a line through the plane is the map's row
"$bin" --progress=0 --input=lines.in --output=c --volume=no --slice=none --nearfield='e z 0.01' --nearline='e x 0.0025 0.01' >c.out 2>&1
awk -F, 'NR > 1 && $2 == 0.0025 { print "r," $1 "," $3 }' c_near1.csv | sed '1i h' >row.csv
awk -F, 'NR > 1 && $1 == "2 GHZ"' c_line1.csv | sed '1i h' >l1.csv
same_columns row.csv 3 l1.csv 3 1e-20 && same_columns row.csv 2 l1.csv 2 1e-12 && grep -q '^nearfield_1: |E| on .* c_near1.csv' c.out
result $? "nearfield's CSV beside its picture: the row through a nearline's cells holds the line's values"
rm -f c_* c.out row.csv l1.csv

# near1d-db: the same line in dB
"$bin" --progress=0 --input=lines.in --output=d --volume=no --slice=none --nearline='e z 0.03 0' --near1d-db=yes >d.out 2>d.err
paste -d, n_line1.csv d_line1.csv | awk -F, 'NR > 1 { d = 20 * log($3) / log(10) - $6; n++; if (d * d > 1e-10) bad = 1 }
  END { exit bad || n != 5 * 31 }'
result $? "near1d-db=yes: the line is 20 log10 of the amplitude"
rm -f n_* n.* d_* d.*
if [ $png = yes ]; then # the outline marks the cells the wire crosses, and nothing where none does
  for at in "y 0" "x 0.06"; do
    for o in no yes; do
      "$bin" --progress=0 --input=lines.in --output="m$o" --volume=no --slice=none --frequencies=2e9 \
        --nearfield="e $at" --near2d-outline=$o --near2d-contour=yes --near2d-db=yes >/dev/null 2>&1
    done
    if cmp -s mno_near1.png myes_near1.png; then echo same; else echo differ; fi
    rm -f mno_* myes_*
  done >outline.txt
  [ "$(tr '\n' ' ' <outline.txt)" = "differ same " ]
  result $? "near2d-outline draws the wire on the plane through it (y = 0) and nothing on one it does not cross (x = 0.06)"
fi
if [ $png = yes ]; then # near2d-zoom: the window's cells alone (10 x 21 of 30 x 31, magnified 25x: 250 x 525 pixels,
  # under a title and over an extent line, 39 rows together, the colour bar beside); near2d-frames: a picture a phase
  "$bin" --progress=0 --input=lines.in --output=z --volume=no --slice=none --frequencies=2e9 --nearfield='ez y 0' \
    --near2d-zoom='-0.025 0.025 -0.05 0.05' --near2d-frames=3 >z.out 2>&1
  size=$(od -An -tu1 -j16 -N8 z_near1.png | awk '{ print $3 * 256 + $4, $7 * 256 + $8 }')
  [ "${size#* }" = 564 ] && [ "${size% *}" -gt 250 ] && [ -s z_near1_frame1.png ] && [ -s z_near1_frame3.png ] && [ ! -e z_near1_frame4.png ] &&
    grep -q 'and 3 frames z_near1_frame1.png' z.out
  result $? "near2d-zoom draws the window's cells (got ${size:-nothing} pixels), near2d-frames=3 three pictures"
  rm -f z_* z.out
fi

# bad values: FILE:LINE, exit 2
{ cat dipole.in; echo 'plot = smith nonsense'; } >bad1.in
bad 2 "bad1.in:$(wc -l <bad1.in): plot: 'nonsense' is none of" --input=bad1.in
bad 2 "command line: plot-far1d: expected" --input=dipole.in --plot-far1d='Q 10'
bad 2 "plot-far1d: expected" --input=dipole.in --plot-far1d='V 10'
bad 2 "command line: far1d-component: 'e' is none of" --input=dipole.in --far1d-component=total,e
bad 2 "far1d-scale: expected 'MIN MAX'" --input=dipole.in --far1d-scale='0 -40'
bad 2 "plot-far0d: expected 'THETA PHI'" --input=dipole.in --plot-far0d='200 0'
bad 2 "command line: nearline: expected 'ex|ey|ez|hx|hy|hz|e|h x|y|z P1 P2'" --input=dipole.in --nearline='ez q 0 0'
bad 2 "nearline: expected" --input=dipole.in --nearline='ez x 0'
bad 2 "nearline: 0.5 is outside the domain along y" --input=dipole.in --nearline='ez x 0.5 0'
bad 2 "command line: nearline: at most 16 planes in all" --input=dipole.in --nearfield='e x 0' --nearfield='h y 0' --nearfield='e z 0' --nearfield='h x 0' --nearfield='e y 0' --nearline='e z 0 0'
bad 2 "command line: near1d-scale: expected 'MIN MAX'" --input=dipole.in --near1d-scale='1 1'
bad 2 "command line: near2d-zoom: expected 'U0 U1 V0 V1'" --input=dipole.in --near2d-zoom='0 1 2'
bad 2 "command line: near2d-scale: expected 'MIN MAX'" --input=dipole.in --near2d-scale='-20'
bad 2 "command line: far2d-component: 'x' is none of total, theta" --input=dipole.in --far2d-component=x
sed 's/^plotfar1d = X 36$/plotfar1d = Q 36/' dipole.ofd >bad.ofd
bad 2 "bad.ofd:16: plot-far1d: expected" --input=bad.ofd
grep -v '^farfield' dipole.in >nofar.in
bad 2 "plot-far0d: give farfield too" --input=nofar.in
finish
