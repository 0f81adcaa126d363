#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# One batch for the GPU machine (the device tool): build with CUDA and
# -Werror, run every test on the GPU, the benchmarks and compute-sanitizer.
# Logs go to $OUT (default ./gpu-out); the last lines printed are the
# summary table.  Usage, from the repository root:
#   [MODULES="heat nbody fdtd cavity ns"] bash bench/gpu.sh [quick|bench|sanitize|mpi|scaling]
# MODULES picks the benchmark and sanitizer sections (default: all).
# OPENFDTD_CUDA=/path/to/ofd_cuda (an OpenFDTD CUDA build, its
# data/benchmark/ beside it): the FDTD section runs it side by side
# (MODULES=openfdtd: that table alone; OPENFDTD_ROUNDS=N rounds, default 3).
# quick: build and tests only; bench: build (kept from an earlier call on
# the same machine), benchmarks and sanitizers, no tests; sanitize: build
# and compute-sanitizer only; mpi: build, tests
# and the scaling tables, with halos from device memory (where MPI is
# CUDA-aware) and through host memory; scaling: build and the scaling
# tables only.  On a machine with 2 or more GPUs the
# MPI scaling tables (bench/scaling.sh) run in the full batch too.
set -u
MODULES=${MODULES:-heat nbody fdtd cavity ns}
want() { case " $MODULES " in *" $1 "*) return 0 ;; esac; return 1; }
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
jobs=$(nproc)
log() { echo "== $* ($(date -u +%H:%M:%S))"; }

log "machine"
{
  date -u +"date: %Y-%m-%d %H:%M UTC"
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
  nvcc --version | tail -n 1
  echo "cores: $jobs"
} | tee "$OUT/machine.txt"

log "build"
# with MPI where mpicc is (the GPU machines have Open MPI): tests/mpi_*.sh
# then also runs its CUDA-under-MPI cases
mpi=
command -v mpicc >/dev/null 2>&1 && mpi=--with-mpi
mode=${1:-all}
# a second call on a warm machine keeps the build configured by the first
if [ -f config.status ] && ./config.status --config | grep -q with-cuda; then
  configure=true
else
  configure="autoreconf -fi && ./configure --with-cuda $mpi --enable-werror"
fi
if ! { eval "$configure" && make -j"$jobs"; } >"$OUT/build.log" 2>&1; then
  tail -n 30 "$OUT/build.log"
  exit 1
fi
grep -E 'backends:|CUDA:' "$OUT/build.log"

