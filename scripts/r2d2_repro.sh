#!/usr/bin/env bash
# The R2D2 paper's comparisons: experiments/r2d2.yaml through rfsim compare, then its figures.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
  cat <<'TXT'
Usage: [RFSIM=path/to/rfsim] scripts/r2d2_repro.sh [--sms N] [--no-scalar-pipeline]
                                                  [-o OUT] [-w WORKLOADS] [-j JOBS] [--large]
                                                  [other rfsim compare options]

The R2D2 paper's comparisons (docs/r2d2.md) as experiments/r2d2.yaml describes them, on
the TITAN V configuration (the paper's Table 1) with the R2D2 suite (workloads tagged
`r2d2`), every run on the timing model through `rfsim compare`: the original code
(base), the paper's baseline GPU with a scalar pipeline (scalar), R2D2, the counting
and timed DAC, DARSIE and DARSIE+Scalar baselines, and R2D2 with 7 more fetch cycles
and 5 more register ID calculation cycles (section 5.4). scripts/r2d2_figures.py then
writes Fig. 4, 12, 13, 14-15 and 16 and the latency study beside the paper's numbers.

  --sms N                SMs of the GPU (default 80, Table 1; fewer puts more of the
                         small inputs' blocks on each SM)
  --no-scalar-pipeline   every timed variant without the scalar pipeline, against base
  RFSIM                  run this rfsim binary (no set-up or build)

Writes OUT/compare.json, compare.csv and report.html (docs/compare.md), and
OUT/r2d2_figures.md with fig12.png and fig13.png, printed at the end. OUT defaults
to results/r2d2-repro-<date>-<time>.
TXT
}

args=()
while (($#)); do
  case $1 in
    --sms) need_value "$@"; args+=(--set "gpu.num_sms=$2"); shift 2 ;;
    --no-scalar-pipeline) args+=(--groups no-scalar-pipeline); shift ;;
    -h | --help) usage; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
use_rfsim
cd "$here"
"$rfsim" compare --experiment experiments/r2d2.yaml "${args[@]}"
