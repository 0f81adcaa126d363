#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A bounded fuzzer of every driver's options and input files, the kind of
# run the reliability audit made (issue 68), kept in the suite: each driver
# runs HD_FUZZ_RUNS (default 40) small cases, each with 1 to 4 of its own
# options (read from its --help) set to values drawn from a list of bad and
# odd ones, or with its input file mutated (lines dropped, doubled, tokens
# replaced: hd-heat's key = value file, which every driver's --input reads
# the same way, and hd-fdtd's model).  Every run must end by itself (60 s), with status 0, 1 or 2,
# never a signal; a refusal (2) is one line "hd-X: error: ..."; no
# temporary file is left.  The seed is printed: HD_FUZZ_SEED=S repeats it.
set -u
. "${top_srcdir:-.}/tests/cli_lib.sh"
runs=${HD_FUZZ_RUNS:-40}
seed=${HD_FUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "# seed $seed (HD_FUZZ_SEED=$seed repeats these cases)"

# the values: bad numbers, lists, files that are not regular, a newline,
# a long word, empty; and each option's own choices from its --help
cat >values <<'VALUES'

0
1
-1
2
0.5
1e308
-1e308
1e-308
nan
inf
-inf
1e999
abc
1,2
1,2,3
0,0,0
-1,0,1
1,2,3,4,5,6
99999999999999999999
yes
no
fixed:1
fixed:@/dev/zero
convective:1:0
@/nonexistent
/dev/zero
raw:f64:2,2:/dev/zero
box,0,1,0,1
1,box,0,0.5,0,0.5
ez z 0
ex,0,0,0
1e9 2e9
1e9junk
a b
VALUES
echo "$PWD/fifo.in" >>values
echo "fixed:@$PWD/fifo.in" >>values
printf 'a\nb\n' | tr '\n' '\001' >>values # stands for a value holding a newline
echo >>values
printf 'x%.0s' $(seq 300) >>values
echo >>values
mkfifo fifo.in

# skipped: what sizes or lengthens the run (the base arguments do), where
# outputs go, the input file (mutated below), help and the benchmark
skip=" n steps output input help version bench threads progress restart time frames "

fuzz_driver() { # driver, base arguments, input file to mutate
  drv=$1 base=$2 input=$3
  bin=$top/drivers/hd-$drv
  "$bin" --help | sed -n 's/^  --\([a-z0-9-]*\)\(=\([^ ]*\)\)\{0,1\}.*/\1 \3/p' >opts
  bad_runs=0 first="" ended=""
  k=0
  while [ $k -lt "$runs" ]; do
    k=$((k + 1))
    # the case: awk draws it from the seed, the driver and the case number
    awk -v seed="$seed" -v k="$k" -v drv="$drv" -v skip="$skip" -v input="$input" -v here="$PWD" '
      BEGIN {
        h = seed; for (i = 1; i <= length(drv); ++i) h = (h * 31 + index("abcdefghijklmnopqrstuvwxyz", substr(drv, i, 1))) % 2147483647
        srand((h + 7919 * k) % 2147483647)
        nv = no = nl = 0 # counts start at 0, not "" (an unset variable as a subscript)
        while ((getline line < "values") > 0) val[nv++] = line
        while ((getline line < "opts") > 0) {
          split(line, f, " ")
          if (index(skip, " " f[1] " ")) continue
          name[no] = f[1]; choices[no++] = f[2]
        }
        if (input != "" && rand() < 0.3) { # a mutated input file
          nl = 0
          while ((getline line < input) > 0) lines[nl++] = line
          for (i = 0; i < nl; ++i) {
            r = rand()
            if (r < 0.1) continue
            if (r < 0.2) print lines[i] > "case.in"
            if (r < 0.4) { # a token of the value (after "key =") replaced
              nt = split(lines[i], t, " "); t[nt > 2 ? 3 + int(rand() * (nt - 2)) : 1] = val[int(rand() * nv)]
              s = t[1]; for (j = 2; j <= nt; ++j) s = s " " t[j]
              print s > "case.in"
            } else print lines[i] > "case.in"
          }
          close("case.in")
          print "--input=" here "/case.in"
        } else if (input != "") print "--input=" input
        split("0.5 1 2 3 0.25 yes", sane, " "); sane[0] = "0"
        m = 1 + int(rand() * 4)
        for (i = 0; i < m; ++i) {
          o = int(rand() * no)
          r = rand()
          if (choices[o] != "" && index(choices[o], "|") && r < 0.5) {
            nc = split(choices[o], c, "|"); v = c[1 + int(rand() * nc)]
          } else if (r < 0.6) v = sane[int(rand() * 7)] # often a value that passes, so that the next option counts
          else v = val[int(rand() * nv)]
          gsub("\001", "\n", v)
          print (choices[o] == "" && rand() < 0.7) ? "--" name[o] : "--" name[o] "=" v
        }
      }' >case.args
    rm -rf run && mkdir run
    # one argument a line (values may hold spaces and newlines: \001 marks them)
    set --
    while IFS= read -r a; do set -- "$@" "$(printf '%s' "$a" | tr '\001' '\n')"; done <case.args
    # shellcheck disable=SC2086
    (cd run && timeout 60 "$bin" $base --progress=0 --output=o "$@" </dev/null >../stdout 2>../stderr)
    rc=$?
    ended="$ended $rc"
    [ -n "${HD_FUZZ_SHOW:-}" ] && echo "# $rc: $(tr '\n' ' ' <case.args) | $(head -c 200 stderr | tr '\n' ' ')"
    why=""
    if [ $rc -eq 124 ]; then why="did not end in 60 s"
    elif [ $rc -gt 2 ]; then why="exit $rc (a signal or a crash)"
    elif [ $rc -eq 2 ] && { [ "$(wc -l <stderr)" -ne 1 ] || ! grep -q "^hd-$drv: error: " stderr; }; then
      why="refused in $(wc -l <stderr) lines, not one"
    elif [ -n "$(ls -A run | grep -E '^\..*\.([A-Za-z0-9]{6}|lock)$')" ]; then why="left temporaries: $(ls -A run | tr '\n' ' ')"
    fi
    if [ -n "$why" ]; then
      bad_runs=$((bad_runs + 1))
      [ -z "$first" ] && first="case $k: $why: hd-$drv $base $(tr '\n' ' ' <case.args)" &&
        sed 's/^/# /' stderr | head -n 5
    fi
    rm -f case.in
  done
  echo "# hd-$drv exits:$(echo "$ended" | tr ' ' '\n' | sort | uniq -c | awk '{ printf " %s x %s", $2, $1 }')"
  result $bad_runs "hd-$drv: $runs fuzzed cases end by themselves with 0, 1 or one-line 2, leaving no temporaries${first:+; first failure: $first}"
}

cat >heat.in <<'IN'
# every driver reads key = value lines: heat's with a material, a region, a probe and a fixed face
dim = 2
material = 2,1,1
region = 1,box,0.2,0.5,0.2,0.5
probe = 0.3,0.3
bc-xlo = fixed:1
csv-every = 1
IN
fuzz_driver heat "--n=16 --steps=3" "$PWD/heat.in"
fuzz_driver nbody "--n=32 --steps=3" ""
fuzz_driver fdtd "--steps=3" "$src/tests/fdtd_sanitize.in"
fuzz_driver cavity "--n=16 --steps=3 --steady=0" ""
fuzz_driver ns "--n=16 --steps=3" ""
finish
