#!/usr/bin/env bash
# A PNG of a compare report's HTML page, rendered by headless Chromium
# (Debian's chromium package: apt-get install chromium).
#
#   scripts/report_screenshot.sh results/main-.../report.html docs/img/report.png [WIDTH HEIGHT]
set -euo pipefail
html=${1:?usage: report_screenshot.sh REPORT.html OUT.png [WIDTH HEIGHT]}
out=${2:?usage: report_screenshot.sh REPORT.html OUT.png [WIDTH HEIGHT]}
width=${3:-1280}
height=${4:-2000}
browser=$(command -v chromium || command -v chromium-browser || true)
[[ -n $browser ]] || { echo "report_screenshot.sh: chromium not found (apt-get install chromium)" >&2; exit 1; }
[[ -f $html ]] || { echo "report_screenshot.sh: $html: no such file" >&2; exit 1; }
tmp=$(mktemp --suffix=.png)
trap 'rm -f "$tmp"' EXIT
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size="$width,$height" \
  --screenshot="$tmp" "file://$(realpath "$html")" >/dev/null 2>&1
[[ -s $tmp ]] || { echo "report_screenshot.sh: chromium wrote no image" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
mv "$tmp" "$out"
trap - EXIT
echo "$out"
