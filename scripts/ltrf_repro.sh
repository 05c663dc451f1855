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

  --quick   the two quickest workloads (lt_nn, lt_btree), the latencies 1 and 8x, design
            point #6, 16 and 64 warps per SM: every figure and table of the full run with
            fewer points, without compare's report.html (a -w after it replaces the workloads)
  --fig14, --fig15, --fig17, --fig18, --fig20   only these figures' variants (default: all)
  --sms N   SMs of the GPU (default 8: a fraction of Table 3's 24, so that the small
            inputs fill them; --sms 24 for the whole GPU)
  RFSIM     run this rfsim binary (no set-up or build)

Writes OUT/compare.json, compare.csv and report.html (docs/compare.md), and the
paper's figures beside ours in OUT/ltrf_figures.md with fig14.png, fig15.png, fig17.png
and fig20.png
(scripts/ltrf_figures.py), printed at the end. OUT defaults to
results/ltrf-repro-<date>-<time>.
TXT
}

args=()
groups=()
while (($#)); do
  case $1 in
    --quick)
      # The variants at the latencies 2..7x, on #7, with 32 warps per SM, and the two
      # LTRF flavours beside Fig. 14's are left out.
      args+=(--no-report -w lt_nn,lt_btree --skip $(grep -oE '^    [A-Za-z0-9-]+:' "$here/experiments/ltrf.yaml" |
        tr -d ' :' | sort -u | grep -E -- '-L[2-7]$|^(bl|rfc|ltrf|conf)7$|^(ltrfall|dirty)[67]$|-w32-'))
      shift ;;
    --sms) need_value "$@"; args+=(--set "gpu.num_sms=$2"); shift 2 ;;
    --fig14 | --fig15 | --fig17 | --fig18 | --fig20) groups+=("${1#--}"); shift ;;
    -h | --help) usage; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
((${#groups[@]} == 0)) || args+=(--groups "$(IFS=,; echo "${groups[*]}")")
use_rfsim
cd "$here"
"$rfsim" compare --experiment experiments/ltrf.yaml "${args[@]}"
