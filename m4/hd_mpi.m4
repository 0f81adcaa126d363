# SPDX-License-Identifier: BSD-3-Clause
# HD_MPI: --with-mpi[=MPICC].  Finds the MPI compiler wrapper (mpicc unless
# given), takes its compile and link flags (Open MPI's --showme, MPICH's
# -show) so the drivers keep being compiled by $CC and nvcc, checks that a
# program using MPI links, and defines HD_HAVE_MPI.  Asked for and missing
# is an error.  Substitutes MPI_CFLAGS, MPI_LIBS and MPIEXEC.
AC_DEFUN([HD_MPI], [
AC_ARG_WITH([mpi],
  [AS_HELP_STRING([--with-mpi@<:@=MPICC@:>@],
    [distributed runs over MPI; MPICC is the wrapper compiler to take flags from (default: no; yes = mpicc)])],
  [], [with_mpi=no])
hd_have_mpi=no
MPI_CFLAGS=
MPI_LIBS=
AS_IF([test "x$with_mpi" != xno], [
  AS_IF([test "x$with_mpi" = xyes], [hd_mpicc=mpicc], [hd_mpicc=$with_mpi])
  AC_PATH_PROG([HD_MPICC], [$hd_mpicc])
  AS_IF([test -z "$HD_MPICC"],
    [AC_MSG_ERROR([--with-mpi was given but the MPI compiler wrapper '$hd_mpicc' was not found (Debian: libopenmpi-dev openmpi-bin, or libmpich-dev mpich)])])
  AC_MSG_CHECKING([MPI compile and link flags from $HD_MPICC])
  AS_IF([MPI_CFLAGS=`$HD_MPICC --showme:compile 2>/dev/null` && MPI_LIBS=`$HD_MPICC --showme:link 2>/dev/null`], [],
    [hd_show=`$HD_MPICC -show 2>/dev/null`
     MPI_CFLAGS=`for w in $hd_show; do case $w in -I*|-D*|-pthread) printf '%s ' "$w";; esac; done`
     MPI_LIBS=`for w in $hd_show; do case $w in -L*|-l*|-Wl,*|-pthread) printf '%s ' "$w";; esac; done`])
  AC_MSG_RESULT([$MPI_CFLAGS $MPI_LIBS])
  hd_save_CFLAGS=$CFLAGS
  hd_save_LIBS=$LIBS
  CFLAGS="$CFLAGS $MPI_CFLAGS"
  LIBS="$MPI_LIBS $LIBS"
  AC_MSG_CHECKING([whether a program using MPI links])
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]],
      [[int n; MPI_Init(0, 0); MPI_Comm_size(MPI_COMM_WORLD, &n); MPI_Finalize();]])],
    [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([--with-mpi: a program using MPI does not link with '$MPI_CFLAGS $MPI_LIBS' (see config.log)])])
  CFLAGS=$hd_save_CFLAGS
  LIBS=$hd_save_LIBS
  AC_PATH_PROGS([MPIEXEC], [mpiexec mpirun], [], [`AS_DIRNAME(["$HD_MPICC"])`$PATH_SEPARATOR$PATH])
  AS_IF([test -z "$MPIEXEC"], [AC_MSG_ERROR([--with-mpi: no mpiexec or mpirun next to $HD_MPICC])])
  hd_have_mpi=yes
  AC_DEFINE([HD_HAVE_MPI], [1], [Define to 1 when the drivers are built with MPI.])])
AM_CONDITIONAL([HAVE_MPI], [test "$hd_have_mpi" = yes])
AC_SUBST([MPI_CFLAGS])
AC_SUBST([MPI_LIBS])
AC_SUBST([MPIEXEC])
])
