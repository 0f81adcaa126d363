# SPDX-License-Identifier: BSD-3-Clause
# hd_cuda.m4 - the CUDA backend: --with-cuda[=DIR] and --with-cuda-arch=LIST.
#
# HD_CUDA sets, when CUDA is requested and works:
#   NVCC              the CUDA compiler (precious)
#   NVCCFLAGS         user flags for it (precious)
#   HD_NVCC_ARCHFLAGS -gencode flags: machine code per arch, PTX for the newest
#   CUDA_CPPFLAGS CUDA_LDFLAGS CUDA_LIBS   for linking C programs with cudart
#   HD_HAVE_CUDA (config.h) and the automake conditional HAVE_CUDA
# CUDA is opt-in: without --with-cuda nothing is probed.  Asked for but not
# usable is an error that names what is missing, never a silent fallback.

AC_DEFUN([HD_CUDA], [
AC_ARG_WITH([cuda],
  [AS_HELP_STRING([--with-cuda@<:@=DIR@:>@],
    [build the CUDA backend (default: no); DIR is the CUDA Toolkit prefix
     (default: nvcc from PATH, else /usr/local/cuda)])],
  [], [with_cuda=no])
AC_ARG_WITH([cuda-arch],
  [AS_HELP_STRING([--with-cuda-arch=LIST],
    [comma-separated compute capabilities to build machine code for, e.g. 80,90
     (default: 90); PTX for the newest is embedded too, so newer GPUs run it])],
  [], [with_cuda_arch=90])
AC_ARG_VAR([NVCC], [CUDA compiler command])
AC_ARG_VAR([NVCCFLAGS], [CUDA compiler flags])

hd_have_cuda=no
HD_NVCC_ARCHFLAGS=
CUDA_CPPFLAGS=
CUDA_LDFLAGS=
CUDA_LIBS=
AS_IF([test "x$with_cuda" != xno], [
  AS_IF([test "x$with_cuda" = xyes], [hd_cuda_dir=], [hd_cuda_dir=$with_cuda])
  AS_IF([test -z "$NVCC"], [
    AS_IF([test -n "$hd_cuda_dir"],
      [AC_PATH_PROG([NVCC], [nvcc], [], [$hd_cuda_dir/bin])],
      [AC_PATH_PROG([NVCC], [nvcc], [], [$PATH$PATH_SEPARATOR/usr/local/cuda/bin])])
  ])
  AS_IF([test -z "$NVCC"],
    [AC_MSG_ERROR([--with-cuda was given but nvcc was not found in ${hd_cuda_dir:-PATH or /usr/local/cuda}/bin; install the CUDA Toolkit (Debian: nvidia-cuda-toolkit) or pass --with-cuda=DIR])])
  dnl the toolkit root as nvcc itself reports it (TOP), so that wrapper
  dnl scripts and symlinks such as /usr/local/bin/nvcc find the real prefix
  AS_IF([test -z "$hd_cuda_dir"], [
    hd_cuda_dir=`$NVCC --dryrun -x cu -c /dev/null -o /dev/null 2>&1 | sed -n 's/^#\$ TOP=//p' | head -n 1`
    AS_IF([test -n "$hd_cuda_dir" && test -d "$hd_cuda_dir/include"],
      [hd_cuda_dir=`cd "$hd_cuda_dir" && pwd -P`],
      [hd_cuda_dir=`AS_DIRNAME(["$NVCC"])`; hd_cuda_dir=`AS_DIRNAME(["$hd_cuda_dir"])`])
  ])

  dnl machine code for every listed arch, PTX for the newest
  hd_arch_max=0
  hd_cuda_arch_list=
  for hd_a in `echo "$with_cuda_arch" | tr ',' ' '`; do
    AS_IF([echo "$hd_a" | grep -E '^@<:@1-9@:>@@<:@0-9@:>@{1,2}a?$' >/dev/null], [],
      [AC_MSG_ERROR([--with-cuda-arch: '$hd_a' is not a compute capability such as 90 or 90a])])
    HD_NVCC_ARCHFLAGS="$HD_NVCC_ARCHFLAGS -gencode=arch=compute_$hd_a,code=sm_$hd_a"
    hd_cuda_arch_list="$hd_cuda_arch_list sm_$hd_a"
    hd_n=`echo "$hd_a" | tr -d a`
    AS_IF([test "$hd_n" -gt "$hd_arch_max"], [hd_arch_max=$hd_n; hd_arch_ptx=$hd_a])
  done
  AS_IF([test "$hd_arch_max" = 0], [AC_MSG_ERROR([--with-cuda-arch: empty list])])
  HD_NVCC_ARCHFLAGS="$HD_NVCC_ARCHFLAGS -gencode=arch=compute_$hd_arch_ptx,code=compute_$hd_arch_ptx"
  hd_cuda_arch_list="$hd_cuda_arch_list compute_$hd_arch_ptx(PTX)"

  AC_MSG_CHECKING([whether $NVCC builds for$hd_cuda_arch_list])
  cat > conftest.cu <<_HD_EOF
static __global__ void k(float *p) { p@<:@threadIdx.x@:>@ = 1.0f; }
int main(void) { float *p = 0; k<<<1, 1>>>(p); return (int)cudaGetLastError(); }
_HD_EOF
  AS_IF([$NVCC $HD_NVCC_ARCHFLAGS $NVCCFLAGS -c conftest.cu -o conftest.$OBJEXT >conftest.err 2>&1],
    [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     sed 's/^/| /' conftest.err >&AS_MESSAGE_LOG_FD
     AC_MSG_ERROR([$NVCC cannot build for --with-cuda-arch=$with_cuda_arch (CUDA 13 supports compute capability 75 and newer): `head -n 1 conftest.err`])])
  rm -f conftest.cu conftest.err conftest.$OBJEXT

  dnl link C programs against the static CUDA runtime
  hd_cuda_libdir=$hd_cuda_dir/lib64
  AS_IF([test -d "$hd_cuda_libdir"], [], [hd_cuda_libdir=$hd_cuda_dir/lib])
  CUDA_CPPFLAGS="-I$hd_cuda_dir/include"
  dnl cuFFT (the cavity's FFT Poisson solve) comes with the toolkit, as a shared library only
  CUDA_LDFLAGS="-L$hd_cuda_libdir -Wl,-rpath,$hd_cuda_libdir"
  CUDA_LIBS="-lcufft -lcudart_static -lstdc++ -ldl -lpthread -lrt"
  AC_MSG_CHECKING([for cudaGetDeviceCount and cufftCreate in $hd_cuda_libdir])
  hd_save_CPPFLAGS=$CPPFLAGS; hd_save_LDFLAGS=$LDFLAGS; hd_save_LIBS=$LIBS
  CPPFLAGS="$CPPFLAGS $CUDA_CPPFLAGS"; LDFLAGS="$LDFLAGS $CUDA_LDFLAGS"; LIBS="$CUDA_LIBS $LIBS"
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <cuda_runtime_api.h>
#include <cufft.h>]],
                                  [[int n = 0; cufftHandle p; return (int)cudaGetDeviceCount(&n) + (int)cufftCreate(&p);]])],
    [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([cannot link against the CUDA runtime (libcudart_static) and cuFFT in $hd_cuda_libdir; check --with-cuda=DIR])])
  CPPFLAGS=$hd_save_CPPFLAGS; LDFLAGS=$hd_save_LDFLAGS; LIBS=$hd_save_LIBS

  hd_have_cuda=yes
  AC_DEFINE([HD_HAVE_CUDA], [1], [Define to 1 when the CUDA backend is built.])
  AC_DEFINE_UNQUOTED([HD_CUDA_ARCH_LIST], ["$hd_cuda_arch_list"], [GPU code in this build.])
])
AC_SUBST([HD_NVCC_ARCHFLAGS])
AC_SUBST([CUDA_CPPFLAGS])
AC_SUBST([CUDA_LDFLAGS])
AC_SUBST([CUDA_LIBS])
AM_CONDITIONAL([HAVE_CUDA], [test "$hd_have_cuda" = yes])
])
