#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hd-heat on MPI ranks (configure --with-mpi): on 2, 3, 4 and 6 ranks
# (uneven splits, two split axes in 3-D) the same field, CSV and summary,
# byte for byte, as on one rank, in 2-D and 3-D, both precisions, fixed,
# convective and flux faces, materials, fields from files, sources and in
# time blocks (halos T cells deep), implicit steps (CG, Chebyshev, PPCG,
# multigrid CG; a TeaLeaf deck); output by pieces; checkpoints on any
# rank count; CUDA ranks where a GPU answers; what it refuses.
set -u
. "${top_srcdir:-.}/tests/mpi_lib.sh"
printf '0 0\n0.002 1\n0.01 -1\n' >heat_ramp.tab
"$top/drivers/hd-heat" --n=48,40 --init=sphere --steps=10 --png=no --output=heat_init >/dev/null 2>&1
"$top/drivers/hd-heat" --dim=3 --n=16,20,18 --init=box --steps=5 --png=no --output=heat_init3 >/dev/null 2>&1
"$top/drivers/hd-heat" --dim=3 --n=16,20,18 --init=box --steps=0 --png=no --output=heat_map3 >/dev/null 2>&1
awk 'BEGIN { for (j = 0; j < 40; ++j) for (i = 0; i < 48; ++i) printf "%c", (i + 2 * j < 50 ? 1 : 2) }' >heat_map.u8

