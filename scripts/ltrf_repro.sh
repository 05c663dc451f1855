#!/usr/bin/env bash
# The LTRF paper's comparisons: experiments/ltrf.yaml through rfsim compare, then its figures.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
  cat <<'TXT'
Usage: [RFSIM=path/to/rfsim] scripts/ltrf_repro.sh [--quick] [--sms N] [--fig14] [--fig15] [--fig17]
                                                  [--fig18] [--fig20] [-o OUT] [-w WORKLOADS]
                                                  [-j JOBS] [--large]
                                                  [other rfsim compare options]

The LTRF paper's comparisons (docs/ltrf.md) as experiments/ltrf.yaml describes them, on
the Maxwell-like configuration (the paper's Table 3) with the LTRF suite (workloads
tagged `ltrf`), every run on the timing model through `rfsim compare`:
  Fig. 14  BL, RFC, LTRF (LTRF+), LTRFconf and Ideal with the 8x main register files
           of design points #6 and #7, against BL on #1 (256 KB + 16 KB), LTRF moving
           whole sets (ltrfall), and LTRF+ writing back only dirty registers;
  Fig. 15  the 256 KB MRF (#1) with its bank latency at 1..8x: BL, RFC, LTRF,
           LTRFconf and LTRF with strands instead of intervals;
  Fig. 17  LTRF and LTRFconf with 8 and 32 registers per interval on #1 at 1, 2, 4, 6, 8x;
  Fig. 18  LTRF and LTRFconf on #6 with 4 active warps instead of 8;
  Fig. 20  BL and LTRF with 16 and 32 warps per SM on #1 at 1..8x.
Fig. 16 and Table 4 come from the compiled code and the LTRF+ runs.

By default it runs what docs/ltrf.md quotes, as three comparisons in OUT:
  OUT/sms24     Table 3's 24 SMs: Fig. 14 on #6 (BL, RFC, LTRF, LTRFconf, Ideal), Fig. 15
                at 1x (BL and LTRF), Fig. 18, Table 4, the MRF accesses and the register
                file's power; sim.sample=launches (docs/sampling.md; on this suite only
                lt_bfs has launches skipped)
  OUT/sms8      8 SMs: every variant of Fig. 14
  OUT/latency   8 SMs, four workloads (lt_nn, lt_btree, lt_pathfinder, lt_hotspot): Figs.
                15, 17 and 20 at the latencies 1, 2, 4 and 8x
each with its compare.json, report.html and ltrf_figures.md.

  --large24  also OUT/large24, the paper's scale: Table 3's 24 SMs at the large inputs,
            Fig. 14's headline (BL #1, BL #6, LTRF #6, Ideal; 70 runs) with
            sim.sample=all. Not in the default: it takes longer than the rest together
            (37 minutes on 2 cores before the comparison of the blocks left made
            lt_mrigrid, lt_nqueens and lt_raytrace run whole; 15 253 s of host time on
            2026-12-03's slow VM; docs/ltrf.md, "At the paper's scale")
  --all     instead, every variant of the experiment on every workload in one comparison
            (1 526 runs on 8 SMs: several hours on 2 cores)
  --quick   the two quickest workloads (lt_nn, lt_btree), the latencies 1 and 8x, design
            point #6, 16 and 64 warps per SM: every figure and table of the full run with
            fewer points, without compare's report.html (a -w after it replaces the workloads)
  --fig14, --fig15, --fig17, --fig18, --fig20   only these figures' variants, in one comparison
  --sms N   SMs of the GPU, in one comparison (the experiment's default is 8: a fraction of
            Table 3's 24, so that the small inputs fill them)
  -o OUT    the output folder (default results/ltrf-repro-<date>-<time>)
  RFSIM     run this rfsim binary (no set-up or build)

With --all, --quick, --figN, --sms or -w: one comparison, OUT/compare.json, compare.csv
and report.html (docs/compare.md), and the paper's figures beside ours in
OUT/ltrf_figures.md with fig14.png, fig15.png, fig17.png and fig20.png
(scripts/ltrf_figures.py), printed at the end.
TXT
}

args=()
groups=()
large24=0  # the fourth comparison, at the large inputs (--large24)
one=0    # one comparison with the options given, instead of the three docs/ltrf.md quotes
out=""
variants() { grep -oE '^    [A-Za-z0-9-]+:' "$here/experiments/ltrf.yaml" | tr -d ' :' | sort -u; }
while (($#)); do
  case $1 in
    --quick)
      # The variants at the latencies 2..7x, on #7, with 32 warps per SM, and the two
      # LTRF flavours beside Fig. 14's are left out.
      one=1
      args+=(--no-report -w lt_nn,lt_btree --skip $(variants |
        grep -E -- '-L[2-7]$|^(bl|rfc|ltrf|conf)7$|^(ltrfall|dirty)[67]$|-w32-'))
      shift ;;
    --all) one=1; shift ;;
    --large24) large24=1; shift ;;
    --sms) need_value "$@"; one=1; args+=(--set "gpu.num_sms=$2"); shift 2 ;;
    --fig14 | --fig15 | --fig17 | --fig18 | --fig20) one=1; groups+=("${1#--}"); shift ;;
    -w | --workloads) need_value "$@"; one=1; args+=("$1" "$2"); shift 2 ;;
    -o | --out) need_value "$@"; out=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
((${#groups[@]} == 0)) || args+=(--groups "$(IFS=,; echo "${groups[*]}")")
use_rfsim
cd "$here"
if ((one)); then
  "$rfsim" compare --experiment experiments/ltrf.yaml ${out:+-o "$out"} "${args[@]}"
  exit
fi
[[ -n $out ]] || out=results/ltrf-repro-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
st=0  # a comparison with a failed run does not stop the others
# docs/ltrf.md's table: the design points and latencies its rows name, on 24 SMs.
keep24='^(bl6|rfc6|ltrf6|conf6|ideal|bl-L1|ltrf-L1|ltrf6-aw4|conf6-aw4)$'
"$rfsim" compare --experiment experiments/ltrf.yaml --groups fig14,fig15,fig18 \
  --skip $(variants | grep -vE "$keep24") --set gpu.num_sms=24 --set sim.sample=launches \
  -o "$out/sms24" "${args[@]}" || st=1
"$rfsim" compare --experiment experiments/ltrf.yaml --groups fig14 -o "$out/sms8" "${args[@]}" || st=1
# Figs. 15, 17 and 20 on four workloads, at 1, 2, 4 and 8x.
"$rfsim" compare --experiment experiments/ltrf.yaml --groups fig15,fig17,fig20 \
  -w lt_nn,lt_btree,lt_pathfinder,lt_hotspot --skip $(variants | grep -E -- '-L[3567]$') \
  -o "$out/latency" "${args[@]}" || st=1
# Fig. 14's headline at Table 3's scale: the large inputs on 24 SMs, sampled within
# and across launches (every launch in detail takes 2 to 25 minutes a run here).
if ((large24)); then
  "$rfsim" compare --experiment experiments/ltrf.yaml --groups fig14 \
    --skip $(variants | grep -vE '^(bl1|bl6|ltrf6|ideal)$') --large --set gpu.num_sms=24 \
    --set sim.sample=all -o "$out/large24" "${args[@]}" || st=1
fi
if ((large24)); then
  echo "$script: $out/sms24, $out/sms8, $out/latency and $out/large24 (ltrf_figures.md in each)"
else
  echo "$script: $out/sms24, $out/sms8 and $out/latency (ltrf_figures.md in each)"
fi
exit $st
