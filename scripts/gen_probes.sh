#!/usr/bin/env bash
# Regenerates the back end's register-count probes (tests/backend/probes):
# for each <name>.cu there, writes beside it
#   <name>.ptx            nvcc -arch=sm_75 -ptx
#   <name>.ptxas.txt      ptxas -v of that PTX: registers, spills, frame
#   <name>.sass_regs.txt  (probes whose source names scripts/sass_regs.py) the
#                         count each kernel's cubin gives the driver and the
#                         highest register its SASS names
# `rfsim backend --compare-ptxas tests/backend/probes/*.ptx` compares them with
# our back end; docs/backend.md explains what they show.
#
#   scripts/gen_probes.sh     (nvcc from $NVCC, PATH or /usr/local/cuda)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
arch=sm_75
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [[ ! -x $nvcc ]]; then
  echo "gen_probes.sh: nvcc not found (set NVCC=/path/to/nvcc); the committed probes stay as they are." >&2
  exit 77
fi
ptxas=$(dirname "$nvcc")/ptxas
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for cu in "$here"/tests/backend/probes/*.cu; do
  base=${cu%.cu}
  name=$(basename "$base")
  "$nvcc" -arch="$arch" -ptx "$cu" -o "$base.ptx"
  { echo "# $ptxas -arch=$arch -v $name.ptx (nvcc $("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'))"
    "$ptxas" -arch="$arch" -v "$base.ptx" -o "$tmp/$name.cubin" 2>&1; } >"$base.ptxas.txt"
  # Only probes written for it: the decoder reads loads, stores and ALU forms.
  if grep -q 'sass_regs.py' "$cu"; then
    /usr/bin/python3 "$here/scripts/sass_regs.py" "$tmp/$name.cubin" >"$base.sass_regs.txt"
  fi
  echo "gen_probes: $name"
done
