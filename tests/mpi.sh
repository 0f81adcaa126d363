#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Distributed runs (configure --with-mpi): on 2, 3, 4 and 6 ranks (uneven
# splits, two split axes in 3-D) hd-heat writes the same field, CSV and
# summary, byte for byte, as on one rank, in 2-D and 3-D, both precisions,
# fixed and adiabatic faces, sources, and in time blocks (halos T cells
# deep, restarts between them and single steps); hd-nbody, whose ranks compute the
# forces and potentials of their block of bodies and share them, writes the
# same CSV and snapshots as one rank, byte for byte, with the tuned and the
# generic CPU kernels; hd-fdtd, whose blocks exchange tangential H only,
# writes the same probes, averages and fields as one rank, byte for byte,
# with Mur, PML, PEC and periodic faces, materials, and a feed on a node
# plane two blocks share, and the same frequency-domain results (ports,
# far field, near-field maps, a plane wave's RCS, excite=all's S matrix); hd-ns, whose blocks of rows exchange ghost rows
# before every Runge-Kutta stage, writes the same history and frames as
# one rank, byte for byte, with characteristic, wall, inflow, zero-gradient
# and periodic faces (a periodic y wraps around the ranks); hd-cavity,
# whose red-black SOR exchanges ghost rows after each colour and takes its
# norms over all ranks (and whose multigrid splits its levels over them
# down to --mg-gather cells a side), writes the same history, centre lines
# and fields.
# What distributed runs cannot do yet is refused in one line.
set -u
top=$(cd "${top_builddir:-.}" && pwd)
src=$(cd "${top_srcdir:-.}" && pwd)
if [ -z "${MPIEXEC:-}" ]; then
  echo "1..0 # SKIP configured without --with-mpi"
  exit 0
fi
. "$src/tests/cli_lib.sh"
# CI runs as root; more ranks than cores is intended here (Open MPI's
# variables, ignored by other MPI libraries).  One OpenMP thread per rank.
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMP_NUM_THREADS=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMPI_MCA_rmaps_base_oversubscribe OMP_NUM_THREADS
bin="$top/drivers/hd-heat"
mpirun() { # ranks, arguments...
  np=$1
  shift
  # a rank that waits forever in a collective must fail the test, not hang CI
  timeout 300 "$MPIEXEC" -n "$np" "$bin" --progress=0 "$@" </dev/null
}
# the summary lines that carry results (not timings or the device)
results() { grep -E '^(min|max|mean|total_heat|energy_final|relative_energy_error|virial_ratio|momentum|angular_momentum):' "$1"; }

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
printf '0 0\n0.002 1\n0.01 -1\n' >heat_ramp.tab
"$top/drivers/hd-heat" --n=48,40 --init=sphere --steps=10 --png=no --output=heat_init >/dev/null 2>&1
"$top/drivers/hd-heat" --dim=3 --n=16,20,18 --init=box --steps=5 --png=no --output=heat_init3 >/dev/null 2>&1
"$top/drivers/hd-heat" --dim=3 --n=16,20,18 --init=box --steps=0 --png=no --output=heat_map3 >/dev/null 2>&1
awk 'BEGIN { for (j = 0; j < 40; ++j) for (i = 0; i < 48; ++i) printf "%c", (i + 2 * j < 50 ? 1 : 2) }' >heat_map.u8

# driver | name | arguments | files compared | rank counts
while IFS='|' read -r drv name args files ranks; do
  bin="$top/drivers/hd-$drv"
  rm -rf one && mkdir one
  # shellcheck disable=SC2086
  mpirun 1 $args --output=one/o >one/stdout 2>one/stderr
  result $? "hd-$drv $name: one rank runs"
  for np in $ranks; do
    rm -rf many && mkdir many
    # shellcheck disable=SC2086
    mpirun "$np" $args --output=many/o >many/stdout 2>many/stderr
    ok=$?
    for f in $files; do
      [ $ok -eq 0 ] && cmp -s "one/o$f" "many/o$f" || ok=1
    done
    [ $ok -eq 0 ] && [ "$(results one/stdout)" = "$(results many/stdout)" ] || ok=1
    result $ok "hd-$drv $name: $np ranks give the outputs ($files) and summary of one rank, byte for byte"
    [ $ok -eq 0 ] || sed 's/^/# /' many/stderr
  done
