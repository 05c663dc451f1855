#!/usr/bin/env bash
# Regenerates the fatbin fixtures of the fatbin reader's tests
# (tests/cudart/fixtures/*.fatbin): tests/cudart/fixtures/scale.cu built by
# nvcc four ways, and the executable's .nv_fatbin section copied out:
#   plain.fatbin  PTX for compute_75, --no-compress
#   zstd.fatbin   PTX for compute_75 and compute_80, compressed (nvcc 13's default: zstd)
#   lz4.fatbin    PTX for compute_75, --compress-mode=speed (LZ4)
#   sass.fatbin   SASS for sm_75 only (no PTX): what the model cannot run
# The build never runs nvcc; run this where nvcc exists and commit the outputs.
#   NVCC=/opt/cuda/bin/nvcc scripts/gen_fatbin_fixtures.sh
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
nvcc=${NVCC:-$(command -v nvcc || true)}
[[ -z $nvcc && -x /usr/local/cuda/bin/nvcc ]] && nvcc=/usr/local/cuda/bin/nvcc
if [[ -z $nvcc ]]; then
  echo "gen_fatbin_fixtures.sh: nvcc not found (set NVCC=...)" >&2
  exit 1
fi
dir=$here/tests/cudart/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build() {  # name, nvcc options...
  local name=$1
  shift
  "$nvcc" -cudart shared "$@" -o "$tmp/$name" "$dir/scale.cu"
  objcopy -O binary --only-section=.nv_fatbin "$tmp/$name" "$dir/$name.fatbin"
  echo "$dir/$name.fatbin: $(stat -c %s "$dir/$name.fatbin") bytes"
}
build plain -gencode arch=compute_75,code=compute_75 --no-compress
build zstd -gencode arch=compute_75,code=compute_75 -gencode arch=compute_80,code=compute_80
build lz4 -gencode arch=compute_75,code=compute_75 --compress-mode=speed
build sass -gencode arch=compute_75,code=sm_75
"$nvcc" --version | tail -2 | head -1 > "$dir/nvcc-version.txt"
