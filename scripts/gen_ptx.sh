#!/usr/bin/env bash
# Regenerates the committed PTX of the workloads: for each workloads/<name>/<name>.cu
# (every one, or those named as arguments), and for each kernel of the
# allocation-only comparison set workloads/kernels/<name>.cu (no host driver;
# workloads/kernels/README.md), writes, beside it,
#   <name>.ptx        nvcc -arch=sm_75 -ptx
#   <name>.ptxas.txt  ptxas -v of the same source compiled for sm_75: registers,
#                     spill stores/loads and stack frame of every function
# A .cu containing the line `// rfsim: rdc` is compiled with -rdc=true
# (separate compilation: device functions stay real calls instead of being
# inlined or dropped). A workload with calls (rdc, __noinline__ or virtual
# functions) also gets its fully inlined code, the CARS paper's LTO baseline
# (Fig. 16), which `rfsim run --code inlined` runs:
#   <name>.inlined.ptx        the source with __noinline__ made __forceinline__,
#   <name>.inlined.ptxas.txt  whole-program (no -rdc): nvcc inlines every direct
#                             call it can; recursion and virtual calls stay calls
# The build never runs nvcc; it reads the committed files,
# so run this after editing a kernel and commit the outputs.
#
#   scripts/gen_ptx.sh            # all workloads and all of workloads/kernels
#   scripts/gen_ptx.sh saxpy sgemm
#   scripts/gen_ptx.sh kernels    # only workloads/kernels/*.cu
#   scripts/gen_ptx.sh kernels/lu_blocked saxpy
#   NVCC=/opt/cuda/bin/nvcc scripts/gen_ptx.sh
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
arch=sm_75

nvcc=${NVCC:-$(command -v nvcc || true)}
if [[ -z $nvcc && -x /usr/local/cuda/bin/nvcc ]]; then
  nvcc=/usr/local/cuda/bin/nvcc
fi
if [[ -z $nvcc || ! -x $nvcc ]]; then
  echo "gen_ptx.sh: nvcc not found (set NVCC=/path/to/nvcc or put it on PATH)." >&2
  echo "gen_ptx.sh: nothing regenerated; the build uses the committed .ptx files." >&2
  exit 1
fi

# The comparison set: a folder of .cu files, not a workload. Named on the
# command line it must have sources; in the no-argument run it is optional.
kernels_dir=$here/workloads/kernels
add_kernels() {
  local required=$1 cu found=0
  for cu in "$kernels_dir"/*.cu; do
    [[ -e $cu ]] && sources+=("$cu") && found=1
  done
  if ((found == 0 && required)); then
    echo "gen_ptx.sh: no workloads/kernels/*.cu found" >&2
    exit 1
  fi
}

sources=()
if (($# == 0)); then
  for cu in "$here"/workloads/*/*.cu; do
    [[ $(dirname "$cu") == "$kernels_dir" ]] && continue
    [[ -e $cu ]] && sources+=("$cu")
  done
  if ((${#sources[@]} == 0)); then
    echo "gen_ptx.sh: no workloads/*/*.cu found" >&2
    exit 1
  fi
  add_kernels 0
else
  for name in "$@"; do
    if [[ $name == kernels ]]; then
      add_kernels 1
      continue
    elif [[ $name == kernels/* ]]; then
      cu=$kernels_dir/${name#kernels/}
      cu=${cu%.cu}.cu
    else
      cu=$here/workloads/$name/$name.cu
    fi
    if [[ ! -f $cu ]]; then
      echo "gen_ptx.sh: no kernel source $cu" >&2
      exit 1
    fi
    sources+=("$cu")
  done
fi

version=$("$nvcc" --version | tail -n 1)
for cu in "${sources[@]}"; do
  dir=$(dirname "$cu")
  name=$(basename "$cu" .cu)
  flags=(-arch="$arch")
  if grep -q '^[[:space:]]*//[[:space:]]*rfsim:[[:space:]]*rdc\b' "$cu"; then
    flags+=(-rdc=true)
  fi
  # Further translation units linked with it (`// rfsim: link lib/x`: lib/x.cu
  # beside it, compiled on its own to lib/x.ptx; the workload lists it).
  links=()
  while read -r l; do links+=("$l"); done < <(sed -n 's|^[[:space:]]*//[[:space:]]*rfsim:[[:space:]]*link[[:space:]]*\([^[:space:]]*\).*|\1|p' "$cu")
  # Relative paths, so nothing in the outputs depends on where the checkout lives.
  (cd "$dir" && "$nvcc" "${flags[@]}" -ptx "$name.cu" -o "$name.ptx")
  for l in "${links[@]}"; do
    (cd "$dir/$(dirname "$l")" && "$nvcc" "${flags[@]}" -ptx "$(basename "$l").cu" -o "$(basename "$l").ptx")
  done
  {
    echo "# nvcc ${flags[*]} -Xptxas -v -c $name.cu ($version)"
    # ptxas reports to stderr; its compile times would make every run a diff.
    (cd "$dir" && "$nvcc" "${flags[@]}" -Xptxas -v -c "$name.cu" -o /dev/null 2>&1) | grep -v 'Compile time ='
    for l in "${links[@]}"; do
      echo "# nvcc ${flags[*]} -Xptxas -v -c $l.cu ($version)"
      (cd "$dir/$(dirname "$l")" && "$nvcc" "${flags[@]}" -Xptxas -v -c "$(basename "$l").cu" -o /dev/null 2>&1) |
        grep -v 'Compile time ='
    done
  } >"$dir/$name.ptxas.txt"
  regs=$(grep -o 'Used [0-9]* registers' "$dir/$name.ptxas.txt" | awk '{print $2}' | paste -sd, -)
  label=$name
  [[ $dir == "$kernels_dir" ]] && label=kernels/$name
  echo "$label: ${flags[*]} -> $name.ptx, $name.ptxas.txt (registers per function: ${regs:-none})"
  if [[ $dir != "$kernels_dir" ]] && grep -q -E 'rfsim:[[:space:]]*rdc|__noinline__|virtual' "$cu"; then
    tmp=$(mktemp -d)
    # One whole program: the linked units' sources first, then the kernels.
    for l in "${links[@]}"; do cat "$dir/$l.cu"; done | cat - "$cu" |
    sed -E 's/__noinline__([[:space:]]+inline)?/__forceinline__/g; s/(^|[[:space:]])inline[[:space:]]+__forceinline__/\1__forceinline__/g' >"$tmp/$name.inlined.cu"
    incs=(-I "$dir")
    for l in "${links[@]}"; do incs+=(-I "$dir/$(dirname "$l")"); done
    (cd "$tmp" && "$nvcc" -arch="$arch" "${incs[@]}" -ptx "$name.inlined.cu" -o "$dir/$name.inlined.ptx")
    {
      echo "# nvcc -arch=$arch -Xptxas -v -c $name.inlined.cu ($version): $name.cu with __noinline__ -> __forceinline__"
      (cd "$tmp" && "$nvcc" -arch="$arch" "${incs[@]}" -Xptxas -v -c "$name.inlined.cu" -o /dev/null 2>&1) |
        grep -v 'Compile time ='
    } >"$dir/$name.inlined.ptxas.txt"
    rm -rf "$tmp"
    calls=$(grep -c -E '^\s*call(\.uni)?\b' "$dir/$name.inlined.ptx" || true)
    echo "$label: inlined -> $name.inlined.ptx, $name.inlined.ptxas.txt ($calls calls left)"
  fi
done
