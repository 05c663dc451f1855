#!/usr/bin/env bash
# Reproduces the CARS paper's comparison (docs/cars-repro.md) on the function-calling
# suite (the workloads tagged `calls`): the V100 baseline, Idealized Virtual Warps,
# 10 MB L1, static warp limits 1/2/3/4/8/16 (Best-SWL is the best per workload),
# ALL-HIT, CARS (reference rename unit), the fully inlined code (the paper's LTO
# baseline, `rfsim run --code inlined`), and the L1D with 2/4/8 ports for the baseline
# and CARS; then writes the figures (scripts/cars_figures.py) into OUT/figures/.
#
# The GPU is the V100 configuration with --sms SMs (default 8): our workloads'
# inputs are far smaller than the paper's applications, and on 80 SMs they put
# 1 to 4 warps on each SM, where nothing CARS changes (occupancy, L1D
# contention) binds. On 8 SMs the same inputs put 10 to 40 warps on each, as the
# paper's applications load a V100's SMs; the L2 and DRAM stay the V100's, so the
# memory system is relatively larger than on the chip.
#
# Every run uses the calling convention the paper describes (section II-B: the
# callee-saved registers are a contiguous range from R16, the range CARS' register
# stack renames), compiler.callee_saved: contiguous, not ptxas' own layout (the
# upper four of every eight registers from R32 preserved as well; docs/abi.md).
#
# Usage: scripts/cars_repro.sh [--large] [--sms N] [--no-ports] [--swl LIMITS] [-o OUT] [-w WORKLOADS] [-j JOBS]
#   --no-ports: without the six L1D-port variants of Fig. 17
#   --swl LIMITS: the static warp limits Best-SWL chooses from (default 1,2,3,4,8,16, the
#     paper's; at the large inputs the limits 1 to 3 run 1.7 to 7.8 times the baseline's
#     cycles on cfd and deep_calls, and take about as much longer to simulate)
#   defaults: the small inputs, 8 SMs, OUT = results/cars-repro-<time>, WORKLOADS = calls
#   A second run into the same OUT resumes (finished runs are kept; use a new OUT
#   after changing --sms or --large).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=results/cars-repro-$(date +%Y%m%d-%H%M%S)
workloads=calls
sms=8
ports=1
swl=1,2,3,4,8,16
extra=()
while (($#)); do
  case $1 in
    -o|--out) out=$2; shift 2 ;;
    -w) workloads=$2; shift 2 ;;
    -j) extra+=(-j "$2"); shift 2 ;;
    --sms) sms=$2; shift 2 ;;
    --no-ports) ports=0; shift ;;
    --swl) swl=$2; shift 2 ;;
    --large) extra+=(--large); shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "cars_repro.sh: error: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
cars=+cars,mechanisms.cars.rtl=false
swl_variants=()
IFS=, read -r -a limits <<< "$swl"
for n in "${limits[@]}"; do
  [[ $n =~ ^[0-9]+$ ]] || { echo "cars_repro.sh: error: --swl takes warp limits separated by commas, not '$swl'" >&2; exit 2; }
  swl_variants+=(--variant "swl$n:sm.warp_limit=$n")
done
port_variants=()
if ((ports)); then
  port_variants=(--variant l1x2:l1d.ports=2 --variant l1x4:l1d.ports=4 --variant l1x8:l1d.ports=8
                 --variant cars-l1x2:$cars,l1d.ports=2 --variant cars-l1x4:$cars,l1d.ports=4
                 --variant cars-l1x8:$cars,l1d.ports=8)
fi
"$here/scripts/setup.sh"
cd "$here"
"${RFSIM_BUILD_DIR:-$here/build}/rfsim" compare -c v100 -w "$workloads" -o "$out" --set "gpu.num_sms=$sms" \
  --set compiler.callee_saved=contiguous "${extra[@]}" \
  --variant ivw:regfile.size_kb=4096,shared.size_kb=1024,sm.max_blocks=64 \
  --variant 10MB-L1:l1d.size_kb=10240,l1d.assoc=40 \
  "${swl_variants[@]}" \
  --variant all-hit:l1d.local_all_hit=true \
  --variant cars:$cars --variant inlined:@inlined "${port_variants[@]}" \
  || echo "cars_repro.sh: some runs failed; the figures list them" >&2
# Debian's python3 and its matplotlib (setup.sh), whatever python3 is first on PATH.
/usr/bin/python3 "$here/scripts/cars_figures.py" "$out"
