#!/usr/bin/env bash
# The main job: experiments/main.yaml through rfsim compare.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
  cat <<'TXT'
Usage: scripts/run.sh [rfsim compare options]

The main job: installs what is missing, builds what is stale, then runs a real
experiment (experiments/main.yaml) on the default V100 configuration and prints where
its report is. Ten CUDA workloads (the four that are quick at their large size at it,
the call- and register-heavy ones at their small size) under the timing model, each
output checked on the CPU, in three variants:
  base      the V100 baseline
  10MB-L1   the same GPU with a 10 MB L1D per SM (CARS' comparison point, CARS
            section V; 40-way so that the sets stay a power of two)
  cars      the CARS mechanism, its Verilated rename unit in the loop
then `rfsim compare`'s report: speedups, instruction counts, L1D and register-file
traffic, stalls and energy (docs/compare.md).

  scripts/run.sh                 # into results/main-<date>-<time>
  scripts/run.sh -o DIR          # into DIR (a second run into it resumes)
  scripts/run.sh -j 4            # other compare options are passed on
TXT
}

case ${1:-} in -h | --help) usage; exit 0 ;; esac
use_rfsim
cd "$here"
exec "$rfsim" compare --experiment experiments/main.yaml "$@"
