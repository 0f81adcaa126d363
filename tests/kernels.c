/* SPDX-License-Identifier: BSD-3-Clause */
#include "kernels.h"

const testk_ops *testk_get(int backend) {
  switch (backend) {
    case HD_B_SERIAL: return &testk_serial_d;
#if defined(HD_HAVE_OPENMP)
    case HD_B_OPENMP: return &testk_openmp_d;
#endif
#if defined(HD_HAVE_CUDA)
    case HD_B_CUDA: return &testk_cuda_d;
#endif
    default: return NULL;
  }
}
