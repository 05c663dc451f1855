#!/usr/bin/env bash
# Speed of the rename-unit co-simulation, with and without the Verilated RTL
# in the loop: simulated cycles per host second and peak memory, the median of
# several runs. Usage: scripts/bench_cosim.sh [cycles] [repeats]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cycles=${1:-2000000}
repeats=${2:-5}
"$here/scripts/setup.sh"
rfsim=${RFSIM_BUILD_DIR:-$here/build}/rfsim
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
echo "machine: $cpu, $(nproc) cores; single-threaded run; $cycles cycles x $repeats runs per mode"
printf '%-22s %12s %10s %14s %12s\n' mode cycles wall_s cycles_per_s peak_rss_MiB
for mode in --rtl --no-rtl; do
  rates=()
  for ((i = 0; i < repeats; i++)); do
    "$rfsim" demo -q "$mode" --set mechanisms.cars.demo.cycles="$cycles" --out "$work/$mode-$i" >/dev/null
    rates+=("$(jq -r '.sim.host | "\(.cycles_per_second.value) \(.wall_time.value) \(.peak_rss.value)"' \
      "$work/$mode-$i/stats.json")")
  done
  median=$(printf '%s\n' "${rates[@]}" | sort -n | sed -n "$(((repeats + 1) / 2))p")
  read -r rate wall_us rss <<<"$median"
  label=$([[ $mode == --rtl ]] && echo "RTL + reference" || echo "reference only")
  awk -v l="$label" -v c="$cycles" -v w="$wall_us" -v r="$rate" -v m="$rss" \
    'BEGIN { printf "%-22s %12d %10.3f %14.0f %12.1f\n", l, c, w / 1e6, r, m / 1024 }'
done
