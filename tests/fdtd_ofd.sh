#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# OpenFDTD model files (.ofd) run by hd-fdtd: each test model, one feature
# each, gives the same bytes as the hd-fdtd input that says the same thing
# in hd's keys (the translation is exact), keys hd does not use are named on
# one line, and bad lines give FILE:LINE, exit status 2.
set -u
. "${top_srcdir:-.}/tests/cli_lib.sh"
bin=$top/drivers/hd-fdtd

# same_run NAME OFD IN [ARGS]: both run; their probe CSVs (and ports, where
# written) equal byte for byte
same_run() {
  name=$1 ofd=$2 hd=$3
  shift 3
  "$bin" --progress=0 --input="$ofd" --output=a --volume=no --slice=none "$@" >a.out 2>a.err
  ra=$?
  "$bin" --progress=0 --input="$hd" --output=b --volume=no --slice=none "$@" >b.out 2>b.err
  rb=$?
  same=0
  [ "$ra" -eq 0 ] && [ "$rb" -eq 0 ] && cmp -s a_probes.csv b_probes.csv || same=1
  if [ -e b_ports.csv ] && ! cmp -s a_ports.csv b_ports.csv; then same=1; fi
  result "$same" "$name: $ofd runs as $hd, probes (and ports) byte for byte"
  [ "$same" -eq 0 ] || sed 's/^/# /' a.err b.err
  rm -f a_* b_*
}

# what every translated model says besides its lines: OpenFDTD's time step
# (the Courant limit), precision (single) and Mur (on H outside the faces);
# feeds add OpenFDTD's release after the pulse
ofd_keys='courant = 1
precision = single
mur = h
subpixel = no'

# a dipole fed at its centre (OpenFDTD's first sample, with PML)
cat >dipole.ofd <<'IN'
OpenFDTD 4 2
title = dipole antenna
xmesh = -0.075 30 0.075
ymesh = -0.075 30 0.075
zmesh = -0.075 10 -0.025 11 0.025 10 0.075
material = 1 2.0 0.0 1.0 0.0 a name
geometry = 1 1 0 0 0 0 -0.025 0.025
name = the wire
feed = Z 0 0 0 1 0 50
point = Z 0.03 0 0 +X
frequency1 = 2e9 3e9 10
frequency2 = 3e9 3e9 0
solver = 300 50 1e-3
abc = 1 6 2 1e-4
plotiter = 1
plotfar2d = 18 36
plot3dgeom = 1
end
anything after end is not read
IN
# OpenFDTD's pulse: tw = 1.27 / (mean of frequency1), tau = tw / 4 = 1 / (pi frequency)
pulse=$(awk 'BEGIN { tw = 1.27 / (0.5 * (2e9 + 3e9)); printf "%.17g", 4.0 / (3.14159265358979323846 * tw) }')
cat >dipole.in <<IN
xmesh = -0.075 30 0.075
ymesh = -0.075 30 0.075
zmesh = -0.075 10 -0.025 11 0.025 10 0.075
material = 2.0 0.0 1.0 0.0
geometry = 1 box 0 0 0 0 -0.025 0.025
feed = Z 0 0 0 -1 0
point = Z 0.03 0 0 +X
steps = 300
average-every = 50
converge = 1e-3
boundary = pml
pml = 6,2,1e-4
frequencies = 2e9 3e9 11
farfield-frequencies = 3e9
frequency = $pulse
waveform = dgaussian
z0 = 50
farfield = 18 36
huygens-margin = 0
$ofd_keys
feed-release = yes
IN
same_run dipole dipole.ofd dipole.in
"$bin" --progress=0 --input=dipole.ofd --output=a --volume=no --slice=none >a.out 2>a.err
grep -q "^hd-fdtd: dipole.ofd: not used: plot3dgeom (line 17)$" a.err
result $? "the keys hd does not use are named on one line with their lines"
[ -s a_history.csv ] && [ -s a_far2d.csv ]
result $? "plotiter and plotfar2d draw the history and the far-field map (tests/fdtd_plots.sh checks them)"
[ "$(grep -c '^farfield_' a.out)" -eq 1 ] && grep -q '^farfield_1: 3e+09 Hz' a.out && [ -s a_farfield.csv ]
result $? "plotfar2d: the far field on its 18 x 36 directions at frequency2's frequency"
[ "$(grep -c ',S11,' a_points.csv)" -eq 11 ] && [ "$(grep -c ',C11,' a_points.csv)" -eq 11 ]
result $? "the point's S11 and its coupling to the feed at frequency1's 11 frequencies"
[ "$(grep -c '^[0-9].*,1,' a_ports.csv)" -eq 11 ] && grep -q '^2.500000000e+09,1,' a_ports.csv
result $? "the port's impedance at frequency1's 11 frequencies"
dt=$(sed -n 's/^dt: //p' a.out)
rm -f a_* a.*

