#!/usr/bin/env bash
# The RegDem paper's comparisons: experiments/regdem.yaml through rfsim compare, then its figures.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
  cat <<'TXT'
Usage: [RFSIM=path/to/rfsim] scripts/regdem_repro.sh [--fig6] [--fig9] [--no-oracle]
                                                    [-o OUT] [-w WORKLOADS] [-j JOBS] [--large]
                                                    [other rfsim compare options]

The RegDem paper's comparisons as experiments/regdem.yaml describes them, on the
project's RegDem suite (workloads tagged `regdem`; docs/regdem.md) on the GTX Titan X
configuration (dependency barriers, as GM200):
  Fig. 6  nvcc's code (the baseline) against RegDem and the paper's three comparison
          variants of Table 3;
  Fig. 7  RegDem with each post-pass off in turn and with bank-aware compaction;
  Fig. 8  the candidate strategies (RegDem's default is cfg): static, conflicts;
  Fig. 9  the compile-time predictor's choice and the oracle (every distinct code of
          the 52-variant search space measured on each launch);
  and nvcc's code and RegDem's under a register scoreboard instead of dependency
  barriers (nvcc-scoreboard, regdem-scoreboard).

  --fig6        Fig. 6's variants only; --fig9: Fig. 9's only (with nvcc's); both: both
  --no-oracle   without the oracle (it runs every distinct code of the search space, 12
                to 50 per kernel: too long for the large inputs) and without the
                scoreboard variants; Fig. 9 then compares the predictor with the best
                code measured among the other variants
  RFSIM         run this rfsim binary (no set-up or build)

Writes OUT/compare.json, compare.csv and report.html (docs/compare.md), and the paper's
Table 1 and Fig. 6-9 beside ours in OUT/regdem_figures.md with fig6.png and fig9.png
(scripts/regdem_figures.py), printed at the end. OUT defaults to
results/regdem-repro-<date>-<time>.
TXT
}

args=()
fig6=0 fig9=0 oracle=1
while (($#)); do
  case $1 in
    --fig6) fig6=1; shift ;;
    --fig9) fig9=1; shift ;;
    --no-oracle) oracle=0; shift ;;
    -h | --help) usage; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
groups=()
((fig6)) && groups+=(fig6)
((fig9)) && groups+=(fig9)
((fig9 && oracle)) && groups+=(oracle)
((${#groups[@]} == 0)) || args+=(--groups "$(IFS=,; echo "${groups[*]}")")
((oracle)) || args+=(--skip oracle,scoreboard)
use_rfsim
cd "$here"
"$rfsim" compare --experiment experiments/regdem.yaml "${args[@]}"
