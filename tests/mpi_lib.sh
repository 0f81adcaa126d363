#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# What the distributed-run tests share (tests/mpi_<module>.sh source it):
# the skip without MPI, mpiexec as root with more ranks than cores, the
# comparison of P ranks' outputs with one rank's, VTK pieces' raw arrays,
# the CUDA probe, the refusals.
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

# the cases read from stdin, "name | arguments | files compared | rank
# counts": P ranks give one rank's files and summary results, byte for byte
same_as_one_rank() { # driver
  drv=$1
  bin="$top/drivers/hd-$drv"
  while IFS='|' read -r name args files ranks; do
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
  done
}

# the CUDA cases read from stdin, "arguments | files | ranks (default 2)":
# P CUDA ranks (halos by CUDA IPC) give one CUDA rank's files byte for byte
gpu_same_as_one_rank() { # driver
  drv=$1
  bin="$top/drivers/hd-$drv"
  while IFS='|' read -r args files gnp; do
    rm -rf one && mkdir one
    # shellcheck disable=SC2086
    mpirun 1 $args --backend=cuda --output=one/o >/dev/null 2>&1
    ran=$?
    for np in ${gnp:-2}; do
      rm -rf many && mkdir many
      ok=$ran
      # shellcheck disable=SC2086
      [ $ok -eq 0 ] && { mpirun "$np" $args --backend=cuda --output=many/o >/dev/null 2>many/stderr; ok=$?; }
      for f in $files; do [ $ok -eq 0 ] && cmp -s "one/o$f" "many/o$f" || ok=1; done
      [ "$drv" = nbody ] || grep -q 'same node by CUDA IPC' many/stderr || ok=1 # bodies: no halos
      result $ok "hd-$drv on $np ranks with CUDA$([ "$drv" = nbody ] || echo ': halos by CUDA IPC'), the outputs ($files) of one CUDA rank, byte for byte"
      [ $ok -eq 0 ] || sed 's/^/# /' many/stderr
    done
  done
}

# checkpoints on 3 ranks: N steps straight, and N/2 + checkpoint +
# restart + N/2, give the same fields and series
restart3() { # driver, checkpoint step, files compared, arguments...
  bin="$top/drivers/hd-$1" every=$2 at=$(printf '%012d' "$2") full=$3
  shift 3
  mpirun 3 "$@" --output=ck/s >/dev/null 2>&1 &&
    mpirun 3 "$@" --output=ck/h --checkpoint-every="$every" >/dev/null 2>&1 &&
    mpirun 3 "$@" --output=ck/a --restart="ck/h.ckpt.$at" >/dev/null 2>&1 && [ -e "ck/h.r2of3.ckpt.$at" ] || return 1
  for f in $full; do cmp -s "ck/s$f" "ck/a$f" || return 1; done
}

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

# CUDA under MPI (where this build has CUDA and a GPU answers): each rank
# on a GPU of its node (shared when there are fewer), halos between ranks
# of the node read from the neighbour's device memory (CUDA IPC), else in
# device memory where MPI is CUDA-aware, else through page-locked host
# memory; P ranks must give the files of one CUDA rank byte for byte
gpu=no
"$top/drivers/hd-heat" --backend=cuda --n=8 --steps=1 --vti=no --output=gpu-probe >/dev/null 2>&1 && gpu=yes
rm -f gpu-probe*

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