# a feed's delay of 40 steps shifts the whole record by 40 steps (to 1e-5
# of its peak: the undelayed pulse starts at t = 0 at 1e-6 of its peak)
sed "s/^feed = Z 0 0 0 1 0 50/feed = Z 0 0 0 1 $(awk -v dt="$dt" 'BEGIN { printf "%.17g", 40 * dt }') 50/" dipole.ofd >late.ofd
"$bin" --progress=0 --input=dipole.ofd --output=a --volume=no --slice=none --converge=0 >/dev/null 2>&1
"$bin" --progress=0 --input=late.ofd --output=b --volume=no --slice=none --converge=0 >/dev/null 2>&1
awk -F, 'NR == FNR { if (FNR > 1) a[FNR] = $3; next }
  FNR > 41 { d = $3 - a[FNR - 40]; if (d < 0) d = -d; if (d > worst) worst = d; m = $3 < 0 ? -$3 : $3; if (m > top) top = m }
  END { exit !(top > 0 && worst <= 1e-5 * top) }' a_probes.csv b_probes.csv
result $? "a feed's delay (40 time steps) shifts the point's record by 40 steps (to 1e-5 of its peak)"
rm -f a_* b_*

# every OpenFDTD shape by number equals hd's named shape
cat >shapes.ofd <<'IN'
OpenFDTD 4 3
xmesh = -0.1 20 0.1
ymesh = -0.1 20 0.1
zmesh = -0.1 20 0.1
material = 1 3 0.01 1 0
geometry = 2 2 -0.09 -0.05 -0.09 -0.04 0.02 0.07
geometry = 2 11 -0.09 -0.05 0.04 0.08 -0.08 -0.05
geometry = 1 12 0.03 0.06 0.05 0.09 -0.09 -0.06
geometry = 2 13 0.05 0.09 -0.09 -0.05 0.03 0.09
geometry = 2 31 -0.02 0.02 0.04 0.08 0.06 -0.09 -0.09 -0.05
geometry = 2 32 0.04 0.08 0.01 0.05 0.03 -0.04 -0.02 0.0
geometry = 1 33 -0.03 -0.01 0.05 0.09 0.07 -0.02 -0.02 0.03
geometry = 2 41 0.05 0.09 -0.02 0.03 0.04 0.04 0.01 0.02
geometry = 2 42 -0.06 -0.02 0.06 0.06 0.03 0.02 0.0 0.0
geometry = 2 43 -0.09 -0.05 0.06 0.06 0.03 0.03 0.02 0.01
geometry = 2 51 -0.09 -0.06 -0.06 -0.04 0.03 0.03 0.01 0.01
geometry = 2 52 0.0 0.04 -0.07 0.07 0.03 0.02 0.01 0.0
geometry = 2 53 0.04 0.08 0.0 0.0 0.04 0.02 0.0 0.0
feed = X 0 0 0 1 0 50
rfeed = 50
waveform = 1
pulsewidth = 2e-10
solver = 80 10 0
IN
sed -e '/^OpenFDTD/d' -e 's/^material = 1 /material = /' -e 's/^geometry = \([12]\) 2 /geometry = \1 ellipsoid /' \
  -e 's/ 11 / xcylinder /;s/ 12 / ycylinder /;s/ 13 / zcylinder /' -e 's/ 31 / xpillar /;s/ 32 / ypillar /;s/ 33 / zpillar /' \
  -e 's/ 41 / xpyramid /;s/ 42 / ypyramid /;s/ 43 / zpyramid /' -e 's/ 51 / xcone /;s/ 52 / ycone /;s/ 53 / zcone /' \
  -e 's/^feed = X 0 0 0 1 0 50/feed = X 0 0 0 1 50/' -e '/^rfeed/d' -e 's/^waveform = 1/waveform = gaussian/' \
  -e "s/^pulsewidth = 2e-10/frequency = $(awk 'BEGIN { printf "%.17g", 4.0 / (3.14159265358979323846 * 2e-10) }')/" \
  -e 's/^solver = 80 10 0/steps = 80\naverage-every = 10\nconverge = 0\nz0 = 50/' shapes.ofd >shapes.in