done <<CASES
heat|2-D double, fixed and adiabatic faces|--n=64,50 --steps=120 --csv-every=10 --bc-xlo=fixed:1 --bc-yhi=fixed:2 --backend=serial|.vti .csv|2 3 4
heat|2-D single, sphere, source|--n=40,64 --init=sphere --source=2 --steps=100 --csv-every=7 --precision=single --backend=serial|.vti .csv|2 4
heat|3-D double, sine mode, fixed faces|--dim=3 --n=20,18,16 --init=sine --bc=fixed:0 --steps=60 --csv-every=5 --backend=serial|.vti .csv|2 4 6
heat|2-D double, convective and flux faces|--n=48,40 --steps=80 --csv-every=8 --conductivity=2 --bc-xlo=convective:5:1 --bc-yhi=flux:3 --bc-ylo=convective:0.5:-1 --backend=serial|.vti .csv|2 3
heat|3-D double, three materials|--dim=3 --n=20,24,18 --material=4,1,2,3 --material=0.2,1,1 --region=1,box,0,1,0.3,0.7,0,1 --region=2,sphere,0.5,0.5,0.5,0.3 --bc-xlo=fixed:1 --bc-zhi=convective:2:0 --steps=40 --csv-every=5 --backend=serial|.vti .csv|2 4
heat|2-D double, time tables, probes, heat balance, materials|--n=48,40 --steps=80 --csv-every=8 --material=3,1,2,1 --region=1,sphere,0.5,0.5,0.3 --bc-xlo=convective:5:@heat_ramp.tab --bc-yhi=flux:@heat_ramp.tab --bc-xhi=fixed:0.5 --probe=0.1,0.1 --probe=0.5,0.5 --probe=0.99,0.2 --balance --backend=serial|.vti .csv _probes.csv _balance.csv|2 3 4
heat|2-D double, initial field, material map and source field from files|--n=48,40 --init-field=heat_init.vti --material=3,1,2 --material=0.5,1,1 --material-map=raw:u8:48,40:heat_map.u8 --region=0,sphere,0.5,0.5,0.2 --source-field=heat_init.vti --bc-yhi=convective:3:0 --balance --steps=40 --csv-every=5 --backend=serial|.vti .csv _balance.csv|2 3 4
heat|3-D double, initial field and material map from a .vti|--dim=3 --n=16,20,18 --init-field=heat_init3.vti --material=2,1,1 --material-map=heat_map3.vti --bc-zlo=fixed:2 --steps=30 --csv-every=5 --backend=serial|.vti .csv|2 4
heat|3-D double, probes, heat balance, OpenMP|--dim=3 --n=16,20,18 --source=0.7 --bc-zlo=flux:2 --bc-xhi=convective:3:1 --probe=0.5,0.5,0.5 --balance --steps=30 --csv-every=5 --backend=openmp|.vti .csv _probes.csv _balance.csv|2 4
heat|3-D single, box, source, OpenMP|--dim=3 --n=16,24,20 --source=1 --bc-zlo=fixed:3 --steps=40 --csv-every=4 --precision=single --backend=openmp|.vti .csv|2 4
heat|3-D double, time blocks of 4 steps (halos 4 cells deep), convective face|--dim=3 --n=20,18,16 --init=sine --bc=fixed:0 --bc-zlo=convective:3:1 --steps=30 --csv-every=5 --time-block=4 --backend=serial|.vti .csv|2 4 6
heat|3-D single, time blocks of 6, source, OpenMP|--dim=3 --n=16,24,20 --source=1 --bc-zlo=fixed:3 --steps=40 --csv-every=4 --precision=single --time-block=6 --backend=openmp|.vti .csv|2 8
heat|2-D double, time blocks of 12 (fewer where blocks are thinner), OpenMP|--n=64,50 --steps=37 --csv-every=10 --bc-xlo=fixed:1 --bc-yhi=flux:2 --time-block=12 --backend=openmp|.vti .csv|2 3 6
nbody|Plummer, tuned kernel, double|--n=333 --steps=40 --diag-every=10 --snapshot-every=20 --backend=openmp|.csv .pvd _000020.vtp _000040.vtp|2 3 4
nbody|periodic square, generic kernel, single|--dim=2 --ic=uniform --n=200 --steps=30 --diag-every=10 --variant=generic --precision=single --backend=openmp|.csv _000030.vtp|2 4
fdtd|Mur faces, double|$fdtd --boundary=mur --backend=serial|$fout|2 3 4
fdtd|PML faces, OpenMP|$fdtd --boundary=pml --pml=5,3,1e-4 --backend=openmp|$fout|2 4
fdtd|periodic x, PML y, PEC z, single|$fdtd --boundary-x=periodic --boundary-y=pml --boundary-z=pec --precision=single --backend=serial|$fout|2 3
fdtd|periodic y stays whole, z split|$fdtd --boundary=mur --boundary-y=periodic --backend=serial|$fout|2 4
fdtd|frequency-domain results (ports, far field, maps on and off a shared plane)|$fdtd --boundary=pml --frequencies=2e9,4e9,3 --farfield=6,8 --huygens-margin=2 --nearfield=hx,y,0.0 --nearfield=ez,z,0.01 --nearvolume=yes --backend=serial|$fout _ports.csv _farfield.csv _farfield.vtk _near1.vtr _near2.vtr _dft1.vti|2 3 4
fdtd|a plane wave: RCS and a map|--input=$src/tests/fdtd_scatter.in --nearfield=ez,z,0 --backend=openmp|_average.csv _farfield.csv _near1.vtr|2 4
fdtd|CPML faces, voltage points (S11 on a line split over the ranks) and the feed's port|$fdtd --boundary=cpml --point=Z,0.02,0.03,0.01,+Y --point=Y,0,0.05,0.02 --frequencies=2e9,4e9,3 --backend=serial|$fout _points.csv _ports.csv|2 3 4
fdtd|Mur on H with a released feed, OpenMP|$fdtd --boundary=mur --mur=h --feed-release=yes --backend=openmp|$fout|2 4
fdtd|a plane wave in the scattered-field form, CPML, far field on the faces|--input=$src/tests/fdtd_scatter.in --planewave-form=sf --boundary=cpml --huygens-margin=0 --point=X,0.03,0,0,-X --backend=serial|_average.csv _probes.csv _points.csv _farfield.csv|2 4
fdtd|excite=all: the S matrix|--input=$src/tests/fdtd_twoport.in --steps=1500 --backend=serial|_sparams.csv .s2p|2
ns|seed vortex, nonreflecting faces|--n=48 --steps=60 --frames=2 --monitor-every=5 --png=no --backend=serial|_history.csv _0000.vtr _0001.vtr _0002.vtr|2 3 4
ns|walls, subsonic inflow, zero-gradient outflow|--n=40 --lx=1.2 --case=isentropic --circulation=0.05 --bc-bottom=noslip-wall --bc-top=slip-wall --bc-left=subsonic-in --bc-right=zero-gradient --mach=0.3 --steps=50 --frames=1 --png=no --backend=openmp|_history.csv _0001.vtr|2 4
ns|periodic y over the ranks, single|--n=32 --bc-bottom=periodic --bc-top=periodic --steps=40 --frames=1 --png=no --precision=single --backend=serial|_history.csv _0001.vtr|2 3
cavity|SOR, Re 1000, double|--n=32 --solver=sor --steps=200 --monitor-every=20 --steady=0 --png=no --backend=serial|_history.csv _centreline.csv .vtr|2 3 4
cavity|SOR, Re 100 to steady state, single, OpenMP|--n=24 --solver=sor --re=100 --steady=1e-3 --monitor-every=10 --precision=single --png=no --backend=openmp|_history.csv _centreline.csv .vtr|2 4
cavity|multigrid split down to 8 cells a side (blocks of one row), Re 1000, double|--n=32 --solver=mg --mg-gather=4 --steps=100 --monitor-every=20 --steady=0 --png=no --backend=serial|_history.csv _centreline.csv .vtr|2 3 4
cavity|multigrid split until a block would hold no row, single|--n=32 --solver=mg --mg-gather=2 --steps=60 --monitor-every=20 --steady=0 --precision=single --png=no --backend=serial|_history.csv .vtr|5 7
cavity|multigrid, Re 100 to steady state, single, OpenMP|--n=32 --solver=mg --re=100 --steady=1e-3 --monitor-every=10 --precision=single --png=no --backend=openmp|_history.csv .vtr|2 4
cavity|$cav_fft, local steps, Re 1000 to steady state, OpenMP|--n=30 --solver=$cav_fft --local-dt=0.9 --steady=1e-3 --monitor-every=10 --png=no --backend=openmp|_history.csv _centreline.csv .vtr|2 3 7
cavity|SOR, 16 ranks of one or two rows|--n=16 --solver=sor --steps=50 --monitor-every=10 --steady=0 --png=no --backend=serial|_history.csv .vtr|16
cavity|$cav_fft, 16 ranks of one or two rows (the last none inside), single|--n=16 --solver=$cav_fft --steps=50 --monitor-every=10 --steady=0 --precision=single --png=no --backend=serial|_history.csv .vtr|16
ns|periodic both axes, isentropic vortex|--n=24 --case=isentropic --circulation=0.1 --bc-bottom=periodic --bc-top=periodic --bc-left=periodic --bc-right=periodic --steps=30 --frames=1 --png=no --backend=serial|_history.csv _0001.vtr|2 4
CASES

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
      --output=re/$prec$np >/dev/null 2>&1 && cmp -s one/$prec.vti re/$prec$np.vti
    result $? "the $prec pieces read back on $np rank(s): one rank's .vti byte for byte"
  done
