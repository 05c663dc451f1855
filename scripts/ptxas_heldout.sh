#!/usr/bin/env bash
# Prepares a held-out register-count comparison on CUDA sources that are not
# in the project (e.g. a checkout of the Rodinia benchmark suite). Every .cu
# under the SRC_DIRs with a __global__ function is compiled, on its own, to
#   OUTDIR/<benchmark>__<stem>.ptx        nvcc -arch=ARCH -ptx -w
#   OUTDIR/<benchmark>__<stem>.ptxas.txt  stderr of ptxas -arch=ARCH -v on that .ptx
# (<benchmark>: the first folder below SRC_DIR; names made unique and limited
# to [A-Za-z0-9_-]). Include paths: the file's folder, its parent and
# SRC_DIR/common when it exists. A file nvcc or ptxas fails on (e.g. a .cu
# that is only #included by another) is skipped and listed, with its first
# error line, in OUTDIR/skipped.txt. A .cu with no __global__ of its own that
# directly #includes "x.cu" files with one is compiled too, the same way, but
# only when one of those fails alone and is not yet covered; when it compiles,
# the fragments it includes are dropped from skipped.txt (reported as covered)
# and so are the outputs of any that compiled alone, so no kernel is counted
# twice. Earlier *.ptx, *.ptxas.txt and
# skipped.txt in OUTDIR are removed first. Needs nvcc ($CUDA_HOME or
# /usr/local/cuda; exit 77 without it); the sources are never edited.
# JOBS=N sets how many files compile at once (default 2).
#
# Usage: scripts/ptxas_heldout.sh [-o OUTDIR] [--arch sm_75] SRC_DIR...
#   (default OUTDIR /tmp/rfsim-heldout), then
#   build/rfsim backend --compare-ptxas OUTDIR/*.ptx
set -euo pipefail
me=ptxas_heldout.sh
usage() { echo "usage: scripts/$me [-o OUTDIR] [--arch sm_75] SRC_DIR..." >&2; exit 2; }
out=/tmp/rfsim-heldout
arch=sm_75
srcs=()
while (($#)); do
  case $1 in
    -o) (($# >= 2)) || usage; out=$2; shift 2 ;;
    --arch) (($# >= 2)) || usage; arch=$2; shift 2 ;;
    --arch=*) arch=${1#--arch=}; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) usage ;;
    *) [[ -d $1 ]] || { echo "$me: error: $1 is not a directory" >&2; exit 2; }
       srcs+=("$(cd "$1" && pwd)"); shift ;;
  esac
done
((${#srcs[@]})) || usage
cuda=${CUDA_HOME:-/usr/local/cuda}
nvcc=$cuda/bin/nvcc
ptxas=$cuda/bin/ptxas
if [[ ! -x $nvcc || ! -x $ptxas ]]; then
  echo "$me: nvcc/ptxas not found in $cuda/bin (set CUDA_HOME=...); nothing prepared." >&2
  exit 77
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out"/*.ptx "$out"/*.ptxas.txt "$out"/*.skip "$out"/skipped.txt

# The list: kind (g: has __global__, i: includes such a .cu), source, short
# name (benchmark__stem), long name (benchmark__subdirs_stem), SRC_DIR.
sanitize() { printf '%s' "${1//[!A-Za-z0-9_-]/_}"; }
list=$(mktemp)
trap 'rm -f "$list" "$list.named" "$list.jobs"' EXIT
declare -A incs=()  # includer -> the .cu files with __global__ it #includes (one a line)
for root in "${srcs[@]}"; do
  while IFS= read -r -d '' f; do
    kind=g
    if ! grep -q '__global__' "$f"; then
      kind=i incs[$f]=
      while IFS= read -r inc; do
        inc=$(realpath -m "$(dirname "$f")/$inc")
        [[ -f $inc ]] && grep -q '__global__' "$inc" && incs[$f]+=$inc$'\n'
      done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\.cu\)".*/\1/p' "$f")
      [[ -n ${incs[$f]} ]] || continue
    fi
    rel=${f#"$root"/}
    stem=$(basename "$rel" .cu)
    bench=$(basename "$root") sub=.
    [[ $rel == */* ]] && bench=${rel%%/*} sub=$(dirname "${rel#*/}")
    short=$(sanitize "$bench")__$(sanitize "$stem") long=$short
    [[ $sub != . ]] && long=$(sanitize "$bench")__$(sanitize "${sub//\//_}_$stem")
    printf '%s\t%s\t%s\t%s\t%s\n' "$kind" "$f" "$short" "$long" "$root"
  done < <(find "$root" -name '*.cu' -type f -print0 | sort -z)
done >"$list"
grep -q '^g' "$list" || { echo "$me: error: no .cu file with a __global__ function under ${srcs[*]}" >&2; exit 1; }
# Short names where unique, else long ones; a long name that still clashes gets _2, _3...
awk -F'\t' -v OFS='\t' 'NR == FNR { n[$3]++; next }
  { name = n[$3] > 1 ? $4 : $3; k = ++used[name]; if (k > 1) name = name "_" k
    print $1, $2, name, $5 }' "$list" "$list" >"$list.named"
awk -F'\t' '$1 == "g" { printf "%s%c%s%c%s%c", $2, 0, $3, 0, $4, 0 }' "$list.named" >"$list.jobs"
declare -A name_of=()
while IFS=$'\t' read -r kind f name root; do name_of[$(realpath -m "$f")]=$name; done <"$list.named"
echo "$me: $(grep -c '^g' "$list.named" || true) sources with __global__ functions" \
  "(+ $(grep -c '^i' "$list.named" || true) that #include one); compiling for $arch into $out"

one() {  # source, name, SRC_DIR: nvcc -ptx, then ptxas -v; a failure leaves NAME.skip
  local src=$1 name=$2 root=$3 dir err stage=nvcc
  dir=$(dirname "$src")
  local inc=(-I"$dir" -I"$(dirname "$dir")")
  [[ -d $root/common ]] && inc+=(-I"$root/common")
  if err=$("$nvcc" -arch="$arch" -ptx -w "${inc[@]}" -o "$out/$name.ptx" "$src" 2>&1); then
    "$ptxas" -arch="$arch" -v -o /dev/null "$out/$name.ptx" 2>"$out/$name.ptxas.txt" && return 0
    stage=ptxas
    err=$(cat "$out/$name.ptxas.txt")
  fi
  rm -f "$out/$name.ptx" "$out/$name.ptxas.txt"
  err=$(grep -m1 -i 'error' <<<"$err" || head -n1 <<<"$err")
  printf '%s: %s failed: %s\n' "${src#"$root"/}" "$stage" "$err" >"$out/$name.skip"
}
export -f one
export nvcc ptxas arch out
xargs -0 -n 3 -P "${JOBS:-2}" bash -c 'one "$@" || true' one <"$list.jobs"

# Including files, one at a time: only those that cover a fragment that failed
# alone and no earlier includer covers yet.
declare -A covered=()
ncov=0
while IFS=$'\t' read -r kind f name root; do
  [[ $kind == i ]] || continue
  mapfile -t frags < <(printf '%s' "${incs[$f]}")
  need=0
  for inc in "${frags[@]}"; do
    [[ -e $out/${name_of[$inc]}.skip && -z ${covered[$inc]:-} ]] && need=1
  done
  ((need)) || continue
  one "$f" "$name" "$root" || true
  [[ -e $out/$name.skip ]] && continue
  for inc in "${frags[@]}"; do
    iname=${name_of[$inc]}
    if [[ -n ${covered[$inc]:-} ]]; then
      echo "$me: warning: ${inc#"$root"/} is also covered by ${covered[$inc]}; its kernels count twice" >&2
    fi
    covered[$inc]=${f#"$root"/}
    rm -f "$out/$iname.skip" "$out/$iname.ptx" "$out/$iname.ptxas.txt"
    echo "  covered: ${inc#"$root"/} by ${f#"$root"/}"
    ncov=$((ncov + 1))
  done
done <"$list.named"

shopt -s nullglob
skips=("$out"/*.skip)
: >"$out/skipped.txt"
((${#skips[@]})) && cat "${skips[@]}" | sort >"$out/skipped.txt" && rm -f "${skips[@]}"
ptx=("$out"/*.ptx)
reports=("$out"/*.ptxas.txt)
kernels=0
((${#reports[@]})) && kernels=$(cat "${reports[@]}" | grep -c 'Compiling entry function' || true)
echo "$me: ${#ptx[@]} .ptx files, $kernels kernels in $out; $ncov covered by an including file;" \
  "${#skips[@]} skipped (see $out/skipped.txt)"
((${#skips[@]})) && sed 's/^/  skipped: /' "$out/skipped.txt"
echo "compare with: build/rfsim backend --compare-ptxas $out/*.ptx"
