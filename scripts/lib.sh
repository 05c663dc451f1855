# What the experiment scripts share (cars_repro.sh, ltrf_repro.sh, r2d2_repro.sh,
# regdem_repro.sh, r2d2_table3.sh, regdem_f_occupancy.sh, composition.sh, run.sh,
# sweep.sh); sourced, not run:
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# It sets `here` (the repository root) and `script` (the script's name), and gives
#   die MESSAGE         MESSAGE on stderr as the script's error, exit 2
#   need_value "$@"     in an option loop: dies unless the option ($1) has a value
#   use_rfsim           sets `rfsim`: $RFSIM as given (no set-up or build), else
#                       scripts/setup.sh first (installs what is missing, builds
#                       what is stale) and ${RFSIM_BUILD_DIR:-build}/rfsim
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
script=$(basename "$0")

die() {
  echo "$script: error: $*" >&2
  exit 2
}

need_value() {
  (($# >= 2)) || die "$1 needs a value (see --help)"
}

use_rfsim() {
  if [[ -z ${RFSIM:-} ]]; then "$here/scripts/setup.sh"; fi
  rfsim=${RFSIM:-${RFSIM_BUILD_DIR:-$here/build}/rfsim}
}
