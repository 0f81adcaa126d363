#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hd-ns on MPI ranks: blocks of rows exchange ghost rows before every
# Runge-Kutta stage; the same history and frames as one rank, byte for
# byte, with characteristic, wall, inflow, zero-gradient and periodic faces
# (a periodic y wraps around the ranks), and in 3-D (blocks along y and z,
# both periodic); frames by pieces; checkpoints on
# any rank count; CUDA ranks; what it refuses.
set -u
. "${top_srcdir:-.}/tests/mpi_lib.sh"
same_as_one_rank ns <<CASES
Poinsot and Lele's vortex, nonreflecting faces|--n=48 --steps=60 --frames=2 --monitor-every=5 --png=no --backend=serial|_history.csv _0000.vtr _0001.vtr _0002.vtr|2 3 4
walls, subsonic inflow, zero-gradient outflow|--n=40 --lx=1.2 --case=isentropic --circulation=0.05 --bc-bottom=noslip-wall --bc-top=slip-wall --bc-left=subsonic-in --bc-right=zero-gradient --mach=0.3 --steps=50 --frames=1 --png=no --backend=openmp|_history.csv _0001.vtr|2 4
periodic y over the ranks, single|--n=32 --bc-bottom=periodic --bc-top=periodic --steps=40 --frames=1 --png=no --precision=single --backend=serial|_history.csv _0001.vtr|2 3
periodic both axes, isentropic vortex|--n=24 --case=isentropic --circulation=0.1 --bc-bottom=periodic --bc-top=periodic --bc-left=periodic --bc-right=periodic --steps=30 --frames=1 --png=no --backend=serial|_history.csv _0001.vtr|2 4
3-D Taylor-Green vortex, blocks along y and z|--dim=3 --n=12 --steps=20 --frames=1 --monitor-every=5 --png=no --backend=serial|_history.csv _0001.vtr|2 3 4
3-D vortex tube, single|--dim=3 --case=vortex-tube --n=12 --lz=3.14159265 --mach=0.3 --steps=20 --frames=1 --png=no --precision=single --backend=openmp|_history.csv _0001.vtr|2 4
3-D pulse through nonreflecting faces, edges and corners|--dim=3 --case=pulse --bc=nonreflecting --mach=0 --n=12 --lx=1 --ly=1 --lz=1 --rc=0.1 --center=0.1,0.1,0.1 --steps=30 --frames=1 --png=no --backend=serial|_history.csv _0001.vtr|2 3 4
3-D vortex tube, walls and inflows, coupled corners|--dim=3 --case=vortex-tube --n=12 --lx=1 --ly=1 --lz=1 --rc=0.15 --mach=0.3 --bc-left=subsonic-in --bc-right=nonreflecting --bc-bottom=noslip-wall --bc-top=slip-wall --bc-back=nonreflecting --bc-front=nonreflecting --corners=coupled --steps=30 --frames=1 --png=no --backend=openmp|_history.csv _0001.vtr|2 4
CASES

# hd-ns --pieces: every frame as blocks of rows and a .pvtr the .pvd names;
# the blocks' arrays, in rank order, are one rank's frame byte for byte
bin="$top/drivers/hd-ns"
rm -rf one many && mkdir one many
nsp="--n=32 --steps=20 --frames=2 --png=no --backend=openmp" # a CPU backend on every rank count (auto: CUDA on one rank of a GPU machine)
# shellcheck disable=SC2086
mpirun 1 $nsp --output=one/n >/dev/null 2>&1 && mpirun 3 $nsp --pieces --output=many/n >many/stdout 2>&1 &&
  [ ! -f many/n_0002.vtr ] && grep -q 'file="n_0002.pvtr"' many/n.pvd && [ "$(grep -c '<Piece ' many/n_0002.pvtr)" -eq 3 ] &&
  grep -q '^picture: none (--pieces' many/stdout && cmp -s one/n_history.csv many/n_history.csv &&
  (for a in 0 1 2 3 4; do
    for k in 0 1 2; do vtk_raw many/n_0002_p$k.vtr $a || exit 1; done >many/cat
    vtk_raw one/n_0002.vtr $a | cmp -s - many/cat || exit 1
  done) && (for k in 0 1 2; do piece_coords one/n_0002.vtr many/n_0002.pvtr $k 1 many 5 || exit 1; done)
result $? "hd-ns --pieces on 3 ranks: frames as three .vtr blocks and a .pvtr in the .pvd, the blocks' five arrays one rank's byte for byte"

if [ "$gpu" = yes ]; then
  gpu_same_as_one_rank ns <<GPUCASES
--n=48 --steps=60 --frames=1 --png=no|_history.csv _0001.vtr
--n=48 --ly=2 --steps=50 --frames=1 --png=no --bc-left=noslip-wall --bc-right=slip-wall --bc-top=zero-gradient --bc-bottom=noslip-wall|_history.csv _0001.vtr|3
--n=64 --ly=2 --steps=40 --frames=1 --png=no --precision=single|_history.csv _0001.vtr|4
GPUCASES
else
  echo "# no CUDA device here: the CUDA-under-MPI cases run on GPU machines (bench/gpu.sh)"
fi

rm -rf ck && mkdir ck
restart3 ns 30 "_0002.vtr _history.csv" --n=40 --steps=60 --frames=2 --monitor-every=5 --png=no
result $? "hd-ns on 3 ranks: 30 + checkpoint + restart + 30 steps give the flow and history of 60 straight"

# hd-ns's checkpoints load on any rank count too (ghost rows of the conserved variables; periodic in y too)
bin="$top/drivers/hd-ns"
for nsa in "--n=40 --backend=openmp" "--n=32 --bc-bottom=periodic --bc-top=periodic --backend=serial" "--dim=3 --n=12 --backend=serial" \
  "--dim=3 --case=pulse --bc=nonreflecting --mach=0 --n=12 --lx=1 --ly=1 --lz=1 --rc=0.1 --backend=serial"; do
  rm -rf ck && mkdir ck
  # shellcheck disable=SC2086
  mpirun 1 $nsa --steps=60 --frames=2 --monitor-every=5 --png=no --output=ck/s >/dev/null 2>&1 &&
    mpirun 3 $nsa --steps=60 --frames=2 --monitor-every=5 --png=no --output=ck/h3 --checkpoint-every=30 >/dev/null 2>&1 &&
    mpirun 2 $nsa --steps=60 --frames=2 --monitor-every=5 --png=no --output=ck/a --restart=ck/h3.ckpt.000000000030 >/dev/null 2>&1 &&
    mpirun 4 $nsa --steps=60 --frames=2 --monitor-every=5 --png=no --output=ck/b --restart=ck/h3.ckpt.000000000030 >/dev/null 2>&1 &&
    cmp -s ck/s_0002.vtr ck/a_0002.vtr && cmp -s ck/s_0002.vtr ck/b_0002.vtr &&
    cmp -s ck/s_history.csv ck/a_history.csv && cmp -s ck/s_history.csv ck/b_history.csv
  result $? "hd-ns ($nsa): a checkpoint of 3 ranks restarted on 2 and on 4 gives the flow and history of one rank straight"
done

bin="$top/drivers/hd-ns"
mpibad 6 "fewer than 3 node rows" --n=16 --steps=2
mpibad 6 "6 ranks leave blocks thinner than 3 nodes (8 x 8 x 8 nodes in all)" --dim=3 --n=8 --steps=2
mpibad 2 "bench: not available yet" --n=16 --steps=2 --bench

finish
