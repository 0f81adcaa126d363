#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hd-cavity on MPI ranks: red-black SOR exchanges ghost rows after each
# colour and takes its norms over all ranks, multigrid splits its levels
# over them down to --mg-gather cells a side, the FFT solve transposes by
# all-to-all; the same history, centre lines and fields as one rank, byte
# for byte; fields by pieces; checkpoints on any rank count; --init-from;
# CUDA ranks; what it refuses.
set -u
. "${top_srcdir:-.}/tests/mpi_lib.sh"
cav_fft=mg # the cavity's FFT solve (rows split over the ranks, transposed by all-to-all) where FFTW3 is built
[ -n "${FFTW_LIBS:-}" ] && cav_fft=fft
same_as_one_rank cavity <<CASES
SOR, Re 1000, double|--n=32 --solver=sor --steps=200 --monitor-every=20 --steady=0 --png=no --backend=serial|_history.csv _centreline.csv .vtr|2 3 4
SOR, Re 100 to steady state, single, OpenMP|--n=24 --solver=sor --re=100 --steady=1e-3 --monitor-every=10 --precision=single --png=no --backend=openmp|_history.csv _centreline.csv .vtr|2 4
multigrid split down to 8 cells a side (blocks of one row), Re 1000, double|--n=32 --solver=mg --mg-gather=4 --steps=100 --monitor-every=20 --steady=0 --png=no --backend=serial|_history.csv _centreline.csv .vtr|2 3 4
multigrid split until a block would hold no row, single|--n=32 --solver=mg --mg-gather=2 --steps=60 --monitor-every=20 --steady=0 --precision=single --png=no --backend=serial|_history.csv .vtr|5 7
multigrid, Re 100 to steady state, single, OpenMP|--n=32 --solver=mg --re=100 --steady=1e-3 --monitor-every=10 --precision=single --png=no --backend=openmp|_history.csv .vtr|2 4
$cav_fft, local steps, Re 1000 to steady state, OpenMP|--n=30 --solver=$cav_fft --local-dt=0.9 --steady=1e-3 --monitor-every=10 --png=no --backend=openmp|_history.csv _centreline.csv .vtr|2 3 7
SOR, 16 ranks of one or two rows|--n=16 --solver=sor --steps=50 --monitor-every=10 --steady=0 --png=no --backend=serial|_history.csv .vtr|16
$cav_fft, 16 ranks of one or two rows (the last none inside), single|--n=16 --solver=$cav_fft --steps=50 --monitor-every=10 --steady=0 --precision=single --png=no --backend=serial|_history.csv .vtr|16
CASES

# hd-cavity --pieces: the fields as blocks of rows and a .pvtr; the blocks'
# arrays, in rank order, are one rank's, and the centrelines, the vortex and
# the comparison with Ghia (from strips of the blocks) one rank's too
bin="$top/drivers/hd-cavity"
rm -rf one many && mkdir one many
cvp="--n=31 --steps=200 --steady=0 --monitor-every=50 --png=no --backend=openmp"
# shellcheck disable=SC2086
mpirun 1 $cvp --output=one/c >one/stdout 2>&1 && mpirun 3 $cvp --pieces --output=many/c >many/stdout 2>&1 &&
  [ ! -f many/c.vtr ] && [ "$(grep -c '<Piece ' many/c.pvtr)" -eq 3 ] && grep -q '^picture: none (--pieces' many/stdout &&
  cmp -s one/c_centreline.csv many/c_centreline.csv && cmp -s one/c_history.csv many/c_history.csv &&
  [ "$(grep -E '^(psi_min|x_min|y_min|ghia_|u_min|v_m)' one/stdout)" = "$(grep -E '^(psi_min|x_min|y_min|ghia_|u_min|v_m)' many/stdout)" ] &&
  (for a in 0 1 2 3; do
    for k in 0 1 2; do vtk_raw many/c_p$k.vtr $a || exit 1; done >many/cat
    vtk_raw one/c.vtr $a | cmp -s - many/cat || exit 1
  done) && (for k in 0 1 2; do piece_coords one/c.vtr many/c.pvtr $k 1 many 4 || exit 1; done)
result $? "hd-cavity --pieces on 3 ranks: three .vtr blocks and a .pvtr whose arrays are one rank's byte for byte; the centrelines, vortex and Ghia comparison of one rank"
if [ "$cav_fft" = fft ]; then # the transposes' counts: refused before anything is allocated or written
  mpirun 2 --n=70000 --solver=fft --backend=serial --output=many/big >/dev/null 2>many/stderr
  [ $? -eq 2 ] && [ "$(grep -c '^hd-cavity:' many/stderr)" -eq 1 ] && grep -q "n: the FFT's transposes would pass MPI's counts" many/stderr &&
    [ -z "$(ls many | grep '^big')" ]
  result $? "hd-cavity --n=70000 --solver=fft on 2 ranks: exit 2, one line naming the transposes' counts, nothing written"
fi

if [ "$gpu" = yes ]; then
  gpu_same_as_one_rank cavity <<GPUCASES
--n=32 --solver=sor --steps=100 --monitor-every=20 --steady=0 --png=no|_history.csv .vtr
--n=128 --solver=sor --steps=30 --monitor-every=10 --steady=0 --png=no --precision=single|_history.csv .vtr|4
--n=32 --solver=mg --steps=100 --monitor-every=20 --steady=0 --png=no|_history.csv .vtr
--n=256 --solver=mg --mg-gather=8 --steps=40 --monitor-every=10 --steady=0 --png=no --precision=single|_history.csv .vtr|3
GPUCASES
else
  echo "# no CUDA device here: the CUDA-under-MPI cases run on GPU machines (bench/gpu.sh)"
