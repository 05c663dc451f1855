#!/usr/bin/env bash
# The tests: the same set-up as the main job, then every ctest test (Catch2
# unit tests, whole-unit co-simulation, the RTL lint, the test bench and the
# cost flow). Arguments go to ctest, e.g. scripts/test.sh -R cars.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$here/scripts/setup.sh"
cd "${RFSIM_BUILD_DIR:-$here/build}"
exec ctest --output-on-failure -j "$(nproc)" "$@"
