#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hd from other build systems, as a new user meets it: the headers, the
# CMake package and hd.pc installed (into a scratch DESTDIR, so the package
# must be relocatable), then doc/examples/heat_embed.c and wave_kernel.c
# built through find_package(hd 0.1) + hd::hd as serial C, OpenMP C and,
# where nvcc is, CUDA; README's CMakeLists.txt as printed; add_subdirectory
# of the source tree; and pkg-config.  Each example checks its own answer
# when run.  A version hd is not (find_package(hd 1.0)) must be refused.
# Skipped without cmake.
set -u
src=$(cd "${top_srcdir:-.}" && pwd)
build=$(cd "${top_builddir:-.}" && pwd)
if ! command -v cmake >/dev/null 2>&1; then
  echo "1..0 # SKIP cmake not found"
  exit 0
fi
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0
fails=0
result() {
  n=$((n + 1))
  if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi
}
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
show() { sed 's/^/# /' "$tmp/log" | tail -n 25; }

# only the parts an embedding code needs; a plain sub-make, not the caller's jobs
(unset MAKEFLAGS MFLAGS; cd "$build" && make install-hdincludeHEADERS install-cmakeDATA \
  install-pkgconfigDATA DESTDIR="$tmp/root") >"$tmp/log" 2>&1
result $? "make install of the headers, hdConfig.cmake and hd.pc"
show
cfg=$(find "$tmp/root" -name hdConfig.cmake | head -n 1)
pc=$(find "$tmp/root" -name hd.pc | head -n 1)
[ -n "$cfg" ] && [ -n "$pc" ] || { echo "1..$n"; exit 1; }
hd_DIR=$(dirname "$cfg")

set -- ${CC:-cc}
cc=$1
shift
ccflags="$* -Wall -Wextra -Werror"

# project DIR LANGUAGES HOW [LINE...]: a CMakeLists.txt for the two examples;
# HOW is find (find_package) or sub (add_subdirectory)
project() {
  d=$1 lang=$2 how=$3
  shift 3
  mkdir -p "$d"
  cp "$src/doc/examples/heat_embed.c" "$src/doc/examples/wave_kernel.c" "$d/"
  {
    echo "cmake_minimum_required(VERSION 3.16)"
    echo "project(embed LANGUAGES $lang)"
    if [ "$how" = find ]; then echo "find_package(hd 0.1 REQUIRED)"
    else echo "add_subdirectory(\"$src\" hd)"; fi
    for ex in heat_embed wave_kernel; do
      echo "add_executable($ex $ex.c)"
      echo "target_link_libraries($ex PRIVATE hd::hd)"
    done
    for line in "$@"; do echo "$line"; done
  } >"$d/CMakeLists.txt"
}
# build_run NAME DIR [cmake arguments...]
build_run() {
  name=$1 d=$2
  shift 2
  cmake -S "$d" -B "$d/build" -Dhd_DIR="$hd_DIR" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_C_FLAGS="$ccflags" "$@" >"$tmp/log" 2>&1 &&
    cmake --build "$d/build" >>"$tmp/log" 2>&1
  rc=$?
  result $rc "$name: the two examples configure and build"
  [ $rc -eq 0 ] || { show; return; }
  for ex in heat_embed wave_kernel; do
    "$d/build/$ex" >"$tmp/log" 2>&1
    rc=$?
    if [ $rc -ne 0 ] && grep -q "no CUDA device" "$tmp/log"; then
      skip "$name: $ex runs: no GPU here"
    else
      result $rc "$name: $ex runs and checks its answer"
    fi
    show
  done
}

project "$tmp/serial" C find
build_run "find_package, serial C" "$tmp/serial"

if [ -n "${OPENMP_CFLAGS:-}" ]; then
  project "$tmp/openmp" C find "find_package(OpenMP REQUIRED COMPONENTS C)" \
    "target_link_libraries(heat_embed PRIVATE OpenMP::OpenMP_C)" \
    "target_link_libraries(wave_kernel PRIVATE OpenMP::OpenMP_C)" \
    "target_compile_definitions(wave_kernel PRIVATE HD_REAL_FLOAT)"
  build_run "find_package, OpenMP C (wave_kernel in single precision)" "$tmp/openmp"
else
  skip "find_package, OpenMP C: this build has no OpenMP"
fi

if [ -n "${NVCC:-}" ]; then
  arch=$(echo "${NVCC_TEST_FLAGS:-}" | sed -n 's/.*sm_\([0-9][0-9]*\).*/\1/p')
  project "$tmp/cuda" CUDA find "set_source_files_properties(heat_embed.c wave_kernel.c PROPERTIES LANGUAGE CUDA)"
  build_run "find_package, CUDA" "$tmp/cuda" -DCMAKE_CUDA_COMPILER="$NVCC" \
    -DCMAKE_CUDA_ARCHITECTURES="${arch:-90}" -DCMAKE_CUDA_FLAGS="-Werror all-warnings"
else
  skip "find_package, CUDA: no nvcc in this build"
fi

# README's CMakeLists.txt exactly as printed, found through CMAKE_PREFIX_PATH
if [ -n "${OPENMP_CFLAGS:-}" ]; then
  mkdir -p "$tmp/readme"
  cp "$src/doc/examples/heat_embed.c" "$tmp/readme/"
  awk '/^### Use hd from CMake/ { f = 1 } f && /^    cmake_minimum/ { p = 1 } p && /^$/ { exit }
    p { sub(/^    /, ""); print }' "$src/README.md" >"$tmp/readme/CMakeLists.txt"
  prefix=$(dirname "$(dirname "$(dirname "$hd_DIR")")")
  cmake -S "$tmp/readme" -B "$tmp/readme/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
    >"$tmp/log" 2>&1 && cmake --build "$tmp/readme/build" >>"$tmp/log" 2>&1 && "$tmp/readme/build/app" >>"$tmp/log" 2>&1
  result $? "README's CMakeLists.txt as printed: heat_embed with OpenMP builds and checks its answer"
  show
else
  skip "README's CMakeLists.txt: it asks for OpenMP, which this build has not"
fi

project "$tmp/sub" C sub
build_run "add_subdirectory of the source tree, serial C" "$tmp/sub"

ver=$(sed -n 's/^Version: //p' "$pc")
mkdir -p "$tmp/newer"
printf 'cmake_minimum_required(VERSION 3.16)\nproject(newer LANGUAGES NONE)\nfind_package(hd 1.0 REQUIRED)\n' \
  >"$tmp/newer/CMakeLists.txt"
# refused, and for its version: the package must have said which it is
cmake -S "$tmp/newer" -B "$tmp/newer/build" -Dhd_DIR="$hd_DIR" >"$tmp/log" 2>&1
[ $? -ne 0 ] && grep -q "version: $ver\$" "$tmp/log"
result $? "find_package(hd 1.0) is refused by hd $ver"
show

if command -v pkg-config >/dev/null 2>&1; then
  export PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$tmp/root"
  cflags=$(pkg-config --cflags hd) && libs=$(pkg-config --libs hd) &&
    "$cc" $ccflags -O2 $cflags "$src/doc/examples/heat_embed.c" -o "$tmp/pc_heat" $libs >"$tmp/log" 2>&1 &&
    "$tmp/pc_heat" >>"$tmp/log" 2>&1
  result $? "pkg-config --cflags hd: heat_embed builds and checks its answer"
  show
else
  skip "pkg-config: not found"
fi
echo "1..$n"
[ "$fails" -eq 0 ]
