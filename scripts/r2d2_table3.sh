#!/usr/bin/env bash
# The R2D2 paper's Table 3: experiments/r2d2-table3.yaml through rfsim compare.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
  cat <<'TXT'
Usage: [RFSIM=path/to/rfsim] scripts/r2d2_table3.sh [--sms N] [-o OUT] [-j JOBS] [other rfsim compare options]

The R2D2 paper's Table 3 (section 5.8.1) as experiments/r2d2-table3.yaml describes it:
backprop's instruction reduction and speedup over the blocks per grid, on the TITAN V
configuration, with the workloads tagged `r2d2-table3` (r2_bp04 ... r2_bp64: r2_backprop
at 4096 to 65536 input units, grids of 256 to 4096 blocks; docs/workloads.md says how
the paper's BP_N is read). scripts/r2d2_table3.py prints the table beside the paper's
and writes it to OUT/r2d2_table3.md.

  --sms N   SMs of the GPU (default 80, Table 1)
  RFSIM     run this rfsim binary (no set-up or build)
TXT
}

args=()
while (($#)); do
  case $1 in
    --sms) need_value "$@"; args+=(--set "gpu.num_sms=$2"); shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
use_rfsim
cd "$here"
"$rfsim" compare --experiment experiments/r2d2-table3.yaml "${args[@]}"
