#!/usr/bin/env bash
# Hardware cost report of the mechanisms' RTL (docs/cost.md): synthesis and
# static timing of every unit the mechanisms declare with Yosys and OpenSTA
# on OSU 0.18 um cells, gate-level energy, and CARS' storage count (section
# IV-C). About 100 s without the energy simulation, 290 s with it.
#
# Usage: scripts/cost.sh [--config FILE] [--out DIR] [--overwrite] [--no-synth] [--no-energy]
#   defaults: --config configs/v100.yaml --out results/cost-v100
#   An existing results folder is kept unless --overwrite is given.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${RFSIM_BUILD_DIR:-$here/build}

config=$here/configs/v100.yaml
out=$here/results/cost-v100
flags=()
while (($#)); do
  case $1 in
    --config|--out)
      (($# >= 2)) || { echo "cost.sh: error: $1 needs a value" >&2; exit 2; }
      if [[ $1 == --config ]]; then config=$2; else out=$2; fi
      shift 2 ;;
    --overwrite|--no-synth|--no-energy) flags+=("$1"); shift ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "cost.sh: error: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

# Installs yosys/opensta, unpacks the OSU018 cells into the build folder and
# builds rfsim.
"$here/scripts/setup.sh"

"$build/rfsim" cost --config "$config" --out "$out" ${flags[@]+"${flags[@]}"}
echo "cost: report written to $out"