same_as_one_rank heat <<CASES
2-D double, fixed and adiabatic faces|--n=64,50 --steps=120 --csv-every=10 --bc-xlo=fixed:1 --bc-yhi=fixed:2 --backend=serial|.vti .csv|2 3 4
2-D single, sphere, source|--n=40,64 --init=sphere --source=2 --steps=100 --csv-every=7 --precision=single --backend=serial|.vti .csv|2 4
3-D double, sine mode, fixed faces|--dim=3 --n=20,18,16 --init=sine --bc=fixed:0 --steps=60 --csv-every=5 --backend=serial|.vti .csv|2 4 6
2-D double, convective and flux faces|--n=48,40 --steps=80 --csv-every=8 --conductivity=2 --bc-xlo=convective:5:1 --bc-yhi=flux:3 --bc-ylo=convective:0.5:-1 --backend=serial|.vti .csv|2 3
3-D double, three materials|--dim=3 --n=20,24,18 --material=4,1,2,3 --material=0.2,1,1 --region=1,box,0,1,0.3,0.7,0,1 --region=2,sphere,0.5,0.5,0.5,0.3 --bc-xlo=fixed:1 --bc-zhi=convective:2:0 --steps=40 --csv-every=5 --backend=serial|.vti .csv|2 4
2-D double, time tables, probes, heat balance, materials|--n=48,40 --steps=80 --csv-every=8 --material=3,1,2,1 --region=1,sphere,0.5,0.5,0.3 --bc-xlo=convective:5:@heat_ramp.tab --bc-yhi=flux:@heat_ramp.tab --bc-xhi=fixed:0.5 --probe=0.1,0.1 --probe=0.5,0.5 --probe=0.99,0.2 --balance --backend=serial|.vti .csv _probes.csv _balance.csv|2 3 4
2-D double, initial field, material map and source field from files|--n=48,40 --init-field=heat_init.vti --material=3,1,2 --material=0.5,1,1 --material-map=raw:u8:48,40:heat_map.u8 --region=0,sphere,0.5,0.5,0.2 --source-field=heat_init.vti --bc-yhi=convective:3:0 --balance --steps=40 --csv-every=5 --backend=serial|.vti .csv _balance.csv|2 3 4
3-D double, initial field and material map from a .vti|--dim=3 --n=16,20,18 --init-field=heat_init3.vti --material=2,1,1 --material-map=heat_map3.vti --bc-zlo=fixed:2 --steps=30 --csv-every=5 --backend=serial|.vti .csv|2 4
3-D double, probes, heat balance, OpenMP|--dim=3 --n=16,20,18 --source=0.7 --bc-zlo=flux:2 --bc-xhi=convective:3:1 --probe=0.5,0.5,0.5 --balance --steps=30 --csv-every=5 --backend=openmp|.vti .csv _probes.csv _balance.csv|2 4
3-D single, box, source, OpenMP|--dim=3 --n=16,24,20 --source=1 --bc-zlo=fixed:3 --steps=40 --csv-every=4 --precision=single --backend=openmp|.vti .csv|2 4
3-D double, time blocks of 4 steps (halos 4 cells deep), convective face|--dim=3 --n=20,18,16 --init=sine --bc=fixed:0 --bc-zlo=convective:3:1 --steps=30 --csv-every=5 --time-block=4 --backend=serial|.vti .csv|2 4 6
3-D single, time blocks of 6, source, OpenMP|--dim=3 --n=16,24,20 --source=1 --bc-zlo=fixed:3 --steps=40 --csv-every=4 --precision=single --time-block=6 --backend=openmp|.vti .csv|2 8
2-D double, time blocks of 12 (fewer where blocks are thinner), OpenMP|--n=64,50 --steps=37 --csv-every=10 --bc-xlo=fixed:1 --bc-yhi=flux:2 --time-block=12 --backend=openmp|.vti .csv|2 3 6
2-D double, implicit steps by PPCG, materials, faces, heat balance|--n=48,40 --scheme=implicit --solver=ppcg --dt=0.01 --material=20,1,1 --region=1,box,0.2,0.6,0.3,0.7 --bc-xlo=fixed:1 --bc-yhi=convective:3:0 --steps=6 --csv-every=2 --balance --backend=serial|.vti .csv _balance.csv|2 3 4
3-D double, Crank-Nicolson by CG, OpenMP|--dim=3 --n=16,20,18 --scheme=cn --dt=0.01 --solver=cg --source=1 --bc-zlo=fixed:0 --steps=5 --backend=openmp|.vti .csv|2 4
2-D single, Chebyshev, steady state|--n=40,44 --scheme=steady --solver=chebyshev --bc-xlo=fixed:1 --bc-xhi=convective:2:0 --source=3 --precision=single --backend=serial|.vti .csv|3
2-D double, multigrid CG (levels shared as blocks: 2 on 2 ranks, 1 on 4, none on 3), materials, faces, heat balance|--n=160,136 --scheme=implicit --solver=mg --dt=0.01 --material=20,1,1 --region=1,box,0.2,0.6,0.3,0.7 --bc-xlo=fixed:1 --bc-yhi=convective:3:0 --steps=4 --csv-every=2 --balance --backend=serial|.vti .csv _balance.csv|2 3 4
3-D double, Crank-Nicolson by multigrid CG, two split axes, OpenMP|--dim=3 --n=80,72,68 --scheme=cn --dt=0.01 --solver=mg --source=1 --bc-zlo=fixed:0 --steps=3 --backend=openmp|.vti .csv|2 4 6
2-D single, steady state by multigrid CG|--n=144,130 --scheme=steady --solver=mg --bc-xlo=fixed:1 --bc-xhi=convective:2:0 --source=3 --precision=single --backend=serial|.vti .csv|2 3
CASES
# a TeaLeaf deck of our own (tests/heat_implicit.sh's) on 1 to 4 ranks: one temperature
printf '*tea\nstate 1 density=10.0 energy=0.5\nstate 2 density=0.2 energy=30.0 geometry=rectangle xmin=1.0 xmax=3.5 ymin=2.0 ymax=4.3\nx_cells=48\ny_cells=40\nxmin=0\nymin=0\nxmax=10\nymax=10\ninitial_timestep=0.01\nend_step=4\nuse_ppcg\neps 1e-15\n*endtea\n' >tea.in
bin="$top/drivers/hd-heat"
for solver in ppcg mg; do
  mpirun 1 --input=tea.in --solver=$solver --backend=serial --output=tea1 >tea1.txt 2>&1
  for np in 2 3 4; do
    mpirun $np --input=tea.in --solver=$solver --backend=serial --output=tea$np >tea$np.txt 2>&1 && cmp -s tea1.csv tea$np.csv &&
      [ "$(grep -E '^(tea_temperature|iterations):' tea1.txt)" = "$(grep -E '^(tea_temperature|iterations):' tea$np.txt)" ]
    result $? "a TeaLeaf deck by $solver on $np ranks: one rank's temperature and iterations, bit for bit"
  done
