# SPDX-License-Identifier: BSD-3-Clause
# Spack recipe for hd.  NOT YET RUN: spack could not be installed where this
# was written (no network), so the recipe has been checked for syntax only.
# To use it, copy it to <repo>/packages/hd/package.py of a Spack repository,
# point `url` at the published release tarball (`make dist` makes it) and
# replace the checksum with `spack checksum hd 0.1.0`'s.

from spack.package import *


class Hd(AutotoolsPackage, CudaPackage):
    """Header-only C physics kernels (heat, N-body, FDTD, cavity flow,
    compressible flow) that compile unchanged for CUDA, OpenMP and serial
    C, with driver programs for each module."""

    homepage = "https://example.org/hd"  # set to the project's page
    url = "https://example.org/hd/hd-0.1.0.tar.gz"  # the release tarball

    license("BSD-3-Clause")

    version("0.1.0", sha256="0" * 64)  # replace: spack checksum hd 0.1.0

    variant("openmp", default=True, description="OpenMP backend of the drivers")
    variant("mpi", default=False, description="Distributed runs over MPI")
    variant("png", default=True, description="PNG pictures from the drivers")

    depends_on("c", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("mpi", when="+mpi")
    depends_on("libpng", when="+png")
    depends_on("zlib-api", when="+png")
    depends_on("cuda@12:", when="+cuda")

    conflicts("cuda_arch=none", when="+cuda", msg="+cuda needs a cuda_arch, e.g. cuda_arch=90")

    def configure_args(self):
        spec = self.spec
        args = self.enable_or_disable("openmp")
        args += self.with_or_without("png")
        if spec.satisfies("+mpi"):
            args.append("--with-mpi=" + spec["mpi"].mpicc)
        else:
            args.append("--without-mpi")
        if spec.satisfies("+cuda"):
            args.append("--with-cuda=" + spec["cuda"].prefix)
            args.append("--with-cuda-arch=" + ",".join(spec.variants["cuda_arch"].value))
        else:
            args.append("--without-cuda")
        return args

    def setup_build_environment(self, env):
        # `spack install --test=root` runs make check: without the slow
        # validation runs it takes minutes, not tens of them
        env.set("HD_TESTS_SKIP_SLOW", "1")
