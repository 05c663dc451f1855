#!/usr/bin/env bash
# The main job: installs what is missing, builds what is stale, then runs the
# default demo (the CARS rename unit co-simulated with its RTL in lockstep on
# the V100 configuration) and prints where its results are. Arguments go to
# `rfsim run`, e.g. scripts/run.sh --config maxwell --trace.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$here/scripts/setup.sh"
cd "$here"
exec "${RFSIM_BUILD_DIR:-$here/build}/rfsim" run "$@"