done

# the exchange path for CUDA-aware MPI libraries (planes packed in backend
# memory, which MPI reads): host memory on the CPU backends, so it runs here
bin="$top/drivers/hd-heat"
args="--dim=3 --n=20,18,16 --init=sine --bc=fixed:0 --steps=30 --csv-every=5 --backend=serial"
rm -rf one many && mkdir one many
# shellcheck disable=SC2086
mpirun 1 $args --output=one/o >/dev/null 2>&1 && HD_MPI_CUDA_AWARE=1 mpirun 4 $args --output=many/o >/dev/null 2>&1 &&
  cmp -s one/o.vti many/o.vti && cmp -s one/o.csv many/o.csv
result $? "hd-heat on 4 ranks with HD_MPI_CUDA_AWARE=1 (halos in backend memory): the outputs of one rank"

# output by pieces: 4 ranks write their blocks and a .pvti index, no rank
# the whole field; the index, read back as an initial field on 1 and on 3
# ranks (another split: blocks cross pieces), gives one rank's .vti
rm -rf one many re && mkdir one many re
for prec in double single; do
  # shellcheck disable=SC2086
  mpirun 1 $args --precision=$prec --png=no --output=one/$prec >/dev/null 2>&1 &&
    mpirun 4 $args --precision=$prec --pieces --output=many/$prec >many/stdout 2>&1 && [ ! -f many/$prec.vti ] &&
    [ "$(grep -c '<Piece ' many/$prec.pvti)" -eq 4 ] && [ "$(ls many | grep -c "^${prec}_p[0-3].vti$")" -eq 4 ] &&
    grep -q '^picture: none (--pieces' many/stdout && cmp -s one/$prec.csv many/$prec.csv
  result $? "hd-heat --pieces on 4 ranks, $prec: four block files and a .pvti index, the CSV of one rank"
  for np in 1 3; do
    mpirun $np --dim=3 --n=20,18,16 --init-field=many/$prec.pvti --steps=0 --csv-every=1 --precision=$prec --png=no \
      --output=re/$prec$np >/dev/null 2>&1 && same_values one/$prec.vti re/$prec$np.vti
    result $? "the $prec pieces read back on $np rank(s): one rank's .vti values byte for byte"
  done
done

"$bin" --dim=3 --n=20,18,16 --init-field=many/single_p1.vti --steps=0 --png=no --output=re/x >/dev/null 2>re/err
result $([ $? -eq 2 ] && grep -q 'single_p1.vti: one piece of a parallel image; give its .pvti' re/err && echo 0 || echo 1) \
  "a piece given alone as an initial field: exit 2, name its index"
rm -f many/double_p2.vti
"$bin" --dim=3 --n=20,18,16 --init-field=many/double.pvti --steps=0 --png=no --output=re/x >/dev/null 2>re/err
result $([ $? -eq 2 ] && grep -q 'double_p2.vti: No such file' re/err && [ ! -f re/x.vti ] && echo 0 || echo 1) \
  "an index whose piece is missing: exit 2, the missing file named, nothing written"

if [ "$gpu" = yes ]; then
  gpu_same_as_one_rank heat <<GPUCASES