check_rc=0
if [ "$mode" != bench ] && [ "$mode" != scaling ] && [ "$mode" != sanitize ]; then
  log "tests"
  # the mpi batch runs the distributed tests only: the whole suite runs in
  # the other modes, and CUDA start-up on a 4-GPU host is slow enough that
  # the process-heavy scripts (restart.sh) outlast the time limit there
  # (540 s: restart.sh alone takes 157 s of CUDA start-ups on the H200, run 134)
  tests=
  [ "$mode" = mpi ] && tests="tests/mpi_heat.sh tests/mpi_nbody.sh tests/mpi_fdtd.sh tests/mpi_ns.sh tests/mpi_cavity.sh"
  timeout 540 make -j"$jobs" check ${tests:+TESTS="$tests"} >"$OUT/check.log" 2>&1
  check_rc=$?
  cat test-suite.log tests/*.log >>"$OUT/check.log" 2>/dev/null
  grep -h -E '^(FAIL|ERROR|XPASS)' tests/*.log | head -n 40
  grep -E '^# (TOTAL|PASS|SKIP|FAIL|ERROR)' test-suite.log
  grep -h -E 'cuda' tests/*.log | grep -c '^PASS' | sed 's/^/cuda test results passed: /'
fi
[ "$mode" = quick ] && exit $check_rc
if [ "$mode" = mpi ] || [ "$mode" = scaling ]; then
  ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  ranks=1
  for np in 2 4 8; do [ "$np" -le "$ngpu" ] && ranks="$ranks $np"; done
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  mpiexec -n 2 ./drivers/hd-heat --backend=cuda --n=64 --steps=1 --vti=no --output=/tmp/aw 2>&1 </dev/null | grep halos
  log "scaling over $ngpu GPUs"
  sh bench/scaling.sh . cuda "$ranks" | tee "$OUT/scaling.txt"
  if mpiexec -n 2 ./drivers/hd-heat --backend=cuda --n=64 --steps=1 --vti=no --output=/tmp/aw 2>&1 </dev/null |
    grep -q 'device memory'; then
    log "scaling over $ngpu GPUs, halos through host memory"
    HD_MPI_CUDA_AWARE=0 sh bench/scaling.sh . cuda "$ranks" | tee "$OUT/scaling_host.txt"
  fi
  exit $check_rc
fi

[ "$mode" = sanitize ] || {
log "benchmarks"
{
  ./drivers/hd-heat --bench --backend=cuda --n=8192 --steps=10 | grep -E '^(device|copy_GB)'
  if want heat; then
    # single steps (auto would take time blocks on these grids)
    HEAT_ARGS="--time-block=1" sh bench/heat.sh drivers/hd-heat cuda "2:8192:400 3:512:100" "generic tuned"
    echo "-- tuned block shapes (x,y threads, cells marched) --"
    HEAT_ARGS="--time-block=1" sh bench/heat.sh drivers/hd-heat cuda "2:8192:400" "tuned" "128,1,16 64,1,8 96,1,8"
    HEAT_ARGS="--time-block=1" sh bench/heat.sh drivers/hd-heat cuda "3:512:100" "tuned" "32,4,16 64,2,8 128,1,8 32,2,8"
    echo "-- temporal blocking (issue 25): --time-block=T, bit-identical to single steps --"
    for t in 2 3 4 6 8; do HEAT_ARGS="--time-block=$t" sh bench/heat.sh drivers/hd-heat cuda "2:8192:400 3:512:96" "tuned"; done
    HEAT_ARGS="--time-block=3" sh bench/heat.sh drivers/hd-heat cuda "3:512:96" "tuned" "32,16,96"
    echo "-- a material map (GB/s count 2 reals + 1 byte a cell): a sphere of k = 20 r = 0.3, and three slabs --"
    HEAT_ARGS="--material=20,1,1 --region=1,sphere,0.5,0.5,0.5,0.3" sh bench/heat.sh drivers/hd-heat cuda "3:512:100" "generic tuned"
    HEAT_ARGS="--material=20,1,1 --material=0.2,2,1 --region=1,box,0,0.3,0,1,0,1 --region=2,box,0.6,1,0,1,0,1" \
      sh bench/heat.sh drivers/hd-heat cuda "3:512:100" "tuned"
  fi
  if want nbody; then
    echo "-- N-body (cuda-samples nbody -benchmark on this H200: 1.53e12 float, 1.79e12 fast-math, 5.95e11 double) --"
    sh bench/nbody.sh drivers/hd-nbody cuda "single:131072:20 single:262144:10 double:65536:20 double:131072:10" tuned
    sh bench/nbody.sh drivers/hd-nbody cuda "single:65536:3 double:65536:3" generic
    sh bench/nbody.sh drivers/hd-nbody cuda "single:131072:20" tuned "1 2 4 8"
    echo "-- Barnes-Hut tree, whole steps by phase (issue 24's target: 0.5 s a step at 2^23 single, theta 0.5) --"
    sh bench/nbody_tree.sh drivers/hd-nbody cuda "single:131072:10:0.5 single:524288:5:0.5 single:1048576:5:0.5 \
      single:2097152:5:0.5 single:8388608:5:0.5 single:8388608:5:0.7 single:16777216:3:0.5 double:1048576:3:0.5"
    sh bench/nbody.sh drivers/hd-nbody cuda "single:524288:3 single:1048576:2" tuned
  fi
  if want fdtd; then
    echo "-- FDTD (OpenFDTD on one GPU, its CUDA chapter: 13,900-19,500 Mcells.steps/s at N = 100-400) --"
    sh bench/fdtd.sh drivers/hd-fdtd cuda "100:2001 200:1001 300:501 400:301" "generic tuned"
    echo "-- tuned block shapes (x,y threads, nodes marched) --"
    sh bench/fdtd.sh drivers/hd-fdtd cuda "300:301" "tuned" "32,4,16 32,4,8 32,4,32 32,8,16 64,4,16 64,2,16 128,2,16"
    echo "-- the running DFTs over the march, 300^3 single (target: surface (5 + 2K) % for K frequencies) --"
    sh bench/fdtd_dft.sh drivers/hd-fdtd cuda 300 301
    echo "-- OpenFDTD's benchmark models with a full-volume DFT at one frequency (OpenFDTD on this H200: 9,200 / 9,900 Mcells.steps/s at 300 / 400) --"
    for n in 300 400; do
      for v in no yes:auto yes:1; do
        printf 'N = %s, nearvolume = %s, dft-decimation = %s: ' $n ${v%%:*} ${v#*:}
        ./drivers/hd-fdtd --bench=$n --precision=single --frequencies=3e9 --nearvolume=${v%%:*} --dft-decimation=${v#*:} --backend=cuda --progress=0 2>&1 |
          sed -n 's/^mcells_steps_per_second: /Mcells.steps\/s /p; s/^dft_every: /dft_every /p; /error/p' | tr '\n' ' '
        echo
      done
    done
    echo "-- the fused, time-blocked bulk march beside the tuned steps (bench/fdtd_fused.cu: issue 71's GPU time blocks, bit for bit) --"
    if nvcc -O3 -arch=native -std=c++17 -I include bench/fdtd_fused.cu -o "$OUT/fdtd-fused" >"$OUT/fdtd-fused.log" 2>&1; then
      for n in 300 400; do "$OUT/fdtd-fused" $n 120 3; done
    else
      tail -n 5 "$OUT/fdtd-fused.log"
    fi
    echo "-- dispersive media: the benchmark model plain, its block Debye, the whole volume Debye (the ADE pass's cost an edge) --"
    sh bench/fdtd_ade.sh drivers/hd-fdtd cuda 300 501 single
    sh bench/fdtd_ade.sh drivers/hd-fdtd cuda 300 501 double
    echo "-- the absorbing layers and the scattered-field plane wave beside the march (their bytes a point) --"
    sh bench/fdtd_passes.sh drivers/hd-fdtd cuda 300 301 single
    sh bench/fdtd_passes.sh drivers/hd-fdtd cuda 300 301 double
  fi
  if [ -n "${OPENFDTD_CUDA:-}" ] && { want fdtd || want openfdtd; }; then
    # side by side with an OpenFDTD CUDA build (built beside hd, not part of
    # it; its data/benchmark/ beside the binary, as in its source tree), its own
    # benchmark files, single, OPENFDTD_ROUNDS (3) interleaved rounds, each
    # program by its own clock.  OpenFDTD's log gives part-2, its time in
    # solve() less its DFT (its set-up, setup_host/setup_gpu/initfield,
    # inside), and part-3, the DFT: run at 500 and at 1500 steps (the output
    # interval set to the steps, so that it runs no more), the set-up cancels
    # in the difference: the loop is n^3 x 1000 / delta(part-2), the loop with
    # its volume DFT n^3 x 1000 / delta(part-2 + part-3).  hd: --bench's
    # rate of its steps (its own timer, no set-up), without and with a volume
    # DFT.  The table: the median of the rounds and their spread.
    w=$(mktemp -d)
    models=$(dirname "$OPENFDTD_CUDA")/data/benchmark
    for n in 300 400; do
      for s in 500 1500; do
        sed "s/^solver = .*/solver = $s $s 0/" "$models/benchmark$n.ofd" >"$w/s$s-$n.ofd"
      done
      round=0
      while [ $round -lt "${OPENFDTD_ROUNDS:-3}" ]; do
        round=$((round + 1))
        for v in no yes every; do
          dft=
          [ $v = yes ] && dft="--frequencies=3e9 --nearvolume=yes"
          [ $v = every ] && dft="--frequencies=3e9 --nearvolume=yes --dft-decimation=1"
          ./drivers/hd-fdtd --bench=$n --precision=single --backend=cuda --steps=1000 --progress=0 $dft 2>/dev/null |
            sed -n "s/^mcells_steps_per_second: /hd_$v /p"
        done
        for s in 500 1500; do
          (cd "$w" && "$OPENFDTD_CUDA" s$s-$n.ofd >s$s-$n.txt 2>&1)
          echo "ofd $s $(sed -n 's/^Iterations = \([0-9]*\).*/\1/p' "$w/s$s-$n.txt" | tail -n 1)" \
            "$(sed -n 's/^ *part-2 *: *\([0-9.eE+-]*\).*/\1/p' "$w/s$s-$n.txt" | tail -n 1)" \
            "$(sed -n 's/^ *part-3 *: *\([0-9.eE+-]*\).*/\1/p' "$w/s$s-$n.txt" | tail -n 1)"
        done | awk -v n=$n '{ it[$2] = $3; p2[$2] = $4; p3[$2] = $5 }
          END { d = it[1500] - it[500]; a = p2[1500] - p2[500]; b = p2[1500] + p3[1500] - p2[500] - p3[500]
                if (d > 0 && a > 0) print "ofd_no", n * n * n * d / a / 1e6
                if (d > 0 && b > 0) print "ofd_yes", n * n * n * d / b / 1e6 }'
      done | awk -v n=$n '
        function med(k,   i, j, t, c) { c = cnt[k]; for (i = 1; i <= c; ++i) for (j = i + 1; j <= c; ++j)
            if (v[k, j] < v[k, i]) { t = v[k, i]; v[k, i] = v[k, j]; v[k, j] = t }
          lo[k] = v[k, 1]; hi[k] = v[k, c]; return c % 2 ? v[k, (c + 1) / 2] : (v[k, c / 2] + v[k, c / 2 + 1]) / 2 }
        { v[$1, ++cnt[$1]] = $2 }
        END { for (k in cnt) m[k] = med(k)
          printf "benchmark%-4s %7.0f (%.0f-%.0f) %7.0f (%.0f-%.0f) %5.2fx | %7.0f (%.0f-%.0f) %7.0f (%.0f-%.0f) %5.2fx | %7.0f (%.0f-%.0f) %5.2fx\n", n,
            m["hd_no"], lo["hd_no"], hi["hd_no"], m["ofd_no"], lo["ofd_no"], hi["ofd_no"], (m["ofd_no"] > 0 ? m["hd_no"] / m["ofd_no"] : 0),
            m["hd_yes"], lo["hd_yes"], hi["hd_yes"], m["ofd_yes"], lo["ofd_yes"], hi["ofd_yes"], (m["ofd_yes"] > 0 ? m["hd_yes"] / m["ofd_yes"] : 0),
            m["hd_every"], lo["hd_every"], hi["hd_every"], (m["ofd_yes"] > 0 ? m["hd_every"] / m["ofd_yes"] : 0) }'
    done >"$w/rows"
    version=$(sed -n 's/.*Ver\.\([0-9.]*\).*/\1/p' "$w/s500-300.txt" | head -n 1)
    echo "-- FDTD beside OpenFDTD ${version:-(did not run: see its log)} CUDA, its benchmark files, single: Mcells.steps/s," \
      "median (spread) of ${OPENFDTD_ROUNDS:-3} interleaved rounds; OpenFDTD's loop by part-2 at 500 and 1500 steps --"
    echo "model          hd loop           OpenFDTD loop     ratio | hd + volume DFT   OpenFDTD + DFT    ratio | hd, DFT every step ratio"
    cat "$w/rows"
    [ -s "$w/rows" ] && tail -n 30 "$w/s1500-400.txt" >"${OUT:-.}/openfdtd_last.txt" 2>/dev/null
    rm -rf "$w"
  fi
  if want cavity; then
    echo "-- cavity: Poisson solvers (double, tolerance 1e-8 of max|f|, 1e-7 on 4096^2, from zero, the median of up to five solves after an untimed first) --"
    # SOR stalls at 6.4e-8 of max|f| on 4096^2 (run 19): 1e-7 there
    for n in 256 1024 2048 4096; do
      tol=
      [ $n = 4096 ] && tol=--tol=1e-7
      ./drivers/hd-cavity --bench --n=$n $tol --backend=cuda --progress=0 2>&1 | grep -E '^(n|sor_|copy|mg_|fft_|step_|poisson_tol)|error'
    done
    ./drivers/hd-cavity --bench --n=4096 --backend=cuda --precision=single --tol=1 --progress=0 2>&1 |
      grep -E '^(precision|sor_sweep)'
    echo "-- cavity: Re = 1000 on 256^2 to the steady state (issue 50's target: 5 s; time-accurate, then local steps) --"
    for run in "mg" "sor" "fft" "mg --local-dt=0.9" "fft --local-dt=0.9"; do
      # shellcheck disable=SC2086
      ./drivers/hd-cavity --n=256 --re=1000 --solver=$run --backend=cuda --output=/tmp/gpu_cav --progress=0 2>&1 |
        grep -E '^(solver|steps|time|steady|poisson_it|poisson_ch|psi_min|ghia_max|wall)' | tr '\n' ' '
      echo "${run#* }"
    done
    echo "-- cavity: Re = 5000 on 256^2, time-accurate, against Ghia's centreline extrema (within 2 %; about 100 s) --"
    ./drivers/hd-cavity --n=256 --re=5000 --solver=fft --backend=cuda --monitor-every=2000 --png=no --output=/tmp/gpu_cav \
      --progress=0 2>&1 | grep -E '^(steps|time|steady|u_min|v_min|v_max|ghia_extrema|wall)|error' | tr '\n' ' '
    echo
  fi
  if want ns; then
    echo "-- compressible NS: the tuned RK4 stage, 16 values a cell-stage; boundary_share: what the face nodes add to the inner ones (target < 5 % at 2048^2) --"
    for prec in double single; do
      for n in 2048 4096; do
        # rounds of 40 / 12 steps: the boundary's share is a difference of two timings
        ./drivers/hd-ns --bench --n=$n --steps=$((n == 2048 ? 200 : 60)) --backend=cuda --precision=$prec --progress=0 2>&1 |
          grep -E '^(precision|nodes|cell_stages|effective|copy|fraction|boundary)' | tr '\n' ' '
        echo
      done
    done
    echo "-- Degawa's case: Mach 1.1, 512^2, c dt / l = 1e-3 to c t / l = 2 (2000 steps) --"
    ./drivers/hd-ns --n=512 --dt=1e-3 --backend=cuda --output=/tmp/seed --progress=0 --frames=0 2>&1 |
      grep -E '^(steps|time|max_dp|mass|energy|wall|cell_stages)' | tr '\n' ' '
    echo
  fi
  ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  if [ -n "$mpi" ] && [ "$ngpu" -ge 2 ]; then
    echo "-- MPI scaling over $ngpu GPUs: heat 3-D 512^3 and FDTD 400^3 a rank (weak), the largest grid (strong) --"
    ranks="1 2"
    [ "$ngpu" -ge 4 ] && ranks="1 2 4"
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 sh bench/scaling.sh . cuda "$ranks"
  fi
} 2>&1 | tee "$OUT/bench.txt"