done

"$bin" --dim=3 --n=20,18,16 --init-field=many/single_p1.vti --steps=0 --png=no --output=re/x >/dev/null 2>re/err
result $([ $? -eq 2 ] && grep -q 'single_p1.vti: one piece of a parallel image; give its .pvti' re/err && echo 0 || echo 1) \
  "a piece given alone as an initial field: exit 2, name its index"
rm -f many/double_p2.vti
"$bin" --dim=3 --n=20,18,16 --init-field=many/double.pvti --steps=0 --png=no --output=re/x >/dev/null 2>re/err
result $([ $? -eq 2 ] && grep -q 'double_p2.vti: No such file' re/err && [ ! -f re/x.vti ] && echo 0 || echo 1) \
  "an index whose piece is missing: exit 2, the missing file named, nothing written"

# hd-fdtd --pieces: 4 ranks write their blocks of the seven fields and a
# .pvti index; its first array (Ex), read back by hd-heat, is one rank's Ex;
# a slice needs the whole grid: refused in one line
rm -rf one many re && mkdir one many re
bin="$top/drivers/hd-fdtd"
# shellcheck disable=SC2086
mpirun 1 $fdtd --backend=serial --output=one/f >/dev/null 2>&1 &&
  mpirun 4 $fdtd --backend=serial --pieces --output=many/f >many/stdout 2>&1 && [ ! -f many/f.vti ] &&
  [ "$(grep -c '<Piece ' many/f.pvti)" -eq 4 ] && [ "$(grep -c '<PDataArray ' many/f.pvti)" -eq 7 ] &&
  [ "$(ls many | grep -c '^f_p[0-3].vti$')" -eq 4 ] && grep -q '^picture: none (--pieces' many/stdout &&
  cmp -s one/f_probes.csv many/f_probes.csv &&
  "$top/drivers/hd-heat" --dim=3 --n=20,18,16 --init-field=one/f.vti --steps=0 --png=no --output=re/one >/dev/null 2>&1 &&
  "$top/drivers/hd-heat" --dim=3 --n=20,18,16 --init-field=many/f.pvti --steps=0 --png=no --output=re/many >/dev/null 2>&1 &&
  cmp -s re/one.vti re/many.vti
