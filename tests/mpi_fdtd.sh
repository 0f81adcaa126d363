#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hd-fdtd on MPI ranks: blocks exchange tangential H only; the same probes,
# averages and fields as one rank, byte for byte, with Mur, PML, CPML, PEC
# and periodic faces, materials, loads and a feed on a node plane two
# blocks share, and the same frequency-domain results (ports, far field,
# near-field maps, a plane wave's RCS, excite=all's S matrix); output by
# pieces; checkpoints on any rank count; CUDA ranks; what it refuses.
set -u
. "${top_srcdir:-.}/tests/mpi_lib.sh"
# an FDTD model: two materials and a dispersive one, a delta-gap feed and
# lumped loads on the node plane the 2-rank split shares (j = 9 of 18), a
# soft source, probes of E and H
fdtd="--xmesh=-0.1,20,0.1 --ymesh=-0.09,18,0.09 --zmesh=-0.08,16,0.08 --material=3,0,1,0 --material=2,0.01,1.5,0
 --material=2,0.001,1,0,debye,1.5,5e-11,lorentz,0.8,4e9,2e9 --geometry=4,ycone,-0.09,0.09,0.06,-0.06,0.02,0.02,0.01,0.01
 --load=Z,0,0,-0.05,R,50 --load=X,0.02,0,0.03,L,1e-8 --load=X,0.02,0,0.03,C,1e-12
 --geometry=2,sphere,0,0.01,0,0.04 --geometry=3,box,-0.05,0.05,-0.09,0.02,-0.03,-0.01 --feed=Z,0,0,0.005,1,50
 --source=X,0.01,-0.02,0,1 --probe=ez,0.02,0.03,0.01 --probe=hx,0,0,0.03 --probe=ey,0,0,0 --frequency=3e9
 --steps=120 --average-every=7"
fdtd=$(echo $fdtd)
cav_fft=mg # the cavity's FFT solve (rows split over the ranks, transposed by all-to-all) where FFTW3 is built
[ -n "${FFTW_LIBS:-}" ] && cav_fft=fft
fout="_probes.csv _average.csv .vti"

