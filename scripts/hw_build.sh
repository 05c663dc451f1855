#!/usr/bin/env bash
# Builds rfsim-hw (hw/, docs/hardware.md) into build-hw/: the workloads' host
# drivers over the CUDA driver API, to run on a machine with an NVIDIA GPU.
# Needs the CUDA toolkit (headers and the driver library's stub, e.g.
# /usr/local/cuda) where it is built, and only the NVIDIA driver where it runs.
# Without a toolkit it says so and exits 0: nothing else depends on it.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
if [[ ! -f $cuda/include/cuda.h ]]; then
  echo "hw_build.sh: no CUDA toolkit at $cuda (set CUDA_HOME): rfsim-hw is not built" >&2
  exit 0
fi
cmake -S "$here/hw" -B "$here/build-hw" -G Ninja -DCUDAToolkit_ROOT="$cuda" >/dev/null
cmake --build "$here/build-hw" -j "${JOBS:-2}"
echo "hw_build.sh: $here/build-hw/rfsim-hw"
