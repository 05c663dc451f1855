#!/usr/bin/env bash
# Back-end figures per workload: the machine program's static spill bytes
# (pressure spills and ABI saves, stores + loads, as ptxas -v counts them) at
# no register limit and at a tight one, the spill/fill and save/restore warp
# instructions the functional run executes at the tight limit, and the
# allocation time (lower + allocate + frame, summed over the module's
# functions, and the slowest function).
#
# Usage: scripts/backend_figures.sh [TIGHT]   (default TIGHT=24)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${RFSIM_BUILD_DIR:-$here/build}
tight=${1:-24}
if [[ -f $build/build.ninja ]]; then cmake --build "$build" --target rfsim >/dev/null; else "$here/scripts/setup.sh"; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$here"

"$build/rfsim" backend --workload all --json "$work/free.json" >/dev/null
"$build/rfsim" backend --workload all --maxrregcount "$tight" --json "$work/tight.json" >/dev/null
"$build/rfsim" run -q --workload all --maxrregcount "$tight" --out "$work/run" >/dev/null

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
echo "machine: $cpu, $(nproc) cores"
echo
echo "| workload | spill B, no limit | spill B, $tight regs | executed spill+fill / save+restore warp instrs at $tight regs | alloc ms (sum / slowest function) |"
echo "|---|--:|--:|--:|--:|"
# jq: per module, sum spill store + load bytes; the run's per-role counts.
jq -r --slurpfile t "$work/tight.json" --slurpfile r "$work/run/stats.json" '
  .modules[] as $m
  | ($t[0].modules[] | select(.label == $m.label)) as $mt
  | ($r[0].workloads[$m.label].summary.warp_instrs_by_role.value) as $roles
  | "| \($m.label) | \([$m.functions[] | .spill_store_bytes + .spill_load_bytes] | add) | \([$mt.functions[] | .spill_store_bytes + .spill_load_bytes] | add) | \($roles.spill + $roles.fill) / \($roles.save + $roles.restore) | \([$m.functions[] | .alloc_ms] | add | . * 100 | round / 100) / \([$m.functions[] | .alloc_ms] | max | . * 100 | round / 100) |"
' "$work/free.json"