result $? "hd-fdtd --pieces on 4 ranks: four block files and a .pvti of seven arrays, whose Ex is one rank's; the probes of one rank"
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

# the raw bytes of the I-th appended DataArray (0-based; cell arrays, then
# the coordinates of a .vtr) of a VTK XML file
vtk_raw() { # file, index
  at=$(grep -abo '<AppendedData encoding="raw">' "$1" | head -1 | cut -d: -f1)
  off=$(grep -ao 'offset="[0-9]*"' "$1" | sed -n "$(($2 + 1))p" | tr -dc '0-9')
  [ -n "$at" ] && [ -n "$off" ] || return 1
  at=$((at + 31 + off)) # the tag, a newline and '_', then the array's 8-byte length
  tail -c +$((at + 9)) "$1" | head -c "$(od -An -tu8 -j "$at" -N8 "$1" | tr -dc '0-9')"
}
# the coordinates of piece P along axis A (0-2) of a .pvtr are those of the
# one-rank .vtr from the piece's first node to its last
piece_coords() { # one.vtr, index.pvtr, piece, axis, scratch directory, cell arrays
  ext=$(grep -a '<Piece ' "$2" | sed -n "$(($3 + 1))p" | sed 's/.*Extent="\([0-9 ]*\)".*/\1/')
  lo=$(echo "$ext" | cut -d' ' -f$((2 * $4 + 1))) hi=$(echo "$ext" | cut -d' ' -f$((2 * $4 + 2)))
  piece=$(grep -a '<Piece ' "$2" | sed -n "$(($3 + 1))p" | sed 's/.*Source="\([^"]*\)".*/\1/')
  vtk_raw "$5/$piece" $(($6 + $4)) >"$5/c.piece" && vtk_raw "$1" $(($6 + $4)) | tail -c +$((8 * lo + 1)) |
    head -c $((8 * (hi - lo + 1))) | cmp -s - "$5/c.piece"
}
# a non-uniform mesh: its pieces (.vtr) and the index (.pvtr), each
# piece's coordinates those of the whole grid over its block
nonuni=$(echo "$fdtd" | sed 's/--xmesh=-0.1,20,0.1/--xmesh=-0.1,10,0,20,0.1/')
rm -rf one many && mkdir one many
# shellcheck disable=SC2086
mpirun 1 $nonuni --backend=serial --output=one/f >/dev/null 2>&1 &&
  mpirun 4 $nonuni --backend=serial --pieces --slice=none --output=many/f >/dev/null 2>&1 && [ ! -f many/f.vtr ] &&
  [ "$(grep -c '<Piece ' many/f.pvtr)" -eq 4 ] && grep -q '<PCoordinates>' many/f.pvtr &&
  cmp -s one/f_probes.csv many/f_probes.csv &&
  (for k in 0 1 2 3; do for a in 0 1 2; do piece_coords one/f.vtr many/f.pvtr $k $a many 7 || exit 1; done; done)
