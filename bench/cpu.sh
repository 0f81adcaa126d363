#!/bin/sh
# `make bench`: CPU figures of this build (serial and OpenMP) on modest
# sizes; the GPU figures come from bench/gpu.sh on the GPU machine.
set -u
bin=${top_builddir:-.}/drivers/hd-heat
here=$(dirname "$0")
echo "== heat, $(nproc) cores, $(date -u +%Y-%m-%d) =="
for b in serial openmp; do
  "$bin" --version | grep -q "backends:.* $b\|backends: $b" || continue
  sh "$here/heat.sh" "$bin" "$b" "2:2048:50 3:128:50"
done
