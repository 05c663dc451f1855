#!/usr/bin/env bash
# The R2D2 paper's reproduction: experiments/r2d2.yaml through rfsim compare, then its figures,
# then Table 3 (scripts/r2d2_table3.sh) into OUT/table3.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
  cat <<'TXT'
Usage: [RFSIM=path/to/rfsim] scripts/r2d2_repro.sh [--quick] [--sms N] [--no-scalar-pipeline]
                                                  [-o OUT] [-w WORKLOADS] [-j JOBS] [--large]
                                                  [--no-large80] [--no-table3]
                                                  [other rfsim compare options]

The R2D2 paper's comparisons (docs/r2d2.md) as experiments/r2d2.yaml describes them, on
the TITAN V configuration (the paper's Table 1) with the R2D2 suite (workloads tagged
`r2d2`), every run on the timing model through `rfsim compare`: the original code
(base), the paper's baseline GPU with a scalar pipeline (scalar), R2D2, the counting
and timed DAC, DARSIE and DARSIE+Scalar baselines, and R2D2 with 7 more fetch cycles
and 5 more register ID calculation cycles (section 5.4). scripts/r2d2_figures.py then
writes Fig. 4, 12, 13, 14-15 and 16 and the latency study beside the paper's numbers.
Then Table 3 (section 5.8.1: backprop over the blocks per grid) into OUT/table3.

By default it runs what docs/r2d2.md quotes, as two comparisons and Table 3:
  OUT            every variant at the small inputs on 16 SMs (252 runs): Figs. 4, 12-16
                 and the latency study
  OUT/large80    base, scalar and R2D2 at the large inputs on Table 1's 80 SMs, sampled
                 (sim.sample=all, docs/sampling.md; 84 runs): Fig. 13's headline and
                 Figs. 14-15 at the paper's scale (30 minutes on 2 cores on 2026-12-01;
                 many of its launches are two or three waves, which run whole)
  OUT/table3     Table 3 on 80 SMs

  --quick                two workloads (r2_2dconv, r2_nn) on 8 SMs, and Table 3 at BP_04
                         and BP_08 only: the same outputs in about a minute (a smoke run,
                         not the paper's numbers); no OUT/large80
  --sms N                SMs of the GPU for the figures of OUT (default 16: an SM gets 5x
                         the small inputs' blocks it gets on Table 1's 80; with --large,
                         Table 1's 80); OUT/large80 keeps 80, and Table 3 keeps 80 unless
                         --sms is given
  --large                one comparison in OUT, every variant at the large inputs on 80 SMs,
                         in full (several hours on 2 cores); no OUT/large80
  --no-large80           leave OUT/large80 out
  --no-scalar-pipeline   every timed variant without the scalar pipeline, against base
  --no-table3            leave Table 3 out
  RFSIM                  run this rfsim binary (no set-up or build)

Writes OUT/compare.json, compare.csv and report.html (docs/compare.md), and
OUT/r2d2_figures.md with fig12.png and fig13.png, printed at the end; the same in
OUT/large80; OUT/table3/ holds Table 3's compare folder and r2d2_table3.md. OUT defaults
to results/r2d2-repro-<date>-<time>. A second run into the same OUT resumes.
TXT
}

args=()    # the user's compare options, for every comparison
smsargs=() # the SM count of OUT's figures
t3args=()
quick=0
large=0
large80=1
table3=1
out=""
sms=""
workloads=""
while (($#)); do
  case $1 in
    --quick) quick=1; shift ;;
    --large) large=1; args+=("$1"); shift ;;
    --sms) need_value "$@"; sms=$2; shift 2 ;;
    -w | --workloads | --workload) need_value "$@"; workloads=$2; shift 2 ;;
    --no-scalar-pipeline) args+=(--groups no-scalar-pipeline); shift ;;
    --no-large80) large80=0; shift ;;
    --no-table3) table3=0; shift ;;
    -o | --out) need_value "$@"; out=$2; shift 2 ;;
    -j | --jobs) need_value "$@"; args+=("$1" "$2"); t3args+=("$1" "$2"); shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
((quick || large)) && large80=0
if ((quick)); then
  # An explicit --sms or -w still wins.
  [[ -n $sms ]] || sms=8
  [[ -n $workloads ]] || workloads=r2_2dconv,r2_nn
  t3args+=(-w r2_bp04,r2_bp08)
fi
if [[ -n $sms ]]; then
  smsargs+=(--set "gpu.num_sms=$sms")
  t3args+=(--set "gpu.num_sms=$sms")
elif ((!large)); then
  smsargs+=(--set "gpu.num_sms=16")  # docs/r2d2.md's table (experiments/r2d2.yaml has Table 1's 80)
fi
[[ -z $workloads ]] || args+=(-w "$workloads")
[[ -n $out ]] || out=results/r2d2-repro-$(date +%Y%m%d-%H%M%S)
use_rfsim
cd "$here"
st=0
"$rfsim" compare --experiment experiments/r2d2.yaml -o "$out" "${args[@]}" "${smsargs[@]}" || st=1
if ((large80)); then
  # The paper's scale (Table 1's 80 SMs, experiments/r2d2.yaml's own count) at the large
  # inputs: sim.sample=all skips repeated launches; launches of two or three waves run
  # whole (docs/r2d2.md, "Large inputs on 80 SMs"; the error: docs/sampling.md).
  "$rfsim" compare --experiment experiments/r2d2.yaml -o "$out/large80" --large \
    --skip baselines dac darsie darsie_scalar fetch7 idcalc5 --set sim.sample=all "${args[@]}" || st=1
fi
if ((table3)); then
  RFSIM=$rfsim "$here/scripts/r2d2_table3.sh" -o "$out/table3" "${t3args[@]}" || st=1
fi
((st == 0)) || { echo "$script: some runs failed; the figures list them" >&2; exit 1; }
