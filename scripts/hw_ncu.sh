#!/usr/bin/env bash
# Each kernel's own cycles on a real GPU: rfsim-hw's workloads under Nsight Compute, a few
# workloads per ncu call, within a time budget (docs/hardware.md). ncu prints its CSV when the
# profiled program ends, so a call stopped at the budget loses its chunk only; the chunks done
# are appended to OUT as they finish.
#
# Usage: scripts/hw_ncu.sh OUT.txt SECONDS [rfsim-hw options] -- WORKLOAD...
#   e.g. scripts/hw_ncu.sh ncu-occ32.txt 120 --size large --maxrregcount 32 -- cfd lj_force
#   RFSIM_HW=build-hw/rfsim-hw   NCU=ncu   CHUNK=8 (workloads per ncu call)
# Then, on any machine: scripts/ncu_kernels.py OUT.txt --size large -o OUT.json
# The exit status is 124 if the budget ran out before the last chunk.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: scripts/hw_ncu.sh OUT.txt SECONDS [rfsim-hw options] -- WORKLOAD...}
budget=${2:?usage: scripts/hw_ncu.sh OUT.txt SECONDS [rfsim-hw options] -- WORKLOAD...}
shift 2
opts=()
while (($#)) && [[ $1 != -- ]]; do
  opts+=("$1")
  shift
done
[[ ${1:-} == -- ]] && shift
work=("$@")
((${#work[@]})) || { echo "hw_ncu.sh: no workloads (after --)" >&2; exit 2; }
hw=${RFSIM_HW:-$here/build-hw/rfsim-hw}
ncu=${NCU:-ncu}
chunk=${CHUNK:-8}
[[ -x $hw ]] || { echo "hw_ncu.sh: no rfsim-hw at $hw (scripts/hw_build.sh)" >&2; exit 2; }
command -v "$ncu" >/dev/null || { echo "hw_ncu.sh: no $ncu on the PATH" >&2; exit 2; }
metrics=gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum,smsp__thread_inst_executed.sum
t0=$(date +%s)
for ((s = 0; s < ${#work[@]}; s += chunk)); do
  left=$((t0 + budget - $(date +%s)))
  if ((left < 10)); then
    echo "hw_ncu.sh: $out: out of time before ${work[*]:s}" >&2
    exit 124
  fi
  t=$(date +%s)
  timeout "$left" "$ncu" --clock-control none --target-processes all --csv --page raw --metrics "$metrics" \
    "$hw" "${work[@]:s:chunk}" "${opts[@]}" --reps 0 >>"$out" 2>>"$out.err"
  rc=$?
  echo "hw_ncu.sh: $(basename "$out"): ${work[*]:s:chunk}: exit $rc in $(($(date +%s) - t)) s" | tee -a "$out.err" >&2
  ((rc == 124)) && exit 124
done
exit 0
