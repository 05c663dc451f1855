#!/usr/bin/env bash
# One measuring session on a machine with an NVIDIA GPU (docs/hardware.md): the GPU's clocks,
# every workload's check and event times (rfsim-hw), each kernel's own cycles by Nsight Compute
# in chunks (scripts/ncu_kernels.py), and, with an rfsim build, the parallel SMs' scaling on the
# host's cores (scripts/scaling.py). Each step has a time limit and writes as it goes, so a
# session stopped early keeps what it finished.
#
# Usage: scripts/hw_session.sh OUT_DIR [seconds]        (default 900 in all)
#   RFSIM_HW=build-hw/rfsim-hw   the rfsim-hw binary (scripts/hw_build.sh)
#   RFSIM=build/rfsim            the model, for the scaling step (skipped if absent)
#   NCU=ncu                      Nsight Compute's command line (skipped if absent)
#   CHUNK=11                     workloads per ncu call (scripts/hw_ncu.sh): ncu prints its CSV
#                                when the profiled program ends, so a stopped call loses one chunk only
# Then, on any machine:
#   scripts/ncu_kernels.py OUT_DIR/ncu-large.txt --size large -o ncu-large.json
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: scripts/hw_session.sh OUT_DIR [seconds]}
budget=${2:-900}
hw=${RFSIM_HW:-$here/build-hw/rfsim-hw}
ncu=${NCU:-ncu}
chunk=${CHUNK:-11}
mkdir -p "$out"
t0=$(date +%s)
# min(cap, what is left less `reserve`) seconds, at least 0
cap() {
  local l=$((t0 + budget - $(date +%s) - ${2:-0}))
  ((l < 0)) && l=0
  ((l < $1)) && echo "$l" || echo "$1"
}
log() { echo "== $(date -u +%FT%TZ) +$(($(date +%s) - t0))s $*" | tee -a "$out/steps.log"; }
# `limited S CMD...`: CMD under a limit of S seconds; none left (timeout 0 would mean no limit): skipped
limited() {
  local s=$1
  shift
  ((s >= 5)) || { log "skipped, out of time: $1"; return 124; }
  timeout "$s" "$@"
}
[[ -x $hw ]] || { echo "hw_session.sh: no rfsim-hw at $hw (scripts/hw_build.sh)" >&2; exit 2; }

log start
{
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,clocks.max.mem,power.limit --format=csv
  nvidia-smi -q -d CLOCK,PERFORMANCE
  lscpu
} >"$out/gpu.txt" 2>&1
nvidia-smi dmon -s pc -d 1 >"$out/dmon.txt" 2>&1 &
dmon=$!
trap 'kill $dmon 2>/dev/null' EXIT

read -r -a all < <("$hw" --list | awk '{print $1}' | tr '\n' ' ')
for size in large small; do
  log "rfsim-hw --all --size $size"
  limited "$(cap 200 300)" "$hw" --all --size "$size" --reps 3 --json "$out/all-$size.json" >"$out/all-$size.log" 2>&1
  echo "exit $?" >>"$out/all-$size.log"
done

if command -v "$ncu" >/dev/null; then
  for size in large small; do
    log "ncu $size"
    CHUNK=$chunk RFSIM_HW=$hw NCU=$ncu "$here/scripts/hw_ncu.sh" "$out/ncu-$size.txt" "$(cap 100000 60)" \
      --size "$size" -- "${all[@]}" || log "ncu $size: stopped (exit $?)"
  done
else
  log "no $ncu: no kernel cycles"
fi

rfsim=${RFSIM:-$here/build/rfsim}
if [[ -x $rfsim ]]; then
  log scaling
  (cd "$here" && limited "$(cap 300 0)" /usr/bin/env python3 scripts/scaling.py --rfsim "$rfsim" \
    --json "$out/scaling.json" -o "$out/scaling-runs" sgemm conv2d) >"$out/scaling.txt" 2>&1
  rm -rf "$out/scaling-runs"
fi
log finished