log "sass"
want nbody && for f in drivers/nbody/nbody_cuda_f.o drivers/nbody/nbody_cuda_d.o; do
  cuobjdump -sass "$f" | awk '/Function : .*tiled_free[0-9]/,/\.\.\.\.\.\.\.\.\.\./'
done >"$OUT/sass.txt" 2>&1
want nbody && wc -l "$OUT/sass.txt"
}

log "compute-sanitizer"
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
# one run under a tool: its summary line, and the report's head when it fails
sanitize() { # tool, driver, arguments...
  tool=$1 drv=$2
  shift 2
  echo "-- $tool: $drv $*"
  "$cs" --tool "$tool" --error-exitcode 3 "./drivers/$drv" --backend=cuda --progress=0 "$@" >/tmp/cs.out 2>&1
  rc=$?
  echo "exit $rc: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/cs.out | tail -n 1)"
  [ $rc -ne 0 ] && head -n 40 /tmp/cs.out
}
{
  want heat && for tool in memcheck racecheck initcheck synccheck; do
    for args in "--dim=2 --n=70,50 --variant=generic" "--dim=2 --n=70,50 --variant=tuned" \
                "--dim=3 --n=20,18,17 --variant=generic" "--dim=3 --n=20,18,17 --variant=tuned --precision=single" \
                "--dim=3 --n=36,18,17 --variant=tuned" "--dim=3 --n=21,18,17 --variant=tuned" \
                "--dim=3 --n=36,18,17 --variant=tuned --material=5,1,1 --region=1,sphere,0.5,0.5,0.5,0.3 --bc=convective:2:0 --balance --probe=0.5,0.5,0.5" \
                "--dim=3 --n=36,18,17 --variant=tuned --precision=single --material=5,1,1 --region=1,box,0.2,0.7,0,1,0,1 --bc-xlo=flux:1" \
                "--dim=3 --n=36,18,17 --time-block=5 --block=32,4,8 --bc-xlo=fixed:1 --bc-zhi=convective:2:0" \
                "--dim=2 --n=70,50 --time-block=8 --block=32,1,16 --precision=single --bc-ylo=flux:1"; do
      sanitize "$tool" hd-heat --steps=7 --vti=no --output=/tmp/cs $args
    done
  done
  want nbody && for tool in memcheck racecheck initcheck synccheck; do
    for args in "--n=700 --variant=tuned" "--n=700 --variant=generic --precision=single" \
                "--n=300 --dim=2 --ic=uniform --softening=0 --variant=tuned --precision=single" \
                "--n=3000 --ic=plummer --method=tree --precision=single" "--n=500 --ic=plummer --method=tree --leaf=3"; do
      sanitize "$tool" hd-nbody --steps=3 --output=/tmp/csn $args
    done
  done
  if want fdtd; then
    cp tests/fdtd_sanitize.in /tmp/fd.in
    for tool in memcheck racecheck initcheck synccheck; do
      for args in "--variant=generic" "--variant=tuned --precision=single" "--variant=tuned --boundary=pml" \
                  "--variant=tuned --boundary=periodic --boundary-z=pml --block=8,3,5" \
                  "--boundary=cpml --mur=h --point=Z,0.01,0.01,0,+X --frequencies=4e9,8e9,2" \
                  "--boundary=mur --mur=h --feed-release=yes --precision=single"; do
        sanitize "$tool" hd-fdtd --input=/tmp/fd.in --output=/tmp/csf $args
      done
      sanitize "$tool" hd-fdtd --input=tests/fdtd_scatter.in --steps=30 --planewave-form=sf --boundary=cpml \
        --point=X,0.03,0,0,-X --output=/tmp/csf # a scattered-field plane wave
    done
  fi
  want cavity && for tool in memcheck racecheck initcheck synccheck; do
    for args in "--n=24 --solver=mg" "--n=24 --solver=sor --precision=single --tol=1e-3" "--n=25 --solver=sor" \
                "--n=24 --solver=fft" "--n=25 --solver=fft --precision=single"; do
      sanitize "$tool" hd-cavity --steps=30 --steady=0 --output=/tmp/csc $args
    done
  done
  want ns && for tool in memcheck racecheck initcheck synccheck; do
    for args in "--mach=0.5 --bc-left=subsonic-in --bc-right=zero-gradient --bc-bottom=slip-wall --bc-top=noslip-wall" \
                "--mach=1.1 --bc-left=supersonic-in --bc-right=supersonic-out --precision=single" \
                "--case=isentropic --mach=0.5 --bc-left=periodic --bc-right=periodic"; do
      sanitize "$tool" hd-ns --n=24 --steps=4 --frames=1 --output=/tmp/csn2 $args
    done
  done
  # tests/core provokes a failed 4.6 EB cudaMalloc on purpose: API errors off
  echo "-- memcheck: tests/core"
  [ -x tests/core ] || make -j"$jobs" tests/core >/dev/null 2>&1 # the bench mode runs no tests, so built none
  "$cs" --tool memcheck --report-api-errors no --error-exitcode 3 ./tests/core >/tmp/cs.out 2>&1
  rc=$?
  echo "exit $rc: $(grep 'ERROR SUMMARY' /tmp/cs.out | tail -n 1)"
  [ $rc -ne 0 ] && head -n 60 /tmp/cs.out
  # heat's overlapped steps (two streams, boxes) on 2 ranks, halos through
  # host memory (the sanitizer and CUDA IPC mappings are not combined here)
  if [ -n "$mpi" ] && want heat; then
    for tool in memcheck synccheck; do
      echo "-- $tool: hd-heat --dim=3 on 2 ranks, overlapped steps"
      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 HD_MPI_IPC=0 mpiexec -n 2 \
        "$cs" --tool "$tool" --error-exitcode 3 ./drivers/hd-heat --backend=cuda --dim=3 --n=40,37,33 --steps=7 \
        --vti=no --output=/tmp/csm --progress=0 </dev/null >/tmp/cs.out 2>&1
      rc=$?
      echo "exit $rc: $(grep -E 'ERROR SUMMARY' /tmp/cs.out | tail -n 1)"
      [ $rc -ne 0 ] && head -n 40 /tmp/cs.out
    done
  fi
} 2>&1 | tee "$OUT/sanitizer.txt" | grep -E '^exit' | sort | uniq -c

log "done"
exit $check_rc