fi

rm -rf ck && mkdir ck
restart3 cavity 60 ".vtr _history.csv" --n=32 --solver=sor --steps=120 --monitor-every=20 --steady=0 --png=no
result $? "hd-cavity on 3 ranks: 60 + checkpoint + restart + 60 steps give the fields and history of 120 straight"
# split solves say nothing of it (only cuFFT on CUDA ranks gathers the grid, with a note)
bin="$top/drivers/hd-cavity"
rm -rf many && mkdir many
mpirun 2 --n=16 --solver=mg --steps=2 --steady=0 --png=no --backend=serial --output=many/m >/dev/null 2>many/mg.err &&
  mpirun 2 --n=16 --solver=sor --steps=2 --steady=0 --png=no --backend=serial --output=many/s >/dev/null 2>many/sor.err &&
  ! grep -q 'note:' many/mg.err && ! grep -q 'note:' many/sor.err
result $? "hd-cavity on 2 ranks: multigrid and SOR are split over the ranks, no note"

# the cavity's checkpoints load on any rank count (each rank reads the rows
# of the old blocks it covers): 3 -> 2, 3 -> 1, 1 -> 3 and 2 -> 4 continue as
# the straight run does, bit for bit, with SOR and FFT (split) or multigrid
# (whole grid on every rank); CPU backends named (auto picks CUDA on one rank
# of a GPU machine and OpenMP on several)
rm -rf ck && mkdir ck
bin="$top/drivers/hd-cavity"
cav="--n=32 --steps=120 --monitor-every=20 --steady=0 --png=no --backend=openmp"
for solver in sor auto; do
  # shellcheck disable=SC2086
  mpirun 3 $cav --solver=$solver --output=ck/s >/dev/null 2>&1 &&
    mpirun 3 $cav --solver=$solver --output=ck/h3 --checkpoint-every=60 >/dev/null 2>&1 &&
    mpirun 1 $cav --solver=$solver --output=ck/h1 --checkpoint-every=60 >/dev/null 2>&1 &&
    mpirun 2 $cav --solver=$solver --output=ck/h2 --checkpoint-every=40 >/dev/null 2>&1 &&
    mpirun 2 $cav --solver=$solver --output=ck/a32 --restart=ck/h3.ckpt.000000000060 >/dev/null 2>&1 &&
    mpirun 1 $cav --solver=$solver --output=ck/a31 --restart=ck/h3.ckpt.000000000060 >/dev/null 2>&1 &&
    mpirun 3 $cav --solver=$solver --output=ck/a13 --restart=ck/h1.ckpt.000000000060 >/dev/null 2>&1 &&
    mpirun 4 $cav --solver=$solver --output=ck/a24 --restart=ck/h2.ckpt.000000000080 >/dev/null 2>&1 &&
    grep -q '^rank 2 h3.r2of3.ckpt.000000000060 rows 22 33 1 0 1 0$' ck/h3.ckpt.000000000060
  ok=$?
  for run in a32 a31 a13 a24; do
    for f in .vtr _history.csv; do [ $ok -eq 0 ] && cmp -s "ck/s$f" "ck/$run$f" || ok=1; done
  done
  result $ok "hd-cavity ($solver): checkpoints of 3, 1 and 2 ranks restarted on 2, 1, 3 and 4 give the fields and history of the straight run"
done

# --init-from (grid sequencing) on ranks: each rank interpolates its rows
# of a one-rank 32^2 checkpoint onto 64^2, as one rank does
bin="$top/drivers/hd-cavity"
rm -rf ck && mkdir ck
gs="--n=64 --steps=100 --monitor-every=20 --steady=0 --png=no --solver=sor --backend=serial"
mpirun 1 --n=32 --steps=100 --steady=0 --png=no --backend=serial --output=ck/c --checkpoint-every=50 >/dev/null 2>&1 &&
  mpirun 1 $gs --output=ck/g1 --init-from=ck/c.ckpt.000000000050 >/dev/null 2>&1 &&
  mpirun 3 $gs --output=ck/g3 --init-from=ck/c.ckpt.000000000050 >/dev/null 2>&1 &&
  cmp -s ck/g1.vtr ck/g3.vtr && cmp -s ck/g1_history.csv ck/g3_history.csv
result $? "hd-cavity --init-from a 32^2 checkpoint on 64^2: 3 ranks give the fields and history of one rank"
rm -rf ck && mkdir ck
mpirun 3 $cav --output=ck/h3 --checkpoint-every=60 >/dev/null 2>&1
sed 's/ rows .*//' ck/h3.ckpt.000000000060 >ck/old.ckpt.000000000060
# shellcheck disable=SC2086
mpirun 2 $cav --output=ck/x --restart=ck/old.ckpt.000000000060 >stdout 2>stderr
[ $? -eq 2 ] && [ "$(grep -c '^hd-cavity: error' stderr)" -eq 1 ] && grep -q "does not give the rows of every block" stderr &&
  [ ! -e ck/x.vtr ]
result $? "a manifest without the blocks' rows is refused on another rank count in one line, nothing written"

finish
