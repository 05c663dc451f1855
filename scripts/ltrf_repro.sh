#!/usr/bin/env bash
# The LTRF paper's comparisons (../shared/spec/repro.md 3.4; docs/ltrf.md) on
# the Maxwell-like configuration (configs/maxwell.yaml, the paper's Table 3)
# with the LTRF suite (workloads tagged `ltrf`), every run on the timing
# model through `rfsim compare`:
#   Fig. 14  BL, RFC, LTRF (LTRF+: live registers move), LTRFconf
#            (renumbered) and Ideal with the 8x main register files of
#            design points #6 (TFET, 5.3x latency) and #7 (DWM, 6.3x),
#            against BL on #1 (256 KB + 16 KB), LTRF moving whole sets
#            (ltrfall), and LTRF+ writing back only registers written since
#            their fetch (dirty: a dirty bit per register, not in the paper);
#   Fig. 15  the 256 KB MRF (#1) with its bank latency at 1..8x: BL, RFC,
#            LTRF, LTRFconf and LTRF with strands instead of intervals
#            (Fig. 19's "LTRF (strand)"), for the largest latency that loses
#            at most 5 % against BL at 1x;
#   Fig. 18  LTRF and LTRFconf on #6 with 4 active warps instead of 8.
# Fig. 16 (conflict-free prefetches at 8/16/32 registers per interval) and
# Table 4 (interval length) come from the compiled code and the LTRF+ runs
# (scripts/ltrf_figures.py).
#
#   [RFSIM=path/to/rfsim] scripts/ltrf_repro.sh [-o OUT] [-w WORKLOADS] [-j JOBS] [--sms N] [--large]
#       [--fig14] [--fig15] [--fig18]      (default: all three)
#   --sms N: SMs of the GPU (default 8: a fraction of Table 3's 24, so that
#            the small inputs fill them; --sms 24 for the whole GPU)
#   RFSIM: run this rfsim binary (no set-up or build)
#
# Writes OUT/compare.json, compare.csv and report.html (docs/compare.md),
# and the paper's figures beside ours in OUT/ltrf_figures.md with
# fig14.png and fig15.png (scripts/ltrf_figures.py), printed at the end.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=results/ltrf-repro-$(date +%Y%m%d-%H%M%S)
workloads=ltrf
sms=8
figs=()
extra=()
while (($#)); do
  case $1 in
    -o|--out) out=$2; shift 2 ;;
    -w) workloads=$2; shift 2 ;;
    -j) extra+=(-j "$2"); shift 2 ;;
    --sms) sms=$2; shift 2 ;;
    --large) extra+=(--large); shift ;;
    --fig14|--fig15|--fig18) figs+=("${1#--}"); shift ;;
    -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "ltrf_repro.sh: error: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
if [[ -z ${RFSIM:-} ]]; then "$here/scripts/setup.sh"; fi
rfsim=${RFSIM:-${RFSIM_BUILD_DIR:-$here/build}/rfsim}
cd "$here"
((${#figs[@]})) || figs=(fig14 fig15 fig18)
want() { [[ " ${figs[*]} " == *" $1 "* ]]; }

m=+ltrf,mechanisms.ltrf
# BL on #1: the 256 KB register file plus the cache's 16 KB, every operand
# from the MRF's banks (the reference of every figure).
variants=(--variant "bl1:$m.mode=bl,$m.design_point=1,regfile.size_kb=272")
if want fig14; then
  for dp in 6 7; do
    variants+=(--variant "bl$dp:$m.mode=bl,$m.design_point=$dp,regfile.size_kb=2064"
      --variant "rfc$dp:$m.mode=rfc,$m.design_point=$dp,regfile.size_kb=2048"
      --variant "ltrf$dp:$m.mode=ltrf_plus,$m.design_point=$dp,regfile.size_kb=2048"
      --variant "conf$dp:$m.mode=ltrf_plus,$m.renumber=true,$m.design_point=$dp,regfile.size_kb=2048"
      --variant "ltrfall$dp:$m.mode=ltrf,$m.design_point=$dp,regfile.size_kb=2048"
      --variant "dirty$dp:$m.mode=ltrf_plus,$m.writeback=dirty,$m.design_point=$dp,regfile.size_kb=2048")
  done
  # Ideal: 8x capacity (and banks) at #1's latency.
  variants+=(--variant "ideal:$m.mode=bl,$m.design_point=6,$m.mrf_latency=1,$m.check_capacity=false,regfile.size_kb=2048")
fi
if want fig15; then
  for lat in 1 2 3 4 5 6 7 8; do
    variants+=(--variant "bl-L$lat:$m.mode=bl,$m.mrf_latency=$lat,regfile.size_kb=272"
      --variant "rfc-L$lat:$m.mode=rfc,$m.mrf_latency=$lat,regfile.size_kb=256"
      --variant "ltrf-L$lat:$m.mode=ltrf_plus,$m.mrf_latency=$lat,regfile.size_kb=256"
      --variant "conf-L$lat:$m.mode=ltrf_plus,$m.renumber=true,$m.mrf_latency=$lat,regfile.size_kb=256"
      --variant "strand-L$lat:$m.mode=ltrf_plus,$m.regions=strands,$m.mrf_latency=$lat,regfile.size_kb=256")
  done
fi
if want fig18; then
  variants+=(--variant "ltrf6-aw4:$m.mode=ltrf_plus,$m.design_point=6,regfile.size_kb=2048,sm.active_warps=4"
    --variant "conf6-aw4:$m.mode=ltrf_plus,$m.renumber=true,$m.design_point=6,regfile.size_kb=2048,sm.active_warps=4")
  want fig14 || variants+=(--variant "ltrf6:$m.mode=ltrf_plus,$m.design_point=6,regfile.size_kb=2048"
    --variant "conf6:$m.mode=ltrf_plus,$m.renumber=true,$m.design_point=6,regfile.size_kb=2048")
fi
"$rfsim" compare -c maxwell -w "$workloads" -o "$out" --set "gpu.num_sms=$sms" "${extra[@]}" "${variants[@]}"
/usr/bin/python3 "$here/scripts/ltrf_figures.py" "$out" --rfsim "$rfsim"