result $? "hd-fdtd --pieces on 4 ranks, a non-uniform mesh: four .vtr blocks and a .pvtr index, each block's coordinates the grid's; the probes of one rank"

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

# CUDA under MPI (where this build has CUDA and a GPU answers): each rank
# on a GPU of its node (shared when there are fewer), halos between ranks
# of the node read from the neighbour's device memory (CUDA IPC), else in
# device memory where MPI is CUDA-aware, else through page-locked host
# memory; P ranks must give the files of one CUDA rank byte for byte
gpu=no
"$top/drivers/hd-heat" --backend=cuda --n=8 --steps=1 --vti=no --output=gpu-probe >/dev/null 2>&1 && gpu=yes
rm -f gpu-probe*
if [ "$gpu" = yes ]; then
  while IFS='|' read -r drv args files gnp; do
    bin="$top/drivers/hd-$drv"
    gnp=${gnp:-2}
    rm -rf one many && mkdir one many
    # shellcheck disable=SC2086
    mpirun 1 $args --backend=cuda --output=one/o >/dev/null 2>&1 && mpirun "$gnp" $args --backend=cuda --output=many/o >/dev/null 2>many/stderr
    ok=$?
    for f in $files; do [ $ok -eq 0 ] && cmp -s "one/o$f" "many/o$f" || ok=1; done
    [ "$drv" = nbody ] || grep -q 'same node by CUDA IPC' many/stderr || ok=1 # bodies: no halos
    result $ok "hd-$drv on $gnp ranks with CUDA$([ "$drv" = nbody ] || echo ': halos by CUDA IPC'), the outputs ($files) of one CUDA rank, byte for byte"
    [ $ok -eq 0 ] || sed 's/^/# /' many/stderr
  done <<GPUCASES