printf '%s\nfeed-release = yes\n' "$ofd_keys" >>shapes.in
same_run "every shape" shapes.ofd shapes.in
"$bin" --progress=0 --input=shapes.in --output=c --volume=no --slice=none --steps=80 >/dev/null 2>&1
sed 's/^geometry = \(.\) \(.\)cone /geometry = \1 \2pyramid /' shapes.in >pyr.in
"$bin" --progress=0 --input=pyr.in --output=d --volume=no --slice=none --steps=80 >/dev/null 2>&1
cmp -s c_probes.csv d_probes.csv
result $((1 - $?)) "cones and pyramids of the same sizes are different objects (the test sees the shapes)"
rm -f c_* d_*

# lumped loads and OpenFDTD's dispersive material (Debye form, Drude form)
cat >media.ofd <<'IN'
OpenFDTD 4 2
xmesh = -0.05 20 0.05
ymesh = -0.05 20 0.05
zmesh = -0.05 20 0.05
material = 2 2 1e9 3.77e10 1.885e10 debye
material = 2 1 1e10 -1e10 1e10 drude
geometry = 2 1 -0.04 -0.01 -0.04 0.04 -0.04 0.04
geometry = 3 1 0.02 0.04 -0.04 0.04 -0.04 0.04
geometry = 1 1 0 0 0 0 -0.03 0.03
feed = Z 0 0 0 1 0 50
load = Z 0 0 0.0125 R 100
load = Z 0 0 -0.0125 L 10e-9
load = Z 0 0 -0.0125 C 1e-12
frequency1 = 1e9 3e9 2
solver = 200 20 0
IN
# eps(w) = einf + ae/(jw) + be/(ce + jw): sigma = eps0 ae and a Debye pole de = be/ce, tau = 1/ce; be = -ae: Drude, wp^2 = ae ce
media=$(awk 'BEGIN { pi = 3.14159265358979323846; eps0 = 1.0 / ((4e-7 * pi) * 299792458.0 * 299792458.0)
  printf "material = 2 %.17g 1 0 debye %.17g %.17g\n", eps0 * 1e9, 3.77e10 / 1.885e10, 1.0 / 1.885e10
  printf "material = 1 0 1 0 drude %.17g %.17g\n", sqrt(1e10 * 1e10) / 6.283185307179586, 1e10
  tw = 1.27 / (0.5 * (1e9 + 3e9)); printf "frequency = %.17g", 4.0 / (pi * tw) }')
cat >media.in <<IN
xmesh = -0.05 20 0.05
ymesh = -0.05 20 0.05
zmesh = -0.05 20 0.05
$media
geometry = 2 box -0.04 -0.01 -0.04 0.04 -0.04 0.04
geometry = 3 box 0.02 0.04 -0.04 0.04 -0.04 0.04
geometry = 1 box 0 0 0 0 -0.03 0.03
feed = Z 0 0 0 -1 0
load = Z 0 0 0.0125 R 100
load = Z 0 0 -0.0125 L 10e-9
load = Z 0 0 -0.0125 C 1e-12
frequencies = 1e9 3e9 3
waveform = dgaussian
z0 = 50
steps = 200
average-every = 20
converge = 0
$ofd_keys
feed-release = yes
IN
same_run "loads and dispersive media" media.ofd media.in

# a plane wave on a sphere (ellipsoid 2): the far field at frequency2's
# frequencies, the point at frequency1's, the pulse from frequency1
cat >wave.ofd <<'IN'
OpenFDTD 4 2
xmesh = -0.1 20 0.1
ymesh = -0.1 20 0.1
zmesh = -0.1 20 0.1
geometry = 1 2 -0.02 0.02 -0.02 0.02 -0.02 0.02
planewave = 30 60 2
point = X 0.05 0.05 0.05
frequency1 = 1e9 2e9 1
frequency2 = 2e9 3e9 2
solver = 120 20 0
IN
pulse=$(awk 'BEGIN { tw = 1.27 / (0.5 * (1e9 + 2e9)); printf "%.17g", 4.0 / (3.14159265358979323846 * tw) }')
cat >wave.in <<IN
xmesh = -0.1 20 0.1
ymesh = -0.1 20 0.1
zmesh = -0.1 20 0.1
geometry = 1 ellipsoid -0.02 0.02 -0.02 0.02 -0.02 0.02
planewave = 30 60 H
planewave-form = sf-closed
point = X 0.05 0.05 0.05
frequencies = 1e9 2e9 2
farfield-frequencies = 2e9 3e9 3
frequency = $pulse
waveform = dgaussian
steps = 120
average-every = 20
converge = 0
$ofd_keys
IN
same_run "plane wave" wave.ofd wave.in --farfield=6,8 --huygens-margin=2
"$bin" --progress=0 --input=wave.ofd --output=a --volume=no --slice=none --farfield=6,8 --huygens-margin=2 >a.out 2>&1
grep -q '^rcs_3: 3e+09 Hz' a.out
result $? "a plane-wave model's radar cross-section at frequency2's frequencies"
rm -f a_* a.*

