#!/bin/sh
# README's embedding example, doc/examples/heat_embed.c, built from the
# headers alone as serial C, OpenMP C and CUDA (nvcc -x cu), and run: it
# checks an eigenmode's decay itself.  The CUDA binary runs only on a GPU.
set -u
src=${top_srcdir:-.}/doc/examples/heat_embed.c
inc=${top_srcdir:-.}/include
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0
fails=0
result() {
  n=$((n + 1))
  if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi
}
${CC:-cc} -O2 -Wall -Wextra -Werror -I"$inc" "$src" -o "$tmp/serial" -lm >"$tmp/log" 2>&1 && "$tmp/serial" >>"$tmp/log" 2>&1
result $? "serial C build runs and matches the analytic decay"
sed 's/^/# /' "$tmp/log"
if [ -n "${OPENMP_CFLAGS:-}" ]; then
  ${CC:-cc} -O2 $OPENMP_CFLAGS -Wall -Wextra -Werror -I"$inc" "$src" -o "$tmp/omp" -lm >"$tmp/log" 2>&1 && "$tmp/omp" >>"$tmp/log" 2>&1
  result $? "OpenMP C build runs and matches the analytic decay"
  sed 's/^/# /' "$tmp/log"
fi
if [ -n "${NVCC:-}" ]; then
  $NVCC -O2 -x cu ${NVCC_TEST_FLAGS:-} -Werror all-warnings -I"$inc" "$src" -o "$tmp/cuda" >"$tmp/log" 2>&1
  result $? "CUDA build (nvcc -x cu) compiles warning-free"
  if "$tmp/cuda" >"$tmp/log" 2>&1; then
    result 0 "CUDA build runs on the GPU and matches the analytic decay"
  elif grep -q "no CUDA device" "$tmp/log"; then
    n=$((n + 1)); echo "ok $n # SKIP CUDA run: no GPU here"
  else
    result 1 "CUDA build runs on the GPU and matches the analytic decay"
  fi
  sed 's/^/# /' "$tmp/log"
fi
echo "1..$n"
[ "$fails" -eq 0 ]
