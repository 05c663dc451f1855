#!/usr/bin/env bash
# Functional-simulation speed: runs workloads at their large size and prints
# warp and thread instructions per host second and peak memory.
# Usage: scripts/bench_func.sh [workload ...]   (default: saxpy sgemm)
#        RFSIM_RUN_ARGS=--virtual-regs scripts/bench_func.sh   (the PTX without the back end)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$here/scripts/setup.sh"
rfsim=${RFSIM_BUILD_DIR:-$here/build}/rfsim
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
names=("$@")
((${#names[@]})) || names=(saxpy sgemm)

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
echo "machine: $cpu, $(nproc) cores; functional execution, single-threaded, large sizes"
printf '%-16s %14s %16s %9s %14s %16s %10s\n' workload warp_instrs thread_instrs seconds warp_instr/s \
  thread_instr/s peak_MiB
for n in "${names[@]}"; do
  # shellcheck disable=SC2086  # RFSIM_RUN_ARGS: extra run options, e.g. --virtual-regs
  /usr/bin/env time -f '%M' -o "$work/$n.rss" "$rfsim" run -q --workload "$n" --large ${RFSIM_RUN_ARGS:-} --out "$work/$n" >/dev/null
  jq -r --arg n "$n" '.workloads[$n].summary | "\(.warp_instrs.value) \(.thread_instrs.value) \(.wall_time.value)"' \
    "$work/$n/stats.json" | {
    read -r wi ti us
    awk -v n="$n" -v wi="$wi" -v ti="$ti" -v us="$us" -v kb="$(cat "$work/$n.rss")" \
      'BEGIN { printf "%-16s %14.0f %16.0f %9.3f %14.0f %16.0f %10.1f\n", n, wi, ti, us / 1e6, wi * 1e6 / us, ti * 1e6 / us, kb / 1024 }'
  }
done
