#!/usr/bin/env bash
# `rfsim repro PAPER --quick` as a user runs it: exit 0, a whole comparison
# (compare.json, its runs passed) and the paper's figures beside its numbers
# (a Markdown page and at least one plot).
#   run_repro.sh PAPER BUILD_DIR [options of the paper's script...]
set -uo pipefail
paper=$1
build=$(cd "$2" && pwd)
shift 2
script_args=()
(($#)) && script_args=(-- "$@")
out=$build/repro-tests/$paper
rm -rf "$out" "$out.partial"
mkdir -p "$(dirname "$out")"
fail() { echo "FAIL (repro $paper --quick): $*"; exit 1; }
start=$SECONDS
"$build/rfsim" repro "$paper" --quick -j 2 -o "$out" "${script_args[@]}" || fail "exit status $?"
echo "repro $paper --quick: $((SECONDS - start)) s"
[[ -f $out/compare.json ]] || fail "no compare.json in $out"
jq -e '.complete == true' "$out/compare.json" >/dev/null ||
  fail "compare.json is not complete: $(jq -c '.incomplete' "$out/compare.json")"
md=$(find "$out" -name '*.md' | head -1)
[[ -n $md ]] || fail "no Markdown page of figures in $out"
png=$(find "$out" -name '*.png' | head -1)
[[ -n $png ]] || fail "no plot in $out"
echo "PASS (repro $paper --quick): $md, $(find "$out" -name '*.png' | wc -l) plots"
