# SPDX-License-Identifier: BSD-3-Clause
# Shared helpers of the driver command-line tests (sourced).  The test sets
#   bin      the driver
#   outputs  glob patterns of the files a run with --output=out writes
# and calls bad / result; finish prints the plan and sets the exit status.
n=0
fails=0
top=$(cd "${top_builddir:-.}" && pwd)
src=$(cd "${top_srcdir:-.}" && pwd)
config_h=$top/config.h
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" || exit 99

result() { # status, description
  n=$((n + 1))
  if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi
}

# every run writes to out.* unless the case names its own --output
run() {
  case " $* " in *" --output="*) set -- --progress=0 "$@" ;; *) set -- --progress=0 --output=out "$@" ;; esac
  "$bin" "$@" >stdout 2>stderr
  echo $? >rc
}

clean_dir() { rm -f out* .out*; }

nothing_written() { [ -z "$(ls -A | grep -E '^\.?out')" ]; }

# bad input: expected status, a pattern the message must contain, arguments
bad() {
  want=$1 pattern=$2
  shift 2
  clean_dir
  run "$@"
  rc=$(cat rc)
  lines=$(wc -l <stderr)
  if [ "$rc" -eq "$want" ] && [ "$lines" -eq 1 ] && grep -q -- "$pattern" stderr && nothing_written; then
    result 0 "exit $want, one line with '$pattern': $*"
  else
    result 1 "exit $want, one line with '$pattern': $* (got exit $rc, $lines lines)"
    sed 's/^/# /' stderr
  fi
}

# What every driver refuses alike (the run loop parses): a key twice in an
# input file, a file that sets nothing, binary data, a missing file, a word
# for an integer, an overflow, a key twice on the command line; KEY an
# integer option of the driver.
parse_refusals() { # key
  printf '%s = 32\n# a comment\n%s = 64\n' "$1" "$1" >dup.in
  printf '# nothing but a comment\n\n' >empty.in
  printf '%s = 32\n\001\002\003\377junk\n' "$1" >junk.in
  bad 2 "dup.in:3: duplicate key '$1' (first set on line 1)" --input=dup.in
  bad 2 "sets nothing" --input=empty.in
  bad 2 "binary data" --input=junk.in
  bad 2 "cannot open input file 'missing.in'" --input=missing.in
  bad 2 "'abc' is not an integer" --"$1"=abc
  bad 2 "overflows" --steps=99999999999999999999999
  bad 2 "--$1 given twice" --"$1"=16 --"$1"=32
  refused_at_once --input=fifo.in
  refused_at_once --input=/dev/zero
  refused_at_once --restart=fifo.in
}

# A FIFO or a device given as an input file is refused at once (reading one
# would block for ever, or never end), exit 2, nothing written.
refused_at_once() { # option=FILE, more arguments...
  [ -p fifo.in ] || mkfifo fifo.in
  clean_dir
  timeout 30 "$bin" --progress=0 --output=out "$@" >stdout 2>stderr
  rc=$?
  result $([ $rc -eq 2 ] && grep -q 'not a regular file' stderr && nothing_written && echo 0 || echo 1) \
    "refused at once, exit 2, nothing written: $* (got exit $rc)"
}

# The run just made drew its picture FILE and the summary names it; in a
# build without libpng the run still succeeds and says why it drew none.
picture_made() { # file
  if grep -q '^#define HD_HAVE_PNG' "$config_h"; then
    [ "$(cat rc)" -eq 0 ] && head -c 8 "$1" | od -An -c | grep -q 'P   N   G' && grep -q "^picture: $1" stdout
  else
    [ "$(cat rc)" -eq 0 ] && [ ! -e "$1" ] && grep -q '^picture: none (this build has no PNG output' stdout
  fi
}

finish() {
  echo "1..$n"
  [ "$fails" -eq 0 ]
}

# Two VTK XML files hold the same values, byte for byte, whatever their
# field data say (a run continued from another's field ends at another
# step and time): their appended data compared.
same_values() { # file, file
  for f in "$1" "$2"; do
    at=$(grep -abo '<AppendedData' "$f" | head -n 1 | cut -d: -f1)
    [ -n "$at" ] && tail -c +"$((at + 1))" "$f" >"$f.values" || return 1
  done
  cmp -s "$1.values" "$2.values"
  set -- $? "$1" "$2"
  rm -f "$2.values" "$3.values"
  return "$1"
}