heat|--dim=3 --n=40,37,32 --init=sine --bc=fixed:0 --steps=60 --csv-every=5|.vti .csv
heat|--dim=3 --n=40,37,33 --init=box --bc-zlo=fixed:1 --source=0.5 --steps=60 --csv-every=5|.vti .csv|4
heat|--dim=2 --n=70,45 --init=sine --bc=fixed:0 --steps=60 --csv-every=5 --precision=single|.vti .csv|3
heat|--dim=3 --n=70,37,33 --init=sine --bc=fixed:0 --bc-zlo=convective:2:1 --steps=60 --csv-every=10 --time-block=3|.vti .csv|4
heat|--dim=3 --n=70,37,33 --init=box --steps=50 --csv-every=25 --time-block=8 --precision=single|.vti .csv|2
heat|--dim=3 --n=40,120,300 --init=sine --bc=fixed:0 --bc-ylo=convective:2:1 --steps=38 --csv-every=19 --time-block=3|.vti .csv|4
heat|--dim=3 --n=40,150,200 --init=box --steps=40 --csv-every=20 --time-block=4 --precision=single|.vti .csv|2
heat|--dim=2 --n=70,45 --init=sine --bc=fixed:0 --steps=60 --csv-every=20 --time-block=8|.vti .csv|3
fdtd|$fdtd --boundary=pml|$fout
fdtd|$fdtd --boundary=pml|$fout|4
fdtd|$fdtd --boundary=cpml --precision=single|$fout|3
fdtd|$fdtd --boundary=mur --variant=generic|$fout|4
ns|--n=48 --steps=60 --frames=1 --png=no|_history.csv _0001.vtr
ns|--n=48 --ly=2 --steps=50 --frames=1 --png=no --bc-left=noslip-wall --bc-right=slip-wall --bc-top=zero-gradient --bc-bottom=noslip-wall|_history.csv _0001.vtr|3
ns|--n=64 --ly=2 --steps=40 --frames=1 --png=no --precision=single|_history.csv _0001.vtr|4
cavity|--n=32 --solver=sor --steps=100 --monitor-every=20 --steady=0 --png=no|_history.csv .vtr
cavity|--n=128 --solver=sor --steps=30 --monitor-every=10 --steady=0 --png=no --precision=single|_history.csv .vtr|4
cavity|--n=32 --solver=mg --steps=100 --monitor-every=20 --steady=0 --png=no|_history.csv .vtr
cavity|--n=256 --solver=mg --mg-gather=8 --steps=40 --monitor-every=10 --steady=0 --png=no --precision=single|_history.csv .vtr|3
nbody|--n=1000 --steps=20 --diag-every=5 --snapshot-every=20 --splits=1|.csv _000020.vtp
nbody|--dim=2 --ic=uniform --n=700 --steps=20 --diag-every=5 --snapshot-every=20 --splits=1 --precision=single|.csv _000020.vtp|3
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
  # the other halo path: staged through page-locked host memory
  bin="$top/drivers/hd-heat"
  args="--dim=3 --n=40,36,32 --init=sine --bc=fixed:0 --steps=60 --csv-every=5 --backend=cuda"
  rm -rf one many && mkdir one many
  # shellcheck disable=SC2086
  mpirun 1 $args --output=one/o >/dev/null 2>&1 &&
    HD_MPI_IPC=0 HD_MPI_CUDA_AWARE=0 mpirun 2 $args --output=many/o >/dev/null 2>many/stderr &&
    cmp -s one/o.vti many/o.vti && cmp -s one/o.csv many/o.csv && grep -q '^hd-heat: halos staged through page-locked' many/stderr
  result $? "hd-heat on 2 CUDA ranks with HD_MPI_IPC=0 HD_MPI_CUDA_AWARE=0: halos through host memory, the outputs of one rank"
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

# the slice gathered from the blocks
bin="$top/drivers/hd-fdtd"
rm -rf one many && mkdir one many
# shellcheck disable=SC2086
mpirun 1 $fdtd --slice="ez y 0.0" --backend=serial --output=one/o >/dev/null 2>&1 &&
  mpirun 4 $fdtd --slice="ez y 0.0" --backend=serial --output=many/o >/dev/null 2>&1 &&
  cmp -s one/o_slice.vtr many/o_slice.vtr && cmp -s one/o.vti many/o.vti
result $? "hd-fdtd: the slice and volume gathered from 4 ranks are those of one rank"

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

# N-body on 3 ranks: rank 0 writes the (whole) state; a restart on 3 ranks
# continues bit-identically
bin="$top/drivers/hd-nbody"
nargs="--n=300 --diag-every=5"
# shellcheck disable=SC2086
mpirun 3 $nargs --steps=40 --output=ck/ns >/dev/null 2>&1 &&
  mpirun 3 $nargs --steps=40 --output=ck/nh --checkpoint-every=20 >/dev/null 2>&1 &&
  mpirun 3 $nargs --steps=40 --output=ck/na --restart=ck/nh.ckpt.000000000020 >/dev/null 2>&1 &&
  cmp -s ck/ns_000040.vtp ck/na_000040.vtp && cmp -s ck/ns.csv ck/na.csv && [ -z "$(ls ck | grep '^nh\.r')" ]
