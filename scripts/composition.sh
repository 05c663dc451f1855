#!/usr/bin/env bash
# The mechanisms that compose, each pair beside its two mechanisms alone, through rfsim compare.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
  cat <<'TXT'
Usage: [RFSIM=path/to/rfsim] scripts/composition.sh [-o OUT] [-j JOBS] [--sms N] [--pairs LIST]

The mechanisms that compose (docs/mechanisms.md "Composition"), each pair beside its
two mechanisms alone and the baseline, through `rfsim compare`:
  r2d2 + cars    the R2D2 suite on the TITAN V configuration
  r2d2 + ltrf    the R2D2 suite on the Maxwell configuration (LTRF's)
  regdem + cars  the RegDem suite on the GTX Titan X configuration (RegDem's)
  regdem + ltrf  the RegDem suite on the Maxwell configuration
Every run's CPU check; per pair the geometric-mean speedup over the baseline
(end-to-end cycles) and warp instructions of each variant, and how many launches ran
the combined code (scripts/composition_summary.py). Writes OUT/<a>_<b>/ and
OUT/composition.md, and prints the summary. A failed run fails the script, after
every pair ran.

  --sms N        SMs of every GPU (default 8)
  --pairs LIST   e.g. r2d2+cars,regdem+ltrf (default: all four)
  RFSIM          run this rfsim binary (no set-up or build)
TXT
}

out=results/composition-$(date +%Y%m%d-%H%M%S)
sms=8
pairs=r2d2+cars,r2d2+ltrf,regdem+cars,regdem+ltrf
extra=()
while (($#)); do
  case $1 in
    -o | --out) need_value "$@"; out=$2; shift 2 ;;
    -j | --jobs) need_value "$@"; extra+=(-j "$2"); shift 2 ;;
    --sms) need_value "$@"; sms=$2; shift 2 ;;
    --pairs) need_value "$@"; pairs=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
IFS=, read -ra list <<<"$pairs"
for p in "${list[@]}"; do
  case $p in
    r2d2+cars | r2d2+ltrf | regdem+cars | regdem+ltrf) ;;
    *) die "no pair '$p' (r2d2+cars, r2d2+ltrf, regdem+cars, regdem+ltrf)" ;;
  esac
done
use_rfsim
cd "$here"
mkdir -p "$out"
status=0
for p in "${list[@]}"; do
  a=${p%+*} b=${p#*+}
  case $p in
    r2d2+cars) cfg=titanv suite=r2d2 ;;
    r2d2+ltrf) cfg=maxwell suite=r2d2 ;;
    regdem+cars) cfg=titanx suite=regdem ;;
    regdem+ltrf) cfg=maxwell suite=regdem ;;
  esac
  echo "== $p: the $suite suite on $cfg, $sms SMs"
  "$rfsim" compare -c "$cfg" -w "$suite" -o "$out/${a}_$b" --set "gpu.num_sms=$sms" "${extra[@]}" \
    --variant "$a:+$a" --variant "$b:+$b" --variant "${a}_$b:+$a,+$b" || status=1
done
/usr/bin/python3 "$here/scripts/composition_summary.py" "$out" "$pairs"
exit $status
