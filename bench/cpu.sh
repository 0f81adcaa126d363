#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# `make bench`: CPU figures of this build, serial and OpenMP, each beside the
# copy bandwidth its driver measures in the same run (five rounds of the
# kernel interleaved with copies, the best of each: a shared host's
# bandwidth drifts 2x within seconds).  GPU figures: bench/gpu.sh.
#   OPENFDTD=/path/to/ofd   an OpenFDTD CPU build (built beside hd, not part
#                           of it, its data/benchmark/ beside the binary):
#                           benchmark100 and 200 run by both programs
#   BENCH_THREADS=N         OpenMP threads (default: all cores)
set -u
top=${top_builddir:-.}
here=$(dirname "$0")
threads=${BENCH_THREADS:-$(nproc)}
export OMP_NUM_THREADS=$threads
backends=
for b in serial openmp; do
  "$top/drivers/hd-heat" --version | grep -q "backends:.* $b\|backends: $b" && backends="$backends $b"
done
echo "== CPU: $(nproc) cores ($threads OpenMP threads), $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1), $(date -u '+%Y-%m-%d %H:%M') UTC =="

echo "-- heat: generic loops and tuned rows, 8 bytes a cell update in single (16 double) --"
for b in $backends; do
  HEAT_ARGS="--time-block=1 ${HEAT_ARGS:-}" sh "$here/heat.sh" "$top/drivers/hd-heat" "$b" "2:4096:50 3:256:50 3:512:20" "generic tuned"
done

echo "-- FDTD: OpenFDTD's benchmark100 model (hd-fdtd --bench=100), 1000 steps; floor 78 bytes a cell-step in single --"
for b in $backends; do
  sh "$here/fdtd.sh" "$top/drivers/hd-fdtd" "$b" "100:1000" "generic tuned"
