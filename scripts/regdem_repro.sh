#!/usr/bin/env bash
# The RegDem paper's comparisons: experiments/regdem.yaml through rfsim compare, then its
# figures, and f(occupancy) (scripts/regdem_f_occupancy.sh).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
  cat <<'TXT'
Usage: [RFSIM=path/to/rfsim] scripts/regdem_repro.sh [--quick] [--small] [--sample]
                                                    [--fig6] [--fig9] [--oracle] [--scoreboard]
                                                    [--no-f] [-o OUT] [-w WORKLOADS] [-j JOBS]
                                                    [other rfsim compare options]

The RegDem paper's comparisons as experiments/regdem.yaml describes them, on the
project's RegDem suite (workloads tagged `regdem`; docs/regdem.md) on the 24-SM GTX
Titan X configuration (dependency barriers, as GM200), at the large inputs:
  Fig. 6  nvcc's code (the baseline) against RegDem with its best option combination
          per kernel (select=best: each distinct code of the 48 combinations measured
          on the launch, section 5.4's exhaustive search), RegDem's default
          combination, and the paper's three comparison variants of Table 3;
  Fig. 7  the best combination with each of its options off, and Fig. 8 the best
          combination of each candidate strategy: read from Fig. 6's trials;
  Fig. 9  the oracle (the fastest of nvcc's code, the comparison variants and every
          RegDem code, all measured for Fig. 6) against the compile-time predictor's
          choice (its own run beside it) and the naive stall count's;
  f(occupancy), eq. 3, measured on the microbenchmark (scripts/regdem_f_occupancy.sh).

  --quick       a few workloads (gauss_recursive, lj_force) at the small inputs, f at
                five register counts on the small input: the same outputs in under two
                minutes
  --small       the small inputs (default: the large ones)
  --sample      sample within each launch (sim.sample=all; docs/sampling.md). Off by
                default: on cfd_flux it moves RegDem's speedup by 0.02, as much as most of
                the effects measured (docs/regdem.md, "Sampling")
  --fig6, --fig9  only Fig. 6's runs, only Fig. 9's predictor run (default: both)
  --oracle      also select=oracle runs: every distinct code of the 52-variant search
                space measured again in one run per kernel (a cross-check of Fig. 9)
  --scoreboard  also nvcc's and RegDem's code under a register scoreboard
  --no-f        without the f(occupancy) sweep
  RFSIM         run this rfsim binary (no set-up or build)

Writes OUT/compare.json, compare.csv and report.html (docs/compare.md), the paper's
Table 1 and Fig. 6-9 beside ours in OUT/regdem_figures.md with fig6.png and fig9.png
(scripts/regdem_figures.py), and OUT/f_occupancy/ (points.csv, f_table.txt). OUT
defaults to results/regdem-repro-<date>-<time> (results/regdem-quick-... with
--quick); a second run into the same OUT resumes.
TXT
}

args=()
groups=()
quick=0 large=1 sample=0 fsweep=1 workloads=""
out=""
while (($#)); do
  case $1 in
    --quick) quick=1; shift ;;
    --small) large=0; shift ;;
    --large) large=1; shift ;;
    --sample) sample=1; shift ;;
    --fig6) groups+=(fig6); shift ;;
    --fig9) groups+=(fig9); shift ;;
    --oracle) groups+=(oracle); shift ;;
    --scoreboard) groups+=(scoreboard); shift ;;
    --no-f) fsweep=0; shift ;;
    -o | --out) need_value "$@"; out=$2; shift 2 ;;
    -w | --workloads | --workload) need_value "$@"; workloads=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
if ((quick)); then
  large=0
  [[ -n $workloads ]] || workloads=gauss_recursive,lj_force
  [[ -n $out ]] || out=results/regdem-quick-$(date +%Y%m%d-%H%M%S)
fi
[[ -n $out ]] || out=results/regdem-repro-$(date +%Y%m%d-%H%M%S)
# Fig. 6 and Fig. 9 unless groups were named; --oracle or --scoreboard alone add to them.
only=0
for g in "${groups[@]}"; do [[ $g == fig6 || $g == fig9 ]] && only=1; done
((only)) || groups+=(fig6 fig9)
args+=(--groups "$(IFS=,; echo "${groups[*]}")" -o "$out")
[[ -n $workloads ]] && args+=(-w "$workloads")
((large)) && args+=(--large)
((large && sample)) && args+=(--set sim.sample=all)
use_rfsim
cd "$here"
"$rfsim" compare --experiment experiments/regdem.yaml "${args[@]}"
if ((fsweep)); then
  fargs=(-o "$out/f_occupancy")
  ((large)) || fargs+=(--small)
  ((quick)) && fargs+=(--regs 32,48,64,96,168)
  RFSIM=$rfsim scripts/regdem_f_occupancy.sh "${fargs[@]}" | tail -n 1
fi
