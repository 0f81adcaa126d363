#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# hd-fdtd beside OpenFDTD on OpenFDTD's own sample models: each sample run
# by both programs on the same .ofd file, one table row a sample.
#
#   OPENFDTD=DIR bash bench/openfdtd.sh [HD_FDTD] [SAMPLE ...]
#
# DIR holds OpenFDTD built from its public source (its solver `ofd`, and
# `ofd_post` for the far field) and its `data/sample/`; nothing of
# OpenFDTD's is part of hd.  HD_FDTD defaults to ./drivers/hd-fdtd;
# SAMPLE names (without .ofd) pick samples, default all.  THREADS (default
# all cores) goes to both programs, HD_ARGS to hd-fdtd.
#
# Columns (worst over every frequency, feed and direction; "-" where the
# sample has none):
#   dZ %     |Z_hd - Z_OpenFDTD| / |Z_OpenFDTD| of each feed (frequency1)
#   dS dB    point S-parameters and coupling, |dB difference| (frequency1)
#   dG dB    far-field gain within 20 dB of its peak (plotfar2d, frequency2)
#   dRCS dB  back and forward cross-sections of a plane wave (frequency2)
# and the verdict against the acceptance bounds 1 %, 0.2, 0.2 and 0.5 dB.
set -u
dir=${OPENFDTD:?set OPENFDTD to a directory holding the built OpenFDTD (ofd) and its data/sample}
hd=$(cd "$(dirname "${1:-./drivers/hd-fdtd}")" && pwd)/$(basename "${1:-./drivers/hd-fdtd}")
[ $# -gt 0 ] && shift
ofd=$dir/ofd
post=$dir/ofd_post
threads=${THREADS:-$(nproc)}
[ -x "$ofd" ] || { echo "openfdtd.sh: no OpenFDTD solver at $ofd" >&2; exit 2; }
[ -x "$hd" ] || { echo "openfdtd.sh: no hd-fdtd at $hd" >&2; exit 2; }
samples=("$@")
if [ ${#samples[@]} -eq 0 ]; then
  for f in "$dir"/data/sample/*.ofd; do samples+=("$(basename "$f" .ofd)"); done
fi
work=$(mktemp -d /tmp/hd-openfdtd.XXXXXX)
[ -n "${KEEP:-}" ] && echo "openfdtd.sh: work in $work" >&2 || trap 'rm -rf "$work"' EXIT

# The tables of ofd.log as "kind key value ..." lines: z FEED FREQ R X;
# s COLUMN FREQ DB; c COLUMN FREQ DB; x FREQ BACK FORWARD.
ofd_tables() {
  awk '/^=== input impedance/ { t = "z"; next } /^=== S-parameters/ { t = "s"; next }
       /^=== coupling/ { t = "c"; next } /^=== cross section/ { t = "x"; next } /^===/ { t = ""; next }
       t == "z" && /^feed #/ { feed = substr($2, 2) + 0; next }
       t == "z" && $1 + 0 > 0 { printf "z %d %.5e %s %s\n", feed, $1, $2, $3 }
       (t == "s" || t == "c") && $1 + 0 > 0 { for (k = 2; k < NF; k += 2) printf "%s %d %.5e %s\n", t, k / 2, $1, $k }
       t == "x" && $1 + 0 > 0 { printf "x %.5e %s %s\n", $1, $2, $3 }' "$1"
}

# OpenFDTD's far2d.log as "g FREQ THETA PHI DB" (phi 360 folded to 0).
ofd_far2d() {
  awk '/^frequency/ { f = sprintf("%.5e", $3); next } $1 ~ /^[0-9]+$/ && NF >= 5 {
         printf "g %s %g %g %s\n", f, $3, $4 % 360, $5 }' "$1"
}

# The same from hd-fdtd's files: PREFIX_ports.csv, PREFIX_points.csv,
# PREFIX_farfield.csv and the rcs_K summary lines.
hd_tables() {
  [ -f hd_ports.csv ] && awk -F, 'NR > 1 { printf "z %d %.5e %s %s\n", $2, $1, $7, $8 }' hd_ports.csv
  [ -f hd_points.csv ] && awk -F, 'NR > 1 { printf "%s %d %.5e %s\n", tolower(substr($2, 1, 1)), substr($2, 2, 1), $1, $3 }' hd_points.csv
  [ -f hd_farfield.csv ] && awk -F, 'NR > 1 && $9 != "" { printf "g %.5e %g %g %s\n", $1, $2, $3 % 360, $9 }' hd_farfield.csv
  sed -n 's/^rcs_[0-9]*: \([0-9.e+-]*\) Hz: monostatic \([0-9.e+-]*\) m2 .* forward \([0-9.e+-]*\) m2 .*/x \1 \2 \3/p' hd.txt |
    awk '{ printf "x %.5e %s %s\n", $2, $3, $4 }'
}

# Worst differences of hd's tables ($2) against OpenFDTD's ($1): "dZ dS dRCS".
compare() {
  awk 'function dbl(x) { return x > 0 ? 10 * log(x) / log(10) : -400 }
       function abs(x) { return x < 0 ? -x : x }
       { key = $1 == "x" ? $1 " " $2 : $1 " " $2 " " $3 }
       FNR == NR { ref[key] = $0; next }
       { if (!(key in ref)) next; split(ref[key], o, " ") }
       $1 == "z" { d = sqrt(($4 - o[4]) ^ 2 + ($5 - o[5]) ^ 2) / sqrt(o[4] ^ 2 + o[5] ^ 2) * 100; if (d > z) z = d; nz++ }
       $1 == "s" || $1 == "c" { d = abs($4 - o[4]); if (d > s) s = d; ns++ }
       $1 == "x" { d = abs(dbl($3) - dbl(o[3])); if (abs(dbl($4) - dbl(o[4])) > d) d = abs(dbl($4) - dbl(o[4])); if (d > x) x = d; nx++ }
       END { printf "%s %s %s\n", nz ? sprintf("%.3f", z) : "-", ns ? sprintf("%.3f", s) : "-", nx ? sprintf("%.3f", x) : "-" }' "$1" "$2"
}

# Far-field gains: keyed by frequency, theta, phi; within 20 dB of the peak.
compare_gain() {
  awk 'function abs(x) { return x < 0 ? -x : x }
       FNR == NR { if ($1 != "g") next; ref[$2 " " $3 " " $4] = $5; if (!($2 in top) || $5 > top[$2]) top[$2] = $5; next }
       $1 == "g" { key = $2 " " $3 " " $4; if (!(key in ref) || ref[key] < top[$2] - 20) next
                   d = abs($5 - ref[key]); if (d > g) g = d; n++ }
       END { print n ? sprintf("%.3f", g) : "-" }' "$1" "$2"
}

version=""
printf '%-14s %-9s %-7s %-11s %8s %7s %7s %8s %11s  %s\n' sample source abc steps dZ% "dS dB" "dG dB" "dRCS dB" "time (s)" verdict
fails=0
for name in "${samples[@]}"; do
  src=$dir/data/sample/$name.ofd
  w=$work/$name
  mkdir -p "$w"
  cp "$src" "$w/"
  kind=$(awk '/^feed/ { f = 1 } /^planewave/ { p = 1 } END { print p ? "planewave" : f ? "feed" : "-" }' "$src")
  abc=$(awk '/^abc/ { print $3 == 0 ? "mur" : "pml"; found = 1 } END { if (!found) print "mur" }' "$src")
  pbc=$(awk '/^pbc/ { print ($3 + $4 + $5 > 0) ? "+pbc" : "" }' "$src")
  (cd "$w" && t0=$(date +%s.%N) && "$ofd" -n "$threads" "$name.ofd" >ofd.txt 2>&1 && t1=$(date +%s.%N) &&
    echo "$t0 $t1" >ofd.time) || { printf '%-14s OpenFDTD failed: %s\n' "$name" "$(tail -n 1 "$w/ofd.txt")"; fails=$((fails + 1)); continue; }
  [ -n "$version" ] || version=$(sed -n 's/.*Ver\.\([0-9.]*\).*/\1/p' "$w/ofd.txt" | head -n 1)
  if [ -x "$post" ] && grep -q '^plotfar2d' "$src" && [ "$kind" = feed ]; then
    (cd "$w" && "$post" -n "$threads" "$name.ofd" >post.txt 2>&1)
  fi
  # shellcheck disable=SC2086
  (cd "$w" && t0=$(date +%s.%N) && "$hd" --input="$name.ofd" --output=hd --threads="$threads" ${HD_ARGS:-} >hd.txt 2>hd.err &&
    t1=$(date +%s.%N) && echo "$t0 $t1" >hd.time)
  if [ ! -f "$w/hd.time" ]; then
    printf '%-14s %-9s %-7s hd-fdtd refused or failed: %s\n' "$name" "$kind" "$abc$pbc" "$(grep -v '^hd-fdtd: .*backend' "$w/hd.err" | tail -n 1)"
    fails=$((fails + 1))
    continue
  fi
  (cd "$w" && ofd_tables ofd.txt >ofd.tab && { [ -f far2d.log ] && ofd_far2d far2d.log >>ofd.tab; true; } && hd_tables >hd.tab)
  read -r dz ds dx <<<"$(compare "$w/ofd.tab" "$w/hd.tab")"
  dg=$(compare_gain "$w/ofd.tab" "$w/hd.tab")
  ofd_steps=$(awk '/^ *[0-9]+ [0-9.]+ [0-9.]+$/ { s = $1 } END { print s + 0 }' "$w/ofd.txt")
  hd_steps=$(sed -n 's/^steps: //p' "$w/hd.txt")
  times=$(awk '{ printf "%.2f", $2 - $1 }' "$w/ofd.time")/$(awk '{ printf "%.2f", $2 - $1 }' "$w/hd.time")
  verdict=$(awk -v z="$dz" -v s="$ds" -v g="$dg" -v x="$dx" 'BEGIN {
    bad = (z != "-" && z > 1) || (s != "-" && s > 0.2) || (g != "-" && g > 0.2) || (x != "-" && x > 0.5)
    none = z == "-" && s == "-" && g == "-" && x == "-"
    print none ? "nothing to compare" : bad ? "OUTSIDE" : "ok" }')
  [ "$verdict" = ok ] || fails=$((fails + 1))
  printf '%-14s %-9s %-7s %-11s %8s %7s %7s %8s %11s  %s\n' "$name" "$kind" "$abc$pbc" "$ofd_steps/$hd_steps" "$dz" "$ds" "$dg" "$dx" "$times" "$verdict"
done
echo "OpenFDTD ${version:-?} ($ofd), hd-fdtd $("$hd" --version 2>/dev/null | head -n 1 | awk '{ print $NF }'), $threads threads, $(date -u +%Y-%m-%d)"
echo "steps: OpenFDTD's/hd's; time: OpenFDTD's/hd's wall seconds, the whole run with its outputs"
[ "$fails" -eq 0 ]
