#!/usr/bin/env bash
# The tests: the same set-up as the main job, then the quick tier of ctest
# tests (Catch2 unit tests, whole kernels against CPU references, golden
# statistics, the RTL lint, the test bench and the cost flow). --all adds the
# long tier (label "long": the whole suite on every configuration). Other
# arguments go to ctest, e.g. scripts/test.sh -R cars, scripts/test.sh --all -L long.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tier=(-LE long)
if [[ ${1:-} == --all ]]; then
  tier=()
  shift
fi
start=$SECONDS
"$here/scripts/setup.sh"
built=$SECONDS
cd "${RFSIM_BUILD_DIR:-$here/build}"
status=0
ctest --output-on-failure -j "$(nproc)" "${tier[@]}" "$@" || status=$?
echo "test.sh: set-up and build $((built - start)) s, tests $((SECONDS - built)) s"
exit $status
