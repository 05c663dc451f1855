#!/usr/bin/env bash
# SM timing-model speed: runs workloads under --timing on ONE SM with the
# fixed-latency memory (--set gpu.num_sms=1 --set sim.memory=fixed: the SM
# model alone; scripts/bench_gpu.sh measures the whole GPU) and
# prints simulated SM cycles, warp instructions, host seconds,
# warp-instructions and SM-cycles per host second and peak memory, without
# and with the Verilated CARS rename unit in the register-index path (--rtl).
#
# Usage: scripts/bench_sm.sh [workload ...]     (default: saxpy sgemm fib nbody)
#        RFSIM_CONFIG=configs/maxwell.yaml scripts/bench_sm.sh
#        RFSIM_SIZE=--large scripts/bench_sm.sh saxpy   (default: the small sizes)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$here/scripts/setup.sh"
rfsim=${RFSIM_BUILD_DIR:-$here/build}/rfsim
config=${RFSIM_CONFIG:-configs/v100.yaml}
size=${RFSIM_SIZE:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
names=("$@")
((${#names[@]})) || names=(saxpy sgemm fib nbody)

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
echo "machine: $cpu, $(nproc) cores; SM timing model ($config, one SM), single-threaded, ${size:-small} sizes"
printf '%-12s %-6s %12s %12s %8s %13s %13s %9s\n' workload rtl SM_cycles warp_instrs seconds warp_instr/s \
  SM_cycles/s peak_MiB
for n in "${names[@]}"; do
  for rtl in no yes; do
    flag=""
    [[ $rtl == yes ]] && flag="--mech cars --rtl"
    out="$work/$n-$rtl"
    # shellcheck disable=SC2086  # $size and $flag: optional flags
    (cd "$here" && /usr/bin/env time -f '%M' -o "$out.rss" "$rfsim" run -q --workload "$n" --timing $size $flag \
      --config "$config" --set gpu.num_sms=1 --set sim.memory=fixed --out "$out" >/dev/null)
    jq -r --arg n "$n" '.workloads[$n].summary | "\(.cycles.value) \(.warp_instrs.value) \(.wall_time.value)"' \
      "$out/stats.json" | {
      read -r cyc wi us
      awk -v n="$n" -v r="$rtl" -v c="$cyc" -v wi="$wi" -v us="$us" -v kb="$(cat "$out.rss")" \
        'BEGIN { printf "%-12s %-6s %12.0f %12.0f %8.3f %13.0f %13.0f %9.1f\n", n, r, c, wi, us / 1e6,
                 wi * 1e6 / us, c * 1e6 / us, kb / 1024 }'
    }
  done
done
