#!/usr/bin/env bash
# GPU timing-model speed: saxpy on 1 048 576 floats
# (4096 blocks of 256 threads) and SGEMM 256 x 256 x 256 (16 x 16 tiles), the
# workloads' --large sizes, on the v100 configuration (80 SMs, L1D + TLM-2.0
# crossbar, L2 slices and DRAM), single-threaded. Prints simulated GPU
# cycles, warp instructions, wall time, warp-instructions and GPU-cycles per
# host second, and peak resident memory (GNU time's maximum RSS).
#
# Usage: scripts/bench_gpu.sh [workload ...]   (default: saxpy sgemm)
#        RFSIM_CONFIG=configs/titanv.yaml scripts/bench_gpu.sh
#        RFSIM_SIZE= scripts/bench_gpu.sh      (the small sizes instead of --large)
#        RFSIM_SET="sim.quantum_cycles=1" scripts/bench_gpu.sh   (a --set override)
#        RFSIM_SET="sim.parallel_sms=true sim.threads=2" scripts/bench_gpu.sh   (parallel SMs on 2 threads)
#        RFSIM_MECHS="none toy none toy" RFSIM_SET=mechanisms.toy.rename_pass=false \
#          scripts/bench_gpu.sh   (each workload with each mechanism set in turn: none
#          is the baseline, toy without its pass the do-nothing mechanism)
#        RFSIM_SAMPLE="off all" scripts/bench_gpu.sh   (each run without and with sampled
#          simulation, --sample: docs/sampling.md; the instructions and cycles are then the
#          whole run's, the extrapolated ones included)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$here/scripts/setup.sh"
rfsim=${RFSIM_BUILD_DIR:-$here/build}/rfsim
config=${RFSIM_CONFIG:-configs/v100.yaml}
size=${RFSIM_SIZE---large}
set_flags=()
# RFSIM_SET: one KEY=VALUE, or several separated by spaces.
read -r -a sets <<<"${RFSIM_SET:-}"
for kv in "${sets[@]}"; do set_flags+=(--set "$kv"); done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
names=("$@")
((${#names[@]})) || names=(saxpy sgemm)
read -r -a mechs <<<"${RFSIM_MECHS:-none}"
read -r -a samples <<<"${RFSIM_SAMPLE:-off}"

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
sms=$("$rfsim" config --config "$here/$config" --json | jq -r '.gpu.num_sms')
threads=$("$rfsim" config --config "$here/$config" "${set_flags[@]}" --json | jq -r '.sim.threads')
[[ $("$rfsim" config --config "$here/$config" "${set_flags[@]}" --json | jq -r '.sim.parallel_sms') == true ]] ||
  threads=1
echo "machine: $cpu, $(nproc) cores; GPU timing model ($config, $sms SMs), $threads host thread(s), ${size:-small} sizes" \
  "${RFSIM_SET:+(--set $RFSIM_SET)}"
printf '%-12s %-6s %-8s %6s %12s %12s %9s %13s %13s %9s\n' workload mech sample check GPU_cycles warp_instrs \
  seconds warp_instr/s GPU_cycles/s peak_MiB
status=0
i=0
for n in "${names[@]}"; do
  for m in "${mechs[@]}"; do
    for smp in "${samples[@]}"; do
      i=$((i + 1))
      out="$work/$i-$n-$m-$smp"
      # shellcheck disable=SC2086  # $size: an optional flag
      if ! (cd "$here" && /usr/bin/env time -f '%M' -o "$out.rss" "$rfsim" run -q --workload "$n" --timing $size \
        --mech "$m" --config "$config" --sample "$smp" "${set_flags[@]}" --out "$out" >/dev/null); then
        status=1
      fi
      jq -r --arg n "$n" '.workloads[$n] | "\(.summary.cycles.value) \(.summary.warp_instrs.value) \(.summary.wall_time.value) \(.passed)"' \
        "$out/stats.json" | {
        read -r cyc wi us ok
        awk -v n="$n" -v m="$m" -v smp="$smp" -v c="$cyc" -v wi="$wi" -v us="$us" -v ok="$ok" -v kb="$(cat "$out.rss")" \
          'BEGIN { printf "%-12s %-6s %-8s %6s %12.0f %12.0f %9.2f %13.0f %13.0f %9.1f\n", n, m, smp, ok == "true" ? "pass" : "FAIL",
                   c, wi, us / 1e6, wi * 1e6 / us, c * 1e6 / us, kb / 1024 }'
      }
    done
  done
done
exit $status
