#!/usr/bin/env bash
# The main job: installs what is missing, builds what is stale, then runs a
# real experiment on the default V100 configuration and prints where its
# report is. Ten CUDA workloads (the four that are quick at their large size
# at it, the call- and register-heavy ones at their small size) under the
# timing model, each output checked on the CPU, in three variants:
#   base      the V100 baseline
#   10MB-L1   the same GPU with a 10 MB L1D per SM (CARS' comparison point,
#             CARS section V; 40-way so that the sets stay a power of two)
#   cars      the CARS mechanism, its Verilated rename unit in the loop
# then `rfsim compare`'s report: speedups, instruction counts, L1D and
# register-file traffic, stalls and energy (docs/compare.md).
#
#   scripts/run.sh                 # into results/main-<date>-<time>
#   scripts/run.sh -o DIR          # into DIR (a second run into it resumes)
#   scripts/run.sh -j 4            # other compare options are passed on
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$here/scripts/setup.sh"
cd "$here"
workloads=saxpy@large,sgemm@large,backprop@large,raytrace@large,fib,deep_calls,bfs,regpressure,virtual_dispatch,nbody
args=("$@")
if [[ " ${args[*]-} " != *" -o "* && " ${args[*]-} " != *" --out "* ]]; then
  args+=(-o "results/main-$(date +%Y%m%d-%H%M%S)")
fi
exec "${RFSIM_BUILD_DIR:-$here/build}/rfsim" compare -c v100 -w "$workloads" \
  --variant 10MB-L1:l1d.size_kb=10240,l1d.assoc=40 \
  --variant cars:+cars \
  "${args[@]}"
