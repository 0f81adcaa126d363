#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hd-nbody on MPI ranks: each rank computes the forces and potentials of
# its block of bodies and shares them (the tree: every rank builds it and
# walks its block of the sorted bodies); the same CSV and snapshots as one
# rank, byte for byte, with the tuned and the generic CPU kernels;
# checkpoints; CUDA ranks where a GPU answers; what it refuses.
set -u
. "${top_srcdir:-.}/tests/mpi_lib.sh"
same_as_one_rank nbody <<CASES
Plummer, tuned kernel, double|--n=333 --steps=40 --diag-every=10 --snapshot-every=20 --backend=openmp|.csv .pvd _000020.vtp _000040.vtp|2 3 4
periodic square, generic kernel, single|--dim=2 --ic=uniform --n=200 --steps=30 --diag-every=10 --variant=generic --precision=single --backend=openmp|.csv _000030.vtp|2 4
Plummer, the tree (each rank walks its block of the sorted bodies), double|--n=700 --method=tree --theta=0.6 --leaf=8 --steps=30 --diag-every=10 --snapshot-every=30 --backend=openmp|.csv _000030.vtp|2 3 4
Plummer, the tree, single, serial|--n=500 --method=tree --steps=20 --diag-every=10 --snapshot-every=20 --precision=single --backend=serial|.csv _000020.vtp|3
CASES

if [ "$gpu" = yes ]; then
  gpu_same_as_one_rank nbody <<GPUCASES
--n=1000 --steps=20 --diag-every=5 --snapshot-every=20 --splits=1|.csv _000020.vtp
--dim=2 --ic=uniform --n=700 --steps=20 --diag-every=5 --snapshot-every=20 --splits=1 --precision=single|.csv _000020.vtp|3
--n=3000 --method=tree --steps=20 --diag-every=10 --snapshot-every=20|.csv _000020.vtp|2 3
GPUCASES
  # N-body with the j range split (partial sums added per block of bodies):
  # within round-off of one CUDA rank, and every rank's bodies the same
  bin="$top/drivers/hd-nbody"
  rm -rf one many && mkdir one many
  mpirun 1 --n=1500 --steps=20 --diag-every=20 --snapshot-every=0 --backend=cuda --output=one/o >/dev/null 2>&1 &&
    mpirun 4 --n=1500 --steps=20 --diag-every=20 --snapshot-every=0 --backend=cuda --output=many/o >/dev/null 2>&1 &&
    awk -F, 'FNR == 1 { next } FNR == NR { e[$1] = $5; next }
             ($1 in e) { d = $5 - e[$1]; if (d < 0) d = -d; if (d > 1e-12 * (e[$1] < 0 ? -e[$1] : e[$1])) bad = 1; n++ }
             END { exit (bad || n < 2) }' one/o.csv many/o.csv
  result $? "hd-nbody on 4 CUDA ranks, j range split: total energy within 1e-12 of one CUDA rank at every diagnostic"
else
  echo "# no CUDA device here: the CUDA-under-MPI cases run on GPU machines (bench/gpu.sh)"
fi

# N-body on 3 ranks: rank 0 writes the (whole) state; a restart on 3 ranks
# continues bit-identically
rm -rf ck && mkdir ck
bin="$top/drivers/hd-nbody"
nargs="--n=300 --diag-every=5"
# shellcheck disable=SC2086
mpirun 3 $nargs --steps=40 --output=ck/ns >/dev/null 2>&1 &&
  mpirun 3 $nargs --steps=40 --output=ck/nh --checkpoint-every=20 >/dev/null 2>&1 &&
  mpirun 3 $nargs --steps=40 --output=ck/na --restart=ck/nh.ckpt.000000000020 >/dev/null 2>&1 &&
  cmp -s ck/ns_000040.vtp ck/na_000040.vtp && cmp -s ck/ns.csv ck/na.csv && [ -z "$(ls ck | grep '^nh\.r')" ]
result $? "hd-nbody on 3 ranks: one checkpoint file; 20 + restart + 20 gives the bodies and energy series of 40 straight"

bin="$top/drivers/hd-nbody"
[ "$gpu" = yes ] || mpibad 2 "'cuda' is not in this build\|no CUDA device" --n=16 --steps=4 --backend=cuda
mpibad 3 "--n: 0 is out of range" --n=0

finish