# OpenFDTD 2.1's material lines (no type), periodic axes
cat >old.ofd <<'IN'
OpenFDTD 2 1
xmesh = -0.05 10 0.05
ymesh = -0.05 10 0.05
zmesh = -0.05 10 0.05
material = 4 0 1 0
geometry = 2 1 -0.01 0.01 -0.01 0.01 -0.01 0.01
feed = Z 0.02 0 0 1 0 50
pbc = 1 1 0
frequency1 = 3e9 3e9 0
solver = 50 10 0
IN
"$bin" --progress=0 --input=old.ofd --output=a --volume=no --slice=none >a.out 2>a.err
grep -q '^materials: 3' a.out && grep -q 'periodic' a.out
result $? "OpenFDTD 2.1 materials and pbc: a run with 3 materials and periodic x, y"
rm -f a_* a.*

# bad lines: FILE:LINE, one line, exit 2
printf 'OpenFDTD 4 2\nxmesh = 0 10 0.1\nymesh = 0 10 0.1\nzmesh = 0 10 0.1\n' >base.ofd
bad_model() { # pattern, lines to append
  pattern=$1
  shift
  { cat base.ofd; printf '%s\n' "$@"; } >bad.ofd
  bad 2 "$pattern" --input=bad.ofd
}
bad_model "bad.ofd:5: unknown OpenFDTD key 'frequency'" 'frequency = 1e9'
bad_model "bad.ofd:5: expected 'key = value'" 'feed Z 0 0 0 1 0 50'
bad_model "bad.ofd:5: feed: the delay must be >= 0" 'feed = Z 0.05 0.05 0.05 1 -1e-9 50' 'frequency1 = 1e9 2e9 1'
bad_model "bad.ofd:5: material: expected '1 epsr sigma mur sigmam' or '2 einf ae be ce'" 'material = 3 1 0 1 0'
bad_model "bad.ofd:5: material: a dispersive material needs ae, be >= 0 and ce > 0" 'material = 2 1 0 -1e10 1e10' 'frequency1 = 1e9 2e9 1'
bad_model "bad.ofd:5: geometry: unknown shape '99'" 'geometry = 1 99 0 1 0 1 0 1' 'frequency1 = 1e9 2e9 1'
bad_model "bad.ofd:5: frequency1: expected 'F0 F1 DIV'" 'frequency1 = 2e9 1e9 10'
bad_model "bad.ofd:6: feed: reference impedances differ" 'feed = Z 0.05 0.05 0.05 1 0 50' 'feed = Z 0.02 0.05 0.05 1 0 75'
bad_model "bad.ofd: give frequency1, frequency2 or pulsewidth" 'feed = Z 0.05 0.05 0.05 1 0 50'
{ cat base.ofd; printf 'feed = Z 0.05 0.05 0.05 1 0 50\nfrequency1 = 1e9 2e9 1\nplotfar2d = 6 8\nsolver = 10 5 0\n'; } >nofar.ofd
"$bin" --progress=0 --input=nofar.ofd --output=a --volume=no --slice=none --mur=e >a.out 2>a.err
[ $? -eq 0 ] && grep -q "not used: the far field of plotfar (huygens-margin: 0 puts the Huygens box on the faces.*(line 7)$" a.err && [ ! -e a_farfield.csv ]
result $? "a plotfar2d the model leaves no room for (Mur on E: no box on the faces) is noted, not refused"
rm -f a_* a.*
bad_model "bad.ofd:5: load: 'Q' is not R, L or C" 'load = Z 0.05 0.05 0.05 Q 1' 'frequency1 = 1e9 2e9 1'
printf 'OpenFDTD four\n' >hdr.ofd
bad 2 "hdr.ofd:1: expected 'OpenFDTD MAJOR MINOR'" --input=hdr.ofd

finish
