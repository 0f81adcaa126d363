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
echo "== nbody: OpenMP + SIMD against a scalar one-thread build of the same loop =="
for p in single double; do
  tag=d
  [ "$p" = single ] && tag=f
  s=$("${top_builddir:-.}/bench/nbody-scalar-$tag" 16384 1 | sed -n 's/^interactions_per_second: //p')
  sh "$here/nbody.sh" "${top_builddir:-.}/drivers/hd-nbody" openmp "$p:16384:3" tuned | tail -n 1 |
    awk -v s="$s" -v p="$p" '{ printf "%s  scalar one-thread %.4g interactions/s: speed-up %.1fx\n", $0, s, $6 / s }'
done