result $? "hd-nbody on 3 ranks: one checkpoint file; 20 + restart + 20 gives the bodies and energy series of 40 straight"
# checkpoints of the other grid modules on 3 ranks: N steps straight, and
# N/2 + checkpoint + restart + N/2, give the same fields and series
restart3() { # driver, checkpoint step, files compared, arguments...
  bin="$top/drivers/hd-$1" every=$2 at=$(printf '%012d' "$2") full=$3
  shift 3
  mpirun 3 "$@" --output=ck/s >/dev/null 2>&1 &&
    mpirun 3 "$@" --output=ck/h --checkpoint-every="$every" >/dev/null 2>&1 &&
    mpirun 3 "$@" --output=ck/a --restart="ck/h.ckpt.$at" >/dev/null 2>&1 && [ -e "ck/h.r2of3.ckpt.$at" ] || return 1
  for f in $full; do cmp -s "ck/s$f" "ck/a$f" || return 1; done
}
rm -rf ck && mkdir ck
# shellcheck disable=SC2086
restart3 fdtd 60 ".vti _probes.csv _average.csv" $fdtd --boundary=pml
result $? "hd-fdtd on 3 ranks: 60 + checkpoint + restart + 60 steps give the fields, probes and averages of 120 straight (Mur and PML state in each rank's file)"
# hd-fdtd's checkpoints load on any rank count too: the fields as rows of
# nodes, the boundaries' points and the DFTs' sums as lists by key (each
# entry from the block owning its row). 3 -> 2, 1, 4 and 1 -> 3 continue as
# one rank straight does, bit for bit: PML with dispersive media, loads,
# feed and probes; Mur on H; the frequency-domain results (far field,
# maps, the volume); a scattered-field plane wave in CPML
bin="$top/drivers/hd-fdtd"
for fa in "$fdtd --boundary=pml --backend=serial|$fout" \
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
rm -rf ck && mkdir ck
restart3 ns 30 "_0002.vtr _history.csv" --n=40 --steps=60 --frames=2 --monitor-every=5 --png=no
result $? "hd-ns on 3 ranks: 30 + checkpoint + restart + 30 steps give the flow and history of 60 straight"
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
# the same for hd-ns (ghost rows of the conserved variables; periodic in y too)
bin="$top/drivers/hd-ns"
for nsa in "--n=40 --backend=openmp" "--n=32 --bc-bottom=periodic --bc-top=periodic --backend=serial"; do
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
bin="$top/drivers/hd-heat"

# what distributed runs refuse: one line from rank 0 (mpiexec adds its own
# lines about the exit status), exit 2, nothing written
mpibad() { # ranks, pattern, arguments...
  np=$1 pattern=$2
  shift 2
  rm -f out*
  mpirun "$np" --output=out "$@" >stdout 2>stderr
  rc=$?
  lines=$(grep -c "^$(basename "$bin"):" stderr)
  if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -q -- "$pattern" stderr && [ -z "$(ls | grep '^out')" ]; then
    result 0 "$np ranks: exit 2, one line with '$pattern': $*"
  else
    result 1 "$np ranks: exit 2, one line with '$pattern': $* (got exit $rc, $lines lines)"
    sed 's/^/# /' stderr
  fi
}
mpibad 4 "cannot be shared by 4 ranks" --n=8,3 --steps=1
mpibad 2 "bench: not available yet" --n=16 --steps=4 --bench
[ "$gpu" = yes ] || mpibad 2 "'cuda' is not in this build\|no CUDA device" --n=16 --steps=4 --backend=cuda
mpibad 2 "exceeds the explicit stability limit" --n=16 --steps=4 --dt=1
bin="$top/drivers/hd-nbody"
[ "$gpu" = yes ] || mpibad 2 "'cuda' is not in this build\|no CUDA device" --n=16 --steps=4 --backend=cuda
mpibad 3 "--n: 0 is out of range" --n=0
bin="$top/drivers/hd-fdtd"
# shellcheck disable=SC2086
mpibad 2 "no axis of this grid can be split" $fdtd --boundary-y=periodic --boundary-z=periodic
mpibad 2 "bench: not available yet" --bench=20 --steps=4
bin="$top/drivers/hd-ns"
mpibad 6 "fewer than 3 node rows" --n=16 --steps=2
mpibad 2 "bench: not available yet" --n=16 --steps=2 --bench
bin="$top/drivers/hd-fdtd"
mpibad 6 "cannot be shared by 3 ranks" --xmesh=0,4,1 --ymesh=0,2,1 --zmesh=0,2,1 --steps=2

finish