done
if [ -n "${OPENFDTD:-}" ]; then
  # side by side on OpenFDTD's own benchmark files, single precision, each
  # program by its own clock, three interleaved rounds: the median and the
  # spread.  OpenFDTD's part-2 holds its set-up (solve() less its DFT), so
  # it runs at S and 3 S steps (the output interval the steps, so that it
  # runs no more) and its loop is n^3 x 2 S / delta(part-2), the set-up
  # cancelled; hd: --bench's rate of 3 S steps (its own timer of the
  # steps), single steps and auto.
  dir=$(mktemp -d)
  models=$(dirname "$OPENFDTD")/data/benchmark
  for spec in 100:500 200:100; do
    n=${spec%%:*} s1=${spec#*:}
    s3=$((3 * s1))
    for s in $s1 $s3; do sed "s/^solver = .*/solver = $s $s 0/" "$models/benchmark$n.ofd" >"$dir/b$s.ofd"; done
    for round in 1 2 3; do
      for t in 1 auto; do
        "$top/drivers/hd-fdtd" --bench="$n" --steps="$s3" --precision=single --backend=openmp --time-block="$t" 2>/dev/null |
          sed -n "s/^mcells_steps_per_second: /hd$t /p"
      done
      for s in $s1 $s3; do
        (cd "$dir" && "$OPENFDTD" -n "$threads" -vector b$s.ofd >ofd$s.txt 2>&1)
        echo "ofd $s $(sed -n 's/^Iterations = \([0-9]*\).*/\1/p' "$dir/ofd$s.txt" | tail -n 1) $(sed -n 's/^ *part-2 *: *\([0-9.eE+-]*\).*/\1/p' "$dir/ofd$s.txt" | tail -n 1)"
      done | awk -v c="$n" '{ it[NR] = $3; t[NR] = $4 }
        END { if (it[2] > it[1] && t[2] > t[1]) print "ofd", c * c * c * (it[2] - it[1]) / (t[2] - t[1]) / 1e6 }'
    done | awk -v n="$n" '
      function med(k,   i, j, x, c) { c = cnt[k]; for (i = 1; i <= c; ++i) for (j = i + 1; j <= c; ++j)
          if (v[k, j] < v[k, i]) { x = v[k, i]; v[k, i] = v[k, j]; v[k, j] = x }
        lo[k] = v[k, 1]; hi[k] = v[k, c]; return c % 2 ? v[k, (c + 1) / 2] : (v[k, c / 2] + v[k, c / 2 + 1]) / 2 }
      { v[$1, ++cnt[$1]] = $2 }
      END { for (k in cnt) m[k] = med(k); best = m["hd1"] > m["hdauto"] ? m["hd1"] : m["hdauto"]
        printf "benchmark%-4s %7.1f (%.0f-%.0f) %7.1f (%.0f-%.0f) %7.1f (%.0f-%.0f) %6.2fx\n", n, m["hd1"], lo["hd1"], hi["hd1"],
          m["hdauto"], lo["hdauto"], hi["hdauto"], m["ofd"], lo["ofd"], hi["ofd"], (m["ofd"] > 0 ? best / m["ofd"] : 0) }'
  done >"$dir/rows"
  version=$(sed -n 's/.*Ver\.\([0-9.]*\).*/\1/p' "$dir"/ofd*.txt | head -n 1)
  echo "-- FDTD beside OpenFDTD ${version:-(did not run: see its log)} -vector, its benchmark files, single, $threads threads:" \
    "Mcells.steps/s, median (spread) of 3 interleaved rounds; OpenFDTD's loop by part-2 at S and 3 S steps --"
  printf '%-13s %-20s %-20s %-20s %s\n' model "hd T=1" "hd auto" OpenFDTD "hd best/OpenFDTD"
  cat "$dir/rows"
  rm -rf "$dir"
fi

echo "-- compressible NS: 1025^2 nodes, one-pass generic and two-pass stage (16 values a cell-stage; the two-pass 28) --"
printf '%-8s %-7s %-10s %14s %9s %9s %8s\n' backend prec stage "cell-stage/s" "GB/s" "copy GB/s" "of copy"
for b in $backends; do
  for p in double single; do
    for v in generic tuned; do
      "$top/drivers/hd-ns" --bench --backend="$b" --precision="$p" --variant="$v" --n=1024 --steps=10 2>/dev/null |
        awk -v b="$b" -v p="$p" -v v="$v" -F': ' '{ k[$1] = $2 }
          END { printf "%-8s %-7s %-10s %14.4g %9.1f %9.1f %7.1f%%\n", b, p, v, k["cell_stages_per_second"],
                  k["effective_GB_per_second"], k["copy_GB_per_second"], 100 * k["fraction_of_copy"] }'
    done
  done
done

echo "-- nbody (compute-bound: against a scalar one-thread build of the same loop, not a copy) --"
for p in single double; do
  tag=d
  [ "$p" = single ] && tag=f
  s=$("$top/bench/nbody-scalar-$tag" 16384 1 | sed -n 's/^interactions_per_second: //p')
  sh "$here/nbody.sh" "$top/drivers/hd-nbody" openmp "$p:16384:3" tuned | tail -n 1 |
    awk -v s="$s" '{ printf "%s  scalar one-thread %.4g interactions/s: speed-up %.1fx\n", $0, s, $6 / s }'
done

echo "-- cavity: Re = 1000 on 256^2 from rest to the steady state (--steady=1e-4), double, OpenMP --"
echo "   march         solver  steps     seconds  psi_min     max|u-Ghia| max|v-Ghia|"
for run in "time mg" "time fft" "local fft"; do
  set -- $run
  extra=
  [ "$1" = local ] && extra=--local-dt=0.9
  "$top/drivers/hd-cavity" --n=256 --re=1000 --solver="$2" $extra --backend=openmp --png=no --progress=0 \
    --output="${TMPDIR:-/tmp}/hd_bench_cavity" 2>&1 |
    awk -v m="$1" -v s="$2" -F': ' '{ k[$1] = $2 }
      END { printf "   %-13s %-7s %-9s %-8.3g %-11s %-11s %s\n", (m == "local" ? "local 0.9" : "time-accurate"), s,
              k["steps"], k["wall_seconds"], k["psi_min"], k["ghia_max_du"], k["ghia_max_dv"] }'
done
rm -f "${TMPDIR:-/tmp}"/hd_bench_cavity*
