/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/platform.h - the only header that looks at the compiler.
 *
 * Every other hd header uses these macros instead of testing __CUDACC__,
 * __CUDA_ARCH__ or _OPENMP itself.  The backend of a translation unit follows
 * from how it is compiled:
 *   nvcc (any .cu, or -x cu)              -> HD_BACKEND_CUDA
 *   a C/C++ compiler with OpenMP enabled   -> HD_BACKEND_OPENMP
 *   otherwise, or with HD_SERIAL defined   -> HD_BACKEND_SERIAL
 * HD_SERIAL lets a unit compiled with -fopenmp (so with identical code
 * generation) run its loops on one thread: that unit is the oracle the OpenMP
 * backend is compared with, bit for bit. */
#ifndef HD_PLATFORM_H
#define HD_PLATFORM_H

#include "version.h"

#if defined(__GNUC__) || defined(__clang__)
#define HD_UNUSED __attribute__((unused))
#else
#define HD_UNUSED
#endif

#if defined(__CUDACC__)
#define HD_BACKEND_CUDA 1
#define HD_BACKEND_ID 2
#define HD_BACKEND_NAME "cuda"
#define HD_DEVICE_QUAL __host__ __device__
#elif defined(_OPENMP) && !defined(HD_SERIAL)
#define HD_BACKEND_OPENMP 1
#define HD_BACKEND_ID 1
#define HD_BACKEND_NAME "openmp"
#define HD_DEVICE_QUAL
#else
#define HD_BACKEND_SERIAL 1
#define HD_BACKEND_ID 0
#define HD_BACKEND_NAME "serial"
#define HD_DEVICE_QUAL
#endif

/* HD_FN: physics, callable from host loops and from device kernels.
 * HD_HOST_FN: host-only helpers (allocation, launch wrappers, messages).
 * Both are static inline: a header-only library must not emit symbols, and
 * the unused attribute keeps nvcc quiet about helpers a unit never calls. */
#define HD_FN static inline HD_UNUSED HD_DEVICE_QUAL
#define HD_HOST_FN static inline HD_UNUSED

/* HD_ON_DEVICE is 1 only in the device pass of nvcc. */
#if defined(__CUDA_ARCH__)
#define HD_ON_DEVICE 1
#else
#define HD_ON_DEVICE 0
#endif

#if defined(__CUDACC__) || defined(__cplusplus)
#define HD_RESTRICT __restrict__
#elif defined(_MSC_VER)
#define HD_RESTRICT __restrict
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L
#define HD_RESTRICT restrict
#else
#define HD_RESTRICT
#endif

/* HD_LOAD(p): *p, on the device through the read-only data cache: for
 * data no thread of the kernel writes, whose loads may then move past the
 * kernel's stores. */
#if defined(__CUDA_ARCH__)
#define HD_LOAD(p) __ldg(p)
#else
#define HD_LOAD(p) (*(p))
#endif

#define HD_PRAGMA_(x) _Pragma(#x)
#define HD_PRAGMA(x) HD_PRAGMA_(x) /* arguments macro-expanded first */
/* HD_OMP_FOR: thread-parallel loop, only in the OpenMP backend.
 * HD_OMP_SIMD: vector loop for hand-written CPU loops known to vectorise,
 * wherever OpenMP is on; the serial oracle keeps it so that both CPU
 * backends generate the same code. */
#if defined(HD_BACKEND_OPENMP)
#define HD_OMP_FOR(clauses) HD_PRAGMA(omp parallel for clauses)
#else
#define HD_OMP_FOR(clauses)
#endif
#if defined(_OPENMP) && !defined(__CUDACC__)
#define HD_OMP_SIMD HD_PRAGMA(omp simd)
#else
#define HD_OMP_SIMD
#endif

#if defined(HD_BACKEND_OPENMP)
#include <omp.h>
#endif

/* HD_PREFETCH(p) / HD_PREFETCH_W(p): a hint to fetch the cache line at p
 * for reading / writing (CPU loops that stream; nothing where the compiler
 * has no builtin). */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__)
#define HD_PREFETCH(p) __builtin_prefetch((p), 0, 0)
#define HD_PREFETCH_W(p) __builtin_prefetch((p), 1, 0)
#else
#define HD_PREFETCH(p) ((void)(p))
#define HD_PREFETCH_W(p) ((void)(p))
#endif

/* HD_CPU_CLONES: a CPU routine compiled for AVX-512 and AVX2 besides the
 * baseline, the version picked at run time (GCC on x86-64 only: clang 14
 * gives the resolver of a static multiversioned function external linkage,
 * so two units including a header would collide; clang builds keep the
 * baseline, or configure --enable-native), with a * b + c contracted into
 * FMAs.  HD_CPU_CLONES_EXACT: the same without contraction, so that the
 * clones' results equal the generic loops' bit for bit (configure
 * --enable-native turns contraction off everywhere else, for the same
 * reason). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(HD_NO_TARGET_CLONES) && \
    !defined(__cplusplus) && !defined(__CUDACC__)
#define HD_CPU_TARGETS target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")
#define HD_CPU_CLONES __attribute__((HD_CPU_TARGETS, optimize("fp-contract=fast")))
#define HD_CPU_CLONES_EXACT __attribute__((HD_CPU_TARGETS, optimize("fp-contract=off")))
#else
#define HD_CPU_CLONES
#define HD_CPU_CLONES_EXACT
#endif

#ifdef __cplusplus
#define HD_EXTERN_C_BEGIN extern "C" {
#define HD_EXTERN_C_END }
#else
#define HD_EXTERN_C_BEGIN
#define HD_EXTERN_C_END
#endif

#define HD_CAT_(a, b) a##b
#define HD_CAT(a, b) HD_CAT_(a, b)
#define HD_STR_(a) #a
#define HD_STR(a) HD_STR_(a)

#define HD_VERSION_MAJOR 0
#define HD_VERSION_MINOR 1
#define HD_VERSION_PATCH 0

#endif /* HD_PLATFORM_H */