--dim=3 --n=40,37,32 --init=sine --bc=fixed:0 --steps=60 --csv-every=5|.vti .csv
--dim=3 --n=40,37,33 --init=box --bc-zlo=fixed:1 --source=0.5 --steps=60 --csv-every=5|.vti .csv|4
--dim=2 --n=70,45 --init=sine --bc=fixed:0 --steps=60 --csv-every=5 --precision=single|.vti .csv|3
--dim=3 --n=70,37,33 --init=sine --bc=fixed:0 --bc-zlo=convective:2:1 --steps=60 --csv-every=10 --time-block=3|.vti .csv|4
--dim=3 --n=70,37,33 --init=box --steps=50 --csv-every=25 --time-block=8 --precision=single|.vti .csv|2
--dim=3 --n=40,120,300 --init=sine --bc=fixed:0 --bc-ylo=convective:2:1 --steps=38 --csv-every=19 --time-block=3|.vti .csv|4
--dim=3 --n=40,150,200 --init=box --steps=40 --csv-every=20 --time-block=4 --precision=single|.vti .csv|2
--dim=2 --n=70,45 --init=sine --bc=fixed:0 --steps=60 --csv-every=20 --time-block=8|.vti .csv|3
--n=160,136 --scheme=implicit --solver=cg --dt=0.01 --material=20,1,1 --region=1,box,0.2,0.6,0.3,0.7 --bc-xlo=fixed:1 --steps=3|.vti .csv|2
--n=160,136 --scheme=implicit --solver=mg --dt=0.01 --material=20,1,1 --region=1,box,0.2,0.6,0.3,0.7 --bc-xlo=fixed:1 --steps=3|.vti .csv|2
--n=160,136 --scheme=implicit --solver=mg --dt=0.01 --material=20,1,1 --region=1,box,0.2,0.6,0.3,0.7 --bc-xlo=fixed:1 --steps=3|.vti .csv|3
--dim=3 --n=80,72,68 --scheme=cn --dt=0.01 --solver=mg --source=1 --bc-zlo=fixed:0 --steps=2|.vti .csv|4
GPUCASES
  # the other halo path: staged through page-locked host memory
  bin="$top/drivers/hd-heat"
  args="--dim=3 --n=40,36,32 --init=sine --bc=fixed:0 --steps=60 --csv-every=5 --backend=cuda"
  rm -rf one many && mkdir one many
  # shellcheck disable=SC2086
  mpirun 1 $args --output=one/o >/dev/null 2>&1 &&
    HD_MPI_IPC=0 HD_MPI_CUDA_AWARE=0 mpirun 2 $args --output=many/o >/dev/null 2>many/stderr &&
    cmp -s one/o.vti many/o.vti && cmp -s one/o.csv many/o.csv && grep -q '^hd-heat: halos staged through page-locked' many/stderr
  result $? "hd-heat on 2 CUDA ranks with HD_MPI_IPC=0 HD_MPI_CUDA_AWARE=0: halos through host memory, the outputs of one rank"
else
  echo "# no CUDA device here: the CUDA-under-MPI cases run on GPU machines (bench/gpu.sh)"
fi

# auto on ranks: CUDA when each rank of the node has a GPU of its own
gpus=0
[ "$gpu" = yes ] && gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
want=openmp
[ "$gpus" -ge 2 ] && want=cuda
bin="$top/drivers/hd-heat"
mpirun 2 --n=16 --steps=2 --vti=no --output=auto >/dev/null 2>auto.err
grep -q "^hd-heat: $want backend" auto.err
result $? "auto on 2 ranks with $gpus GPUs picks $want"
rm -f auto.err auto*.csv

# checkpoints of a distributed grid: a file per rank and a manifest;
# 40 steps straight and 30 + checkpoint + restart + 10 on 3 ranks give the
# same field; the newest 2 sets are kept; a restart on another rank count
# continues alike (with --balance too), one with a rank's file damaged is
# refused
bin="$top/drivers/hd-heat"
hargs="--n=48,40 --init=sphere --csv-every=5 --backend=serial" # one backend on any rank count (auto picks CUDA where each rank has a GPU)
rm -rf ck && mkdir ck
# shellcheck disable=SC2086
mpirun 3 $hargs --steps=40 --output=ck/straight >/dev/null 2>&1 &&
  mpirun 3 $hargs --steps=40 --output=ck/half --checkpoint-every=10 --checkpoint-keep=2 >/dev/null 2>&1 &&
  mpirun 3 $hargs --steps=40 --output=ck/again --restart=ck/half.ckpt.000000000030 >/dev/null 2>&1 &&
  cmp -s ck/straight.vti ck/again.vti && cmp -s ck/straight.csv ck/again.csv
