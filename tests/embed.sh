#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The embedding examples, doc/examples/*.c (one a module, and a kernel of
# your own), built from the headers alone as serial C, OpenMP C (double and
# single precision) and CUDA (nvcc -x cu), and run: each checks a known
# answer itself (an exact discrete solution or a conservation law).  The
# CUDA binaries run only on a GPU.
set -u
dir=${top_srcdir:-.}/doc/examples
inc=${top_srcdir:-.}/include
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0
fails=0
result() {
  n=$((n + 1))
  if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi
}
for src in "$dir"/*.c; do
  ex=$(basename "$src" .c)
  ${CC:-cc} -O2 -Wall -Wextra -Werror -I"$inc" "$src" -o "$tmp/serial" -lm >"$tmp/log" 2>&1 && "$tmp/serial" >>"$tmp/log" 2>&1
  result $? "$ex: serial C build runs and checks its answer"
  sed 's/^/# /' "$tmp/log"
  if [ -n "${OPENMP_CFLAGS:-}" ]; then
    for prec in double single; do
      flag=""
      [ $prec = single ] && flag=-DHD_REAL_FLOAT
      ${CC:-cc} -O2 $OPENMP_CFLAGS $flag -Wall -Wextra -Werror -I"$inc" "$src" -o "$tmp/omp" -lm >"$tmp/log" 2>&1 &&
        "$tmp/omp" >>"$tmp/log" 2>&1
      result $? "$ex: OpenMP C build, $prec precision, runs and checks its answer"
      sed 's/^/# /' "$tmp/log"
    done
  fi
  if [ -n "${NVCC:-}" ]; then
    $NVCC -O2 -x cu ${NVCC_TEST_FLAGS:-} -Werror all-warnings -I"$inc" "$src" -o "$tmp/cuda" >"$tmp/log" 2>&1
    result $? "$ex: CUDA build (nvcc -x cu) compiles warning-free"
    if "$tmp/cuda" >"$tmp/log" 2>&1; then
      result 0 "$ex: CUDA build runs on the GPU and checks its answer"
    elif grep -q "no CUDA device" "$tmp/log"; then
      n=$((n + 1)); echo "ok $n # SKIP $ex: CUDA run: no GPU here"
    else
      result 1 "$ex: CUDA build runs on the GPU and checks its answer"
    fi
    sed 's/^/# /' "$tmp/log"
  fi
done
echo "1..$n"
[ "$fails" -eq 0 ]
