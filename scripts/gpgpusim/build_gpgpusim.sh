#!/usr/bin/env bash
# Build GPGPU-Sim (accel-sim/gpgpu-sim_distribution, branch dev) against the CUDA 13 install
# here, as it was built for scripts/gpgpusim_compare.sh. GPGPU-Sim is not part of the project:
# give it a checkout outside the project. See scripts/gpgpusim/README.md for why each step.
#
# Usage: scripts/gpgpusim/build_gpgpusim.sh GPGPUSIM_CHECKOUT [OVERLAY_DIR] [CUDA_DIR]
#   Debian packages first: apt-get install -y bison flex zlib1g-dev xutils-dev
set -euo pipefail
src=${1:?usage: build_gpgpusim.sh GPGPUSIM_CHECKOUT [OVERLAY_DIR] [CUDA_DIR]}
overlay=${2:-$src/../cuda13-gpgpusim}
cuda=${3:-/usr/local/cuda}
here=$(cd "$(dirname "$0")" && pwd)
"$here/cuda_overlay.sh" "$overlay" "$cuda" >/dev/null
cd "$src"
# 1. setup_environment refuses any CUDA newer than 11.1: let it take 13.x.
sed -i 's/-gt 11100 -o/-gt 13090 -o/' setup_environment
# 2. An application built by nvcc 13 binds its runtime symbols to version libcudart.so.13;
#    the library's version script must define that version or the loader refuses it.
grep -q 'libcudart.so.13{' linux-so-version.txt || printf 'libcudart.so.13{\n};\n' >>linux-so-version.txt
# 3. CUDA 13 removed cudaDeviceProp::clockRate: leave that one field unset.
grep -q 'clockRate was removed in CUDA 13' libcuda/cuda_runtime_api.cc ||
  sed -i 's|^    prop->clockRate = the_gpu->shader_clock();|#if (CUDART_VERSION < 13000)  /* cudaDeviceProp::clockRate was removed in CUDA 13 */\n    prop->clockRate = the_gpu->shader_clock();\n#endif|' \
    libcuda/cuda_runtime_api.cc
# 4. The texture-reference struct CUDA 12 removed comes from the overlay's texture_types.h.
export CUDA_INSTALL_PATH=$overlay
set +eu  # setup_environment is not written for set -eu
# shellcheck disable=SC1091
source setup_environment release || exit 1
set -eu
nice -n 19 make -j1
ln -sfn libcudart.so "lib/$GPGPUSIM_CONFIG/libcudart.so.13"
echo "built: $src/lib/$GPGPUSIM_CONFIG/libcudart.so (CUDA_INSTALL_PATH=$overlay)"