result $? "hd-heat on 3 ranks: 40 steps straight and 30 + checkpoint + restart + 10 give identical fields and series"
[ "$(ls ck | grep -c '^half\.ckpt\.')" -eq 2 ] && [ "$(ls ck | grep -c '^half\.r1of3\.ckpt\.')" -eq 2 ] &&
  grep -q '^ranks 3$' ck/half.ckpt.000000000030 &&
  grep -q '^rank 2 half.r2of3.ckpt.000000000030 rows 27 40 1 0 1 0$' ck/half.ckpt.000000000030
result $? "the manifest names every rank's file and its rows; --checkpoint-keep=2 keeps two sets"
# time blocks (halos 4 cells deep) write and read the checkpoints of single steps
# shellcheck disable=SC2086
mpirun 3 $hargs --steps=40 --time-block=4 --output=ck/tb --checkpoint-every=10 >/dev/null 2>&1 &&
  mpirun 3 $hargs --steps=40 --time-block=4 --output=ck/tb2 --restart=ck/tb.ckpt.000000000030 >/dev/null 2>&1 &&
  mpirun 3 $hargs --steps=40 --time-block=1 --output=ck/tb1 --restart=ck/tb.ckpt.000000000020 >/dev/null 2>&1 &&
  mpirun 3 $hargs --steps=40 --time-block=7 --output=ck/tb7 --restart=ck/half.ckpt.000000000030 >/dev/null 2>&1 &&
  cmp -s ck/straight.vti ck/tb.vti && cmp -s ck/straight.vti ck/tb2.vti && cmp -s ck/straight.csv ck/tb2.csv &&
  cmp -s ck/straight.vti ck/tb1.vti && cmp -s ck/straight.vti ck/tb7.vti
result $? "hd-heat on 3 ranks in time blocks: restarts from its own checkpoints and those of single steps, and single steps from its, give the field of 40 steps straight"
# shellcheck disable=SC2086
mpirun 2 $hargs --steps=40 --output=ck/on2 --restart=ck/half.ckpt.000000000030 >/dev/null 2>&1 &&
  mpirun 1 $hargs --steps=40 --output=ck/on1 --restart=ck/half.ckpt.000000000030 >/dev/null 2>&1 &&
  mpirun 4 $hargs --steps=40 --output=ck/on4 --time-block=3 --restart=ck/half.ckpt.000000000030 >/dev/null 2>&1 &&
  cmp -s ck/straight.vti ck/on2.vti && cmp -s ck/straight.csv ck/on2.csv && cmp -s ck/straight.vti ck/on1.vti &&
  cmp -s ck/straight.csv ck/on1.csv && cmp -s ck/straight.vti ck/on4.vti && cmp -s ck/straight.csv ck/on4.csv
result $? "hd-heat: the 3-rank set restarted on 2, on 1 and on 4 ranks (time blocks of 3) gives the field and series of 40 steps straight"
h3="--dim=3 --n=20,18,16 --source=0.7 --bc-zlo=flux:2 --steps=30 --csv-every=5 --backend=serial"
# shellcheck disable=SC2086
mpirun 4 $h3 --output=ck/s3 >/dev/null 2>&1 &&
  mpirun 4 $h3 --output=ck/c3 --checkpoint-every=15 >/dev/null 2>&1 &&
  mpirun 1 $h3 --output=ck/c1 --checkpoint-every=15 >/dev/null 2>&1 &&
  mpirun 3 $h3 --output=ck/r43 --restart=ck/c3.ckpt.000000000015 >/dev/null 2>&1 &&
  mpirun 6 $h3 --output=ck/r16 --restart=ck/c1.ckpt.000000000015 >/dev/null 2>&1 &&
  cmp -s ck/s3.vti ck/r43.vti && cmp -s ck/s3.csv ck/r43.csv && cmp -s ck/s3.vti ck/r16.vti && cmp -s ck/s3.csv ck/r16.csv
