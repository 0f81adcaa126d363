#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every public header compiles on its own, warning-free (-Wall -Wextra
# -Werror), as C99, C11 with OpenMP, C++11 and, when nvcc is configured,
# CUDA (nvcc -x cu).  TAP output.
set -u
inc=${top_srcdir:-.}/include
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0
fails=0
check() { # description, command...
  desc=$1
  shift
  n=$((n + 1))
  if "$@" >"$tmp/log" 2>&1; then
    echo "ok $n - $desc"
  else
    echo "not ok $n - $desc"
    sed 's/^/# /' "$tmp/log" | head -n 20
    fails=$((fails + 1))
  fi
}
for path in "$inc"/hd/*.h; do
  h=$(basename "$path")
  if [ "${h#poisson_fft}" != "$h" ] && [ -z "${FFTW_LIBS:-}" ]; then # on CPUs they need FFTW3's header
    n=$((n + 3)); echo "ok $((n - 2)) # SKIP $h on CPUs: configured without FFTW3"
    echo "ok $((n - 1)) # SKIP $h"; echo "ok $n # SKIP $h"
    cpu=no
  else
    cpu=yes
  fi
  printf '#include <hd/%s>\ntypedef int hd_header_test_nonempty;\n' "$h" >"$tmp/t.c"
  cp "$tmp/t.c" "$tmp/t.cpp"
  cp "$tmp/t.c" "$tmp/t.cu"
  if [ "$cpu" = yes ]; then
    check "$h alone as C99" ${CC:-cc} -std=c99 -pedantic -Wall -Wextra -Werror -I"$inc" -c "$tmp/t.c" -o "$tmp/t.o"
    if [ -n "${OPENMP_CFLAGS:-}" ]; then
      check "$h alone as C11 with OpenMP" ${CC:-cc} -std=c11 $OPENMP_CFLAGS -Wall -Wextra -Werror -I"$inc" -c "$tmp/t.c" -o "$tmp/t.o"
    else
      n=$((n + 1)); echo "ok $n # SKIP $h as C11 with OpenMP: OpenMP not configured"
      check "$h alone as C11" ${CC:-cc} -std=c11 -Wall -Wextra -Werror -I"$inc" -c "$tmp/t.c" -o "$tmp/t.o"
    fi
    check "$h alone as C++11" ${CXX:-c++} -std=c++11 -Wall -Wextra -Werror -I"$inc" -c "$tmp/t.cpp" -o "$tmp/t.o"
  fi
  if [ -n "${NVCC:-}" ]; then
    check "$h alone as CUDA" $NVCC ${NVCC_TEST_FLAGS:-} -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror -I"$inc" -c "$tmp/t.cu" -o "$tmp/t.o"
  else
    n=$((n + 1)); echo "ok $n # SKIP $h as CUDA: configured without --with-cuda"
  fi
done
echo "1..$n"
[ "$fails" -eq 0 ]