same_as_one_rank fdtd <<CASES
Mur faces, double|$fdtd --boundary=mur --backend=serial|$fout|2 3 4
PML faces, OpenMP|$fdtd --boundary=pml --pml=5,3,1e-4 --backend=openmp|$fout|2 4
periodic x, PML y, PEC z, single|$fdtd --boundary-x=periodic --boundary-y=pml --boundary-z=pec --precision=single --backend=serial|$fout|2 3
periodic y stays whole, z split|$fdtd --boundary=mur --boundary-y=periodic --backend=serial|$fout|2 4
frequency-domain results (ports, far field, maps on and off a shared plane)|$fdtd --boundary=pml --frequencies=2e9,4e9,3 --farfield=6,8 --huygens-margin=2 --nearfield=hx,y,0.0 --nearfield=ez,z,0.01 --nearvolume=yes --backend=serial|$fout _ports.csv _farfield.csv _farfield.vts _near1.vtr _near2.vtr _dft1.vti|2 3 4
a plane wave: RCS and a map|--input=$src/tests/fdtd_scatter.in --nearfield=ez,z,0 --backend=openmp|_average.csv _farfield.csv _near1.vtr|2 4
CPML faces, voltage points (S11 on a line split over the ranks) and the feed's port|$fdtd --boundary=cpml --point=Z,0.02,0.03,0.01,+Y --point=Y,0,0.05,0.02 --frequencies=2e9,4e9,3 --backend=serial|$fout _points.csv _ports.csv|2 3 4
Mur on H with a released feed, OpenMP|$fdtd --boundary=mur --mur=h --feed-release=yes --backend=openmp|$fout|2 4
a plane wave in the scattered-field form, CPML, far field on the faces, flux planes and resonances|--input=$src/tests/fdtd_scatter.in --planewave-form=sf --boundary=cpml --huygens-margin=0 --point=X,0.03,0,0,-X --flux=z,0.02 --flux=x,-0.03 --probe=ez,0.01,0.005,0 --resonances=2e9,8e9 --backend=serial|_average.csv _probes.csv _points.csv _farfield.csv _flux.csv _resonances.csv|2 4
oblique on a Bloch-periodic cell (the imaginary part's halos too)|--input=$src/doc/examples/bloch_slab.in --steps=600 --flux=z,0.3 --flux=z,-0.3 --probe=ez,0.01,0.005,-0.2 --backend=serial|_average.csv _probes.csv _flux.csv|2 3
a waveform from a file|$fdtd --waveform-file=$src/doc/examples/tone_burst.csv --backend=serial|$fout|2 3
excite=all: the S matrix|--input=$src/tests/fdtd_twoport.in --steps=1500 --backend=serial|_sparams.csv .s2p|2
CASES

# hd-fdtd --pieces: 4 ranks write their blocks of the seven fields and a
# .pvti index; its first array (Ex), read back by hd-heat, is one rank's Ex;
# a slice needs the whole grid: refused in one line
rm -rf one many re && mkdir one many re
bin="$top/drivers/hd-fdtd"
# shellcheck disable=SC2086
mpirun 1 $fdtd --backend=serial --output=one/f >/dev/null 2>&1 &&
  mpirun 4 $fdtd --backend=serial --pieces --output=many/f >many/stdout 2>&1 && [ ! -f many/f.vti ] &&
  [ "$(grep -c '<Piece ' many/f.pvti)" -eq 4 ] && [ "$(grep -c '<PDataArray ' many/f.pvti)" -eq 4 ] &&
  [ "$(ls many | grep -c '^f_p[0-3].vti$')" -eq 4 ] && grep -q '^picture: none (--pieces' many/stdout &&
  cmp -s one/f_probes.csv many/f_probes.csv &&
  "$top/drivers/hd-heat" --dim=3 --n=20,18,16 --init-field=one/f.vti --steps=0 --png=no --output=re/one >/dev/null 2>&1 &&
  "$top/drivers/hd-heat" --dim=3 --n=20,18,16 --init-field=many/f.pvti --steps=0 --png=no --output=re/many >/dev/null 2>&1 &&
  cmp -s re/one.vti re/many.vti
result $? "hd-fdtd --pieces on 4 ranks: four block files and a .pvti of four arrays (E, H, |E|, materials), whose |E| is one rank's; the probes of one rank"
mpibad_fdtd() { # pattern, arguments...
  pattern=$1
  shift
  rm -rf many && mkdir many
  mpirun 2 "$@" --output=many/f >/dev/null 2>many/stderr
  [ $? -eq 2 ] && [ "$(grep -c '^hd-fdtd:' many/stderr)" -eq 1 ] && grep -q -- "$pattern" many/stderr && [ -z "$(ls many | grep '^f')" ]
  result $? "hd-fdtd --pieces on 2 ranks: exit 2, one line with '$pattern', nothing written"
}
# shellcheck disable=SC2086
mpibad_fdtd "slice: needs the whole grid" $fdtd --backend=serial --pieces --slice="ez z 0"

# a non-uniform mesh: its pieces (.vtr) and the index (.pvtr), each
# piece's coordinates those of the whole grid over its block
nonuni=$(echo "$fdtd" | sed 's/--xmesh=-0.1,20,0.1/--xmesh=-0.1,10,0,20,0.1/')
rm -rf one many && mkdir one many
# shellcheck disable=SC2086
mpirun 1 $nonuni --backend=serial --output=one/f >/dev/null 2>&1 &&
  mpirun 4 $nonuni --backend=serial --pieces --slice=none --output=many/f >/dev/null 2>&1 && [ ! -f many/f.vtr ] &&
  [ "$(grep -c '<Piece ' many/f.pvtr)" -eq 4 ] && grep -q '<PCoordinates>' many/f.pvtr &&
  cmp -s one/f_probes.csv many/f_probes.csv &&
  (for k in 0 1 2 3; do for a in 0 1 2; do piece_coords one/f.vtr many/f.pvtr $k $a many 4 || exit 1; done; done)
result $? "hd-fdtd --pieces on 4 ranks, a non-uniform mesh: four .vtr blocks and a .pvtr index, each block's coordinates the grid's; the probes of one rank"

if [ "$gpu" = yes ]; then
  gpu_same_as_one_rank fdtd <<GPUCASES
$fdtd --boundary=pml|$fout
$fdtd --boundary=pml|$fout|4
$fdtd --boundary=cpml --precision=single|$fout|3
$fdtd --boundary=mur --variant=generic|$fout|4
GPUCASES
  # and FDTD's in-place H fields through host memory as well
  rm -rf one many && mkdir one many
  bin="$top/drivers/hd-fdtd"
  # shellcheck disable=SC2086
  mpirun 1 $fdtd --boundary=pml --backend=cuda --output=one/o >/dev/null 2>&1 &&
    HD_MPI_IPC=0 mpirun 2 $fdtd --boundary=pml --backend=cuda --output=many/o >/dev/null 2>many/stderr
  ok=$?
  for f in $fout; do [ $ok -eq 0 ] && cmp -s "one/o$f" "many/o$f" || ok=1; done
  result $ok "hd-fdtd on 2 CUDA ranks with HD_MPI_IPC=0: the outputs of one rank"
  # FDTD checkpoints of CUDA ranks on another rank count: 2 -> 1 and 1 -> 2
  rm -rf ck && mkdir ck
  fargs="$fdtd --boundary=cpml --frequencies=2e9,4e9,3 --farfield=6,8 --nearfield=ez,z,0.01 --nearvolume=yes --backend=cuda"
  # shellcheck disable=SC2086
  mpirun 1 $fargs --output=ck/s >/dev/null 2>&1 && mpirun 2 $fargs --output=ck/h2 --checkpoint-every=60 >/dev/null 2>&1 &&
    mpirun 1 $fargs --output=ck/h1 --checkpoint-every=60 >/dev/null 2>&1 &&
    mpirun 1 $fargs --output=ck/a --restart=ck/h2.ckpt.000000000060 >/dev/null 2>&1 &&
    mpirun 2 $fargs --output=ck/b --restart=ck/h1.ckpt.000000000060 >/dev/null 2>&1
  ok=$?
  for f in $fout _ports.csv _farfield.csv _near1.vtr _dft1.vti; do
    [ $ok -eq 0 ] && cmp -s "ck/s$f" "ck/a$f" && cmp -s "ck/s$f" "ck/b$f" || ok=1
  done
  result $ok "hd-fdtd on CUDA ranks: a checkpoint of 2 restarted on 1 and one of 1 on 2 give one CUDA rank's results straight"
else
  echo "# no CUDA device here: the CUDA-under-MPI cases run on GPU machines (bench/gpu.sh)"
fi

# the slice gathered from the blocks
bin="$top/drivers/hd-fdtd"
rm -rf one many && mkdir one many
# shellcheck disable=SC2086
mpirun 1 $fdtd --slice="ez y 0.0" --backend=serial --output=one/o >/dev/null 2>&1 &&
  mpirun 4 $fdtd --slice="ez y 0.0" --backend=serial --output=many/o >/dev/null 2>&1 &&
  cmp -s one/o_slice.vtr many/o_slice.vtr && cmp -s one/o.vti many/o.vti
result $? "hd-fdtd: the slice and volume gathered from 4 ranks are those of one rank"

rm -rf ck && mkdir ck
# shellcheck disable=SC2086
restart3 fdtd 60 ".vti _probes.csv _average.csv" $fdtd --boundary=pml
result $? "hd-fdtd on 3 ranks: 60 + checkpoint + restart + 60 steps give the fields, probes and averages of 120 straight (Mur and PML state in each rank's file)"
# hd-fdtd's checkpoints load on any rank count too: the fields as rows of
# nodes, the boundaries' points and the DFTs' sums as lists by key (each
# entry from the block owning its row). 3 -> 2, 1, 4 and 1 -> 3 continue as
# one rank straight does, bit for bit: PML with dispersive media, loads,
# feed and probes (and the resonances of their records); Mur on H; the frequency-domain results (far field,
# maps, the volume); a scattered-field plane wave in CPML
bin="$top/drivers/hd-fdtd"
for fa in "$fdtd --boundary=pml --resonances=1e8,2e10 --backend=serial|$fout _resonances.csv" \
  "$fdtd --boundary=mur --mur=h --feed-release=yes --backend=openmp|$fout" \
  "$fdtd --boundary=pml --frequencies=2e9,4e9,3 --farfield=6,8 --huygens-margin=2 --nearfield=hx,y,0.0 --nearfield=ez,z,0.01 --nearvolume=yes --backend=serial|$fout _ports.csv _farfield.csv _near1.vtr _near2.vtr _dft1.vti" \
  "--input=$src/tests/fdtd_scatter.in --steps=120 --planewave-form=sf --boundary=cpml --huygens-margin=0 --point=X,0.03,0,0,-X --backend=serial|.vti _average.csv _probes.csv _points.csv _farfield.csv"; do
  rm -rf ck && mkdir ck
  fargs=${fa%%|*} files=${fa#*|}
  # shellcheck disable=SC2086
  mpirun 1 $fargs --output=ck/s >/dev/null 2>&1 &&
    mpirun 3 $fargs --output=ck/h3 --checkpoint-every=60 >/dev/null 2>&1 &&
    mpirun 1 $fargs --output=ck/h1 --checkpoint-every=60 >/dev/null 2>&1 &&
    grep -q '^rank 2 h3.r2of3.ckpt.000000000060 rows' ck/h3.ckpt.000000000060
  ok=$?
  for run in h3:2 h3:1 h3:4 h1:3; do
    # shellcheck disable=SC2086
    [ $ok -eq 0 ] && mpirun "${run#*:}" $fargs --output=ck/a --restart="ck/${run%:*}.ckpt.000000000060" >/dev/null 2>ck/stderr || ok=1
    for f in $files; do [ $ok -eq 0 ] && cmp -s "ck/s$f" "ck/a$f" || ok=1; done
  done
  result $ok "hd-fdtd (${fargs#"$fdtd "}): checkpoints of 3 ranks restarted on 2, 1 and 4, and of one rank on 3, give one rank's results straight"
  [ $ok -eq 0 ] || sed 's/^/# /' ck/stderr
done

bin="$top/drivers/hd-fdtd"
# shellcheck disable=SC2086
mpibad 2 "no axis of this grid can be split" $fdtd --boundary-y=periodic --boundary-z=periodic
mpibad 2 "bench: not available yet" --bench=20 --steps=4
mpibad 6 "cannot be shared by 3 ranks" --xmesh=0,4,1 --ymesh=0,2,1 --zmesh=0,2,1 --steps=2

finish