result $? "hd-heat 3-D (y and z split): a set of 4 ranks restarted on 3, and one rank's checkpoint on 6, give the run straight"
# with --balance the face accumulators go with the blocks on the grid's
# faces (each new block takes the parts of the old blocks' faces it covers)
same3() { # straight prefix, restarted prefix
  cmp -s "$1.vti" "$2.vti" && cmp -s "$1.csv" "$2.csv" && cmp -s "$1_balance.csv" "$2_balance.csv"
}
bal="$hargs --balance --bc=fixed:0 --bc-ylo=flux:1 --bc-xhi=convective:2:0.5 --steps=40"
# shellcheck disable=SC2086
mpirun 3 $bal --output=ck/bs >/dev/null 2>&1 && mpirun 3 $bal --output=ck/bal --checkpoint-every=20 >/dev/null 2>&1 &&
  mpirun 2 $bal --output=ck/b2 --restart=ck/bal.ckpt.000000000020 >/dev/null 2>&1 && same3 ck/bs ck/b2 &&
  mpirun 1 $bal --output=ck/b1 --restart=ck/bal.ckpt.000000000020 >/dev/null 2>&1 && same3 ck/bs ck/b1 &&
  mpirun 4 $bal --output=ck/b4 --restart=ck/bal.ckpt.000000000020 >/dev/null 2>&1 && same3 ck/bs ck/b4
result $? "hd-heat --balance: the 3-rank set restarted on 2, on 1 and on 4 ranks gives the field, series and heat balance of the run straight"
# shellcheck disable=SC2086
mpirun 4 $h3 --balance --output=ck/b3s >/dev/null 2>&1 &&
  mpirun 4 $h3 --balance --output=ck/b3c --checkpoint-every=15 >/dev/null 2>&1 &&
  mpirun 1 $h3 --balance --output=ck/b1c --checkpoint-every=15 >/dev/null 2>&1 &&
  mpirun 3 $h3 --balance --output=ck/b43 --restart=ck/b3c.ckpt.000000000015 >/dev/null 2>&1 && same3 ck/b3s ck/b43 &&
  mpirun 6 $h3 --balance --output=ck/b16 --restart=ck/b1c.ckpt.000000000015 >/dev/null 2>&1 && same3 ck/b3s ck/b16
result $? "hd-heat 3-D --balance (y and z split): a set of 4 ranks restarted on 3, and one rank's checkpoint on 6, give the run straight"
size=$(wc -c <ck/half.r1of3.ckpt.000000000030)
printf '\125' | dd of=ck/half.r1of3.ckpt.000000000030 bs=1 seek=$((size - 100)) conv=notrunc 2>/dev/null
# shellcheck disable=SC2086
mpirun 3 $hargs --steps=40 --output=ck/other --restart=ck/half.ckpt.000000000030 >stdout 2>stderr
rc=$?
[ $rc -eq 2 ] && [ "$(grep -c "^hd-heat: error" stderr)" -eq 1 ] && grep -q "half.r1of3.ckpt.000000000030.*CRC" stderr && [ ! -e ck/other.vti ]
result $? "one rank's damaged file is refused in one line naming the file (every rank that reads it fails)"
[ $? -eq 0 ] || sed 's/^/# /' stderr

bin="$top/drivers/hd-heat"
mpibad 4 "cannot be shared by 4 ranks" --n=8,3 --steps=1
mpibad 2 "bench: not available yet" --n=16 --steps=4 --bench
[ "$gpu" = yes ] || mpibad 2 "'cuda' is not in this build\|no CUDA device" --n=16 --steps=4 --backend=cuda
mpibad 2 "exceeds the explicit stability limit" --n=16 --steps=4 --dt=1

finish
