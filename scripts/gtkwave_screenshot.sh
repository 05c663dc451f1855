#!/usr/bin/env bash
# Screenshot of the CARS rename unit's waveform in GTKWave (docs/waveforms.md).
# Opens cars_rename.vcd with the save file cars_rename.gtkw under a private
# Xvfb display, waits for the GTKWave window and captures it as a PNG.
#
# Usage: scripts/gtkwave_screenshot.sh [PNG] [WAVE_DIR]
#   PNG       output picture (default docs/img/cars_rename_gtkwave.png)
#   WAVE_DIR  folder holding cars_rename.vcd + cars_rename.gtkw (default: run
#             build/cars_rename_tb --cycles 2000 --out build/tb-shot first),
#             or a FILE.vcd with its FILE.gtkw beside it (e.g. the SM trace of
#             rfsim run --workload X --timing --trace FILE.vcd)
# Needs Xvfb, gtkwave, xdotool and ImageMagick (import, convert).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${RFSIM_BUILD_DIR:-$here/build}

case ${1:-} in
  -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
(($# <= 2)) || { echo "gtkwave_screenshot.sh: error: at most two arguments (see --help)" >&2; exit 2; }
png=${1:-$here/docs/img/cars_rename_gtkwave.png}
wave_dir=${2:-}

for tool in Xvfb gtkwave xdotool xwininfo import convert; do
  command -v "$tool" >/dev/null || { echo "gtkwave_screenshot.sh: error: '$tool' not found" >&2; exit 1; }
done

if [[ -z $wave_dir ]]; then
  wave_dir=$build/tb-shot
  [[ -x $build/cars_rename_tb ]] ||
    { echo "gtkwave_screenshot.sh: error: $build/cars_rename_tb not built" >&2; exit 1; }
  "$build/cars_rename_tb" --cycles 2000 --out "$wave_dir" >/dev/null
fi
if [[ $wave_dir == *.vcd ]]; then
  [[ -f $wave_dir ]] || { echo "gtkwave_screenshot.sh: error: $wave_dir not found" >&2; exit 1; }
  vcd=$(cd "$(dirname "$wave_dir")" && pwd)/$(basename "$wave_dir")  # gtkwave runs in a scratch folder
  gtkw=${vcd%.vcd}.gtkw
else
  [[ -d $wave_dir ]] || { echo "gtkwave_screenshot.sh: error: $wave_dir is not a folder" >&2; exit 1; }
  wave_dir=$(cd "$wave_dir" && pwd)  # gtkwave runs in a scratch folder
  vcd=$wave_dir/cars_rename.vcd
  gtkw=$wave_dir/cars_rename.gtkw
fi
for f in "$vcd" "$gtkw"; do
  [[ -f $f ]] || { echo "gtkwave_screenshot.sh: error: $f not found" >&2; exit 1; }
done
mkdir -p "$(dirname "$png")"
png=$(cd "$(dirname "$png")" && pwd)/$(basename "$png")

xvfb_pid= gtkwave_pid= tmp=$(mktemp -d)
cleanup() {
  local pid
  for pid in $gtkwave_pid $xvfb_pid; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in $gtkwave_pid $xvfb_pid; do
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# Private display: Xvfb picks a free display number itself and writes it to
# fd 3 once it accepts connections (no race with other X servers starting).
Xvfb -displayfd 3 -screen 0 1920x1400x24 -nolisten tcp -noreset 3>"$tmp/display" >"$tmp/xvfb.log" 2>&1 &
xvfb_pid=$!
display=
for _ in $(seq 100); do
  if [[ -s $tmp/display ]] && n=$(head -n1 "$tmp/display") && [[ $n =~ ^[0-9]+$ ]]; then display=:$n; break; fi
  kill -0 "$xvfb_pid" 2>/dev/null || break
  sleep 0.1
done
[[ -n $display ]] || { echo "gtkwave_screenshot.sh: error: Xvfb did not start:" >&2; cat "$tmp/xvfb.log" >&2; exit 1; }
export DISPLAY=$display

# The dump file is given explicitly: the save file's [dumpfile] line is an
# absolute path that may point elsewhere once the folder has been moved.
# The splash screen would cover the waveform for the first seconds.
(cd "$tmp" && exec gtkwave --rcvar 'splash_disable on' "$vcd" "$gtkw") >"$tmp/gtkwave.log" 2>&1 &
gtkwave_pid=$!

wid=
deadline=$((SECONDS + 20))
while ((SECONDS < deadline)); do
  kill -0 "$gtkwave_pid" 2>/dev/null ||
    { echo "gtkwave_screenshot.sh: error: gtkwave exited early:" >&2; cat "$tmp/gtkwave.log" >&2; exit 1; }
  wid=$(xdotool search --onlyvisible --class gtkwave 2>/dev/null | head -n1 || true)
  [[ -n $wid ]] && break
  sleep 0.5
done
[[ -n $wid ]] || {
  echo "gtkwave_screenshot.sh: error: the GTKWave window did not appear within 20 s" >&2
  cat "$tmp/gtkwave.log" >&2
  exit 1
}
# Loading the VCD and drawing the traces happen after the window is mapped.
sleep 3

# The palette cut keeps the picture small (the waveform uses few colours).
import -display "$display" -window "$wid" "$tmp/shot.png"
convert "$tmp/shot.png" -colors 64 -strip "png8:$png"
echo "$png"
